// Page weight and time to first board of the web app, as a browser sees them: headless
// Chromium (Debian's, through playwright-core) opens a game page of a running
// `kingstable serve`, cold (empty cache) and then warm (a reload with the cache), on a
// desktop window and on a phone, and prints the requests, the bytes that crossed the
// wire (compressed where the server compressed) and the milliseconds from navigation
// to the first drawn piece. Loopback only.
//
//   node bench/pageweight.mjs http://127.0.0.1:8080
import { chromium } from 'playwright-core';

const base = new URL(process.argv[2] ?? 'http://127.0.0.1:8080');
if (!['127.0.0.1', 'localhost', '[::1]'].includes(base.hostname)) {
  console.error(`pageweight: ${base.hostname} is not a loopback address`);
  process.exit(2);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
});

/** One load of `path` in `page`: requests, bytes on the wire, ms to the first piece. */
async function load(page, path) {
  const sizes = [];
  const onFinished = async (request) => {
    const s = await request.sizes().catch(() => null);
    if (s) sizes.push(s.responseBodySize + s.responseHeadersSize);
  };
  page.on('requestfinished', onFinished);
  const start = Date.now();
  await page.goto(new URL(path, base).href, { waitUntil: 'commit' });
  await page.waitForSelector('.kt-board .kt-piece', { timeout: 30000 });
  const board = Date.now() - start;
  await page.waitForLoadState('networkidle');
  page.off('requestfinished', onFinished);
  return { requests: sizes.length, bytes: sizes.reduce((a, b) => a + b, 0), board };
}

const results = [];
for (const [device, viewport] of [
  ['desktop 1366x768', { width: 1366, height: 768 }],
  ['phone 360x740', { width: 360, height: 740 }],
]) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  // A game against the AI to look at (the page's own origin, so its cookie is kept).
  await page.goto(base.href);
  const id = await page.evaluate(async () => {
    const reply = await fetch('/api/games', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'copenhagen', opponent: { ai: 1 }, side: 'first' }),
    });
    return (await reply.json()).id;
  });
  await context.clearCookies();
  const cold = await (async () => {
    const fresh = await browser.newContext({ viewport });
    const p = await fresh.newPage();
    const r = await load(p, `/game/${id}`);
    const warm = await load(p, `/game/${id}`);
    await fresh.close();
    return [r, warm];
  })();
  results.push({ device, cold: cold[0], warm: cold[1] });
  await context.close();
}
await browser.close();
for (const r of results) {
  for (const which of ['cold', 'warm']) {
    const x = r[which];
    console.log(
      `${r.device.padEnd(18)} ${which}: ${String(x.requests).padStart(3)} requests, ` +
        `${(x.bytes / 1024).toFixed(1).padStart(6)} KiB on the wire, first board after ${x.board} ms`,
    );
  }
}
