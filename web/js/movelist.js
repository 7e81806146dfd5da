// A game's moves in its notation, two to a row, each a button that shows the position
// after it; with first / previous / next / last buttons and the arrow keys.
import { h } from './ui.js';
import { t } from './i18n.js';

/** @typedef {import('./types.js').PlayedMove} PlayedMove */

/**
 * A move's text with a line-break opportunity after each step (`-` or `x`), so that a
 * long Camelot capture wraps between squares, never inside one (E10xE8x / C8xE6).
 * @param {string} text
 * @returns {(string | HTMLElement)[]}
 */
export function moveSteps(text) {
  return text.split(/(?<=[-x])/).flatMap((part, i) => (i ? [h('wbr'), part] : [part]));
}

export class MoveList {
  /** @param {(ply: number) => void} onSelect called with the ply to show (0 = the start) */
  constructor(onSelect) {
    this.onSelect = onSelect;
    /** @type {PlayedMove[]} */
    this.moves = [];
    this.ply = 0;
    this.list = h('div', { class: 'moves', role: 'list', 'aria-label': t('play.moves') });
    /** @type {Record<string, HTMLButtonElement>} */
    this.buttons = {};
    const nav = h('div', { class: 'nav-buttons' });
    /** @type {Array<[string, string, string, () => number]>} */
    const actions = [
      ['first', 'play.nav_first', 'M6 5h2v14H6zM19 5v14L9 12z', () => 0],
      ['prev', 'play.nav_prev', 'M17 5v14L6 12z', () => this.ply - 1],
      ['next', 'play.nav_next', 'M7 5v14l11-7z', () => this.ply + 1],
      ['last', 'play.nav_last', 'M16 5h2v14h-2zM5 5v14l10-7z', () => this.moves.length],
    ];
    for (const [name, key, icon, target] of actions) {
      const button = h('button', {
        type: 'button', class: 'btn btn--small', 'aria-label': t(key), title: t(key),
        dataset: { nav: name }, onclick: () => this.go(target()),
      });
      button.innerHTML = `<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true"><path fill="currentColor" d="${icon}"/></svg>`;
      this.buttons[name] = button;
      nav.append(button);
    }
    this.el = h('div', { class: 'stack' }, this.list, nav);
    this.keys = (/** @type {KeyboardEvent} */ e) => {
      const target = /** @type {Element | null} */ (e.target);
      if (target && (target.closest('input, textarea, select, .kt-board__svg, dialog, .kt-picker'))) return;
      /** @type {Record<string, () => number>} */
      const keys = { ArrowLeft: () => this.ply - 1, ArrowRight: () => this.ply + 1, Home: () => 0, End: () => this.moves.length };
      const fn = keys[e.key];
      if (!fn) return;
      e.preventDefault();
      this.go(fn());
    };
    document.addEventListener('keydown', this.keys);
    this.draw();
  }

  /** @param {number} ply */
  go(ply) {
    const next = Math.max(0, Math.min(this.moves.length, ply));
    if (next === this.ply) return;
    this.ply = next;
    this.draw();
    this.onSelect(next);
  }

  /**
   * @param {PlayedMove[]} moves
   * @param {number} ply the ply shown
   */
  set(moves, ply) {
    this.moves = moves;
    this.ply = ply;
    this.draw();
  }

  draw() {
    const cells = [];
    if (!this.moves.length) cells.push(h('p', { class: 'moves__empty' }, t('play.no_moves')));
    const offset = this.moves[0]?.player === 'second' ? 1 : 0;
    for (let i = 0; i < this.moves.length + offset; i += 2) {
      cells.push(h('span', { class: 'moves__num' }, String(i / 2 + 1)));
      for (const j of [i, i + 1]) {
        const m = this.moves[j - offset];
        if (!m) {
          cells.push(h('span', { class: 'moves__move' }, j - offset < 0 ? '…' : ''));
          continue;
        }
        const ply = j - offset + 1;
        cells.push(h('button', {
          type: 'button', class: 'moves__move', role: 'listitem', dataset: { ply: String(ply) },
          'aria-current': ply === this.ply ? 'true' : null,
          onclick: () => this.go(ply),
        }, ...moveSteps(m.text)));
      }
    }
    this.list.replaceChildren(...cells);
    const current = this.list.querySelector('[aria-current="true"]');
    if (current instanceof HTMLElement) {
      // Scrolls the list only (not the page) to the move shown.
      this.list.scrollTop = current.offsetTop - this.list.clientHeight / 2;
    }
    this.buttons.first.disabled = this.buttons.prev.disabled = this.ply === 0;
    this.buttons.next.disabled = this.buttons.last.disabled = this.ply >= this.moves.length;
  }

  destroy() {
    document.removeEventListener('keydown', this.keys);
  }
}
