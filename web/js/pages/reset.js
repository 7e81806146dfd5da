// A forgotten password: ask for a link by username or address (`/reset`), or, from the
// link in the message (`/reset?token=…`), set a new password.
import { h, errorNotice, setTitle } from '../ui.js';
import { t } from '../i18n.js';
import { api } from '../api.js';
import { refreshMe } from '../app.js';

/** @param {HTMLElement} main */
export async function render(main) {
  const token = new URLSearchParams(location.search).get('token');
  const card = h('section', { class: 'card form-card stack' });
  main.append(card);
  if (token) {
    setNew(card, token);
    return;
  }
  setTitle(t('reset.title'));
  card.append(h('h1', null, t('reset.title')));
  let enabled = true;
  try {
    enabled = (await api.mail()).enabled;
  } catch {
    // Asked again when the form is sent, which says what is wrong.
  }
  if (!enabled) {
    card.append(h('p', { class: 'notice', id: 'reset-off' }, t('reset.off')));
    return;
  }
  const status = h('div', { 'aria-live': 'polite' });
  const login = h('input', { type: 'text', id: 'reset-login', autocomplete: 'username', required: true, maxlength: 254, autocapitalize: 'none', spellcheck: false });
  const button = h('button', { type: 'submit', class: 'btn btn--primary btn--block' }, t('reset.send'));
  const form = h('form', { class: 'stack' },
    h('p', { class: 'muted' }, t('reset.explain')),
    h('div', { class: 'field' }, h('label', { for: 'reset-login' }, t('reset.login')), login),
    button, status);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    button.disabled = true;
    try {
      await api.requestReset(login.value.trim());
      status.replaceChildren(h('p', { class: 'notice notice--good', id: 'reset-sent' }, t('reset.sent')));
    } catch (error) {
      status.replaceChildren(errorNotice(error));
    } finally {
      button.disabled = false;
    }
  });
  card.append(form);
}

/**
 * The form that sets the new password with the link's token.
 * @param {HTMLElement} card
 * @param {string} token
 */
function setNew(card, token) {
  setTitle(t('reset.new_title'));
  const status = h('div', { 'aria-live': 'polite' });
  const password = h('input', { type: 'password', id: 'reset-password', autocomplete: 'new-password', required: true, minlength: 8, maxlength: 128 });
  const button = h('button', { type: 'submit', class: 'btn btn--primary btn--block' }, t('reset.set'));
  const form = h('form', { class: 'stack' },
    h('div', { class: 'field' }, h('label', { for: 'reset-password' }, t('reset.new_password')), password,
      h('span', { class: 'muted small' }, t('account.password_rules'))),
    button, status);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    button.disabled = true;
    try {
      await api.reset(token, password.value);
      // The used link leaves the address bar and the history.
      history.replaceState(null, '', '/reset');
      await refreshMe();
      form.replaceWith(h('div', { class: 'stack' },
        h('p', { class: 'notice notice--good', id: 'reset-done' }, t('reset.done')),
        h('p', null, h('a', { href: '/' }, t('nav.home')))));
    } catch (error) {
      status.replaceChildren(errorNotice(error));
      button.disabled = false;
    }
  });
  card.append(h('h1', null, t('reset.new_title')), form);
}
