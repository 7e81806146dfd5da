// Rules: a page per game for players, in the reader's language, with the start position
// drawn (data made by the real rules: web/data/*-start.json, see web/tests/fixtures/make.sh).
import { h, setTitle } from '../ui.js';
import { t } from '../i18n.js';
import { Board } from '../board.js';
import { GAME_KINDS, gameName } from '../names.js';
import { SUMMARY_KEYS, setRulesContext } from '../guide.js';

/** @typedef {import('../types.js').GameKind} GameKind */

/** The rules of each game, in reading order (keys of the language files). */
const RULES = {
  fetlar: ['rules.fetlar.intro', 'rules.tafl.board', 'rules.tafl.move', 'rules.tafl.restricted', 'rules.tafl.capture',
    'rules.tafl.hostile', 'rules.tafl.king_armed', 'rules.tafl.king_capture', 'rules.tafl.escape',
    'rules.tafl.encirclement', 'rules.tafl.no_moves', 'rules.fetlar.repetition', 'rules.tafl.draws'],
  copenhagen: ['rules.copenhagen.intro', 'rules.tafl.board', 'rules.tafl.move', 'rules.tafl.restricted', 'rules.tafl.capture',
    'rules.tafl.hostile', 'rules.tafl.king_armed', 'rules.copenhagen.shieldwall', 'rules.tafl.king_capture',
    'rules.tafl.escape', 'rules.copenhagen.fort', 'rules.tafl.encirclement', 'rules.tafl.no_moves',
    'rules.copenhagen.repetition', 'rules.tafl.draws'],
  camelot: ['rules.camelot.intro', 'rules.camelot.board', 'rules.camelot.plain', 'rules.camelot.canter',
    'rules.camelot.jump', 'rules.camelot.charge', 'rules.camelot.compulsory', 'rules.camelot.castle_enemy',
    'rules.camelot.castle_own', 'rules.camelot.win', 'rules.camelot.draws'],
};

/** Rules drawn with a position made by the real rules (web/data/rule-*.json). */
/** @type {Record<string, string>} */
const DIAGRAMS = {
  'rules.tafl.capture': 'rule-tafl-capture',
  'rules.camelot.canter': 'rule-camelot-canter',
  'rules.camelot.jump': 'rule-camelot-jump',
};

/**
 * A small board showing a position and the move that led to it.
 * @param {string} name
 * @returns {HTMLElement}
 */
function diagram(name) {
  const boardEl = h('div');
  const caption = h('figcaption', { class: 'small muted' });
  const figure = h('figure', { class: 'rules__rule-diagram' }, boardEl, caption);
  void (async () => {
    try {
      const data = await (await fetch(`/data/${name}.json`)).json();
      const last = data.moves[data.moves.length - 1] ?? null;
      new Board(boardEl, { small: true, animate: false }).set({ board: data.board, lastMove: last, interactive: false });
      if (last) caption.textContent = t('rules.diagram_move', { move: last.text });
    } catch {
      figure.remove();
    }
  })();
  return figure;
}

/**
 * @param {HTMLElement} main
 * @param {string[]} params
 */
export async function render(main, [which]) {
  if (!GAME_KINDS.includes(/** @type {GameKind} */ (which))) {
    renderIndex(main);
    return;
  }
  const kind = /** @type {GameKind} */ (which);
  setRulesContext(kind);
  setTitle(t('rules.title', { game: gameName(kind) }));
  const tabs = h('nav', { class: 'tabs', 'aria-label': t('nav.rules') },
    ...GAME_KINDS.map((k) => h('a', { href: `/rules/${k}`, class: 'tab', 'aria-current': k === kind ? 'page' : null }, gameName(k))));
  const boardEl = h('div');
  const figure = h('figure', { class: 'rules__diagram' }, boardEl, h('figcaption', { class: 'small muted' }, t('rules.start_caption')));
  main.append(h('article', { class: 'card rules' },
    tabs,
    h('h1', null, t('rules.title', { game: gameName(kind) })),
    h('div', { class: 'rules__body' },
      figure,
      h('ol', { class: 'rules__list' }, ...RULES[kind].map((key) => h('li', null,
        h('p', null, t(key)),
        DIAGRAMS[key] ? diagram(DIAGRAMS[key]) : null))))));
  try {
    const data = await (await fetch(`/data/${kind}-start.json`)).json();
    new Board(boardEl, { small: true }).set({ board: data.board, interactive: false });
  } catch {
    figure.remove();
  }
}

/**
 * `/rules`: the three games, each with its start position, what it is in a line, and a
 * link to its rules.
 * @param {HTMLElement} main
 */
function renderIndex(main) {
  setTitle(t('rules.index_title'));
  const cards = GAME_KINDS.map((kind) => {
    const boardEl = h('div');
    void (async () => {
      try {
        const data = await (await fetch(`/data/${kind}-start.json`)).json();
        new Board(boardEl, { small: true }).set({ board: data.board, interactive: false });
      } catch {
        boardEl.remove();
      }
    })();
    return h('a', { class: 'card rules-index__game', href: `/rules/${kind}` },
      boardEl,
      h('h2', null, gameName(kind)),
      h('p', null, t(SUMMARY_KEYS[kind])),
      h('span', { class: 'small' }, t('rules.read', { game: gameName(kind) })));
  });
  main.append(h('section', { class: 'stack' },
    h('h1', null, t('rules.index_title')),
    h('p', { class: 'muted' }, t('rules.index_intro')),
    h('div', { class: 'rules-index' }, ...cards)));
}
