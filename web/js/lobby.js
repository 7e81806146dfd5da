// The lobby as the home and watch pages see it: one socket (/ws/lobby), a snapshot on
// connecting, then the server's coalesced changes applied here. The pages read only
// this; nothing is fetched again when something changes.
import { Socket } from './socket.js';

/** @typedef {import('./types.js').LiveGame} LiveGame */
/** @typedef {import('./types.js').Challenge} Challenge */
/** @typedef {import('./types.js').LobbySocketMessage} LobbySocketMessage */
/** @typedef {import('./types.js').LobbyChatLine} LobbyChatLine */

/**
 * @typedef {object} LobbyOptions
 * @property {() => void} [onGames] the live games changed
 * @property {() => void} [onChallenges] the challenges changed
 * @property {(game: string, challenge: string) => void} [onAccepted] this visitor's
 *   challenge was accepted and became `game`
 * @property {(lines: LobbyChatLine[]) => void} [onChat] messages of the lobby chat (the
 *   last ones on connecting, then each new one)
 * @property {(code: string, message: string, reason?: string) => void} [onError] the server refused
 *   something this page sent (a chat message)
 */

/** Newest first, by when it was made, then id (as the server orders them). */
const newestFirst = (/** @type {{created_at: number, id: string}} */ a, /** @type {{created_at: number, id: string}} */ b) =>
  b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export class Lobby {
  /** @param {LobbyOptions} options */
  constructor(options) {
    this.options = options;
    /** @type {Map<string, LiveGame>} */
    this.gameMap = new Map();
    /** @type {Map<string, Challenge>} */
    this.challengeMap = new Map();
    /** How many games are being played in all (the lobby shows the newest only). */
    this.live = 0;
    /** Whether the first snapshot has come. */
    this.ready = false;
    // The lobby only: the player's own games come on the app's own socket (mine.js).
    this.socket = new Socket('/ws/lobby?feed=lobby', {
      onMessage: (/** @type {LobbySocketMessage} */ msg) => this.apply(msg),
    });
  }

  /** @param {LobbySocketMessage} msg */
  apply(msg) {
    switch (msg.t) {
      case 'snapshot':
        this.ready = true;
        this.gameMap = new Map(msg.games.map((g) => [g.id, g]));
        this.challengeMap = new Map(msg.challenges.map((c) => [c.id, c]));
        this.live = msg.live;
        this.options.onGames?.();
        this.options.onChallenges?.();
        break;
      case 'changes': {
        for (const id of msg.games_removed) this.gameMap.delete(id);
        for (const g of msg.games_added) this.gameMap.set(g.id, g);
        for (const change of msg.games_changed) {
          const g = this.gameMap.get(change.id);
          if (!g) continue;
          // Only what changed comes: the cells a move changed, and the rest as now.
          const cells = [...g.board.cells];
          for (const [i, cell] of change.cells) cells[i] = cell;
          this.gameMap.set(g.id, {
            ...g,
            board: { ...g.board, cells, to_move: change.to_move },
            watchers: change.watchers,
            players: change.players ?? g.players,
          });
        }
        for (const id of msg.challenges_removed) this.challengeMap.delete(id);
        for (const c of msg.challenges_added) this.challengeMap.set(c.id, c);
        this.live = msg.live;
        const games = msg.games_removed.length + msg.games_added.length + msg.games_changed.length > 0;
        if (games || msg.live !== undefined) this.options.onGames?.();
        if (msg.challenges_removed.length + msg.challenges_added.length > 0) this.options.onChallenges?.();
        break;
      }
      case 'challenge_accepted':
        this.options.onAccepted?.(msg.game, msg.challenge);
        break;
      case 'lobby_chat_history':
        this.options.onChat?.(msg.messages);
        break;
      case 'lobby_chat':
        this.options.onChat?.([{ id: msg.id, from: msg.from, text: msg.text, at: msg.at }]);
        break;
      case 'error':
        this.options.onError?.(msg.code, msg.message, msg.reason);
        break;
      default:
        break;
    }
  }

  /** @returns {LiveGame[]} the live games shown, newest first */
  games() {
    return [...this.gameMap.values()].sort(newestFirst);
  }

  /** @returns {Challenge[]} the open challenges, newest first */
  challenges() {
    return [...this.challengeMap.values()].sort(newestFirst);
  }

  /** @param {string} text a message for the lobby chat */
  say(text) {
    this.socket.send({ t: 'chat', text });
  }

  close() {
    this.socket.close();
  }
}
