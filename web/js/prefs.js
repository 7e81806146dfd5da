// The player's settings, kept in this browser.

/**
 * @typedef {object} Prefs
 * @property {"mine" | "first" | "second"} orientation the side at the bottom: your own
 *   side in your games, or always the first or the second player's
 * @property {boolean} sound move sounds
 * @property {boolean} coordinates file and rank names around the board
 * @property {boolean} notices notices in the page when one of the player's games needs
 *   them (their move, an offer, an end)
 * @property {boolean} desktop the same as the browser's notifications, while the tab is
 *   in the background (once the browser allows them)
 * @property {boolean} confirmMoves in correspondence games, a move is shown and sent only
 *   once confirmed
 */

const KEY = 'kingstable.prefs';
/** @type {Prefs} */
const DEFAULTS = { orientation: 'mine', sound: true, coordinates: true, notices: true, desktop: false, confirmMoves: false };

/** @returns {Prefs} */
export function prefs() {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? '{}');
    return { ...DEFAULTS, ...(stored && typeof stored === 'object' ? stored : {}) };
  } catch {
    return { ...DEFAULTS };
  }
}

/** @param {Partial<Prefs>} changes */
export function savePrefs(changes) {
  try {
    localStorage.setItem(KEY, JSON.stringify({ ...prefs(), ...changes }));
  } catch {
    // Storage off: the setting lasts for this page only.
  }
}

/**
 * Which side to show at the bottom for a player who is `you` (null: a spectator).
 * @param {import('./types.js').Side | null} you
 * @returns {import('./types.js').Side}
 */
export function orientationFor(you) {
  const o = prefs().orientation;
  if (o === 'mine') return you ?? 'first';
  return o;
}
