// Analysis: any position (a game's, a pasted position string, or the start) with the
// engine's evaluation bar, its best lines (three, each with its evaluation) and depth
// updating while it thinks, and its moves drawn as arrows; moves can be tried on the
// board. The address holds the position and the line (`/analysis?kind=…&position=…&
// moves=…&ply=…`, or `?game=…&ply=…`), so it can be shared or bookmarked. A finished
// game gets a computer review: the evaluation over the whole game with mistakes and
// blunders marked.
import { h, errorNotice, errorText, errorCodeText, setTitle, toast, copyLink } from '../ui.js';
import { t } from '../i18n.js';
import { api, ApiError } from '../api.js';
import { Socket } from '../socket.js';
import { Board, pieceSvg } from '../board.js';
import { MoveList } from '../movelist.js';
import { prefs } from '../prefs.js';
import { GAME_KINDS, gameName, sideName } from '../names.js';
import { lineChart, scoreToUnit, scoreText, negate } from '../chart.js';
import { positionString } from '../position.js';
import { playSound } from '../sound.js';

/** @typedef {import('../types.js').GameKind} GameKind */
/** @typedef {import('../types.js').Score} Score */
/** @typedef {import('../types.js').PlayedMove} PlayedMove */
/** @typedef {{ply: number, score: Score, best: string, class: "mistake" | "blunder" | null}} ReviewPly */

/** How many of the engine's best lines are shown. */
const LINES = 3;
/** How many moves of each line are listed. */
const LINE_MOVES = 10;

/** @param {HTMLElement} main */
export async function render(main) {
  setTitle(t('analysis.title'));
  const params = new URLSearchParams(location.search);
  const gameId = params.get('game');
  /** @type {GameKind} */
  let kind = /** @type {GameKind} */ (params.get('kind') ?? 'copenhagen');
  if (!GAME_KINDS.includes(kind)) kind = 'copenhagen';
  let start = params.get('position') ?? '';
  /** @type {string[]} every move of the line being looked at (`moves`: space-separated) */
  let line = (params.get('moves') ?? '').split(/\s+/).filter(Boolean);
  /** the ply shown (`ply`; the whole line when absent) */
  const askedPly = params.has('ply') ? Number(params.get('ply')) : null;
  let ply = askedPly !== null && Number.isInteger(askedPly) ? Math.max(0, Math.min(line.length, askedPly)) : line.length;
  /** @type {string[]} the game's own moves (a line that differs is written in the address) */
  let gameLine = [];
  let finishedGame = false;
  /** @type {Awaited<ReturnType<typeof api.position>> | null} */
  let current = null;
  let analysing = false;
  /**
   * The tag of the latest request to the engine (an analysis, a review): answers carry
   * their request's tag, and those to an older one (a position left, an analysis
   * stopped) are dropped, never shown.
   */
  let job = 0;
  /** @type {import('../types.js').BoardView | null} the position on the board now */
  let shownView = null;
  /** @type {Map<number, ReviewPly>} */
  const review = new Map();
  /** 1 when the game's first move was the second player's (the move list starts with `1…`) */
  let firstOffset = 0;
  /** whether the review has come in whole */
  let reviewDone = false;

  const settings = prefs();
  const boardEl = h('div');
  const board = new Board(boardEl, {
    t,
    names: { gameName, sideName },
    coordinates: settings.coordinates,
    sound: settings.sound ? playSound : undefined,
    onMove: (move) => {
      line = [...line.slice(0, ply), move.text];
      ply = line.length;
      void load();
    },
  });
  const moveList = new MoveList((p) => {
    ply = p;
    void load();
  });

  const evalFill = h('div', { class: 'eval-bar__fill' });
  // Even until the engine says otherwise; set through the CSSOM (a style attribute would
  // break the site's Content-Security-Policy, style-src 'self').
  evalFill.style.height = '50%';
  const evalText = h('div', { class: 'eval-bar__text' }, '0.00');
  const evalBar = h('div', { class: 'eval-bar', dataset: { kind }, role: 'meter', 'aria-label': t('analysis.evaluation'), 'aria-valuemin': '-1', 'aria-valuemax': '1', 'aria-valuenow': '0' }, evalFill, evalText);
  const depthEl = h('span', { id: 'depth' }, '–');
  const scoreEl = h('span', { id: 'score' }, '–');
  const nodesEl = h('span', { class: 'muted small' });
  const pvEl = h('ol', { class: 'pv-lines', id: 'pv-lines', 'aria-label': t('analysis.lines') }, h('li', null, '–'));
  const shareBox = h('div', { class: 'stack', id: 'share' });
  const engineButton = h('button', { type: 'button', class: 'btn btn--primary', id: 'engine-toggle', 'aria-pressed': 'false', onclick: () => toggleEngine() }, t('analysis.start'));
  const status = h('div', { 'aria-live': 'polite' });
  const reviewBox = h('div', { class: 'stack', id: 'review' });

  const kindSelect = h('select', { id: 'a-kind' }, ...GAME_KINDS.map((k) => new Option(gameName(k), k, false, k === kind)));
  const positionInput = h('textarea', { id: 'a-position', rows: 3, spellcheck: false, placeholder: t('analysis.position_placeholder') });
  positionInput.value = start;
  const setup = h('form', { class: 'stack' },
    h('div', { class: 'field' }, h('label', { for: 'a-kind' }, t('archive.game')), kindSelect),
    h('div', { class: 'field' }, h('label', { for: 'a-position' }, t('analysis.position')), positionInput),
    h('div', { class: 'btn-row' },
      h('button', { type: 'submit', class: 'btn' }, t('analysis.load')),
      h('button', { type: 'button', class: 'btn btn--quiet', onclick: () => { positionInput.value = ''; setup.requestSubmit(); } }, t('analysis.from_start')),
      h('button', { type: 'button', class: 'btn btn--quiet', id: 'edit-start', onclick: () => startEditing() }, t('analysis.edit'))));

  // --- setting up a position on the board ------------------------------------------
  const editor = h('div', { class: 'card stack', hidden: true, id: 'editor' });
  /** @type {import('../types.js').BoardView | null} */
  let editView = null;
  /** @type {string} the piece placed by a click: "side-kind", or "" to empty a square */
  let tool = '';

  function startEditing() {
    const base = shownView;
    if (!base || base.kind !== kind) return;
    editView = { ...base, cells: base.cells.slice() };
    /** @type {Array<[string, string]>} */
    const tools = kind === 'camelot'
      ? [['first-knight', 'piece.white_knight'], ['first-man', 'piece.white_man'], ['second-knight', 'piece.black_knight'], ['second-man', 'piece.black_man']]
      : [['first-attacker', 'piece.attacker'], ['second-defender', 'piece.defender'], ['second-king', 'piece.king']];
    tool = tools[0][0];
    const palette = h('div', { class: 'palette', role: 'radiogroup', 'aria-label': t('analysis.palette') });
    for (const [value, key] of [...tools, ['', 'analysis.eraser']]) {
      const id = `tool-${value || 'eraser'}`;
      const icon = h('span', { class: 'palette__icon', 'aria-hidden': 'true' });
      if (value) {
        const [side, piece] = value.split('-');
        icon.innerHTML = `<svg viewBox="0 0 100 100">${pieceSvg(/** @type {any} */ (side), /** @type {any} */ (piece))}</svg>`;
      } else icon.textContent = '✕';
      palette.append(
        h('input', { type: 'radio', name: 'tool', id, value, checked: value === tool, onchange: () => { tool = value; } }),
        h('label', { for: id, title: t(key) }, icon, h('span', { class: 'visually-hidden' }, t(key))));
    }
    const side = h('select', { id: 'edit-side' },
      new Option(sideName(kind, 'first'), 'first', false, editView.to_move === 'first'),
      new Option(sideName(kind, 'second'), 'second', false, editView.to_move === 'second'));
    editor.replaceChildren(
      h('h2', null, t('analysis.edit')),
      h('p', { class: 'muted small' }, t('analysis.edit_intro')),
      palette,
      h('div', { class: 'field' }, h('label', { for: 'edit-side' }, t('analysis.to_move')), side),
      h('div', { class: 'btn-row' },
        h('button', { type: 'button', class: 'btn btn--primary', id: 'edit-done', onclick: () => {
          if (!editView) return;
          editView = { ...editView, to_move: /** @type {import('../types.js').Side} */ (side.value) };
          positionInput.value = positionString(editView);
          stopEditing();
          setup.requestSubmit();
        } }, t('analysis.use_position')),
        h('button', { type: 'button', class: 'btn', onclick: () => { stopEditing(); void load(); } }, t('common.cancel'))));
    editor.hidden = false;
    showEdit();
  }

  function showEdit() {
    if (!editView) return;
    board.set({
      board: editView, legalMoves: [], interactive: false, animate: false,
      edit: (sq) => {
        if (!editView) return;
        const i = sq.rank * editView.files + sq.file;
        const cell = editView.cells[i];
        const same = cell.piece && `${cell.piece[0]}-${cell.piece[1]}` === tool;
        const piece = !tool || same ? null : /** @type {[any, any]} */ (tool.split('-'));
        editView.cells[i] = { ...cell, piece };
        showEdit();
      },
    });
  }

  function stopEditing() {
    editView = null;
    editor.hidden = true;
  }
  setup.addEventListener('submit', (e) => {
    e.preventDefault();
    kind = /** @type {GameKind} */ (kindSelect.value);
    start = positionInput.value.trim();
    line = [];
    ply = 0;
    finishedGame = false;
    review.clear();
    reviewDone = false;
    drawReview();
    void load();
  });

  main.append(h('div', { class: 'analysis' },
    h('div', { class: 'analysis__main' }, evalBar, h('div', { class: 'play__board', dataset: { kind } }, boardEl)),
    h('aside', { class: 'analysis__side play__side' },
      h('div', { class: 'card stack' },
        h('h1', null, t('analysis.title')),
        h('div', { class: 'btn-row' }, engineButton, h('button', { type: 'button', class: 'btn', onclick: () => board.flip() }, t('play.flip'))),
        h('p', null, t('analysis.depth'), ' ', depthEl, ' · ', t('analysis.score'), ' ', scoreEl, ' ', nodesEl),
        h('div', { class: 'stack' }, h('span', { class: 'muted small' }, t('analysis.best_lines')), pvEl),
        status,
        h('div', null, h('span', { class: 'muted small' }, t('analysis.share')), shareBox)),
      moveList.el,
      h('details', { class: 'card', open: !gameId }, h('summary', null, h('strong', null, t('analysis.setup'))), setup),
      editor,
      reviewBox)));

  const socket = new Socket('/ws/analysis', {
    onMessage: (msg) => {
      if (typeof msg.id === 'number' && msg.id !== job) return;
      if (msg.t === 'info') showInfo(msg);
      else if (msg.t === 'done') {
        analysing = false;
        drawEngineButton();
      } else if (msg.t === 'review_ply') {
        review.set(msg.ply, msg);
        drawReview();
      } else if (msg.t === 'review_done') {
        reviewDone = true;
        drawReview();
      } else if (msg.t === 'error') {
        analysing = false;
        drawEngineButton();
        status.replaceChildren(h('p', { class: 'notice notice--error' }, errorCodeText(String(msg.code ?? ''))));
      }
    },
  });

  /**
   * A line's score as the bar shows it (for the first player).
   * @param {Score} score for the side to move
   */
  function forFirst(score) {
    return current && current.board.to_move === 'second' ? negate(score) : score;
  }

  /**
   * The engine's lines: listed with their evaluations (a click on one plays its first
   * move), and their first moves drawn as arrows, the best boldest.
   * @param {Array<{score: Score, pv: string[]}>} lines
   */
  function showLines(lines) {
    if (!current) return;
    const legal = current.legal_moves;
    pvEl.replaceChildren(...lines.map((l, i) => h('li', { dataset: { line: String(i + 1) } },
      h('span', { class: 'pv-lines__score' }, scoreText(forFirst(l.score))),
      h('span', { class: 'pv-lines__moves' },
        h('button', { type: 'button', dataset: { move: l.pv[0] ?? '' }, 'aria-label': t('analysis.play_line', { move: l.pv[0] ?? '' }), onclick: () => {
          const move = legal.find((m) => m.text === l.pv[0]);
          if (move) board.play(move);
        } }, l.pv[0] ?? ''),
        l.pv.length > 1 ? ` ${l.pv.slice(1, LINE_MOVES).join(' ')}${l.pv.length > LINE_MOVES ? ' …' : ''}` : ''))));
    if (!lines.length) pvEl.replaceChildren(h('li', null, '–'));
    /** @type {import('../board.js').BoardArrow[]} */
    const arrows = [];
    lines.forEach((l, i) => {
      const move = legal.find((m) => m.text === l.pv[0]);
      if (move && !arrows.some((a) => a.move.text === move.text)) arrows.push({ move, best: i === 0 });
    });
    board.setArrows(arrows);
  }

  /** @param {{depth: number, score: Score, nodes?: number, nps?: number, pv?: string[], lines?: Array<{score: Score, pv: string[]}>}} info */
  function showInfo(info) {
    if (!current) return;
    // Engines score for the side to move; the bar shows the first player's side.
    const forFirst = current.board.to_move === 'first' ? info.score : negate(info.score);
    const unit = scoreToUnit(forFirst);
    evalFill.style.height = `${((unit + 1) / 2) * 100}%`;
    evalText.textContent = scoreText(forFirst);
    evalBar.setAttribute('aria-valuenow', unit.toFixed(2));
    evalBar.setAttribute('aria-valuetext', t('analysis.for_side', { score: scoreText(forFirst), side: sideName(kind, 'first') }));
    depthEl.textContent = String(info.depth);
    scoreEl.textContent = scoreText(forFirst);
    nodesEl.textContent = info.nps ? t('analysis.speed', { nps: Math.round(info.nps / 1000) }) : '';
    showLines(info.lines?.length ? info.lines : info.pv?.length ? [{ score: info.score, pv: info.pv }] : []);
  }

  /**
   * Writes the position in the address (without a new history entry), and offers it to
   * copy: a game and the ply shown, or the kind, the start position, the line and the
   * ply.
   */
  function share() {
    const query = new URLSearchParams();
    const ofGame = !!gameId && finishedGame;
    if (ofGame) query.set('game', /** @type {string} */ (gameId));
    else {
      query.set('kind', kind);
      if (start) query.set('position', start);
    }
    const sameAsGame = ofGame && line.length === gameLine.length && line.every((m, i) => m === gameLine[i]);
    if (line.length && !sameAsGame) query.set('moves', line.join(' '));
    if (ply !== line.length) query.set('ply', String(ply));
    const address = `/analysis?${query}`;
    if (location.pathname === '/analysis' && location.pathname + location.search !== address) history.replaceState(history.state, '', address);
    shareBox.replaceChildren(copyLink(new URL(address, location.href).href, 'analysis-link'));
  }

  function drawEngineButton() {
    engineButton.textContent = analysing ? t('analysis.stop') : t('analysis.start');
    engineButton.setAttribute('aria-pressed', String(analysing));
  }

  function analyse() {
    if (!current) return;
    job += 1;
    socket.send({ t: 'analyze', id: job, kind, position: start, moves: line.slice(0, ply), time_ms: 30000, lines: LINES });
  }

  function toggleEngine() {
    analysing = !analysing;
    if (analysing) analyse();
    else {
      // What the stopped analysis still says is of no use: the position may change.
      job += 1;
      socket.send({ t: 'stop' });
    }
    drawEngineButton();
  }

  /**
   * A line the rules stop part-way (an address written by hand, or cut): finds its first
   * move that is not legal, keeps the line before it, and says which. False when the
   * position itself does not load.
   */
  async function cutLine() {
    try {
      await api.position(kind, start, []);
    } catch {
      return false;
    }
    let good = 0;
    let bad = ply;
    while (bad - good > 1) {
      const middle = Math.floor((good + bad) / 2);
      try {
        await api.position(kind, start, line.slice(0, middle));
        good = middle;
      } catch {
        bad = middle;
      }
    }
    const wrong = line[bad - 1];
    line = line.slice(0, good);
    ply = good;
    await load();
    status.replaceChildren(h('p', { class: 'notice notice--error', id: 'bad-line', role: 'alert' }, t('analysis.bad_move', { number: bad, move: wrong })));
    return true;
  }

  async function load() {
    if (analysing) {
      // The position is about to change: what the engine still says of the old one is
      // dropped from now on, not only once the new position has come back.
      job += 1;
      showLines([]);
    }
    try {
      current = await api.position(kind, start, line.slice(0, ply));
    } catch (error) {
      if (ply > 0 && error instanceof ApiError && error.status === 400 && await cutLine()) return;
      status.replaceChildren(errorNotice(error));
      // Still show the start position (drawn from the rules' own data) if that is asked.
      if (!start && ply === 0) {
        try {
          const data = await (await fetch(`/data/${kind}-start.json`)).json();
          shownView = data.board;
          board.set({ board: data.board, interactive: false });
        } catch {
          // Nothing to show.
        }
      }
      return;
    }
    status.replaceChildren();
    evalBar.dataset.kind = kind;
    shownView = current.board;
    showLines([]);
    share();
    const moves = current.moves;
    board.set({
      board: current.board,
      legalMoves: current.legal_moves,
      lastMove: moves.length ? moves[moves.length - 1] : null,
      interactive: current.legal_moves.length > 0,
    });
    // The list shows the whole line; the board shows the ply chosen in it.
    /** @type {PlayedMove[]} */
    const listed = line.map((text, i) => moves[i] ?? { text, ply: i + 1, player: i % 2 === 0 ? 'first' : 'second', from: { file: 0, rank: 0 }, to: { file: 0, rank: 0 }, path: [], captures: [] });
    moveList.set(listed, ply);
    // A new analysis replaces the one under way (whose late lines are dropped).
    if (analysing) analyse();
    drawReview();
  }

  /**
   * The move number of a ply, as the move list numbers it (a move of each side to a
   * number; a game whose first move is the second player's starts with theirs).
   * @param {number} p
   */
  function moveNumber(p) {
    return Math.floor((p - 1 + firstOffset) / 2) + 1;
  }

  /**
   * A ply as the move list shows it: `12. d1-d3` for the first player's move, `12… f11-f9`
   * for the second's.
   * @param {number} p
   */
  function moveLabel(p) {
    const second = (p - 1 + firstOffset) % 2 === 1;
    return `${moveNumber(p)}${second ? '…' : '.'} ${line[p - 1] ?? ''}`;
  }

  function drawReview() {
    const done = reviewDone;
    reviewBox.dataset.done = String(done);
    if (!gameId || !finishedGame) {
      reviewBox.replaceChildren();
      return;
    }
    const items = [...review.values()].sort((a, b) => a.ply - b.ply);
    const header = h('div', { class: 'btn-row' },
      h('h2', null, t('analysis.review')),
      items.length ? null : h('button', {
        type: 'button', class: 'btn btn--primary', id: 'review-start', onclick: () => {
          // The review replaces an analysis under way (one run per socket).
          job += 1;
          analysing = false;
          drawEngineButton();
          socket.send({ t: 'review', id: job, game: gameId });
          reviewBox.append(h('p', { class: 'muted small' }, t('analysis.reviewing')));
        },
      }, t('analysis.review_start')));
    if (!items.length) {
      reviewBox.replaceChildren(h('div', { class: 'card stack' }, header, h('p', { class: 'muted small' }, t('analysis.review_intro'))));
      return;
    }
    const chart = lineChart({
      points: items.map((r) => ({
        x: r.ply, y: scoreToUnit(r.score), mark: r.class,
        title: `${moveLabel(r.ply)} ${scoreText(r.score)}${r.class ? ` (${t(r.class === 'blunder' ? 'analysis.blunder' : 'analysis.mistake')})` : ''}`,
      })),
      yMin: -1, yMax: 1, area: true, cursor: ply,
      label: t('analysis.graph_label', { side: sideName(kind, 'first') }),
      yTick: (y) => (y > 0 ? sideName(kind, 'first') : y < 0 ? sideName(kind, 'second') : '='),
      xTick: (x) => String(moveNumber(x)),
      onSelect: (i) => {
        ply = items[i].ply;
        void load();
      },
    });
    const flagged = items.filter((r) => r.class);
    const list = h('ul', { class: 'small' }, ...flagged.map((r) => h('li', null,
      h('button', { type: 'button', class: 'btn btn--small btn--quiet review__move', dataset: { ply: String(r.ply) }, onclick: () => { ply = r.ply; void load(); } },
        moveLabel(r.ply)),
      ` ${t(r.class === 'blunder' ? 'analysis.blunder' : 'analysis.mistake')} · ${t('analysis.better', { move: r.best })}`)));
    const count = (/** @type {string} */ c) => flagged.filter((r) => r.class === c).length;
    reviewBox.replaceChildren(h('div', { class: 'card stack' }, header, chart,
      h('p', { class: 'small' }, t('analysis.summary', {
        mistakes: t('analysis.mistakes', { count: count('mistake') }),
        blunders: t('analysis.blunders', { count: count('blunder') }),
      }), done ? '' : ` · ${t('analysis.reviewing')}`),
      flagged.length ? list : null));
  }

  /** @type {HTMLElement | null} why the game asked for is not shown */
  let refused = null;
  if (gameId) {
    try {
      const game = await api.game(gameId);
      kind = game.kind;
      kindSelect.value = kind;
      if (game.status === 'ongoing' || game.status === 'waiting') {
        // Kept out of analysis until it ends (the server refuses it too).
        refused = h('p', { class: 'notice notice--error', id: 'analysis-refused', role: 'alert' }, errorCodeText('game_in_progress'));
      } else {
        start = game.start_position ?? '';
        positionInput.value = start;
        gameLine = game.moves.map((m) => m.text);
        // A line tried from the game (`moves`) is the one shown; else the game's.
        if (!params.has('moves')) line = gameLine;
        firstOffset = game.moves[0]?.player === 'second' ? 1 : 0;
        ply = askedPly !== null && Number.isInteger(askedPly) ? Math.max(0, Math.min(line.length, askedPly)) : line.length;
        finishedGame = game.status === 'finished';
      }
    } catch (error) {
      toast(errorText(error));
    }
  }
  await load();
  if (refused) status.replaceChildren(refused);
  return {
    destroy() {
      socket.close();
      moveList.destroy();
      board.destroy();
    },
  };
}
