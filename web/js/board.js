// The board: draws a position and reports the move a player chooses. It knows no rules
// (the legal moves come from the server with their geometry), no network and no page
// (in the spirit of lichess's chessground); pages compose it.
//
//   const board = new Board(element, { t, names, onMove: (move) => socket.send(move.text) });
//   board.set({ board: view, legalMoves, lastMove, interactive: true });
//
// It imports no module of the app: its words (`t`), the games' and sides' names
// (`names`) and its sounds (`sound`) come from whoever makes it.

/** @typedef {import('./types.js').BoardView} BoardView */
/** @typedef {import('./types.js').MoveInfo} MoveInfo */
/** @typedef {import('./types.js').Square} Square */
/** @typedef {import('./types.js').Side} Side */
/** @typedef {import('./types.js').PieceKind} PieceKind */
/** @typedef {import('./types.js').Cell} Cell */
/** @typedef {(key: string, params?: Record<string, string | number>) => string} Translate */

/**
 * The names the board says in its label ("Copenhagen, attackers to move").
 * @typedef {object} BoardNames
 * @property {(kind: import('./types.js').GameKind) => string} gameName a game's name
 * @property {(kind: import('./types.js').GameKind, side: Side) => string} sideName a
 *   side's name in that game
 */

/**
 * @typedef {object} BoardOptions
 * @property {Translate} t translates the board's strings (`board.*`, `piece.*`)
 * @property {BoardNames} names the games' and the sides' names
 * @property {(move: MoveInfo) => void} [onMove] called with the move the player chose
 * @property {(move: MoveInfo | null) => void} [onPremove] called with the move queued
 *   while premoving (see BoardState's `premoving`), or null when it is cancelled
 * @property {Side} [orientation] the side shown at the bottom (default "first")
 * @property {boolean} [coordinates] draw file and rank names (default true)
 * @property {(kind: "move" | "capture") => void} [sound] plays a move's sound (without
 *   it the board is silent)
 * @property {boolean} [animate] animate moves and captures (default true, off when the
 *   user prefers reduced motion)
 * @property {boolean} [small] a thumbnail: no coordinates, no focus, no input
 */

/**
 * @typedef {object} BoardState
 * @property {BoardView} board
 * @property {MoveInfo[]} [legalMoves] moves the player may make now (empty: none)
 * @property {MoveInfo | null} [lastMove] the move that led here, highlighted
 * @property {boolean} [interactive] whether the player may move (default: legal moves given)
 * @property {(sq: Square) => void} [edit] set-up mode: a click, tap or Enter on a square
 *   calls this instead of choosing a move
 * @property {boolean} [animate] animate (and sound) a new last move (default true; false
 *   when jumping around a game's history)
 * @property {boolean} [premoving] the move chosen is queued, not played: it stays drawn
 *   (`premove`) and goes to `onPremove`; a click on the board, a right click or Escape
 *   cancels it
 * @property {MoveInfo | null} [premove] the queued move to draw
 * @property {BoardArrow[]} [arrows] moves drawn as arrows (the engine's lines)
 */

/**
 * @typedef {object} BoardArrow
 * @property {MoveInfo} move
 * @property {boolean} [best] the best move (drawn bolder than the others)
 */

const SVG = 'http://www.w3.org/2000/svg';
/** Side of a square in SVG user units. */
const S = 100;
/** Room for the coordinates left of and below the board. */
const MARGIN = 38;
/** A small screen: the coordinates go inside the edge squares, so that the squares take
 * the whole width of a phone held upright, or the whole height of one on its side. */
const NARROW = typeof matchMedia === 'function' ? matchMedia('(max-width: 600px), (max-height: 500px)') : null;
/** Pointer travel (CSS pixels) that turns a press on a piece into a drag. */
const DRAG_THRESHOLD = 6;

/** The translation keys of the pieces, by side and kind (Camelot first = White). */
const PIECE_KEYS = {
  attacker: 'piece.attacker',
  defender: 'piece.defender',
  king: 'piece.king',
  first_knight: 'piece.white_knight',
  first_man: 'piece.white_man',
  second_knight: 'piece.black_knight',
  second_man: 'piece.black_man',
};

/**
 * @param {Side} side
 * @param {PieceKind} kind
 * @returns {string}
 */
function pieceKey(side, kind) {
  if (kind === 'knight' || kind === 'man') return PIECE_KEYS[`${side}_${kind}`];
  return PIECE_KEYS[kind];
}

/**
 * Whether a piece is drawn light (tafl defenders and king, Camelot White) or dark.
 * @param {Side} side
 * @param {PieceKind} kind
 */
function isLight(side, kind) {
  if (kind === 'knight' || kind === 'man') return side === 'first';
  return kind !== 'attacker';
}

/**
 * The SVG of one piece in a 100x100 box: shape tells the kind and colour tells the side,
 * so neither alone is needed (colour-blind players, greyscale screens).
 * @param {Side} side
 * @param {PieceKind} kind
 * @returns {string}
 */
export function pieceSvg(side, kind) {
  const light = isLight(side, kind);
  const body = light ? 'var(--kt-piece-light)' : 'var(--kt-piece-dark)';
  const edge = light ? 'var(--kt-piece-light-edge)' : 'var(--kt-piece-dark-edge)';
  const mark = light ? 'var(--kt-piece-light-mark)' : 'var(--kt-piece-dark-mark)';
  // A soft shadow of the piece's own outline, a little lower.
  const shadow = (/** @type {string} */ shape) => shape.replace('/>', ' fill="rgba(0,0,0,.18)" transform="translate(0 4)"/>');
  switch (kind) {
    case 'attacker':
      // A diamond: nothing round about the attackers.
      return `${shadow('<path d="M50 12 L88 50 L50 88 L12 50 Z" stroke-linejoin="round"/>')}<path d="M50 12 L88 50 L50 88 L12 50 Z" fill="${body}" stroke="${edge}" stroke-width="4" stroke-linejoin="round"/>`
        + `<path d="M50 32 L68 50 L50 68 L32 50 Z" fill="none" stroke="${mark}" stroke-width="3.5" stroke-linejoin="round"/>`;
    case 'defender':
      return `${shadow('<circle cx="50" cy="50" r="35"/>')}<circle cx="50" cy="50" r="34" fill="${body}" stroke="${edge}" stroke-width="4"/>`
        + `<circle cx="50" cy="50" r="20" fill="none" stroke="${mark}" stroke-width="3.5"/>`;
    case 'king':
      return `${shadow('<circle cx="50" cy="50" r="40"/>')}<circle cx="50" cy="50" r="39" fill="${body}" stroke="${edge}" stroke-width="4.5"/>`
        + '<path d="M27 66 L25 38 L38 50 L50 28 L62 50 L75 38 L73 66 Z" fill="var(--kt-crown)" stroke="var(--kt-piece-light-edge)" stroke-width="3.5" stroke-linejoin="round"/>'
        + '<rect x="27" y="66" width="46" height="7" rx="2" fill="var(--kt-crown)" stroke="var(--kt-piece-light-edge)" stroke-width="3"/>';
    case 'man':
      return `${shadow('<circle cx="50" cy="50" r="34"/>')}<circle cx="50" cy="50" r="33" fill="${body}" stroke="${edge}" stroke-width="4"/>`
        + `<circle cx="50" cy="50" r="8" fill="${mark}"/>`;
    case 'knight':
      // An octagon with a horse's head: a different outline from the round men.
      return `${shadow('<path d="M35 12 H65 L88 35 V65 L65 88 H35 L12 65 V35 Z"/>')}<path d="M35 12 H65 L88 35 V65 L65 88 H35 L12 65 V35 Z" fill="${body}" stroke="${edge}" stroke-width="4" stroke-linejoin="round"/>`
        + `<path d="M36 76 C35 66 38 58 44 52 L35 55 C30 56 27 52 29 48 L43 33 C45 29 49 26 53 25 L55 18 L60 25 C69 29 73 39 72 50 L70 76 Z" fill="${mark}" stroke="${mark}" stroke-width="2" stroke-linejoin="round"/>`
        + `<circle cx="51" cy="35" r="3" fill="${body}"/>`;
  }
  return '';
}

/**
 * @param {Square} a
 * @param {Square} b
 */
const same = (a, b) => a.file === b.file && a.rank === b.rank;

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 * @returns {SVGElement}
 */
function svgEl(tag, attrs = {}) {
  const el = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

export class Board {
  /**
   * @param {HTMLElement} root the element the board fills (its width decides the size)
   * @param {BoardOptions} options
   */
  constructor(root, options) {
    this.root = root;
    this.t = options.t;
    this.names = options.names;
    this.onMove = options.onMove ?? (() => {});
    this.onPremove = options.onPremove ?? (() => {});
    /** @type {Side} */
    this.orientation = options.orientation ?? 'first';
    this.coordinates = options.small ? false : options.coordinates ?? true;
    this.sound = options.sound ?? null;
    this.small = options.small ?? false;
    const reduced = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
    this.animate = (options.animate ?? true) && !reduced;

    /** @type {BoardView | null} */
    this.view = null;
    /** @type {MoveInfo[]} */
    this.legal = [];
    /** @type {MoveInfo | null} */
    this.lastMove = null;
    this.interactive = false;
    /** @type {((sq: Square) => void) | null} */
    this.edit = null;
    this.premoving = false;
    /** @type {MoveInfo | null} */
    this.premove = null;
    /** @type {BoardArrow[]} */
    this.arrows = [];
    /** @type {Square | null} */
    this.selected = null;
    /** @type {Square} */
    this.focus = { file: 0, rank: 0 };
    /** @type {MoveInfo[] | null} the choices the path picker shows */
    this.choices = null;
    /** @type {MoveInfo | null} the path the picker previews */
    this.preview = null;
    /** @type {{pointerId: number, from: Square, x: number, y: number, started: boolean, wasSelected: boolean, el: SVGElement | null} | null} */
    this.drag = null;

    root.classList.add('kt-board');
    if (this.small) root.classList.add('kt-board--small');
    this.svg = /** @type {SVGSVGElement} */ (svgEl('svg', { class: 'kt-board__svg' }));
    this.layers = {
      squares: svgEl('g', { class: 'kt-squares' }),
      coords: svgEl('g', { class: 'kt-coords', 'aria-hidden': 'true' }),
      marks: svgEl('g', { class: 'kt-marks' }),
      dests: svgEl('g', { class: 'kt-dests' }),
      pieces: svgEl('g', { class: 'kt-pieces' }),
      arrows: svgEl('g', { class: 'kt-arrows', 'aria-hidden': 'true' }),
      ghosts: svgEl('g', { class: 'kt-ghosts' }),
      path: svgEl('g', { class: 'kt-path' }),
      focus: svgEl('rect', { class: 'kt-focus', width: S - 8, height: S - 8, rx: 6 }),
    };
    for (const layer of Object.values(this.layers)) this.svg.append(layer);
    this.picker = document.createElement('div');
    this.picker.className = 'kt-picker';
    this.picker.hidden = true;
    this.picker.setAttribute('role', 'dialog');
    this.live = document.createElement('div');
    this.live.className = 'visually-hidden';
    this.live.setAttribute('aria-live', 'polite');
    root.replaceChildren(this.svg, this.picker, this.live);

    /** Draws again when the screen turns between narrow and wide (where coordinates go). */
    this.onNarrow = () => this.render();
    if (this.coordinates) NARROW?.addEventListener('change', this.onNarrow);
    if (!this.small) {
      this.svg.setAttribute('tabindex', '0');
      this.svg.setAttribute('role', 'application');
      this.svg.setAttribute('aria-roledescription', this.t('board.role'));
      this.svg.addEventListener('pointerdown', (e) => this.pointerDown(e));
      this.svg.addEventListener('pointermove', (e) => this.pointerMove(e));
      this.svg.addEventListener('pointerup', (e) => this.pointerUp(e));
      this.svg.addEventListener('pointercancel', () => this.cancelDrag());
      this.svg.addEventListener('contextmenu', (e) => {
        if (!this.premove) return;
        e.preventDefault();
        this.cancelPremove();
      });
      this.svg.addEventListener('keydown', (e) => this.keyDown(e));
      this.svg.addEventListener('focus', () => this.announceFocus());
      this.picker.addEventListener('keydown', (e) => this.pickerKey(e));
    } else {
      this.svg.setAttribute('role', 'img');
    }
  }

  /**
   * Shows a position. A new last move is animated (piece along its path, captured pieces
   * fading) when the previous position is the one it was played from.
   * @param {BoardState} state
   */
  set(state) {
    const previous = this.view;
    const moved = state.lastMove && (!this.lastMove || this.lastMove.text !== state.lastMove.text
      || !previous || previous.to_move !== state.board.to_move);
    const kindChanged = !previous || previous.kind !== state.board.kind;
    this.view = state.board;
    this.legal = state.legalMoves ?? [];
    this.lastMove = state.lastMove ?? null;
    this.interactive = state.interactive ?? this.legal.length > 0;
    /** @type {((sq: Square) => void) | null} */
    this.edit = state.edit ?? null;
    this.premoving = state.premoving ?? false;
    this.premove = state.premove ?? null;
    this.arrows = state.arrows ?? [];
    if (this.selected && !this.movesFrom(this.selected).length) this.selected = null;
    this.closePicker();
    if (kindChanged) this.focus = this.initialFocus();
    this.render();
    if (moved && previous && !kindChanged && this.lastMove && state.animate !== false) {
      this.animateMove(this.lastMove, previous);
      this.sound?.(this.lastMove.captures.length ? 'capture' : 'move');
    }
  }

  /**
   * Shows the board from the other side, or from `side`.
   * @param {Side} [side]
   */
  flip(side) {
    this.orientation = side ?? (this.orientation === 'first' ? 'second' : 'first');
    this.root.dataset.orientation = this.orientation;
    this.render();
  }

  /**
   * Draws these moves as arrows (the engine's), in place of those drawn.
   * @param {BoardArrow[]} arrows
   */
  setArrows(arrows) {
    this.arrows = arrows;
    if (this.view) this.drawArrows();
  }

  /** Stops listening and empties the element. */
  destroy() {
    NARROW?.removeEventListener('change', this.onNarrow);
    this.root.replaceChildren();
    this.root.classList.remove('kt-board', 'kt-board--small');
  }

  // --- geometry -------------------------------------------------------------------

  /** Whether the coordinates are drawn inside the edge squares (a narrow screen). */
  get inside() {
    return this.coordinates && !!NARROW?.matches;
  }

  get margin() {
    return this.coordinates && !this.inside ? MARGIN : 0;
  }

  /**
   * Top-left corner of a square in user units.
   * @param {Square} sq
   */
  xy(sq) {
    const v = /** @type {BoardView} */ (this.view);
    const col = this.orientation === 'first' ? sq.file : v.files - 1 - sq.file;
    const row = this.orientation === 'first' ? v.ranks - 1 - sq.rank : sq.rank;
    return { x: this.margin + col * S, y: row * S };
  }

  /**
   * The square under a point in user units, or null.
   * @param {number} x
   * @param {number} y
   * @returns {Square | null}
   */
  squareAtUser(x, y) {
    const v = this.view;
    if (!v) return null;
    const col = Math.floor((x - this.margin) / S);
    const row = Math.floor(y / S);
    if (col < 0 || row < 0 || col >= v.files || row >= v.ranks) return null;
    const sq = this.orientation === 'first'
      ? { file: col, rank: v.ranks - 1 - row }
      : { file: v.files - 1 - col, rank: row };
    return this.cell(sq).exists ? sq : null;
  }

  /**
   * @param {number} clientX
   * @param {number} clientY
   */
  userPoint(clientX, clientY) {
    const ctm = this.svg.getScreenCTM();
    if (!ctm) return { x: -1, y: -1 };
    const p = new DOMPoint(clientX, clientY).matrixTransform(ctm.inverse());
    return { x: p.x, y: p.y };
  }

  /**
   * @param {Square} sq
   * @returns {Cell}
   */
  cell(sq) {
    const v = /** @type {BoardView} */ (this.view);
    if (sq.file < 0 || sq.rank < 0 || sq.file >= v.files || sq.rank >= v.ranks) {
      return { exists: false, piece: null, mark: 'plain' };
    }
    return v.cells[sq.rank * v.files + sq.file];
  }

  /**
   * The square's name in the game's notation ("e5", "F11").
   * @param {Square} sq
   */
  name(sq) {
    const v = /** @type {BoardView} */ (this.view);
    return `${v.file_names[sq.file]}${v.rank_names[sq.rank]}`;
  }

  /** @param {Square} sq */
  movesFrom(sq) {
    return this.legal.filter((m) => same(m.from, sq));
  }

  /** @returns {Square} */
  initialFocus() {
    const v = /** @type {BoardView} */ (this.view);
    const first = this.legal[0];
    if (first) return first.from;
    return { file: Math.floor(v.files / 2), rank: Math.floor(v.ranks / 2) };
  }

  // --- drawing --------------------------------------------------------------------

  render() {
    const v = this.view;
    if (!v) return;
    const width = this.margin + v.files * S;
    const height = v.ranks * S + this.margin;
    this.svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    this.root.dataset.kind = v.kind;
    this.root.dataset.orientation = this.orientation;
    this.root.dataset.toMove = v.to_move;
    // A board choosing a premove says so (it is not the player's move).
    this.root.dataset.interactive = this.premoving && this.interactive ? 'premove' : String(this.interactive);
    this.svg.setAttribute('aria-label', this.t('board.label', { game: this.names.gameName(v.kind), side: this.names.sideName(v.kind, v.to_move) }));
    this.drawSquares();
    this.drawCoords();
    this.drawMarks();
    this.drawPieces();
    this.drawArrows();
    this.drawDests();
    this.drawPath();
    this.drawFocus();
  }

  /**
   * Draws the engine's moves as arrows from the centre of their first square along their
   * path to their last, the best one bolder.
   */
  drawArrows() {
    const g = this.layers.arrows;
    g.replaceChildren();
    // Drawn last first, so that the best is on top.
    for (const arrow of [...this.arrows].reverse()) {
      const m = arrow.move;
      const squares = m.path.length > 1 ? m.path : [m.from, m.to];
      const points = squares.map((sq) => {
        const { x, y } = this.xy(sq);
        return [x + S / 2, y + S / 2];
      });
      // The shaft stops short of the last centre, where the head begins.
      const [x1, y1] = points[points.length - 2];
      const [x2, y2] = points[points.length - 1];
      const length = Math.hypot(x2 - x1, y2 - y1) || 1;
      const [ux, uy] = [(x2 - x1) / length, (y2 - y1) / length];
      const head = 34;
      const width = arrow.best ? 15 : 10;
      const base = [x2 - ux * head, y2 - uy * head];
      const shaft = [...points.slice(0, -1), base].map(([x, y]) => `${x},${y}`).join(' ');
      const el = svgEl('g', { class: arrow.best ? 'kt-arrow kt-arrow--best' : 'kt-arrow', 'data-move': m.text });
      el.append(svgEl('polyline', { class: 'kt-arrow__shaft', points: shaft, 'stroke-width': width }));
      const side = head * 0.6;
      el.append(svgEl('polygon', {
        class: 'kt-arrow__head',
        points: `${x2},${y2} ${base[0] - uy * side},${base[1] + ux * side} ${base[0] + uy * side},${base[1] - ux * side}`,
      }));
      g.append(el);
    }
  }

  drawSquares() {
    const v = /** @type {BoardView} */ (this.view);
    const g = this.layers.squares;
    g.replaceChildren();
    for (let rank = 0; rank < v.ranks; rank++) {
      for (let file = 0; file < v.files; file++) {
        const sq = { file, rank };
        const cell = this.cell(sq);
        if (!cell.exists) continue;
        const { x, y } = this.xy(sq);
        let cls = (file + rank) % 2 === 0 ? 'kt-sq kt-sq--dark' : 'kt-sq kt-sq--light';
        const mark = cell.mark;
        if (mark === 'throne') cls += ' kt-sq--throne';
        else if (mark === 'corner') cls += ' kt-sq--corner';
        else if (typeof mark === 'object') cls += ` kt-sq--castle kt-sq--castle-${mark.castle}`;
        g.append(svgEl('rect', { class: cls, x, y, width: S, height: S, 'data-square': this.name(sq) }));
      }
    }
  }

  drawCoords() {
    const v = /** @type {BoardView} */ (this.view);
    const g = this.layers.coords;
    g.replaceChildren();
    g.classList.toggle('kt-coords--inside', this.inside);
    if (!this.coordinates) return;
    if (this.inside) {
      // Each file's name in the lowest square drawn in its column, each rank's in the
      // leftmost square of its row (Camelot's cut corners have no square there).
      for (let file = 0; file < v.files; file++) {
        let best = null;
        for (let rank = 0; rank < v.ranks; rank++) {
          if (!this.cell({ file, rank }).exists) continue;
          const p = this.xy({ file, rank });
          if (!best || p.y > best.y) best = p;
        }
        if (!best) continue;
        const text = svgEl('text', { x: best.x + S - 7, y: best.y + S - 8, 'text-anchor': 'end' });
        text.textContent = v.file_names[file];
        g.append(text);
      }
      for (let rank = 0; rank < v.ranks; rank++) {
        let best = null;
        for (let file = 0; file < v.files; file++) {
          if (!this.cell({ file, rank }).exists) continue;
          const p = this.xy({ file, rank });
          if (!best || p.x < best.x) best = p;
        }
        if (!best) continue;
        const text = svgEl('text', { x: best.x + 6, y: best.y + 27, 'text-anchor': 'start' });
        text.textContent = v.rank_names[rank];
        g.append(text);
      }
      return;
    }
    for (let file = 0; file < v.files; file++) {
      const { x } = this.xy({ file, rank: 0 });
      const text = svgEl('text', { x: x + S / 2, y: v.ranks * S + MARGIN * 0.72, 'text-anchor': 'middle' });
      text.textContent = v.file_names[file];
      g.append(text);
    }
    for (let rank = 0; rank < v.ranks; rank++) {
      const { y } = this.xy({ file: 0, rank });
      const text = svgEl('text', { x: MARGIN / 2, y: y + S / 2 + 8, 'text-anchor': 'middle' });
      text.textContent = v.rank_names[rank];
      g.append(text);
    }
  }

  drawMarks() {
    const v = /** @type {BoardView} */ (this.view);
    const g = this.layers.marks;
    g.replaceChildren();
    // Special squares carry a symbol as well as a colour.
    for (let i = 0; i < v.cells.length; i++) {
      const cell = v.cells[i];
      if (!cell.exists || cell.mark === 'plain') continue;
      const sq = { file: i % v.files, rank: Math.floor(i / v.files) };
      const { x, y } = this.xy(sq);
      if (cell.mark === 'throne' || cell.mark === 'corner') {
        const c = svgEl('path', {
          class: 'kt-mark',
          d: `M${x + 20} ${y + 20} L${x + 80} ${y + 80} M${x + 80} ${y + 20} L${x + 20} ${y + 80}`,
        });
        g.append(c);
        g.append(svgEl('rect', { class: 'kt-mark', x: x + 12, y: y + 12, width: S - 24, height: S - 24, rx: 4 }));
      } else {
        g.append(svgEl('path', {
          class: 'kt-mark kt-mark--castle',
          d: `M${x + 22} ${y + 78} V${y + 38} H${x + 32} V${y + 28} H${x + 42} V${y + 38} H${x + 58} V${y + 28} H${x + 68} V${y + 38} H${x + 78} V${y + 78} Z`,
        }));
      }
    }
    const last = this.lastMove;
    if (last) {
      for (const sq of [last.from, last.to]) {
        const { x, y } = this.xy(sq);
        g.append(svgEl('rect', { class: 'kt-last', x, y, width: S, height: S, 'data-square': this.name(sq) }));
      }
      // The squares a canter or jump sequence stood on between its start and end.
      for (const sq of last.path.slice(1, -1)) {
        const { x, y } = this.xy(sq);
        g.append(svgEl('circle', { class: 'kt-last-step', cx: x + S / 2, cy: y + S / 2, r: 14 }));
      }
      for (const sq of last.captures) {
        const { x, y } = this.xy(sq);
        g.append(svgEl('rect', { class: 'kt-captured', x: x + 3, y: y + 3, width: S - 6, height: S - 6, rx: 8, 'data-square': this.name(sq) }));
      }
    }
    if (this.premove) {
      for (const sq of [this.premove.from, this.premove.to]) {
        const { x, y } = this.xy(sq);
        g.append(svgEl('rect', { class: 'kt-premove', x, y, width: S, height: S, 'data-square': this.name(sq) }));
      }
    }
    if (this.selected) {
      const { x, y } = this.xy(this.selected);
      g.append(svgEl('rect', { class: 'kt-selected', x, y, width: S, height: S }));
    }
  }

  /** Forgets the queued premove (and says so to `onPremove`). */
  cancelPremove() {
    if (!this.premove) return;
    this.premove = null;
    this.drawMarks();
    this.say(this.t('board.premove_cancelled'));
    this.onPremove(null);
  }

  drawPieces() {
    const v = /** @type {BoardView} */ (this.view);
    const g = this.layers.pieces;
    g.replaceChildren();
    for (let i = 0; i < v.cells.length; i++) {
      const piece = v.cells[i].piece;
      if (!piece) continue;
      const sq = { file: i % v.files, rank: Math.floor(i / v.files) };
      g.append(this.pieceEl(sq, piece[0], piece[1]));
    }
  }

  /**
   * @param {Square} sq
   * @param {Side} side
   * @param {PieceKind} kind
   */
  pieceEl(sq, side, kind) {
    const { x, y } = this.xy(sq);
    const el = svgEl('g', {
      class: `kt-piece kt-piece--${side} kt-piece--${kind}`,
      'data-square': this.name(sq),
      'data-piece': `${side}-${kind}`,
    });
    if (this.movesFrom(sq).length && this.interactive) el.classList.add('kt-piece--movable');
    el.style.transform = `translate(${x}px, ${y}px)`;
    el.innerHTML = pieceSvg(side, kind);
    return el;
  }

  drawDests() {
    const g = this.layers.dests;
    g.replaceChildren();
    if (!this.selected || !this.interactive) return;
    const seen = new Set();
    for (const m of this.movesFrom(this.selected)) {
      const name = this.name(m.to);
      if (seen.has(name)) continue;
      seen.add(name);
      const { x, y } = this.xy(m.to);
      const capture = m.captures.length > 0;
      g.append(svgEl('circle', {
        class: capture ? 'kt-dest kt-dest--capture' : 'kt-dest',
        cx: x + S / 2, cy: y + S / 2, r: capture ? 38 : 15,
        'data-square': name,
      }));
    }
  }

  /** Draws the previewed path (picker) with numbered steps and crossed-out captures. */
  drawPath() {
    const g = this.layers.path;
    g.replaceChildren();
    const m = this.preview;
    if (!m) return;
    const points = m.path.map((sq) => {
      const { x, y } = this.xy(sq);
      return `${x + S / 2},${y + S / 2}`;
    });
    g.append(svgEl('polyline', { class: 'kt-path__line', points: points.join(' ') }));
    for (const sq of m.captures) {
      const { x, y } = this.xy(sq);
      g.append(svgEl('path', {
        class: 'kt-path__capture',
        d: `M${x + 24} ${y + 24} L${x + 76} ${y + 76} M${x + 76} ${y + 24} L${x + 24} ${y + 76}`,
      }));
    }
    m.path.forEach((sq, i) => {
      if (i === 0) return;
      const { x, y } = this.xy(sq);
      g.append(svgEl('circle', { class: 'kt-path__step', cx: x + S / 2, cy: y + S / 2, r: 17 }));
      const label = svgEl('text', { class: 'kt-path__num', x: x + S / 2, y: y + S / 2 + 8, 'text-anchor': 'middle' });
      label.textContent = String(i);
      g.append(label);
    });
  }

  drawFocus() {
    const { x, y } = this.xy(this.focus);
    this.layers.focus.setAttribute('x', String(x + 4));
    this.layers.focus.setAttribute('y', String(y + 4));
    this.layers.focus.setAttribute('data-square', this.name(this.focus));
  }

  // --- animation ------------------------------------------------------------------

  /**
   * @param {MoveInfo} move
   * @param {BoardView} before
   */
  animateMove(move, before) {
    if (!this.animate) return;
    const piece = this.layers.pieces.querySelector(`[data-square="${this.name(move.to)}"]`);
    const steps = move.path.length > 1 ? move.path : [move.from, move.to];
    const perStep = Math.max(90, Math.min(180, 540 / (steps.length - 1)));
    if (piece instanceof SVGElement) {
      const frames = steps.map((sq) => {
        const { x, y } = this.xy(sq);
        return { transform: `translate(${x}px, ${y}px)` };
      });
      piece.animate(frames, { duration: perStep * (steps.length - 1), easing: 'ease-in-out' });
    }
    // The captured pieces fade where they stood, once the mover has passed.
    const prev = this.view;
    this.view = before;
    const ghosts = move.captures.flatMap((sq) => {
      const p = this.cell(sq).piece;
      return p ? [this.pieceEl(sq, p[0], p[1])] : [];
    });
    this.view = prev;
    for (const ghost of ghosts) {
      ghost.classList.add('kt-ghost');
      this.layers.ghosts.append(ghost);
      const anim = ghost.animate([{ opacity: 1 }, { opacity: 1, offset: 0.5 }, { opacity: 0 }], {
        duration: perStep * (steps.length - 1) + 250,
        easing: 'ease-out',
      });
      anim.onfinish = () => ghost.remove();
    }
  }

  // --- choosing a move ------------------------------------------------------------

  /**
   * What a click, a tap or Enter on a square does: select a movable piece, play to a
   * destination of the selected one, or cancel.
   * @param {Square} sq
   */
  activate(sq) {
    if (this.edit) {
      this.edit(sq);
      return;
    }
    if (!this.interactive || !this.view) return;
    if (this.selected) {
      const moves = this.movesFrom(this.selected).filter((m) => same(m.to, sq));
      if (moves.length) {
        this.choose(moves);
        return;
      }
      if (same(this.selected, sq)) {
        this.select(null);
        return;
      }
    }
    this.select(this.movesFrom(sq).length ? sq : null);
  }

  /** @param {Square | null} sq */
  select(sq) {
    this.selected = sq;
    this.drawMarks();
    this.drawDests();
    this.drawPieces();
    if (sq) {
      const cell = this.cell(sq);
      const n = new Set(this.movesFrom(sq).map((m) => this.name(m.to))).size;
      if (cell.piece) {
        this.say(this.t('board.selected', { piece: this.t(pieceKey(cell.piece[0], cell.piece[1])), square: this.name(sq), count: n }));
      }
    }
  }

  /**
   * Plays the move, or opens the path picker when several moves share this start and
   * destination (Camelot jump sequences that capture different pieces).
   * @param {MoveInfo[]} moves
   */
  choose(moves) {
    if (moves.length === 1) {
      this.play(moves[0]);
      return;
    }
    this.openPicker(moves);
  }

  /**
   * Shows the move on the board at once (its geometry says what moves and what is
   * captured), stops input until the next position arrives, and reports it.
   * @param {MoveInfo} move
   * @param {boolean} [animate]
   */
  play(move, animate = true) {
    if (this.premoving) {
      // Queued, not played: drawn on the squares it would move between.
      this.premove = move;
      this.selected = null;
      this.closePicker();
      this.render();
      this.say(this.t('board.premove_set', { move: move.text }));
      this.onPremove(move);
      return;
    }
    const v = /** @type {BoardView} */ (this.view);
    const before = v;
    const cells = v.cells.slice();
    const at = (/** @type {Square} */ sq) => sq.rank * v.files + sq.file;
    const piece = cells[at(move.from)].piece;
    for (const sq of move.captures) cells[at(sq)] = { ...cells[at(sq)], piece: null };
    cells[at(move.from)] = { ...cells[at(move.from)], piece: null };
    cells[at(move.to)] = { ...cells[at(move.to)], piece };
    this.view = { ...v, cells, to_move: v.to_move === 'first' ? 'second' : 'first' };
    this.legal = [];
    this.lastMove = move;
    this.selected = null;
    this.interactive = false;
    this.closePicker();
    this.focus = move.to;
    this.render();
    if (animate) this.animateMove(move, before);
    this.sound?.(move.captures.length ? 'capture' : 'move');
    this.say(this.t('board.played', { move: move.text }));
    this.onMove(move);
  }

  /** @param {MoveInfo[]} moves */
  openPicker(moves) {
    this.choices = moves;
    const title = document.createElement('p');
    title.className = 'kt-picker__title';
    title.id = `kt-picker-${Math.random().toString(36).slice(2)}`;
    title.textContent = this.t('board.picker_title');
    this.picker.setAttribute('aria-labelledby', title.id);
    const list = document.createElement('div');
    list.className = 'kt-picker__list';
    moves.forEach((m, i) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'kt-picker__choice';
      button.dataset.move = m.text;
      const path = document.createElement('span');
      path.className = 'kt-picker__path';
      path.textContent = `${i + 1}. ${m.path.map((sq) => this.name(sq)).join(' › ')}`;
      const caps = document.createElement('span');
      caps.className = 'kt-picker__captures';
      caps.textContent = m.captures.length
        ? this.t('board.picker_captures', { count: m.captures.length, squares: m.captures.map((sq) => this.name(sq)).join(', ') })
        : this.t('board.picker_no_capture');
      button.append(path, caps);
      button.addEventListener('click', () => this.play(m, false));
      button.addEventListener('pointerenter', () => this.showPreview(m));
      button.addEventListener('focus', () => this.showPreview(m));
      list.append(button);
    });
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.className = 'kt-picker__cancel btn btn--quiet';
    cancel.textContent = this.t('common.cancel');
    cancel.addEventListener('click', () => {
      this.closePicker();
      this.svg.focus();
    });
    this.picker.replaceChildren(title, list, cancel);
    // Keep the paths in sight: the picker takes the half of the board they are not in.
    const v = /** @type {BoardView} */ (this.view);
    const rows = moves.flatMap((m) => m.path.map((sq) => this.xy(sq).y / S));
    const middle = rows.reduce((a, b) => a + b, 0) / rows.length;
    this.picker.classList.toggle('kt-picker--top', middle >= v.ranks / 2);
    this.picker.classList.toggle('kt-picker--bottom', middle < v.ranks / 2);
    this.picker.hidden = false;
    this.showPreview(moves[0]);
    // After the press that opened it has moved the focus to the board, unless a key
    // (forwarded by keyDown) has already moved it into the picker.
    setTimeout(() => {
      if (this.choices === moves && !this.picker.contains(document.activeElement)) {
        /** @type {HTMLElement | null} */ (list.querySelector('button'))?.focus();
      }
    }, 0);
  }

  /** @param {MoveInfo | null} m */
  showPreview(m) {
    this.preview = m;
    this.drawPath();
    for (const b of this.picker.querySelectorAll('.kt-picker__choice')) {
      b.classList.toggle('is-previewed', !!m && /** @type {HTMLElement} */ (b).dataset.move === m.text);
    }
  }

  closePicker() {
    if (!this.choices) return;
    this.choices = null;
    this.picker.hidden = true;
    this.picker.replaceChildren();
    this.showPreview(null);
  }

  /**
   * Keys for the open picker: the arrows move between its buttons, Escape closes it. A
   * key that reaches the board instead (a fast press right after the click that opened
   * the picker, before the focus moved into it) acts from the previewed choice, and
   * Enter there plays that choice.
   * @param {KeyboardEvent} e
   * @param {boolean} [fromBoard]
   */
  pickerKey(e, fromBoard = false) {
    const moves = /** @type {MoveInfo[]} */ (this.choices);
    // The choices come first among the picker's buttons, then Cancel.
    const buttons = /** @type {HTMLElement[]} */ ([...this.picker.querySelectorAll('button')]);
    const i = fromBoard
      ? Math.max(0, moves.findIndex((m) => m === this.preview))
      : buttons.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    if (e.key === 'Escape') {
      e.preventDefault();
      this.closePicker();
      this.svg.focus();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = (i + (e.key === 'ArrowDown' ? 1 : -1) + buttons.length) % buttons.length;
      buttons[next].focus();
    } else if (fromBoard && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      this.play(moves[i], false);
    } else if (fromBoard && e.key === 'Tab') {
      e.preventDefault();
      buttons[i].focus();
    }
  }

  // --- pointer --------------------------------------------------------------------

  /** @param {PointerEvent} e */
  pointerDown(e) {
    if (e.button !== 0 || !this.view) return;
    if (this.premove) {
      // A click anywhere on the board takes the queued move back.
      e.preventDefault();
      this.cancelPremove();
      return;
    }
    const p = this.userPoint(e.clientX, e.clientY);
    const sq = this.squareAtUser(p.x, p.y);
    if (!sq) {
      if (this.selected) this.select(null);
      return;
    }
    this.focus = sq;
    this.drawFocus();
    if (this.choices) this.closePicker();
    const movable = this.interactive && this.movesFrom(sq).length > 0;
    const isDest = this.selected && this.movesFrom(this.selected).some((m) => same(m.to, sq));
    if (movable && !isDest) {
      e.preventDefault();
      const wasSelected = !!this.selected && same(this.selected, sq);
      if (!wasSelected) this.select(sq);
      const el = this.layers.pieces.querySelector(`[data-square="${this.name(sq)}"]`);
      this.drag = {
        pointerId: e.pointerId, from: sq, x: e.clientX, y: e.clientY, started: false, wasSelected,
        el: el instanceof SVGElement ? el : null,
      };
      this.svg.setPointerCapture(e.pointerId);
      return;
    }
    this.activate(sq);
  }

  /** @param {PointerEvent} e */
  pointerMove(e) {
    const d = this.drag;
    if (!d || d.pointerId !== e.pointerId) return;
    if (!d.started && Math.hypot(e.clientX - d.x, e.clientY - d.y) < DRAG_THRESHOLD) return;
    if (!d.started) {
      d.started = true;
      d.el?.classList.add('kt-piece--dragging');
      if (d.el) this.layers.pieces.append(d.el);
    }
    const p = this.userPoint(e.clientX, e.clientY);
    if (d.el) d.el.style.transform = `translate(${p.x - S / 2}px, ${p.y - S / 2}px)`;
    const over = this.squareAtUser(p.x, p.y);
    for (const dot of this.layers.dests.children) {
      dot.classList.toggle('is-hovered', !!over && dot.getAttribute('data-square') === this.name(over));
    }
  }

  /** @param {PointerEvent} e */
  pointerUp(e) {
    const d = this.drag;
    if (!d || d.pointerId !== e.pointerId) return;
    this.drag = null;
    if (this.svg.hasPointerCapture(e.pointerId)) this.svg.releasePointerCapture(e.pointerId);
    if (!d.started) {
      // A click on the selected piece unselects it.
      if (d.wasSelected) this.select(null);
      return;
    }
    const p = this.userPoint(e.clientX, e.clientY);
    const over = this.squareAtUser(p.x, p.y);
    const moves = over ? this.movesFrom(d.from).filter((m) => same(m.to, over)) : [];
    if (moves.length === 1) {
      this.play(moves[0], false);
      return;
    }
    this.drawPieces();
    if (moves.length > 1) this.openPicker(moves);
  }

  cancelDrag() {
    if (!this.drag) return;
    this.drag = null;
    this.drawPieces();
  }

  // --- keyboard -------------------------------------------------------------------

  /** @param {KeyboardEvent} e */
  keyDown(e) {
    if (!this.view) return;
    if (this.choices) {
      this.pickerKey(e, true);
      return;
    }
    /** @type {Record<string, [number, number]>} */
    const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
    const delta = arrows[e.key];
    if (delta) {
      e.preventDefault();
      const sign = this.orientation === 'first' ? 1 : -1;
      this.moveFocus(delta[0] * sign, delta[1] * sign);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.activate(this.focus);
      if (!this.choices) this.announceFocus();
    } else if (e.key === 'Escape') {
      if (this.premove) {
        e.preventDefault();
        this.cancelPremove();
      } else if (this.selected) {
        e.preventDefault();
        this.select(null);
        this.announceFocus();
      }
    }
  }

  /**
   * Moves the keyboard focus one square, skipping squares not on the board.
   * @param {number} df
   * @param {number} dr
   */
  moveFocus(df, dr) {
    const v = /** @type {BoardView} */ (this.view);
    let { file, rank } = this.focus;
    for (;;) {
      file += df;
      rank += dr;
      if (file < 0 || rank < 0 || file >= v.files || rank >= v.ranks) return;
      if (this.cell({ file, rank }).exists) break;
    }
    this.focus = { file, rank };
    this.drawFocus();
    this.announceFocus();
  }

  announceFocus() {
    if (!this.view) return;
    const sq = this.focus;
    const cell = this.cell(sq);
    const what = cell.piece ? this.t(pieceKey(cell.piece[0], cell.piece[1])) : this.t('board.empty');
    let text = this.t('board.square', { square: this.name(sq), content: what });
    if (this.selected && this.movesFrom(this.selected).some((m) => same(m.to, sq))) {
      text += ` — ${this.t('board.destination')}`;
    }
    this.say(text);
  }

  /** @param {string} text */
  say(text) {
    this.live.textContent = text;
  }
}
