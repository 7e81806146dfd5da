// Archive: search finished games, step through one, export its record, import a record.
import { h, errorNotice, setTitle, formatDate, playerLink, timeControlText } from '../ui.js';
import { t } from '../i18n.js';
import { api } from '../api.js';
import { GAME_KINDS, gameName, reasonWords } from '../names.js';
import { gameViewer } from '../viewer.js';

/** @typedef {import('../types.js').GameSummary} GameSummary */

/** @param {HTMLElement} main */
export async function render(main) {
  setTitle(t('archive.title'));
  const params = new URLSearchParams(location.search);
  const results = h('div', { class: 'table-wrap', 'aria-live': 'polite' });
  const viewerBox = h('div', { id: 'viewer' });
  /** @type {{destroy: () => void} | null} */
  let viewer = null;

  const form = h('form', { class: 'filters', role: 'search' },
    field('kind', t('archive.game'), h('select', { id: 'f-kind', name: 'kind' },
      new Option(t('archive.any'), ''), ...GAME_KINDS.map((k) => new Option(gameName(k), k)))),
    field('player', t('archive.player'), h('input', { type: 'search', id: 'f-player', name: 'player', autocomplete: 'off' })),
    field('result', t('archive.result'), h('select', { id: 'f-result', name: 'result' },
      new Option(t('archive.any'), ''), new Option(t('archive.first_won'), 'first'), new Option(t('archive.second_won'), 'second'), new Option(t('result.draw'), 'draw'))),
    field('rated', t('archive.rated'), h('select', { id: 'f-rated', name: 'rated' },
      new Option(t('archive.any'), ''), new Option(t('lobby.rated'), 'true'), new Option(t('lobby.casual'), 'false'))),
    field('since', t('archive.since'), h('input', { type: 'date', id: 'f-since', name: 'since' })),
    field('until', t('archive.until'), h('input', { type: 'date', id: 'f-until', name: 'until' })),
    h('button', { type: 'submit', class: 'btn btn--primary' }, t('archive.search')));

  /**
   * @param {string} name
   * @param {string} label
   * @param {HTMLElement} control
   */
  function field(name, label, control) {
    return h('div', { class: 'field' }, h('label', { for: `f-${name}` }, label), control);
  }

  for (const [k, v] of params) {
    const control = form.querySelector(`[name="${k}"]`);
    if (control instanceof HTMLInputElement || control instanceof HTMLSelectElement) control.value = v;
  }

  /** @param {number} page */
  async function search(page) {
    const data = new FormData(form);
    const filter = {
      kind: String(data.get('kind') ?? ''), player: String(data.get('player') ?? ''),
      result: String(data.get('result') ?? ''), rated: String(data.get('rated') ?? ''),
      since: String(data.get('since') ?? ''), until: String(data.get('until') ?? ''), page,
    };
    results.replaceChildren(h('p', { class: 'empty' }, t('common.loading')));
    setAddress({ ...filter });
    try {
      const answer = await api.archive(filter);
      drawResults(answer.games, answer.page, answer.pages);
    } catch (error) {
      results.replaceChildren(errorNotice(error));
    }
  }

  /**
   * @param {GameSummary[]} games
   * @param {number} page
   * @param {number} pages
   */
  function drawResults(games, page, pages) {
    if (!games.length) {
      results.replaceChildren(h('p', { class: 'empty' }, t('archive.none')));
      return;
    }
    const rows = games.map((g) => h('tr', null,
      h('td', null, formatDate(g.finished_at ?? g.created_at)),
      h('td', null, gameName(g.kind)),
      h('td', null, player(g, 'first'), ' – ', player(g, 'second')),
      h('td', null, g.result === 'draw' ? '½–½' : g.result === 'first' ? '1–0' : g.result === 'second' ? '0–1' : '·',
        g.reason ? h('span', { class: 'muted small', dataset: { reason: g.reason } }, ` ${reasonWords(g.kind, g.reason, g.ended_by)}`) : null),
      h('td', null, timeControlText(g.time_control)),
      h('td', null, h('button', { type: 'button', class: 'btn btn--small', onclick: () => open(g.id) }, t('archive.view')))));
    results.replaceChildren(
      h('table', { class: 'table' },
        h('thead', null, h('tr', null, ...['archive.date', 'archive.game', 'archive.players', 'archive.result', 'lobby.time', 'lobby.action'].map((k) => h('th', { scope: 'col' }, t(k))))),
        h('tbody', null, ...rows)),
      h('div', { class: 'pager' },
        h('button', { type: 'button', class: 'btn btn--small', disabled: page <= 1, onclick: () => search(page - 1) }, t('archive.previous')),
        h('span', { class: 'muted small' }, t('archive.page', { page, pages })),
        h('button', { type: 'button', class: 'btn btn--small', disabled: page >= pages, onclick: () => search(page + 1) }, t('archive.next'))));
  }

  /**
   * A player of a listed game: a link for users, the name a record gave for imports.
   * @param {GameSummary} g
   * @param {'first' | 'second'} side
   */
  function player(g, side) {
    const ref = g[side];
    const name = g.names?.[side];
    if (!ref && name) return h('span', null, name);
    return playerLink(ref);
  }

  /**
   * Keeps the address in step with what is shown (filters, page, open game), so that
   * it can be bookmarked, shared and reloaded.
   * @param {Record<string, string | number | null>} changes
   */
  function setAddress(changes) {
    const url = new URL(location.href);
    for (const [k, v] of Object.entries(changes)) {
      if (v === null || v === '' || (k === 'page' && v === 1)) url.searchParams.delete(k);
      else url.searchParams.set(k, String(v));
    }
    if (url.href !== location.href) history.replaceState(history.state, '', url);
  }

  /** @param {string} id */
  async function open(id) {
    viewer?.destroy();
    viewerBox.replaceChildren(h('p', { class: 'empty' }, t('common.loading')));
    try {
      const made = gameViewer(await api.game(id));
      viewer = made;
      viewerBox.replaceChildren(made.el);
      setAddress({ game: id });
      viewerBox.scrollIntoView({ behavior: 'smooth', block: 'start' });
    } catch (error) {
      viewerBox.replaceChildren(errorNotice(error));
    }
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void search(1);
  });

  // --- import ----------------------------------------------------------------------
  const importStatus = h('div', { 'aria-live': 'polite' });
  const file = h('input', { type: 'file', id: 'import-file', accept: '.otg,.txt,text/plain' });
  const text = h('textarea', { id: 'import-text', name: 'record', rows: 6, spellcheck: false });
  const importKind = h('select', { id: 'import-kind', name: 'kind' }, ...GAME_KINDS.map((k) => new Option(gameName(k), k)));
  file.addEventListener('change', async () => {
    const f = file.files?.[0];
    if (f) text.value = await f.text();
  });
  const importForm = h('form', { class: 'stack' },
    h('div', { class: 'field' }, h('label', { for: 'import-kind' }, t('archive.game')), importKind),
    h('div', { class: 'field' }, h('label', { for: 'import-text' }, t('archive.paste')), text),
    h('div', { class: 'field' }, h('label', { for: 'import-file' }, t('archive.upload')), file),
    h('button', { type: 'submit', class: 'btn btn--primary' }, t('archive.import')),
    importStatus);
  importForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const { id } = await api.importRecord(/** @type {import('../types.js').GameKind} */ (importKind.value), text.value);
      importStatus.replaceChildren(h('p', { class: 'notice notice--good' }, t('archive.imported')));
      // The list shows the new game too.
      void search(1);
      await open(id);
    } catch (error) {
      importStatus.replaceChildren(errorNotice(error));
    }
  });

  main.append(
    h('section', { class: 'card stack' }, h('h1', null, t('archive.title')), form, results),
    viewerBox,
    h('details', { class: 'card' }, h('summary', null, h('strong', null, t('archive.import_title'))), h('p', { class: 'muted small' }, t('archive.import_intro')), importForm));
  void search(Number(params.get('page') ?? 1));
  const gameParam = params.get('game');
  if (gameParam) void open(gameParam);
  return { destroy: () => viewer?.destroy() };
}
