// Moves the player names without the board: typed as the move list writes them or by
// their squares, and a premove found again among the moves legal once it is the
// player's turn. Pure (node tests it: web/tests/gamectrl.test.mjs).

/** @typedef {import('../../types.js').MoveInfo} MoveInfo */
/** @typedef {import('../../types.js').BoardView} BoardView */

/**
 * A square as the move list names it (`d3`, `e10`).
 * @param {import('../../types.js').Square} sq
 * @param {BoardView} view
 */
const squareName = (sq, view) => `${view.file_names[sq.file]}${view.rank_names[sq.rank]}`.toLowerCase();

/**
 * The squares a move goes through, as the move list names them: its path (a Camelot
 * canter or jump sequence), else its start and end.
 * @param {MoveInfo} m
 * @param {BoardView} view
 */
const squaresOf = (m, view) => (m.path.length > 1 ? m.path : [m.from, m.to]).map((sq) => squareName(sq, view));

/**
 * The moves among `moves` that `typed` names: its text (any case), or its squares in
 * order — start and end, the whole path, or start, end and the captures, as
 * `h6-h8xg8` — with `-`, `x` or spaces between them. `null` when `typed` is not written
 * as squares of this board.
 * @param {string} typed
 * @param {MoveInfo[]} moves
 * @param {BoardView} view
 * @returns {MoveInfo[] | null}
 */
export function movesNamed(typed, moves, view) {
  const text = typed.trim().toLowerCase();
  const squares = text.split(/[\s,>x×:-]+/).filter(Boolean);
  const names = new Set();
  for (const f of view.file_names) for (const r of view.rank_names) names.add(`${f}${r}`.toLowerCase());
  if (squares.length < 2 || !squares.every((sq) => names.has(sq))) return null;
  const exact = moves.filter((m) => m.text.toLowerCase() === text);
  if (exact.length) return exact;
  const key = squares.join(' ');
  return moves.filter((m) => {
    const path = squaresOf(m, view);
    const ends = [path[0], path[path.length - 1]];
    const captures = m.captures.map((sq) => squareName(sq, view));
    return [path, ends, [...ends, ...captures]].some((line) => line.join(' ') === key);
  });
}

/**
 * The move of `moves` that a queued premove is: the same text, else the only one with
 * its squares (the captures it makes may differ from those foreseen).
 * @param {MoveInfo} queued
 * @param {MoveInfo[]} moves
 */
export function premoveNow(queued, moves) {
  const same = moves.find((m) => m.text === queued.text);
  if (same) return same;
  const at = (/** @type {import('../../types.js').Square[]} */ path) => path.map((sq) => `${sq.file}.${sq.rank}`).join(' ');
  const path = at(queued.path.length > 1 ? queued.path : [queued.from, queued.to]);
  const found = moves.filter((m) => at(m.path.length > 1 ? m.path : [m.from, m.to]) === path);
  return found.length === 1 ? found[0] : null;
}
