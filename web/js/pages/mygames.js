// My games: every game the player has not finished, those waiting for their move first,
// with the time left on their clock, kept up to date live (from the app's socket on the
// player's games, ../mine.js); the direct challenges made to and by them; and the switch
// for desktop notifications.
import { h, setTitle, timeControlText } from '../ui.js';
import { t } from '../i18n.js';
import { gameName } from '../names.js';
import { formatClock } from '../clock.js';
import { myGames, myGamesReady, onMyGames, isMyTurn, opponentName, myChallenges } from '../mine.js';
import { challengeList } from '../challenge.js';
import { whoami } from '../app.js';
import { desktopControl } from './settings.js';

/** @typedef {import('../types.js').MyGame} MyGame */

/**
 * The player's time left in `g` at `now` (null untimed, or before the game starts),
 * counting down from when the list was told it.
 * @param {MyGame} g
 * @param {number} since when the list was last told of it
 * @param {number} now
 */
function timeLeft(g, since, now) {
  if (!g.clocks) return null;
  const ms = g.you === 'first' ? g.clocks.first_ms : g.clocks.second_ms;
  return g.clocks.running === g.you ? ms - (now - since) : ms;
}

/** @param {HTMLElement} main */
export async function render(main) {
  setTitle(t('mine.title'));
  const list = h('div', { class: 'table-wrap', 'aria-live': 'polite' }, h('p', { class: 'empty' }, t('common.loading')));
  const challengeBox = h('div', { id: 'my-challenges', 'aria-live': 'polite' });
  const challengeCard = h('section', { class: 'card stack' }, h('h2', null, t('challenge.title')), challengeBox);
  main.append(
    h('section', { class: 'card stack' },
      h('h1', null, t('mine.title')),
      h('p', { class: 'muted' }, t('mine.intro')),
      list),
    challengeCard,
    h('section', { class: 'card stack' }, h('h2', null, t('mine.notifications')), desktopControl()));

  /** When each game was last told of (its clocks count down from then). */
  const told = new Map();
  /** @type {Map<string, HTMLElement>} */
  const clockCells = new Map();

  function draw() {
    const me = whoami();
    // Direct challenges are between accounts.
    challengeCard.hidden = me?.kind !== 'user';
    const { incoming, outgoing } = myChallenges();
    challengeBox.replaceChildren(challengeList(incoming, outgoing));
    if (!me || me.kind === 'anonymous') {
      list.replaceChildren(h('p', { class: 'empty' }, t('mine.nobody')));
      return;
    }
    if (!myGamesReady()) return;
    const games = myGames();
    const now = Date.now();
    for (const g of games) {
      const key = `${g.id}:${g.plies}:${g.to_move}:${g.status}`;
      if (told.get(g.id)?.key !== key) told.set(g.id, { key, at: now });
    }
    clockCells.clear();
    if (!games.length) {
      list.replaceChildren(h('p', { class: 'empty' }, t('mine.none'), ' ', h('a', { href: '/' }, t('mine.play'))));
      return;
    }
    const rows = games.map((g) => {
      const yours = isMyTurn(g);
      const status = g.status === 'waiting' ? t('mine.waiting_seat')
        : yours ? t('mine.your_move') : t('mine.their_move');
      const offers = [
        g.draw_offer && g.draw_offer !== g.you ? t('mine.draw_offered') : null,
        g.takeback_request && g.takeback_request !== g.you ? t('mine.takeback_asked') : null,
      ].filter((x) => x !== null).join(' · ');
      const clock = h('td', { class: 'my-games__clock', dataset: { clock: g.id } });
      clockCells.set(g.id, clock);
      return h('tr', { class: yours ? 'my-games__row my-games__row--yours' : 'my-games__row', dataset: { game: g.id, yours: String(yours) } },
        h('td', null, h('strong', { class: yours ? 'my-games__turn' : 'muted' }, status), offers ? h('span', { class: 'small' }, ` · ${offers}`) : null),
        h('td', null, t('mine.against', { player: opponentName(g) })),
        h('td', null, `${gameName(g.kind)} · ${timeControlText(g.time_control)}${g.rated ? ` · ${t('lobby.rated')}` : ''}`),
        clock,
        h('td', null, h('a', { class: `btn btn--small${yours ? ' btn--primary' : ''}`, href: `/game/${encodeURIComponent(g.id)}` }, yours ? t('mine.play_now') : t('mine.open'))));
    });
    list.replaceChildren(h('table', { class: 'table my-games' },
      h('thead', null, h('tr', null, ...['mine.col_status', 'mine.col_opponent', 'mine.col_game', 'mine.col_time', 'mine.col_open'].map((k) => h('th', { scope: 'col' }, t(k))))),
      h('tbody', null, ...rows)));
    tick();
  }

  function tick() {
    const now = Date.now();
    for (const g of myGames()) {
      const cell = clockCells.get(g.id);
      if (!cell) continue;
      const left = timeLeft(g, told.get(g.id)?.at ?? now, now);
      cell.textContent = left === null ? '–' : t('mine.time_left', { time: formatClock(left) });
      cell.classList.toggle('my-games__clock--low', left !== null && isMyTurn(g) && left < 60000);
    }
  }

  draw();
  const stop = onMyGames(draw);
  const timer = setInterval(tick, 1000);
  return {
    destroy: () => {
      stop();
      clearInterval(timer);
    },
  };
}
