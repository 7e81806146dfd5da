// What a lichess player reaches for (issue 20), against a real `kingstable serve` on
// 127.0.0.1: a move typed as the move list writes it (tafl and Camelot), with its errors
// in words; a premove in a live game, cancelled three ways, played when the turn comes
// and dropped when it is no longer legal; a correspondence move held for confirmation;
// the pieces each side lost; the engine's best lines and arrows on the analysis page; and
// an analysis address that restores the same position in another browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DESKTOP, PHONE, shot, useKingstable, playAny, fixture } from './support.mjs';

/** @typedef {import('playwright-core').Page} Page */

const suite = await useKingstable();
const { skip, go } = suite;
const LAPTOP = { width: 1366, height: 768 };
/** @param {{width: number, height: number}} [viewport] */
const player = (viewport = DESKTOP) => suite.player(viewport);

/**
 * A friend game of `kind` with clock `tc` made by `a` (first side) on the home page,
 * joined by `b` through its link; returns its path.
 * @param {Page} a @param {Page} b @param {string} kind @param {string} tc
 */
async function friendGame(a, b, kind, tc) {
  await go(a, '/');
  await a.click('#tab-friend');
  await a.click(`label[for="kind-${kind}"]`);
  await a.click('label[for="side-first"]');
  await a.selectOption('#time-control', tc);
  await a.click('#play-button');
  await a.waitForSelector('#friend-link');
  const path = new URL(await a.inputValue('#friend-link')).pathname;
  await go(a, path);
  await go(b, path);
  await b.click('#join');
  await a.waitForSelector('.player-bar .player-bar__name >> nth=1');
  return path;
}

/**
 * Waits until the page's move list has `n` moves.
 * @param {Page} page @param {number} n
 */
const waitPlies = (page, n) => page.waitForFunction((k) => document.querySelectorAll('.moves__move[data-ply]').length >= k, n, { timeout: 30000 });
/** @param {Page} page */
const moves = (page) => page.$$eval('.moves__move[data-ply]', (els) => els.map((e) => e.textContent));

/**
 * Types `text` into the move box and sends it.
 * @param {Page} page @param {string} text
 */
async function type(page, text) {
  await page.waitForSelector('#move-form:not([hidden])');
  await page.fill('#move-text', text);
  await page.press('#move-text', 'Enter');
}

/** @param {Page} page */
const error = async (page) => {
  await page.waitForSelector('#move-error:not([hidden])');
  return await page.locator('#move-error').textContent() ?? '';
};

/** The lost count of `side` in the player bars. @param {Page} page @param {string} side */
const lost = (page, side) => page.getAttribute(`.player-bar .captured[data-side="${side}"]`, 'data-lost');

/** The pieces on the board, as "square:piece". @param {Page} page */
const pieces = async (page) => (await page.$$eval('.kt-pieces .kt-piece:not(.kt-ghost)', (els) => els.map((e) => `${e.getAttribute('data-square')}:${e.getAttribute('data-piece')}`))).sort();

/** @param {Array<Awaited<ReturnType<typeof player>>>} players */
async function done(players) {
  for (const p of players) {
    assert.deepEqual(p.errors, []);
    await p.context.close();
  }
}

test('a typed move: as the move list writes it, a capture without its suffix, and errors in words (English and French)', { skip, timeout: 120000 }, async () => {
  const a = await player(LAPTOP);
  const fr = await suite.browser.newContext({ viewport: PHONE, hasTouch: true, locale: 'fr-FR' });
  const b = { context: fr, page: await fr.newPage(), errors: /** @type {string[]} */ ([]) };
  b.page.on('pageerror', (e) => b.errors.push(`pageerror: ${e.message}`));
  const path = await friendGame(a.page, b.page, 'copenhagen', 'untimed');
  await a.page.waitForSelector('.kt-board[data-interactive="true"]');
  // Not squares of this board, then a move the rules do not allow (d6 blocks the file).
  await type(a.page, 'z1-d3');
  assert.match(await error(a.page), /“z1-d3” is not a move: write its squares, as in \S+-\S+\./);
  await type(a.page, 'd1-d9');
  assert.match(await error(a.page), /d1-d9 is not a legal move here\./);
  assert.equal((await moves(a.page)).length, 0);
  // Not their turn, in French.
  await type(b.page, 'h6-h8');
  assert.match(await error(b.page), /Ce n’est pas votre tour\./);
  await type(a.page, 'K8-G8');
  await waitPlies(b.page, 1);
  // The capture is found from the start and end squares: h6-h8 takes g8.
  await type(b.page, 'h6-h8');
  await waitPlies(a.page, 2);
  assert.deepEqual(await moves(a.page), ['k8-g8', 'h6-h8xg8']);
  await type(b.page, 'h8-h9');
  assert.match(await error(b.page), /Ce n’est pas votre tour\./);
  // Each side's lost pieces, in both players' bars.
  for (const p of [a.page, b.page]) {
    await p.waitForSelector('.player-bar .captured[data-side="first"][data-lost="1"]');
    assert.equal(await lost(p, 'second'), '0');
  }
  assert.match(await a.page.getAttribute('.player-bar .captured[data-side="first"]', 'aria-label') ?? '', /Pieces lost: 1/);
  assert.match(await b.page.getAttribute('.player-bar .captured[data-side="first"]', 'aria-label') ?? '', /Pièces perdues : 1/);
  // A spectator sees the counts, and no move box.
  const c = await player(PHONE);
  await go(c.page, path);
  await c.page.waitForSelector('.player-bar .captured[data-side="first"][data-lost="1"]');
  assert.equal(await c.page.locator('#move-form').isVisible(), false);
  assert.equal(await c.page.locator('#move-confirm').isVisible(), false);
  // Browsing back to the start shows nothing lost yet.
  await a.page.click('button[data-nav="first"]');
  assert.equal(await lost(a.page, 'first'), '0');
  await a.page.click('button[data-nav="last"]');
  await shot(a.page, 'tools-typed-laptop');
  await shot(b.page, 'tools-typed-phone-fr');
  // The attackers resign: the finished game opens in analysis at the position the player
  // was looking at, and at a ply by its address.
  await a.page.click('[data-action="resign"]');
  await a.page.click('dialog[open] .btn--primary');
  await a.page.waitForSelector('.result-banner');
  const id = path.split('/').pop();
  assert.equal(await a.page.getAttribute('#analyse', 'href'), `/analysis?game=${id}`);
  await a.page.click('.moves__move[data-ply="1"]');
  assert.equal(await a.page.getAttribute('#analyse', 'href'), `/analysis?game=${id}&ply=1`);
  await a.page.click('#analyse');
  await a.page.waitForSelector('.moves__move[data-ply="2"]');
  assert.equal(await a.page.getAttribute('.moves__move[aria-current="true"]', 'data-ply'), '1');
  await go(a.page, `/analysis?game=${id}`);
  await a.page.waitForSelector('.moves__move[data-ply="2"]');
  assert.equal(await a.page.getAttribute('.moves__move[aria-current="true"]', 'data-ply'), '2');
  await a.page.click('.moves__move[data-ply="1"]');
  await a.page.waitForFunction(() => (/** @type {HTMLInputElement | null} */ (document.querySelector('#analysis-link'))?.value ?? '').includes('ply=1'));
  const link = await a.page.inputValue('#analysis-link');
  assert.equal(new URL(link).search, `?game=${id}&ply=1`);
  const shown = await pieces(a.page);
  await c.page.goto(link);
  await c.page.waitForSelector('.moves__move[data-ply="2"]');
  assert.equal(await c.page.getAttribute('.moves__move[aria-current="true"]', 'data-ply'), '1');
  assert.deepEqual(await pieces(c.page), shown);
  await done([a, b, c]);
});

test('a typed Camelot move: its path as the move list writes it, or its ends and the picker; the men lost', { skip, timeout: 120000 }, async () => {
  const fx = await fixture('camelot_multipath');
  const a = await player();
  const b = await player();
  await friendGame(a.page, b.page, 'camelot', 'untimed');
  const opening = fx.moves.map((/** @type {{text: string}} */ m) => m.text);
  for (let i = 0; i < opening.length; i++) {
    await type(i % 2 === 0 ? a.page : b.page, opening[i]);
    await waitPlies(a.page, i + 1);
    await waitPlies(b.page, i + 1);
  }
  assert.deepEqual(await moves(a.page), opening);
  const choices = fx.legal_moves.filter((/** @type {{text: string}} */ m) => m.text.startsWith('F9') && m.text.endsWith('B7'));
  assert.ok(choices.length > 1, 'several paths from F9 to B7');
  // Its ends only: the path picker asks which; Escape closes it.
  await type(b.page, 'f9 b7');
  await b.page.waitForSelector('.kt-picker:not([hidden])');
  assert.equal(await b.page.locator('.kt-picker__choice').count(), choices.length);
  await b.page.keyboard.press('Escape');
  const want = choices[choices.length - 1];
  await type(b.page, want.text);
  await waitPlies(a.page, opening.length + 1);
  assert.equal((await moves(a.page)).at(-1), want.text);
  // White lost the men (or knights) the jumps took.
  await a.page.waitForSelector(`.player-bar .captured[data-side="first"][data-lost="${want.captures.length}"]`);
  assert.equal(await lost(a.page, 'second'), '0');
  assert.match(await a.page.getAttribute('.player-bar .captured[data-side="first"]', 'aria-label') ?? '', /Knights lost: \d+, men lost: \d+/);
  await shot(a.page, 'tools-camelot-lost-desktop');
  await done([a, b]);
});

test('a premove in a live game: cancelled by Escape, a right click and a click; played when the turn comes; dropped when no longer legal', { skip, timeout: 120000 }, async () => {
  const a = await player(LAPTOP);
  const b = await player();
  await friendGame(a.page, b.page, 'copenhagen', '5+3');
  await type(a.page, 'd1-d3');
  await waitPlies(b.page, 1);
  await waitPlies(a.page, 1);
  // The defenders think; the attackers queue e1-e3.
  await a.page.waitForSelector('.kt-board[data-interactive="premove"] .kt-piece--movable');
  const queue = async () => {
    await a.page.click('.kt-sq[data-square="e1"]');
    await a.page.click('.kt-sq[data-square="e3"]');
    await a.page.waitForSelector('.kt-premove[data-square="e3"]');
    assert.match(await a.page.locator('#premove-note').textContent() ?? '', /Premove e1-e3/);
  };
  await queue();
  await a.page.keyboard.press('Escape');
  await a.page.waitForSelector('.kt-premove', { state: 'detached' });
  await queue();
  await a.page.click('.kt-sq[data-square="a1"]', { button: 'right' });
  await a.page.waitForSelector('.kt-premove', { state: 'detached' });
  await queue();
  await a.page.click('.kt-sq[data-square="k11"]');
  await a.page.waitForSelector('.kt-premove', { state: 'detached' });
  assert.equal(await a.page.locator('#premove-note').isHidden(), true);
  await queue();
  await shot(a.page, 'tools-premove-laptop');
  // The defenders move: the premove goes at once.
  await type(b.page, 'h6-h8');
  await waitPlies(b.page, 3);
  assert.deepEqual(await moves(b.page), ['d1-d3', 'h6-h8', 'e1-e3']);
  // A premove typed while the defenders think, then blocked by their move: dropped.
  await a.page.waitForSelector('.kt-board[data-interactive="premove"] .kt-piece--movable');
  await type(a.page, 'h1-h7');
  await a.page.waitForSelector('.kt-premove[data-square="h7"]');
  await type(b.page, 'h8-h5');
  await a.page.waitForSelector('.toast:has-text("Premove h1-h7 dropped")');
  await a.page.waitForSelector('.kt-board[data-interactive="true"]');
  assert.equal((await moves(a.page)).length, 4);
  assert.equal(await a.page.locator('.kt-premove').count(), 0);
  // No premove in a game without a clock: the board waits.
  await done([a, b]);
});

test('correspondence: with the setting on, a move waits for Confirm (Cancel puts it back)', { skip, timeout: 120000 }, async () => {
  const a = await player(PHONE);
  const b = await player();
  await go(a.page, '/settings');
  await a.page.check('#s-confirmMoves');
  await friendGame(a.page, b.page, 'copenhagen', '3d');
  await a.page.waitForSelector('.kt-board[data-interactive="true"]');
  await a.page.click('.kt-sq[data-square="d1"]');
  await a.page.click('.kt-sq[data-square="d3"]');
  await a.page.waitForSelector('#move-confirm:not([hidden])');
  assert.match(await a.page.locator('#move-confirm').textContent() ?? '', /Play d1-d3\?/);
  await shot(a.page, 'tools-confirm-phone');
  await a.page.click('#move-confirm-no');
  await a.page.waitForSelector('.kt-piece[data-square="d1"]');
  assert.equal(await a.page.locator('.kt-piece[data-square="d3"]').count(), 0);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await moves(b.page)).length, 0, 'nothing was sent');
  // Typed, then confirmed: sent.
  await type(a.page, 'd1-d3');
  await a.page.waitForSelector('#move-confirm:not([hidden])');
  await a.page.click('#move-confirm-yes');
  await waitPlies(b.page, 1);
  assert.deepEqual(await moves(b.page), ['d1-d3']);
  // The defenders have the setting off: their move goes at once.
  await type(b.page, 'h6-h8');
  await waitPlies(a.page, 2);
  assert.equal(await b.page.locator('#move-confirm:not([hidden])').count(), 0);
  // The phone on its side: the question and both its buttons are on the screen.
  await a.page.setViewportSize({ width: 740, height: 360 });
  await a.page.waitForSelector('.kt-board[data-interactive="true"]');
  await a.page.click('.kt-sq[data-square="a4"]');
  await a.page.click('.kt-sq[data-square="c4"]');
  await a.page.waitForSelector('#move-confirm:not([hidden])');
  for (const id of ['#move-confirm-yes', '#move-confirm-no']) {
    const box = await a.page.locator(id).boundingBox();
    assert.ok(box && box.y >= 0 && box.y + box.height <= 360 && box.x >= 0 && box.x + box.width <= 740, `${id} in view: ${JSON.stringify(box)}`);
  }
  await shot(a.page, 'tools-confirm-landscape');
  await a.page.click('#move-confirm-no');
  await done([a, b]);
});

test('analysis: three engine lines with their evaluations and the best move as an arrow', { skip, timeout: 90000 }, async () => {
  for (const [viewport, label] of /** @type {const} */ ([[LAPTOP, 'laptop'], [PHONE, 'phone']])) {
    const { context, page, errors } = await player(viewport);
    await go(page, '/analysis?kind=copenhagen');
    await page.waitForSelector('.kt-piece');
    await page.click('#engine-toggle');
    await page.waitForFunction(() => document.querySelectorAll('#pv-lines li[data-line]').length === 3, undefined, { timeout: 30000 });
    await page.waitForSelector('.kt-arrow--best');
    // Stopped, so that no later depth changes the lines while they are read.
    await page.click('#engine-toggle');
    await page.waitForTimeout(1000);
    const first = await page.$$eval('#pv-lines li[data-line] button', (els) => els.map((e) => e.getAttribute('data-move')));
    assert.equal(new Set(first).size, 3, `three different moves: ${first}`);
    assert.equal(await page.getAttribute('.kt-arrow--best', 'data-move'), first[0]);
    assert.equal(await page.locator('.kt-arrow').count(), 3);
    for (const score of await page.$$eval('.pv-lines__score', (els) => els.map((e) => e.textContent ?? ''))) {
      assert.match(score, /[-+#\d]/);
    }
    await shot(page, `tools-analysis-lines-${label}`);
    // A click on a line plays its first move; the arrows go with the old position.
    await page.click('#pv-lines li[data-line="2"] button');
    await page.waitForSelector('.moves__move[data-ply="1"]');
    assert.equal(await page.locator('.moves__move[data-ply="1"]').textContent(), first[1]);
    assert.equal(await page.locator('.kt-arrow').count(), 0);
    if (viewport === LAPTOP) {
      // The engine running while a move is played: no line of the position left shows
      // after it (every line shown starts with a piece that may move in the position
      // on the board).
      await page.click('#engine-toggle');
      await page.waitForFunction(() => document.querySelectorAll('#pv-lines li[data-line]').length === 3, undefined, { timeout: 30000 });
      await page.evaluate(() => {
        const wrong = /** @type {string[]} */ ([]);
        /** @type {any} */ (window).wrongLines = wrong;
        new MutationObserver(() => {
          for (const b of document.querySelectorAll('#pv-lines button[data-move]')) {
            const move = b.getAttribute('data-move') ?? '';
            const from = move.split(/[-x]/)[0];
            if (!document.querySelector(`.kt-piece--movable[data-square="${from}"]`)) wrong.push(move);
          }
        }).observe(/** @type {Element} */ (document.querySelector('#pv-lines')), { childList: true, subtree: true });
      });
      await page.click('#pv-lines li[data-line="1"] button');
      await page.waitForSelector('.moves__move[data-ply="2"]');
      await page.waitForFunction(() => document.querySelectorAll('#pv-lines li[data-line]').length === 3, undefined, { timeout: 30000 });
      await page.waitForTimeout(1000);
      assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).wrongLines), []);
      // Two analyses run for this visitor: a third is refused, in words.
      const more = [await context.newPage(), await context.newPage()];
      for (const p of more) {
        await go(p, '/analysis?kind=fetlar');
        await p.waitForSelector('.kt-piece');
        await p.click('#engine-toggle');
      }
      // (Whichever of the two the server reads second.)
      /** @type {string[]} */
      let refusals = [];
      for (let i = 0; i < 100 && !refusals.length; i++) {
        await page.waitForTimeout(100);
        refusals = (await Promise.all(more.map((p) => p.$$eval('.notice--error', (els) => els.map((e) => e.textContent ?? ''))))).flat();
      }
      assert.deepEqual(refusals, ['The engine is already busy with your other analyses. Stop one, or wait for it to end.']);
      for (const p of more) await p.close();
      await page.click('#engine-toggle');
    }
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('analysis: the address holds the position and the line, and opens the same in another browser', { skip, timeout: 90000 }, async () => {
  const a = await player();
  await go(a.page, '/analysis?kind=fetlar');
  await a.page.waitForSelector('.kt-board[data-interactive="true"]');
  for (let ply = 1; ply <= 3; ply++) {
    await playAny(a.page);
    await a.page.waitForSelector(`.moves__move[data-ply="${ply}"]`);
  }
  await a.page.click('.moves__move[data-ply="2"]');
  await a.page.waitForFunction(() => location.search.includes('ply=2'));
  const link = await a.page.inputValue('#analysis-link');
  assert.equal(link, a.page.url());
  const line = await moves(a.page);
  assert.equal(new URL(link).searchParams.get('moves'), line.join(' '));
  const shown = await pieces(a.page);
  // Another browser (no shared storage), on a phone.
  const b = await player(PHONE);
  await b.page.goto(link);
  await b.page.waitForSelector('.moves__move[data-ply="3"]');
  assert.deepEqual(await moves(b.page), line);
  assert.equal(await b.page.getAttribute('.moves__move[aria-current="true"]', 'data-ply'), '2');
  assert.deepEqual(await pieces(b.page), shown);
  // A position string (the defenders to move) travels too, with a line from it.
  const position = await a.page.evaluate(async () => {
    const answer = await fetch('/api/position', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'fetlar', moves: ['d1-d3'] }) });
    return (await answer.json()).position;
  });
  await go(a.page, `/analysis?kind=fetlar&position=${encodeURIComponent(position)}`);
  await a.page.waitForSelector('.kt-board[data-interactive="true"]');
  assert.equal(await a.page.getAttribute('.kt-board', 'data-to-move'), 'second');
  await playAny(a.page);
  await a.page.waitForSelector('.moves__move[data-ply="1"]');
  const fromPosition = await a.page.inputValue('#analysis-link');
  assert.equal(new URL(fromPosition).searchParams.get('position'), position);
  await b.page.goto(fromPosition);
  await b.page.waitForSelector('.moves__move[data-ply="1"]');
  assert.deepEqual(await pieces(b.page), await pieces(a.page));
  // A line the rules stop part-way is kept up to the move that is wrong, which is named.
  await go(b.page, '/analysis?kind=fetlar&moves=d1-d3+e5-e2+a1-a2+g1-g3');
  await b.page.waitForSelector('#bad-line');
  assert.match(await b.page.locator('#bad-line').textContent() ?? '', /Move 3 of the line, a1-a2, is not legal there/);
  assert.deepEqual(await moves(b.page), ['d1-d3', 'e5-e2']);
  await shot(b.page, 'tools-analysis-bad-line-phone');
  await done([a, b]);
});
