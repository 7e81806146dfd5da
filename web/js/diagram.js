// Rule diagrams: a part of a board drawn from position data (web/data/rules-diagrams.json,
// checked with the real rules by crates/games/tests/rules_diagrams.rs), with its
// coordinates, the move as an arrow, the pieces it takes ringed, the squares a piece may
// reach dotted, and the position after the move beside it. Squares, marks and pieces look
// as on the game board (the same classes and js/board.js's pieces).
import { pieceSvg } from './board.js';
import { t } from './i18n.js';

/** @typedef {import('./types.js').BoardView} BoardView */
/** @typedef {import('./types.js').Side} Side */
/** @typedef {import('./types.js').PieceKind} PieceKind */

/**
 * One diagram as the data file gives it.
 * @typedef {object} DiagramSpec
 * @property {string} rules the game whose rules it shows ("fetlar", "copenhagen", "camelot")
 * @property {string} view the corners of the part drawn, "b2:f6"
 * @property {Side} to_move
 * @property {string} pieces a letter and a square each: "Xc5 Od5 Kh9"
 * @property {string[]} [moves] played in order from the position
 * @property {Record<string, string>} [dests] the squares each listed piece can move to
 * @property {{winner: Side | null, reason: string} | null} [outcome]
 */

const SVGNS = 'http://www.w3.org/2000/svg';
/** A square's side in drawing units. */
const S = 100;
/** Room for the coordinates left of and below the squares. */
const M = 50;

/** @type {Record<string, [Side, PieceKind]>} */
const PIECES = {
  X: ['first', 'attacker'],
  O: ['second', 'defender'],
  K: ['second', 'king'],
  N: ['first', 'knight'],
  M: ['first', 'man'],
  n: ['second', 'knight'],
  m: ['second', 'man'],
};

/**
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @returns {SVGElement}
 */
function el(tag, attrs = {}) {
  const node = /** @type {SVGElement} */ (document.createElementNS(SVGNS, tag));
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/**
 * A square's file and rank (from 0) by its name in `geo`'s notation, or null.
 * @param {BoardView} geo
 * @param {string} name
 * @returns {{file: number, rank: number} | null}
 */
export function squareOf(geo, name) {
  const file = geo.file_names.indexOf(name[0]);
  const rank = geo.rank_names.indexOf(name.slice(1));
  return file < 0 || rank < 0 ? null : { file, rank };
}

/**
 * A move's squares from its text: the path it stands on and what it captures (tafl: the
 * squares after `x`; Camelot: the square in the middle of each `x` leap).
 * @param {BoardView} geo
 * @param {string} text
 * @returns {{path: string[], captures: string[]}}
 */
export function moveSquares(geo, text) {
  if (geo.kind !== 'camelot') {
    const [move, ...taken] = text.split('x');
    return { path: move.split('-'), captures: taken };
  }
  const parts = text.split(/([-x])/);
  const path = [parts[0]];
  const captures = [];
  for (let i = 1; i < parts.length; i += 2) {
    const to = parts[i + 1];
    if (parts[i] === 'x') {
      const a = squareOf(geo, path[path.length - 1]);
      const b = squareOf(geo, to);
      if (a && b) captures.push(`${geo.file_names[(a.file + b.file) / 2]}${geo.rank_names[(a.rank + b.rank) / 2]}`);
    }
    path.push(to);
  }
  return { path, captures };
}

/**
 * The pieces of a position by square name.
 * @param {string} pieces
 * @returns {Map<string, [Side, PieceKind]>}
 */
function readPieces(pieces) {
  const out = new Map();
  for (const item of pieces.split(/\s+/).filter(Boolean)) {
    const piece = PIECES[item[0]];
    if (!piece) throw new Error(`no piece ${item[0]}`);
    out.set(item.slice(1), piece);
  }
  return out;
}

/**
 * What is drawn on a board besides its pieces.
 * @typedef {object} Overlay
 * @property {string[][]} [arrows] the paths of moves to draw as arrows
 * @property {boolean} [numbered] number the arrows (a sequence of moves)
 * @property {string[]} [targets] pieces about to be captured (ringed)
 * @property {string[]} [dests] squares a piece may move to (dotted)
 * @property {string[]} [from] squares whose moves are shown (outlined)
 * @property {string[]} [last] the squares a move went from and to (tinted)
 * @property {string[]} [taken] squares whose pieces were just captured
 */

/**
 * One board: the squares of `view`, coordinates, marks, pieces and the overlay.
 * @param {BoardView} geo the whole board's geometry (which squares exist, their marks)
 * @param {{f0: number, r0: number, f1: number, r1: number}} view
 * @param {Map<string, [Side, PieceKind]>} pieces
 * @param {Overlay} overlay
 * @param {string} label
 * @returns {SVGSVGElement}
 */
function drawBoard(geo, view, pieces, overlay, label) {
  const cols = view.f1 - view.f0 + 1;
  const rows = view.r1 - view.r0 + 1;
  const svg = /** @type {SVGSVGElement} */ (el('svg', {
    viewBox: `0 0 ${M + cols * S} ${rows * S + M}`, class: 'kt-board__svg kt-diagram__board', role: 'img', 'aria-label': label,
  }));
  svg.style.setProperty('--cols', String(cols));
  /** @param {{file: number, rank: number}} sq */
  const xy = (sq) => ({ x: M + (sq.file - view.f0) * S, y: (view.r1 - sq.rank) * S });
  /** @param {string} name */
  const at = (name) => {
    const sq = squareOf(geo, name);
    return sq ? xy(sq) : null;
  };
  const squares = el('g', { class: 'kt-squares' });
  const marks = el('g', { class: 'kt-marks' });
  for (let rank = view.r0; rank <= view.r1; rank++) {
    for (let file = view.f0; file <= view.f1; file++) {
      const cell = geo.cells[rank * geo.files + file];
      if (!cell || !cell.exists) continue;
      const { x, y } = xy({ file, rank });
      const name = `${geo.file_names[file]}${geo.rank_names[rank]}`;
      let cls = (file + rank) % 2 === 0 ? 'kt-sq kt-sq--dark' : 'kt-sq kt-sq--light';
      if (cell.mark === 'throne') cls += ' kt-sq--throne';
      else if (cell.mark === 'corner') cls += ' kt-sq--corner';
      else if (typeof cell.mark === 'object') cls += ` kt-sq--castle kt-sq--castle-${cell.mark.castle}`;
      squares.append(el('rect', { class: cls, x, y, width: S, height: S, 'data-square': name }));
      if (cell.mark === 'throne' || cell.mark === 'corner') {
        marks.append(el('path', { class: 'kt-mark', d: `M${x + 20} ${y + 20} L${x + 80} ${y + 80} M${x + 80} ${y + 20} L${x + 20} ${y + 80}` }));
        marks.append(el('rect', { class: 'kt-mark', x: x + 12, y: y + 12, width: S - 24, height: S - 24, rx: 4 }));
      } else if (typeof cell.mark === 'object') {
        marks.append(el('path', {
          class: 'kt-mark kt-mark--castle',
          d: `M${x + 22} ${y + 78} V${y + 38} H${x + 32} V${y + 28} H${x + 42} V${y + 38} H${x + 58} V${y + 28} H${x + 68} V${y + 38} H${x + 78} V${y + 78} Z`,
        }));
      }
    }
  }
  svg.append(squares, marks);
  const coords = el('g', { class: 'kt-coords kt-diagram__coords', 'aria-hidden': 'true' });
  for (let file = view.f0; file <= view.f1; file++) {
    const text = el('text', { x: M + (file - view.f0) * S + S / 2, y: rows * S + M * 0.78, 'text-anchor': 'middle' });
    text.textContent = geo.file_names[file];
    coords.append(text);
  }
  for (let rank = view.r0; rank <= view.r1; rank++) {
    const text = el('text', { x: M / 2, y: (view.r1 - rank) * S + S / 2 + 14, 'text-anchor': 'middle' });
    text.textContent = geo.rank_names[rank];
    coords.append(text);
  }
  svg.append(coords);
  const under = el('g', { class: 'kt-diagram__under' });
  for (const name of overlay.last ?? []) {
    const p = at(name);
    if (p) under.append(el('rect', { class: 'kt-last', x: p.x, y: p.y, width: S, height: S, 'data-last': name }));
  }
  for (const name of overlay.from ?? []) {
    const p = at(name);
    if (p) under.append(el('rect', { class: 'kt-diagram__from', x: p.x + 4, y: p.y + 4, width: S - 8, height: S - 8, rx: 6 }));
  }
  for (const name of overlay.taken ?? []) {
    const p = at(name);
    if (p) under.append(el('rect', { class: 'kt-captured', x: p.x + 3, y: p.y + 3, width: S - 6, height: S - 6, rx: 8, 'data-taken': name }));
  }
  svg.append(under);
  const pieceLayer = el('g', { class: 'kt-pieces' });
  for (const [name, [side, kind]] of pieces) {
    const p = at(name);
    const sq = squareOf(geo, name);
    if (!p || !sq || sq.file < view.f0 || sq.file > view.f1 || sq.rank < view.r0 || sq.rank > view.r1) continue;
    const g = el('g', { class: `kt-piece kt-piece--${side} kt-piece--${kind}`, transform: `translate(${p.x} ${p.y})`, 'data-square': name, 'data-piece': `${side}-${kind}` });
    g.innerHTML = pieceSvg(side, kind);
    pieceLayer.append(g);
  }
  svg.append(pieceLayer);
  const over = el('g', { class: 'kt-diagram__over' });
  for (const name of overlay.targets ?? []) {
    const p = at(name);
    if (p) over.append(el('circle', { class: 'kt-diagram__target', cx: p.x + S / 2, cy: p.y + S / 2, r: 44, 'data-target': name }));
  }
  for (const name of overlay.dests ?? []) {
    const p = at(name);
    if (!p) continue;
    const taken = pieces.has(name);
    over.append(el('circle', { class: taken ? 'kt-dest kt-dest--capture' : 'kt-dest', cx: p.x + S / 2, cy: p.y + S / 2, r: taken ? 40 : 16, 'data-dest': name }));
  }
  (overlay.arrows ?? []).forEach((path, i) => {
    let points = path.map(at).filter((p) => p !== null).map((p) => ({ x: p.x + S / 2, y: p.y + S / 2 }));
    if (points.length < 2) return;
    if (overlay.numbered) {
      // A move and its way back side by side: each shifted to its own left.
      const [p0, p1] = points;
      const d = Math.hypot(p1.x - p0.x, p1.y - p0.y) || 1;
      const nx = (p1.y - p0.y) / d * 16;
      const ny = -(p1.x - p0.x) / d * 16;
      points = points.map((p) => ({ x: p.x + nx, y: p.y + ny }));
    }
    // Stop short of the last square's centre, where the head goes.
    const a = points[points.length - 2];
    const b = points[points.length - 1];
    const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const ux = (b.x - a.x) / len;
    const uy = (b.y - a.y) / len;
    const end = { x: b.x - ux * 30, y: b.y - uy * 30 };
    const line = [...points.slice(0, -1), end].map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
    over.append(el('polyline', { class: 'kt-diagram__arrow', points: line }));
    const tip = { x: b.x - ux * 6, y: b.y - uy * 6 };
    const left = { x: end.x - uy * 22 - ux * 6, y: end.y + ux * 22 - uy * 6 };
    const right = { x: end.x + uy * 22 - ux * 6, y: end.y - ux * 22 - uy * 6 };
    over.append(el('path', { class: 'kt-diagram__head', d: `M${tip.x} ${tip.y} L${left.x} ${left.y} L${right.x} ${right.y} Z` }));
    if (overlay.numbered) {
      const mid = { x: (points[0].x + end.x) / 2, y: (points[0].y + end.y) / 2 };
      over.append(el('circle', { class: 'kt-diagram__num-bg', cx: mid.x, cy: mid.y, r: 27 }));
      const num = el('text', { class: 'kt-diagram__num', x: mid.x, y: mid.y + 13, 'text-anchor': 'middle' });
      num.textContent = String(i + 1);
      over.append(num);
    }
  });
  svg.append(over);
  return svg;
}

/**
 * The view's bounds from "b2:f6".
 * @param {BoardView} geo
 * @param {string} view
 */
function readView(geo, view) {
  const [a, b] = view.split(':').map((name) => squareOf(geo, name));
  if (!a || !b) throw new Error(`bad view ${view}`);
  return { f0: Math.min(a.file, b.file), r0: Math.min(a.rank, b.rank), f1: Math.max(a.file, b.file), r1: Math.max(a.rank, b.rank) };
}

/**
 * A diagram: the position with its move drawn and, for a move, the position after it.
 * A sequence of moves that comes back to where it began (repetition) is drawn once,
 * its moves numbered.
 * @param {string} id
 * @param {DiagramSpec} spec
 * @param {BoardView} geo
 * @param {string} caption the rule the diagram shows, in words
 * @returns {HTMLElement}
 */
export function diagram(id, spec, geo, caption) {
  const view = readView(geo, spec.view);
  const pieces = readPieces(spec.pieces);
  const moves = spec.moves ?? [];
  const figure = document.createElement('figure');
  figure.className = 'kt-board kt-diagram';
  figure.dataset.diagram = id;
  const boards = document.createElement('div');
  boards.className = 'kt-diagram__boards';
  /** @param {SVGSVGElement} svg @param {string} title */
  const panel = (svg, title) => {
    const box = document.createElement('div');
    box.className = 'kt-diagram__panel';
    const head = document.createElement('div');
    head.className = 'kt-diagram__title';
    head.textContent = title;
    box.append(head, svg);
    boards.append(box);
  };
  if (moves.length === 0) {
    const dests = Object.values(spec.dests ?? {}).flatMap((list) => list.split(/\s+/).filter(Boolean));
    panel(drawBoard(geo, view, pieces, { dests, from: Object.keys(spec.dests ?? {}) }, caption), '');
  } else if (moves.length > 2) {
    const seen = new Set();
    const arrows = [];
    for (const text of moves) {
      if (seen.has(text)) continue;
      seen.add(text);
      arrows.push(moveSquares(geo, text).path);
    }
    panel(drawBoard(geo, view, pieces, { arrows, numbered: true }, caption), t('rules.diagram_sequence', { count: moves.length }));
  } else {
    let now = pieces;
    for (const text of moves) {
      const { path, captures } = moveSquares(geo, text);
      panel(drawBoard(geo, view, now, { arrows: [path], targets: captures }, `${t('rules.diagram_before')} ${text}`), t('rules.diagram_before'));
      const next = new Map(now);
      const piece = next.get(path[0]);
      next.delete(path[0]);
      for (const sq of captures) next.delete(sq);
      if (piece) next.set(path[path.length - 1], piece);
      // A captured king stays on the board (the game is over): ring him.
      const king = spec.outcome?.reason === 'king_captured' && text === moves[moves.length - 1]
        ? [...next].filter(([, [, kind]]) => kind === 'king').map(([sq]) => sq) : [];
      panel(drawBoard(geo, view, next, { last: [path[0], path[path.length - 1]], taken: captures, targets: king }, t('rules.diagram_after', { move: text })),
        t('rules.diagram_after', { move: text }));
      now = next;
    }
  }
  const cap = document.createElement('figcaption');
  cap.className = 'kt-diagram__caption';
  cap.textContent = caption;
  figure.append(boards, cap);
  return figure;
}
