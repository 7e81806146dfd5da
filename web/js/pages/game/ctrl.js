// The game page's state and what each message of the game socket does to it, as
// lichess's round UI keeps its ctrl and socket apart from its view. No DOM, no
// storage and no network here: the page passes hooks (send a message, draw a part
// again, a notice, a sound, ask the server for moves), so node tests this module
// alone (web/tests/gamectrl.test.mjs). `view.js` draws from it; `../game.js` wires the
// two to the socket.
import { withPieces, movesOf } from '../../wire.js';
import { boardAt } from '../../replay.js';
import { movesNamed, premoveNow } from './moves.js';

/** @typedef {import('../../types.js').GameState} GameState */
/** @typedef {import('../../types.js').Side} Side */
/** @typedef {import('../../types.js').MoveInfo} MoveInfo */
/** @typedef {import('../../types.js').BoardView} BoardView */
/** @typedef {import('../../types.js').GameStatus} GameStatus */
/** @typedef {import('../../types.js').ChatRoom} ChatRoom */
/** @typedef {import('../../types.js').ChatMessage} ChatMessage */
/** @typedef {import('../../types.js').EventsMessage} EventsMessage */
/** @typedef {import('../../types.js').GameSocketMessage} GameSocketMessage */
/** @typedef {import('../../types.js').ActionName} ActionName */
/** @typedef {import('../../board.js').BoardState} BoardState */

/**
 * Words the page shows: a translation key and its parameters (the view translates).
 * @typedef {{key: string, params?: Record<string, string | number>}} Words
 */

/**
 * A part of the page to draw again (`board`: with the players' bars; `seat`: the board
 * turned to the side the viewer took).
 * @typedef {"all" | "board" | "status" | "clocks" | "watchers" | "connection" | "premove" | "confirm" | "seat"} Part
 */

/**
 * What the page does for the state: the ctrl calls these and nothing else.
 * @typedef {object} Hooks
 * @property {(message: {t: string, [field: string]: unknown}) => void} send a message to the game socket
 * @property {(part: Part) => void} redraw draws a part of the page again
 * @property {(words: Words) => void} toast a passing notice
 * @property {(error: {code: string, message: string, reason?: string}) => void} refused
 *   the server refused a message (its `error`)
 * @property {(message: ChatMessage) => void} chat a chat message for the panel
 * @property {(reason: string | undefined, words: string) => void} chatRefused a chat
 *   message was not said (the server's reason, and its English words)
 * @property {(kind: "end") => void} sound the game just finished
 * @property {(board: BoardView) => Promise<MoveInfo[]>} movesIn the legal moves of the
 *   side to move on `board`, as the server's rules say (for choosing a premove)
 */

/** The rooms of a game's chat, in the order the panel shows them. */
const ROOMS = /** @type {const} */ (['players', 'spectators']);

/**
 * Whether a game has ended (and may be analysed).
 * @param {GameStatus} status
 */
export const isOver = (status) => status === 'finished' || status === 'aborted';

export class GameCtrl {
  /**
   * @param {GameState} game the game as `GET /api/games/{id}` gave it
   * @param {{confirmMoves: boolean}} settings a correspondence move waits for Confirm
   * @param {Hooks} hooks
   * @param {() => number} [now] a steady clock in ms (for the claim countdown)
   */
  constructor(game, settings, hooks, now = () => performance.now()) {
    this.game = game;
    this.settings = settings;
    this.hooks = hooks;
    this.now = now;
    /** @type {number | null} the ply shown while browsing earlier positions (null: live) */
    this.browsing = null;
    /** the ply the board showed last (a move one past it is animated) */
    this.drawnPly = game.moves.length;
    this.connected = true;
    /** @type {Map<Side, number>} when (by `now`) a claim against each absent player opens */
    this.claimAt = new Map();
    /** @type {{reason?: "asked" | "no_first_move" | "abandoned", by: Side} | null} how the game was aborted, when this page saw it happen */
    this.aborted = null;
    /** @type {MoveInfo | null} the move queued while the opponent is to move */
    this.premove = null;
    /** @type {MoveInfo[]} the player's moves in the position now, were it their turn */
    this.premoveMoves = [];
    /** which position (revision) `premoveMoves` are of */
    this.premoveFor = '';
    /** @type {MoveInfo | null} a correspondence move shown, waiting for Confirm */
    this.pending = null;
    this.setAbsent(game.absent);
  }

  // What the game is now.

  /** A live game (timed, not correspondence): premoves are offered. */
  isLive() {
    return this.game.time_control !== 'untimed' && !this.game.correspondence;
  }

  /** Whether it is this player's move now. */
  myTurn() {
    const g = this.game;
    return g.status === 'ongoing' && g.you !== null && g.board.to_move === g.you;
  }

  /** Whether this player may queue a premove now: a live game, the opponent to move. */
  premoveAllowed() {
    const g = this.game;
    return this.isLive() && g.status === 'ongoing' && g.you !== null && g.board.to_move !== g.you;
  }

  /**
   * What this visitor may do now, as the server says.
   * @returns {ActionName[]}
   */
  mayDo() {
    return this.game.you && this.game.actions ? this.game.actions[this.game.you] : [];
  }

  /** The ply shown: the one browsed to, or the live one. */
  shownPly() {
    return this.browsing ?? this.game.moves.length;
  }

  /** The position shown (the one browsed to, or the live one). */
  shownView() {
    const g = this.game;
    return this.browsing === null || !g.start_board ? g.board : boardAt(g.start_board, g.moves, this.browsing);
  }

  /** The clocks to show: only an ongoing game's clock runs. */
  shownClocks() {
    const g = this.game;
    return g.clocks && g.status !== 'ongoing' ? { ...g.clocks, running: null } : g.clocks;
  }

  /**
   * The players gone from a live game going on, other than the viewer: for their
   * opponent the seconds until the claim opens (0: open now); for a spectator `null`.
   * @returns {Array<{side: Side, seconds: number | null}>}
   */
  claims() {
    const you = this.game.you;
    if (this.game.status !== 'ongoing') return [];
    return [...this.claimAt]
      .filter(([side]) => side !== you)
      .map(([side, at]) => ({ side, seconds: you ? Math.max(0, Math.ceil((at - this.now()) / 1000)) : null }));
  }

  /**
   * The chat rooms this viewer reads now and the one it writes in, as the server says
   * (`chat` in the game): the rooms read while the game goes on, or once it is over.
   * @returns {{reads: ChatRoom[], writes: ChatRoom | null}}
   */
  chatRooms() {
    const rights = this.game.chat;
    const over = isOver(this.game.status);
    const reads = ROOMS.filter((room) => (over ? rights[room].read_over : rights[room].read));
    return { reads, writes: ROOMS.find((room) => rights[room].write) ?? null };
  }

  /**
   * Takes the absent players from the server (`state`'s `absent`, or an `absent`
   * message): when a claim against each opens.
   * @param {import('../../types.js').Absence[] | undefined} absent
   */
  setAbsent(absent) {
    this.claimAt.clear();
    const now = this.now();
    for (const a of absent ?? []) this.claimAt.set(a.side, now + a.claim_in_ms);
  }

  // The socket.

  /** The first message after each (re)connection: the last revision seen. */
  hello() {
    return { t: 'hello', rev: this.game.rev };
  }

  /** @param {boolean} up whether the socket is connected */
  setConnected(up) {
    this.connected = up;
    this.hooks.redraw('connection');
  }

  /**
   * What a message of the game socket does to the page.
   * @param {GameSocketMessage} msg
   */
  receive(msg) {
    const { hooks } = this;
    switch (msg.t) {
      case 'state': {
        const wasYou = this.game.you;
        this.game = msg.game;
        this.setAbsent(this.game.absent);
        // A seat taken (joining by link) turns the board to the player's side.
        if (this.game.you !== wasYou) hooks.redraw('seat');
        hooks.redraw('all');
        break;
      }
      case 'events':
        this.applyEvents(msg);
        break;
      case 'clocks':
        this.game.clocks = msg.clocks;
        hooks.redraw('clocks');
        break;
      case 'watchers':
        this.game.watchers = msg.count;
        hooks.redraw('watchers');
        break;
      case 'absent':
        this.game.absent = msg.absent;
        this.setAbsent(msg.absent);
        hooks.redraw('status');
        break;
      case 'chat':
        hooks.chat(msg);
        break;
      case 'error':
        if (msg.code === 'chat_refused') {
          hooks.chatRefused(msg.reason, String(msg.message ?? ''));
          break;
        }
        hooks.refused(msg);
        // Shows the position as the server has it again (an optimistic move is undone).
        hooks.redraw('board');
        break;
      default:
        break;
    }
  }

  /**
   * Applies an `events` message: the moves list follows the events; everything else
   * (status, result, offers, what each player may do, board, clocks) is as the server
   * says it after them.
   * @param {EventsMessage} msg
   */
  applyEvents(msg) {
    const g = this.game;
    if (msg.from_rev > g.rev) {
      // A gap: ask for what is missing.
      this.hooks.send(this.hello());
      return;
    }
    if (msg.rev <= g.rev) return;
    const before = g.status;
    for (const ev of msg.events) {
      if (ev.revision <= g.rev) continue;
      if (ev.type === 'moved') {
        g.moves = [...g.moves, { ...ev.move, ply: g.moves.length + 1, player: ev.player }];
      } else if (ev.type === 'taken_back') {
        g.moves = g.moves.slice(0, Math.max(0, g.moves.length - ev.plies));
        // A takeback after the end undoes the ending.
        g.ended_by = null;
      } else if (ev.type === 'takeback_declined' && ev.by !== g.you) {
        this.hooks.toast({ key: 'play.takeback_declined' });
      } else if (ev.type === 'time_given' && g.you && ev.by !== g.you) {
        this.hooks.toast({ key: ev.ms >= 86_400_000 ? 'play.given_day' : 'play.given_seconds' });
      } else if (ev.type === 'draw_declined' && ev.by !== g.you) {
        this.hooks.toast({ key: 'play.draw_declined' });
      } else if (ev.type === 'ended') {
        // The server's word: who resigned, whose flag fell, who was claimed against.
        g.ended_by = ev.by ?? null;
      } else if (ev.type === 'aborted') {
        this.aborted = { reason: ev.reason, by: ev.by };
      }
    }
    g.rev = msg.rev;
    g.status = msg.status;
    g.result = msg.result;
    g.board = withPieces(g.board, msg.pieces, msg.to_move);
    g.legal_moves = movesOf(msg.legal, g.board.files);
    g.clocks = msg.clocks;
    g.draw_offer = msg.draw_offer;
    g.takeback_request = msg.takeback_request;
    g.actions = msg.actions;
    if (before !== 'finished' && g.status === 'finished') this.hooks.sound('end');
    this.hooks.redraw('all');
  }

  // What the player does.

  /**
   * Shows the position after `ply` moves (the last: the live position).
   * @param {number} ply
   */
  browse(ply) {
    this.browsing = ply === this.game.moves.length ? null : ply;
    this.hooks.redraw('board');
  }

  /**
   * The move the player chose on the board: sent, or, in correspondence with
   * confirmation on, shown and held for Confirm.
   * @param {MoveInfo} move
   */
  choose(move) {
    if (this.settings.confirmMoves && this.game.correspondence) {
      this.pending = move;
      this.hooks.redraw('confirm');
      return;
    }
    this.sendMove(move);
  }

  /**
   * The move held for Confirm: sent (`yes`), or dropped and the board shown again.
   * @param {boolean} yes
   */
  confirm(yes) {
    const move = this.pending;
    this.pending = null;
    this.hooks.redraw('confirm');
    if (!move) return;
    if (yes) this.sendMove(move);
    else this.hooks.redraw('board');
  }

  /** @param {MoveInfo} move */
  sendMove(move) {
    this.hooks.send({ t: 'move', rev: this.game.rev, move: move.text });
  }

  /**
   * The premove the board queued (null: cancelled).
   * @param {MoveInfo | null} move
   */
  queuePremove(move) {
    this.premove = move;
    this.hooks.redraw('premove');
  }

  /**
   * A socket message that is the action itself (`resign`, `draw_accept`, `claim_draw`…).
   * @param {string} type the message's tag
   */
  act(type) {
    this.hooks.send({ t: type });
  }

  /**
   * The move `typed` names (as the move list writes it, or by its squares), to play or
   * queue as a premove, or why it cannot be.
   * @param {string} typed
   * @returns {{moves: MoveInfo[]} | {problem: Words} | null} null for nothing typed
   */
  typed(typed) {
    const text = typed.trim();
    if (!text) return null;
    const premoving = this.premoveAllowed();
    if (!this.myTurn() && !premoving) return { problem: { key: 'play.type_not_turn' } };
    const legal = premoving ? this.premoveMoves : this.game.legal_moves;
    const found = movesNamed(typed, legal, this.game.board);
    if (found === null) return { problem: { key: 'play.type_bad', params: { text, example: legal[0]?.text ?? 'd1-d3' } } };
    if (!found.length) return { problem: { key: 'play.type_illegal', params: { move: text } } };
    this.browsing = null;
    return { moves: found };
  }

  /**
   * What the board shows now, and what showing it does: a correspondence move waiting
   * for Confirm is dropped (the position may have changed); a premove made when the
   * opponent was to move is returned as `play` once it is the player's turn, if it is
   * still legal (else it is dropped, with a notice).
   * @returns {{state: BoardState, browsing: boolean, play: MoveInfo | null}}
   */
  frame() {
    const g = this.game;
    const live = this.browsing === null;
    const ply = this.shownPly();
    const mine = this.myTurn();
    if (this.pending) {
      this.pending = null;
      this.hooks.redraw('confirm');
    }
    if (this.premove && g.status !== 'ongoing') this.premove = null;
    const queued = live && mine && this.premove ? this.premove : null;
    const premoving = live && this.premoveAllowed();
    if (premoving) void this.loadPremoveMoves();
    /** @type {BoardState} */
    const state = {
      board: this.shownView(),
      legalMoves: live && mine ? g.legal_moves : premoving ? this.premoveMoves : [],
      lastMove: ply > 0 ? g.moves[ply - 1] : null,
      interactive: live && (mine || premoving),
      animate: ply === this.drawnPly + 1,
      premoving,
      premove: premoving ? this.premove : null,
    };
    this.drawnPly = ply;
    /** @type {MoveInfo | null} */
    let play = null;
    if (queued) {
      // The player's turn has come: the queued move goes at once if it is legal now.
      this.premove = null;
      play = premoveNow(queued, g.legal_moves);
      if (!play) this.hooks.toast({ key: 'play.premove_dropped', params: { move: queued.text } });
    }
    return { state, browsing: !live, play };
  }

  /**
   * Asks the server for the player's moves in the position now as if it were their
   * turn, for choosing a premove; draws the board again when they come.
   */
  async loadPremoveMoves() {
    const you = this.game.you;
    if (!you) return;
    const key = `${this.game.rev}`;
    if (this.premoveFor === key) return;
    this.premoveFor = key;
    this.premoveMoves = [];
    try {
      const moves = await this.hooks.movesIn({ ...this.game.board, to_move: you });
      if (this.premoveFor !== key) return;
      this.premoveMoves = moves;
    } catch {
      // No premove in this position.
      return;
    }
    if (this.premoveAllowed() && this.browsing === null) this.hooks.redraw('board');
  }
}
