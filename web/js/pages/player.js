// A player's page: rating per game with its history, results, opponents, recent games.
import { h, errorNotice, setTitle, formatDate, playerLink, playerName } from '../ui.js';
import { t } from '../i18n.js';
import { api } from '../api.js';
import { gameName, reasonWords } from '../names.js';
import { lineChart } from '../chart.js';
import { challengeCard } from '../challenge.js';
import { whoami } from '../app.js';

/** @typedef {import('../types.js').Profile} Profile */

/**
 * @param {HTMLElement} main
 * @param {string[]} params
 */
export async function render(main, [name]) {
  setTitle(name);
  /** @type {Profile} */
  let profile;
  try {
    profile = await api.player(name);
  } catch (error) {
    main.append(h('section', { class: 'card' }, h('h1', null, name), errorNotice(error)));
    return;
  }
  const ratings = profile.ratings.length
    ? h('div', { class: 'stat-grid' }, ...profile.ratings.map((r) => h('div', { class: 'stat', dataset: { kind: r.kind } },
      h('div', { class: 'stat__label' }, gameName(r.kind)),
      h('div', { class: 'stat__value' }, `${Math.round(r.rating)}${r.provisional ? '?' : ''}`),
      h('div', { class: 'small muted' }, `±${Math.round(r.deviation)} · ${t('profile.record', { wins: r.wins, losses: r.losses, draws: r.draws })}`),
      r.provisional ? h('div', { class: 'small muted' }, t('profile.provisional')) : null,
      r.rank ? h('a', { class: 'small profile__rank', href: `/players?game=${r.kind}` }, t('profile.rank', { rank: r.rank })) : null)))
    : h('p', { class: 'empty' }, t('profile.no_ratings'));

  const charts = profile.ratings.map((r) => {
    const points = profile.rating_history.filter((p) => p.kind === r.kind).sort((a, b) => a.recorded_at - b.recorded_at);
    if (points.length < 2) return null;
    const values = points.map((p) => p.rating);
    const lo = Math.floor((Math.min(...values) - 30) / 50) * 50;
    const hi = Math.ceil((Math.max(...values) + 30) / 50) * 50;
    return h('figure', { class: 'rating-chart' },
      h('figcaption', { class: 'small muted' }, t('profile.history', { game: gameName(r.kind) })),
      lineChart({
        points: points.map((p, i) => ({ x: i, y: p.rating, title: `${formatDate(p.recorded_at)}: ${Math.round(p.rating)}` })),
        yMin: lo, yMax: hi,
        label: t('profile.history', { game: gameName(r.kind) }),
        yTick: (y) => String(Math.round(y)),
        xTick: (x) => formatDate(points[Math.min(points.length - 1, Math.round(x))].recorded_at),
      }));
  }).filter((c) => c !== null);

  const recent = profile.recent_games.length
    ? h('div', { class: 'table-wrap' }, h('table', { class: 'table' },
      h('thead', null, h('tr', null, ...['archive.date', 'archive.game', 'archive.players', 'archive.result'].map((k) => h('th', { scope: 'col' }, t(k))))),
      h('tbody', null, ...profile.recent_games.map((g) => h('tr', null,
        h('td', null, h('a', { href: `/game/${encodeURIComponent(g.id)}` }, formatDate(g.finished_at ?? g.created_at))),
        h('td', null, gameName(g.kind)),
        h('td', null, playerLink(g.first), ' – ', playerLink(g.second)),
        h('td', null, g.result === 'draw' ? '½–½' : g.result === 'first' ? '1–0' : g.result === 'second' ? '0–1' : '·',
          g.reason ? h('span', { class: 'muted small', dataset: { reason: g.reason } }, ` ${reasonWords(g.kind, g.reason, g.ended_by)}`) : null))))))
    : h('p', { class: 'empty' }, t('profile.no_games'));

  const opponents = profile.opponents.length
    ? h('div', { class: 'table-wrap' }, h('table', { class: 'table' },
      h('thead', null, h('tr', null, ...['profile.opponent', 'profile.games', 'profile.score'].map((k) => h('th', { scope: 'col' }, t(k))))),
      h('tbody', null, ...profile.opponents.map((o) => h('tr', null,
        h('td', null, o.opponent.type === 'user' ? playerLink(o.opponent) : playerName(o.opponent)),
        h('td', null, String(o.games)),
        h('td', null, t('profile.record', { wins: o.wins, losses: o.losses, draws: o.draws })))))))
    : h('p', { class: 'empty' }, t('profile.no_games'));

  main.append(
    h('section', { class: 'card stack' },
      h('h1', null, profile.name),
      h('p', { class: 'muted small' }, t('profile.since', { date: formatDate(profile.created_at) }),
        profile.online ? h('span', { class: 'online-badge', dataset: { online: 'true' } }, t('profile.online')) : null),
      ratings,
      ...charts),
    ...(canChallenge(profile.name) ? [challengeCard(profile.name)] : []),
    h('div', { class: 'grid-2' },
      h('section', { class: 'card' }, h('h2', null, t('profile.recent')), recent),
      h('section', { class: 'card' }, h('h2', null, t('profile.opponents')), opponents)));
}

/**
 * Whether the visitor may challenge the player `name`: an account may challenge another
 * account.
 * @param {string} name
 */
function canChallenge(name) {
  const me = whoami();
  return me?.kind === 'user' && me.name.toLowerCase() !== name.toLowerCase();
}
