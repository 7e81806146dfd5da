// The computer review of one game asked for again and again, against a kingstable
// binary: the wall time until `review_done`, the mistakes and blunders each run finds,
// a digest of the review (to compare across invocations: each starts a fresh server and
// database), and whether the runs agree (issue 20: a review computed once, the same
// every run).
//
//   node --experimental-websocket bench/review.mjs BIN [RUNS]
//
// Starts `BIN serve` on a free port of 127.0.0.1 with a fresh SQLite file, imports
// Millar v Schachus 2015 (Copenhagen, 68 plies) and reviews it RUNS times (default 3),
// each on a new socket, one after another. Progress goes to stderr.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const [bin, runsArg] = process.argv.slice(2);
if (!bin) {
  console.error('usage: node --experimental-websocket bench/review.mjs BIN [RUNS]');
  process.exit(2);
}
const runs = Number(runsArg ?? 3);

/** A free port on 127.0.0.1. */
const freePort = () => new Promise((resolve) => {
  const probe = createServer();
  probe.listen(0, '127.0.0.1', () => {
    const { port } = /** @type {import('node:net').AddressInfo} */ (probe.address());
    probe.close(() => resolve(port));
  });
});

const dir = await mkdtemp(join(tmpdir(), 'kingstable-review-'));
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const server = spawn(bin, ['serve', '--addr', `127.0.0.1:${port}`, '--database', join(dir, 'k.db'), '--log', 'warn'], { stdio: ['ignore', 'ignore', 'inherit'] });
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${origin}/health`)).ok) break;
    } catch {
      // Not up yet.
    }
    if (i > 100) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const record = await readFile(join(ROOT, 'crates', 'tafl', 'tests', 'data', 'millar_vs_schachus_2015.otg'), 'utf8');
  const imported = await fetch(`${origin}/api/import`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'copenhagen', record }),
  });
  const { id } = await imported.json();
  /** @type {string[]} */
  const reviews = [];
  for (let run = 1; run <= runs; run++) {
    const started = performance.now();
    const plies = await new Promise((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/ws/analysis`);
      /** @type {unknown[]} */
      const got = [];
      socket.onopen = () => socket.send(JSON.stringify({ t: 'review', game: id }));
      socket.onerror = () => reject(new Error('socket error'));
      socket.onmessage = (event) => {
        const message = JSON.parse(String(event.data));
        if (message.t === 'review_ply') {
          got.push(message);
          if (got.length % 10 === 0) process.stderr.write(`run ${run}: ${got.length} plies\n`);
        } else if (message.t === 'review_done') {
          socket.close();
          resolve(got);
        } else if (message.t === 'error') {
          reject(new Error(message.message));
        }
      };
    });
    const seconds = (performance.now() - started) / 1000;
    const count = (/** @type {string} */ c) => plies.filter((/** @type {{class: string | null}} */ p) => p.class === c).length;
    const text = JSON.stringify(plies);
    const digest = createHash('sha256').update(text).digest('hex').slice(0, 12);
    console.log(`run ${run}: ${plies.length} plies in ${seconds.toFixed(3)} s; ${count('mistake')} mistakes, ${count('blunder')} blunders; review ${digest}`);
    reviews.push(text);
  }
  const same = reviews.every((r) => r === reviews[0]);
  console.log(`runs agree: ${same ? 'yes' : 'no'}`);
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  await rm(dir, { recursive: true, force: true });
}
