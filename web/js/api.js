// The server's HTTP API, one function per endpoint, named as docs/API.md names them.
// Every call returns parsed JSON or throws an ApiError with the server's code.

/** @typedef {import('./types.js').GameKind} GameKind */
/** @typedef {import('./types.js').Side} Side */

export class ApiError extends Error {
  /**
   * @param {string} code the server's error code (`not_found`, `rate_limited`, …) or
   *   `network` when no answer came
   * @param {string} message
   * @param {number} status
   * @param {string} [reason] which case of the code it is (`challenge_gone` of a
   *   `conflict`), when the server names one
   */
  constructor(code, message, status, reason) {
    super(message);
    this.code = code;
    this.status = status;
    this.reason = reason;
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
async function request(method, path, body) {
  /** @type {RequestInit} */
  const init = { method, credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'content-type': 'application/json' };
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError('network', e instanceof Error ? e.message : String(e), 0);
  }
  const text = await response.text();
  /** @type {any} */
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!response.ok) {
    const error = data && typeof data === 'object' ? data.error ?? data : {};
    throw new ApiError(error.code ?? `http_${response.status}`, error.message ?? response.statusText, response.status, error.reason);
  }
  return data;
}

/**
 * @param {Record<string, string | number | boolean | undefined | null>} params
 */
function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * An account's mail settings (`GET /api/account/mail`).
 * @typedef {object} MailSettings
 * @property {boolean} enabled whether the site sends mail
 * @property {string | null} address the confirmed address
 * @property {{address: string, expires_at: number} | null} pending an address waiting for its link
 * @property {boolean} digest
 * @property {boolean} clock_warning
 */

/**
 * @typedef {object} NewGame
 * @property {GameKind} kind
 * @property {{ai: number} | "friend"} opponent
 * @property {Side | "random"} side
 * @property {string} time_control "5+3", "3d" or "untimed"
 * @property {boolean} rated
 */

export const api = {
  /** @param {NewGame} game @returns {Promise<{id: string, url: string}>} */
  createGame: (game) => request('POST', '/api/games', game),
  /** @param {string} id @returns {Promise<import('./types.js').GameState>} */
  game: (id) => request('GET', `/api/games/${encodeURIComponent(id)}`),
  /** @param {string} id */
  join: (id) => request('POST', `/api/games/${encodeURIComponent(id)}/join`),
  /** @param {string} id @returns {Promise<{id?: string}>} */
  rematch: (id) => request('POST', `/api/games/${encodeURIComponent(id)}/rematch`),
  /** The caller's conditional moves. @param {string} id @returns {Promise<{lines: string[][]}>} */
  conditional: (id) => request('GET', `/api/games/${encodeURIComponent(id)}/conditional`),
  /** @param {string} id @param {string[][]} lines @returns {Promise<{lines: string[][]}>} */
  setConditional: (id, lines) => request('PUT', `/api/games/${encodeURIComponent(id)}/conditional`, { lines }),
  /** @param {number} [page] @returns {Promise<import('./types.js').LivePage>} */
  liveGames: (page = 1) => request('GET', `/api/games?status=live&page=${page}`),
  /** @param {{kind: GameKind, time_control: string, side: Side | "random", rated: boolean, to?: string}} c (`to`: a direct challenge to that player) @returns {Promise<{id: string}>} */
  createChallenge: (c) => request('POST', '/api/challenges', c),
  /** @returns {Promise<import('./types.js').Challenge[]>} */
  challenges: () => request('GET', '/api/challenges'),
  /** @param {string} id @returns {Promise<{game_id: string}>} */
  acceptChallenge: (id) => request('POST', `/api/challenges/${encodeURIComponent(id)}/accept`),
  /** @param {string} id */
  cancelChallenge: (id) => request('DELETE', `/api/challenges/${encodeURIComponent(id)}`),
  /** @param {string} id a direct challenge made to this player */
  declineChallenge: (id) => request('POST', `/api/challenges/${encodeURIComponent(id)}/decline`),
  /** @returns {Promise<import('./types.js').MyChallenges>} */
  myChallenges: () => request('GET', '/api/me/challenges'),
  /**
   * @param {{kind?: string, player?: string, result?: string, rated?: string, since?: string, until?: string, page?: number}} filter
   * @returns {Promise<import('./types.js').ArchivePage>}
   */
  archive: (filter) => request('GET', `/api/archive${query(filter)}`),
  /** @param {string} id @returns {Promise<{over: boolean, messages: import('./types.js').ChatMessage[]}>} */
  gameChat: (id) => request('GET', `/api/games/${encodeURIComponent(id)}/chat`),
  /** @param {string} id a chat message's id @param {string} [reason] */
  reportChat: (id, reason = '') => request('POST', `/api/chat/${encodeURIComponent(id)}/report`, { reason }),
  /** For moderators: the latest reports. @returns {Promise<{reports: import('./types.js').ChatReport[]}>} */
  modReports: () => request('GET', '/api/mod/reports'),
  /**
   * For moderators: bans, unbans or mutes an account in chat.
   * @param {string} user @param {string} action `ban`, `unban` or `mute` @param {number} [minutes] for a mute
   */
  sanction: (user, action, minutes) => request('POST', '/api/mod/sanction', minutes === undefined ? { user, action } : { user, action, minutes }),
  /** The record download's address (`.otg` for tafl, WCF score for Camelot). @param {string} id */
  recordUrl: (id) => `/api/games/${encodeURIComponent(id)}/record`,
  /** @param {GameKind} kind @param {string} record @returns {Promise<{id: string}>} */
  importRecord: (kind, record) => request('POST', '/api/import', { kind, record }),
  /** @returns {Promise<import('./types.js').WhoAmI>} */
  whoami: () => request('GET', '/api/whoami'),
  /** @returns {Promise<import('./types.js').WhoAmI>} */
  guest: () => request('POST', '/api/guest'),
  /** @param {string} username @param {string} password */
  signup: (username, password) => request('POST', '/api/account/signup', { username, password }),
  /** @param {string} username @param {string} password */
  signin: (username, password) => request('POST', '/api/account/signin', { username, password }),
  signout: () => request('POST', '/api/account/signout'),
  signoutEverywhere: () => request('POST', '/api/account/signout-everywhere'),
  /** The language the account reads the site in (its mail is written in it). @param {string} lang */
  setLanguage: (lang) => request('PUT', '/api/account/language', { lang }),
  /** @param {string} current @param {string} next */
  changePassword: (current, next) => request('POST', '/api/account/password', { current_password: current, new_password: next }),
  /** @param {GameKind} kind @param {number} [page] @returns {Promise<import('./types.js').RatingList>} */
  ratings: (kind, page = 1) => request('GET', `/api/ratings${query({ game: kind, page })}`),
  /** The AI's levels with their estimated ratings. @returns {Promise<import('./types.js').LevelList>} */
  levels: () => request('GET', '/api/levels'),
  /** @returns {Promise<{games: import('./types.js').MyGame[], your_turn: number}>} */
  myGames: () => request('GET', '/api/me/games'),
  /** @returns {Promise<{enabled: boolean}>} */
  mail: () => request('GET', '/api/mail'),
  /** @returns {Promise<MailSettings>} */
  accountMail: () => request('GET', '/api/account/mail'),
  /** @param {{digest?: boolean, clock_warning?: boolean}} switches @returns {Promise<MailSettings>} */
  setMailSwitches: (switches) => request('POST', '/api/account/mail', switches),
  /** @param {string} address @param {string} password @returns {Promise<MailSettings>} */
  setEmail: (address, password) => request('POST', '/api/account/email', { address, password }),
  /** @param {string} password @returns {Promise<MailSettings>} */
  removeEmail: (password) => request('POST', '/api/account/email/remove', { password }),
  /** @param {string} token @returns {Promise<{user: {name: string}, address: string}>} */
  confirmEmail: (token) => request('POST', '/api/account/email/confirm', { token }),
  /** @param {string} login a username or an address */
  requestReset: (login) => request('POST', '/api/account/reset/request', { login }),
  /** @param {string} token @param {string} password @returns {Promise<{user: {name: string}}>} */
  reset: (token, password) => request('POST', '/api/account/reset', { token, new_password: password }),
  /** @param {string} name @returns {Promise<import('./types.js').Profile>} */
  player: (name) => request('GET', `/api/players/${encodeURIComponent(name)}`),
  /**
   * The board view and legal moves of a position (analysis): not in LIVE_API.md yet.
   * @param {GameKind} kind @param {string} position empty for the start
   * @param {string[]} moves
   * @returns {Promise<{board: import('./types.js').BoardView, legal_moves: import('./types.js').MoveInfo[], position: string, moves: import('./types.js').PlayedMove[]}>}
   */
  position: (kind, position, moves) => request('POST', '/api/position', { kind, position, moves }),
};
