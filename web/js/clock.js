// Both clocks of a game, ticking down locally between the server's messages (which carry
// the time left when they were sent) and re-synced on each one.
import { h } from './ui.js';
import { playSound } from './sound.js';

/** @typedef {import('./types.js').Clocks} Clocks */
/** @typedef {import('./types.js').Side} Side */

/** Under this much time (ms) a clock warns. */
const LOW_MS = 20000;

/**
 * "4:05", "1:02:03", "9.4" (tenths under ten seconds), "2d 4h" (correspondence).
 * @param {number} ms
 */
export function formatClock(ms) {
  const clamped = Math.max(0, ms);
  if (clamped < 10000) return (Math.floor(clamped / 100) / 10).toFixed(1);
  const total = Math.floor(clamped / 1000);
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (days > 0) return `${days}d ${hours}h`;
  const ss = String(seconds).padStart(2, '0');
  if (hours > 0) return `${hours}:${String(minutes).padStart(2, '0')}:${ss}`;
  return `${minutes}:${ss}`;
}

export class ClockPair {
  /** @param {{sound: () => boolean}} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {Record<Side, HTMLElement>} */
    this.els = {
      first: h('div', { class: 'clock', role: 'timer', 'aria-live': 'off', dataset: { side: 'first' } }),
      second: h('div', { class: 'clock', role: 'timer', 'aria-live': 'off', dataset: { side: 'second' } }),
    };
    /** @type {Clocks | null} */
    this.clocks = null;
    this.syncedAt = 0;
    /** @type {Record<Side, boolean>} */
    this.warned = { first: false, second: false };
    this.frame = 0;
  }

  /**
   * New times from the server (null: an untimed game).
   * @param {Clocks | null} clocks
   */
  sync(clocks) {
    this.clocks = clocks;
    this.syncedAt = performance.now();
    for (const side of /** @type {Side[]} */ (['first', 'second'])) this.els[side].hidden = !clocks;
    this.draw();
    cancelAnimationFrame(this.frame);
    if (clocks?.running) this.tick();
  }

  /**
   * The time left on a side's clock now (ms).
   * @param {Side} side
   */
  left(side) {
    const c = this.clocks;
    if (!c) return 0;
    const base = side === 'first' ? c.first_ms : c.second_ms;
    return c.running === side ? base - (performance.now() - this.syncedAt) : base;
  }

  tick() {
    this.draw();
    this.frame = requestAnimationFrame(() => this.tick());
  }

  draw() {
    const c = this.clocks;
    if (!c) return;
    for (const side of /** @type {Side[]} */ (['first', 'second'])) {
      const ms = this.left(side);
      const el = this.els[side];
      const text = formatClock(ms);
      if (el.textContent !== text) el.textContent = text;
      const low = ms < LOW_MS;
      el.classList.toggle('is-running', c.running === side);
      el.classList.toggle('is-low', low);
      if (low && c.running === side && !this.warned[side]) {
        this.warned[side] = true;
        if (this.opts.sound()) playSound('low_time');
      }
      if (!low) this.warned[side] = false;
    }
  }

  stop() {
    cancelAnimationFrame(this.frame);
  }
}
