// Settings: language, board orientation, sounds, coordinates, notices and desktop
// notifications; the account (password, signing out) for those signed in.
import { h, errorNotice, setTitle, toast } from '../ui.js';
import { t, LANGUAGES, lang, setLang } from '../i18n.js';
import { api } from '../api.js';
import { prefs, savePrefs } from '../prefs.js';
import { refreshMe, whoami } from '../app.js';
import { navigate } from '../router.js';
import { mailSection } from '../mail.js';

/**
 * The switches for notices about the player's games: in the page, and on the desktop
 * (the browser's permission is asked only when the player turns them on, never on its
 * own).
 */
export function desktopControl() {
  const p = prefs();
  const status = h('p', { class: 'small muted', 'aria-live': 'polite', id: 's-desktop-status' });
  const supported = 'Notification' in window;
  const permission = () => (supported ? Notification.permission : 'denied');
  const desktop = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id: 's-desktop', checked: p.desktop && permission() === 'granted', disabled: !supported }));
  function say() {
    if (!supported) status.textContent = t('mine.desktop_unsupported');
    else if (permission() === 'denied') status.textContent = t('mine.desktop_denied');
    else if (desktop.checked) status.textContent = t('mine.desktop_on');
    else status.textContent = t('mine.desktop_off');
  }
  desktop.addEventListener('change', async () => {
    if (desktop.checked && permission() === 'default') {
      // Asked here, on the player's click, and nowhere else.
      try {
        await Notification.requestPermission();
      } catch {
        // An old browser without the promise form: treated as not allowed.
      }
    }
    if (desktop.checked && permission() !== 'granted') desktop.checked = false;
    savePrefs({ desktop: desktop.checked });
    say();
  });
  say();
  const notices = h('input', { type: 'checkbox', id: 's-notices', checked: p.notices, onchange: (/** @type {Event} */ e) => { savePrefs({ notices: /** @type {HTMLInputElement} */ (e.target).checked }); toast(t('settings.saved')); } });
  return h('div', { class: 'stack' },
    h('label', { class: 'check' }, notices, ` ${t('mine.notices')}`),
    h('label', { class: 'check' }, desktop, ` ${t('mine.desktop')}`),
    status);
}

/** @param {HTMLElement} main */
export async function render(main) {
  setTitle(t('settings.title'));
  const p = prefs();
  const language = h('select', { id: 's-lang' }, ...Object.entries(LANGUAGES).map(([code, name]) => new Option(name, code, false, code === lang())));
  language.addEventListener('change', () => void setLang(language.value));

  const orientation = h('div', { class: 'segmented segmented--stack', role: 'radiogroup', 'aria-labelledby': 's-orientation-label' });
  for (const [value, key] of [['mine', 'settings.orientation_mine'], ['first', 'settings.orientation_first'], ['second', 'settings.orientation_second']]) {
    orientation.append(
      h('input', { type: 'radio', name: 'orientation', id: `s-or-${value}`, value, checked: p.orientation === value, onchange: () => { savePrefs({ orientation: /** @type {any} */ (value) }); toast(t('settings.saved')); } }),
      h('label', { for: `s-or-${value}` }, t(key)));
  }
  /**
   * @param {"sound" | "coordinates" | "confirmMoves"} key
   * @param {string} label
   */
  const toggle = (key, label) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', id: `s-${key}`, checked: p[key], onchange: (/** @type {Event} */ e) => { savePrefs({ [key]: /** @type {HTMLInputElement} */ (e.target).checked }); toast(t('settings.saved')); } }),
    ` ${label}`);

  main.append(h('section', { class: 'card form-card stack' },
    h('h1', null, t('settings.title')),
    h('div', { class: 'field' }, h('label', { for: 's-lang' }, t('settings.language')), language),
    h('div', { class: 'field' }, h('span', { class: 'label', id: 's-orientation-label' }, t('settings.orientation')), orientation),
    toggle('sound', t('settings.sound')),
    toggle('coordinates', t('settings.coordinates')),
    toggle('confirmMoves', t('settings.confirm_moves'))),
  h('section', { class: 'card form-card stack' }, h('h2', null, t('mine.notifications')), desktopControl()));

  const me = whoami() ?? (await refreshMe());
  if (me && me.kind === 'user') {
    const status = h('div', { 'aria-live': 'polite' });
    const current = h('input', { type: 'password', id: 's-current', autocomplete: 'current-password', required: true });
    const next = h('input', { type: 'password', id: 's-new', autocomplete: 'new-password', required: true, minlength: 8 });
    const form = h('form', { class: 'stack' },
      h('h2', null, t('settings.password')),
      h('div', { class: 'field' }, h('label', { for: 's-current' }, t('settings.current_password')), current),
      h('div', { class: 'field' }, h('label', { for: 's-new' }, t('settings.new_password')), next),
      h('button', { type: 'submit', class: 'btn' }, t('settings.change_password')),
      status);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        await api.changePassword(current.value, next.value);
        status.replaceChildren(h('p', { class: 'notice notice--good' }, t('settings.password_changed')));
      } catch (error) {
        status.replaceChildren(errorNotice(error));
      }
    });
    /** @param {() => Promise<unknown>} fn */
    const signOut = async (fn) => {
      try {
        await fn();
        await refreshMe();
        navigate('/');
      } catch (error) {
        status.replaceChildren(errorNotice(error));
      }
    };
    main.append(h('section', { class: 'card form-card stack' },
      h('h2', null, t('settings.account', { name: me.name })),
      form,
      h('div', { class: 'btn-row' },
        h('button', { type: 'button', class: 'btn', onclick: () => signOut(api.signout) }, t('settings.signout')),
        h('button', { type: 'button', class: 'btn btn--danger', onclick: () => signOut(api.signoutEverywhere) }, t('settings.signout_everywhere')))));
    main.append(await mailSection());
    if (me.moderator) {
      main.append(h('section', { class: 'card form-card stack', id: 'moderation-link' },
        h('h2', null, t('mod.title')),
        h('p', { class: 'muted' }, t('mod.you_are')),
        h('a', { class: 'btn', href: '/moderation' }, t('mod.open'))));
    }
  }
}
