// One WebSocket with reconnection and revision tracking. A game socket says hello with
// the last revision it saw, so after a dropped connection the server sends exactly what
// was missed (or a full state); nothing is lost. The lobby socket needs no hello: it
// starts with a snapshot. (A server may close a socket whose page stops reading, e.g. a
// tab frozen in the background: it reconnects and catches up like any other.)

/**
 * @typedef {object} SocketOptions
 * @property {(msg: any) => void} onMessage every message the server sends, parsed
 * @property {(connected: boolean) => void} [onStatus] connection up or down
 * @property {() => any} [hello] the first message after each (re)connection
 */

/** Reconnection delays: quick at first, then every few seconds. */
const DELAYS = [250, 500, 1000, 2000, 4000, 8000];

export class Socket {
  /**
   * @param {string} path e.g. `/ws/game/k3f9x2`
   * @param {SocketOptions} options
   */
  constructor(path, options) {
    this.url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}`;
    this.options = options;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.attempt = 0;
    this.closed = false;
    /** @type {any[]} messages waiting for the connection */
    this.queue = [];
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.pinger = undefined;
    /** @type {boolean | null} null until the first connection succeeds or fails */
    this.connected = null;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.addEventListener('open', () => {
      this.attempt = 0;
      this.setStatus(true);
      const hello = this.options.hello?.();
      if (hello) ws.send(JSON.stringify(hello));
      for (const msg of this.queue.splice(0)) ws.send(JSON.stringify(msg));
      clearInterval(this.pinger);
      // Keeps proxies from closing an idle socket, and shows a dead one sooner.
      this.pinger = setInterval(() => this.send({ t: 'ping' }), 25000);
    });
    ws.addEventListener('message', (e) => {
      let msg;
      try {
        msg = JSON.parse(typeof e.data === 'string' ? e.data : '');
      } catch {
        return;
      }
      this.options.onMessage(msg);
    });
    ws.addEventListener('close', () => {
      clearInterval(this.pinger);
      this.setStatus(false);
      this.retry();
    });
  }

  retry() {
    if (this.closed) return;
    // Spread out: after a server restart every page reconnects, and not all at once.
    const delay = DELAYS[Math.min(this.attempt, DELAYS.length - 1)] * (0.5 + Math.random());
    this.attempt += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** @param {boolean} up */
  setStatus(up) {
    if (this.connected === up) return;
    this.connected = up;
    this.options.onStatus?.(up);
  }

  /**
   * Sends a message now, or as soon as the connection is back.
   * @param {any} msg
   */
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
    else if (msg.t !== 'ping') this.queue.push(msg);
  }

  /** Closes for good (leaving the page). */
  /**
   * Drops the connection and opens a fresh one at once: after joining a game or signing
   * in, so that the new cookies go with it (a socket keeps the identity it opened with).
   */
  reconnect() {
    this.attempt = 0;
    this.ws?.close();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    this.ws?.close();
  }
}
