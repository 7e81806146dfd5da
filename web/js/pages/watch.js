// Watch: the newest games being played now as small boards that update live (from the
// lobby socket: the server keeps the newest few up to date, and says how many there are).
import { h, setTitle } from '../ui.js';
import { t } from '../i18n.js';
import { Lobby } from '../lobby.js';
import { miniGame } from '../widgets.js';

/** @typedef {import('../types.js').LiveGame} LiveGame */

/** @param {HTMLElement} main */
export async function render(main) {
  setTitle(t('watch.title'));
  const grid = h('div', { class: 'mini-boards mini-boards--large' }, h('p', { class: 'empty' }, t('common.loading')));
  const more = h('p', { class: 'muted small', hidden: true });
  main.append(h('section', { class: 'card' }, h('h1', null, t('watch.title')), h('p', { class: 'muted' }, t('watch.intro')), grid, more));
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

  const lobby = new Lobby({
    onGames: () => {
      const games = lobby.games();
      draw(games);
      more.hidden = lobby.live <= games.length;
      more.textContent = t('watch.more', { count: lobby.live, shown: games.length });
    },
  });
  return { destroy: () => lobby.close() };
}
