// Conditional moves of a correspondence game: while the opponent is to move, a player
// writes lines of expected replies and answers ("if they play X, I play Y"); the server
// plays the answer when the expected reply comes and drops the lines when another does.
// Private to the player (GET/PUT /api/games/{id}/conditional).
import { h, errorText } from './ui.js';
import { t } from './i18n.js';
import { api } from './api.js';

/** @typedef {import('./types.js').GameState} GameState */

/**
 * The panel, for a player of a correspondence game; `refresh()` after every change.
 * @param {string} id the game
 * @param {() => GameState} current the game as the page holds it now
 */
export function conditionalPanel(id, current) {
  const list = h('ol', { class: 'conditional__lines small', id: 'conditional-lines' });
  const input = /** @type {HTMLTextAreaElement} */ (h('textarea', {
    id: 'conditional-input', rows: 3, spellcheck: false, autocomplete: 'off',
    placeholder: t('conditional.placeholder'), 'aria-describedby': 'conditional-help',
  }));
  const note = h('p', { class: 'muted small', id: 'conditional-note' });
  const error = h('p', { class: 'notice notice--error', role: 'alert', hidden: true });
  const save = h('button', { type: 'button', class: 'btn btn--small btn--primary', id: 'conditional-save', onclick: () => store(linesOf(input.value)) }, t('conditional.save'));
  const clear = h('button', { type: 'button', class: 'btn btn--small', id: 'conditional-clear', onclick: () => store([]) }, t('conditional.clear'));
  const el = h('details', { class: 'card stack conditional', id: 'conditional' },
    h('summary', null, t('conditional.title')),
    h('p', { class: 'muted small', id: 'conditional-help' }, t('conditional.help')),
    list, note, input, error, h('div', { class: 'btn-row' }, save, clear));

  /** @param {string} text one line per row, moves separated by spaces */
  function linesOf(text) {
    return text.split('\n').map((row) => row.trim().split(/[\s,]+/).filter(Boolean)).filter((row) => row.length);
  }

  /** @param {string[][]} lines */
  function show(lines) {
    list.replaceChildren(...lines.map((line) => h('li', null, line.map((mv, i) => (i % 2 ? `→ ${mv}` : mv)).join(' '))));
    if (!lines.length) list.append(h('li', { class: 'muted' }, t('conditional.none')));
  }

  function drawState() {
    const game = current();
    const mine = game.status === 'ongoing' && game.board.to_move !== game.you;
    note.textContent = mine ? '' : t('conditional.wait');
    for (const c of /** @type {Array<HTMLTextAreaElement | HTMLButtonElement>} */ ([input, save, clear])) c.disabled = !mine;
  }

  /** @param {string[][]} lines */
  async function store(lines) {
    error.hidden = true;
    try {
      const answer = await api.setConditional(id, lines);
      show(answer.lines);
      input.value = '';
    } catch (e) {
      error.textContent = errorText(e);
      error.hidden = false;
    }
  }

  async function refresh() {
    drawState();
    if (current().status !== 'ongoing') {
      el.hidden = true;
      return;
    }
    try {
      show((await api.conditional(id)).lines);
    } catch {
      // The game ended meanwhile: the panel goes with the next change.
    }
  }

  return { el, refresh };
}
