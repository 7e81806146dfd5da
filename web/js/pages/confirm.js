// The link that confirms an e-mail address (`/confirm?token=…`): sends the token once
// the page opens and says what came of it.
import { h, errorNotice, setTitle } from '../ui.js';
import { t } from '../i18n.js';
import { api } from '../api.js';

/** @param {HTMLElement} main */
export async function render(main) {
  setTitle(t('confirm.title'));
  const status = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, t('common.loading')));
  main.append(h('section', { class: 'card form-card stack' }, h('h1', null, t('confirm.title')), status,
    h('p', null, h('a', { href: '/settings' }, t('nav.settings')))));
  const token = new URLSearchParams(location.search).get('token') ?? '';
  try {
    const done = await api.confirmEmail(token);
    // The used link leaves the address bar and the history.
    history.replaceState(null, '', '/confirm');
    status.replaceChildren(h('p', { class: 'notice notice--good', id: 'confirm-done' },
      t('confirm.done', { name: done.user.name, address: done.address })));
  } catch (error) {
    status.replaceChildren(errorNotice(error));
  }
}
