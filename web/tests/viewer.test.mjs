// The archive's game viewer in Chromium on games made by the real rules: step through
// with the arrow keys and the buttons, click a move, see the result in words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, DESKTOP, PHONE, shot, watchErrors, fixture } from './support.mjs';
import { boardAt } from '../js/replay.js';

const env = useBrowser();

/**
 * The pieces a board view holds, as "square:side-kind" strings.
 * @param {any} view
 */
function piecesOf(view) {
  const out = [];
  for (let i = 0; i < view.cells.length; i++) {
    const p = view.cells[i].piece;
    if (p) out.push(`${view.file_names[i % view.files]}${view.rank_names[Math.floor(i / view.files)]}:${p[0]}-${p[1]}`);
  }
  return out.sort();
}

/** @param {import('playwright-core').Page} page */
async function shownPieces(page) {
  const list = await page.$$eval('.viewer .kt-pieces .kt-piece', (els) => els.map((e) => `${e.getAttribute('data-square')}:${e.getAttribute('data-piece')}`));
  return list.sort();
}

test('step through a game with the keys, the buttons and the move list', async () => {
  const start = await fixture('copenhagen_start');
  const fx = await fixture('copenhagen_capture');
  for (const [viewport, label] of /** @type {const} */ ([[DESKTOP, 'desktop'], [PHONE, 'phone']])) {
    const context = await env.browser.newContext({ viewport });
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${env.server.origin}/tests/viewer.html?fixture=copenhagen_capture&start=copenhagen_start&result=king_captured`);
    await page.waitForSelector('body[data-ready="true"]');
    assert.deepEqual(await shownPieces(page), piecesOf(fx.board));
    assert.match(await page.locator('.result-banner').textContent() ?? '', /attackers win.*king was captured/i);
    await shot(page, `viewer-copenhagen-${label}`);
    await page.keyboard.press('ArrowLeft');
    assert.deepEqual(await shownPieces(page), piecesOf(boardAt(start.board, fx.moves, fx.moves.length - 1)));
    await page.keyboard.press('Home');
    assert.deepEqual(await shownPieces(page), piecesOf(start.board));
    assert.equal(await page.locator('.viewer .kt-last').count(), 0);
    await page.click('button[data-nav="next"]');
    await page.click('button[data-nav="next"]');
    assert.deepEqual(await shownPieces(page), piecesOf(boardAt(start.board, fx.moves, 2)));
    await page.click('.moves__move[data-ply="4"]');
    assert.equal(await page.locator('.moves__move[aria-current="true"]').getAttribute('data-ply'), '4');
    assert.deepEqual(await shownPieces(page), piecesOf(boardAt(start.board, fx.moves, 4)));
    await page.keyboard.press('End');
    assert.deepEqual(await shownPieces(page), piecesOf(fx.board));
    assert.equal(await page.locator('.viewer .kt-captured[data-square="e2"]').count(), 1);
    // The pieces each side lost by the move shown: the defender taken on e2.
    for (const side of ['first', 'second']) {
      const count = (/** @type {any} */ view) => piecesOf(view).filter((p) => p.endsWith(`:${side}-${side === 'first' ? 'attacker' : 'defender'}`) || (side === 'second' && p.endsWith(':second-king'))).length;
      assert.equal(await page.getAttribute(`#viewer-captured .captured[data-side="${side}"]`, 'data-lost'), String(count(start.board) - count(fx.board)), side);
    }
    assert.equal(await page.getAttribute('#viewer-captured .captured[data-side="second"]', 'data-lost'), '1');
    assert.match(await page.getAttribute('#viewer-captured .captured[data-side="second"]', 'aria-label') ?? '', /Pieces lost: 1/);
    await page.keyboard.press('Home');
    assert.equal(await page.getAttribute('#viewer-captured .captured[data-side="second"]', 'data-lost'), '0');
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('the reason a game ended is in words in every language', async () => {
  const context = await env.browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const errors = watchErrors(page);
  /** @type {Array<[string, RegExp]>} */
  const cases = [['it', /Vincono gli attaccanti/], ['fr', /Les attaquants gagnent/]];
  for (const [lang, words] of cases) {
    await page.goto(`${env.server.origin}/tests/viewer.html?fixture=camelot_multipath&start=camelot_start&result=castle`);
    await page.evaluate((l) => localStorage.setItem('kingstable.lang', l), lang);
    await page.goto(`${env.server.origin}/tests/viewer.html?fixture=copenhagen_capture&result=repetition`);
    await page.waitForSelector('body[data-ready="true"]');
    assert.match(await page.locator('.result-banner').textContent() ?? '', words);
  }
  await page.goto(`${env.server.origin}/tests/viewer.html?fixture=camelot_multipath&start=camelot_start&result=castle`);
  await page.waitForSelector('body[data-ready="true"]');
  assert.match(await page.locator('.result-banner').textContent() ?? '', /Les Blancs gagnent.*château/);
  await shot(page, 'viewer-camelot-french-desktop');
  assert.deepEqual(errors, []);
  await context.close();
});
