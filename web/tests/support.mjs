// Shared pieces of the browser tests: a static file server for web/ (the app's files as
// `kingstable serve` embeds them, index.html for the app's own routes), Chromium through
// playwright-core, and the screenshot folder.
import { createServer } from 'node:http';
import { readFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, join, normalize, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

export const WEB = dirname(dirname(fileURLToPath(import.meta.url)));
export const ROOT = dirname(WEB);
/** Where screenshots go (CI keeps this folder): KINGSTABLE_SCREENSHOTS or target/web-screenshots. */
export const SHOTS = process.env.KINGSTABLE_SCREENSHOTS ?? join(ROOT, 'target', 'web-screenshots');

/** @type {Record<string, string>} */
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * Serves web/ on a free loopback port; resolves to its origin and a close function.
 * @returns {Promise<{origin: string, close: () => Promise<void>}>}
 */
export async function serveStatic() {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    let path = normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, '');
    if (path.endsWith('/')) path += 'index.html';
    let file = join(WEB, path);
    if (!extname(path) && !existsSync(file)) file = join(WEB, 'index.html');
    if (path.startsWith('/api/') || path.startsWith('/ws/')) {
      // No server behind this one: the pages must cope (they show an error).
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'unavailable', message: 'no server in this test' } }));
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
}

/** Headless Chromium (Debian's package, or CHROMIUM_PATH). */
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 360, height: 740 };

/**
 * Saves a full-page screenshot as SHOTS/NAME.png.
 * @param {import('playwright-core').Page} page
 * @param {string} name
 */
export async function shot(page, name) {
  await mkdir(SHOTS, { recursive: true });
  // From the top, so a sticky header is not drawn in the middle of a full-page shot.
  await page.evaluate(() => scrollTo(0, 0));
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/**
 * Collects console errors and uncaught exceptions of a page, less the failed requests
 * to the API and the sockets, which have no server behind them in the static tests.
 * @param {import('playwright-core').Page} page
 * @returns {string[]}
 */
export function watchErrors(page) {
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    const text = m.text();
    if (m.type() !== 'error' || text.includes('status of 503') || text.includes('WebSocket connection')) return;
    errors.push(`console: ${text}`);
  });
  return errors;
}

/**
 * Starts the static server and Chromium before a test file's tests and stops them after.
 * @returns {{server: Awaited<ReturnType<typeof serveStatic>>, browser: import('playwright-core').Browser}}
 */
export function useBrowser() {
  const env = /** @type {{server: Awaited<ReturnType<typeof serveStatic>>, browser: import('playwright-core').Browser}} */ ({});
  before(async () => {
    env.server = await serveStatic();
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}

/**
 * A fixture made by the real rules (web/tests/fixtures/make.sh).
 * @param {string} name
 */
export async function fixture(name) {
  return JSON.parse(await readFile(join(WEB, 'tests', 'fixtures', `${name}.json`), 'utf8'));
}

/**
 * The kingstable binary to test against: KINGSTABLE_BIN, else target/release or
 * target/debug, if it has the `serve` command; null if none does.
 * @returns {Promise<string | null>}
 */
export async function kingstableBinary() {
  const { execFile } = await import('node:child_process');
  const candidates = process.env.KINGSTABLE_BIN
    ? [resolve(process.env.KINGSTABLE_BIN)]
    : [join(ROOT, 'target', 'release', 'kingstable'), join(ROOT, 'target', 'debug', 'kingstable')];
  for (const bin of candidates) {
    if (!existsSync(bin)) continue;
    const ok = await new Promise((resolve) => {
      execFile(bin, ['serve', '--help'], { timeout: 10000 }, (error) => resolve(!error));
    });
    if (ok) return bin;
  }
  return null;
}

/**
 * Starts a real `kingstable serve` on a free loopback port with a new SQLite file, or
 * again on the same port and file (`again`: after a stop or a kill, mid-game).
 * @param {string} bin
 * @param {{port: number, dir: string}} [again]
 * @param {string[]} [extra] more `serve` options (`--smtp …`)
 * @returns {Promise<{origin: string, port: number, dir: string, stop: () => Promise<void>, kill: () => Promise<void>, log: () => string}>}
 */
export async function startKingstable(bin, again, extra = []) {
  const { spawn } = await import('node:child_process');
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const net = await import('node:net');
  const port = again ? again.port : await new Promise((resolve) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const free = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(free));
    });
  });
  const dir = again ? again.dir : await mkdtemp(join(tmpdir(), 'kingstable-web-'));
  const child = spawn(bin, ['serve', '--addr', `127.0.0.1:${port}`, '--database', join(dir, 'kingstable.db'), ...extra], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.on('error', (e) => { output += `${e}`; });
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30000;
  for (;;) {
    if (child.exitCode !== null || child.pid === undefined) throw new Error(`kingstable serve exited: ${output}`);
    try {
      const response = await fetch(`${origin}/health`);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`kingstable serve did not answer /health in 30 s: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  /** @param {NodeJS.Signals} signal */
  const end = (signal) => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
    child.once('exit', () => resolve(undefined));
    child.kill(signal);
  });
  return {
    origin,
    port: /** @type {number} */ (port),
    dir,
    log: () => output,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
  };
}

/**
 * A player: their own browser context (cookies), one page, its script errors.
 * @param {import('playwright-core').Browser} browser
 * @param {{width: number, height: number}} [viewport]
 */
export async function newPlayer(browser, viewport = DESKTOP) {
  const context = await browser.newContext({ viewport, hasTouch: viewport === PHONE });
  const page = await context.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return { context, page, errors };
}

/**
 * Opens `path` of the server at `origin` and waits until the page is drawn.
 * @param {import('playwright-core').Page} page
 * @param {string} origin
 * @param {string} path
 */
export async function visit(page, origin, path) {
  await page.goto(`${origin}${path}`);
  await page.waitForSelector('body[data-ready="true"]');
}

/**
 * Plays some legal move by clicking, as a player would (the first movable piece, its
 * first destination, the first path if asked).
 * @param {import('playwright-core').Page} page
 */
export async function playAny(page) {
  await page.waitForSelector('.kt-board[data-interactive="true"] .kt-piece--movable', { timeout: 30000 });
  const from = await page.locator('.kt-piece--movable').first().getAttribute('data-square');
  await page.click(`.kt-sq[data-square="${from}"]`);
  const to = await page.locator('.kt-dest').first().getAttribute('data-square');
  await page.click(`.kt-sq[data-square="${to}"]`);
  const choice = page.locator('.kt-picker__choice');
  if (await choice.count()) await choice.first().click();
}

/**
 * What a browser test file against a real `kingstable serve` starts with: the server
 * (on a free port, with a new database), Chromium before the file's tests, both stopped
 * after, and the helpers every such file uses.
 *
 * `skip` is the reason the file's tests are skipped (no binary, or a binary without what
 * `needs` asks for: `needs.path` must answer 2xx); with KINGSTABLE_REQUIRE_SERVER=1 a
 * missing binary or feature fails instead.
 * @param {{needs?: {path: string, what: string}}} [options]
 */
export async function useKingstable(options = {}) {
  const bin = await kingstableBinary();
  const required = process.env.KINGSTABLE_REQUIRE_SERVER === '1';
  if (!bin && required) throw new Error('KINGSTABLE_REQUIRE_SERVER=1 but no kingstable binary with `serve`');
  let server = bin ? await startKingstable(bin) : null;
  /** @type {string | false} */
  let skip = bin ? false : 'no kingstable binary with `serve` (cargo build -p kingstable, or set KINGSTABLE_BIN)';
  const needs = options.needs;
  if (server && needs) {
    const answer = await fetch(`${server.origin}${needs.path}`);
    if (!answer.ok) {
      if (required) throw new Error(`KINGSTABLE_REQUIRE_SERVER=1 but kingstable serve has no ${needs.what} (GET ${needs.path} is ${answer.status})`);
      await server.stop();
      server = null;
      skip = `kingstable serve has no ${needs.what} yet (GET ${needs.path} is ${answer.status})`;
    }
  }
  const suite = {
    /** The kingstable binary (when not skipped). */
    bin: /** @type {string} */ (bin),
    skip,
    /** The server running now (replaced by `restart`). */
    server: /** @type {Awaited<ReturnType<typeof startKingstable>>} */ (server),
    /** Chromium, once the file's tests begin. */
    browser: /** @type {import('playwright-core').Browser} */ (/** @type {unknown} */ (null)),
    /** The server's address. */
    origin: () => suite.server.origin,
    /**
     * Starts the server again on the same port and database (after `suite.server.stop()`
     * or `.kill()`).
     */
    restart: async () => {
      suite.server = await startKingstable(suite.bin, { port: suite.server.port, dir: suite.server.dir });
      return suite.server;
    },
    /**
     * A player in their own browser context (its cookies), reading `lang` when given.
     * @param {{width: number, height: number}} [viewport]
     * @param {string} [lang]
     */
    player: async (viewport = DESKTOP, lang = undefined) => {
      const p = await newPlayer(suite.browser, viewport);
      if (lang) await p.context.addInitScript((l) => localStorage.setItem('kingstable.lang', l), lang);
      return p;
    },
    /**
     * Opens `path` of the server and waits until the page is drawn.
     * @param {import('playwright-core').Page} page
     * @param {string} path
     */
    go: (page, path) => visit(page, suite.server.origin, path),
  };
  before(async () => {
    if (!skip) suite.browser = await launch();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.server?.stop();
  });
  return suite;
}
