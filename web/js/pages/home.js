// Home: pick a game and play the AI, a friend by link, or post a challenge; the lobby of
// open challenges; games being played now; the lobby chat. The lobby, the games and the
// chat come from one source, the lobby socket (../lobby.js); when this visitor's
// challenge is accepted the page goes to the game and says so.
import { h, toast, errorNotice, errorText, setTitle, timeControlText, copyLink } from '../ui.js';
import { t } from '../i18n.js';
import { api } from '../api.js';
import { Lobby } from '../lobby.js';
import { navigate } from '../router.js';
import { ensurePlayer, whoami, onMe } from '../app.js';
import { gameName, sideName, GAME_KINDS } from '../names.js';
import { gamePicker, timeControlSelect, sidePicker, levelPicker, miniGame, gameIcon } from '../widgets.js';
import { Chat } from '../chat.js';
import { CHOSEN_KIND_KEY, rulesHref, setRulesContext } from '../guide.js';

/** @typedef {import('../types.js').GameKind} GameKind */
/** @typedef {import('../types.js').Challenge} Challenge */
/** @typedef {import('../types.js').LiveGame} LiveGame */

const KIND_KEY = CHOSEN_KIND_KEY;

/** Each game in a line, for a newcomer (the rules pages say the rest). */
/** @type {Record<GameKind, string>} */
const ABOUT_KEYS = {
  fetlar: 'home.about.fetlar',
  copenhagen: 'home.about.copenhagen',
  camelot: 'home.about.camelot',
};

/**
 * The three games, each in a line with a link to its rules.
 * @returns {HTMLElement}
 */
function aboutGames() {
  return h('section', { class: 'card about-games', 'aria-labelledby': 'about-title' },
    h('h2', { id: 'about-title' }, t('home.about.title')),
    h('ul', { class: 'about-games__list' }, ...GAME_KINDS.map((kind) => h('li', { dataset: { kind } },
      gameIcon(kind),
      h('span', null, h('strong', null, gameName(kind)), ' — ', h('span', { class: 'about-games__line' }, t(ABOUT_KEYS[kind])), ' ',
        h('a', { href: rulesHref(kind), class: 'about-games__rules' }, t('home.about.rules')))))));
}

/** @param {HTMLElement} main */
export async function render(main) {
  setTitle('');
  /** @type {GameKind} */
  let kind = /** @type {GameKind} */ (localStorage.getItem(KIND_KEY) ?? 'copenhagen');
  if (!['fetlar', 'copenhagen', 'camelot'].includes(kind)) kind = 'copenhagen';
  /** @typedef {"ai" | "friend" | "lobby"} Mode */
  /** @type {Mode} */
  let mode = /** @type {Mode} */ ('ai');

  const form = h('form', { class: 'stack', 'aria-labelledby': 'play-title' });
  const result = h('div', { 'aria-live': 'polite' });
  const tabs = h('div', { class: 'tabs', role: 'tablist' });
  /** @type {Array<[Mode, string]>} */
  const modes = [['ai', t('home.vs_ai')], ['friend', t('home.vs_friend')], ['lobby', t('home.challenge')]];
  for (const [m, label] of modes) {
    tabs.append(h('button', {
      type: 'button', role: 'tab', id: `tab-${m}`, 'aria-selected': String(m === mode),
      onclick: () => {
        mode = m;
        for (const b of tabs.children) b.setAttribute('aria-selected', String(b.id === `tab-${m}`));
        drawForm();
      },
    }, label));
  }

  function drawForm() {
    const data = new FormData(form);
    const tc = String(data.get('time_control') ?? (mode === 'ai' ? 'untimed' : '5+3'));
    const side = String(data.get('side') ?? 'random');
    const level = Number(data.get('level') ?? 3);
    const rated = data.get('rated') === 'on';
    form.replaceChildren(...[
      gamePicker('kind', kind, (k) => {
        kind = k;
        localStorage.setItem(KIND_KEY, k);
        setRulesContext(k);
        drawForm();
      }),
      mode === 'ai' ? levelPicker('level', level, kind) : null,
      sidePicker('side', kind, side),
      timeControlSelect('time-control', tc),
      mode === 'ai' ? null : h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'rated', checked: rated }), ` ${t('home.rated')}`),
      h('button', { type: 'submit', class: 'btn btn--primary btn--block', id: 'play-button' },
        mode === 'ai' ? t('home.play_ai') : mode === 'friend' ? t('home.create_link') : t('home.post_challenge')),
    ].filter((x) => x !== null));
    result.replaceChildren();
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const side = /** @type {any} */ (String(data.get('side') ?? 'random'));
    const time_control = String(data.get('time_control') ?? 'untimed');
    const rated = data.get('rated') === 'on';
    const button = /** @type {HTMLButtonElement} */ (form.querySelector('#play-button'));
    button.disabled = true;
    try {
      const wasAnonymous = (whoami()?.kind ?? 'anonymous') === 'anonymous';
      await ensurePlayer();
      // The lobby socket opened before this visitor had a cookie: open it again as them,
      // so that it is told when their challenge is accepted.
      if (wasAnonymous && mode === 'lobby') lobby.socket.reconnect();
      if (mode === 'ai') {
        const game = await api.createGame({ kind, opponent: { ai: Number(data.get('level') ?? 3) }, side, time_control, rated: false });
        navigate(game.url);
        return;
      }
      if (mode === 'friend') {
        const game = await api.createGame({ kind, opponent: 'friend', side, time_control, rated });
        const link = new URL(game.url, location.href).href;
        result.replaceChildren(h('div', { class: 'notice notice--good stack' },
          h('p', null, t('home.link_ready')),
          copyLink(link, 'friend-link'),
          h('div', { class: 'btn-row' },
            h('a', { class: 'btn btn--primary', href: game.url }, t('home.open_game')))));
        return;
      }
      await api.createChallenge({ kind, time_control, side, rated });
      toast(t('home.challenge_posted'));
    } catch (error) {
      result.replaceChildren(errorNotice(error));
    } finally {
      button.disabled = false;
    }
  });

  // --- the lobby and the games being played now -------------------------------------
  const lobbyBody = h('div', { class: 'table-wrap' }, h('p', { class: 'empty' }, t('common.loading')));
  const liveBox = h('div', { class: 'mini-boards' }, h('p', { class: 'empty' }, t('common.loading')));
  /** @type {Map<string, ReturnType<typeof miniGame>>} */
  const minis = new Map();

  function drawChallenges() {
    if (!lobby.ready) return;
    const challenges = lobby.challenges();
    if (!challenges.length) {
      lobbyBody.replaceChildren(h('p', { class: 'empty' }, t('lobby.empty')));
      return;
    }
    const me = whoami();
    const rows = challenges.map((/** @type {Challenge} */ c) => {
      const mine = !!me && me.kind !== 'anonymous' && c.by === me.name;
      const action = mine
        ? h('button', { type: 'button', class: 'btn btn--small btn--danger', onclick: () => act(() => api.cancelChallenge(c.id)) }, t('common.cancel'))
        : h('button', {
          type: 'button', class: 'btn btn--small btn--primary',
          'aria-label': t('lobby.accept_label', { player: c.by ?? '?', game: gameName(c.kind), time: timeControlText(c.time_control) }),
          onclick: () => act(async () => {
            await ensurePlayer();
            const { game_id } = await api.acceptChallenge(c.id);
            navigate(`/game/${encodeURIComponent(game_id)}`);
          }),
        }, t('lobby.accept'));
      const side = c.side === 'random' ? t('home.side_random') : sideName(c.kind, c.side);
      return h('tr', { dataset: { challenge: c.id } },
        h('td', null, c.by ?? '?'),
        h('td', null, gameName(c.kind)),
        h('td', null, timeControlText(c.time_control)),
        h('td', null, side),
        h('td', null, c.rated ? t('lobby.rated') : t('lobby.casual')),
        h('td', null, action));
    });
    lobbyBody.replaceChildren(h('table', { class: 'table' },
      h('thead', null, h('tr', null, ...['lobby.player', 'lobby.game', 'lobby.time', 'lobby.side', 'lobby.mode', 'lobby.action'].map((k) => h('th', { scope: 'col' }, t(k))))),
      h('tbody', null, ...rows)));
  }

  /** @param {() => Promise<unknown>} fn */
  async function act(fn) {
    try {
      // What it changes comes back on the lobby socket.
      await fn();
    } catch (error) {
      toast(errorText(error));
    }
  }

  function drawLive() {
    if (!lobby.ready) return;
    /** @type {LiveGame[]} */
    const games = lobby.games();
    const ids = new Set(games.map((g) => g.id));
    for (const [id, mini] of minis) {
      if (!ids.has(id)) {
        mini.el.remove();
        minis.delete(id);
      }
    }
    for (const g of games) {
      const mini = minis.get(g.id);
      if (mini) mini.update(g);
      else {
        const made = miniGame(g);
        minis.set(g.id, made);
      }
    }
    if (!games.length) liveBox.replaceChildren(h('p', { class: 'empty' }, t('watch.none')));
    else liveBox.replaceChildren(...games.slice(0, 8).map((g) => /** @type {HTMLElement} */ (minis.get(g.id)?.el)));
  }

  // The lobby chat: everyone reads it, a signed-in account writes in it.
  const chat = new Chat((message) => lobby.say(message.text), { id: 'lobby-chat', lobby: true });
  chat.setLobby(whoami()?.kind === 'user');
  // The page may be drawn before the server said who the visitor is.
  const stopMe = onMe((me) => chat.setLobby(me?.kind === 'user'));

  const lobby = new Lobby({
    onGames: drawLive,
    onChallenges: drawChallenges,
    onChat: (lines) => chat.receiveLobby(lines),
    onError: (code, message, reason) => {
      if (code === 'chat_refused') chat.refused(reason, message);
      // The socket's own message limit: the same as the chat's, in the reader's words.
      else if (code === 'rate_limited') chat.refused('too_many', message);
    },
    onAccepted: (game) => {
      // Someone took this visitor's challenge: the game has started, go there.
      toast(t('lobby.accepted'));
      navigate(`/game/${encodeURIComponent(game)}`);
    },
  });

  drawForm();
  main.append(
    h('div', { class: 'hero' },
      h('section', { class: 'card' }, h('h1', { id: 'play-title' }, t('home.title')), tabs, form, result),
      h('section', { class: 'card', 'aria-labelledby': 'lobby-title' }, h('h2', { id: 'lobby-title' }, t('lobby.title')), lobbyBody)),
    aboutGames(),
    h('div', { class: 'home-lower' },
      h('section', { class: 'card', 'aria-labelledby': 'live-title' },
        h('h2', { id: 'live-title' }, t('watch.playing_now'), ' ', h('a', { href: '/watch', class: 'small' }, t('watch.all'))),
        liveBox),
      chat.el),
  );
  return {
    destroy: () => {
      stopMe();
      lobby.close();
    },
  };
}
