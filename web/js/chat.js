// A chat panel: a game's players' room and spectators' room (the server says who may
// read which; the players read the spectators' room once the game is over), or the
// lobby's one room on the home page; with the reader's own mutes and "chat off" kept in
// this browser, and reporting a message.
import { h, toast, errorText } from './ui.js';
import { t } from './i18n.js';
import { api } from './api.js';

/** @typedef {import('./types.js').ChatMessage} ChatMessage */
/** @typedef {import('./types.js').ChatRoom} ChatRoom */

const OFF_KEY = 'kingstable.chat.off';
const MUTED_KEY = 'kingstable.chat.muted';
/** The longest message the server takes, in characters. */
export const MAX_CHARS = 500;
/** The most messages the panel keeps per room (the server's history is 50). */
const KEEP = 200;

/** @returns {boolean} whether this reader turned chat off */
export function chatOff() {
  try {
    return localStorage.getItem(OFF_KEY) === '1';
  } catch {
    return false;
  }
}

/** @param {boolean} off */
export function setChatOff(off) {
  try {
    if (off) localStorage.setItem(OFF_KEY, '1');
    else localStorage.removeItem(OFF_KEY);
  } catch {
    // Storage off: for this page only.
  }
}

/** @returns {string[]} the authors this reader muted */
function mutedNames() {
  try {
    const list = JSON.parse(localStorage.getItem(MUTED_KEY) ?? '[]');
    return Array.isArray(list) ? list.filter((n) => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

/** @param {string[]} names */
function saveMuted(names) {
  try {
    localStorage.setItem(MUTED_KEY, JSON.stringify(names.slice(-500)));
  } catch {
    // Storage off: for this page only.
  }
}

/**
 * @typedef {object} ChatOptions
 * @property {string} [id] the panel's element id (`chat`)
 * @property {boolean} [lobby] the lobby's room, not a game's
 */

/** The server's reasons for refusing a message (`chat_refused`), in words. */
const REFUSALS = {
  empty: 'chat.why_empty',
  too_long: 'chat.why_too_long',
  not_one_line: 'chat.why_not_one_line',
  language: 'chat.why_language',
  too_many: 'chat.why_too_many',
  banned: 'chat.why_banned',
  muted: 'chat.why_muted',
  sign_in: 'chat.why_sign_in',
  ai_game: 'chat.why_ai_game',
  not_started: 'chat.why_not_started',
  wrong_room: 'chat.why_wrong_room',
};

export class Chat {
  /**
   * @param {(message: {t: 'chat', room: ChatRoom, text: string}) => void} send
   * @param {ChatOptions} [options]
   */
  constructor(send, options = {}) {
    this.send = send;
    /** @type {Map<ChatRoom, ChatMessage[]>} */
    this.rooms = new Map(options.lobby ? [['lobby', []]] : [['players', []], ['spectators', []]]);
    /** @type {Set<string>} ids seen (a reconnect sends the history again) */
    this.seen = new Set();
    /** @type {ChatRoom} the room shown */
    this.room = 'players';
    /** @type {ChatRoom | null} the room this reader writes in (null: none) */
    this.writes = null;
    /** @type {ChatRoom[]} the rooms this reader reads */
    this.reads = [];
    this.list = h('ol', { class: 'chat__list', 'aria-live': 'polite' });
    this.tabs = h('div', { class: 'chat__tabs', role: 'tablist' });
    this.note = h('p', { class: 'chat__note muted small', role: 'status' });
    this.input = h('input', {
      class: 'chat__input', type: 'text', maxlength: String(MAX_CHARS), autocomplete: 'off',
      'aria-label': t('chat.placeholder'), placeholder: t('chat.placeholder'),
    });
    this.form = h('form', { class: 'chat__form', onsubmit: (/** @type {Event} */ e) => this.submit(e) },
      this.input, h('button', { type: 'submit', class: 'btn btn--small' }, t('chat.send')));
    this.toggle = h('button', { type: 'button', class: 'btn btn--small chat__toggle', onclick: () => this.setOff(!chatOff()) });
    /** Said to a reader who may not write here (the lobby, signed out). */
    this.signIn = h('p', { class: 'chat__signin muted small' }, t('chat.sign_in_lobby'), ' ',
      h('a', { href: '/signin' }, t('nav.signin')));
    this.body = h('div', { class: 'chat__body stack' }, this.tabs, this.list, this.note, this.form, this.signIn);
    const title = options.lobby ? t('chat.lobby_title') : t('chat.title');
    this.el = h('section', { class: `card chat stack${options.lobby ? ' chat--lobby' : ''}`, id: options.id ?? 'chat', 'aria-label': title },
      h('div', { class: 'chat__head' }, h('h2', { class: 'chat__title' }, title), this.toggle),
      this.body);
    this.el.hidden = true;
    this.draw();
  }

  /**
   * Follows the game, as the server says who may do what (`chat` in the game): the
   * rooms this reader reads now and the one it writes in (null: none). No room read: no
   * chat (against the AI, or until both players sit).
   * @param {{reads: ChatRoom[], writes: ChatRoom | null}} rooms
   */
  setRooms({ reads, writes }) {
    this.el.hidden = reads.length === 0;
    this.writes = writes;
    this.reads = reads;
    if (!reads.includes(this.room)) this.room = reads[0] ?? this.room;
    this.draw();
  }

  /**
   * The lobby's room: read by everyone, written by a signed-in account.
   * @param {boolean} signedIn
   */
  setLobby(signedIn) {
    this.el.hidden = false;
    this.room = 'lobby';
    this.reads = ['lobby'];
    this.writes = signedIn ? 'lobby' : null;
    this.draw();
  }

  /**
   * Messages of the lobby chat (the last ones on connecting, then each new one).
   * @param {import('./types.js').LobbyChatLine[]} lines
   */
  receiveLobby(lines) {
    for (const line of lines) this.receive({ ...line, room: 'lobby', guest: false });
  }

  /** @param {boolean} off */
  setOff(off) {
    setChatOff(off);
    this.draw();
  }

  /** @param {ChatMessage} message a `chat` message from the socket */
  receive(message) {
    if (this.seen.has(message.id)) return;
    this.seen.add(message.id);
    const list = this.rooms.get(message.room);
    if (!list) return;
    list.push(message);
    list.sort((a, b) => a.at - b.at);
    if (list.length > KEEP) list.splice(0, list.length - KEEP);
    if (message.room === this.room) this.drawList();
    else this.drawTabs();
  }

  /**
   * Shows why a message was not sent: the server's reason in the reader's language, or
   * its words when the reason is one this page does not know.
   * @param {string | undefined} reason the server's word (`muted`, `too_long`…)
   * @param {string} words the server's message, in English
   */
  refused(reason, words) {
    const key = REFUSALS[/** @type {keyof typeof REFUSALS} */ (reason ?? '')];
    this.note.textContent = t('chat.refused', { why: key ? t(key) : words });
    this.note.classList.add('chat__note--error');
  }

  /** @param {Event} event */
  submit(event) {
    event.preventDefault();
    const text = this.input.value.trim();
    if (!text || !this.writes) return;
    this.send({ t: 'chat', room: this.writes, text });
    this.input.value = '';
    this.note.textContent = '';
    this.note.classList.remove('chat__note--error');
  }

  draw() {
    const off = chatOff();
    this.toggle.textContent = off ? t('chat.turn_on') : t('chat.turn_off');
    this.toggle.setAttribute('aria-pressed', String(off));
    this.body.hidden = off;
    this.drawTabs();
    this.drawList();
    this.form.hidden = this.room !== this.writes;
    this.signIn.hidden = this.writes !== null || this.room !== 'lobby';
  }

  drawTabs() {
    // One room (the lobby's): no tabs.
    this.tabs.hidden = this.reads.length < 2;
    this.tabs.replaceChildren(...this.reads.map((room) => h('button', {
      type: 'button', role: 'tab', class: 'chat__tab', dataset: { room },
      'aria-selected': String(room === this.room),
      onclick: () => {
        this.room = room;
        this.draw();
      },
    }, t(room === 'players' ? 'chat.room_players' : 'chat.room_spectators'), ` (${this.rooms.get(room)?.length ?? 0})`)));
  }

  drawList() {
    const muted = new Set(mutedNames());
    const shown = (this.rooms.get(this.room) ?? []).filter((m) => !muted.has(m.from));
    this.list.replaceChildren(...shown.map((m) => this.line(m)));
    if (shown.length === 0) this.list.append(h('li', { class: 'muted small' }, t('chat.empty')));
    if (muted.size > 0) {
      this.list.append(h('li', null, h('button', {
        type: 'button', class: 'btn btn--small chat__unmute',
        onclick: () => {
          saveMuted([]);
          this.drawList();
        },
      }, t('chat.unmute_all'))));
    }
    this.list.scrollTop = this.list.scrollHeight;
    this.drawTabs();
  }

  /** @param {ChatMessage} m */
  line(m) {
    const mute = h('button', {
      type: 'button', class: 'chat__act', title: t('chat.mute', { name: m.from }), 'aria-label': t('chat.mute', { name: m.from }),
      onclick: () => {
        saveMuted([...mutedNames().filter((n) => n !== m.from), m.from]);
        toast(t('chat.muted', { name: m.from }));
        this.drawList();
      },
    }, '⊘');
    const report = h('button', {
      type: 'button', class: 'chat__act', title: t('chat.report'), 'aria-label': t('chat.report'),
      onclick: async () => {
        try {
          await api.reportChat(m.id);
          toast(t('chat.reported'));
        } catch (error) {
          toast(errorText(error));
        }
      },
    }, '⚑');
    return h('li', { class: 'chat__line', dataset: { id: m.id } },
      h('strong', { class: 'chat__from' }, m.from), ' ', h('span', { class: 'chat__text' }, m.text), ' ',
      h('span', { class: 'chat__acts' }, mute, report));
  }
}
