// Each player's own channel (issue 21): what a move costs when many other players have a
// page of the site open, measured through the real sockets on loopback.
//
//   node bench/people.mjs BINARY [--others 1000] [--moves 200]
//
// Starts `BINARY serve --trust-proxy` on a fresh SQLite file (each simulated player
// comes from an address of their own in X-Forwarded-For, so the per-address limits
// apply to each alone, as on the Internet). Two phases, one after the other:
//   1. games between two guests play --moves moves; each player also has the socket a
//      page of the site keeps open on their own games (`/ws/lobby?feed=me`);
//   2. the same with --others other guests online, each with that socket open.
// For each phase it prints the server's CPU seconds (from /proc/PID/stat) per 1,000
// moves, the mover's round trip (move sent -> opponent's `events`), the `my_game`
// messages the two players received, and the messages the others' sockets received.
// Needs only node and the repository's npm packages (the WebSocket client bundled in
// playwright-core).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { ws: WebSocket } = require('playwright-core/lib/utilsBundle');

const args = process.argv.slice(2);
const binary = args[0];
/** @param {string} name @param {number} dflt */
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const OTHERS = opt('others', 1000);
const MOVES = opt('moves', 200);
const PORT = opt('port', 20000 + Math.floor(Math.random() * 2000));
if (!binary) {
  console.error('usage: node bench/people.mjs BINARY [--others N] [--moves N]');
  process.exit(2);
}
const base = `http://127.0.0.1:${PORT}`;
const dir = mkdtempSync(join(tmpdir(), 'kt-people-'));
const server = spawn(binary, ['serve', '--addr', `127.0.0.1:${PORT}`, '--database', join(dir, 'kt.db'), '--log', 'warn', '--trust-proxy'], { stdio: ['ignore', 'ignore', 'inherit'] });
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
const TICK = 100; // clock ticks per second (getconf CLK_TCK)
const cpu = () => {
  const fields = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICK;
};

let nextAddress = 1;
/** A client address of its own (10.x.y.z), as a proxy would forward it. */
const address = () => {
  const n = nextAddress++;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

/** @param {string} method @param {string} path @param {{cookie?: string, ip: string}} who @param {unknown} [body] */
async function http(method, path, who, body) {
  /** @type {Record<string, string>} */
  const headers = { origin: base, 'content-type': 'application/json', 'x-forwarded-for': who.ip };
  if (who.cookie) headers.cookie = who.cookie;
  const r = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const set = r.headers.get('set-cookie');
  if (set) who.cookie = set.split(';')[0];
  return { status: r.status, json: await r.json().catch(() => null) };
}

/** @param {string} path @param {{cookie?: string, ip: string}} who @param {(text: string) => void} onMessage */
function open(path, who, onMessage) {
  return new Promise((resolve, reject) => {
    /** @type {Record<string, string>} */
    const headers = { origin: base, 'x-forwarded-for': who.ip };
    if (who.cookie) headers.cookie = who.cookie;
    const socket = new WebSocket(`ws://127.0.0.1:${PORT}${path}`, { headers, perMessageDeflate: false });
    socket.on('open', () => resolve(socket));
    socket.on('error', reject);
    socket.on('message', (/** @type {Buffer} */ data) => onMessage(data.toString()));
  });
}

/** A new guest with an address of their own. */
async function guest() {
  const who = { ip: address(), cookie: undefined };
  const made = await http('POST', '/api/guest', who);
  if (made.status !== 201) throw new Error(`guest: ${made.status}`);
  return who;
}

const told = { my_game: 0 };

/** Two guests in a new friend game, their game sockets and own-games sockets open. */
async function newGame() {
  const a = await guest();
  const b = await guest();
  const own = [];
  for (const who of [a, b]) {
    own.push(await open('/ws/lobby?feed=me', who, (text) => {
      if (text.startsWith('{"t":"my_game"')) told.my_game += 1;
    }));
  }
  const made = await http('POST', '/api/games', a, { kind: 'copenhagen', opponent: 'friend', side: 'first', time_control: '3d' });
  const id = made.json.id;
  await http('POST', `/api/games/${id}/join`, b);
  const game = { id, rev: 0, /** @type {{text: string}[]} */ legal: [], /** @type {((seat: number) => void)[]} */ waiters: [], over: false };
  const players = [];
  for (const who of [a, b]) {
    const seat = players.length;
    players.push(await open(`/ws/game/${id}`, who, (text) => {
      const msg = JSON.parse(text);
      let legal = null;
      if (msg.t === 'state') {
        game.rev = Math.max(game.rev, msg.game.rev);
        legal = msg.game.legal_moves;
        if (msg.game.status !== 'ongoing') game.over = true;
      } else if (msg.t === 'events') {
        game.rev = Math.max(game.rev, msg.rev);
        // The wire form: [text, from, to, captures, path?].
        legal = (msg.legal ?? []).map((/** @type {[string]} */ m) => ({ text: m[0] }));
        if (msg.status !== 'ongoing') game.over = true;
        for (const w of game.waiters.splice(0)) w(seat);
      }
      if (legal && legal.length) game.legal = legal;
    }));
  }
  for (const p of players) p.send(JSON.stringify({ t: 'hello', rev: 0 }));
  while (!game.legal.length) await sleep(10);
  return { game, players, own };
}

/** Plays `moves` moves (new games as games end); returns round trips in ms. */
async function play(/** @type {number} */ moves) {
  const trips = [];
  let current = await newGame();
  let mover = 0;
  const close = () => [...current.players, ...current.own].forEach((s) => s.close());
  for (let i = 0; i < moves; i++) {
    if (current.game.over || !current.game.legal.length) {
      close();
      current = await newGame();
      mover = 0;
    }
    const { game, players } = current;
    const move = game.legal[0].text;
    game.legal = [];
    const opponentSaw = new Promise((resolve) => {
      const wait = (/** @type {number} */ seat) => (seat === 1 - mover ? resolve(undefined) : game.waiters.push(wait));
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
  close();
  return trips;
}

/** @param {number[]} list @param {number} p */
const pct = (list, p) => {
  const s = [...list].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0;
};

/** @param {string} name @param {number} others */
async function phase(name, others) {
  const idle = { messages: 0 };
  const sockets = [];
  for (let i = 0; i < others; i++) {
    const who = await guest();
    sockets.push(await open('/ws/lobby?feed=me', who, () => { idle.messages += 1; }));
  }
  await sleep(500);
  idle.messages = 0;
  told.my_game = 0;
  const before = cpu();
  const trips = await play(MOVES);
  const used = cpu() - before;
  await sleep(500);
  const line = {
    phase: name,
    cpu_s_per_1000_moves: +((used * 1000) / MOVES).toFixed(2),
    rtt_p50_ms: +pct(trips, 50).toFixed(1),
    rtt_p99_ms: +pct(trips, 99).toFixed(1),
    players_my_game_messages: told.my_game,
    others_messages: idle.messages,
  };
  console.log(JSON.stringify(line));
  sockets.forEach((s) => s.close());
  await sleep(500);
  return line;
}

try {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch { /* not up yet */ }
    await sleep(100);
  }
  const quiet = await phase('no other players online', 0);
  const crowd = await phase(`${OTHERS} other players online`, OTHERS);
  console.log(JSON.stringify({ cpu_ratio: +(crowd.cpu_s_per_1000_moves / Math.max(quiet.cpu_s_per_1000_moves, 0.01)).toFixed(2) }));
} finally {
  server.kill('SIGTERM');
  await sleep(500);
  rmSync(dir, { recursive: true, force: true });
}
