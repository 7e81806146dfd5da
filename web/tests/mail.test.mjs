// E-mail from the pages, against a real `kingstable serve` that mails through a real SMTP
// server on loopback (aiosmtpd, crates/server/tests/smtp/sink.py): add an address on the
// account page and confirm it by the link that arrives; forget the password, ask for a
// link from the sign-in page, set a new one with it (once); a site without --smtp says
// e-mail is off. Skipped without a kingstable binary or aiosmtpd, unless
// KINGSTABLE_REQUIRE_SERVER=1 / KINGSTABLE_REQUIRE_SMTP=1 (CI).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { launch, DESKTOP, PHONE, shot, kingstableBinary, startKingstable, ROOT } from './support.mjs';

const bin = await kingstableBinary();
if (!bin && process.env.KINGSTABLE_REQUIRE_SERVER === '1') {
  throw new Error('KINGSTABLE_REQUIRE_SERVER=1 but no kingstable binary with `serve` was found');
}
const smtp = spawnSync('python3', ['-c', 'import aiosmtpd'], { stdio: 'ignore' }).status === 0;
if (!smtp && process.env.KINGSTABLE_REQUIRE_SMTP === '1') {
  throw new Error('KINGSTABLE_REQUIRE_SMTP=1 but python3 cannot import aiosmtpd');
}
const skip = !bin ? 'no kingstable binary with `serve`' : !smtp ? 'python3 cannot import aiosmtpd' : false;

/** The SMTP sink: its port, and the messages it received, in order. */
class Sink {
  constructor() {
    this.child = spawn('python3', [join(ROOT, 'crates', 'server', 'tests', 'smtp', 'sink.py')], { stdio: ['pipe', 'pipe', 'inherit'] });
    /** @type {any[]} */
    this.messages = [];
    /** @type {Array<() => void>} */
    this.waiting = [];
    /** @type {Promise<number>} */
    this.port = new Promise((resolve, reject) => {
      const lines = createInterface({ input: /** @type {import('node:stream').Readable} */ (this.child.stdout) });
      lines.on('line', (line) => {
        if (line.startsWith('PORT ')) return resolve(Number(line.slice(5)));
        this.messages.push(JSON.parse(line));
        for (const wake of this.waiting.splice(0)) wake();
      });
      this.child.on('exit', () => reject(new Error('the SMTP sink stopped')));
    });
  }

  /** The next message (within 30 s). */
  async next() {
    const deadline = Date.now() + 30000;
    while (this.messages.length === 0) {
      if (Date.now() > deadline) throw new Error('no message within 30 s');
      await new Promise((resolve) => {
        this.waiting.push(() => resolve(undefined));
        setTimeout(resolve, 1000);
      });
    }
    return this.messages.shift();
  }

  stop() {
    this.child.stdin?.end();
    this.child.kill();
  }
}

/**
 * The path of the link `/{path}?token=…` in a message.
 * @param {any} message
 * @param {string} path
 */
function link(message, path) {
  const found = new RegExp(`/${path}\\?token=[A-Za-z0-9_-]{43}`).exec(message.body);
  assert.ok(found, `no /${path} link in ${message.body}`);
  return found[0];
}

/** @type {Sink | null} */
let sink = null;
/** @type {Awaited<ReturnType<typeof startKingstable>> | null} */
let server = null;
/** @type {Awaited<ReturnType<typeof startKingstable>> | null} */
let mailless = null;
/** @type {import('playwright-core').Browser | null} */
let browser = null;

before(async () => {
  if (skip) return;
  sink = new Sink();
  const port = await sink.port;
  const b = /** @type {string} */ (bin);
  server = await startKingstable(b, undefined, ['--smtp', `smtp://127.0.0.1:${port}`, '--mail-from', 'Kingstable <noreply@kingstable.test>']);
  mailless = await startKingstable(b);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await mailless?.stop();
  sink?.stop();
});

/**
 * @param {import('playwright-core').Page} page
 * @param {string} origin
 * @param {string} path
 */
async function go(page, origin, path) {
  await page.goto(`${origin}${path}`);
  await page.waitForSelector('body[data-ready="true"]');
}

test('add an address on the account page, confirm it by its link; forget the password and set a new one by mail, once', { skip }, async () => {
  const b = /** @type {import('playwright-core').Browser} */ (browser);
  const origin = /** @type {NonNullable<typeof server>} */ (server).origin;
  const mail = /** @type {Sink} */ (sink);
  const context = await b.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  const name = `mail${Date.now().toString(36)}`;
  const address = `${name}@example.org`;
  await go(page, origin, '/signup');
  await page.fill('#username', name);
  await page.fill('#password', 'correct horse battery');
  await page.click('form button[type="submit"]');
  await page.waitForSelector(`#account a[href="/player/${name}"]`);

  await go(page, origin, '/settings');
  await page.waitForSelector('#mail-address');
  assert.ok(await page.isChecked('#mail-digest'));
  assert.ok(await page.isChecked('#mail-clock_warning'));
  await page.fill('#mail-new', address);
  await page.fill('#mail-password', 'correct horse battery');
  await page.click('#mail form button[type="submit"]');
  await page.waitForSelector('#mail-pending');
  assert.match(await page.textContent('#mail-pending') ?? '', new RegExp(address));
  await shot(page, 'mail-settings-pending-desktop');
  const confirm = await mail.next();
  assert.deepEqual(confirm.rcpt_tos, [address]);
  await go(page, origin, link(confirm, 'confirm'));
  await page.waitForSelector('#confirm-done');
  await shot(page, 'mail-confirmed-desktop');
  await go(page, origin, '/settings');
  await page.waitForSelector('#mail-address');
  assert.match(await page.textContent('#mail-address') ?? '', new RegExp(address));
  // A switch is stored.
  await page.uncheck('#mail-digest');
  await page.waitForSelector('.toast');
  await go(page, origin, '/settings');
  await page.waitForSelector('#mail-address');
  assert.equal(await page.isChecked('#mail-digest'), false);
  await shot(page, 'mail-settings-desktop');

  // Signed out, the password forgotten: from the sign-in page to a new password.
  await page.click('button:has-text("Sign out")');
  await page.waitForSelector('#account a[href="/signin"]');
  await go(page, origin, '/signin');
  await page.click('#forgot');
  await page.waitForSelector('#reset-login');
  await page.fill('#reset-login', name.toUpperCase());
  await page.click('main form button[type="submit"]');
  await page.waitForSelector('#reset-sent');
  await shot(page, 'mail-reset-sent-desktop');
  const reset = await mail.next();
  assert.deepEqual(reset.rcpt_tos, [address]);
  const resetLink = link(reset, 'reset');
  await page.setViewportSize(PHONE);
  await go(page, origin, resetLink);
  await page.fill('#reset-password', 'a brand new password');
  await page.click('main form button[type="submit"]');
  await page.waitForSelector('#reset-done');
  await page.waitForSelector(`#account a[href="/player/${name}"]`);
  await shot(page, 'mail-reset-done-phone');
  // Not twice: the page says so in words.
  await go(page, origin, resetLink);
  await page.fill('#reset-password', 'another new password');
  await page.click('main form button[type="submit"]');
  await page.waitForSelector('.notice--error');
  assert.match(await page.textContent('.notice--error') ?? '', /expired|used/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a site without --smtp says e-mail is off, on the account page and the reset page', { skip }, async () => {
  const b = /** @type {import('playwright-core').Browser} */ (browser);
  const origin = /** @type {NonNullable<typeof mailless>} */ (mailless).origin;
  const context = await b.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  await go(page, origin, '/reset');
  await page.waitForSelector('#reset-off');
  await shot(page, 'mail-reset-off-desktop');
  await go(page, origin, '/signup');
  await page.fill('#username', `off${Date.now().toString(36)}`);
  await page.fill('#password', 'correct horse battery');
  await page.click('form button[type="submit"]');
  await page.waitForSelector('#account a[href^="/player/"]');
  await go(page, origin, '/settings');
  await page.waitForSelector('#mail-off');
  assert.equal(await page.locator('#mail-new').count(), 0);
  await context.close();
});
