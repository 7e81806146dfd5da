// Test page: mounts the board on a fixture (?fixture=NAME&orientation=second&lang=it)
// and records each move the board reports in window.played.
import { Board } from '../js/board.js';
import { initI18n, setLang, t, LANGUAGES, lang } from '../js/i18n.js';
import { gameName, sideName } from '../js/names.js';

/** @typedef {{board: import('../js/types.js').BoardView, legal_moves: import('../js/types.js').MoveInfo[], moves: import('../js/types.js').PlayedMove[]}} Fixture */

const params = new URLSearchParams(location.search);
await initI18n();
const name = params.get('fixture') ?? 'copenhagen_start';
/** @type {Fixture} */
const fixture = await (await fetch(`/tests/fixtures/${name}.json`)).json();
/** @type {string[]} */
const played = [];
Object.assign(window, { played });
const output = /** @type {HTMLOutputElement} */ (document.getElementById('played'));
const board = new Board(/** @type {HTMLElement} */ (document.getElementById('board')), {
  t,
  names: { gameName, sideName },
  orientation: params.get('orientation') === 'second' ? 'second' : 'first',
  onMove: (move) => {
    played.push(move.text);
    output.value = move.text;
  },
});
const show = () => board.set({
  board: fixture.board,
  legalMoves: fixture.legal_moves,
  lastMove: fixture.moves.at(-1) ?? null,
});
show();
document.getElementById('flip')?.addEventListener('click', () => board.flip());
const select = /** @type {HTMLSelectElement} */ (document.getElementById('lang'));
for (const [code, label] of Object.entries(LANGUAGES)) select.append(new Option(label, code, false, code === lang()));
select.addEventListener('change', async () => {
  await setLang(select.value);
  show();
});
document.body.dataset.ready = 'true';
