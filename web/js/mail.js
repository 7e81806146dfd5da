// The account page's e-mail section: the address and whether it is confirmed, adding or
// removing one (with the password), the reminder switches, or the word that e-mail is
// off on this site.
import { h, errorNotice, formatDate, toast } from './ui.js';
import { t } from './i18n.js';
import { api } from './api.js';

/**
 * The section, filled from the server and redrawn after each change.
 * @returns {Promise<HTMLElement>}
 */
export async function mailSection() {
  const section = h('section', { class: 'card form-card stack', id: 'mail' });
  /** @param {import('./api.js').MailSettings} settings */
  const draw = (settings) => section.replaceChildren(...content(settings, draw));
  try {
    draw(await api.accountMail());
  } catch (error) {
    section.replaceChildren(h('h2', null, t('mail.title')), errorNotice(error));
  }
  return section;
}

/**
 * @param {import('./api.js').MailSettings} settings
 * @param {(settings: import('./api.js').MailSettings) => void} draw
 * @returns {Node[]}
 */
function content(settings, draw) {
  const title = h('h2', null, t('mail.title'));
  if (!settings.enabled) return [title, h('p', { class: 'muted', id: 'mail-off' }, t('mail.off'))];
  const status = h('div', { 'aria-live': 'polite' });
  const state = [];
  if (settings.address) state.push(h('p', { id: 'mail-address' }, t('mail.confirmed', { address: settings.address })));
  else state.push(h('p', { id: 'mail-address', class: 'muted' }, t('mail.none')));
  if (settings.pending) {
    state.push(h('p', { id: 'mail-pending', class: 'notice' },
      t('mail.pending', { address: settings.pending.address, date: formatDate(settings.pending.expires_at) })));
  }
  const address = h('input', { type: 'email', id: 'mail-new', autocomplete: 'email', required: true, maxlength: 254, value: settings.pending?.address ?? settings.address ?? '' });
  const password = h('input', { type: 'password', id: 'mail-password', autocomplete: 'current-password', required: true });
  const form = h('form', { class: 'stack' },
    h('div', { class: 'field' }, h('label', { for: 'mail-new' }, t('mail.address')), address),
    h('div', { class: 'field' }, h('label', { for: 'mail-password' }, t('mail.password')), password),
    h('div', { class: 'btn-row' },
      h('button', { type: 'submit', class: 'btn' }, t('mail.save')),
      settings.address || settings.pending
        ? h('button', { type: 'button', class: 'btn btn--danger', id: 'mail-remove', onclick: () => remove() }, t('mail.remove'))
        : null),
    status);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const next = await api.setEmail(address.value.trim(), password.value);
      draw(next);
      toast(next.pending ? t('mail.sent', { address: next.pending.address }) : t('settings.saved'));
    } catch (error) {
      status.replaceChildren(errorNotice(error));
    }
  });
  const remove = async () => {
    if (!password.reportValidity()) return;
    try {
      draw(await api.removeEmail(password.value));
      toast(t('mail.removed'));
    } catch (error) {
      status.replaceChildren(errorNotice(error));
    }
  };
  /**
   * @param {"digest" | "clock_warning"} key
   * @param {string} label
   */
  const toggle = (key, label) => h('label', { class: 'check' },
    h('input', {
      type: 'checkbox', id: `mail-${key}`, checked: settings[key],
      onchange: async (/** @type {Event} */ e) => {
        const input = /** @type {HTMLInputElement} */ (e.target);
        try {
          await api.setMailSwitches({ [key]: input.checked });
          toast(t('settings.saved'));
        } catch (error) {
          input.checked = !input.checked;
          status.replaceChildren(errorNotice(error));
        }
      },
    }),
    ` ${label}`);
  return [title, ...state, form,
    h('h3', null, t('mail.reminders')),
    toggle('digest', t('mail.digest')),
    toggle('clock_warning', t('mail.clock_warning')),
    h('p', { class: 'muted small' }, t('mail.private'))];
}
