// Writes a board view as the game's position string (the notation the server reads:
// OpenTafl's string plus the side for tafl, Kingstable's FEN for Camelot), for setting up
// a position in the browser. Notation only: the server checks the position.

/** @typedef {import('./types.js').BoardView} BoardView */
/** @typedef {import('./types.js').Cell} Cell */

/** Letters of the pieces in each notation. */
const TAFL_LETTERS = { attacker: 't', defender: 'T', king: 'K' };
const CAMELOT_LETTERS = { first_knight: 'N', first_man: 'M', second_knight: 'n', second_man: 'm' };

/**
 * A rank's cells as letters and counts of empty squares ("3tt6").
 * @param {Cell[]} cells
 * @param {(cell: Cell) => string} letter
 */
function rankText(cells, letter) {
  let out = '';
  let empty = 0;
  for (const cell of cells) {
    const l = cell.piece ? letter(cell) : '';
    if (!l) {
      empty += 1;
      continue;
    }
    if (empty) out += String(empty);
    empty = 0;
    out += l;
  }
  return empty ? out + String(empty) : out;
}

/**
 * @param {BoardView} view
 * @returns {string}
 */
export function positionString(view) {
  const ranks = [];
  for (let r = 0; r < view.ranks; r++) ranks.push(view.cells.slice(r * view.files, (r + 1) * view.files));
  if (view.kind === 'camelot') {
    const rows = ranks.reverse().map((cells) => rankText(cells.filter((c) => c.exists), (c) => {
      const [side, kind] = /** @type {[string, string]} */ (c.piece);
      return CAMELOT_LETTERS[/** @type {keyof typeof CAMELOT_LETTERS} */ (`${side}_${kind}`)] ?? '';
    }));
    return `${rows.join('/')} ${view.to_move === 'first' ? 'w' : 'b'} 0 0 0`;
  }
  const rows = ranks.map((cells) => rankText(cells, (c) => TAFL_LETTERS[/** @type {keyof typeof TAFL_LETTERS} */ ((c.piece ?? [])[1])] ?? ''));
  return `/${rows.join('/')}/ ${view.to_move === 'first' ? 'attackers' : 'defenders'}`;
}
