// Moderation, for accounts with the moderator role: the reported chat messages, newest
// first, each with buttons to mute the author for an hour or a day, ban or unban them;
// and the same by name. The server checks the role on every request (a player who is not
// a moderator is told so).
import { h, errorNotice, setTitle, toast } from '../ui.js';
import { t, lang } from '../i18n.js';
import { api } from '../api.js';

/** @typedef {import('../types.js').ChatReport} ChatReport */

/** @type {Array<[string, string, number | undefined]>} button key, action, minutes */
const ACTIONS = [
  ['mod.mute_hour', 'mute', 60],
  ['mod.mute_day', 'mute', 1440],
  ['mod.ban', 'ban', undefined],
  ['mod.unban', 'unban', undefined],
];

/** @param {number} ms */
function when(ms) {
  return new Date(ms).toLocaleString(lang(), { dateStyle: 'medium', timeStyle: 'short' });
}

/** @param {HTMLElement} main */
export async function render(main) {
  setTitle(t('mod.title'));
  const status = h('div', { 'aria-live': 'polite' });
  const list = h('div', { class: 'stack', id: 'mod-reports', 'aria-live': 'polite' });

  /**
   * @param {string} user
   * @param {string} action
   * @param {number | undefined} minutes
   */
  async function sanction(user, action, minutes) {
    try {
      await api.sanction(user, action, minutes);
      const key = action === 'ban' ? 'mod.done_ban' : action === 'unban' ? 'mod.done_unban' : 'mod.done_mute';
      const done = t(key, { name: user, minutes: minutes ?? 0 });
      status.replaceChildren(h('p', { class: 'notice notice--good' }, done));
      toast(done);
    } catch (error) {
      status.replaceChildren(errorNotice(error));
    }
  }

  /** @param {string} user */
  const buttons = (user) => h('div', { class: 'btn-row' },
    ...ACTIONS.map(([key, action, minutes]) => h('button', {
      type: 'button',
      class: action === 'ban' ? 'btn btn--small btn--danger' : 'btn btn--small',
      onclick: () => void sanction(user, action, minutes),
    }, t(key))));

  /** @param {ChatReport} r */
  function drawReport(r) {
    const where = r.game_id
      ? h('a', { href: `/game/${encodeURIComponent(r.game_id)}` },
        t(r.room === 'spectators' ? 'mod.where_spectators' : 'mod.where_players'))
      : h('span', null, t('mod.where_lobby'));
    return h('article', { class: 'mod-report stack', 'data-message': r.message_id },
      h('p', { class: 'small muted' }, where, ' · ', when(r.said_at)),
      h('blockquote', { class: 'mod-report__body' },
        h('strong', null, r.author), ': ', r.body),
      h('p', { class: 'small' }, r.reason
        ? t('mod.reported_by_because', { name: r.reporter, reason: r.reason, when: when(r.reported_at) })
        : t('mod.reported_by', { name: r.reporter, when: when(r.reported_at) })),
      r.author_is_account ? buttons(r.author) : h('p', { class: 'small muted' }, t('mod.guest_author')));
  }

  async function load() {
    list.replaceChildren(h('p', { class: 'empty' }, t('common.loading')));
    try {
      const { reports } = await api.modReports();
      list.replaceChildren(...(reports.length
        ? reports.map(drawReport)
        : [h('p', { class: 'empty' }, t('mod.no_reports'))]));
    } catch (error) {
      list.replaceChildren(errorNotice(error));
    }
  }

  const name = h('input', { id: 'mod-name', required: true, maxlength: 32, autocomplete: 'off' });
  const minutes = h('input', { id: 'mod-minutes', type: 'number', min: 1, max: 525600, value: 60 });
  const action = h('select', { id: 'mod-action' },
    new Option(t('mod.action_mute'), 'mute'),
    new Option(t('mod.action_ban'), 'ban'),
    new Option(t('mod.action_unban'), 'unban'));
  const byName = h('form', { class: 'stack' },
    h('h2', null, t('mod.by_name')),
    h('div', { class: 'field' }, h('label', { for: 'mod-name' }, t('mod.player')), name),
    h('div', { class: 'field' }, h('label', { for: 'mod-action' }, t('mod.action')), action),
    h('div', { class: 'field' }, h('label', { for: 'mod-minutes' }, t('mod.minutes')), minutes),
    h('button', { type: 'submit', class: 'btn', id: 'mod-apply' }, t('mod.apply')));
  action.addEventListener('change', () => {
    minutes.disabled = action.value !== 'mute';
  });
  byName.addEventListener('submit', (event) => {
    event.preventDefault();
    const user = name.value.trim();
    if (!user) return;
    void sanction(user, action.value, action.value === 'mute' ? Number(minutes.value) : undefined);
  });

  main.append(
    h('section', { class: 'card stack' },
      h('h1', null, t('mod.title')),
      h('p', { class: 'muted' }, t('mod.intro')),
      status,
      h('div', { class: 'btn-row' },
        h('button', { type: 'button', class: 'btn btn--small btn--quiet', onclick: () => void load() }, t('mod.refresh'))),
      list),
    h('section', { class: 'card form-card stack' }, byName));
  await load();
}
