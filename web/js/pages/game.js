// A game: the board, both players and clocks, the pieces each side lost, the moves, the
// actions (resign, draw, takeback, abort, rematch), the result in words, the watchers
// and the chat. A move may be typed (as the move list writes it), queued as a premove
// in a live game while the opponent thinks, or held for confirmation in a
// correspondence game (a setting). The game socket keeps it live and catches up after a
// dropped connection.
//
// As lichess's round UI: `game/ctrl.js` holds the state and what each socket message
// does to it, `game/view.js` draws it; this wires the two to the socket and the API.
import { h, toast, errorNotice, errorText, refusalText, setTitle } from '../ui.js';
import { t } from '../i18n.js';
import { api } from '../api.js';
import { Socket } from '../socket.js';
import { prefs } from '../prefs.js';
import { ensurePlayer } from '../app.js';
import { navigate } from '../router.js';
import { playSound } from '../sound.js';
import { setRulesContext } from '../guide.js';
import { positionString } from '../position.js';
import { GameCtrl } from './game/ctrl.js';
import { gameView } from './game/view.js';

/**
 * @param {HTMLElement} main
 * @param {string[]} params
 */
export async function render(main, [id]) {
  setTitle(t('play.title'));
  /** @type {import('../types.js').GameState} */
  let game;
  try {
    game = await api.game(id);
  } catch (error) {
    main.append(h('div', { class: 'card' }, h('h1', null, t('play.title')), errorNotice(error)));
    return;
  }

  setRulesContext(game.kind);
  const settings = prefs();
  const ctrl = new GameCtrl(game, { confirmMoves: settings.confirmMoves }, {
    send: (message) => socket.send(message),
    redraw: (part) => view.redraw(part),
    toast: (words) => toast(t(words.key, words.params)),
    refused: (error) => toast(refusalText(error)),
    chat: (message) => view.chat.receive(message),
    chatRefused: (reason, words) => view.chat.refused(reason, words),
    sound: (kind) => {
      if (settings.sound) playSound(kind);
    },
    movesIn: async (board) => (await api.position(board.kind, positionString(board), [])).legal_moves,
  });
  const view = gameView(main, ctrl, settings, {
    join: async () => {
      try {
        await ensurePlayer();
        await api.join(id);
        // The socket was opened before this visitor had a seat (or a cookie).
        socket.reconnect();
      } catch (error) {
        toast(errorText(error));
      }
    },
    rematch: async () => {
      try {
        const answer = await api.rematch(id);
        if (answer && answer.id) navigate(`/game/${encodeURIComponent(answer.id)}`);
        else toast(t('play.rematch_sent'));
      } catch (error) {
        toast(errorText(error));
      }
    },
  });
  const socket = new Socket(`/ws/game/${encodeURIComponent(id)}`, {
    hello: () => ctrl.hello(),
    onStatus: (up) => ctrl.setConnected(up),
    onMessage: (/** @type {import('../types.js').GameSocketMessage} */ msg) => ctrl.receive(msg),
  });

  view.redraw('all');
  return {
    destroy() {
      view.destroy();
      socket.close();
    },
  };
}
