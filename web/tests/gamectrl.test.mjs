// The game page's state in node, without a DOM (web/js/pages/game/ctrl.js, moves.js):
// what each message of the game socket does to it, with positions and moves made by the
// real rules (the fixtures), and what the player's moves, premoves and typed moves do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GameCtrl } from '../js/pages/game/ctrl.js';
import { movesNamed, premoveNow } from '../js/pages/game/moves.js';
import { boardAt } from '../js/replay.js';
import { fixture } from './support.mjs';

/** @typedef {import('../js/types.js').GameState} GameState */
/** @typedef {import('../js/types.js').BoardView} BoardView */
/** @typedef {import('../js/types.js').MoveInfo} MoveInfo */
/** @typedef {import('../js/pages/game/ctrl.js').Hooks} Hooks */

const ROOM = { read: false, read_over: false, write: false };
const NO_CHAT = { players: ROOM, spectators: ROOM };
const PLAYER_CHAT = {
  players: { read: true, read_over: true, write: true },
  spectators: { read: false, read_over: true, write: false },
};
const SPECTATOR_CHAT = {
  players: { read: false, read_over: true, write: false },
  spectators: { read: true, read_over: true, write: true },
};

/**
 * A game between people at the start position of `name`, as `GET /api/games/{id}` says.
 * @param {string} name a fixture
 * @param {Partial<GameState>} [fields]
 * @returns {Promise<GameState>}
 */
async function gameAt(name, fields = {}) {
  const fx = await fixture(name);
  return {
    id: 'g1', kind: fx.kind, rev: 0, status: 'ongoing', result: null, ended_by: null, played_at: 0,
    players: [
      { side: 'first', name: 'ragnar', user: true, ai: null },
      { side: 'second', name: 'astrid', user: true, ai: null },
    ],
    you: 'first', time_control: '5+3', correspondence: false, rated: false,
    board: fx.board, start_board: fx.board, moves: [], legal_moves: fx.legal_moves,
    clocks: { first_ms: 300000, second_ms: 300000, running: null },
    draw_offer: null, takeback_request: null, watchers: 0, absent: [],
    actions: { first: ['resign'], second: ['resign'] }, chat: PLAYER_CHAT,
    ...fields,
  };
}

/**
 * A ctrl whose hooks write down what it asks of the page, on a clock the test moves.
 * @param {GameState} game
 * @param {{confirmMoves?: boolean, movesIn?: Hooks['movesIn']}} [options]
 */
function ctrlOf(game, options = {}) {
  /** @type {Array<[string, unknown]>} */
  const calls = [];
  const clock = { ms: 1000 };
  /** @type {Hooks} */
  const hooks = {
    send: (message) => calls.push(['send', message]),
    redraw: (part) => calls.push(['redraw', part]),
    toast: (words) => calls.push(['toast', words]),
    refused: (error) => calls.push(['refused', error.code]),
    chat: (message) => calls.push(['chat', message.id]),
    chatRefused: (reason) => calls.push(['chatRefused', reason]),
    sound: (kind) => calls.push(['sound', kind]),
    movesIn: options.movesIn ?? (async () => []),
  };
  const ctrl = new GameCtrl(game, { confirmMoves: options.confirmMoves ?? false }, hooks, () => clock.ms);
  /** The calls since the last look, of one kind (all: none given). @param {string} [kind] */
  const taken = (kind) => {
    const out = calls.splice(0).filter(([k]) => !kind || k === kind);
    return kind ? out.map(([, v]) => v) : out;
  };
  return { ctrl, taken, clock };
}

const INITIALS = { attacker: 'a', defender: 'd', king: 'k', knight: 'n', man: 'm' };

/** The board's pieces as an `events` message says them. @param {BoardView} board */
const piecesOf = (board) => board.cells.map((c) => {
  if (!c.piece) return '.';
  const ch = INITIALS[c.piece[1]];
  return c.piece[0] === 'first' ? ch.toUpperCase() : ch;
}).join('');

/** Legal moves in the wire form. @param {MoveInfo[]} moves @param {number} files */
const wireOf = (moves, files) => moves.map((m) => {
  const at = (/** @type {import('../js/types.js').Square} */ sq) => sq.rank * files + sq.file;
  const wire = [m.text, at(m.from), at(m.to), m.captures.map(at)];
  return m.path.length > 2 ? [...wire, m.path.map(at)] : wire;
});

/**
 * The `events` message of `moves` played from `fromRev`, leaving `after` on the board.
 * @param {{board: BoardView, legal_moves: MoveInfo[]}} after
 * @param {import('../js/types.js').PlayedMove[]} moves
 * @param {number} fromRev
 * @param {object[]} [more] events after the moves
 * @returns {import('../js/types.js').EventsMessage}
 */
function eventsOf(after, moves, fromRev, more = []) {
  const events = [
    ...moves.map((m, i) => ({ revision: fromRev + i + 1, at: 0, type: 'moved', player: m.player, move: m, clocks: null, outcome: null })),
    ...more.map((e, i) => ({ revision: fromRev + moves.length + i + 1, at: 0, ...e })),
  ];
  return /** @type {any} */ ({
    t: 'events', from_rev: fromRev, rev: fromRev + events.length, events, status: 'ongoing', result: null,
    pieces: piecesOf(after.board), to_move: after.board.to_move, legal: wireOf(after.legal_moves, after.board.files),
    clocks: null, draw_offer: null, takeback_request: null, actions: { first: ['resign'], second: ['resign'] },
  });
}

test('an events message brings the game to the position the rules reached: moves, board, legal moves', async () => {
  const after = await fixture('copenhagen_capture');
  const { ctrl, taken } = ctrlOf(await gameAt('copenhagen_start'));
  ctrl.receive(eventsOf(after, after.moves, 0));
  assert.equal(ctrl.game.rev, 5);
  assert.deepEqual(ctrl.game.moves.map((m) => [m.ply, m.player, m.text]), after.moves.map((/** @type {import('../js/types.js').PlayedMove} */ m) => [m.ply, m.player, m.text]));
  assert.deepEqual(ctrl.game.board, after.board);
  assert.deepEqual(ctrl.game.legal_moves, after.legal_moves);
  assert.deepEqual(taken(), [['redraw', 'all']]);
  // Browsing back: the position after two moves, rebuilt from the moves' geometry.
  ctrl.browse(2);
  assert.deepEqual(taken(), [['redraw', 'board']]);
  assert.equal(ctrl.shownView().to_move, 'first');
  assert.notDeepEqual(ctrl.shownView(), after.board);
  ctrl.browse(5);
  assert.equal(ctrl.browsing, null);
  assert.deepEqual(ctrl.shownView(), after.board);
});

test('events already seen change nothing; a gap asks for what is missing', async () => {
  const after = await fixture('copenhagen_capture');
  const { ctrl, taken } = ctrlOf(await gameAt('copenhagen_start'));
  ctrl.receive(eventsOf(after, after.moves.slice(0, 2), 0));
  taken();
  const board = ctrl.game.board;
  // The same message again (a catch-up that overlaps): nothing.
  ctrl.receive(eventsOf(after, after.moves.slice(0, 2), 0));
  assert.deepEqual(taken(), []);
  // From revision 4 while the page is at 2: hello with the revision it has.
  ctrl.receive(eventsOf(after, after.moves.slice(4), 4));
  assert.deepEqual(taken(), [['send', { t: 'hello', rev: 2 }]]);
  assert.equal(ctrl.game.rev, 2);
  assert.equal(ctrl.game.board, board);
  assert.deepEqual(ctrl.hello(), { t: 'hello', rev: 2 });
});

test('who ended the game is the server\'s word; a takeback undoes it; the end sounds once', async () => {
  const after = await fixture('copenhagen_start');
  const { ctrl, taken } = ctrlOf(await gameAt('copenhagen_start'));
  const ended = { ...eventsOf(after, [], 0, [{ type: 'ended', outcome: { winner: 'second', reason: 'resignation' }, by: 'first', clocks: null }]), status: 'finished', result: { winner: 'second', reason: 'resignation' } };
  ctrl.receive(/** @type {any} */ (ended));
  assert.equal(ctrl.game.ended_by, 'first');
  assert.deepEqual(taken(), [['sound', 'end'], ['redraw', 'all']]);
  // Finished: no clock runs, and both chat rooms are read.
  ctrl.game.clocks = { first_ms: 1000, second_ms: 2000, running: 'first' };
  assert.equal(ctrl.shownClocks()?.running, null);
  assert.deepEqual(ctrl.chatRooms(), { reads: ['players', 'spectators'], writes: 'players' });
  const back = { ...eventsOf(after, [], 1, [{ type: 'taken_back', by: 'first', plies: 0, clocks: null }]), status: 'ongoing' };
  ctrl.receive(/** @type {any} */ (back));
  assert.equal(ctrl.game.ended_by, null);
  assert.deepEqual(taken(), [['redraw', 'all']]);
});

test('the opponent\'s answers are said; one\'s own are not', async () => {
  const after = await fixture('copenhagen_start');
  const { ctrl, taken } = ctrlOf(await gameAt('copenhagen_start'));
  ctrl.receive(eventsOf(after, [], 0, [
    { type: 'draw_declined', by: 'second' },
    { type: 'takeback_declined', by: 'first' },
    { type: 'time_given', by: 'second', ms: 15000, clocks: null },
    { type: 'time_given', by: 'second', ms: 86_400_000, clocks: null },
  ]));
  assert.deepEqual(taken('toast'), [{ key: 'play.draw_declined' }, { key: 'play.given_seconds' }, { key: 'play.given_day' }]);
  ctrl.receive(eventsOf(after, [], 4, [{ type: 'aborted', by: 'second', reason: 'no_first_move' }]));
  assert.deepEqual(ctrl.aborted, { by: 'second', reason: 'no_first_move' });
});

test('a state message replaces the game; a seat taken turns the board', async () => {
  const { ctrl, taken } = ctrlOf(await gameAt('copenhagen_start', { you: null, status: 'waiting', chat: NO_CHAT }));
  assert.deepEqual(ctrl.chatRooms(), { reads: [], writes: null });
  ctrl.receive({ t: 'state', game: await gameAt('copenhagen_start', { rev: 1 }) });
  assert.deepEqual(taken(), [['redraw', 'seat'], ['redraw', 'all']]);
  assert.equal(ctrl.game.you, 'first');
  ctrl.receive({ t: 'state', game: await gameAt('copenhagen_start', { rev: 2 }) });
  assert.deepEqual(taken(), [['redraw', 'all']]);
  ctrl.receive({ t: 'watchers', count: 3 });
  ctrl.receive({ t: 'clocks', clocks: null });
  assert.deepEqual(taken(), [['redraw', 'watchers'], ['redraw', 'clocks']]);
  assert.equal(ctrl.game.watchers, 3);
  assert.equal(ctrl.game.clocks, null);
});

test('the chat rooms are the server\'s answer for the viewer, before and after the end', async () => {
  const spectator = ctrlOf(await gameAt('copenhagen_start', { you: null, chat: SPECTATOR_CHAT })).ctrl;
  assert.deepEqual(spectator.chatRooms(), { reads: ['spectators'], writes: 'spectators' });
  const player = ctrlOf(await gameAt('copenhagen_start')).ctrl;
  assert.deepEqual(player.chatRooms(), { reads: ['players'], writes: 'players' });
  const aborted = ctrlOf(await gameAt('copenhagen_start', { you: null, status: 'aborted', chat: SPECTATOR_CHAT })).ctrl;
  assert.deepEqual(aborted.chatRooms(), { reads: ['players', 'spectators'], writes: 'spectators' });
  // Against the AI the server gives no room, over or not.
  const ai = ctrlOf(await gameAt('copenhagen_start', { status: 'finished', chat: NO_CHAT })).ctrl;
  assert.deepEqual(ai.chatRooms(), { reads: [], writes: null });
});

test('chat messages and refusals go to the panel; another refusal redraws the board', async () => {
  const { ctrl, taken } = ctrlOf(await gameAt('copenhagen_start'));
  ctrl.receive({ t: 'chat', id: 'c1', room: 'players', from: 'astrid', guest: false, text: 'gl', at: 1 });
  ctrl.receive({ t: 'error', code: 'chat_refused', message: 'no', reason: 'too_long' });
  ctrl.receive({ t: 'error', code: 'not_your_turn', message: 'wait' });
  assert.deepEqual(taken(), [['chat', 'c1'], ['chatRefused', 'too_long'], ['refused', 'not_your_turn'], ['redraw', 'board']]);
});

test('a player who left: the opponent counts down to the claim; a spectator is told; the one who left is not', async () => {
  const absent = [{ side: /** @type {const} */ ('second'), claim_in_ms: 2500 }];
  const { ctrl, taken, clock } = ctrlOf(await gameAt('copenhagen_start', { absent }));
  assert.deepEqual(ctrl.claims(), [{ side: 'second', seconds: 3 }]);
  clock.ms += 2000;
  assert.deepEqual(ctrl.claims(), [{ side: 'second', seconds: 1 }]);
  clock.ms += 1000;
  assert.deepEqual(ctrl.claims(), [{ side: 'second', seconds: 0 }]);
  ctrl.act('claim_victory');
  assert.deepEqual(taken('send'), [{ t: 'claim_victory' }]);
  ctrl.receive({ t: 'absent', absent: [] });
  assert.deepEqual(ctrl.claims(), []);
  assert.deepEqual(taken(), [['redraw', 'status']]);
  const watching = ctrlOf(await gameAt('copenhagen_start', { you: null, absent })).ctrl;
  assert.deepEqual(watching.claims(), [{ side: 'second', seconds: null }]);
  const gone = ctrlOf(await gameAt('copenhagen_start', { you: 'second', absent })).ctrl;
  assert.deepEqual(gone.claims(), []);
  const over = ctrlOf(await gameAt('copenhagen_start', { status: 'finished', absent })).ctrl;
  assert.deepEqual(over.claims(), []);
});

test('a move is sent at the revision it was chosen on; in correspondence it may wait for Confirm', async () => {
  const start = await fixture('copenhagen_start');
  const move = start.legal_moves[0];
  const live = ctrlOf(await gameAt('copenhagen_start', { rev: 7 }), { confirmMoves: true });
  live.ctrl.choose(move);
  assert.deepEqual(live.taken(), [['send', { t: 'move', rev: 7, move: move.text }]]);

  const corr = { time_control: '3d', correspondence: true, rev: 4 };
  const held = ctrlOf(await gameAt('copenhagen_start', corr), { confirmMoves: true });
  held.ctrl.choose(move);
  assert.equal(held.ctrl.pending, move);
  assert.deepEqual(held.taken(), [['redraw', 'confirm']]);
  held.ctrl.confirm(true);
  assert.deepEqual(held.taken(), [['redraw', 'confirm'], ['send', { t: 'move', rev: 4, move: move.text }]]);
  // Cancelled: nothing sent, the board drawn again.
  held.ctrl.choose(move);
  held.taken();
  held.ctrl.confirm(false);
  assert.deepEqual(held.taken(), [['redraw', 'confirm'], ['redraw', 'board']]);
  // A change of position drops a move waiting for Confirm.
  held.ctrl.choose(move);
  held.taken();
  held.ctrl.frame();
  assert.equal(held.ctrl.pending, null);
  assert.deepEqual(held.taken(), [['redraw', 'confirm']]);
  // Without the setting, a correspondence move goes at once.
  const direct = ctrlOf(await gameAt('copenhagen_start', corr));
  direct.ctrl.choose(move);
  assert.deepEqual(direct.taken('send'), [{ t: 'move', rev: 4, move: move.text }]);
  // No premoves in correspondence or untimed games.
  assert.equal(ctrlOf(await gameAt('copenhagen_start', { ...corr, you: 'second' })).ctrl.premoveAllowed(), false);
  assert.equal(ctrlOf(await gameAt('copenhagen_start', { time_control: 'untimed', you: 'second' })).ctrl.premoveAllowed(), false);
});

test('a premove is played when the turn comes if it is still legal, else dropped with a notice', async () => {
  const start = await fixture('copenhagen_start');
  const after = await fixture('copenhagen_capture');
  // The defenders (second) wait while the attackers think: their moves come from the
  // server (here e5-e2, their reply in the fixture's game).
  const { ply, player, ...reply } = after.moves[1];
  assert.deepEqual([ply, player, reply.text], [2, 'second', 'e5-e2']);
  const second = [reply];
  let asked = 0;
  const { ctrl, taken } = ctrlOf(await gameAt('copenhagen_start', { you: 'second' }), {
    movesIn: async (board) => {
      asked += 1;
      assert.equal(board.to_move, 'second');
      return second;
    },
  });
  assert.equal(ctrl.premoveAllowed(), true);
  const first = ctrl.frame();
  assert.equal(first.state.premoving, true);
  assert.equal(first.state.interactive, true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(asked, 1);
  assert.deepEqual(ctrl.premoveMoves, second);
  assert.deepEqual(taken(), [['redraw', 'board']]);
  ctrl.frame();
  assert.equal(asked, 1, 'asked once per position');
  ctrl.queuePremove(second[0]);
  assert.deepEqual(taken(), [['redraw', 'premove']]);
  // The attackers play d1-d3: it is the defenders' turn, e5-e2 is legal: it is played.
  ctrl.receive(eventsOf({ board: boardAt(start.board, after.moves, 1), legal_moves: second }, after.moves.slice(0, 1), 0));
  assert.equal(ctrl.myTurn(), true);
  const turn = ctrl.frame();
  assert.equal(turn.play?.text, 'e5-e2');
  assert.equal(ctrl.premove, null);
  // A premove no longer legal is dropped.
  ctrl.premove = { ...second[0], text: 'e5-e9', to: { file: 4, rank: 8 }, path: [{ file: 4, rank: 4 }, { file: 4, rank: 8 }] };
  taken();
  assert.equal(ctrl.frame().play, null);
  assert.deepEqual(taken('toast'), [{ key: 'play.premove_dropped', params: { move: 'e5-e9' } }]);
});

test('a typed move: by its text or its squares, on one\'s turn; or why not', async () => {
  const start = await fixture('copenhagen_start');
  const after = await fixture('copenhagen_capture');
  // After five moves the defenders (second) are to move.
  const game = await gameAt('copenhagen_capture', { you: 'second', rev: 5, moves: after.moves, start_board: start.board });
  const { ctrl } = ctrlOf(game);
  const view = after.board;
  const name = (/** @type {import('../js/types.js').Square} */ sq) => `${view.file_names[sq.file]}${view.rank_names[sq.rank]}`;
  /** @type {MoveInfo} */
  const move = after.legal_moves[0];
  assert.equal(ctrl.typed('   '), null);
  assert.deepEqual(ctrl.typed(move.text.toUpperCase()), { moves: [move] });
  assert.deepEqual(ctrl.typed(`${name(move.from)} ${name(move.to)}`), { moves: [move] });
  assert.deepEqual(ctrl.typed('zz9-d3'), { problem: { key: 'play.type_bad', params: { text: 'zz9-d3', example: move.text } } });
  const still = `${name(move.from)}-${name(move.from)}`;
  assert.deepEqual(ctrl.typed(still), { problem: { key: 'play.type_illegal', params: { move: still } } });
  ctrl.browse(2);
  assert.equal(ctrl.browsing, 2);
  ctrl.typed(move.text);
  assert.equal(ctrl.browsing, null, 'a move typed while browsing goes back to the live position');
  // The attackers, in an untimed game (no premoves), are not to move.
  const waiting = ctrlOf({ ...game, you: 'first', time_control: 'untimed' }).ctrl;
  assert.deepEqual(waiting.typed(move.text), { problem: { key: 'play.type_not_turn' } });
});

test('moves named by squares: the whole path, the ends, or the ends and the captures', async () => {
  const camelot = await fixture('camelot_multipath');
  /** @type {MoveInfo[]} */
  const jumps = camelot.legal_moves.filter((/** @type {MoveInfo} */ m) => m.path.length > 2);
  assert.ok(jumps.length >= 2, 'two jump sequences');
  const view = camelot.board;
  const name = (/** @type {import('../js/types.js').Square} */ sq) => `${view.file_names[sq.file]}${view.rank_names[sq.rank]}`;
  const endsOf = (/** @type {MoveInfo} */ m) => [m.path[0], m.path[m.path.length - 1]].map(name).join('-');
  const one = jumps.find((m) => jumps.some((n) => n !== m && endsOf(n) === endsOf(m)));
  assert.ok(one, 'two jump sequences between the same squares');
  const ends = endsOf(one);
  // The ends name both sequences; the whole path or the captures pick one.
  assert.ok((movesNamed(ends, camelot.legal_moves, view)?.length ?? 0) >= 2);
  assert.deepEqual(movesNamed(one.path.map(name).join('-'), camelot.legal_moves, view), [one]);
  assert.deepEqual(movesNamed(`${ends}x${one.captures.map(name).join('x')}`, camelot.legal_moves, view), [one]);
  assert.equal(movesNamed('hello', camelot.legal_moves, view), null);
  assert.equal(movesNamed('Z1-A1', camelot.legal_moves, view), null);
  // A premove is found again by its text, else by its squares alone.
  assert.equal(premoveNow(one, camelot.legal_moves), one);
  assert.equal(premoveNow({ ...one, text: 'other words' }, camelot.legal_moves), one);
  assert.equal(premoveNow({ ...one, text: 'x', path: [one.from, { file: 0, rank: 0 }] }, camelot.legal_moves), null);
});
