// The visitor's own games, on every page: one socket (/ws/lobby?feed=me) for as long as
// the app is open, its list of the player's games not yet over, kept up to date from
// the server's `my_game` messages. From it: the header's count of games waiting for
// the player's move, the tab's title ("(2) Kingstable"), and notices when a game needs
// them (their move, a new game, an offer, an end, a challenge to them) — in the page,
// and through the browser's notifications when they allowed them and the tab is in the
// background. The same socket carries an account's direct challenges (`my_challenges`).
import { Socket } from './socket.js';
import { h, setTitleWriter, timeControlText } from './ui.js';
import { t } from './i18n.js';
import { navigate } from './router.js';
import { prefs } from './prefs.js';
import { gameName } from './names.js';

/** @typedef {import('./types.js').MyGame} MyGame */
/** @typedef {import('./types.js').MySocketMessage} MySocketMessage */
/** @typedef {import('./types.js').WhoAmI} WhoAmI */
/** @typedef {import('./types.js').Challenge} Challenge */

/** How long an in-page notice stays. */
const NOTICE_MS = 8000;
/** The most notices shown at once (older ones go). */
const NOTICES_MAX = 3;

/** @type {Map<string, MyGame>} */
let games = new Map();
/** @type {Socket | null} */
let socket = null;
/** The account's direct challenges: made to them, and by them. */
let challenges = { incoming: /** @type {Challenge[]} */ ([]), outgoing: /** @type {Challenge[]} */ ([]) };
/** Whether the first list of challenges has come (no notices for what it holds). */
let challengesReady = false;
/** Whether the first list has come (no notices for what it holds). */
let ready = false;
/** @type {Set<() => void>} */
const listeners = new Set();
/** The page's own title, without the count. */
let baseTitle = document.title;
setTitleWriter((title) => {
  baseTitle = title;
  drawTitle();
});

/** @param {MyGame} g */
export const isMyTurn = (g) => g.status === 'ongoing' && g.to_move === g.you;

/** The games not over, those waiting for the player's move first (least time first). */
export function myGames() {
  const left = (/** @type {MyGame} */ g) => {
    if (!g.clocks) return Infinity;
    return g.you === 'first' ? g.clocks.first_ms : g.clocks.second_ms;
  };
  return [...games.values()].sort((a, b) => {
    const ta = isMyTurn(a), tb = isMyTurn(b);
    if (ta !== tb) return ta ? -1 : 1;
    if (ta) return left(a) - left(b);
    return (a.status === 'waiting' ? 1 : 0) - (b.status === 'waiting' ? 1 : 0);
  });
}

/** How many games wait for the player's move. */
export function myTurnCount() {
  let n = 0;
  for (const g of games.values()) if (isMyTurn(g)) n += 1;
  return n;
}

/** The account's direct challenges not yet answered or lapsed. */
export function myChallenges() {
  const now = Date.now();
  return {
    incoming: challenges.incoming.filter((c) => c.expires_at > now),
    outgoing: challenges.outgoing.filter((c) => c.expires_at > now),
  };
}

/** Whether the first list has come. */
export function myGamesReady() {
  return ready;
}

/**
 * Calls `fn` whenever the list changes; returns how to stop.
 * @param {() => void} fn
 */
export function onMyGames(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function drawTitle() {
  const n = myTurnCount();
  document.title = n > 0 ? `(${n}) ${baseTitle}` : baseTitle;
}

function drawBadge() {
  const link = document.getElementById('my-games');
  if (!link) return;
  const n = myTurnCount();
  const count = link.querySelector('.my-games__count');
  if (count) {
    count.textContent = String(n);
    count.toggleAttribute('hidden', n === 0);
  }
  link.dataset.count = String(n);
  link.setAttribute('aria-label', n > 0 ? t('mine.header_count', { count: n }) : t('mine.title'));
  link.title = link.getAttribute('aria-label') ?? '';
}

function changed() {
  drawTitle();
  drawBadge();
  for (const fn of listeners) fn();
}

/**
 * The opponent's name in `g`.
 * @param {MyGame} g
 */
export function opponentName(g) {
  const other = g.players.find((p) => p.side !== g.you);
  if (!other || (!other.name && other.ai === null)) return t('mine.open_seat');
  if (other.ai !== null) return t('common.ai_level', { level: other.ai });
  return other.name;
}

/**
 * What changed in a game that the player should hear of, in words (null: nothing).
 * @param {MyGame | undefined} before
 * @param {MyGame} now
 * @returns {string | null}
 */
export function noticeFor(before, now) {
  const who = opponentName(now);
  const other = now.you === 'first' ? 'second' : 'first';
  if (now.status === 'finished') {
    const winner = now.result?.winner ?? null;
    if (winner === null) return t('mine.notice_drawn', { player: who });
    return t(winner === now.you ? 'mine.notice_won' : 'mine.notice_lost', { player: who });
  }
  if (now.status === 'aborted') return t('mine.notice_aborted', { player: who });
  if (now.status !== 'ongoing') return null;
  if (now.draw_offer === other && before?.draw_offer !== other) return t('mine.notice_draw', { player: who });
  if (now.takeback_request === other && before?.takeback_request !== other) return t('mine.notice_takeback', { player: who });
  const started = !before || before.status === 'waiting';
  if (isMyTurn(now) && (!before || !isMyTurn(before))) {
    return started ? t('mine.notice_started_yours', { player: who, game: gameName(now.kind) }) : t('mine.notice_your_move', { player: who });
  }
  if (started) return t('mine.notice_started', { player: who, game: gameName(now.kind) });
  return null;
}

/**
 * Tells the player: a notice in the page, and a desktop notification when they allowed
 * them and are looking elsewhere.
 * @param {{id: string}} g the game (or challenge) it is about
 * @param {string} text
 * @param {string} [to] where the notice leads (the game's page)
 */
function tell(g, text, to) {
  const p = prefs();
  const path = to ?? `/game/${encodeURIComponent(g.id)}`;
  // The player is looking at this game: its own page says what happened.
  if (location.pathname === path && !document.hidden) return;
  if (p.notices) {
    const area = document.querySelector('.toast-area');
    if (area) {
      const notice = h('div', { class: 'toast toast--game', role: 'status', dataset: { game: g.id } },
        h('span', null, text), ' ',
        h('a', { href: path, class: 'toast__link' }, t('mine.open')));
      const old = area.querySelectorAll('.toast--game');
      if (old.length >= NOTICES_MAX) old[0].remove();
      area.append(notice);
      setTimeout(() => notice.remove(), NOTICE_MS);
    }
  }
  if (p.desktop && document.hidden && 'Notification' in window && Notification.permission === 'granted') {
    try {
      const n = new Notification('Kingstable', { body: text, tag: `kingstable-${g.id}`, icon: '/favicon.svg' });
      n.onclick = () => {
        window.focus();
        navigate(path);
        n.close();
      };
    } catch {
      // Some browsers make notifications only from a service worker: the page notice
      // and the title say it instead.
    }
  }
}

/** Takes away the notices about the game now on screen: its own page says it (a game
 * just made from the home page is told while the page is still on its way there). */
function dropNoticesHere() {
  for (const notice of document.querySelectorAll('.toast--game')) {
    const game = /** @type {HTMLElement} */ (notice).dataset.game ?? '';
    if (location.pathname === `/game/${encodeURIComponent(game)}`) notice.remove();
  }
}
window.addEventListener('kingstable:navigate', dropNoticesHere);
window.addEventListener('popstate', dropNoticesHere);

/** @param {MySocketMessage} msg */
function apply(msg) {
  if (msg.t === 'my_challenges') {
    const known = new Set(challenges.incoming.map((c) => c.id));
    if (challengesReady) {
      for (const c of msg.incoming) {
        if (!known.has(c.id)) {
          tell(c, t('mine.notice_challenge', { player: c.by ?? '?', game: gameName(c.kind), time: timeControlText(c.time_control) }), '/my-games');
        }
      }
    }
    challenges = { incoming: msg.incoming, outgoing: msg.outgoing };
    challengesReady = true;
    changed();
    return;
  }
  if (msg.t === 'my_games') {
    games = new Map(msg.games.map((g) => [g.id, g]));
    ready = true;
    changed();
    return;
  }
  if (msg.t !== 'my_game') return;
  const g = msg.game;
  const before = games.get(g.id);
  if (ready) {
    const text = noticeFor(before, g);
    if (text) tell(g, text);
  }
  if (g.status === 'finished' || g.status === 'aborted') games.delete(g.id);
  else games.set(g.id, g);
  changed();
}

/**
 * Follows the visitor `me`: a player (user or guest) has a socket on their games;
 * nobody has none. Called again whenever who the visitor is changes.
 * @param {WhoAmI | null} me
 */
export function followMe(me) {
  const link = document.getElementById('my-games');
  const player = !!me && me.kind !== 'anonymous';
  link?.toggleAttribute('hidden', !player);
  socket?.close();
  socket = null;
  games = new Map();
  ready = false;
  challenges = { incoming: [], outgoing: [] };
  challengesReady = false;
  if (player) socket = new Socket('/ws/lobby?feed=me', { onMessage: apply });
  changed();
}

/** The header's link to the list, with its count (drawn again on a change of language). */
export function drawMyGamesLink() {
  drawBadge();
}
