// Rules: a page per game for players, in the reader's language, with the start position
// drawn (data made by the real rules: web/data/*-start.json, see web/tests/fixtures/make.sh)
// and a diagram for every rule point (web/data/rules-diagrams.json, checked with the real
// rules by crates/games/tests/rules_diagrams.rs; drawn by ../diagram.js).
import { h, setTitle } from '../ui.js';
import { t } from '../i18n.js';
import { Board } from '../board.js';
import { GAME_KINDS, gameName, sideName } from '../names.js';
import { SUMMARY_KEYS, setRulesContext } from '../guide.js';
import { diagram } from '../diagram.js';

/** @typedef {import('../types.js').GameKind} GameKind */

/** A diagram of the rules pages: its id in web/data/rules-diagrams.json and its caption's key. */
/** @typedef {[string, string]} DiagramRef */

/** Diagrams shared by Fetlar and Copenhagen, by rule. */
/** @type {Record<string, DiagramRef[]>} */
const TAFL = {
  move: [['tafl-move', 'rules.dia.tafl_move']],
  restricted: [['tafl-restricted', 'rules.dia.tafl_restricted']],
  capture: [['tafl-capture', 'rules.dia.tafl_capture'], ['tafl-capture-three', 'rules.dia.tafl_capture_three'], ['tafl-safe', 'rules.dia.tafl_safe']],
  hostile: [['tafl-hostile-corner', 'rules.dia.tafl_hostile_corner'], ['tafl-hostile-throne', 'rules.dia.tafl_hostile_throne'],
    ['tafl-hostile-throne-king', 'rules.dia.tafl_hostile_throne_king']],
  king_armed: [['tafl-king-armed', 'rules.dia.tafl_king_armed']],
  king_capture: [['tafl-king-capture', 'rules.dia.tafl_king_capture'], ['tafl-king-throne', 'rules.dia.tafl_king_throne'],
    ['tafl-king-beside-throne', 'rules.dia.tafl_king_beside_throne'], ['tafl-king-steps-in', 'rules.dia.tafl_king_steps_in'],
    ['tafl-king-edge', 'rules.dia.tafl_king_edge']],
  escape: [['tafl-escape', 'rules.dia.tafl_escape']],
  encirclement: [['tafl-encirclement', 'rules.dia.tafl_encirclement']],
  no_moves: [['tafl-no-moves', 'rules.dia.tafl_no_moves']],
};

/** The rules of each game in reading order (keys of the language files), each with its diagrams. */
/** @type {Record<GameKind, Array<[string, DiagramRef[]]>>} */
const RULES = {
  fetlar: [['rules.fetlar.intro', []], ['rules.tafl.board', []], ['rules.tafl.move', TAFL.move],
    ['rules.tafl.restricted', TAFL.restricted], ['rules.tafl.capture', TAFL.capture], ['rules.tafl.hostile', TAFL.hostile],
    ['rules.tafl.king_armed', TAFL.king_armed], ['rules.tafl.king_capture', TAFL.king_capture], ['rules.tafl.escape', TAFL.escape],
    ['rules.tafl.encirclement', TAFL.encirclement], ['rules.tafl.no_moves', TAFL.no_moves],
    ['rules.fetlar.repetition', [['tafl-repetition-fetlar', 'rules.dia.fetlar_repetition']]], ['rules.tafl.draws', []]],
  copenhagen: [['rules.copenhagen.intro', []], ['rules.tafl.board', []], ['rules.tafl.move', TAFL.move],
    ['rules.tafl.restricted', TAFL.restricted], ['rules.tafl.capture', TAFL.capture], ['rules.tafl.hostile', TAFL.hostile],
    ['rules.tafl.king_armed', TAFL.king_armed],
    ['rules.copenhagen.shieldwall', [['tafl-shieldwall', 'rules.dia.shieldwall'], ['tafl-shieldwall-corner', 'rules.dia.shieldwall_corner'],
      ['tafl-shieldwall-king', 'rules.dia.shieldwall_king']]],
    ['rules.tafl.king_capture', TAFL.king_capture], ['rules.tafl.escape', TAFL.escape],
    ['rules.copenhagen.fort', [['tafl-fort', 'rules.dia.fort']]], ['rules.tafl.encirclement', TAFL.encirclement],
    ['rules.tafl.no_moves', TAFL.no_moves],
    ['rules.copenhagen.repetition', [['tafl-repetition-copenhagen', 'rules.dia.copenhagen_repetition']]], ['rules.tafl.draws', []]],
  camelot: [['rules.camelot.intro', []], ['rules.camelot.board', []],
    ['rules.camelot.plain', [['camelot-plain', 'rules.dia.camelot_plain']]],
    ['rules.camelot.canter', [['camelot-canter', 'rules.dia.camelot_canter']]],
    ['rules.camelot.jump', [['camelot-jump', 'rules.dia.camelot_jump']]],
    ['rules.camelot.charge', [['camelot-charge', 'rules.dia.camelot_charge']]],
    ['rules.camelot.compulsory', [['camelot-compulsory', 'rules.dia.camelot_compulsory']]],
    ['rules.camelot.castle_enemy', [['camelot-castle-enter', 'rules.dia.camelot_castle_enter'], ['camelot-castle-move', 'rules.dia.camelot_castle_move']]],
    ['rules.camelot.castle_own', [['camelot-own-castle', 'rules.dia.camelot_own_castle']]],
    ['rules.camelot.win', [['camelot-win-castle', 'rules.dia.camelot_win_castle'], ['camelot-win-capture', 'rules.dia.camelot_win_capture']]],
    ['rules.camelot.draws', []]],
};

/**
 * @param {string} path
 * @returns {Promise<any>}
 */
async function getJson(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
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
  /** @type {Array<[HTMLElement, DiagramRef[]]>} each rule's slot for its diagrams */
  const slots = [];
  const list = h('ol', { class: 'rules__list' }, ...RULES[kind].map(([key, diagrams]) => {
    const slot = h('div', { class: 'rules__diagrams' });
    slots.push([slot, diagrams]);
    return h('li', { dataset: { rule: key } }, h('p', null, t(key)), diagrams.length ? slot : null);
  }));
  main.append(h('article', { class: 'card rules' },
    tabs,
    h('h1', null, t('rules.title', { game: gameName(kind) })),
    h('div', { class: 'rules__body' }, figure, list)));
  /** @type {import('../types.js').BoardView} */
  let geo;
  try {
    const data = await getJson(`/data/${kind}-start.json`);
    geo = data.board;
    new Board(boardEl, { t, names: { gameName, sideName }, small: true }).set({ board: geo, interactive: false });
  } catch {
    figure.remove();
    return;
  }
  try {
    /** @type {{diagrams: Record<string, import('../diagram.js').DiagramSpec>}} */
    const data = await getJson('/data/rules-diagrams.json');
    // The squares and their marks, without the start position's pieces.
    const empty = { ...geo, cells: geo.cells.map((c) => ({ ...c, piece: null })) };
    for (const [slot, diagrams] of slots) {
      slot.append(...diagrams.map(([id, caption]) => diagram(id, data.diagrams[id], empty, t(caption))));
    }
    main.dataset.diagrams = String(main.querySelectorAll('.kt-diagram').length);
  } catch (error) {
    for (const [slot] of slots) slot.remove();
    main.dataset.diagrams = `error: ${error instanceof Error ? error.message : String(error)}`;
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
        new Board(boardEl, { t, names: { gameName, sideName }, small: true }).set({ board: data.board, interactive: false });
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
