// Small DOM helpers shared by the pages.
import { t, lang } from './i18n.js';
import { ApiError } from './api.js';

/**
 * Makes an element: h('button', {class: 'btn', onclick: fn}, 'text', child…).
 * Attributes starting with "on" become listeners; `null`/`false` ones are left out.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...(Node | string | number | null | undefined | false)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k in el && typeof v !== 'string') /** @type {any} */ (el)[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'number' ? String(c) : c);
  }
  return el;
}

/**
 * Shows a short message at the bottom of the screen.
 * @param {string} text
 */
export function toast(text) {
  const area = document.querySelector('.toast-area');
  if (!area) return;
  const el = h('div', { class: 'toast', role: 'status' }, text);
  area.append(el);
  setTimeout(() => el.remove(), 4000);
}

/**
 * Asks a yes/no question in a modal dialog; resolves to the answer.
 * @param {string} question
 * @param {string} yes the confirming button's words
 * @returns {Promise<boolean>}
 */
export function confirmDialog(question, yes) {
  return new Promise((resolve) => {
    const dialog = h('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-q' });
    const done = (/** @type {boolean} */ answer) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    dialog.append(
      h('p', { id: 'confirm-q' }, question),
      h('div', { class: 'btn-row' },
        h('button', { type: 'button', class: 'btn btn--primary', onclick: () => done(true) }, yes),
        h('button', { type: 'button', class: 'btn', onclick: () => done(false) }, t('common.cancel'))),
    );
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(false);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * The words for each error code the server sends (HTTP errors and the game socket's
 * refusals; docs/API.md lists them). The server's own English message is never shown:
 * it is for developers and logs.
 */
const ERROR_KEYS = {
  bad_request: 'error.bad_request',
  invalid_json: 'error.bad_request',
  unsupported_media_type: 'error.bad_request',
  bad_message: 'error.bad_message',
  body_too_large: 'error.body_too_large',
  not_found: 'error.not_found',
  method_not_allowed: 'error.bad_request',
  cross_origin: 'error.cross_origin',
  rate_limited: 'error.rate_limited',
  not_signed_in: 'error.signin_needed',
  unauthorized: 'error.signin_needed',
  invalid_credentials: 'error.invalid_credentials',
  invalid_username: 'error.invalid_username',
  invalid_password: 'error.invalid_password',
  username_taken: 'error.username_taken',
  invalid_record: 'error.invalid_record',
  database_unavailable: 'error.unavailable',
  forbidden: 'error.forbidden',
  not_a_player: 'error.not_a_player',
  conflict: 'error.conflict',
  not_allowed: 'error.conflict',
  stale: 'error.stale',
  not_your_turn: 'error.not_your_turn',
  illegal_move: 'error.illegal_move',
  game_over: 'error.game_over',
  game_in_progress: 'error.game_in_progress',
  quota: 'error.quota',
  bad_position: 'error.bad_position',
  bad_game: 'error.bad_game',
  mail_off: 'error.mail_off',
  invalid_address: 'error.invalid_address',
  address_taken: 'error.address_taken',
  invalid_token: 'error.invalid_token',
  internal: 'error.internal',
};

/**
 * The words for an error code (and the HTTP status it came with, for codes this
 * client does not know yet).
 * @param {string} code
 * @param {number} [status]
 */
export function errorCodeText(code, status) {
  const key = ERROR_KEYS[/** @type {keyof typeof ERROR_KEYS} */ (code)];
  if (key) return t(key);
  if (code === 'network') return t('error.network');
  if (status === undefined) return t('error.unexpected');
  if (status === 503 || status === 502) return t('error.unavailable');
  if (status === 404) return t('error.not_found');
  if (status === 401) return t('error.signin_needed');
  if (status === 403) return t('error.forbidden');
  if (status === 409) return t('error.conflict');
  if (status === 429) return t('error.rate_limited');
  if (status >= 400 && status < 500) return t('error.bad_request');
  return t('error.internal');
}

/**
 * The words for the cases the server names in `reason` (docs/API.md), more precise than
 * their code's.
 */
const REASON_KEYS = {
  own_challenge: 'error.own_challenge',
  challenge_gone: 'error.challenge_gone',
  too_many_challenges: 'error.too_many_challenges',
  too_many_for_them: 'error.too_many_for_them',
  rated_needs_account: 'error.rated_needs_account',
  not_joinable: 'error.not_joinable',
  too_old_for_rematch: 'error.too_old_for_rematch',
  nothing_to_take_back: 'error.nothing_to_take_back',
  takebacks_off: 'error.takebacks_off',
  takeback_pending: 'error.takeback_pending',
  no_takeback_request: 'error.no_takeback_request',
  draw_pending: 'error.draw_pending',
  no_draw_offer: 'error.no_draw_offer',
  too_late_to_abort: 'error.too_late_to_abort',
  untimed: 'error.untimed',
  nothing_to_claim: 'error.nothing_to_claim',
  opponent_may_return: 'error.opponent_may_return',
  claims_live_only: 'error.claims_live_only',
  opponent_present: 'error.opponent_present',
  conditional_correspondence_only: 'error.conditional_correspondence_only',
  conditional_on_your_move: 'error.conditional_on_your_move',
  seat_open: 'error.seat_open',
  seats_taken: 'error.seats_taken',
  already_playing: 'error.already_playing',
  rematch_after_end: 'error.rematch_after_end',
  seat_empty: 'error.seat_empty',
};

/**
 * A socket's refusal in words: its case (`reason`) where the server names one, else its
 * code's.
 * @param {{code?: unknown, reason?: unknown}} msg
 */
export function refusalText(msg) {
  const reason = REASON_KEYS[/** @type {keyof typeof REASON_KEYS} */ (String(msg.reason ?? ''))];
  return reason ? t(reason) : errorCodeText(String(msg.code ?? ''));
}

/**
 * A notice for a failed request, in words.
 * @param {unknown} error
 */
export function errorText(error) {
  if (error instanceof ApiError) {
    const reason = REASON_KEYS[/** @type {keyof typeof REASON_KEYS} */ (error.reason ?? '')];
    if (reason) return t(reason);
    if (error.code === 'network' || error.status === 0) return t('error.network');
    if (error.status === 503 || error.status === 502) return t('error.unavailable');
    return errorCodeText(error.code, error.status);
  }
  return t('error.unexpected');
}

/** @param {unknown} error */
export function errorNotice(error) {
  return h('p', { class: 'notice notice--error', role: 'alert' }, errorText(error));
}

/**
 * The analysis page's address for a finished game at the ply shown (none: its end).
 * @param {string} game the game's id
 * @param {number} ply the ply shown
 * @param {number} plies the game's plies
 */
export function analysisAddress(game, ply, plies) {
  const query = new URLSearchParams({ game });
  if (ply !== plies) query.set('ply', String(ply));
  return `/analysis?${query}`;
}

/**
 * A date and time in the reader's language.
 * @param {number} ms since the Unix epoch
 */
export function formatDate(ms) {
  return new Date(ms).toLocaleDateString(lang(), { year: 'numeric', month: 'short', day: 'numeric' });
}

/**
 * A player's name for lists.
 * @param {import('./types.js').PlayerRef | null} ref
 */
export function playerName(ref) {
  if (!ref) return '?';
  if (ref.type === 'ai') return t('common.ai_level', { level: ref.level });
  return ref.name;
}

/**
 * A player's name as a link to their page (users only).
 * @param {import('./types.js').PlayerRef | null} ref
 */
export function playerLink(ref) {
  if (ref && ref.type === 'user') return h('a', { href: `/player/${encodeURIComponent(ref.name)}` }, ref.name);
  return h('span', null, playerName(ref));
}

/**
 * A time control in words ("5+3", "3 days", "untimed").
 * @param {string} tc
 */
export function timeControlText(tc) {
  if (tc === 'untimed') return t('time.untimed');
  const days = /^(\d+)d$/.exec(tc);
  if (days) return t('time.days', { count: Number(days[1]) });
  return tc;
}

/** The page's title as last set. */
let pageTitle = 'Kingstable';
/** Writes the title to the tab (the player's games put their count in front). */
let titleWriter = (/** @type {string} */ title) => { document.title = title; };

/**
 * Sets the page title.
 * @param {string} title
 */
export function setTitle(title) {
  pageTitle = title ? `${title} · Kingstable` : 'Kingstable';
  titleWriter(pageTitle);
}

/**
 * Takes over writing the tab's title (given the page's), and writes it now.
 * @param {(title: string) => void} writer
 */
export function setTitleWriter(writer) {
  titleWriter = writer;
  writer(pageTitle);
}

/**
 * A read-only field with a link and a button that copies it.
 * @param {string} link
 * @param {string} id the field's id
 */
export function copyLink(link, id) {
  const input = h('input', { type: 'text', readonly: true, value: link, 'aria-label': t('home.link'), id });
  const button = h('button', {
    type: 'button', class: 'btn btn--small', onclick: async () => {
      try {
        await navigator.clipboard.writeText(link);
        toast(t('home.copied'));
      } catch {
        // No clipboard (plain http on another host): select it for a manual copy.
        input.select();
      }
    },
  }, t('home.copy'));
  return h('div', { class: 'copy-link' }, input, button);
}
