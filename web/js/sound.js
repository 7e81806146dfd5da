// Move sounds made with WebAudio at play time: no sound files to load.

/** @type {AudioContext | null} */
let context = null;

/**
 * Plays a short sound: a soft knock for a move, a lower double knock for a capture, a
 * rising pair of notes for a game's end, a high blip for low time.
 * @param {"move" | "capture" | "end" | "low_time"} kind
 */
export function playSound(kind) {
  try {
    context ??= new AudioContext();
    const ctx = context;
    if (ctx.state === 'suspended') void ctx.resume();
    const now = ctx.currentTime;
    /** @type {Record<string, Array<[number, number, number]>>} frequency, start, length */
    const table = {
      move: [[420, 0, 0.07]],
      capture: [[300, 0, 0.07], [220, 0.08, 0.09]],
      end: [[523, 0, 0.12], [784, 0.13, 0.2]],
      low_time: [[1046, 0, 0.06]],
    };
    const notes = table[kind];
    for (const [freq, start, length] of notes) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = kind === 'end' ? 'sine' : 'triangle';
      osc.frequency.setValueAtTime(freq, now + start);
      gain.gain.setValueAtTime(0.0001, now + start);
      gain.gain.exponentialRampToValueAtTime(0.25, now + start + 0.008);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      osc.connect(gain).connect(ctx.destination);
      osc.start(now + start);
      osc.stop(now + start + length + 0.02);
    }
  } catch {
    // No audio device (or not allowed yet): sounds are optional.
  }
}
