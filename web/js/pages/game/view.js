// The game page drawn from its state (ctrl.js): the board, both players and clocks, the
// pieces each side lost, the moves, the actions, the result in words, the watchers and
// the chat. DOM only: what a message or a click does to the game is the ctrl's; this
// draws the part the ctrl names (`redraw`), and its buttons call the ctrl.
import { h, confirmDialog, setTitle, timeControlText, copyLink, formatDate, analysisAddress } from '../../ui.js';
import { t } from '../../i18n.js';
import { api } from '../../api.js';
import { Board } from '../../board.js';
import { ClockPair } from '../../clock.js';
import { MoveList } from '../../movelist.js';
import { orientationFor } from '../../prefs.js';
import { gameName, sideName, resultWords } from '../../names.js';
import { playSound } from '../../sound.js';
import { conditionalPanel } from '../../conditional.js';
import { Chat } from '../../chat.js';
import { goalText, rulesHref } from '../../guide.js';
import { lostPieces, lostEl } from '../../captured.js';
import { isOver } from './ctrl.js';

/** @typedef {import('../../types.js').Side} Side */
/** @typedef {import('./ctrl.js').GameCtrl} GameCtrl */
/** @typedef {import('./ctrl.js').Part} Part */

/**
 * @param {Side} side
 * @returns {Side}
 */
const other = (side) => (side === 'first' ? 'second' : 'first');

/**
 * What the page's buttons do beyond the game socket.
 * @typedef {object} PageActions
 * @property {() => Promise<void>} join takes the open seat
 * @property {() => Promise<void>} rematch asks for (or agrees to) a rematch
 */

/**
 * Builds the game page in `main` and draws it from `ctrl`.
 * @param {HTMLElement} main
 * @param {GameCtrl} ctrl
 * @param {{sound: boolean, coordinates: boolean}} settings
 * @param {PageActions} page
 */
export function gameView(main, ctrl, settings, page) {
  const id = ctrl.game.id;
  const boardEl = h('div', { class: 'play__board-inner' });
  const board = new Board(boardEl, {
    t,
    names: { gameName, sideName },
    sound: settings.sound ? playSound : undefined,
    orientation: orientationFor(ctrl.game.you),
    coordinates: settings.coordinates,
    onMove: (move) => ctrl.choose(move),
    onPremove: (move) => ctrl.queuePremove(move),
  });
  const clocks = new ClockPair({ sound: () => settings.sound });
  const moveList = new MoveList((ply) => ctrl.browse(ply));

  const topBar = h('div', { class: 'player-bar' });
  const bottomBar = h('div', { class: 'player-bar' });
  const status = h('div', { class: 'stack', 'aria-live': 'polite' });
  const premoveNote = h('p', { class: 'muted small premove-note', id: 'premove-note', hidden: true });

  // A move typed as the move list writes it (`d1-d3`, `E10xE8xC8`).
  const moveText = /** @type {HTMLInputElement} */ (h('input', {
    type: 'text', id: 'move-text', autocomplete: 'off', autocapitalize: 'off', spellcheck: false, enterkeyhint: 'send',
    placeholder: t('play.type_placeholder', { example: ctrl.game.kind === 'camelot' ? 'F2-F4' : 'd1-d3' }),
  }));
  const moveError = h('p', { class: 'notice notice--error move-input__error', id: 'move-error', role: 'alert', hidden: true });
  const moveForm = h('form', { class: 'move-input', id: 'move-form', hidden: true },
    h('label', { class: 'visually-hidden', for: 'move-text' }, t('play.type_label')),
    moveText,
    h('button', { type: 'submit', class: 'btn btn--small' }, t('play.type_play')),
    moveError);
  moveForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const typed = ctrl.typed(moveText.value);
    const problem = typed && 'problem' in typed ? t(typed.problem.key, typed.problem.params) : '';
    moveError.hidden = !problem;
    moveError.textContent = problem;
    if (problem) return;
    moveText.value = '';
    if (typed && 'moves' in typed) {
      moveList.set(ctrl.game.moves, ctrl.game.moves.length);
      drawBoard();
      board.choose(typed.moves);
    }
  });
  moveText.addEventListener('input', () => { moveError.hidden = true; });

  // The correspondence move waiting for Confirm, over the board.
  const confirmBox = h('div', { class: 'move-confirm', id: 'move-confirm', role: 'group', hidden: true });
  function drawConfirm() {
    const move = ctrl.pending;
    confirmBox.hidden = !move;
    if (!move) return;
    confirmBox.replaceChildren(
      h('p', null, t('play.confirm_move', { move: move.text })),
      h('div', { class: 'btn-row' },
        h('button', { type: 'button', class: 'btn btn--primary', id: 'move-confirm-yes', onclick: () => ctrl.confirm(true) }, t('play.confirm_yes')),
        h('button', { type: 'button', class: 'btn', id: 'move-confirm-no', onclick: () => ctrl.confirm(false) }, t('common.cancel'))));
    /** @type {HTMLElement} */ (confirmBox.querySelector('#move-confirm-yes')).focus();
  }

  function drawPremoveNote() {
    premoveNote.hidden = !ctrl.premove;
    premoveNote.textContent = ctrl.premove ? t('play.premove_queued', { move: ctrl.premove.text }) : '';
  }
  const escape = (/** @type {KeyboardEvent} */ e) => {
    if (e.key !== 'Escape') return;
    if (ctrl.premove) board.cancelPremove();
    else if (ctrl.pending) /** @type {HTMLElement} */ (confirmBox.querySelector('#move-confirm-no')).click();
  };
  document.addEventListener('keydown', escape);
  const actions = h('div', { class: 'btn-row' });
  const watchers = h('p', { class: 'watchers' });
  const conn = h('p', { class: 'conn', role: 'status', hidden: true }, t('play.reconnecting'));
  const flipButton = h('button', { type: 'button', class: 'btn btn--small', onclick: () => { board.flip(); drawPlayers(); } }, t('play.flip'));
  const analyseLink = h('a', { class: 'btn btn--small', id: 'analyse', href: `/analysis?game=${encodeURIComponent(id)}` }, t('play.analyse'));
  const downloadLink = h('a', { class: 'btn btn--small', href: api.recordUrl(id), download: '' }, t('play.download'));
  const tools = h('div', { class: 'btn-row' });
  // The engine is kept out of a game until it ends (the server refuses it too).
  const drawTools = () => tools.replaceChildren(...(isOver(ctrl.game.status) ? [flipButton, analyseLink, downloadLink] : [flipButton, downloadLink]));

  const chat = new Chat((message) => ctrl.hooks.send(message));
  /** What this player (or, watching, each side) plays for, with the rules a click away. */
  const goal = h('p', { class: 'play__goal', id: 'game-goal' });
  const drawGoal = () => goal.replaceChildren(goalText(ctrl.game.kind, ctrl.game.you), ' ',
    h('a', { href: rulesHref(ctrl.game.kind), class: 'play__goal-rules' }, t('play.rules')));
  const boardBox = h('div', { class: 'play__board', dataset: { kind: ctrl.game.kind } }, topBar, boardEl, bottomBar, confirmBox);
  const game = ctrl.game;
  main.append(h('div', { class: 'play' },
    boardBox,
    h('aside', { class: 'play__side' },
      h('div', { class: 'card stack' },
        h('h1', { class: 'play__title' }, gameName(game.kind)),
        h('p', { class: 'muted small', id: 'game-facts' }, `${timeControlText(game.time_control)} · ${game.rated ? t('lobby.rated') : t('lobby.casual')}`,
          game.played_at ? ` · ${formatDate(game.played_at)}` : ''),
        goal, status, moveForm, premoveNote, actions, conn),
      moveList.el,
      tools,
      watchers,
      chat.el)));

  /** Conditional moves: for the players of a correspondence game going on. */
  /** @type {ReturnType<typeof conditionalPanel> | null} */
  let conditional = null;
  function drawConditional() {
    const g = ctrl.game;
    if (!conditional && g.you && g.correspondence && g.status === 'ongoing') {
      conditional = conditionalPanel(id, () => ctrl.game);
      watchers.before(conditional.el);
    }
    conditional?.refresh();
  }

  function drawPlayers() {
    const g = ctrl.game;
    const bottom = board.orientation;
    const view = ctrl.shownView();
    for (const [bar, side] of /** @type {Array<[HTMLElement, Side]>} */ ([[bottomBar, bottom], [topBar, other(bottom)]])) {
      const p = g.players.find((x) => x.side === side);
      // An open seat has no name yet; an imported record may give none.
      const name = p && p.ai ? t('common.ai_level', { level: p.ai }) : p?.name || (g.status === 'waiting' ? t('play.waiting_player') : '?');
      const nameEl = p && p.user && !p.ai
        ? h('a', { href: `/player/${encodeURIComponent(p.name)}`, class: 'player-bar__name' }, name)
        : h('span', { class: 'player-bar__name' }, name);
      const rating = p && p.rating ? h('span', { class: 'muted small' }, ` ${Math.round(p.rating)}${p.provisional ? '?' : ''}`) : null;
      // The pieces this side has lost, from the start to the position shown.
      const lost = g.start_board ? lostEl(g.kind, side, lostPieces(g.start_board, view, side)) : null;
      bar.replaceChildren(
        h('div', null, h('div', null, nameEl, rating), h('div', { class: 'player-bar__side' }, sideName(g.kind, side), g.you === side ? ` · ${t('play.you')}` : '', lost)),
        clocks.els[side]);
      bar.classList.toggle('is-to-move', g.status === 'ongoing' && g.board.to_move === side);
      bar.dataset.side = side;
    }
  }

  function drawBoard() {
    const frame = ctrl.frame();
    board.set(frame.state);
    // Analyse opens the position shown (the game's end unless browsing).
    analyseLink.href = analysisAddress(id, ctrl.shownPly(), ctrl.game.moves.length);
    boardBox.classList.toggle('is-browsing', frame.browsing);
    if (frame.play) board.play(frame.play);
    drawPremoveNote();
    moveForm.hidden = !(ctrl.game.you && ctrl.game.status === 'ongoing');
  }

  /** @type {ReturnType<typeof setInterval> | null} ticks the claim countdown */
  let countdown = null;
  function drawStatus() {
    // Someone is away: the countdown to the claim ticks every second.
    if (ctrl.claimAt.size > 0 && countdown === null) countdown = setInterval(drawStatus, 1000);
    if (ctrl.claimAt.size === 0 && countdown !== null) {
      clearInterval(countdown);
      countdown = null;
    }
    status.replaceChildren(...statusItems());
  }

  /** The status panel: the result or whose turn it is, the offers, the claims. */
  function statusItems() {
    const g = ctrl.game;
    const may = ctrl.mayDo();
    const items = [];
    if (g.status === 'finished' && g.result) {
      const words = resultWords(g.kind, g.result, g.ended_by);
      items.push(h('div', { class: 'result-banner', role: 'status' }, h('strong', null, words.headline), h('span', null, words.reason)));
    } else if (g.status === 'aborted') {
      const note = abortNote();
      items.push(h('div', { class: 'result-banner', role: 'status' }, h('strong', null, t('play.aborted')), note ? h('span', null, note) : null));
    } else if (g.status === 'waiting') {
      items.push(h('p', null, g.you ? t('play.waiting_opponent') : t('play.open_seat')));
      if (g.you) items.push(copyLink(location.href, 'game-link'));
    } else {
      const turn = sideName(g.kind, g.board.to_move);
      items.push(h('p', { class: 'play__turn' }, g.you === g.board.to_move ? t('play.your_turn') : t('play.turn', { side: turn })));
    }
    if (may.includes('draw_accept')) {
      items.push(offer(t('play.draw_offered'), 'draw_accept', 'draw_decline'));
    } else if (g.draw_offer && g.draw_offer === g.you) {
      items.push(h('p', { class: 'muted small' }, t('play.draw_sent')));
    }
    for (const { side, seconds } of ctrl.claims()) {
      if (seconds === null) {
        items.push(h('p', { class: 'muted small' }, t('play.player_left', { side: sideName(g.kind, side) })));
      } else if (seconds > 0) {
        items.push(h('p', { class: 'notice', id: 'claim-countdown', dataset: { seconds: String(seconds) } }, t('play.opponent_left', { seconds })));
      } else {
        items.push(h('div', { class: 'notice stack', id: 'claim' }, h('p', null, t('play.opponent_gone')),
          h('div', { class: 'btn-row' },
            h('button', { type: 'button', class: 'btn btn--small btn--primary', dataset: { action: 'claim_victory' }, onclick: () => ctrl.act('claim_victory') }, t('play.claim_victory')),
            h('button', { type: 'button', class: 'btn btn--small', dataset: { action: 'claim_draw' }, onclick: () => ctrl.act('claim_draw') }, t('play.claim_draw')))));
      }
    }
    if (g.you && g.status === 'ongoing' && g.takeback_request === g.you) {
      items.push(h('p', { class: 'notice', id: 'takeback-sent' }, t('play.takeback_sent')));
    }
    if (may.includes('takeback_accept')) items.push(offer(t('play.takeback_asked'), 'takeback_accept', 'takeback_decline'));
    return items;
  }

  /** Why the game was aborted, when this page saw it happen. */
  function abortNote() {
    const aborted = ctrl.aborted;
    if (aborted?.reason === 'no_first_move') return t('play.aborted_no_first_move', { side: sideName(ctrl.game.kind, aborted.by) });
    if (aborted?.reason === 'abandoned') return t('play.aborted_abandoned');
    return '';
  }

  /**
   * An offer from the opponent, with its two answers.
   * @param {string} question
   * @param {string} accept the message that accepts
   * @param {string} decline the message that declines
   */
  function offer(question, accept, decline) {
    return h('div', { class: 'notice stack' }, h('p', null, question),
      h('div', { class: 'btn-row' },
        h('button', { type: 'button', class: 'btn btn--small btn--primary', onclick: () => ctrl.act(accept) }, t('play.accept')),
        h('button', { type: 'button', class: 'btn btn--small', onclick: () => ctrl.act(decline) }, t('play.decline'))));
  }

  function drawActions() {
    const g = ctrl.game;
    const buttons = [];
    const may = ctrl.mayDo();
    if (g.status === 'waiting' && !g.you) {
      buttons.push(h('button', { type: 'button', class: 'btn btn--primary', id: 'join', onclick: page.join }, t('play.join')));
    }
    if (may.includes('abort')) buttons.push(action('abort', t('play.abort'), t('play.confirm_abort')));
    if (may.includes('resign')) buttons.push(action('resign', t('play.resign'), t('play.confirm_resign'), 'btn--danger'));
    if (may.includes('draw_offer')) buttons.push(action('draw_offer', t('play.offer_draw'), t('play.confirm_draw')));
    if (may.includes('takeback')) buttons.push(action('takeback', t('play.takeback'), t('play.confirm_takeback')));
    if (may.includes('give_time')) {
      // 15 seconds in a live game, a day in correspondence.
      const label = g.correspondence ? t('play.give_day') : t('play.give_seconds');
      buttons.push(h('button', { type: 'button', class: 'btn', dataset: { action: 'give_time' }, onclick: () => ctrl.act('give_time') }, label));
    }
    if (may.includes('rematch')) {
      buttons.push(h('button', { type: 'button', class: 'btn btn--primary', id: 'rematch', onclick: page.rematch }, t('play.rematch')));
    }
    if (isOver(g.status)) buttons.push(h('a', { class: 'btn', href: '/' }, t('play.new_game')));
    actions.replaceChildren(...buttons);
  }

  /**
   * A button that asks first, then sends its message.
   * @param {string} type the message's tag
   * @param {string} label
   * @param {string} question
   * @param {string} [cls]
   */
  function action(type, label, question, cls = '') {
    return h('button', {
      type: 'button', class: `btn ${cls}`, dataset: { action: type },
      onclick: async () => {
        if (await confirmDialog(question, label)) ctrl.act(type);
      },
    }, label);
  }

  const drawWatchers = () => { watchers.textContent = t('play.watchers', { count: ctrl.game.watchers }); };

  function drawAll() {
    const g = ctrl.game;
    setTitle(`${gameName(g.kind)} · ${g.players.map((p) => (p.ai ? t('common.ai_level', { level: p.ai }) : p.name || '?')).join(' – ')}`);
    drawPlayers();
    drawGoal();
    drawBoard();
    drawStatus();
    drawActions();
    drawTools();
    moveList.set(g.moves, ctrl.shownPly());
    clocks.sync(ctrl.shownClocks());
    drawWatchers();
    chat.setRooms(ctrl.chatRooms());
    main.dataset.status = g.status;
    main.dataset.rev = String(g.rev);
    drawConditional();
  }

  /** @type {Record<Part, () => void>} */
  const parts = {
    all: drawAll,
    board: () => {
      drawBoard();
      drawPlayers();
    },
    status: drawStatus,
    clocks: () => clocks.sync(ctrl.shownClocks()),
    watchers: drawWatchers,
    connection: () => {
      conn.hidden = ctrl.connected;
      main.dataset.connected = String(ctrl.connected);
    },
    premove: drawPremoveNote,
    confirm: drawConfirm,
    seat: () => board.flip(orientationFor(ctrl.game.you)),
  };

  return {
    chat,
    /** @param {Part} part */
    redraw(part) {
      parts[part]();
    },
    destroy() {
      if (countdown !== null) clearInterval(countdown);
      document.removeEventListener('keydown', escape);
      clocks.stop();
      moveList.destroy();
      board.destroy();
    },
  };
}
