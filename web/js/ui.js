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
 * A notice for a failed request, in words.
 * @param {unknown} error
 */
export function errorText(error) {
  if (error instanceof ApiError) {
    if (error.code === 'network' || error.status === 0) return t('error.network');
    if (error.status === 503 || error.status === 502) return t('error.unavailable');
    if (error.status === 404 || error.code === 'not_found') return t('error.not_found');
    if (error.code === 'rate_limited') return t('error.rate_limited');
    if (error.status === 401 || error.code === 'unauthorized') return t('error.signin_needed');
    return `${t('error.server')} ${error.message}`;
  }
  return t('error.unexpected');
}

/** @param {unknown} error */
export function errorNotice(error) {
  return h('p', { class: 'notice notice--error', role: 'alert' }, errorText(error));
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

/**
 * Sets the page title.
 * @param {string} title
 */
export function setTitle(title) {
  document.title = title ? `${title} · Kingstable` : 'Kingstable';
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
