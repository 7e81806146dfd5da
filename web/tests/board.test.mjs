// The board component in real Chromium, on positions made by the real rules: select,
// see the destinations, play by click, drag and keyboard, choose a Camelot jump path in
// the picker, flip, switch language; screenshots on a desktop and a phone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, DESKTOP, PHONE, shot, watchErrors, fixture } from './support.mjs';

/** @typedef {import('../js/types.js').MoveInfo} MoveInfo */
/** @typedef {import('../js/types.js').Square} Square */

const env = useBrowser();

/**
 * Opens the harness on a fixture.
 * @param {string} name
 * @param {{viewport?: {width: number, height: number}, query?: string}} [opts]
 */
async function open(name, opts = {}) {
  const context = await env.browser.newContext({ viewport: opts.viewport ?? DESKTOP, hasTouch: opts.viewport === PHONE });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${env.server.origin}/tests/harness.html?fixture=${name}&${opts.query ?? ''}`);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, errors, context };
}

/**
 * @param {{board: {file_names: string[], rank_names: string[]}}} fx
 * @param {Square} sq
 */
const nameOf = (fx, sq) => `${fx.board.file_names[sq.file]}${fx.board.rank_names[sq.rank]}`;

/**
 * The distinct destination names of the moves from `from`.
 * @param {any} fx
 * @param {string} from
 */
function destinations(fx, from) {
  const moves = /** @type {MoveInfo[]} */ (fx.legal_moves).filter((m) => nameOf(fx, m.from) === from);
  return [...new Set(moves.map((m) => nameOf(fx, m.to)))].sort();
}

/** @param {import('playwright-core').Page} page */
async function shownDestinations(page) {
  const names = await page.$$eval('.kt-dest', (els) => els.map((e) => e.getAttribute('data-square') ?? ''));
  return names.sort();
}

/**
 * Waits until `fn` (run in the page) returns true.
 * @param {import('playwright-core').Page} page
 * @param {() => boolean} fn
 */
const until = (page, fn) => page.waitForFunction(fn, undefined, { timeout: 5000 });

/** @param {import('playwright-core').Page} page */
const played = (page) => page.evaluate(() => /** @type {any} */ (window).played);

test('copenhagen: a click selects an attacker, shows its destinations, a click plays', async () => {
  const fx = await fixture('copenhagen_start');
  const { page, errors, context } = await open('copenhagen_start');
  assert.equal(await page.locator('.kt-piece').count(), fx.board.cells.filter((/** @type {any} */ c) => c.piece).length);
  assert.equal(await page.locator('.kt-piece[data-piece="second-king"]').getAttribute('data-square'), 'f6');
  // The defenders cannot be picked: it is the attackers' turn.
  await page.click('.kt-sq[data-square="f4"]');
  assert.deepEqual(await shownDestinations(page), []);
  await page.click('.kt-sq[data-square="d1"]');
  const expected = destinations(fx, 'd1');
  assert.ok(expected.includes('d3'));
  assert.deepEqual(await shownDestinations(page), expected);
  await shot(page, 'board-copenhagen-selected-desktop');
  await page.click('.kt-sq[data-square="d3"]');
  assert.deepEqual(await played(page), ['d1-d3']);
  // The move shows at once and input stops until the next position arrives.
  assert.equal(await page.locator('.kt-piece[data-square="d3"]').getAttribute('data-piece'), 'first-attacker');
  assert.equal(await page.locator('.kt-piece[data-square="d1"]').count(), 0);
  await page.click('.kt-sq[data-square="h1"]');
  assert.deepEqual(await shownDestinations(page), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('copenhagen: a drag from h1 to h3 plays h1-h3; a drop off the destinations plays nothing', async () => {
  const fx = await fixture('copenhagen_start');
  assert.ok(destinations(fx, 'h1').includes('h3'));
  const { page, errors, context } = await open('copenhagen_start');
  const center = async (/** @type {string} */ sq) => {
    const box = await page.locator(`.kt-sq[data-square="${sq}"]`).boundingBox();
    assert.ok(box);
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  };
  // Dropped on a square it cannot reach: back home, nothing played.
  let from = await center('h1');
  let to = await center('i3');
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 8 });
  await page.mouse.up();
  assert.deepEqual(await played(page), []);
  assert.equal(await page.locator('.kt-piece[data-square="h1"]').count(), 1);
  from = await center('h1');
  to = await center('h3');
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 5 });
  await shot(page, 'board-copenhagen-dragging-desktop');
  await page.mouse.move(to.x, to.y, { steps: 5 });
  await page.mouse.up();
  assert.deepEqual(await played(page), ['h1-h3']);
  assert.equal(await page.locator('.kt-piece[data-square="h3"]').getAttribute('data-piece'), 'first-attacker');
  assert.deepEqual(errors, []);
  await context.close();
});

test('copenhagen: keyboard play with arrows, Enter and Escape', async () => {
  const fx = await fixture('copenhagen_start');
  const { page, errors, context } = await open('copenhagen_start');
  await page.focus('.kt-board__svg');
  // The focus starts on the first movable piece; walk it to e1.
  const start = /** @type {MoveInfo} */ (fx.legal_moves[0]).from;
  const focusAt = () => page.locator('.kt-focus').getAttribute('data-square');
  assert.equal(await focusAt(), nameOf(fx, start));
  const target = { file: 4, rank: 0 };
  for (let i = start.file; i < target.file; i++) await page.keyboard.press('ArrowRight');
  for (let i = start.file; i > target.file; i--) await page.keyboard.press('ArrowLeft');
  for (let i = start.rank; i > target.rank; i--) await page.keyboard.press('ArrowDown');
  for (let i = start.rank; i < target.rank; i++) await page.keyboard.press('ArrowUp');
  assert.equal(await focusAt(), 'e1');
  assert.ok(await page.locator('.kt-focus').isVisible(), 'the focus square is visible');
  await page.keyboard.press('Enter');
  assert.deepEqual(await shownDestinations(page), destinations(fx, 'e1'));
  await page.keyboard.press('Escape');
  assert.deepEqual(await shownDestinations(page), []);
  await page.keyboard.press('Enter');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  assert.match(await page.locator('.kt-board .visually-hidden').textContent() ?? '', /e3/);
  await shot(page, 'board-copenhagen-keyboard-desktop');
  await page.keyboard.press('Enter');
  assert.deepEqual(await played(page), ['e1-e3']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('copenhagen: the last move and its capture are highlighted', async () => {
  const fx = await fixture('copenhagen_capture');
  const last = fx.moves.at(-1);
  assert.equal(last.text, 'g3-e3xe2');
  const { page, errors, context } = await open('copenhagen_capture');
  const lit = await page.$$eval('.kt-last', (els) => els.map((e) => e.getAttribute('data-square')).sort());
  assert.deepEqual(lit, ['e3', 'g3']);
  assert.equal(await page.locator('.kt-captured[data-square="e2"]').count(), 1);
  assert.equal(await page.locator('.kt-piece[data-square="e2"]').count(), 0);
  await shot(page, 'board-copenhagen-capture-desktop');
  assert.deepEqual(errors, []);
  await context.close();
});

test('camelot: several jump paths to one square open the picker; the chosen path is played', async () => {
  const fx = await fixture('camelot_multipath');
  assert.equal(fx.board.to_move, 'second');
  const choices = /** @type {MoveInfo[]} */ (fx.legal_moves).filter((m) => nameOf(fx, m.from) === 'F9' && nameOf(fx, m.to) === 'B7');
  assert.ok(choices.length >= 2, 'the fixture has several paths from F9 to B7');
  const { page, errors, context } = await open('camelot_multipath');
  assert.equal(await page.locator('.kt-sq').count(), 160, "Camelot's board has 160 squares");
  assert.equal(await page.locator('.kt-sq--castle').count(), 4);
  await page.click('.kt-sq[data-square="F9"]');
  assert.deepEqual(await shownDestinations(page), destinations(fx, 'F9'));
  await page.click('.kt-sq[data-square="B7"]');
  const picker = page.locator('.kt-picker');
  assert.ok(await picker.isVisible());
  const shown = await picker.locator('.kt-picker__choice').evaluateAll((els) => els.map((e) => /** @type {HTMLElement} */ (e).dataset.move));
  assert.deepEqual(shown, choices.map((m) => m.text));
  // The path of the focused choice is drawn with its captures.
  const want = choices.find((m) => m.path.some((sq) => nameOf(fx, sq) === 'H5')) ?? choices[1];
  await picker.locator(`.kt-picker__choice[data-move="${want.text}"]`).hover();
  assert.equal(await page.locator('.kt-path__capture').count(), want.captures.length);
  assert.equal(await page.locator('.kt-path__step').count(), want.path.length - 1);
  await shot(page, 'board-camelot-picker-desktop');
  // Escape closes it and plays nothing; choosing again and clicking plays that path.
  await page.keyboard.press('Escape');
  assert.ok(await picker.isHidden());
  assert.deepEqual(await played(page), []);
  // The knight stays selected: its destinations are still shown.
  assert.deepEqual(await shownDestinations(page), destinations(fx, 'F9'));
  await page.click('.kt-sq[data-square="B7"]');
  await picker.locator(`.kt-picker__choice[data-move="${want.text}"]`).click();
  assert.deepEqual(await played(page), [want.text]);
  for (const sq of want.captures) {
    assert.equal(await page.locator(`.kt-piece[data-square="${nameOf(fx, sq)}"]`).count(), 0);
  }
  const mover = fx.board.cells[want.from.rank * fx.board.files + want.from.file].piece;
  assert.equal(await page.locator('.kt-piece[data-square="B7"]').getAttribute('data-piece'), mover.join('-'));
  assert.deepEqual(errors, []);
  await context.close();
});

test('camelot: the picker works by keyboard too', async () => {
  const fx = await fixture('camelot_multipath');
  const choices = /** @type {MoveInfo[]} */ (fx.legal_moves).filter((m) => nameOf(fx, m.from) === 'C11' && nameOf(fx, m.to) === 'K7');
  assert.equal(choices.length, 2);
  const { page, errors, context } = await open('camelot_multipath');
  await page.click('.kt-sq[data-square="C11"]');
  await page.click('.kt-sq[data-square="K7"]');
  // The first choice takes the focus; the arrows move it, Enter plays the focused path.
  await until(page, () => document.activeElement?.classList.contains('kt-picker__choice') ?? false);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  assert.deepEqual(await played(page), [choices[1].text]);
  assert.deepEqual(errors, []);
  await context.close();
});

test('camelot: keys that reach the board while the picker is open act on the picker', async () => {
  // A fast player presses a key before the focus has moved into the picker: the board
  // passes it on, starting from the previewed (first) choice.
  const fx = await fixture('camelot_multipath');
  const choices = /** @type {MoveInfo[]} */ (fx.legal_moves).filter((m) => nameOf(fx, m.from) === 'C11' && nameOf(fx, m.to) === 'K7');
  const { page, errors, context } = await open('camelot_multipath');
  await page.click('.kt-sq[data-square="C11"]');
  await page.click('.kt-sq[data-square="K7"]');
  await until(page, () => document.activeElement?.classList.contains('kt-picker__choice') ?? false);
  await page.focus('.kt-board__svg');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => /** @type {HTMLElement} */ (document.activeElement).dataset.move), choices[1].text);
  // The focused choice is the previewed one; Enter on the board plays it.
  await page.focus('.kt-board__svg');
  await page.keyboard.press('Enter');
  assert.deepEqual(await played(page), [choices[1].text]);
  assert.deepEqual(errors, []);
  await context.close();
});

test('flip puts the other side at the bottom and coordinates follow', async () => {
  const { page, errors, context } = await open('camelot_start');
  const y = async (/** @type {string} */ sq) => (await page.locator(`.kt-sq[data-square="${sq}"]`).boundingBox())?.y ?? NaN;
  assert.ok(await y('F1') > await y('F16'), 'White at the bottom');
  await page.click('#flip');
  assert.equal(await page.locator('.kt-board').getAttribute('data-orientation'), 'second');
  assert.ok(await y('F1') < await y('F16'), 'Black at the bottom after the flip');
  const files = await page.$$eval('.kt-coords text', (els) => els.map((e) => e.textContent));
  assert.equal(files[0], 'A');
  await shot(page, 'board-camelot-flipped-desktop');
  assert.deepEqual(errors, []);
  await context.close();
});

test('switching language translates the board and is remembered', async () => {
  const { page, errors, context } = await open('camelot_multipath');
  const label = () => page.locator('.kt-board__svg').getAttribute('aria-label');
  assert.match(await label() ?? '', /Camelot board/);
  await page.selectOption('#lang', 'it');
  await until(page, () => document.documentElement.lang === 'it');
  assert.match(await label() ?? '', /Scacchiera di Camelot/);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'it');
  await page.click('.kt-sq[data-square="F9"]');
  await page.click('.kt-sq[data-square="B7"]');
  assert.match(await page.locator('.kt-picker__title').textContent() ?? '', /percorsi/);
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.match(await label() ?? '', /Scacchiera/);
  await page.selectOption('#lang', 'fr');
  await until(page, () => document.documentElement.lang === 'fr');
  assert.match(await label() ?? '', /Plateau de Camelot/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a phone: tap to select and tap to play, the whole board fits the screen', async () => {
  for (const name of ['copenhagen_capture', 'camelot_multipath']) {
    const { page, errors, context } = await open(name, { viewport: PHONE });
    const box = await page.locator('.kt-board__svg').boundingBox();
    assert.ok(box && box.width <= PHONE.width && box.x >= 0, 'the board fits the width');
    await shot(page, `board-${name}-phone`);
    const fx = await fixture(name);
    const move = /** @type {MoveInfo} */ (fx.legal_moves.at(-1));
    const from = nameOf(fx, move.from);
    await page.tap(`.kt-sq[data-square="${from}"]`);
    assert.deepEqual(await shownDestinations(page), destinations(fx, from));
    await page.tap(`.kt-sq[data-square="${nameOf(fx, move.to)}"]`);
    const picked = page.locator(`.kt-picker__choice[data-move="${move.text}"]`);
    if (await picked.count()) await picked.tap();
    assert.deepEqual(await played(page), [move.text]);
    assert.deepEqual(errors, []);
    await context.close();
  }
});
