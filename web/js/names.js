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
 * Who ended a game outside the rules, by reason, then by game family and side: the side
 * that resigned, whose flag fell, or that left and was claimed against.
 * @type {Record<string, {tafl: Record<Side, string>, camelot: Record<Side, string>}>}
 */
const ENDED_BY_KEYS = {
  resignation: {
    tafl: { first: 'result.resigned_attackers', second: 'result.resigned_defenders' },
    camelot: { first: 'result.resigned_white', second: 'result.resigned_black' },
  },
  timeout: {
    tafl: { first: 'result.flag_attackers', second: 'result.flag_defenders' },
    camelot: { first: 'result.flag_white', second: 'result.flag_black' },
  },
  abandonment: {
    tafl: { first: 'result.left_attackers', second: 'result.left_defenders' },
    camelot: { first: 'result.left_white', second: 'result.left_black' },
  },
};

/**
 * Why a game ended, in words: who resigned, whose flag fell or who left when the server
 * says (`endedBy`), else the reason alone.
 * @param {GameKind} kind
 * @param {EndReason} reason
 * @param {Side | null | undefined} endedBy
 */
export function reasonWords(kind, reason, endedBy) {
  const by = ENDED_BY_KEYS[reason];
  if (by && endedBy) return t(by[kind === 'camelot' ? 'camelot' : 'tafl'][endedBy]);
  return t(REASON_KEYS[reason] ?? reason);
}

/**
 * The words for a game's end: who won (or a draw) and why (and who did it).
 * @param {GameKind} kind
 * @param {import('./types.js').GameResult} result
 * @param {Side | null} [endedBy] who resigned, whose flag fell, or who left
 */
export function resultWords(kind, result, endedBy) {
  const camelot = kind === 'camelot';
  /** @type {Record<Side, string>} */
  const wins = camelot
    ? { first: 'result.white_wins', second: 'result.black_wins' }
    : { first: 'result.attackers_win', second: 'result.defenders_win' };
  const headline = result.winner ? t(wins[result.winner]) : t('result.draw');
  return { headline, reason: reasonWords(kind, result.reason, endedBy) };
}

/**
 * "3 won, 1 lost, 0 drawn", each count with its own plural form (Intl.PluralRules:
 * "1 gagnée", "2 gagnées").
 * @param {number} wins @param {number} losses @param {number} draws
 */
export function recordWords(wins, losses, draws) {
  return [t('profile.won_n', { count: wins }), t('profile.lost_n', { count: losses }), t('profile.drawn_n', { count: draws })].join(', ');
}
