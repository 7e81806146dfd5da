// The app's pages in real Chromium, served as files (no kingstable server yet: the API
// answers 503, and pages must say so instead of breaking): routing, the header, language
// switching, settings, the rules pages with their diagrams; screenshots of every page on
// a desktop and a phone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, DESKTOP, PHONE, shot, watchErrors } from './support.mjs';

const env = useBrowser();


/**
 * @param {{width: number, height: number}} viewport
 * @param {string} [lang]
 */
async function openApp(viewport, lang = 'en-GB') {
  const context = await env.browser.newContext({ viewport, locale: lang, hasTouch: viewport === PHONE });
  const page = await context.newPage();
  const errors = watchErrors(page);
  return { context, page, errors };
}

/**
 * @param {import('playwright-core').Page} page
 * @param {string} path
 */
async function go(page, path) {
  await page.goto(`${env.server.origin}${path}`);
  await page.waitForSelector('body[data-ready="true"]');
}

const PAGES = [
  ['home', '/'],
  ['game', '/game/k3f9x2'],
  ['watch', '/watch'],
  ['archive', '/archive'],
  ['analysis', '/analysis'],
  ['player', '/player/alice'],
  ['rules-copenhagen', '/rules/copenhagen'],
  ['rules-camelot', '/rules/camelot'],
  ['signin', '/signin'],
  ['signup', '/signup'],
  ['settings', '/settings'],
];

test('every page renders on a desktop and a phone without script errors', async () => {
  /** @type {string[]} */
  const problems = [];
  for (const [viewport, label] of /** @type {const} */ ([[DESKTOP, 'desktop'], [PHONE, 'phone']])) {
    const { context, page, errors } = await openApp(viewport);
    for (const [name, path] of PAGES) {
      await go(page, path);
      await shot(page, `page-${name}-${label}`);
      if (await page.locator('main h1').count() < 1) problems.push(`${path} has no heading`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      if (width > viewport.width) problems.push(`${path} is ${width}px wide on a ${viewport.width}px screen`);
    }
    problems.push(...errors);
    await context.close();
  }
  // The longest words (French, Italian) must fit a phone too.
  for (const locale of ['fr-FR', 'it-IT']) {
    const { context, page, errors } = await openApp(PHONE, locale);
    for (const [, path] of PAGES) {
      await go(page, path);
      for (const tab of path === '/' ? ['#tab-ai', '#tab-friend', '#tab-lobby'] : [null]) {
        if (tab) await page.click(tab);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        if (width > PHONE.width) problems.push(`${path} ${tab ?? ''} in ${locale} is ${width}px wide on a phone`);
      }
    }
    problems.push(...errors);
    await context.close();
  }
  assert.deepEqual(problems, []);
});

test('pages without the server say so in words', async () => {
  const { context, page, errors } = await openApp(DESKTOP);
  await go(page, '/game/k3f9x2');
  assert.match(await page.locator('.notice--error').first().textContent() ?? '', /not available/);
  await go(page, '/archive');
  await page.waitForSelector('.notice--error');
  assert.deepEqual(errors, []);
  await context.close();
});

test('links navigate without reloading, and back works', async () => {
  const { context, page, errors } = await openApp(DESKTOP);
  await go(page, '/');
  await page.evaluate(() => { /** @type {any} */ (window).marker = 1; });
  await page.click('.site-nav a[href="/rules"]');
  await page.waitForSelector('body[data-page="rules"]');
  assert.equal(new URL(page.url()).pathname, '/rules');
  assert.equal(await page.locator('.site-nav a[aria-current="page"]').getAttribute('href'), '/rules');
  await page.click('.rules-index__game[href="/rules/copenhagen"]');
  await page.waitForFunction(() => document.querySelector('main h1')?.textContent?.includes('Copenhagen'));
  assert.equal(new URL(page.url()).pathname, '/rules/copenhagen');
  await page.click('.tabs a[href="/rules/camelot"]');
  await page.waitForFunction(() => document.querySelector('main h1')?.textContent?.includes('Camelot'));
  await page.waitForSelector('.rules__diagram .kt-sq');
  assert.equal(await page.locator('.rules__diagram .kt-sq').count(), 160);
  assert.equal(await page.locator('.rules__diagram .kt-piece').count(), 28);
  // The jump sequence's diagram: the two men it takes ringed before, marked taken after.
  await page.waitForSelector('[data-diagram="camelot-jump"] .kt-captured');
  assert.equal(await page.locator('[data-diagram="camelot-jump"] .kt-diagram__target').count(), 2);
  assert.equal(await page.locator('[data-diagram="camelot-jump"] .kt-captured').count(), 2);
  await page.goBack();
  await page.waitForFunction(() => document.querySelector('main h1')?.textContent?.includes('Copenhagen'));
  assert.equal(await page.evaluate(() => /** @type {any} */ (window).marker), 1, 'no reload');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the language follows the browser, switches from the header, and is remembered', async () => {
  const { context, page, errors } = await openApp(DESKTOP, 'it-IT');
  await go(page, '/rules/fetlar');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'it');
  assert.equal(await page.locator('.site-nav a[href="/"]').textContent(), 'Gioca');
  assert.match(await page.locator('main h1').textContent() ?? '', /Regole/);
  await page.selectOption('#lang', 'fr');
  await page.waitForFunction(() => document.documentElement.lang === 'fr');
  await page.waitForFunction(() => document.querySelector('main h1')?.textContent?.includes('Règles'));
  assert.equal(await page.locator('.site-nav a[href="/"]').textContent(), 'Jouer');
  await shot(page, 'page-rules-fetlar-french-desktop');
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'fr');
  await page.selectOption('#lang', 'en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  assert.equal(await page.locator('.site-nav a[href="/"]').textContent(), 'Play');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the home page offers every game, level and time control, by keyboard too', async () => {
  const { context, page, errors } = await openApp(DESKTOP);
  await go(page, '/');
  // The skip link is the first stop of the keyboard and visible when focused.
  await page.keyboard.press('Tab');
  assert.ok(await page.locator('.skip-link').evaluate((el) => el === document.activeElement && el.getBoundingClientRect().left >= 0));
  assert.equal(await page.locator('.game-picker input').count(), 3);
  assert.equal(await page.locator('.level-picker input').count(), 6);
  // With no server to say the levels' ratings, the caption names the level alone.
  assert.equal(await page.locator('.level-caption').textContent(), 'Level 3');
  await page.click('label[for="kind-camelot"]');
  // The side picker names the sides as Camelot does.
  assert.equal(await page.locator('label[for="side-first"]').textContent(), 'White');
  await page.click('#tab-friend');
  assert.equal(await page.locator('.level-picker').count(), 0);
  assert.equal(await page.locator('input[name="rated"]').count(), 1);
  const options = await page.$$eval('#time-control option', (els) => els.map((e) => /** @type {HTMLOptionElement} */ (e).value));
  for (const tc of ['1+0', '3+2', '5+3', '10+5', '15+10', '30+20', '1d', '2d', '3d', '5d', '7d', '14d', 'untimed']) {
    assert.ok(options.includes(tc), `time control ${tc}`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('settings are kept in this browser', async () => {
  const { context, page, errors } = await openApp(PHONE);
  await go(page, '/settings');
  await page.click('label[for="s-or-first"]');
  await page.uncheck('#s-sound');
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('kingstable.prefs') ?? '{}'));
  assert.deepEqual({ orientation: stored.orientation, sound: stored.sound }, { orientation: 'first', sound: false });
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.isChecked('#s-sound'), false);
  assert.equal(await page.isChecked('#s-or-first'), true);
  assert.deepEqual(errors, []);
  await context.close();
});

test('page weight and time to the first board on loopback (written to weights.json)', async () => {
  const { writeFile, mkdir } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { SHOTS } = await import('./support.mjs');
  /** @type {Record<string, {bytes: number, requests: number, first_board_ms: number}>} */
  const report = {};
  for (const [name, path, selector] of [['rules', '/rules/copenhagen', '.kt-sq'], ['home', '/', '.game-picker']]) {
    const { context, page } = await openApp(DESKTOP);
    const t0 = Date.now();
    await page.goto(`${env.server.origin}${path}`);
    await page.waitForSelector(selector);
    const ms = Date.now() - t0;
    await page.waitForLoadState('networkidle');
    // Everything the page fetched, uncompressed (the API's answers left out).
    const { bytes, requests } = await page.evaluate(() => {
      const nav = /** @type {PerformanceResourceTiming} */ (performance.getEntriesByType('navigation')[0]);
      const files = /** @type {PerformanceResourceTiming[]} */ (performance.getEntriesByType('resource')).filter((e) => !e.name.includes('/api/'));
      return { bytes: files.reduce((sum, e) => sum + e.decodedBodySize, nav.decodedBodySize), requests: files.length + 1 };
    });
    report[name] = { bytes, requests, first_board_ms: ms };
    await context.close();
  }
  await mkdir(SHOTS, { recursive: true });
  await writeFile(join(SHOTS, 'weights.json'), JSON.stringify(report, null, 2));
  console.log(JSON.stringify(report));
  // Budgets: everything the first page needs, uncompressed, without a build step.
  assert.ok(report.home.bytes < 250_000, `home page is ${report.home.bytes} bytes`);
  assert.ok(report.rules.first_board_ms < 5000, `first board after ${report.rules.first_board_ms} ms`);
});

test('analysis: set up a position on the board and get its position string', async () => {
  const { context, page, errors } = await openApp(DESKTOP);
  await go(page, '/analysis?kind=copenhagen');
  await page.waitForSelector('.kt-piece');
  await page.click('#edit-start');
  await page.waitForSelector('#editor:not([hidden])');
  // The first tool is the attacker: a click on one removes it, a click on an empty
  // square puts one there; the king goes to c3.
  await page.click('.kt-sq[data-square="d1"]');
  await page.click('.kt-sq[data-square="b2"]');
  await page.click('label[for="tool-second-king"]');
  await page.click('.kt-sq[data-square="c3"]');
  await page.selectOption('#edit-side', 'second');
  await shot(page, 'page-analysis-setup-desktop');
  await page.click('#edit-done');
  const text = await page.inputValue('#a-position');
  assert.match(text, /^\/4tttt3\/1t3t5\/2K8\//);
  assert.match(text, / defenders$/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('counts take the plural form of each language (Intl.PluralRules)', async () => {
  const { context, page, errors } = await openApp(DESKTOP);
  await go(page, '/');
  const words = await page.evaluate(async () => {
    const i18n = await import(/** @type {string} */ ('/js/i18n.js'));
    /** @type {Record<string, string[]>} */
    const out = {};
    for (const lang of ['en', 'it', 'fr']) {
      await i18n.setLang(lang);
      out[lang] = [0, 1, 2].flatMap((count) => [
        i18n.t('analysis.blunders', { count }),
        i18n.t('play.watchers', { count }),
      ]);
    }
    await i18n.setLang('en');
    return out;
  });
  assert.deepEqual(words.en, ['0 blunders', '0 watching', '1 blunder', '1 watching', '2 blunders', '2 watching']);
  assert.deepEqual(words.it, ['0 errori gravi', '0 spettatori', '1 errore grave', '1 spettatore', '2 errori gravi', '2 spettatori']);
  // French counts zero as singular.
  assert.deepEqual(words.fr, ['0 gaffe', '0 spectateur', '1 gaffe', '1 spectateur', '2 gaffes', '2 spectateurs']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the server\'s error codes are shown in the page\'s language, never its English', async () => {
  const { context, page, errors } = await openApp(DESKTOP);
  await go(page, '/');
  const texts = await page.evaluate(async () => {
    const i18n = await import(/** @type {string} */ ('/js/i18n.js'));
    const { errorText, errorCodeText, refusalText } = await import(/** @type {string} */ ('/js/ui.js'));
    const { ApiError } = await import(/** @type {string} */ ('/js/api.js'));
    /** @type {Record<string, string[]>} */
    const out = {};
    for (const lang of ['en', 'fr']) {
      await i18n.setLang(lang);
      out[lang] = [
        errorText(new ApiError('invalid_credentials', 'wrong username or password', 401)),
        errorText(new ApiError('not_signed_in', 'sign in first', 401)),
        errorText(new ApiError('username_taken', 'this username is taken', 409)),
        errorText(new ApiError('some_new_code', 'english words from the server', 409)),
        errorCodeText('illegal_move'),
        // A case the server names is said more precisely than its code.
        errorText(new ApiError('conflict', 'the challenge was taken, withdrawn or has lapsed', 409, 'challenge_gone')),
        errorText(new ApiError('not_signed_in', 'sign in to play rated games', 401, 'rated_needs_account')),
        errorText(new ApiError('conflict', 'english words from the server', 409, 'some_new_reason')),
        // A game socket's refusal: its case, else its code.
        refusalText({ t: 'error', code: 'not_allowed', reason: 'no_draw_offer', message: 'no draw offer' }),
        refusalText({ t: 'error', code: 'not_allowed', message: 'english words from the server' }),
      ];
    }
    await i18n.setLang('en');
    return out;
  });
  assert.deepEqual(texts.en, [
    'Wrong username or password.',
    'Sign in first.',
    'Someone already has this username.',
    'That is not possible now.',
    'That move is not allowed.',
    'This challenge was taken by someone else, withdrawn, or has lapsed.',
    'Sign in to play rated games.',
    'That is not possible now.',
    'There is no draw offer to answer.',
    'That is not possible now.',
  ]);
  assert.equal(texts.fr[8], 'Il n’y a pas de proposition de nulle à laquelle répondre.');
  assert.equal(texts.fr[0], "Nom d'utilisateur ou mot de passe incorrect.");
  assert.equal(texts.fr[5], 'Ce défi a été accepté par quelqu’un d’autre, retiré, ou a expiré.');
  for (const text of [...texts.en, ...texts.fr]) {
    assert.ok(!/username is taken|english words|wrong username or password|withdrawn or has lapsed/.test(text), text);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('a long Camelot capture wraps in the move list between squares, never inside one', async () => {
  const { context, page, errors } = await openApp(DESKTOP);
  await go(page, '/');
  const pieces = await page.evaluate(async () => {
    const { MoveList } = await import(/** @type {string} */ ('/js/movelist.js'));
    const list = new MoveList(() => {});
    const box = document.createElement('div');
    box.style.width = '190px';
    box.append(list.el);
    document.body.append(box);
    const text = 'E10xE8xC8xE6xG8xI6';
    list.set([{ ply: 1, player: 'first', text }, { ply: 2, player: 'second', text: 'F11-F10' }], 2);
    const button = /** @type {HTMLElement} */ (box.querySelector('.moves__move'));
    // Each square with its separator is one text node: none of them may be split.
    const split = [...button.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => {
      const range = document.createRange();
      range.selectNodeContents(n);
      return { text: n.textContent, lines: new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size };
    });
    const lines = new Set([...button.querySelectorAll('*'), button].length ? [...(() => {
      const range = document.createRange();
      range.selectNodeContents(button);
      return range.getClientRects();
    })()].map((r) => Math.round(r.top)) : []).size;
    list.destroy();
    box.remove();
    return { split, lines, text: button.textContent };
  });
  assert.equal(pieces.text, 'E10xE8xC8xE6xG8xI6');
  assert.ok(pieces.lines >= 2, 'the move is longer than its column and wraps');
  for (const part of pieces.split) assert.equal(part.lines, 1, `${part.text} is cut across lines`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Rules opens a page of the three games, each described in a line and linked to its own rules', async () => {
  const { context, page, errors } = await openApp(DESKTOP);
  await go(page, '/');
  await page.click('.site-nav a:has-text("Rules")');
  await page.waitForURL(/\/rules$/);
  await page.waitForSelector('.rules-index__game .kt-sq');
  const games = await page.$$eval('.rules-index__game', (cards) => cards.map((c) => ({
    href: c.getAttribute('href'), title: c.querySelector('h2')?.textContent, text: c.querySelector('p')?.textContent ?? '',
  })));
  assert.deepEqual(games.map((g) => g.href), ['/rules/fetlar', '/rules/copenhagen', '/rules/camelot']);
  for (const g of games) assert.ok(g.text.length > 40, `${g.title}: ${g.text}`);
  await shot(page, 'rules-index');
  await page.click('.rules-index__game[href="/rules/camelot"]');
  await page.waitForFunction(() => document.querySelector('main h1')?.textContent?.includes('Camelot'));
  assert.deepEqual(errors, []);
  await context.close();
});
