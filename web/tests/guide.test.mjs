// A newcomer's guidance, the rules pages' diagrams, the profile's rating graph and the
// board's size on a phone, against a real `kingstable serve` on 127.0.0.1 (issue 20):
// the home page says what each game is and links to its rules; the header's Rules link
// opens the game being played or chosen; the game page states the player's goal; every
// rule point has a diagram with coordinates in three languages; the rating graph starts
// before the first rated game and is legible on a phone; recent games say the owner's
// side and result; the board fills a phone's width with both bars and clocks in view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DESKTOP, PHONE, shot, useKingstable, playAny } from './support.mjs';

/** @typedef {import('playwright-core').Page} Page */

const suite = await useKingstable();
const { skip, go } = suite;

/**
 * A player in their own browser context, reading `lang`.
 * @param {{width: number, height: number}} [viewport]
 * @param {string} [lang]
 */
const player = (viewport = DESKTOP, lang = 'en') => suite.player(viewport, lang);

/**
 * Starts a game against the AI from the home page; returns its path.
 * @param {Page} page
 * @param {string} kind
 * @param {string} side
 * @param {string} [tc]
 */
async function againstAi(page, kind, side, tc = '5+3') {
  await go(page, '/');
  await page.click('#tab-ai');
  await page.click(`label[for="kind-${kind}"]`);
  await page.click(`label[for="side-${side}"]`);
  await page.selectOption('#time-control', tc);
  await page.click('#play-button');
  // The game page, or the error the home page shows instead.
  await page.waitForFunction(() => location.pathname.startsWith('/game/') || document.querySelector('.notice--bad, .notice--error, [role="alert"]'));
  if (!new URL(page.url()).pathname.startsWith('/game/')) {
    throw new Error(`no game: ${await page.locator('main').innerText()}`);
  }
  await page.waitForSelector('.kt-board .kt-sq');
  await page.waitForSelector('#game-goal a');
  return new URL(page.url()).pathname;
}

/**
 * Ends the game on `page` (abort, or resign once moves are made): the server lets one
 * address play only a few games against the AI at once.
 * @param {Page} page
 */
async function leave(page) {
  const abort = page.locator('[data-action="abort"]');
  await page.waitForSelector('[data-action="abort"], [data-action="resign"]');
  await ((await abort.count()) ? abort : page.locator('[data-action="resign"]')).click();
  await page.click('dialog[open] .btn--primary');
  await page.waitForSelector('main[data-status="aborted"], main[data-status="finished"]');
}

/** @param {Page} page */
const rulesHref = (page) => page.locator('.site-nav a[data-i18n="nav.rules"]').getAttribute('href');

test('a newcomer: the games in a line each, Rules opens the game in front of them, the goal on the game page', { skip, timeout: 120000 }, async () => {
  const p = await player();
  await go(p.page, '/');
  const games = p.page.locator('.about-games li[data-kind]');
  assert.equal(await games.count(), 3);
  for (const kind of ['fetlar', 'copenhagen', 'camelot']) {
    const item = p.page.locator(`.about-games li[data-kind="${kind}"]`);
    assert.ok((await item.locator('.about-games__line').innerText()).length > 30);
    assert.equal(await item.locator('a.about-games__rules').getAttribute('href'), `/rules/${kind}`);
  }
  // Nothing chosen yet: the index of the three games.
  assert.equal(await rulesHref(p.page), '/rules');
  // Choosing Camelot points Rules at Camelot's rules, on this page and the next.
  await p.page.click('label[for="kind-camelot"]');
  assert.equal(await rulesHref(p.page), '/rules/camelot');
  await go(p.page, '/watch');
  assert.equal(await rulesHref(p.page), '/rules/camelot');
  await p.page.click('.site-nav a[data-i18n="nav.rules"]');
  await p.page.waitForFunction(() => document.querySelector('main h1')?.textContent?.includes('Camelot'));
  assert.equal(new URL(p.page.url()).pathname, '/rules/camelot');
  // The rules' own selector switches games.
  await p.page.click('.tabs a[href="/rules/fetlar"]');
  await p.page.waitForFunction(() => document.querySelector('main h1')?.textContent?.includes('Fetlar'));

  // A game: the goal of the side played, and Rules opens that game's rules.
  await againstAi(p.page, 'copenhagen', 'first');
  assert.match(await p.page.locator('#game-goal').innerText(), /You attack: capture the king/);
  assert.equal(await p.page.locator('#game-goal a').getAttribute('href'), '/rules/copenhagen');
  assert.equal(await rulesHref(p.page), '/rules/copenhagen');
  await leave(p.page);
  await againstAi(p.page, 'fetlar', 'second');
  assert.match(await p.page.locator('#game-goal').innerText(), /You defend: bring the king to a corner\./);
  assert.equal(await rulesHref(p.page), '/rules/fetlar');
  await leave(p.page);
  await againstAi(p.page, 'copenhagen', 'second');
  assert.match(await p.page.locator('#game-goal').innerText(), /exit fort/);
  await leave(p.page);
  await againstAi(p.page, 'camelot', 'second');
  assert.match(await p.page.locator('#game-goal').innerText(), /You play Black: bring two pieces into White’s castle/);
  await leave(p.page);
  await p.page.click('#game-goal a');
  await p.page.waitForFunction(() => document.querySelector('main h1')?.textContent?.includes('Camelot'));

  // In Italian and French too.
  const it = await player(DESKTOP, 'it');
  await againstAi(it.page, 'copenhagen', 'first');
  assert.match(await it.page.locator('#game-goal').innerText(), /Attacchi: cattura il re/);
  await leave(it.page);
  await go(it.page, '/');
  assert.match(await it.page.locator('.about-games li[data-kind="fetlar"]').innerText(), /Vichinghi/);
  const fr = await player(DESKTOP, 'fr');
  await againstAi(fr.page, 'fetlar', 'second');
  assert.match(await fr.page.locator('#game-goal').innerText(), /Vous défendez : amenez le roi dans un coin/);
  await leave(fr.page);
  for (const x of [p, it, fr]) {
    assert.deepEqual(x.errors, []);
    await x.context.close();
  }
});

/** The diagrams each rules page must show, by the rule points of issue 20. */
const DIAGRAMS = {
  fetlar: ['tafl-move', 'tafl-restricted', 'tafl-capture', 'tafl-capture-three', 'tafl-safe', 'tafl-hostile-corner',
    'tafl-hostile-throne', 'tafl-hostile-throne-king', 'tafl-king-armed', 'tafl-king-capture', 'tafl-king-throne',
    'tafl-king-beside-throne', 'tafl-king-steps-in', 'tafl-king-edge', 'tafl-escape', 'tafl-encirclement', 'tafl-no-moves',
    'tafl-repetition-fetlar'],
  copenhagen: ['tafl-move', 'tafl-restricted', 'tafl-capture', 'tafl-capture-three', 'tafl-safe', 'tafl-hostile-corner',
    'tafl-hostile-throne', 'tafl-hostile-throne-king', 'tafl-king-armed', 'tafl-shieldwall', 'tafl-shieldwall-corner',
    'tafl-shieldwall-king', 'tafl-king-capture', 'tafl-king-throne', 'tafl-king-beside-throne', 'tafl-king-steps-in',
    'tafl-king-edge', 'tafl-escape', 'tafl-fort', 'tafl-encirclement', 'tafl-no-moves', 'tafl-repetition-copenhagen'],
  camelot: ['camelot-plain', 'camelot-canter', 'camelot-jump', 'camelot-charge', 'camelot-compulsory', 'camelot-castle-enter',
    'camelot-castle-move', 'camelot-own-castle', 'camelot-win-castle', 'camelot-win-capture'],
};

/** Rule points that are words only: the introduction, the board (drawn at the top), draws by agreement. */
const WORDS_ONLY = new Set(['rules.fetlar.intro', 'rules.copenhagen.intro', 'rules.camelot.intro', 'rules.tafl.board',
  'rules.camelot.board', 'rules.tafl.draws', 'rules.camelot.draws']);

test('the rules pages: a diagram with coordinates for every rule point, in three languages, on a phone too', { skip, timeout: 120000 }, async () => {
  /** @type {Record<string, Record<string, string>>} captions by language and diagram */
  const captions = {};
  for (const [lang, viewport] of /** @type {Array<[string, {width: number, height: number}]>} */ ([['en', DESKTOP], ['it', PHONE], ['fr', DESKTOP]])) {
    const p = await player(viewport, lang);
    captions[lang] = {};
    for (const [kind, ids] of Object.entries(DIAGRAMS)) {
      await go(p.page, `/rules/${kind}`);
      await p.page.waitForFunction(() => /^\d+$/.test(document.querySelector('main')?.dataset.diagrams ?? ''));
      const shown = await p.page.$$eval('.kt-diagram', (els) => els.map((e) => /** @type {HTMLElement} */ (e).dataset.diagram));
      assert.deepEqual(shown, ids, `${lang} ${kind}`);
      // Every rule point but the words-only ones has its diagram.
      const rules = await p.page.$$eval('.rules__list > li', (els) => els.map((li) => [/** @type {HTMLElement} */ (li).dataset.rule, li.querySelectorAll('.kt-diagram').length]));
      for (const [rule, count] of rules) {
        if (!WORDS_ONLY.has(String(rule))) assert.ok(Number(count) >= 1, `${lang} ${kind}: ${rule} has no diagram`);
      }
      for (const id of ids) {
        const figure = p.page.locator(`[data-diagram="${id}"]`);
        // Coordinates on every board of it, and a caption in this language.
        const boards = await figure.locator('svg.kt-diagram__board').count();
        assert.ok(boards >= 1);
        assert.ok(await figure.locator('.kt-diagram__coords text').count() >= 6 * boards, `${id} has coordinates`);
        const caption = await figure.locator('figcaption').innerText();
        assert.ok(caption.length > 20, `${id}: ${caption}`);
        captions[lang][id] = caption;
      }
      // On a phone the page does not scroll sideways.
      if (viewport === PHONE) assert.ok(await p.page.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, `${kind} fits a phone`);
    }
    // What the diagrams highlight, as the rules say (crates/games/tests/rules_diagrams.rs).
    await go(p.page, '/rules/copenhagen');
    await p.page.waitForSelector('[data-diagram="tafl-shieldwall"]');
    const wall = p.page.locator('[data-diagram="tafl-shieldwall"]');
    assert.deepEqual(await wall.locator('.kt-diagram__target').evaluateAll((els) => els.map((e) => e.getAttribute('data-target'))), ['d1', 'e1', 'f1']);
    assert.deepEqual(await wall.locator('.kt-captured').evaluateAll((els) => els.map((e) => e.getAttribute('data-taken'))), ['d1', 'e1', 'f1']);
    assert.equal(await p.page.locator('[data-diagram="tafl-move"] .kt-dest').count(), 16);
    assert.equal(await p.page.locator('[data-diagram="tafl-move"] .kt-dest[data-dest="f6"]').count(), 0, 'no stop on the throne');
    assert.equal(await p.page.locator('[data-diagram="tafl-king-capture"] .kt-diagram__target[data-target="d4"]').count(), 1, 'the captured king ringed');
    assert.equal(await p.page.locator('[data-diagram="tafl-fort"] .kt-last').count(), 2);
    await go(p.page, '/rules/camelot');
    await p.page.waitForSelector('[data-diagram="camelot-compulsory"]');
    assert.deepEqual(await p.page.locator('[data-diagram="camelot-compulsory"] .kt-dest').evaluateAll((els) => els.map((e) => e.getAttribute('data-dest'))), ['F7']);
    assert.deepEqual(await p.page.locator('[data-diagram="camelot-jump"] .kt-diagram__target').evaluateAll((els) => els.map((e) => e.getAttribute('data-target'))), ['E6', 'E8']);
    await shot(p.page, `guide-rules-camelot-${lang}-${viewport.width}`);
    assert.deepEqual(p.errors, []);
    await p.context.close();
  }
  for (const id of DIAGRAMS.copenhagen) {
    assert.notEqual(captions.it[id], captions.en[id], `${id} in Italian`);
    assert.notEqual(captions.fr[id], captions.en[id], `${id} in French`);
  }
});

/**
 * Signs a new account up in `p`'s browser.
 * @param {Page} page
 * @param {string} name
 */
async function signUp(page, name) {
  await go(page, '/signup');
  await page.fill('#username', name);
  await page.fill('#password', 'a long password here');
  await page.click('button[type="submit"]');
  await page.waitForURL((url) => !url.pathname.startsWith('/signup'));
}

test('the profile: a rating graph from before the first rated game, legible on a phone; recent games say side and result', { skip, timeout: 150000 }, async () => {
  const stamp = Date.now() % 100000;
  const [ragnar, bjorn] = [`ragnar${stamp}`, `bjorn${stamp}`];
  const a = await player();
  const b = await player();
  await signUp(a.page, ragnar);
  await signUp(b.page, bjorn);
  // A rated game by link: ragnar attacks, bjorn joins; a move each, then bjorn resigns.
  await go(a.page, '/');
  await a.page.click('#tab-friend');
  await a.page.click('label[for="kind-copenhagen"]');
  await a.page.click('label[for="side-first"]');
  await a.page.selectOption('#time-control', '5+3');
  await a.page.check('input[name="rated"]');
  await a.page.click('#play-button');
  await a.page.waitForSelector('#friend-link');
  const path = new URL(await a.page.inputValue('#friend-link')).pathname;
  await go(a.page, path);
  await go(b.page, path);
  await b.page.click('#join');
  await playAny(a.page);
  await playAny(b.page);
  await b.page.click('[data-action="resign"]');
  await b.page.click('dialog[open] .btn--primary');
  await a.page.waitForSelector('main[data-status="finished"]');

  for (const [viewport, lang] of /** @type {Array<[{width: number, height: number}, string]>} */ ([[PHONE, 'en'], [DESKTOP, 'fr']])) {
    const c = await player(viewport, lang);
    await go(c.page, `/player/${ragnar}`);
    await c.page.waitForSelector('.rating-chart[data-kind="copenhagen"] svg .chart__line');
    const chart = c.page.locator('.rating-chart[data-kind="copenhagen"]');
    // One rated game: the rating before it and after it.
    const dots = await chart.locator('svg .chart__dot title').allTextContents();
    assert.equal(dots.length, 2);
    assert.match(dots[0], /: 1500$/);
    assert.ok(Number(/: (\d+)/.exec(dots[1])?.[1]) > 1500, dots[1]);
    // Labelled axes, no date repeated, text at a readable size, the chart the card's width.
    const ticks = await chart.locator('svg .chart__label').allTextContents();
    assert.equal(new Set(ticks).size, ticks.length, `ticks ${ticks}`);
    assert.equal(await chart.locator('svg .chart__title').count(), 2);
    const caption = await chart.locator('figcaption').innerText();
    const dates = caption.split('·')[1].split('–').map((s) => s.trim());
    assert.equal(new Set(dates).size, dates.length, caption);
    const sizes = await chart.locator('svg text').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
    assert.ok(Math.min(...sizes) >= 11, `text heights ${sizes}`);
    const widths = await c.page.evaluate(() => {
      const svg = /** @type {SVGSVGElement} */ (document.querySelector('.rating-chart svg'));
      const card = /** @type {HTMLElement} */ (svg.closest('.card'));
      const style = getComputedStyle(card);
      return { svg: svg.getBoundingClientRect().width, inner: card.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) };
    });
    assert.ok(widths.svg >= widths.inner - 2, `chart ${widths.svg} px of ${widths.inner}`);
    assert.ok(await c.page.evaluate(() => document.documentElement.scrollWidth) <= viewport.width);
    // The recent game: ragnar played the attackers and won.
    const own = c.page.locator('.recent-games .recent-games__own').first();
    assert.equal(await own.getAttribute('data-side'), 'first');
    assert.equal(await own.getAttribute('data-outcome'), 'win');
    assert.match(await own.innerText(), lang === 'en' ? /Attackers · won/ : /Attaquants · gagnée/);
    await shot(c.page, `guide-profile-${lang}-${viewport.width}`);
    await go(c.page, `/player/${bjorn}`);
    await c.page.waitForSelector('.recent-games .recent-games__own');
    assert.equal(await c.page.locator('.recent-games__own').first().getAttribute('data-outcome'), 'loss');
    assert.match(await c.page.locator('.recent-games__own').first().innerText(), lang === 'en' ? /Defenders · lost/ : /Défenseurs · perdue/);
    assert.deepEqual(c.errors, []);
    await c.context.close();
  }
  for (const x of [a, b]) {
    assert.deepEqual(x.errors, []);
    await x.context.close();
  }
});

/** The screens the game page must fit: desktop, laptop, a phone held upright and on its side. */
const SCREENS = [
  { width: 1366, height: 768 },
  { width: 1280, height: 720 },
  // A tablet or a small laptop window: the header's sections take a row of their own.
  { width: 1024, height: 768 },
  PHONE,
  { width: 740, height: 360 },
];

test('the board as large as the screen allows, both player bars and clocks in view, in two languages', { skip, timeout: 180000 }, async (t) => {
  for (const [kind, lang] of [['copenhagen', 'en'], ['camelot', 'it']]) {
    for (const screen of SCREENS) {
      const p = await player(screen, lang);
      await againstAi(p.page, kind, 'first');
      await p.page.waitForTimeout(300);
      const m = await p.page.evaluate(() => {
        const rect = (/** @type {Element | null} */ e) => (e ? e.getBoundingClientRect() : null);
        const squares = [...document.querySelectorAll('.play .kt-sq')].map((s) => s.getBoundingClientRect().width);
        return {
          square: Math.min(...squares),
          board: rect(document.querySelector('.play .kt-board__svg')),
          bars: [...document.querySelectorAll('.play .player-bar')].map((b) => b.getBoundingClientRect()),
          clocks: [...document.querySelectorAll('.play .player-bar .clock')].map((c) => c.getBoundingClientRect()),
          width: innerWidth,
          height: innerHeight,
          scrollWidth: document.documentElement.scrollWidth,
        };
      });
      const where = `${kind} ${screen.width}x${screen.height}`;
      t.diagnostic(`${where}: squares ${m.square.toFixed(1)} px, board ${m.board?.width.toFixed(0)}x${m.board?.height.toFixed(0)} px`);
      assert.ok(m.board, where);
      assert.equal(m.bars.length, 2, where);
      assert.equal(m.clocks.length, 2, where);
      for (const r of [m.board, ...m.bars, ...m.clocks]) {
        assert.ok(r && r.top >= 0 && r.bottom <= m.height + 0.5 && r.left >= -0.5 && r.right <= m.width + 0.5, `${where}: ${JSON.stringify(r)} in view`);
      }
      assert.ok(m.scrollWidth <= m.width, `${where}: no sideways scroll`);
      if (screen.width > screen.height && screen.height < 500) {
        // A phone on its side: the board takes the window's height (less a small margin).
        const ranks = kind === 'camelot' ? 16 : 11;
        assert.ok(m.square >= (screen.height - 16) / ranks - 0.5, `${where}: squares ${m.square} px`);
      }
      if (screen === PHONE) {
        // The squares take the whole width: 360 / 11 and 360 / 12.
        const files = kind === 'camelot' ? 12 : 11;
        assert.ok(m.square >= (PHONE.width / files) - 0.5, `${where}: squares ${m.square} px`);
      }
      await shot(p.page, `guide-game-${kind}-${lang}-${screen.width}x${screen.height}`);
      await leave(p.page);
      assert.deepEqual(p.errors, []);
      await p.context.close();
    }
  }
});
