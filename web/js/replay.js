// Earlier positions of a game from its start and the geometry of its moves (what moves
// where, what is captured): no rules needed, since the server sent the geometry.

/** @typedef {import('./types.js').BoardView} BoardView */
/** @typedef {import('./types.js').PlayedMove} PlayedMove */

/**
 * The board after the first `ply` moves.
 * @param {BoardView} start
 * @param {PlayedMove[]} moves
 * @param {number} ply
 * @returns {BoardView}
 */
export function boardAt(start, moves, ply) {
  const cells = start.cells.slice();
  const at = (/** @type {import('./types.js').Square} */ sq) => sq.rank * start.files + sq.file;
  let toMove = start.to_move;
  for (const m of moves.slice(0, ply)) {
    const piece = cells[at(m.from)].piece;
    for (const sq of m.captures) cells[at(sq)] = { ...cells[at(sq)], piece: null };
    cells[at(m.from)] = { ...cells[at(m.from)], piece: null };
    cells[at(m.to)] = { ...cells[at(m.to)], piece };
    toMove = m.player === 'first' ? 'second' : 'first';
  }
  return { ...start, cells, to_move: toMove };
}
