// An address the app has no page for.
import { h, setTitle } from '../ui.js';
import { t } from '../i18n.js';

/** @param {HTMLElement} main */
export async function render(main) {
  setTitle(t('error.no_page'));
  main.append(h('section', { class: 'card form-card stack' }, h('h1', null, t('error.no_page')), h('p', null, h('a', { href: '/' }, t('nav.home')))));
}
