// Players: the rating list of each game (established ratings only, highest first), with
// games played and when each player was last active, who is online now, a page at a
// time.
import { h, errorNotice, setTitle, formatDate } from '../ui.js';
import { t } from '../i18n.js';
import { api } from '../api.js';
import { GAME_KINDS, gameName, recordWords } from '../names.js';

/** @typedef {import('../types.js').GameKind} GameKind */
/** @typedef {import('../types.js').RatingList} RatingList */

/** @param {HTMLElement} main */
export async function render(main) {
  setTitle(t('players.title'));
  const params = new URLSearchParams(location.search);
  /** @type {GameKind} */
  let kind = /** @type {GameKind} */ (params.get('game') ?? 'copenhagen');
  if (!GAME_KINDS.includes(kind)) kind = 'copenhagen';
  let page = Math.max(1, Number(params.get('page')) || 1);
  const online = h('p', { class: 'muted small', id: 'players-online', 'aria-live': 'polite' });
  const results = h('div', { class: 'table-wrap', 'aria-live': 'polite' });
  const tabs = h('div', { class: 'tabs tabs--games', role: 'tablist' });
  for (const k of GAME_KINDS) {
    tabs.append(h('button', {
      type: 'button', role: 'tab', id: `players-${k}`, 'aria-selected': String(k === kind),
      onclick: () => {
        kind = k;
        page = 1;
        for (const b of tabs.children) b.setAttribute('aria-selected', String(b.id === `players-${k}`));
        void load();
      },
    }, gameName(k)));
  }
  main.append(h('section', { class: 'card stack' },
    h('h1', null, t('players.title')),
    h('p', { class: 'muted' }, t('players.intro')),
    online, tabs, results));

  let generation = 0;
  async function load() {
    const mine = ++generation;
    const url = new URL(location.href);
    url.searchParams.set('game', kind);
    if (page > 1) url.searchParams.set('page', String(page));
    else url.searchParams.delete('page');
    history.replaceState(null, '', url.pathname + url.search);
    results.replaceChildren(h('p', { class: 'empty' }, t('common.loading')));
    /** @type {RatingList} */
    let list;
    try {
      list = await api.ratings(kind, page);
    } catch (error) {
      if (mine === generation) results.replaceChildren(errorNotice(error));
      return;
    }
    if (mine !== generation) return;
    online.textContent = t('players.online', { count: list.online });
    if (!list.players.length) {
      results.replaceChildren(h('p', { class: 'empty' }, t('players.none', { game: gameName(kind) })));
      return;
    }
    const rows = list.players.map((p) => h('tr', { dataset: { player: p.name } },
      h('td', { class: 'players__rank' }, `#${p.rank}`),
      h('td', null,
        h('a', { href: `/player/${encodeURIComponent(p.name)}` }, p.name),
        p.online ? h('span', { class: 'online-dot', title: t('players.is_online'), 'aria-label': t('players.is_online'), role: 'img' }) : null),
      h('td', null, h('strong', null, String(Math.round(p.rating))), h('span', { class: 'muted small' }, ` ±${Math.round(p.deviation)}`)),
      h('td', null, t('players.games', { count: p.games }), h('span', { class: 'muted small' }, ` · ${recordWords(p.wins, p.losses, p.draws)}`)),
      h('td', { class: 'small muted' }, t('players.last_active', { date: formatDate(p.last_active) }))));
    results.replaceChildren(...[
      h('table', { class: 'table players' },
        h('thead', null, h('tr', null, ...['players.rank', 'players.player', 'players.rating', 'players.games_head', 'players.active'].map((k) => h('th', { scope: 'col' }, t(k))))),
        h('tbody', null, ...rows)),
      list.pages > 1 ? h('div', { class: 'pager' },
        h('button', { type: 'button', class: 'btn btn--small', disabled: list.page <= 1, onclick: () => { page -= 1; void load(); } }, t('archive.previous')),
        h('span', { class: 'muted small' }, t('archive.page', { page: list.page, pages: list.pages })),
        h('button', { type: 'button', class: 'btn btn--small', disabled: list.page >= list.pages, onclick: () => { page += 1; void load(); } }, t('archive.next'))) : null,
    ].filter((x) => x !== null));
  }
  await load();
}
