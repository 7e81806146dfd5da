// The app served by a real `kingstable serve` (on 127.0.0.1 with a new SQLite file):
// the server hands out the app for every page address, and accounts work end to end from
// the pages. Skipped when no kingstable binary with `serve` is built, unless
// KINGSTABLE_REQUIRE_SERVER=1 (CI), which makes that a failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DESKTOP, shot, useKingstable } from './support.mjs';

const suite = await useKingstable();
const { skip, go } = suite;

/** @param {import('playwright-core').Page} page */
function watch(page) {
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

test('kingstable serve hands out the app for every page address', { skip }, async () => {
  const b = suite.browser;
  const context = await b.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const errors = watch(page);
  for (const path of ['/', '/game/abc123', '/watch', '/archive', '/analysis', '/rules/camelot', '/signin', '/signup', '/settings']) {
    await go(page, path);
    assert.ok(await page.locator('main h1').count() >= 1, `${path} shows a page`);
  }
  await page.waitForSelector('.rules__diagram .kt-sq, main h1');
  assert.deepEqual(errors, []);
  await context.close();
});

test('sign up, see your page, sign out, sign in again; a wrong password is refused in words', { skip }, async () => {
  const b = suite.browser;
  const context = await b.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const errors = watch(page);
  const name = `web${Date.now().toString(36)}`;
  const password = 'correct horse battery';
  await go(page, '/signup');
  await page.fill('#username', name);
  await page.fill('#password', password);
  await page.click('form button[type="submit"]');
  await page.waitForSelector(`#account a[href="/player/${name}"]`);
  await page.click(`#account a[href="/player/${name}"]`);
  await page.waitForFunction((n) => document.querySelector('main h1')?.textContent === n, name);
  await shot(page, 'server-player-desktop');
  await go(page, '/settings');
  await page.waitForSelector('text=Sign out everywhere');
  await page.click('button:has-text("Sign out")');
  await page.waitForSelector('#account a[href="/signin"]');
  await go(page, '/signin');
  await page.fill('#username', name);
  await page.fill('#password', 'not the password');
  await page.click('form button[type="submit"]');
  await page.waitForSelector('.notice--error');
  // The words for a wrong password, not the 'sign in first' of every other 401.
  assert.equal(await page.textContent('.notice--error'), 'Wrong username or password.');
  await page.fill('#password', password);
  await page.click('form button[type="submit"]');
  await page.waitForSelector(`#account a[href="/player/${name}"]`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the analysis page keeps to the site\'s Content-Security-Policy and starts with an even evaluation bar', { skip }, async () => {
  const b = suite.browser;
  const context = await b.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const errors = watch(page);
  /** @type {string[]} */
  const violations = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`Content Security Policy: ${e.violatedDirective}`));
  });
  await go(page, '/analysis');
  await page.waitForSelector('.eval-bar__fill');
  const share = await page.$eval('.eval-bar__fill', (el) => {
    const bar = /** @type {HTMLElement} */ (el.parentElement);
    return el.getBoundingClientRect().height / bar.getBoundingClientRect().height;
  });
  assert.ok(Math.abs(share - 0.5) < 0.05, `the bar starts at ${share}, not even`);
  assert.deepEqual(violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('an imported record is listed with its players, and the open game is in the address to share', { skip }, async () => {
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { ROOT } = await import('./support.mjs');
  const record = await readFile(join(ROOT, 'crates', 'tafl', 'tests', 'data', 'millar_vs_schachus_2015.otg'), 'utf8');
  const b = suite.browser;
  const context = await b.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const errors = watch(page);
  await go(page, '/archive');
  await page.click('details summary');
  await page.selectOption('#import-kind', 'copenhagen');
  await page.fill('#import-text', record);
  await page.click('details form button[type="submit"]');
  await page.waitForSelector('.notice--good');
  // The list refreshes with the new game, named as the record names its players.
  await page.waitForSelector('td:has-text("Tim Millar – Schachus")');
  await page.waitForFunction(() => new URL(location.href).searchParams.has('game'));
  const address = page.url();
  const id = new URL(address).searchParams.get('game');
  assert.match(id ?? '', /^\w+$/);
  // The address opens the same game again.
  const other = await context.newPage();
  await go(other, new URL(address).pathname + new URL(address).search);
  await other.waitForSelector('#viewer .kt-board');
  await context.close();
  assert.deepEqual(errors, []);
});

test('the game page shows the whole board and both players\' bars and clocks without scrolling, on desktops and phones', { skip }, async () => {
  const b = suite.browser;
  const context = await b.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const errors = watch(page);
  await go(page, '/');
  /** @type {string[]} */
  const problems = [];
  // In Italian and French: longer words must not push a bar out of view.
  for (const [kind, lang] of [['copenhagen', 'it'], ['camelot', 'fr']]) {
    await page.evaluate((l) => localStorage.setItem('kingstable.lang', l), lang);
    const id = await page.evaluate(async (k) => {
      const reply = await fetch('/api/games', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: k, opponent: { ai: 1 }, side: 'first', time_control: '5+3' }),
      });
      return (await reply.json()).id;
    }, kind);
    for (const [width, height] of [[1920, 1080], [1366, 768], [1280, 720], [360, 740], [740, 360]]) {
      await page.setViewportSize({ width, height });
      await go(page, `/game/${id}`);
      await page.waitForSelector('.play__board .kt-board .kt-piece');
      const box = await page.evaluate(() => {
        const rect = (/** @type {Element | null} */ el) => {
          const r = el?.getBoundingClientRect();
          return r ? { top: r.top, bottom: r.bottom, left: r.left, right: r.right } : null;
        };
        return {
          board: rect(document.querySelector('.play__board .kt-board__svg')),
          bars: [...document.querySelectorAll('.play__board > .player-bar')].map(rect),
          scrollWidth: document.documentElement.scrollWidth,
        };
      });
      /** @type {[string, {top: number, bottom: number, left: number, right: number} | null | undefined][]} */
      const parts = [['board', box.board], ['top bar', box.bars[0]], ['bottom bar', box.bars[1]]];
      for (const [name, r] of parts) {
        if (!r || r.top < 0 || r.bottom > height + 0.5 || r.left < 0 || r.right > width + 0.5) {
          problems.push(`${kind} ${lang} ${width}x${height}: the ${name} is at ${JSON.stringify(r)}`);
        }
      }
      if (box.scrollWidth > width) problems.push(`${kind} ${lang} ${width}x${height}: the page is ${box.scrollWidth} px wide`);
      await shot(page, `server-game-${kind}-${lang}-${width}x${height}`);
    }
  }
  await page.evaluate(() => localStorage.removeItem('kingstable.lang'));
  assert.deepEqual(problems, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('small live boards fit their cards on the home and watch pages, and no page scrolls sideways', { skip }, async () => {
  const b = suite.browser;
  const context = await b.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const errors = watch(page);
  await go(page, '/');
  for (const kind of ['copenhagen', 'camelot', 'fetlar']) {
    await page.evaluate(async (k) => {
      await fetch('/api/games', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: k, opponent: { ai: 1 }, side: 'second', time_control: '5+3' }),
      });
    }, kind);
  }
  /** @type {string[]} */
  const problems = [];
  for (const [width, height] of [[1366, 768], [1280, 720], [360, 740]]) {
    await page.setViewportSize({ width, height });
    for (const path of ['/', '/watch']) {
      await go(page, path);
      await page.waitForSelector('.mini .kt-board .kt-piece');
      const found = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        cards: [...document.querySelectorAll('.mini')].map((card) => {
          const c = card.getBoundingClientRect();
          const svg = card.querySelector('svg')?.getBoundingClientRect();
          return { inside: !!svg && svg.left >= c.left - 0.5 && svg.right <= c.right + 0.5, overflow: card.scrollWidth - card.clientWidth };
        }),
      }));
      if (found.page > width) problems.push(`${path} at ${width}: the page is ${found.page} px wide`);
      found.cards.forEach((c, i) => {
        if (!c.inside || c.overflow > 1) problems.push(`${path} at ${width}: card ${i} overflows (${JSON.stringify(c)})`);
      });
      await shot(page, `server-minis${path === '/' ? '-home' : path.replace('/', '-')}-${width}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('on a phone the archive and the lobby fit the screen: rows become cards with their button in view', { skip }, async () => {
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { ROOT, PHONE } = await import('./support.mjs');
  const record = await readFile(join(ROOT, 'crates', 'tafl', 'tests', 'data', 'millar_vs_schachus_2015.otg'), 'utf8');
  const b = suite.browser;
  const context = await b.newContext({ viewport: PHONE, hasTouch: true });
  const page = await context.newPage();
  const errors = watch(page);
  await go(page, '/');
  await page.evaluate(async (rec) => {
    const post = (/** @type {string} */ path, /** @type {unknown} */ body) => fetch(path, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    await post('/api/import', { kind: 'copenhagen', record: rec });
    await post('/api/challenges', { kind: 'camelot', time_control: '5+3' });
  }, record);
  /** @type {string[]} */
  const problems = [];
  const check = async (/** @type {string} */ name, /** @type {string} */ button) => {
    const found = await page.evaluate((sel) => ({
      page: document.documentElement.scrollWidth,
      buttons: [...document.querySelectorAll(sel)].map((el) => el.getBoundingClientRect().right),
    }), button);
    if (found.page > PHONE.width) problems.push(`${name}: the page is ${found.page} px wide`);
    if (!found.buttons.length) problems.push(`${name}: no ${button}`);
    for (const right of found.buttons) if (right > PHONE.width) problems.push(`${name}: a button ends at ${right} px`);
    await shot(page, `server-phone-${name}`);
  };
  await go(page, '/archive');
  await page.waitForSelector('.table td');
  await check('archive', '.table td button');
  await go(page, '/');
  await page.click('text=Lobby');
  await page.waitForSelector('.table td');
  await check('lobby', '.table td button');
  assert.deepEqual(problems, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('an imported game shows its record\'s players and date in the viewer and on its game page', { skip }, async () => {
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { ROOT } = await import('./support.mjs');
  const record = await readFile(join(ROOT, 'crates', 'tafl', 'tests', 'data', 'millar_vs_schachus_2015.otg'), 'utf8');
  const b = suite.browser;
  const context = await b.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const errors = watch(page);
  await go(page, '/');
  const id = await page.evaluate(async (rec) => {
    const reply = await fetch('/api/import', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'copenhagen', record: rec }),
    });
    return (await reply.json()).id;
  }, record);
  // The archive's viewer: the players as the record names them, on the record's day.
  await go(page, `/archive?game=${id}`);
  await page.waitForSelector('#viewer .kt-board');
  assert.equal(await page.locator('#viewer-players').textContent(), 'Tim Millar (Attackers) – Schachus (Defenders)');
  assert.match(await page.locator('#viewer-date').textContent() ?? '', /2015/);
  // Analyse opens the position the viewer shows.
  assert.equal(await page.getAttribute('#viewer-analyse', 'href'), `/analysis?game=${id}`);
  await page.click('#viewer .moves__move[data-ply="5"]');
  assert.equal(await page.getAttribute('#viewer-analyse', 'href'), `/analysis?game=${id}&ply=5`);
  await page.click('#viewer-analyse');
  await page.waitForSelector('.analysis .moves__move[data-ply="6"]');
  assert.equal(await page.getAttribute('.moves__move[aria-current="true"]', 'data-ply'), '5');
  // The game page: both bars name them, and the date is the record's.
  await go(page, `/game/${id}`);
  await page.waitForSelector('.player-bar__name');
  const names = await page.$$eval('.player-bar__name', (els) => els.map((e) => e.textContent));
  assert.deepEqual([...names].sort(), ['Schachus', 'Tim Millar']);
  assert.match(await page.locator('#game-facts').textContent() ?? '', /2015/);
  assert.match(await page.locator('.result-banner').textContent() ?? '', /The defenders win.*The attackers resigned\./);
  assert.match(await page.title(), /Tim Millar – Schachus/);
  await shot(page, 'server-imported-game-desktop');
  assert.deepEqual(errors, []);
  await context.close();
});
