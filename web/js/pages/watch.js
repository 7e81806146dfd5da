// Watch: every game being played now as a small board that updates live.
import { h, errorNotice, setTitle } from '../ui.js';
import { t } from '../i18n.js';
import { api } from '../api.js';
import { Socket } from '../socket.js';
import { miniGame } from '../widgets.js';

/** @typedef {import('../types.js').LiveGame} LiveGame */

/** @param {HTMLElement} main */
export async function render(main) {
  setTitle(t('watch.title'));
  const grid = h('div', { class: 'mini-boards mini-boards--large' }, h('p', { class: 'empty' }, t('common.loading')));
  main.append(h('section', { class: 'card' }, h('h1', null, t('watch.title')), h('p', { class: 'muted' }, t('watch.intro')), grid));
  /** @type {Map<string, ReturnType<typeof miniGame>>} */
  const minis = new Map();

  /** @param {LiveGame[]} games */
  function draw(games) {
    const seen = new Set();
    const els = games.map((g) => {
      seen.add(g.id);
      let mini = minis.get(g.id);
      if (mini) mini.update(g);
      else {
        mini = miniGame(g);
        minis.set(g.id, mini);
      }
      return mini.el;
    });
    for (const id of [...minis.keys()]) if (!seen.has(id)) minis.delete(id);
    grid.replaceChildren(...(els.length ? els : [h('p', { class: 'empty' }, t('watch.none'))]));
  }

  const socket = new Socket('/ws/lobby', {
    onMessage: (msg) => {
      if (msg.t === 'live_games') draw(msg.games ?? []);
    },
  });
  try {
    draw(await api.liveGames());
  } catch (error) {
    grid.replaceChildren(errorNotice(error));
  }
  return { destroy: () => socket.close() };
}
