// A game: the board, both players and clocks, the pieces each side lost, the moves, the
// actions (resign, draw, takeback against the AI, abort, rematch), the result in words,
// and the watchers. A move may be typed (as the move list writes it), queued as a
// premove in a live game while the opponent thinks, or held for confirmation in a
// correspondence game (a setting). The game socket keeps it live and catches up after a
// dropped connection.
import { h, toast, confirmDialog, errorNotice, errorText, errorCodeText, refusalText, setTitle, timeControlText, copyLink, formatDate, analysisAddress } from '../ui.js';
import { t } from '../i18n.js';
import { api } from '../api.js';
import { Socket } from '../socket.js';
import { Board } from '../board.js';
import { ClockPair } from '../clock.js';
import { MoveList } from '../movelist.js';
import { boardAt } from '../replay.js';
import { prefs, orientationFor } from '../prefs.js';
import { gameName, sideName, resultWords } from '../names.js';
import { ensurePlayer } from '../app.js';
import { navigate } from '../router.js';
import { playSound } from '../sound.js';
import { conditionalPanel } from '../conditional.js';
import { Chat } from '../chat.js';
import { goalText, rulesHref, setRulesContext } from '../guide.js';
import { positionString } from '../position.js';
import { lostPieces, lostEl } from '../captured.js';
import { withPieces, movesOf } from '../wire.js';

/** @typedef {import('../types.js').GameState} GameState */
/** @typedef {import('../types.js').Side} Side */
/** @typedef {import('../types.js').EventsMessage} EventsMessage */
/** @typedef {import('../types.js').GameSocketMessage} GameSocketMessage */

/**
 * @param {Side} side
 * @returns {Side}
 */
const other = (side) => (side === 'first' ? 'second' : 'first');

/**
 * Whether a game has ended (and may be analysed).
 * @param {import('../types.js').GameStatus} status
 */
const isOver = (status) => status === 'finished' || status === 'aborted';

/** @typedef {import('../types.js').MoveInfo} MoveInfo */

/**
 * The squares a move goes through, as the move list names them: its path (a Camelot
 * canter or jump sequence), else its start and end.
 * @param {MoveInfo} m
 * @param {import('../types.js').BoardView} view
 */
const squaresOf = (m, view) => (m.path.length > 1 ? m.path : [m.from, m.to])
  .map((sq) => `${view.file_names[sq.file]}${view.rank_names[sq.rank]}`.toLowerCase());

/**
 * The moves among `moves` that `typed` names: its text (any case), or its squares in
 * order — start and end, the whole path, or start, end and the captures, as
 * `h6-h8xg8` — with `-`, `x` or spaces between them. `null` when `typed` is not written
 * as squares of this board.
 * @param {string} typed
 * @param {MoveInfo[]} moves
 * @param {import('../types.js').BoardView} view
 * @returns {MoveInfo[] | null}
 */
export function movesNamed(typed, moves, view) {
  const text = typed.trim().toLowerCase();
  const squares = text.split(/[\s,>x×:-]+/).filter(Boolean);
  const names = new Set();
  for (const f of view.file_names) for (const r of view.rank_names) names.add(`${f}${r}`.toLowerCase());
  if (squares.length < 2 || !squares.every((sq) => names.has(sq))) return null;
  const exact = moves.filter((m) => m.text.toLowerCase() === text);
  if (exact.length) return exact;
  const key = squares.join(' ');
  return moves.filter((m) => {
    const path = squaresOf(m, view);
    const ends = [path[0], path[path.length - 1]];
    const captures = m.captures.map((sq) => `${view.file_names[sq.file]}${view.rank_names[sq.rank]}`.toLowerCase());
    return [path, ends, [...ends, ...captures]].some((line) => line.join(' ') === key);
  });
}

/**
 * The move of `moves` that a queued premove is: the same text, else the only one with
 * its squares (the captures it makes may differ from those foreseen).
 * @param {MoveInfo} queued
 * @param {MoveInfo[]} moves
 */
function premoveNow(queued, moves) {
  const same = moves.find((m) => m.text === queued.text);
  if (same) return same;
  const at = (/** @type {import('../types.js').Square[]} */ path) => path.map((sq) => `${sq.file}.${sq.rank}`).join(' ');
  const path = at(queued.path.length > 1 ? queued.path : [queued.from, queued.to]);
  const found = moves.filter((m) => at(m.path.length > 1 ? m.path : [m.from, m.to]) === path);
  return found.length === 1 ? found[0] : null;
}

/**
 * @param {HTMLElement} main
 * @param {string[]} params
 */
export async function render(main, [id]) {
  setTitle(t('play.title'));
  /** @type {GameState} */
  let game;
  try {
    game = await api.game(id);
  } catch (error) {
    main.append(h('div', { class: 'card' }, h('h1', null, t('play.title')), errorNotice(error)));
    return;
  }

  setRulesContext(game.kind);
  const settings = prefs();
  /** @type {number | null} the ply shown while browsing earlier positions (null: live) */
  let browsing = null;
  let connected = true;
  /** @type {Map<Side, number>} when (performance.now()) a claim against each absent player opens */
  const claimAt = new Map();
  /** @type {ReturnType<typeof setInterval> | null} ticks the claim countdown */
  let countdown = null;
  /** @type {string} why the game was aborted, when this page saw it happen */
  let abortNote = '';

  /**
   * Takes the absent players from the server (`state`'s `absent`, or an `absent`
   * message) and runs the countdown while someone is away.
   * @param {import('../types.js').Absence[] | undefined} absent
   */
  function setAbsent(absent) {
    claimAt.clear();
    const now = performance.now();
    for (const a of absent ?? []) claimAt.set(a.side, now + a.claim_in_ms);
    if (claimAt.size > 0 && countdown === null) countdown = setInterval(drawStatus, 1000);
    if (claimAt.size === 0 && countdown !== null) {
      clearInterval(countdown);
      countdown = null;
    }
  }
  setAbsent(game.absent);

  /** A live game (timed, not correspondence): premoves are offered. */
  const isLive = () => game.time_control !== 'untimed' && !/d$/.test(game.time_control);
  /** A correspondence game (DAYSd). */
  const isCorrespondence = () => /d$/.test(game.time_control);
  /** @type {MoveInfo | null} the move queued while the opponent is to move */
  let premove = null;
  /** @type {MoveInfo[]} the player's moves in the position now, were it their turn */
  let premoveMoves = [];
  /** which position `premoveMoves` are of */
  let premoveFor = '';
  /** @type {MoveInfo | null} a correspondence move shown, waiting for Confirm */
  let pending = null;

  const boardEl = h('div', { class: 'play__board-inner' });
  const board = new Board(boardEl, {
    orientation: orientationFor(game.you),
    coordinates: settings.coordinates,
    sound: settings.sound,
    onMove: (move) => {
      if (settings.confirmMoves && isCorrespondence()) {
        // Shown on the board; sent once confirmed.
        pending = move;
        drawConfirm();
        return;
      }
      sendMove(move);
    },
    onPremove: (move) => {
      premove = move;
      drawPremoveNote();
    },
  });
  /** @param {MoveInfo} move */
  function sendMove(move) {
    socket.send({ t: 'move', rev: game.rev, move: move.text });
  }
  const clocks = new ClockPair({ sound: () => settings.sound });
  let shownPly = game.moves.length;
  const moveList = new MoveList((ply) => {
    browsing = ply === game.moves.length ? null : ply;
    drawBoard();
    drawPlayers();
  });

  const topBar = h('div', { class: 'player-bar' });
  const bottomBar = h('div', { class: 'player-bar' });
  const status = h('div', { class: 'stack', 'aria-live': 'polite' });
  const premoveNote = h('p', { class: 'muted small premove-note', id: 'premove-note', hidden: true });

  // A move typed as the move list writes it (`d1-d3`, `E10xE8xC8`).
  const moveText = /** @type {HTMLInputElement} */ (h('input', {
    type: 'text', id: 'move-text', autocomplete: 'off', autocapitalize: 'off', spellcheck: false, enterkeyhint: 'send',
    placeholder: t('play.type_placeholder', { example: game.kind === 'camelot' ? 'F2-F4' : 'd1-d3' }),
  }));
  const moveError = h('p', { class: 'notice notice--error move-input__error', id: 'move-error', role: 'alert', hidden: true });
  const moveForm = h('form', { class: 'move-input', id: 'move-form', hidden: true },
    h('label', { class: 'visually-hidden', for: 'move-text' }, t('play.type_label')),
    moveText,
    h('button', { type: 'submit', class: 'btn btn--small' }, t('play.type_play')),
    moveError);
  moveForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const said = typedMove(moveText.value);
    moveError.hidden = !said;
    moveError.textContent = said;
    if (!said) moveText.value = '';
  });
  moveText.addEventListener('input', () => { moveError.hidden = true; });

  /**
   * Plays (or queues as a premove) the move `typed` names; the words of what is wrong
   * with it, or '' once it is played.
   * @param {string} typed
   */
  function typedMove(typed) {
    if (!typed.trim()) return '';
    const premoving = premoveAllowed();
    if (!myTurn() && !premoving) return t('play.type_not_turn');
    const legal = premoving ? premoveMoves : game.legal_moves;
    const found = movesNamed(typed, legal, game.board);
    if (found === null) return t('play.type_bad', { text: typed.trim(), example: legal[0]?.text ?? 'd1-d3' });
    if (!found.length) return t('play.type_illegal', { move: typed.trim() });
    browsing = null;
    moveList.set(game.moves, game.moves.length);
    drawBoard();
    board.choose(found);
    return '';
  }

  // The correspondence move waiting for Confirm, over the board.
  const confirmBox = h('div', { class: 'move-confirm', id: 'move-confirm', role: 'group', hidden: true });
  function drawConfirm() {
    confirmBox.hidden = !pending;
    if (!pending) return;
    const move = pending;
    confirmBox.replaceChildren(
      h('p', null, t('play.confirm_move', { move: move.text })),
      h('div', { class: 'btn-row' },
        h('button', { type: 'button', class: 'btn btn--primary', id: 'move-confirm-yes', onclick: () => {
          pending = null;
          drawConfirm();
          sendMove(move);
        } }, t('play.confirm_yes')),
        h('button', { type: 'button', class: 'btn', id: 'move-confirm-no', onclick: () => {
          pending = null;
          drawConfirm();
          drawBoard();
        } }, t('common.cancel'))));
    /** @type {HTMLElement} */ (confirmBox.querySelector('#move-confirm-yes')).focus();
  }

  function drawPremoveNote() {
    premoveNote.hidden = !premove;
    premoveNote.textContent = premove ? t('play.premove_queued', { move: premove.text }) : '';
  }
  const escape = (/** @type {KeyboardEvent} */ e) => {
    if (e.key !== 'Escape') return;
    if (premove) board.cancelPremove();
    else if (pending) /** @type {HTMLElement} */ (confirmBox.querySelector('#move-confirm-no')).click();
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
  const drawTools = () => tools.replaceChildren(...(isOver(game.status) ? [flipButton, analyseLink, downloadLink] : [flipButton, downloadLink]));

  const chat = new Chat((message) => socket.send(message));
  /** What this player (or, watching, each side) plays for, with the rules a click away. */
  const goal = h('p', { class: 'play__goal', id: 'game-goal' });
  const drawGoal = () => goal.replaceChildren(goalText(game.kind, game.you), ' ',
    h('a', { href: rulesHref(game.kind), class: 'play__goal-rules' }, t('play.rules')));
  const boardBox = h('div', { class: 'play__board', dataset: { kind: game.kind } }, topBar, boardEl, bottomBar, confirmBox);
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
  /** Conditional moves: for the players of a correspondence game (DAYSd) going on. */
  /** @type {ReturnType<typeof conditionalPanel> | null} */
  let conditional = null;
  function drawConditional() {
    if (!conditional && game.you && /d$/.test(game.time_control) && game.status === 'ongoing') {
      conditional = conditionalPanel(id, () => game);
      watchers.before(conditional.el);
    }
    conditional?.refresh();
  }
  drawConditional();

  /** The player of a side, as the bars show them. */
  function playerOf(/** @type {Side} */ side) {
    return game.players.find((p) => p.side === side);
  }

  /** The position on the board now (the one browsed to, or the live one). */
  function shownView() {
    const ply = browsing ?? game.moves.length;
    return browsing === null || !game.start_board ? game.board : boardAt(game.start_board, game.moves, ply);
  }

  function drawPlayers() {
    const bottom = board.orientation;
    const view = shownView();
    for (const [bar, side] of /** @type {Array<[HTMLElement, Side]>} */ ([[bottomBar, bottom], [topBar, other(bottom)]])) {
      const p = playerOf(side);
      // An open seat has no name yet; an imported record may give none.
      const name = p && p.ai ? t('common.ai_level', { level: p.ai }) : p?.name || (game.status === 'waiting' ? t('play.waiting_player') : '?');
      const nameEl = p && p.user && !p.ai
        ? h('a', { href: `/player/${encodeURIComponent(p.name)}`, class: 'player-bar__name' }, name)
        : h('span', { class: 'player-bar__name' }, name);
      const rating = p && p.rating ? h('span', { class: 'muted small' }, ` ${Math.round(p.rating)}${p.provisional ? '?' : ''}`) : null;
      // The pieces this side has lost, from the start to the position shown.
      const lost = game.start_board ? lostEl(game.kind, side, lostPieces(game.start_board, view, side)) : null;
      bar.replaceChildren(
        h('div', null, h('div', null, nameEl, rating), h('div', { class: 'player-bar__side' }, sideName(game.kind, side), game.you === side ? ` · ${t('play.you')}` : '', lost)),
        clocks.els[side]);
      bar.classList.toggle('is-to-move', game.status === 'ongoing' && game.board.to_move === side);
      bar.dataset.side = side;
    }
  }

  /** Whether it is this player's move now. */
  function myTurn() {
    return game.status === 'ongoing' && game.you !== null && game.board.to_move === game.you;
  }

  /** Whether this player may queue a premove now: a live game, the opponent to move. */
  function premoveAllowed() {
    return isLive() && game.status === 'ongoing' && game.you !== null && game.board.to_move !== game.you;
  }

  /**
   * Fetches the player's moves in the position now as if it were their turn (the server
   * knows the rules), for choosing a premove.
   */
  async function loadPremoveMoves() {
    const you = game.you;
    if (!you) return;
    const key = `${game.rev}`;
    if (premoveFor === key) return;
    premoveFor = key;
    premoveMoves = [];
    try {
      const answer = await api.position(game.kind, positionString({ ...game.board, to_move: you }), []);
      if (premoveFor !== key) return;
      premoveMoves = answer.legal_moves;
    } catch {
      // No premove in this position.
      return;
    }
    if (premoveAllowed() && browsing === null) drawBoard();
  }

  function drawBoard() {
    const live = browsing === null;
    const ply = live ? game.moves.length : /** @type {number} */ (browsing);
    const view = shownView();
    const mine = myTurn();
    // A correspondence move waiting for Confirm is dropped if the position changes.
    if (pending) {
      pending = null;
      drawConfirm();
    }
    if (premove && game.status !== 'ongoing') premove = null;
    const queued = live && mine && premove ? premove : null;
    const premoving = live && premoveAllowed();
    if (premoving) void loadPremoveMoves();
    board.set({
      board: view,
      legalMoves: live && mine ? game.legal_moves : premoving ? premoveMoves : [],
      lastMove: ply > 0 ? game.moves[ply - 1] : null,
      interactive: live && (mine || premoving),
      animate: ply === shownPly + 1,
      premoving,
      premove: premoving ? premove : null,
    });
    shownPly = ply;
    // Analyse opens the position shown (the game's end unless browsing).
    analyseLink.href = analysisAddress(id, ply, game.moves.length);
    boardBox.classList.toggle('is-browsing', !live);
    if (queued) {
      // The player's turn has come: the queued move goes at once if it is legal now.
      premove = null;
      const move = premoveNow(queued, game.legal_moves);
      if (move) board.play(move);
      else toast(t('play.premove_dropped', { move: queued.text }));
    }
    drawPremoveNote();
    moveForm.hidden = !(game.you && game.status === 'ongoing');
  }

  function drawStatus() {
    const items = [];
    if (game.status === 'finished' && game.result) {
      const words = resultWords(game.kind, game.result, game.ended_by);
      items.push(h('div', { class: 'result-banner', role: 'status' }, h('strong', null, words.headline), h('span', null, words.reason)));
    } else if (game.status === 'aborted') {
      items.push(h('div', { class: 'result-banner', role: 'status' }, h('strong', null, t('play.aborted')), abortNote ? h('span', null, abortNote) : null));
    } else if (game.status === 'waiting') {
      items.push(h('p', null, game.you ? t('play.waiting_opponent') : t('play.open_seat')));
      if (game.you) items.push(copyLink(location.href, 'game-link'));
    } else {
      const turn = sideName(game.kind, game.board.to_move);
      items.push(h('p', { class: 'play__turn' }, game.you === game.board.to_move ? t('play.your_turn') : t('play.turn', { side: turn })));
    }
    if (mine().includes('draw_accept')) {
      items.push(h('div', { class: 'notice stack' }, h('p', null, t('play.draw_offered')),
        h('div', { class: 'btn-row' },
          h('button', { type: 'button', class: 'btn btn--small btn--primary', onclick: () => socket.send({ t: 'draw_accept' }) }, t('play.accept')),
          h('button', { type: 'button', class: 'btn btn--small', onclick: () => socket.send({ t: 'draw_decline' }) }, t('play.decline')))));
    } else if (game.draw_offer && game.draw_offer === game.you) {
      items.push(h('p', { class: 'muted small' }, t('play.draw_sent')));
    }
    if (game.status === 'ongoing') {
      for (const [side, at] of claimAt) {
        if (game.you && side !== game.you) {
          const seconds = Math.ceil((at - performance.now()) / 1000);
          items.push(seconds > 0
            ? h('p', { class: 'notice', id: 'claim-countdown', dataset: { seconds: String(seconds) } }, t('play.opponent_left', { seconds }))
            : h('div', { class: 'notice stack', id: 'claim' }, h('p', null, t('play.opponent_gone')),
              h('div', { class: 'btn-row' },
                h('button', { type: 'button', class: 'btn btn--small btn--primary', dataset: { action: 'claim_victory' }, onclick: () => socket.send({ t: 'claim_victory' }) }, t('play.claim_victory')),
                h('button', { type: 'button', class: 'btn btn--small', dataset: { action: 'claim_draw' }, onclick: () => socket.send({ t: 'claim_draw' }) }, t('play.claim_draw')))));
        } else if (side !== game.you) {
          items.push(h('p', { class: 'muted small' }, t('play.player_left', { side: sideName(game.kind, side) })));
        }
      }
    }
    if (game.you && game.status === 'ongoing' && game.takeback_request === game.you) {
      items.push(h('p', { class: 'notice', id: 'takeback-sent' }, t('play.takeback_sent')));
    }
    if (mine().includes('takeback_accept')) {
      items.push(h('div', { class: 'notice stack' }, h('p', null, t('play.takeback_asked')),
        h('div', { class: 'btn-row' },
          h('button', { type: 'button', class: 'btn btn--small btn--primary', onclick: () => socket.send({ t: 'takeback_accept' }) }, t('play.accept')),
          h('button', { type: 'button', class: 'btn btn--small', onclick: () => socket.send({ t: 'takeback_decline' }) }, t('play.decline')))));
    }
    status.replaceChildren(...items);
  }

  /** What this visitor may do now, as the server says. */
  function mine() {
    return game.you && game.actions ? game.actions[game.you] : [];
  }

  function drawActions() {
    const buttons = [];
    const may = mine();
    if (game.status === 'waiting' && !game.you) {
      buttons.push(h('button', {
        type: 'button', class: 'btn btn--primary', id: 'join', onclick: async () => {
          try {
            await ensurePlayer();
            await api.join(id);
            // The socket was opened before this visitor had a seat (or a cookie).
            socket.reconnect();
          } catch (error) {
            toast(errorText(error));
          }
        },
      }, t('play.join')));
    }
    if (may.includes('abort')) buttons.push(action('abort', t('play.abort'), t('play.confirm_abort')));
    if (may.includes('resign')) buttons.push(action('resign', t('play.resign'), t('play.confirm_resign'), 'btn--danger'));
    if (may.includes('draw_offer')) buttons.push(action('draw_offer', t('play.offer_draw'), t('play.confirm_draw')));
    if (may.includes('takeback')) buttons.push(action('takeback', t('play.takeback'), t('play.confirm_takeback')));
    if (may.includes('give_time')) {
      // 15 seconds in a live game, a day in correspondence (DAYSd).
      const label = /d$/.test(game.time_control) ? t('play.give_day') : t('play.give_seconds');
      buttons.push(h('button', {
        type: 'button', class: 'btn', dataset: { action: 'give_time' }, onclick: () => socket.send({ t: 'give_time' }),
      }, label));
    }
    if (may.includes('rematch')) {
      buttons.push(h('button', {
        type: 'button', class: 'btn btn--primary', id: 'rematch', onclick: async () => {
          try {
            const answer = await api.rematch(id);
            if (answer && answer.id) navigate(`/game/${encodeURIComponent(answer.id)}`);
            else toast(t('play.rematch_sent'));
          } catch (error) {
            toast(errorText(error));
          }
        },
      }, t('play.rematch')));
    }
    if (game.status === 'finished' || game.status === 'aborted') {
      buttons.push(h('a', { class: 'btn', href: '/' }, t('play.new_game')));
    }
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
        if (await confirmDialog(question, label)) socket.send({ t: type });
      },
    }, label);
  }

  function drawAll() {
    setTitle(`${gameName(game.kind)} · ${game.players.map((p) => (p.ai ? t('common.ai_level', { level: p.ai }) : p.name || '?')).join(' – ')}`);
    drawPlayers();
    drawGoal();
    drawBoard();
    drawStatus();
    drawActions();
    drawTools();
    moveList.set(game.moves, browsing ?? game.moves.length);
    // Only an ongoing game's clock runs.
    clocks.sync(game.clocks && game.status !== 'ongoing' ? { ...game.clocks, running: null } : game.clocks);
    watchers.textContent = t('play.watchers', { count: game.watchers });
    chat.setGame(game);
    main.dataset.status = game.status;
    main.dataset.rev = String(game.rev);
  }

  /**
   * Applies an `events` message: the moves list follows the events; everything else
   * (status, result, offers, what each player may do, board, clocks) is as the server
   * says it after them.
   * @param {EventsMessage} msg
   */
  function applyEvents(msg) {
    if (msg.from_rev > game.rev) {
      // A gap: ask for what is missing.
      socket.send({ t: 'hello', rev: game.rev });
      return;
    }
    if (msg.rev <= game.rev) return;
    const before = game.status;
    for (const ev of msg.events) {
      if (ev.revision <= game.rev) continue;
      if (ev.type === 'moved') {
        game.moves = [...game.moves, { ...ev.move, ply: game.moves.length + 1, player: ev.player }];
      } else if (ev.type === 'taken_back') {
        game.moves = game.moves.slice(0, Math.max(0, game.moves.length - ev.plies));
        // A takeback after the end undoes the ending.
        game.ended_by = null;
      } else if (ev.type === 'takeback_declined' && ev.by !== game.you) {
        toast(t('play.takeback_declined'));
      } else if (ev.type === 'time_given' && game.you && ev.by !== game.you) {
        toast(ev.ms >= 86_400_000 ? t('play.given_day') : t('play.given_seconds'));
      } else if (ev.type === 'draw_declined' && ev.by !== game.you) {
        toast(t('play.draw_declined'));
      } else if (ev.type === 'ended') {
        game.ended_by = ev.by ?? null;
      } else if (ev.type === 'aborted') {
        if (ev.reason === 'no_first_move') abortNote = t('play.aborted_no_first_move', { side: sideName(game.kind, ev.by) });
        else if (ev.reason === 'abandoned') abortNote = t('play.aborted_abandoned');
      }
    }
    game.rev = msg.rev;
    game.status = msg.status;
    game.result = msg.result;
    game.board = withPieces(game.board, msg.pieces, msg.to_move);
    game.legal_moves = movesOf(msg.legal, game.board.files);
    game.clocks = msg.clocks;
    game.draw_offer = msg.draw_offer;
    game.takeback_request = msg.takeback_request;
    game.actions = msg.actions;
    if (before !== 'finished' && game.status === 'finished' && settings.sound) playSound('end');
    drawAll();
    drawConditional();
  }

  const socket = new Socket(`/ws/game/${encodeURIComponent(id)}`, {
    hello: () => ({ t: 'hello', rev: game.rev }),
    onStatus: (up) => {
      connected = up;
      conn.hidden = up;
      main.dataset.connected = String(connected);
    },
    onMessage: (/** @type {GameSocketMessage} */ msg) => {
      switch (msg.t) {
        case 'state': {
          const wasYou = game.you;
          game = msg.game;
          setAbsent(game.absent);
          // A seat taken (joining by link) turns the board to the player's side.
          if (game.you !== wasYou) board.flip(orientationFor(game.you));
          drawAll();
          drawConditional();
          break;
        }
        case 'events':
          applyEvents(msg);
          break;
        case 'clocks':
          game.clocks = msg.clocks;
          clocks.sync(game.clocks && game.status !== 'ongoing' ? { ...game.clocks, running: null } : game.clocks);
          break;
        case 'watchers':
          game.watchers = msg.count;
          watchers.textContent = t('play.watchers', { count: msg.count });
          break;
        case 'absent':
          game.absent = msg.absent;
          setAbsent(msg.absent);
          drawStatus();
          break;
        case 'chat':
          chat.receive(msg);
          break;
        case 'error': {
          if (msg.code === 'chat_refused') {
            chat.refused(msg.reason, String(msg.message ?? ''));
            break;
          }
          toast(refusalText(msg));
          // Shows the position as the server has it again (an optimistic move is undone).
          drawBoard();
          break;
        }
        default:
          break;
      }
    },
  });

  drawAll();
  return {
    destroy() {
      if (countdown !== null) clearInterval(countdown);
      document.removeEventListener('keydown', escape);
      socket.close();
      clocks.stop();
      moveList.destroy();
      board.destroy();
    },
  };
}
