// Words that guide a newcomer: what each game is in a line, what a player's goal is in the
// game they play, and a header link to the rules of the game in front of them (the one
// being played, or the one chosen on the home page) instead of always the same page.
import { t } from './i18n.js';
import { GAME_KINDS } from './names.js';

/** @typedef {import('./types.js').GameKind} GameKind */
/** @typedef {import('./types.js').Side} Side */

/** What each game is, in a line (the home page and the rules' index). */
/** @type {Record<GameKind, string>} */
export const SUMMARY_KEYS = {
  fetlar: 'rules.fetlar.summary',
  copenhagen: 'rules.copenhagen.summary',
  camelot: 'rules.camelot.summary',
};

/** A player's goal, by game and side (docs/rules: Fetlar and Copenhagen 5–8, Camelot W1–W3). */
/** @type {Record<GameKind, Record<Side, string>>} */
const GOAL_KEYS = {
  fetlar: { first: 'goal.tafl.attackers', second: 'goal.fetlar.defenders' },
  copenhagen: { first: 'goal.tafl.attackers', second: 'goal.copenhagen.defenders' },
  camelot: { first: 'goal.camelot.white', second: 'goal.camelot.black' },
};

/** Both sides' goals in a line, for someone watching. */
/** @type {Record<GameKind, string>} */
const WATCH_KEYS = {
  fetlar: 'goal.fetlar.watch',
  copenhagen: 'goal.copenhagen.watch',
  camelot: 'goal.camelot.watch',
};

/**
 * The goal of the player of `side`, or both goals when `side` is null (a watcher).
 * @param {GameKind} kind
 * @param {Side | null} side
 */
export function goalText(kind, side) {
  return side ? t(GOAL_KEYS[kind][side]) : t(WATCH_KEYS[kind]);
}

/**
 * The rules page of a game, or the rules' index.
 * @param {GameKind | null} kind
 */
export function rulesHref(kind) {
  return kind && GAME_KINDS.includes(kind) ? `/rules/${kind}` : '/rules';
}

/** The game chosen on the home page, kept across visits. */
export const CHOSEN_KIND_KEY = 'kingstable.home.kind';

/** @returns {GameKind | null} the game chosen on the home page, if any */
export function chosenKind() {
  const kind = /** @type {GameKind | null} */ (localStorage.getItem(CHOSEN_KIND_KEY));
  return kind && GAME_KINDS.includes(kind) ? kind : null;
}

/**
 * Points the header's Rules link at the rules of `kind` (a game page: the game played),
 * or at those of the game chosen on the home page when `kind` is null.
 * @param {GameKind | null} kind
 */
export function setRulesContext(kind) {
  const link = document.querySelector('.site-nav a[data-i18n="nav.rules"]');
  if (link) link.setAttribute('href', rulesHref(kind ?? chosenKind()));
}
