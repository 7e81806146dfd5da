// Client-side routing with the History API: the server serves index.html for every page
// address, and this picks the page module for it. Pages load on demand.
import { setRulesContext } from './guide.js';

/**
 * What a page gives back: how to leave it (close sockets, stop timers).
 * @typedef {{destroy?: () => void}} PageHandle
 */

/**
 * @typedef {object} Page
 * @property {(main: HTMLElement, params: string[]) => Promise<PageHandle | void>} render
 */

/** @type {Array<[RegExp, string, string]>} address, module, navigation key */
const ROUTES = [
  [/^\/$/, './pages/home.js', '/'],
  [/^\/game\/([A-Za-z0-9_-]+)\/?$/, './pages/game.js', '/'],
  [/^\/watch\/?$/, './pages/watch.js', '/watch'],
  [/^\/archive\/?$/, './pages/archive.js', '/archive'],
  [/^\/players\/?$/, './pages/players.js', '/players'],
  [/^\/my-games\/?$/, './pages/mygames.js', ''],
  [/^\/analysis\/?$/, './pages/analysis.js', '/analysis'],
  [/^\/player\/([^/]+)\/?$/, './pages/player.js', ''],
  [/^\/rules(?:\/([a-z]+))?\/?$/, './pages/rules.js', '/rules'],
  [/^\/signin\/?$/, './pages/signin.js', '/signin'],
  [/^\/signup\/?$/, './pages/signup.js', '/signup'],
  [/^\/settings\/?$/, './pages/settings.js', '/settings'],
  [/^\/reset\/?$/, './pages/reset.js', '/signin'],
  [/^\/confirm\/?$/, './pages/confirm.js', '/settings'],
  [/^\/moderation\/?$/, './pages/moderation.js', '/settings'],
];

/** @type {PageHandle | void} */
let current;
let generation = 0;

/**
 * Shows the page for the current address.
 * @param {HTMLElement} main
 */
export async function route(main) {
  const path = location.pathname;
  const found = ROUTES.find(([re]) => re.test(path));
  current?.destroy?.();
  current = undefined;
  const mine = ++generation;
  const [re, module, nav] = found ?? [/^/, './pages/notfound.js', ''];
  for (const a of document.querySelectorAll('.site-nav a')) {
    const href = a.getAttribute('href') ?? '';
    const on = nav !== '' && (href === nav || (nav === '/rules' && href.startsWith('/rules')));
    if (on) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  // The header's Rules link: the chosen game's rules until a page names its game.
  setRulesContext(null);
  const params = (re.exec(path) ?? []).slice(1).map(decodeURIComponent);
  /** @type {Page} */
  const page = await import(module);
  if (mine !== generation) return;
  main.replaceChildren();
  main.removeAttribute('aria-busy');
  const handle = await page.render(main, params);
  if (mine !== generation) {
    handle?.destroy?.();
    return;
  }
  current = handle;
  document.body.dataset.page = module.replace(/^.*\/(\w+)\.js$/, '$1');
}

/**
 * Goes to an address of the app without reloading.
 * @param {string} path
 * @param {{replace?: boolean}} [opts]
 */
export function navigate(path, opts = {}) {
  if (opts.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.dispatchEvent(new Event('kingstable:navigate'));
}

/**
 * Makes same-origin links inside `root` navigate without reloading.
 * @param {HTMLElement} root
 */
export function captureLinks(root) {
  root.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = e.target instanceof Element ? e.target.closest('a') : null;
    if (!a || a.target || a.hasAttribute('download')) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
    e.preventDefault();
    if (url.pathname + url.search !== location.pathname + location.search) navigate(url.pathname + url.search);
  });
}
