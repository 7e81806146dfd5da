// Challenging one player (a direct challenge, from their page), and the list of direct
// challenges a player has made or received (on My games). The lists come from the
// app's socket on the player's own things (./mine.js); nothing here polls.
import { h, toast, errorText, timeControlText } from './ui.js';
import { t } from './i18n.js';
import { api } from './api.js';
import { navigate } from './router.js';
import { gameName, sideName } from './names.js';
import { gamePicker, timeControlSelect, sidePicker } from './widgets.js';

/** @typedef {import('./types.js').Challenge} Challenge */
/** @typedef {import('./types.js').GameKind} GameKind */

/**
 * The card on a player's page that challenges them: a button that opens the form
 * (game, time control, side, rated).
 * @param {string} name the player's name
 */
export function challengeCard(name) {
  /** @type {GameKind} */
  let kind = 'copenhagen';
  const form = h('form', { class: 'stack challenge-form', id: 'challenge-form' });
  form.hidden = true;
  const open = h('button', {
    type: 'button', class: 'btn btn--primary', id: 'challenge-open',
    onclick: () => {
      form.hidden = !form.hidden;
      open.setAttribute('aria-expanded', String(!form.hidden));
    },
  }, t('challenge.open', { player: name }));
  open.setAttribute('aria-expanded', 'false');

  function draw() {
    const data = new FormData(form);
    const tc = String(data.get('time_control') ?? '3d');
    const side = String(data.get('side') ?? 'random');
    form.replaceChildren(
      gamePicker('challenge-kind', kind, (k) => {
        kind = k;
        draw();
      }),
      sidePicker('side', kind, side),
      timeControlSelect('challenge-time', tc),
      h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'rated', checked: data.get('rated') === 'on' }), ` ${t('home.rated')}`),
      h('button', { type: 'submit', class: 'btn btn--primary', id: 'challenge-send' }, t('challenge.send')));
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const button = /** @type {HTMLButtonElement} */ (form.querySelector('#challenge-send'));
    button.disabled = true;
    try {
      await api.createChallenge({
        kind,
        time_control: String(data.get('time_control') ?? '3d'),
        side: /** @type {any} */ (String(data.get('side') ?? 'random')),
        rated: data.get('rated') === 'on',
        to: name,
      });
      toast(t('challenge.sent', { player: name }));
      form.hidden = true;
      open.setAttribute('aria-expanded', 'false');
    } catch (error) {
      toast(errorText(error));
    } finally {
      button.disabled = false;
    }
  });
  draw();
  return h('section', { class: 'card stack', 'aria-label': t('challenge.open', { player: name }) }, open, form);
}

/**
 * What a challenge is, in words: "Copenhagen · 5+3 · rated · you play the attackers".
 * @param {Challenge} c
 * @param {boolean} incoming whether it is made to the reader (the sides are the maker's)
 */
export function challengeWords(c, incoming) {
  const parts = [gameName(c.kind), timeControlText(c.time_control), c.rated ? t('lobby.rated') : t('lobby.casual')];
  if (c.side !== 'random') {
    const yours = incoming ? (c.side === 'first' ? 'second' : 'first') : c.side;
    parts.push(t('challenge.you_play', { side: sideName(c.kind, yours) }));
  }
  return parts.join(' · ');
}

/**
 * The direct challenges a player received (accept, decline) and made (withdraw).
 * @param {Challenge[]} incoming
 * @param {Challenge[]} outgoing
 */
export function challengeList(incoming, outgoing) {
  /** @param {() => Promise<unknown>} fn */
  const act = async (fn) => {
    try {
      await fn();
    } catch (error) {
      toast(errorText(error));
    }
  };
  const rows = [
    ...incoming.map((c) => h('li', { class: 'challenge-item', dataset: { challenge: c.id, incoming: 'true' } },
      h('span', null, h('strong', null, t('challenge.from', { player: c.by ?? '?' })), ' ', h('span', { class: 'muted small' }, challengeWords(c, true))),
      h('span', { class: 'btn-row' },
        h('button', {
          type: 'button', class: 'btn btn--small btn--primary', dataset: { action: 'accept' },
          onclick: () => act(async () => {
            const { game_id } = await api.acceptChallenge(c.id);
            navigate(`/game/${encodeURIComponent(game_id)}`);
          }),
        }, t('lobby.accept')),
        h('button', { type: 'button', class: 'btn btn--small', dataset: { action: 'decline' }, onclick: () => act(() => api.declineChallenge(c.id)) }, t('challenge.decline'))))),
    ...outgoing.map((c) => h('li', { class: 'challenge-item', dataset: { challenge: c.id, incoming: 'false' } },
      h('span', null, h('strong', null, t('challenge.to', { player: c.to ?? '?' })), ' ', h('span', { class: 'muted small' }, challengeWords(c, false))),
      h('button', { type: 'button', class: 'btn btn--small btn--danger', dataset: { action: 'cancel' }, onclick: () => act(() => api.cancelChallenge(c.id)) }, t('common.cancel')))),
  ];
  if (!rows.length) return h('p', { class: 'empty' }, t('challenge.none'));
  return h('ul', { class: 'challenge-list' }, ...rows);
}
