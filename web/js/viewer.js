// A finished (or any) game to step through: board, moves, arrow keys, export, and the
// pieces each side has lost by the move shown.
import { h, formatDate, analysisAddress } from './ui.js';
import { t } from './i18n.js';
import { api } from './api.js';
import { Board } from './board.js';
import { MoveList } from './movelist.js';
import { boardAt } from './replay.js';
import { prefs } from './prefs.js';
import { gameName, sideName, resultWords } from './names.js';
import { lostPieces, lostEl } from './captured.js';

/** @typedef {import('./types.js').GameState} GameState */

/**
 * @param {GameState} game
 * @returns {{el: HTMLElement, destroy: () => void}}
 */
export function gameViewer(game) {
  const settings = prefs();
  const boardEl = h('div');
  const board = new Board(boardEl, { t, names: { gameName, sideName }, coordinates: settings.coordinates });
  const ply = { value: game.moves.length };
  // Each side's lost pieces (a record without its start position has no count).
  const captured = h('p', { class: 'small', id: 'viewer-captured', hidden: !game.start_board });
  // Analyse opens the position shown.
  const analyse = h('a', { class: 'btn btn--small', id: 'viewer-analyse', href: analysisAddress(game.id, ply.value, game.moves.length) }, t('play.analyse'));
  const show = (animate = false) => {
    analyse.href = analysisAddress(game.id, ply.value, game.moves.length);
    const view = game.start_board ? boardAt(game.start_board, game.moves, ply.value) : game.board;
    board.set({ board: view, legalMoves: [], lastMove: ply.value > 0 ? game.moves[ply.value - 1] : null, interactive: false, animate });
    if (game.start_board) {
      const start = game.start_board;
      captured.replaceChildren(...(/** @type {import('./types.js').Side[]} */ (['first', 'second'])).flatMap((side, i) => [
        i ? ' · ' : '',
        h('span', { class: 'muted' }, `${sideName(game.kind, side)} `),
        lostEl(game.kind, side, lostPieces(start, view, side))]));
    }
  };
  const list = new MoveList((p) => {
    const forward = p === ply.value + 1;
    ply.value = p;
    show(forward);
  });
  list.set(game.moves, ply.value);
  show();
  const names = ['first', 'second'].map((side) => {
    const p = game.players.find((x) => x.side === side);
    const who = p && p.ai ? t('common.ai_level', { level: p.ai }) : p?.name || '?';
    return `${who} (${sideName(game.kind, /** @type {import('./types.js').Side} */ (side))})`;
  });
  const result = game.result ? resultWords(game.kind, game.result, game.ended_by) : null;
  const el = h('div', { class: 'play viewer', dataset: { game: game.id } },
    h('div', { class: 'play__board', dataset: { kind: game.kind } }, boardEl),
    h('aside', { class: 'play__side' },
      h('div', { class: 'card stack' },
        h('h2', null, gameName(game.kind)),
        h('p', { class: 'small', id: 'viewer-players' }, names.join(' – ')),
        game.played_at ? h('p', { class: 'muted small', id: 'viewer-date' }, formatDate(game.played_at)) : null,
        captured,
        result ? h('div', { class: 'result-banner' }, h('strong', null, result.headline), h('span', null, result.reason)) : null,
        game.start_board ? null : h('p', { class: 'muted small' }, t('archive.final_only'))),
      list.el,
      h('p', { class: 'muted small' }, t('archive.keys_hint')),
      h('div', { class: 'btn-row' },
        h('a', { class: 'btn btn--small', href: api.recordUrl(game.id), download: '' }, t('play.download')),
        // The engine is kept out of a game until it ends.
        game.status === 'finished' || game.status === 'aborted'
          ? analyse
          : null,
        h('a', { class: 'btn btn--small', href: `/game/${encodeURIComponent(game.id)}` }, t('archive.open')))));
  return {
    el,
    destroy() {
      list.destroy();
      board.destroy();
    },
  };
}
