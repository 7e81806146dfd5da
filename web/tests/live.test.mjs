// Live games end to end, as players act, against a real `kingstable serve` on 127.0.0.1:
// a game against the AI to a result; two players by link while a third watches; a lobby
// challenge whose poster is taken into the game when someone accepts it; a Camelot
// multi-jump chosen in the path picker; a clock running out; a claim against a player
// who left, after the countdown; reconnecting after the server is killed mid-game; the
// analysis page's evaluation; two players chatting, one on a phone, with a spectator
// whose room the players read once the game is over (docs/API.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DESKTOP, PHONE, shot, useKingstable, playAny, fixture } from './support.mjs';

/** @typedef {import('playwright-core').Page} Page */

const suite = await useKingstable({ needs: { path: '/api/games?status=live', what: 'live games' } });
const { skip, go } = suite;
/** @param {{width: number, height: number}} [viewport] */
const player = (viewport = DESKTOP) => suite.player(viewport);

/**
 * Creates a game from the home page's form; returns the game page's path.
 * @param {Page} page
 * @param {{mode: "ai" | "friend", kind: string, side: string, tc: string, level?: number}} o
 */
async function create(page, o) {
  await go(page, '/');
  await page.click(`#tab-${o.mode}`);
  await page.click(`label[for="kind-${o.kind}"]`);
  if (o.level) await page.click(`label[for="level-${o.level}"]`);
  await page.click(`label[for="side-${o.side}"]`);
  await page.selectOption('#time-control', o.tc);
  await page.click('#play-button');
  if (o.mode === 'ai') {
    await page.waitForURL(/\/game\//);
    await page.waitForSelector('.kt-board');
    return new URL(page.url()).pathname;
  }
  await page.waitForSelector('#friend-link');
  const path = new URL(await page.inputValue('#friend-link')).pathname;
  await go(page, path);
  return path;
}

/** @param {Page} page */
const plies = (page) => page.locator('.moves__move[data-ply]').count();

/**
 * Waits until the page's move list has `n` moves.
 * @param {Page} page
 * @param {number} n
 */
const waitPlies = (page, n) => page.waitForFunction((k) => document.querySelectorAll('.moves__move[data-ply]').length >= k, n, { timeout: 30000 });


/**
 * Plays the move `text` by clicking its start and end (and its path in the picker).
 * @param {Page} page
 * @param {string} text
 */
async function play(page, text) {
  const squares = text.match(/[A-La-l]\d{1,2}/g) ?? [];
  await page.waitForSelector('.kt-board[data-interactive="true"]', { timeout: 30000 });
  await page.click(`.kt-sq[data-square="${squares[0]}"]`);
  await page.click(`.kt-sq[data-square="${squares[squares.length - 1]}"]`);
  const choice = page.locator(`.kt-picker__choice[data-move="${text}"]`);
  if (await choice.count()) await choice.click();
}

/**
 * Answers the confirmation dialog with yes.
 * @param {Page} page
 */
async function confirm(page) {
  await page.click('dialog[open] .btn--primary');
}

/**
 * Two players of a friend game of Copenhagen with clock `tc`: the first made it, the
 * second (on `viewport`) joined by the link.
 * @param {string} tc
 * @param {{width: number, height: number}} [viewport]
 */
async function friendPair(tc, viewport = DESKTOP) {
  const a = await player();
  const b = await player(viewport);
  const path = await create(a.page, { mode: 'friend', kind: 'copenhagen', side: 'first', tc });
  await go(b.page, path);
  await b.page.click('#join');
  return { a, b, path };
}

/**
 * Checks that no page had a script error, and closes them.
 * @param {Array<Awaited<ReturnType<typeof player>>>} players
 */
async function done(players) {
  for (const p of players) {
    assert.deepEqual(p.errors, []);
    await p.context.close();
  }
}

test('the level picker says the estimated rating of each level in the chosen game', { skip }, async () => {
  const { context, page, errors } = await player();
  await go(page, '/');
  const levels = await page.evaluate(async () => (await fetch('/api/levels')).json());
  /** @param {number} level @param {string} kind */
  const expected = (level, kind) => `Level ${level} · about ${levels.levels[level - 1].ratings[kind]}`;
  const caption = page.locator('.level-caption');
  await page.click('label[for="kind-copenhagen"]');
  await page.click('label[for="level-2"]');
  await page.waitForFunction((text) => document.querySelector('.level-caption')?.textContent === text, expected(2, 'copenhagen'));
  await page.click('label[for="level-5"]');
  await page.waitForFunction((text) => document.querySelector('.level-caption')?.textContent === text, expected(5, 'copenhagen'));
  // The game changes, the level stays, the rating is the new game's.
  await page.click('label[for="kind-camelot"]');
  await page.waitForFunction((text) => document.querySelector('.level-caption')?.textContent === text, expected(5, 'camelot'));
  assert.equal(await page.locator('label[for="level-6"]').getAttribute('title'), expected(6, 'camelot'));
  // A stronger level is rated higher, in every game.
  for (const kind of ['fetlar', 'copenhagen', 'camelot']) {
    for (let level = 2; level <= 6; level++) {
      assert.ok(levels.levels[level - 1].ratings[kind] > levels.levels[level - 2].ratings[kind], `${kind} ${level}`);
    }
  }
  assert.match(await caption.textContent() ?? '', /^Level 5 · about \d+$/);
  await shot(page, 'home-level-rating-desktop');
  await done([{ context, page, errors }]);
});

test('a game against the AI, played by clicking, to a result', { skip, timeout: 120000 }, async () => {
  const { context, page, errors } = await player();
  await create(page, { mode: 'ai', kind: 'copenhagen', side: 'first', tc: 'untimed', level: 1 });
  await playAny(page);
  await waitPlies(page, 2);
  await playAny(page);
  await waitPlies(page, 4);
  await shot(page, 'live-vs-ai-desktop');
  await page.click('[data-action="resign"]');
  await confirm(page);
  await page.waitForSelector('.result-banner');
  assert.match(await page.locator('.result-banner').textContent() ?? '', /defenders win.*resigned/i);
  assert.equal(await page.locator('#rematch').count(), 1);
  assert.deepEqual(errors, []);
  await context.close();
});

test('two players by link while a third watches and sees every move', { skip, timeout: 120000 }, async () => {
  const a = await player();
  const b = await player(PHONE);
  const c = await player();
  // A visitor on the home page from the start: the game's small board follows the moves
  // (the lobby sends the cells that changed, applied to the board it first sent).
  const d = await player();
  await go(d.page, '/');
  const path = await create(a.page, { mode: 'friend', kind: 'fetlar', side: 'first', tc: 'untimed' });
  await go(b.page, path);
  await b.page.click('#join');
  await go(c.page, path);
  await c.page.waitForSelector('.kt-board');
  assert.equal(await c.page.locator('#join').count(), 0, 'both seats are taken');
  for (let ply = 1; ply <= 4; ply++) {
    await playAny(ply % 2 === 1 ? a.page : b.page);
    for (const p of [a.page, b.page, c.page]) await waitPlies(p, ply);
  }
  assert.equal(await c.page.locator('.kt-board[data-interactive="true"]').count(), 0, 'the watcher cannot move');
  assert.match(await a.page.locator('.watchers').textContent() ?? '', /\d/);
  const moves = await a.page.$$eval('.moves__move[data-ply]', (els) => els.map((e) => e.textContent));
  assert.deepEqual(await c.page.$$eval('.moves__move[data-ply]', (els) => els.map((e) => e.textContent)), moves);
  await shot(b.page, 'live-friend-phone');
  await shot(c.page, 'live-watcher-desktop');
  const id = path.split('/').pop();
  const pieces = await c.page.$$eval('.kt-board .kt-piece', (els) => els.map((e) => e.getAttribute('data-square')).sort());
  assert.ok(pieces.length > 20, 'the watcher sees the board');
  await d.page.waitForFunction(([game, want]) => {
    const got = [...document.querySelectorAll(`.mini[data-game="${game}"] .kt-piece`)].map((e) => e.getAttribute('data-square')).sort();
    return JSON.stringify(got) === want;
  }, [id, JSON.stringify(pieces)], { timeout: 10000 });
  for (const p of [a, b, c, d]) {
    assert.deepEqual(p.errors, []);
    await p.context.close();
  }
});

test('a challenge accepted in the lobby takes its poster into the game', { skip, timeout: 120000 }, async () => {
  const a = await player();
  const b = await player();
  await go(a.page, '/');
  await a.page.click('#tab-lobby');
  await a.page.click('label[for="kind-fetlar"]');
  await a.page.click('label[for="side-first"]');
  await a.page.selectOption('#time-control', 'untimed');
  await a.page.click('#play-button');
  // The lobby socket brings the new challenge to every home page, the poster's too.
  await a.page.waitForSelector('tr[data-challenge]');
  const challenge = await a.page.getAttribute('tr[data-challenge]', 'data-challenge');
  await go(b.page, '/');
  await b.page.click(`tr[data-challenge="${challenge}"] .btn--primary`);
  await b.page.waitForURL(/\/game\//);
  // The poster goes there too, at once, and is told why.
  await a.page.waitForURL(/\/game\//, { timeout: 10000 });
  assert.equal(new URL(a.page.url()).pathname, new URL(b.page.url()).pathname);
  await a.page.waitForSelector('.toast:has-text("accepted")');
  await a.page.waitForSelector('.kt-board[data-interactive="true"]');
  // What each may do is what the server says: both may still abort, nobody may take back.
  assert.equal(await a.page.locator('[data-action="abort"]').count(), 1);
  assert.equal(await a.page.locator('[data-action="takeback"]').count(), 0);
  await playAny(a.page);
  await waitPlies(b.page, 1);
  await playAny(b.page);
  await waitPlies(a.page, 2);
  await a.page.waitForSelector('[data-action="abort"]', { state: 'detached' });
  assert.equal(await a.page.locator('[data-action="resign"]').count(), 1);
  for (const p of [a, b]) {
    assert.deepEqual(p.errors, []);
    await p.context.close();
  }
});

test('Camelot: a multi-jump chosen in the path picker', { skip, timeout: 120000 }, async () => {
  const fx = await fixture('camelot_multipath');
  const a = await player();
  const b = await player();
  const path = await create(a.page, { mode: 'friend', kind: 'camelot', side: 'first', tc: 'untimed' });
  await go(b.page, path);
  await b.page.click('#join');
  const opening = fx.moves.map((/** @type {{text: string}} */ m) => m.text);
  for (let i = 0; i < opening.length; i++) {
    await play(i % 2 === 0 ? a.page : b.page, opening[i]);
    await waitPlies(a.page, i + 1);
    await waitPlies(b.page, i + 1);
  }
  const choices = fx.legal_moves.filter((/** @type {{text: string}} */ m) => m.text.startsWith('F9') && m.text.endsWith('B7'));
  const want = choices[choices.length - 1];
  await b.page.click('.kt-sq[data-square="F9"]');
  await b.page.click('.kt-sq[data-square="B7"]');
  assert.equal(await b.page.locator('.kt-picker__choice').count(), choices.length);
  await shot(b.page, 'live-camelot-picker-desktop');
  await b.page.click(`.kt-picker__choice[data-move="${want.text}"]`);
  await waitPlies(a.page, opening.length + 1);
  assert.equal(await a.page.locator('.moves__move[data-ply]').last().textContent(), want.text);
  for (const sq of want.captures) {
    const name = `${fx.board.file_names[sq.file]}${fx.board.rank_names[sq.rank]}`;
    // (A captured piece fades out as a ghost for a moment; the position has none there.)
    assert.equal(await a.page.locator(`.kt-piece:not(.kt-ghost)[data-square="${name}"]`).count(), 0, `${name} captured`);
  }
  for (const p of [a, b]) {
    assert.deepEqual(p.errors, []);
    await p.context.close();
  }
});

// Both wait on a one-minute clock: they run side by side, in two games at once.
/** A 1+0 game whose attackers never move again after two plies: their flag falls. */
async function clockRunsOut() {
  const { a, b } = await friendPair('1+0');
  await playAny(a.page);
  await waitPlies(b.page, 1);
  await playAny(b.page);
  await waitPlies(a.page, 2);
  // The attackers never move again: a minute later their flag falls.
  await a.page.waitForSelector('.result-banner', { timeout: 90000 });
  assert.match(await a.page.locator('.result-banner').textContent() ?? '', /defenders win.*time ran out/i);
  await b.page.waitForSelector('.result-banner', { timeout: 10000 });
  await shot(a.page, 'live-timeout-desktop');
  await done([a, b]);
}

/** A 1+0 game whose defenders close their page on their turn: the attackers claim it. */
async function playerLeaves() {
  const { a, b } = await friendPair('1+0');
  await playAny(a.page);
  await waitPlies(b.page, 1);
  await playAny(b.page);
  await waitPlies(a.page, 2);
  await playAny(a.page);
  await waitPlies(b.page, 3);
  // The defenders close their page on their turn: the attackers see a countdown (30 s in
  // a 1+0 game), then the claim buttons.
  await b.context.close();
  await a.page.waitForSelector('#claim-countdown', { timeout: 15000 });
  const seconds = Number(await a.page.locator('#claim-countdown').getAttribute('data-seconds'));
  assert.ok(seconds > 20 && seconds <= 30, `countdown ${seconds}`);
  await shot(a.page, 'live-claim-countdown-desktop');
  await a.page.waitForSelector('#claim [data-action="claim_victory"]', { timeout: 40000 });
  await a.page.click('#claim [data-action="claim_victory"]');
  await a.page.waitForSelector('.result-banner', { timeout: 10000 });
  assert.match(await a.page.locator('.result-banner').textContent() ?? '', /attackers win.*left the game/i);
  assert.deepEqual(a.errors, []);
  await a.context.close();
}

test('a clock running out ends the game; a player who leaves is claimed against after a countdown', { skip, timeout: 150000 }, async () => {
  await Promise.all([clockRunsOut(), playerLeaves()]);
});

test('between people a move is taken back by agreement, and time is given', { skip, timeout: 120000 }, async () => {
  const { a, b } = await friendPair('5+3', PHONE);
  await playAny(a.page);
  await waitPlies(b.page, 1);
  await playAny(b.page);
  await waitPlies(a.page, 2);
  // The first asks; the page says it waits; the second sees the request and accepts.
  await a.page.click('[data-action="takeback"]');
  await confirm(a.page);
  await a.page.waitForSelector('#takeback-sent');
  assert.equal(await a.page.locator('[data-action="takeback"]').count(), 0, 'one request at a time');
  await b.page.click('.notice .btn--primary');
  for (const p of [a.page, b.page]) {
    await p.waitForFunction(() => document.querySelectorAll('.moves__move[data-ply]').length === 0, null, { timeout: 10000 });
  }
  await a.page.waitForSelector('#takeback-sent', { state: 'detached' });
  // The game goes on; the second gives the first 15 seconds, and the first is told.
  await playAny(a.page);
  await waitPlies(b.page, 1);
  await b.page.click('[data-action="give_time"]');
  await a.page.waitForSelector('.toast');
  assert.match(await a.page.locator('.toast').last().textContent() ?? '', /15 seconds/);
  await shot(b.page, 'live-give-time-phone');
  await done([a, b]);
});

test('correspondence: a conditional move answers the expected reply at once', { skip, timeout: 120000 }, async () => {
  const { a, b } = await friendPair('3d', PHONE);
  await play(a.page, 'd1-d3');
  await waitPlies(b.page, 1);
  // The attackers wait: if the defenders play e5-e2, answer g1-g3.
  await a.page.click('#conditional summary');
  await a.page.fill('#conditional-input', 'e5-e2 g1-g3');
  await a.page.click('#conditional-save');
  await a.page.waitForFunction(() => (document.querySelector('#conditional-lines')?.textContent ?? '').includes('g1-g3'));
  await shot(a.page, 'live-conditional-desktop');
  // The defenders cannot enter any on their own move; they play the expected reply.
  assert.equal(await b.page.locator('#conditional-save[disabled]').count(), 1);
  await play(b.page, 'e5-e2');
  for (const p of [a.page, b.page]) await waitPlies(p, 3);
  const moves = await b.page.$$eval('.moves__move[data-ply]', (els) => els.map((e) => e.textContent));
  assert.equal(moves[2], 'g1-g3');
  await a.page.waitForFunction(() => !(document.querySelector('#conditional-lines')?.textContent ?? '').includes('g1-g3'));
  await done([a, b]);
});

test('the server is killed mid-game and restarted: the page reconnects and play goes on', { skip, timeout: 120000 }, async () => {
  const { context, page, errors } = await player();
  await create(page, { mode: 'ai', kind: 'copenhagen', side: 'first', tc: 'untimed', level: 1 });
  await playAny(page);
  await waitPlies(page, 2);
  await suite.server.kill();
  await page.waitForSelector('.conn:not([hidden])', { timeout: 15000 });
  await suite.restart();
  await page.waitForSelector('.conn[hidden]', { state: 'attached', timeout: 30000 });
  assert.equal(await plies(page), 2, 'every acknowledged move is still there');
  await playAny(page);
  await waitPlies(page, 4);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the analysis page shows the engine evaluation', { skip, timeout: 60000 }, async () => {
  const { context, page, errors } = await player(PHONE);
  await go(page, '/analysis?kind=camelot');
  await page.waitForSelector('.kt-piece');
  await page.click('#engine-toggle');
  await page.waitForFunction(() => /\d/.test(document.getElementById('depth')?.textContent ?? ''), undefined, { timeout: 30000 });
  assert.match(await page.locator('#score').textContent() ?? '', /[-+#\d]/);
  await shot(page, 'live-analysis-phone');
  await page.click('#engine-toggle');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a game in progress: no engine until it ends, watchers are spectators other than oneself, and who resigned in three languages', { skip, timeout: 150000 }, async () => {
  const a = await player();
  const b = await player();
  const path = await create(a.page, { mode: 'friend', kind: 'fetlar', side: 'first', tc: 'untimed' });
  const id = path.split('/').pop();
  await go(b.page, path);
  await b.page.click('#join');
  await a.page.waitForSelector('.kt-board[data-interactive="true"]');
  // The players see nobody watching: the opponent plays, and they are not counted.
  for (const p of [a.page, b.page]) {
    await p.waitForFunction(() => document.querySelector('.watchers')?.textContent === '0 watching', undefined, { timeout: 10000 });
  }
  // A spectator: the players see one watcher, the spectator none but themselves.
  const c = await player(PHONE);
  await go(c.page, path);
  /** @type {Array<[import('playwright-core').Page, string]>} */
  const seen = [[a.page, '1 watching'], [b.page, '1 watching'], [c.page, '0 watching']];
  for (const [p, words] of seen) {
    await p.waitForFunction((/** @type {string} */ w) => document.querySelector('.watchers')?.textContent === w, words, { timeout: 10000 });
  }
  // The game page offers no analysis while it is played; the analysis page says why.
  assert.equal(await a.page.locator('a[href^="/analysis?game="]').count(), 0);
  for (let ply = 1; ply <= 6; ply++) {
    await playAny(ply % 2 === 1 ? a.page : b.page);
    for (const p of [a.page, b.page]) await waitPlies(p, ply);
  }
  await go(c.page, `/analysis?game=${id}`);
  await c.page.waitForSelector('#analysis-refused');
  assert.match(await c.page.locator('#analysis-refused').textContent() ?? '', /still being played/);
  // Its position typed in is refused by the server too.
  const position = await c.page.evaluate(async (g) => (await (await fetch(`/api/archive/${g}`)).json()).position, id);
  await go(c.page, '/analysis?kind=fetlar');
  await c.page.fill('#a-position', position);
  await c.page.click('details form button[type="submit"]');
  await c.page.waitForSelector('.kt-piece');
  await c.page.click('#engine-toggle');
  await c.page.waitForSelector('.notice--error:has-text("still being played")', { timeout: 10000 });
  await shot(c.page, 'live-analysis-refused-phone');
  // The defenders resign: now the game may be analysed, and the result says who resigned.
  await b.page.click('[data-action="resign"]');
  await confirm(b.page);
  await a.page.waitForSelector('.result-banner');
  assert.match(await a.page.locator('.result-banner').textContent() ?? '', /The attackers win.*The defenders resigned\./);
  await a.page.waitForSelector('a[href^="/analysis?game="]');
  await go(c.page, `/analysis?game=${id}`);
  await c.page.waitForSelector('.moves__move[data-ply]');
  assert.equal(await c.page.locator('#analysis-refused').count(), 0);
  // In the archive's list, and in French and Italian.
  await go(c.page, '/archive');
  await c.page.waitForSelector('[data-reason="resignation"]');
  assert.match(await c.page.locator('[data-reason="resignation"]').first().textContent() ?? '', /The defenders resigned\./);
  /** @type {Array<[string, RegExp]>} */
  const languages = [['fr-FR', /Les défenseurs ont abandonné\./], ['it-IT', /I difensori hanno abbandonato\./]];
  for (const [locale, words] of languages) {
    const b2 = suite.browser;
    const context = await b2.newContext({ viewport: DESKTOP, locale });
    const page = await context.newPage();
    await go(page, path);
    await page.waitForSelector('.result-banner');
    assert.match(await page.locator('.result-banner').textContent() ?? '', words);
    await context.close();
  }
  for (const p of [a, b, c]) {
    assert.deepEqual(p.errors, []);
    await p.context.close();
  }
});

test('the AI answers a draw offer at once', { skip, timeout: 120000 }, async () => {
  const { context, page, errors } = await player();
  await create(page, { mode: 'ai', kind: 'copenhagen', side: 'first', tc: 'untimed', level: 1 });
  await playAny(page);
  await waitPlies(page, 2);
  await page.click('[data-action="draw_offer"]');
  await confirm(page);
  // Declined (the AI stands no worse at the start), in words, at once; it may be offered again.
  await page.waitForSelector('.toast:has-text("declined")', { timeout: 5000 });
  await page.waitForSelector('[data-action="draw_offer"]', { timeout: 5000 });
  assert.equal(await page.locator('text=Waiting for an answer').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a finished game\'s review is numbered as the move list numbers moves, and is the same when asked again', { skip, timeout: 150000 }, async () => {
  const { context, page, errors } = await player();
  const path = await create(page, { mode: 'ai', kind: 'copenhagen', side: 'first', tc: 'untimed', level: 1 });
  await playAny(page);
  await waitPlies(page, 2);
  await playAny(page);
  await waitPlies(page, 4);
  await page.click('[data-action="resign"]');
  await confirm(page);
  await page.waitForSelector('.result-banner');
  const review = async () => {
    await go(page, `/analysis?game=${path.split('/').pop()}`);
    await page.click('#review-start');
    await page.waitForSelector('#review[data-done="true"] .chart title', { state: 'attached', timeout: 60000 });
    return page.$$eval('.chart title', (els) => els.map((e) => e.textContent ?? ''));
  };
  const titles = await review();
  // Plies 1-4 are moves 1, 1…, 2, 2…: the attackers' moves, then the defenders'.
  assert.match(titles[0], /^1\. \S/);
  assert.match(titles[1], /^1… \S/);
  assert.match(titles[2], /^2\. \S/);
  assert.match(titles[3], /^2… \S/);
  await shot(page, 'live-review-desktop');
  // Asked again (another visit), the stored review comes back the same.
  assert.deepEqual(await review(), titles);
  assert.deepEqual(errors, []);
  await context.close();
});

test('chat: two players talk, one on a phone; mute, chat off, and the spectators\' room closed to the players', { skip, timeout: 120000 }, async () => {
  const a = await player({ width: 1366, height: 768 });
  const b = await player(PHONE);
  const path = await create(a.page, { mode: 'friend', kind: 'copenhagen', side: 'first', tc: 'untimed' });
  await go(b.page, path);
  await b.page.click('#join');
  for (const p of [a.page, b.page]) await p.waitForSelector('#chat:not([hidden]) .chat__input');

  /** Says `text` from `page`'s chat box. @param {Page} page @param {string} text */
  const say = async (page, text) => {
    await page.fill('#chat .chat__input', text);
    await page.click('#chat .chat__form button[type="submit"]');
  };
  /** @param {Page} page @param {string} text */
  const heard = (page, text) => page.waitForFunction((want) => [...document.querySelectorAll('#chat .chat__text')].some((e) => e.textContent === want), text, { timeout: 10000 });

  await say(a.page, 'good luck');
  await heard(b.page, 'good luck');
  await say(b.page, 'merci, à toi aussi');
  await heard(a.page, 'merci, à toi aussi');
  await heard(b.page, 'merci, à toi aussi');
  // The players' room only: no tab for the spectators' room while the game goes on.
  assert.deepEqual(await a.page.$$eval('#chat .chat__tab', (els) => els.map((e) => e.getAttribute('data-room'))), ['players']);

  // The language filter's refusal is said in the panel, and nothing is sent.
  await say(a.page, 'fuck you');
  await a.page.waitForSelector('#chat .chat__note--error');
  assert.match(await a.page.locator('#chat .chat__note').textContent() ?? '', /language filter/);

  // On the phone the panel fits the screen's width.
  const box = await b.page.locator('#chat').boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= 360, `the chat fits the phone: ${JSON.stringify(box)}`);
  await b.page.locator('#chat').scrollIntoViewIfNeeded();
  await shot(b.page, 'chat-phone');
  await shot(a.page, 'chat-desktop');

  // Hiding an author, in this browser only, and showing them again.
  await b.page.click('#chat .chat__line:has-text("good luck") .chat__act >> nth=0');
  await b.page.waitForFunction(() => ![...document.querySelectorAll('#chat .chat__text')].some((e) => e.textContent === 'good luck'));
  await b.page.click('#chat .chat__unmute');
  await heard(b.page, 'good luck');
  // Chat off: the panel keeps only its switch, across reloads.
  await b.page.click('#chat .chat__toggle');
  assert.equal(await b.page.locator('#chat .chat__body').isHidden(), true);
  await go(b.page, path);
  await b.page.waitForSelector('#chat:not([hidden])');
  assert.equal(await b.page.locator('#chat .chat__body').isHidden(), true);
  await b.page.click('#chat .chat__toggle');
  await heard(b.page, 'good luck');

  // A signed-in spectator writes in the spectators' room; the players read it after the end.
  const c = await player();
  await go(c.page, '/signup');
  await c.page.fill('#username', `watcher${Date.now() % 100000}`);
  await c.page.fill('#password', 'a long password here');
  await c.page.click('button[type="submit"]');
  await c.page.waitForURL((url) => !url.pathname.startsWith('/signup'));
  await go(c.page, path);
  await c.page.waitForSelector('#chat:not([hidden]) .chat__input');
  assert.deepEqual(await c.page.$$eval('#chat .chat__tab', (els) => els.map((e) => e.getAttribute('data-room'))), ['spectators']);
  await say(c.page, 'nice opening');
  await heard(c.page, 'nice opening');
  await a.page.click('[data-action="abort"]');
  await confirm(a.page);
  await a.page.waitForSelector('#chat .chat__tab[data-room="spectators"]');
  await a.page.click('#chat .chat__tab[data-room="spectators"]');
  await heard(a.page, 'nice opening');
  for (const p of [a, b, c]) {
    assert.deepEqual(p.errors, []);
    await p.context.close();
  }
});
