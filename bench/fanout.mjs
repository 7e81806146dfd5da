// Lobby and spectator fan-out, measured through the real sockets on loopback.
//
//   node bench/fanout.mjs BINARY [--lobby 1000] [--spectators 300] [--moves 200]
//
// Starts `BINARY serve` on a fresh SQLite file, then, one phase after another:
//   1. one game between two guests plays --moves moves with nothing else open;
//   2. the same with --lobby lobby sockets open (reading everything);
//   3. --spectators spectators join one game at once, then it plays --moves moves.
// For each phase it prints the server's CPU seconds (from /proc/PID/stat) per 1,000
// moves, the mover's round trip (move sent -> opponent's `events`), and the messages and
// bytes the idle sockets received. Works with the server before and after issue 19 (it
// reads both protocols). Needs only node and the repository's npm packages (the
// WebSocket client bundled in playwright-core).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { ws: WebSocket } = require('playwright-core/lib/utilsBundle');

const args = process.argv.slice(2);
const binary = args[0];
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const LOBBY = opt('lobby', 1000);
const SPECTATORS = opt('spectators', 300);
const MOVES = opt('moves', 200);
const PORT = opt('port', 18000 + Math.floor(Math.random() * 2000));
if (!binary) {
  console.error('usage: node bench/fanout.mjs BINARY [--lobby N] [--spectators N] [--moves N]');
  process.exit(2);
}
const base = `http://127.0.0.1:${PORT}`;
const dir = mkdtempSync(join(tmpdir(), 'kt-fanout-'));
const server = spawn(binary, ['serve', '--addr', `127.0.0.1:${PORT}`, '--database', join(dir, 'kt.db'), '--log', 'warn'], { stdio: ['ignore', 'ignore', 'inherit'] });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TICK = 100; // clock ticks per second (getconf CLK_TCK)
const cpu = () => {
  const fields = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICK;
};
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))[1]) / 1024;

async function http(method, path, cookie, body) {
  const headers = { origin: base, 'content-type': 'application/json' };
  if (cookie) headers.cookie = cookie;
  const r = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const set = r.headers.get('set-cookie');
  return { status: r.status, json: await r.json().catch(() => null), cookie: set ? set.split(';')[0] : cookie };
}

function open(path, cookie, onMessage) {
  return new Promise((resolve, reject) => {
    const headers = { origin: base };
    if (cookie) headers.cookie = cookie;
    const socket = new WebSocket(`ws://127.0.0.1:${PORT}${path}`, { headers, perMessageDeflate: false });
    socket.on('open', () => resolve(socket));
    socket.on('error', reject);
    socket.on('message', (data) => onMessage(data.toString()));
  });
}

/** A counter of what idle sockets receive. */
const counter = () => ({ messages: 0, bytes: 0 });

/** Two guests in a new friend game, both sockets open and up to date. */
async function newGame() {
  const a = await http('POST', '/api/guest');
  const b = await http('POST', '/api/guest');
  const made = await http('POST', '/api/games', a.cookie, { kind: 'copenhagen', opponent: 'friend', side: 'first', time_control: 'untimed' });
  const id = made.json.id;
  await http('POST', `/api/games/${id}/join`, b.cookie);
  const game = { id, rev: 0, legal: [], waiters: [], over: false };
  const players = [];
  for (const cookie of [a.cookie, b.cookie]) {
    const seat = players.length;
    players.push(await open(`/ws/game/${id}`, cookie, (text) => {
      const msg = JSON.parse(text);
      let legal = null;
      if (msg.t === 'state') {
        game.rev = Math.max(game.rev, msg.game.rev);
        legal = msg.game.legal_moves;
        if (msg.game.status !== 'ongoing') game.over = true;
      } else if (msg.t === 'events') {
        const last = msg.events[msg.events.length - 1];
        game.rev = Math.max(game.rev, msg.rev ?? last?.revision ?? game.rev);
        // The wire form: [text, from, to, captures, path?].
        legal = (msg.legal ?? []).map((/** @type {[string]} */ m) => ({ text: m[0] }));
        if (msg.events.some((e) => e.outcome || e.type === 'ended')) game.over = true;
        for (const w of game.waiters.splice(0)) w(seat);
      }
      if (legal && legal.length) game.legal = legal;
    }));
  }
  for (const p of players) p.send(JSON.stringify({ t: 'hello', rev: 0 }));
  while (!game.legal.length) await sleep(10);
  return { game, players };
}

/** Plays `moves` moves (new games as games end); returns round trips in ms. */
async function play(moves, onGame) {
  const trips = [];
  let current = await newGame();
  onGame?.(current.game.id);
  let mover = 0;
  for (let i = 0; i < moves; i++) {
    if (current.game.over || !current.game.legal.length) {
      for (const p of current.players) p.close();
      current = await newGame();
      onGame?.(current.game.id);
      mover = 0;
    }
    const { game, players } = current;
    const move = game.legal[0].text;
    game.legal = [];
    const opponentSaw = new Promise((resolve) => {
      const wait = (seat) => (seat === 1 - mover ? resolve() : game.waiters.push(wait));
      game.waiters.push(wait);
    });
    const start = performance.now();
    players[mover].send(JSON.stringify({ t: 'move', rev: game.rev, move }));
    await opponentSaw;
    trips.push(performance.now() - start);
    while (!game.legal.length && !game.over) await sleep(1);
    mover = 1 - mover;
    await sleep(25); // a fast human pace, under the socket rate limit
  }
  for (const p of current.players) p.close();
  return trips;
}

const pct = (list, p) => {
  const s = [...list].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0;
};

async function phase(name, setup) {
  const idle = counter();
  const teardown = await setup(idle);
  await sleep(500);
  idle.messages = 0;
  idle.bytes = 0;
  const before = cpu();
  const trips = await play(MOVES);
  const used = cpu() - before;
  await sleep(500);
  const line = {
    phase: name,
    cpu_s_per_1000_moves: +((used * 1000) / MOVES).toFixed(2),
    rtt_p50_ms: +pct(trips, 50).toFixed(1),
    rtt_p99_ms: +pct(trips, 99).toFixed(1),
    idle_messages: idle.messages,
    idle_mb: +(idle.bytes / 1e6).toFixed(1),
    rss_mb: +rss().toFixed(0),
  };
  console.log(JSON.stringify(line));
  await teardown?.();
  return line;
}

try {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch { /* not up yet */ }
    await sleep(100);
  }
  const quiet = await phase('no idle sockets', async () => null);
  const crowd = await phase(`${LOBBY} lobby sockets`, async (idle) => {
    const sockets = [];
    for (let i = 0; i < LOBBY; i++) {
      sockets.push(await open('/ws/lobby', null, (text) => { idle.messages++; idle.bytes += text.length; }));
    }
    return () => sockets.forEach((s) => s.close());
  });
  console.log(JSON.stringify({ lobby_cpu_ratio: +(crowd.cpu_s_per_1000_moves / Math.max(quiet.cpu_s_per_1000_moves, 0.01)).toFixed(1) }));

  // Spectators: they arrive at once on one game, which then plays on.
  const watched = await newGame();
  const seen = counter();
  const before = cpu();
  const spectators = [];
  for (let i = 0; i < SPECTATORS; i++) {
    const s = await open(`/ws/game/${watched.game.id}`, null, (text) => { seen.messages++; seen.bytes += text.length; });
    s.send(JSON.stringify({ t: 'hello', rev: 0 }));
    spectators.push(s);
  }
  await sleep(2000);
  const arrivals = { messages: seen.messages, cpu: cpu() - before };
  let mover = 0;
  const { game, players } = watched;
  const movesBefore = seen.messages;
  const cpuMoves = cpu();
  let played = 0;
  for (; played < 40 && !game.over && game.legal.length; played++) {
    const move = game.legal[0].text;
    game.legal = [];
    players[mover].send(JSON.stringify({ t: 'move', rev: game.rev, move }));
    while (!game.legal.length && !game.over) await sleep(1);
    mover = 1 - mover;
    await sleep(25);
  }
  await sleep(1000);
  console.log(JSON.stringify({
    phase: `${SPECTATORS} spectators`,
    arrival_messages: arrivals.messages,
    arrival_cpu_s: +arrivals.cpu.toFixed(2),
    messages_per_move: +((seen.messages - movesBefore) / Math.max(played, 1)).toFixed(0),
    cpu_s_per_1000_moves: +(((cpu() - cpuMoves) * 1000) / Math.max(played, 1)).toFixed(2),
    rss_mb: +rss().toFixed(0),
  }));
  spectators.forEach((s) => s.close());
  players.forEach((p) => p.close());
} finally {
  server.kill('SIGTERM');
  await sleep(500);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
