// Pure modules in node: earlier positions rebuilt from move geometry agree with the real
// rules (fixtures from crates/games), clock formatting, engine score conversions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boardAt } from '../js/replay.js';
import { formatClock } from '../js/clock.js';
import { scoreToUnit, scoreText, negate } from '../js/chart.js';
import { fixture } from './support.mjs';

test('replaying the moves geometry from the start gives the position the rules reached (copenhagen capture)', async () => {
  const start = await fixture('copenhagen_start');
  const after = await fixture('copenhagen_capture');
  assert.deepEqual(boardAt(start.board, after.moves, after.moves.length), after.board);
  // Part way: the start and one ply in differ by exactly that move.
  const one = boardAt(start.board, after.moves, 1);
  assert.equal(one.to_move, 'second');
  assert.deepEqual(boardAt(start.board, after.moves, 0), start.board);
});

test('replaying Camelot moves with canters and jumps gives the position the rules reached', async () => {
  const start = await fixture('camelot_start');
  const after = await fixture('camelot_multipath');
  assert.deepEqual(boardAt(start.board, after.moves, after.moves.length), after.board);
});

test('clocks: minutes and seconds, tenths under ten seconds, hours, days', () => {
  assert.equal(formatClock(300000), '5:00');
  assert.equal(formatClock(65000), '1:05');
  assert.equal(formatClock(9450), '9.4');
  assert.equal(formatClock(-20), '0.0');
  assert.equal(formatClock(3723000), '1:02:03');
  assert.equal(formatClock(2 * 86400000 + 4 * 3600000), '2d 4h');
});

test('engine scores: the bar unit, words, and the other side', () => {
  assert.equal(scoreToUnit({ cp: 0 }), 0);
  assert.ok(scoreToUnit({ cp: 300 }) > 0.5 && scoreToUnit({ cp: 300 }) < 1);
  assert.equal(scoreToUnit({ win_in: 3 }), 1);
  assert.equal(scoreToUnit({ loss_in: 3 }), -1);
  assert.equal(scoreText({ cp: 35 }), '+0.35');
  assert.equal(scoreText({ cp: -120 }), '-1.20');
  assert.equal(scoreText({ win_in: 5 }), '#5');
  assert.deepEqual(negate({ win_in: 5 }), { loss_in: 5 });
  assert.deepEqual(negate({ cp: 35 }), { cp: -35 });
});

test('a set-up board is written as the position string the rules themselves write', async () => {
  const { positionString } = await import('../js/position.js');
  for (const name of ['copenhagen_start', 'copenhagen_capture', 'fetlar_start']) {
    const fx = await fixture(name);
    assert.equal(positionString(fx.board), fx.position, name);
  }
  for (const name of ['camelot_start', 'camelot_multipath']) {
    const fx = await fixture(name);
    // Board and side; the castle-move and fifty-move counters start at 0 in a set-up.
    assert.equal(positionString(fx.board).split(' ').slice(0, 2).join(' '), fx.position.split(' ').slice(0, 2).join(' '), name);
  }
});

test('every module the first page needs is preloaded by index.html (no request waits for another)', async () => {
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { WEB } = await import('./support.mjs');
  const html = await readFile(join(WEB, 'index.html'), 'utf8');
  const preloaded = new Set([...html.matchAll(/<link rel="modulepreload" href="\/(js\/[^"]+)">/g)].map((m) => m[1]));
  // The static imports reached from app.js (pages and languages load on demand).
  const needed = new Set(['js/app.js']);
  for (const file of needed) {
    const text = await readFile(join(WEB, file), 'utf8');
    for (const m of text.matchAll(/^import [^;]*? from '\.\/([^']+)';/gms)) needed.add(`js/${m[1]}`);
  }
  assert.ok(needed.size > 5, [...needed].join(' '));
  for (const file of needed) assert.ok(preloaded.has(file), `${file} is imported at start but not preloaded`);
});
