// Small SVG line charts: the evaluation over a game (mistakes and blunders marked) and a
// rating's history. Crisp at any width; points can be clicked.

const SVGNS = 'http://www.w3.org/2000/svg';

/**
 * @typedef {object} ChartPoint
 * @property {number} x
 * @property {number} y
 * @property {"mistake" | "blunder" | null} [mark]
 * @property {string} [title] a tooltip
 */

/**
 * @typedef {object} ChartOptions
 * @property {ChartPoint[]} points in x order
 * @property {number} yMin
 * @property {number} yMax
 * @property {string} label what the chart shows, for screen readers
 * @property {number} [width]
 * @property {number} [height]
 * @property {boolean} [area] shade between the line and zero (evaluation)
 * @property {(y: number) => string} [yTick] labels for the y axis (min, middle, max)
 * @property {(x: number) => string} [xTick] labels for the first and last x
 * @property {(index: number) => void} [onSelect] a point was clicked
 * @property {number | null} [cursor] the x to mark with a vertical line
 * @property {Array<{x: number, label: string}>} [xTicks] labelled marks along the x axis
 *   (instead of xTick's first and last)
 * @property {number[]} [yTicks] the y values to label with yTick (default: max, middle, min)
 * @property {string} [xLabel] the x axis's title, under it
 * @property {string} [yLabel] the y axis's title, along it
 */

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 */
function el(tag, attrs) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/**
 * @param {ChartOptions} o
 * @returns {SVGSVGElement}
 */
export function lineChart(o) {
  const width = o.width ?? 640;
  const height = o.height ?? 180;
  const pad = { left: o.yLabel ? 62 : 44, right: 12, top: 10, bottom: o.xLabel ? 40 : 22 };
  const svg = /** @type {SVGSVGElement} */ (el('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': o.label }));
  const pts = o.points;
  if (!pts.length) return svg;
  const xMin = pts[0].x;
  const xMax = Math.max(pts[pts.length - 1].x, xMin + 1);
  const sx = (/** @type {number} */ x) => pad.left + ((x - xMin) / (xMax - xMin)) * (width - pad.left - pad.right);
  const span = o.yMax - o.yMin || 1;
  const sy = (/** @type {number} */ y) => pad.top + (1 - (Math.max(o.yMin, Math.min(o.yMax, y)) - o.yMin) / span) * (height - pad.top - pad.bottom);
  const zero = o.yMin < 0 && o.yMax > 0 ? 0 : o.yMin;
  svg.append(el('line', { class: 'chart__axis', x1: pad.left, x2: width - pad.right, y1: sy(zero), y2: sy(zero) }));
  svg.append(el('line', { class: 'chart__axis', x1: pad.left, x2: pad.left, y1: pad.top, y2: height - pad.bottom }));
  const line = pts.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(' ');
  if (o.area) {
    svg.append(el('polygon', {
      class: 'chart__area',
      points: `${sx(pts[0].x)},${sy(zero)} ${line} ${sx(pts[pts.length - 1].x)},${sy(zero)}`,
    }));
  }
  svg.append(el('polyline', { class: 'chart__line', points: line }));
  if (o.yTick) {
    for (const y of o.yTicks ?? [o.yMax, (o.yMax + o.yMin) / 2, o.yMin]) {
      if (o.yTicks) svg.append(el('line', { class: 'chart__grid', x1: pad.left, x2: width - pad.right, y1: sy(y), y2: sy(y) }));
      const text = el('text', { class: 'chart__label', x: pad.left - 6, y: sy(y) + 4, 'text-anchor': 'end' });
      text.textContent = o.yTick(y);
      svg.append(text);
    }
  }
  if (o.xTicks) {
    for (const { x, label } of o.xTicks) {
      svg.append(el('line', { class: 'chart__axis', x1: sx(x), x2: sx(x), y1: height - pad.bottom, y2: height - pad.bottom + 4 }));
      const text = el('text', { class: 'chart__label', x: sx(x), y: height - pad.bottom + 16, 'text-anchor': 'middle' });
      text.textContent = label;
      svg.append(text);
    }
  } else if (o.xTick) {
    for (const [x, anchor] of /** @type {Array<[number, string]>} */ ([[xMin, 'start'], [xMax, 'end']])) {
      const text = el('text', { class: 'chart__label', x: sx(x), y: height - 6, 'text-anchor': anchor });
      text.textContent = o.xTick(x);
      svg.append(text);
    }
  }
  if (o.xLabel) {
    const text = el('text', { class: 'chart__title', x: pad.left + (width - pad.left - pad.right) / 2, y: height - 5, 'text-anchor': 'middle' });
    text.textContent = o.xLabel;
    svg.append(text);
  }
  if (o.yLabel) {
    const cy = pad.top + (height - pad.top - pad.bottom) / 2;
    const text = el('text', { class: 'chart__title', x: 14, y: cy, 'text-anchor': 'middle', transform: `rotate(-90 14 ${cy})` });
    text.textContent = o.yLabel;
    svg.append(text);
  }
  if (o.cursor !== null && o.cursor !== undefined) {
    svg.append(el('line', { class: 'chart__cursor', x1: sx(o.cursor), x2: sx(o.cursor), y1: pad.top, y2: height - pad.bottom }));
  }
  pts.forEach((p, i) => {
    const dot = el('circle', {
      cx: sx(p.x), cy: sy(p.y), r: p.mark ? 5 : 3,
      class: p.mark === 'blunder' ? 'chart__blunder' : p.mark === 'mistake' ? 'chart__mistake' : 'chart__dot',
      'data-index': i,
    });
    if (p.title) {
      const title = el('title', {});
      title.textContent = p.title;
      dot.append(title);
    }
    svg.append(dot);
  });
  if (o.onSelect) {
    const select = o.onSelect;
    svg.style.cursor = 'pointer';
    svg.addEventListener('click', (e) => {
      const ctm = svg.getScreenCTM();
      if (!ctm) return;
      const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
      let best = 0;
      pts.forEach((q, i) => {
        if (Math.abs(sx(q.x) - p.x) < Math.abs(sx(pts[best].x) - p.x)) best = i;
      });
      select(best);
    });
  }
  return svg;
}

/**
 * Draws a chart at its container's own width in CSS pixels (one unit of the drawing a
 * pixel), so that its text stays at its real size on a phone as on a desktop, and again
 * when that width changes.
 * @param {HTMLElement} box the element the chart fills
 * @param {(width: number, height: number) => SVGSVGElement} draw
 * @returns {{stop: () => void}}
 */
export function fitChart(box, draw) {
  let drawn = 0;
  const redraw = () => {
    const width = Math.round(box.clientWidth);
    if (!width || width === drawn) return;
    drawn = width;
    box.replaceChildren(draw(width, Math.round(Math.max(170, Math.min(260, width * 0.42)))));
  };
  const observer = new ResizeObserver(() => requestAnimationFrame(redraw));
  observer.observe(box);
  redraw();
  return { stop: () => observer.disconnect() };
}

/**
 * Round values between `lo` and `hi` for labelling an axis: at most `count` of them, at a
 * step of 1, 2 or 5 times a power of ten.
 * @param {number} lo
 * @param {number} hi
 * @param {number} count
 * @returns {number[]}
 */
export function niceTicks(lo, hi, count) {
  const span = Math.max(hi - lo, 1);
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) ticks.push(Math.round(v * 1e6) / 1e6);
  return ticks;
}

/**
 * An engine score as a number in [-1, 1] for the bar and the graph (a winning chance
 * curve), from the point of view the score is given in.
 * @param {import('./types.js').Score} score
 */
export function scoreToUnit(score) {
  if ('win_in' in score) return 1;
  if ('loss_in' in score) return -1;
  return 2 / (1 + Math.exp(-score.cp / 250)) - 1;
}

/**
 * An engine score in words: "+0.35", "#5", "-#3".
 * @param {import('./types.js').Score} score
 */
export function scoreText(score) {
  if ('win_in' in score) return `#${score.win_in}`;
  if ('loss_in' in score) return `-#${score.loss_in}`;
  const pawns = score.cp / 100;
  return `${pawns > 0 ? '+' : ''}${pawns.toFixed(2)}`;
}

/**
 * The same score from the other side's point of view.
 * @param {import('./types.js').Score} score
 * @returns {import('./types.js').Score}
 */
export function negate(score) {
  if ('win_in' in score) return { loss_in: score.win_in };
  if ('loss_in' in score) return { win_in: score.loss_in };
  return { cp: -score.cp };
}
