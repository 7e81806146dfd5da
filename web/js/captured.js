// The pieces each side has lost: the start position's pieces less those on the board now
// (tafl: attackers, or defenders and the king; Camelot: knights and men), drawn as small
// pieces with counts.
import { h } from './ui.js';
import { t } from './i18n.js';
import { pieceSvg } from './board.js';

/** @typedef {import('./types.js').BoardView} BoardView */
/** @typedef {import('./types.js').Side} Side */
/** @typedef {import('./types.js').PieceKind} PieceKind */
/** @typedef {Partial<Record<PieceKind, number>>} Lost */

/**
 * How many pieces of each kind `side` has on `view`.
 * @param {BoardView} view
 * @param {Side} side
 * @returns {Lost}
 */
function material(view, side) {
  /** @type {Lost} */
  const count = {};
  for (const cell of view.cells) {
    if (cell.piece && cell.piece[0] === side) count[cell.piece[1]] = (count[cell.piece[1]] ?? 0) + 1;
  }
  return count;
}

/**
 * The pieces `side` has lost between `start` and `now`, by kind.
 * @param {BoardView} start
 * @param {BoardView} now
 * @param {Side} side
 * @returns {Lost}
 */
export function lostPieces(start, now, side) {
  const before = material(start, side);
  const after = material(now, side);
  /** @type {Lost} */
  const lost = {};
  for (const [kind, n] of Object.entries(before)) {
    lost[/** @type {PieceKind} */ (kind)] = Math.max(0, n - (after[/** @type {PieceKind} */ (kind)] ?? 0));
  }
  return lost;
}

/**
 * The words for what `side` lost ("Pieces lost: 3", "Lost: 1 knight, 2 men").
 * @param {import('./types.js').GameKind} kind
 * @param {Lost} lost
 */
export function lostText(kind, lost) {
  if (kind === 'camelot') return t('captured.camelot', { knights: lost.knight ?? 0, men: lost.man ?? 0 });
  const total = (lost.attacker ?? 0) + (lost.defender ?? 0) + (lost.king ?? 0);
  return t('captured.tafl', { count: total });
}

/**
 * What `side` has lost, as pieces with counts (`data-lost` holds the total), with the
 * words as its label.
 * @param {import('./types.js').GameKind} kind
 * @param {Side} side
 * @param {Lost} lost
 */
export function lostEl(kind, side, lost) {
  const kinds = /** @type {PieceKind[]} */ (kind === 'camelot' ? ['knight', 'man'] : side === 'first' ? ['attacker'] : ['defender', 'king']);
  const total = kinds.reduce((sum, k) => sum + (lost[k] ?? 0), 0);
  const words = lostText(kind, lost);
  const el = h('span', { class: 'captured', role: 'img', 'aria-label': words, title: words, dataset: { side, lost: String(total) } });
  for (const k of kinds) {
    const n = lost[k] ?? 0;
    if (!n && !(kind === 'camelot' || k === kinds[0])) continue;
    const icon = h('span', { class: 'captured__icon', 'aria-hidden': 'true' });
    icon.innerHTML = `<svg viewBox="0 0 100 100">${pieceSvg(side, k)}</svg>`;
    el.append(h('span', { class: 'captured__item', dataset: { kind: k }, 'aria-hidden': 'true' }, icon, `×${n}`));
  }
  return el;
}
