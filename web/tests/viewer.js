// Test page: the game viewer on a fixture (?fixture=NAME&start=START_FIXTURE&result=REASON).
import { gameViewer } from '../js/viewer.js';
import { initI18n } from '../js/i18n.js';

const params = new URLSearchParams(location.search);
await initI18n();
const load = async (/** @type {string} */ name) => (await fetch(`/tests/fixtures/${name}.json`)).json();
const fx = await load(params.get('fixture') ?? 'copenhagen_capture');
const start = params.get('start') ? await load(/** @type {string} */ (params.get('start'))) : null;
const reason = params.get('result');
/** @type {import('../js/types.js').GameState} */
const game = {
  id: 'fixture', kind: fx.kind, rev: fx.moves.length, status: reason ? 'finished' : 'ongoing',
  result: reason ? { winner: 'first', reason: /** @type {any} */ (reason) } : null,
  players: [
    { side: 'first', name: 'alice', user: true, ai: null, rating: 1500, provisional: true },
    { side: 'second', name: '', user: false, ai: 4 },
  ],
  you: null, time_control: '5+3', correspondence: false, rated: false, board: fx.board,
  start_board: start ? start.board : undefined,
  moves: fx.moves, legal_moves: [], clocks: null, draw_offer: null, takeback_request: null, watchers: 0,
  actions: { first: [], second: [] },
  chat: {
    players: { read: false, read_over: false, write: false },
    spectators: { read: false, read_over: false, write: false },
  },
};
const main = /** @type {HTMLElement} */ (document.getElementById('main'));
main.append(gameViewer(game).el);
document.body.dataset.ready = 'true';
