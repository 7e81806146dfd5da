// Translation keys of the game's own words, listed out (not built from strings) so the
// i18n check sees every key in use.
import { t } from './i18n.js';

/** @typedef {import('./types.js').GameKind} GameKind */
/** @typedef {import('./types.js').Side} Side */
/** @typedef {import('./types.js').EndReason} EndReason */

/** @type {Record<GameKind, string>} */
export const GAME_KEYS = {
  fetlar: 'game.fetlar',
  copenhagen: 'game.copenhagen',
  camelot: 'game.camelot',
};

/** The games in the order pages offer them. */
export const GAME_KINDS = /** @type {GameKind[]} */ (Object.keys(GAME_KEYS));

/** Why a game ended, in words (every game::EndReason). */
/** @type {Record<EndReason, string>} */
export const REASON_KEYS = {
  corner_escape: 'reason.corner_escape',
  king_captured: 'reason.king_captured',
  exit_fort: 'reason.exit_fort',
  encirclement: 'reason.encirclement',
  no_legal_moves: 'reason.no_legal_moves',
  repetition: 'reason.repetition',
  timeout: 'reason.timeout',
  resignation: 'reason.resignation',
  castle: 'reason.castle',
  elimination: 'reason.elimination',
  material: 'reason.material',
  fifty_moves: 'reason.fifty_moves',
  agreement: 'reason.agreement',
  adjudication: 'reason.adjudication',
  abandonment: 'reason.abandonment',
};

/** @param {GameKind | string} kind */
export function gameName(kind) {
  return t(GAME_KEYS[/** @type {GameKind} */ (kind)] ?? kind);
}

/**
 * A side's name in its game: attackers/defenders in tafl, White/Black in Camelot.
 * @param {GameKind | string} kind
 * @param {Side} side
 */
export function sideName(kind, side) {
  if (kind === 'camelot') return t(side === 'first' ? 'side.white' : 'side.black');
  return t(side === 'first' ? 'side.attackers' : 'side.defenders');
}

/**
 * The words for a game's end: who won (or a draw) and why.
 * @param {GameKind} kind
 * @param {import('./types.js').GameResult} result
 */
export function resultWords(kind, result) {
  const camelot = kind === 'camelot';
  /** @type {Record<Side, string>} */
  const wins = camelot
    ? { first: 'result.white_wins', second: 'result.black_wins' }
    : { first: 'result.attackers_win', second: 'result.defenders_win' };
  const headline = result.winner ? t(wins[result.winner]) : t('result.draw');
  return { headline, reason: t(REASON_KEYS[result.reason] ?? result.reason) };
}
