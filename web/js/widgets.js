// Form pieces several pages share: the game picker, time controls, side and level.
import { h, timeControlText } from './ui.js';
import { t } from './i18n.js';
import { GAME_KINDS, gameName, sideName } from './names.js';
import { Board } from './board.js';
import { api } from './api.js';

/** @typedef {import('./types.js').GameKind} GameKind */

/** Fischer presets (minutes + seconds per move), correspondence (days per move), untimed. */
export const TIME_CONTROLS = ['1+0', '3+2', '5+3', '10+5', '15+10', '30+20', '1d', '2d', '3d', '5d', '7d', '14d', 'untimed'];

/**
 * A small picture of each game for the picker.
 * @param {GameKind} kind
 */
export function gameIcon(kind) {
  const svg = kind === 'camelot'
    ? '<svg viewBox="0 0 48 64" aria-hidden="true"><path d="M20 1h8v4h12v4h4v4h3v38h-3v4h-4v4H28v4h-8v-4H8v-4H4v-4H1V13h3V9h4V5h12z" fill="#e2c9a0" stroke="#8a6a45" stroke-width="1.5"/><rect x="20" y="1.5" width="8" height="4" fill="#c7b9a6"/><rect x="20" y="58.5" width="8" height="4" fill="#cfdcea"/><path d="M17 14h8l5 5v8l-5 5h-8l-5-5v-8z" fill="#2f2a26"/><circle cx="27" cy="44" r="7" fill="#f8f4ec" stroke="#2a2622" stroke-width="1.5"/></svg>'
    : `<svg viewBox="0 0 44 44" aria-hidden="true"><rect x="1" y="1" width="42" height="42" rx="3" fill="#e2c9a0" stroke="#8a6a45" stroke-width="1.5"/><rect x="2" y="2" width="7" height="7" fill="#b98b5e"/><rect x="35" y="2" width="7" height="7" fill="#b98b5e"/><rect x="2" y="35" width="7" height="7" fill="#b98b5e"/><rect x="35" y="35" width="7" height="7" fill="#b98b5e"/><circle cx="22" cy="22" r="7" fill="#f8f4ec" stroke="#2a2622" stroke-width="1.5"/><path d="M18 24 l-1-5 3 2 2-4 2 4 3-2 -1 5z" fill="#e0b43a"/>${kind === 'copenhagen' ? '<path d="M14 6l4 4-4 4-4-4z M30 6l4 4-4 4-4-4z" fill="#2f2a26"/>' : '<path d="M22 4l4 4-4 4-4-4z" fill="#2f2a26"/>'}</svg>`;
  const span = h('span', { class: 'game-icon' });
  span.innerHTML = svg;
  return span;
}

/**
 * Radio buttons for the three games.
 * @param {string} name the form field's name
 * @param {GameKind} value
 * @param {(kind: GameKind) => void} [onChange]
 */
export function gamePicker(name, value, onChange) {
  const box = h('div', { class: 'game-picker', role: 'radiogroup', 'aria-label': t('home.game') });
  for (const kind of GAME_KINDS) {
    const id = `${name}-${kind}`;
    box.append(
      h('input', { type: 'radio', name, id, value: kind, checked: kind === value, onchange: () => onChange?.(kind) }),
      h('label', { for: id }, gameIcon(kind), gameName(kind)),
    );
  }
  return box;
}

/**
 * A select of time controls.
 * @param {string} id
 * @param {string} value
 */
export function timeControlSelect(id, value) {
  const select = h('select', { id, name: 'time_control' });
  const groups = [
    [t('time.fischer'), TIME_CONTROLS.filter((tc) => tc.includes('+'))],
    [t('time.correspondence'), TIME_CONTROLS.filter((tc) => tc.endsWith('d'))],
    [t('time.other'), ['untimed']],
  ];
  for (const [label, list] of /** @type {Array<[string, string[]]>} */ (groups)) {
    const group = h('optgroup', { label });
    for (const tc of list) group.append(new Option(timeControlText(tc), tc, false, tc === value));
    select.append(group);
  }
  return h('div', { class: 'field' }, h('label', { for: id }, t('home.time_control')), select);
}

/**
 * First / second / random, named as the game names its sides.
 * @param {string} name
 * @param {GameKind} kind
 * @param {string} value
 */
export function sidePicker(name, kind, value) {
  const box = h('div', { class: 'segmented', role: 'radiogroup', 'aria-label': t('home.side') });
  /** @type {Array<[string, string]>} */
  const options = [['first', sideName(kind, 'first')], ['random', t('home.side_random')], ['second', sideName(kind, 'second')]];
  for (const [v, label] of options) {
    const id = `${name}-${v}`;
    box.append(h('input', { type: 'radio', name, id, value: v, checked: v === value }), h('label', { for: id }, label));
  }
  return h('div', { class: 'field' }, h('span', { class: 'label' }, t('home.side')), box);
}

/** @type {Promise<import('./types.js').LevelList | null> | null} */
let levelList = null;

/** The AI's levels and their ratings, asked for once (null if the server did not answer). */
function levels() {
  levelList ??= api.levels().catch(() => {
    levelList = null;
    return null;
  });
  return levelList;
}

/**
 * The AI's six levels, and under them the chosen one's estimated rating in `kind`
 * ("Level 4 · about 1700").
 * @param {string} name
 * @param {number} value
 * @param {GameKind} kind
 */
export function levelPicker(name, value, kind) {
  const box = h('div', { class: 'segmented level-picker', role: 'radiogroup', 'aria-label': t('home.level') });
  const caption = h('p', { class: 'level-caption', id: `${name}-about`, 'aria-live': 'polite' }, t('home.level_n', { level: value }));
  /** @type {Map<number, HTMLElement>} */
  const labels = new Map();
  /** @param {import('./types.js').LevelList | null} list @param {number} level */
  const about = (list, level) => {
    const rating = list?.levels.find((l) => l.level === level)?.ratings[kind];
    // As ratings are written everywhere on the site: no thousands separator.
    return rating ? t('home.level_about', { level, rating: String(rating) }) : t('home.level_n', { level });
  };
  /** @param {number} level */
  const choose = (level) => {
    levels().then((list) => { caption.textContent = about(list, level); });
  };
  for (let level = 1; level <= 6; level++) {
    const id = `${name}-${level}`;
    const label = h('label', { for: id, title: t('home.level_n', { level }) }, String(level));
    labels.set(level, label);
    box.append(
      h('input', { type: 'radio', name, id, value: String(level), checked: level === value, onchange: () => choose(level) }),
      label,
    );
  }
  levels().then((list) => {
    for (const [level, label] of labels) label.title = about(list, level);
  });
  choose(value);
  return h('div', { class: 'field' }, h('span', { class: 'label' }, t('home.level')), box, caption);
}

/**
 * A live game as a small board that links to it.
 * @param {import('./types.js').LiveGame} game
 * @returns {{el: HTMLElement, update: (g: import('./types.js').LiveGame) => void}}
 */
export function miniGame(game) {
  const boardEl = h('div');
  const players = h('div', { class: 'mini__players' });
  const el = h('a', { class: 'mini', href: `/game/${encodeURIComponent(game.id)}`, dataset: { game: game.id } }, boardEl, players);
  const board = new Board(boardEl, { t, names: { gameName, sideName }, small: true, animate: true });
  const update = (/** @type {import('./types.js').LiveGame} */ g) => {
    board.set({ board: g.board, legalMoves: [], interactive: false });
    const names = ['first', 'second'].map((side) => {
      const p = g.players.find((x) => x.side === side);
      return p ? (p.ai ? t('common.ai_level', { level: p.ai }) : p.name) : '?';
    });
    players.replaceChildren(h('span', null, names[0]), h('span', { class: 'muted' }, timeControlText(g.time_control)), h('span', null, names[1]));
    el.setAttribute('aria-label', t('watch.game_label', { game: gameName(g.kind), first: names[0], second: names[1] }));
  };
  update(game);
  return { el, update };
}
