// The app's entry: language, header, routing.
import { initI18n, LANGUAGES, lang, setLang, onLangChange, translateStatic, t } from './i18n.js';
import { route, captureLinks } from './router.js';
import { api } from './api.js';
import { h } from './ui.js';
import { followMe, drawMyGamesLink } from './mine.js';

/** @typedef {import('./types.js').WhoAmI} WhoAmI */

/** @type {WhoAmI | null} who the visitor is, once known */
let me = null;
/** @type {Set<(me: WhoAmI | null) => void>} */
const meListeners = new Set();
/** Who the socket on the player's games was opened for. */
let followed = '';

/** Opens the socket on the player's games again when who the visitor is changed. */
function follow() {
  const key = me ? `${me.kind}:${'name' in me ? me.name : ''}` : '';
  if (key === followed) return;
  followed = key;
  followMe(me);
}

/** Who the visitor is (null until the server answered). */
export function whoami() {
  return me;
}

/**
 * Calls `fn` whenever who the visitor is becomes known or changes; returns how to stop.
 * @param {(me: WhoAmI | null) => void} fn
 */
export function onMe(fn) {
  meListeners.add(fn);
  return () => meListeners.delete(fn);
}

/**
 * Asks the server again who the visitor is (after signing in or out).
 * @returns {Promise<WhoAmI | null>}
 */
export async function refreshMe() {
  try {
    me = await api.whoami();
  } catch {
    me = null;
  }
  drawAccount();
  follow();
  tellLanguage();
  for (const fn of meListeners) fn(me);
  return me;
}

/** Tells the server the language a signed-in account reads the site in (for its mail). */
function tellLanguage() {
  if (me?.kind === 'user') api.setLanguage(lang()).catch(() => {});
}

/**
 * Makes the visitor a guest if they are nobody yet (needed to play without an account).
 * @returns {Promise<WhoAmI | null>}
 */
export async function ensurePlayer() {
  if (!me || me.kind === 'anonymous') {
    me = await api.guest();
    drawAccount();
    follow();
  }
  return me;
}

function drawAccount() {
  const slot = document.getElementById('account');
  if (!slot) return;
  if (me && me.kind === 'user') {
    slot.replaceChildren(h('a', { class: 'btn btn--small btn--quiet', href: `/player/${encodeURIComponent(me.name)}` }, me.name));
  } else {
    slot.replaceChildren(h('a', { class: 'btn btn--small', href: '/signin' }, t('nav.signin')));
  }
}

async function start() {
  await initI18n();
  const main = /** @type {HTMLElement} */ (document.getElementById('main'));
  translateStatic(document);
  const select = /** @type {HTMLSelectElement} */ (document.getElementById('lang'));
  for (const [code, name] of Object.entries(LANGUAGES)) select.append(new Option(name, code, false, code === lang()));
  select.addEventListener('change', () => void setLang(select.value));
  onLangChange(() => {
    tellLanguage();
    select.value = lang();
    translateStatic(document);
    drawAccount();
    drawMyGamesLink();
    void route(main);
  });
  captureLinks(document.body);
  window.addEventListener('popstate', () => void route(main));
  window.addEventListener('kingstable:navigate', () => {
    void route(main).then(() => main.focus({ preventScroll: true }));
    scrollTo(0, 0);
  });
  drawAccount();
  void refreshMe();
  await route(main);
  document.body.dataset.ready = 'true';
}

void start();
