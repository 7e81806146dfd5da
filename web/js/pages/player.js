// A player's page: rating per game with its history, results, opponents, recent games.
import { h, errorNotice, setTitle, formatDate, playerLink, playerName } from '../ui.js';
import { t } from '../i18n.js';
import { api } from '../api.js';
import { gameName, reasonWords, sideName, recordWords } from '../names.js';
import { lineChart, fitChart, niceTicks } from '../chart.js';
import { challengeCard } from '../challenge.js';
import { whoami, onMe } from '../app.js';

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
      h('div', { class: 'small muted' }, `±${Math.round(r.deviation)} · ${recordWords(r.wins, r.losses, r.draws)}`),
      r.provisional ? h('div', { class: 'small muted' }, t('profile.provisional')) : null,
      r.rank ? h('a', { class: 'small profile__rank', href: `/players?game=${r.kind}` }, t('profile.rank', { rank: r.rank })) : null)))
    : h('p', { class: 'empty' }, t('profile.no_ratings'));

  /** @type {Array<{stop: () => void}>} charts drawn at their own width (see fitChart) */
  const fitted = [];
  const charts = profile.ratings.map((r) => ratingChart(profile, r, fitted)).filter((c) => c !== null);

  const me = profile.name.toLowerCase();
  /**
   * The side the profile's owner played in a game, if they did.
   * @param {import('../types.js').GameSummary} g
   * @returns {import('../types.js').Side | null}
   */
  const ownSide = (g) => (g.first && g.first.type === 'user' && g.first.name.toLowerCase() === me ? 'first'
    : g.second && g.second.type === 'user' && g.second.name.toLowerCase() === me ? 'second' : null);
  const recent = profile.recent_games.length
    ? h('div', { class: 'table-wrap' }, h('table', { class: 'table recent-games' },
      h('thead', null, h('tr', null, ...['archive.date', 'archive.game', 'archive.players', 'profile.played', 'archive.result'].map((k) => h('th', { scope: 'col' }, t(k))))),
      h('tbody', null, ...profile.recent_games.map((g) => {
        const side = ownSide(g);
        const outcome = !side || !g.result ? null : g.result === 'draw' ? 'draw' : g.result === side ? 'win' : 'loss';
        return h('tr', { dataset: { game: g.id } },
          h('td', null, h('a', { href: `/game/${encodeURIComponent(g.id)}` }, formatDate(g.finished_at ?? g.created_at))),
          h('td', null, gameName(g.kind)),
          h('td', null, playerLink(g.first), ' – ', playerLink(g.second)),
          h('td', { class: 'recent-games__own', dataset: { side: side ?? '', outcome: outcome ?? '' } },
            side ? sideName(g.kind, side) : '',
            outcome ? h('strong', { class: `outcome outcome--${outcome}` }, ` · ${t(OUTCOME_KEYS[outcome])}`) : null),
          h('td', null, g.result === 'draw' ? '½–½' : g.result === 'first' ? '1–0' : g.result === 'second' ? '0–1' : '·',
            g.reason ? h('span', { class: 'muted small', dataset: { reason: g.reason } }, ` ${reasonWords(g.kind, g.reason, g.ended_by)}`) : null));
      }))))
    : h('p', { class: 'empty' }, t('profile.no_games'));

  const opponents = profile.opponents.length
    ? h('div', { class: 'table-wrap' }, h('table', { class: 'table' },
      h('thead', null, h('tr', null, ...['profile.opponent', 'profile.games', 'profile.score'].map((k) => h('th', { scope: 'col' }, t(k))))),
      h('tbody', null, ...profile.opponents.map((o) => h('tr', null,
        h('td', null, o.opponent.type === 'user' ? playerLink(o.opponent) : playerName(o.opponent)),
        h('td', null, String(o.games)),
        h('td', null, recordWords(o.wins, o.losses, o.draws)))))))
    : h('p', { class: 'empty' }, t('profile.no_games'));

  // Who the visitor is may be told after the page is drawn.
  const challengeSlot = h('div', { class: 'challenge-slot' });
  const drawChallenge = () => challengeSlot.replaceChildren(...(canChallenge(profile.name) ? [challengeCard(profile.name)] : []));
  drawChallenge();
  const stopMe = onMe(drawChallenge);
  main.append(
    h('section', { class: 'card stack' },
      h('h1', null, profile.name),
      h('p', { class: 'muted small' }, t('profile.since', { date: formatDate(profile.created_at) }),
        profile.online ? h('span', { class: 'online-badge', dataset: { online: 'true' } }, t('profile.online')) : null),
      ratings,
      ...charts),
    challengeSlot,
    h('div', { class: 'grid-2' },
      h('section', { class: 'card' }, h('h2', null, t('profile.recent')), recent),
      h('section', { class: 'card' }, h('h2', null, t('profile.opponents')), opponents)));
  return {
    destroy: () => {
      stopMe();
      fitted.forEach((f) => f.stop());
    },
  };
}

/** The profile owner's result in a game, by outcome. */
const OUTCOME_KEYS = { win: 'profile.won', loss: 'profile.lost', draw: 'profile.drawn' };

/**
 * A rating's history as a chart: one point per rated game, from the rating before the
 * first one when the history reaches back to it; rated games along the x axis, each
 * date named once in the caption and every point's tooltip.
 * @param {Profile} profile
 * @param {import('../types.js').RatingRecord} r
 * @param {Array<{stop: () => void}>} fitted
 * @returns {HTMLElement | null}
 */
function ratingChart(profile, r, fitted) {
  const history = profile.rating_history.filter((p) => p.kind === r.kind).sort((a, b) => a.recorded_at - b.recorded_at);
  if (!history.length) return null;
  // The number of the first game shown: the history keeps only the latest games.
  const firstGame = r.games - history.length + 1;
  /** @type {Array<{game: number, rating: number, at: number | null}>} */
  const points = history.map((p, i) => ({ game: firstGame + i, rating: p.rating, at: p.recorded_at }));
  if (firstGame === 1) points.unshift({ game: 0, rating: profile.initial_rating, at: null });
  const values = points.map((p) => p.rating);
  const lo = Math.floor((Math.min(...values) - 30) / 50) * 50;
  const hi = Math.ceil((Math.max(...values) + 30) / 50) * 50;
  const first = formatDate(history[0].recorded_at);
  const last = formatDate(history[history.length - 1].recorded_at);
  const title = t('profile.history', { game: gameName(r.kind) });
  const plot = h('div', { class: 'rating-chart__plot' });
  const figure = h('figure', { class: 'rating-chart', dataset: { kind: r.kind } },
    h('figcaption', { class: 'small muted' }, title, ' · ', first === last ? first : `${first} – ${last}`),
    plot);
  // Drawn once the figure is in the page and has a width.
  requestAnimationFrame(() => fitted.push(fitChart(plot, (width, height) => lineChart({
    width, height,
    points: points.map((p, i) => ({
      x: p.game, y: p.rating,
      title: p.at === null
        ? `${t('profile.chart_start')}: ${Math.round(p.rating)}`
        : `${t('profile.chart_game', { number: p.game })} · ${formatDate(p.at)}: ${Math.round(p.rating)}${i > 0 ? ` (${signed(p.rating - points[i - 1].rating)})` : ''}`,
    })),
    yMin: lo, yMax: hi,
    label: title,
    yTick: (y) => String(Math.round(y)),
    yTicks: niceTicks(lo, hi, Math.max(2, Math.floor(height / 45))),
    xTicks: niceTicks(points[0].game, points[points.length - 1].game, Math.max(1, Math.floor(width / 70)))
      .filter((x) => Number.isInteger(x)).map((x) => ({ x, label: String(x) })),
    xLabel: t('profile.chart_games'),
    yLabel: t('profile.chart_rating'),
  }))));
  return figure;
}

/** @param {number} n a rating change, "+12" or "−8" */
function signed(n) {
  const v = Math.round(n);
  return v > 0 ? `+${v}` : v < 0 ? `−${-v}` : '±0';
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

