// Strings live in one file per language (web/i18n/en.js, it.js, fr.js), keyed by name.
// The language comes from the user's choice (stored), else the browser's languages.
// `web/tests/i18n_check.mjs` fails on a key missing from a language, a blank string or
// a key no code uses.

/** @typedef {"en" | "it" | "fr"} Lang */
/** @typedef {Record<string, string>} Strings */

/** The languages, each named in itself. */
export const LANGUAGES = /** @type {const} */ ({ en: 'English', it: 'Italiano', fr: 'Français' });
const STORAGE_KEY = 'kingstable.lang';

/** @type {Lang} */
let current = 'en';
/** @type {Strings} */
let strings = {};
/** @type {Set<() => void>} */
const listeners = new Set();

/**
 * @param {string} code
 * @returns {code is Lang}
 */
function isLang(code) {
  return Object.hasOwn(LANGUAGES, code);
}

/** The stored choice, else the first of the browser's languages we have, else English. */
export function detect() {
  let stored = null;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage can be off (private modes): fall back to the browser's languages.
  }
  if (stored && isLang(stored)) return stored;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const code = tag.slice(0, 2).toLowerCase();
    if (isLang(code)) return code;
  }
  return 'en';
}

/**
 * Loads a language's strings and makes it current.
 * @param {Lang} code
 */
async function load(code) {
  const module = await import(`../i18n/${code}.js`);
  strings = module.default;
  current = code;
  document.documentElement.lang = code;
}

/** Loads the detected language; call once before drawing anything. */
export async function initI18n() {
  await load(detect());
}

/** @returns {Lang} */
export function lang() {
  return current;
}

/**
 * Switches language, stores the choice, and tells every listener (pages redraw).
 * @param {string} code
 */
export async function setLang(code) {
  if (!isLang(code)) return;
  try {
    localStorage.setItem(STORAGE_KEY, code);
  } catch {
    // Not stored, still switched for this visit.
  }
  await load(code);
  for (const fn of listeners) fn();
}

/**
 * Calls `fn` after every language switch; returns a function that stops it.
 * @param {() => void} fn
 */
export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The plural rules of the current language (the browser's CLDR data), made once per language. */
/** @type {Map<string, Intl.PluralRules>} */
const pluralRules = new Map();

/**
 * The plural category of `count` in the current language: `one`, `many`, `other`…
 * (French says "0 coup" and "1 coup", English "0 moves" and "1 move").
 * @param {number} count
 */
export function pluralCategory(count) {
  let rules = pluralRules.get(current);
  if (!rules) {
    rules = new Intl.PluralRules(current);
    pluralRules.set(current, rules);
  }
  return rules.select(count);
}

/**
 * The string for `key` in the current language with `{name}` placeholders filled.
 * With a numeric `count`, the form for its plural category is used when the language
 * has one (`key_one`, `key_many`…; `key` itself is the `other` form): the categories
 * come from `Intl.PluralRules`.
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 * @returns {string}
 */
export function t(key, params) {
  let text = strings[key];
  if (params && typeof params.count === 'number') {
    const category = pluralCategory(params.count);
    if (category !== 'other' && strings[`${key}_${category}`] !== undefined) text = strings[`${key}_${category}`];
  }
  if (text === undefined) return key;
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) =>
    Object.hasOwn(params, name) ? formatParam(params[name]) : whole);
}

/** @param {string | number} value */
function formatParam(value) {
  return typeof value === 'number' ? value.toLocaleString(current) : value;
}

/**
 * Fills every element under `root` that has `data-i18n` (text) or `data-i18n-label`
 * (aria-label) from the current language.
 * @param {ParentNode} root
 */
export function translateStatic(root) {
  for (const el of root.querySelectorAll('[data-i18n]')) {
    el.textContent = t(/** @type {string} */ (el.getAttribute('data-i18n')));
  }
  for (const el of root.querySelectorAll('[data-i18n-label]')) {
    el.setAttribute('aria-label', t(/** @type {string} */ (el.getAttribute('data-i18n-label'))));
  }
}
