// The compact forms an `events` message carries (docs/API.md, "The game socket"), read
// back into the shapes the pages draw from: the board's pieces as one character a cell,
// and the legal moves with their squares as cell indices. A `state` message gives the
// board's frame and marks, which a game never changes.

/** @typedef {import('./types.js').BoardView} BoardView */
/** @typedef {import('./types.js').MoveInfo} MoveInfo */
/** @typedef {import('./types.js').WireMove} WireMove */
/** @typedef {import('./types.js').PieceKind} PieceKind */

/** @type {Record<string, PieceKind>} */
const KINDS = { a: 'attacker', d: 'defender', k: 'king', n: 'knight', m: 'man' };

/**
 * `board` with the pieces of `pieces` (a character a cell: `.` none, the kind's initial,
 * upper case for the first player) and `toMove` to move.
 * @param {BoardView} board
 * @param {string} pieces
 * @param {import('./types.js').Side} toMove
 * @returns {BoardView}
 */
export function withPieces(board, pieces, toMove) {
  const cells = board.cells.map((cell, i) => {
    const ch = pieces[i] ?? '.';
    const kind = KINDS[ch.toLowerCase()];
    /** @type {import('./types.js').Cell['piece']} */
    const piece = kind ? [ch === ch.toLowerCase() ? 'second' : 'first', kind] : null;
    return piece?.[0] === cell.piece?.[0] && piece?.[1] === cell.piece?.[1] ? cell : { ...cell, piece };
  });
  return { ...board, cells, to_move: toMove };
}

/**
 * The legal moves of the wire form (`[text, from, to, captures, path?]`, squares as
 * `rank * files + file`) on a board of `files` files.
 * @param {WireMove[]} moves
 * @param {number} files
 * @returns {MoveInfo[]}
 */
export function movesOf(moves, files) {
  const sq = (/** @type {number} */ i) => ({ file: i % files, rank: Math.floor(i / files) });
  return moves.map(([text, from, to, captures, path]) => ({
    text,
    from: sq(from),
    to: sq(to),
    path: path ? path.map(sq) : [sq(from), sq(to)],
    captures: captures.map(sq),
  }));
}
