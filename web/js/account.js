// The sign-in and sign-up forms (one form, two purposes).
import { h, errorNotice, setTitle } from './ui.js';
import { t } from './i18n.js';
import { api } from './api.js';
import { refreshMe } from './app.js';
import { navigate } from './router.js';

/**
 * @param {HTMLElement} main
 * @param {"signin" | "signup"} purpose
 */
export function accountForm(main, purpose) {
  const signup = purpose === 'signup';
  setTitle(t(signup ? 'account.signup' : 'account.signin'));
  const status = h('div', { 'aria-live': 'polite' });
  const username = h('input', { type: 'text', id: 'username', name: 'username', autocomplete: 'username', required: true, minlength: 3, maxlength: 20, pattern: '[A-Za-z][A-Za-z0-9_\\-]*[A-Za-z0-9]', autocapitalize: 'none', spellcheck: false });
  const password = h('input', { type: 'password', id: 'password', name: 'password', autocomplete: signup ? 'new-password' : 'current-password', required: true, minlength: signup ? 8 : 1 });
  const button = h('button', { type: 'submit', class: 'btn btn--primary btn--block' }, t(signup ? 'account.signup' : 'account.signin'));
  const form = h('form', { class: 'stack' },
    h('div', { class: 'field' }, h('label', { for: 'username' }, t('account.username')), username, signup ? h('span', { class: 'muted small' }, t('account.username_rules')) : null),
    h('div', { class: 'field' }, h('label', { for: 'password' }, t('account.password')), password, signup ? h('span', { class: 'muted small' }, t('account.password_rules')) : null),
    button, status);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    button.disabled = true;
    try {
      if (signup) await api.signup(username.value.trim(), password.value);
      else await api.signin(username.value.trim(), password.value);
      await refreshMe();
      navigate('/');
    } catch (error) {
      status.replaceChildren(errorNotice(error));
    } finally {
      button.disabled = false;
    }
  });
  main.append(h('section', { class: 'card form-card stack' },
    h('h1', null, t(signup ? 'account.signup' : 'account.signin')),
    signup ? h('p', { class: 'muted small' }, t('account.guest_keeps')) : null,
    form,
    signup ? null : h('p', { class: 'small center' }, h('a', { href: '/reset', id: 'forgot' }, t('reset.forgot'))),
    h('p', { class: 'small center' }, signup
      ? h('a', { href: '/signin' }, t('account.have_account'))
      : h('a', { href: '/signup' }, t('account.no_account')))));
}
