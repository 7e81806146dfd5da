// Fails (exit 1) when a key is missing from a language or extra in one, a string is
// blank, the {placeholders} of a key differ between languages, a key is used by no code,
// code uses a key no language has, or a game::EndReason or GameKind has no words.
//   node web/tests/i18n_check.mjs
import { readFile, readdir } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = dirname(dirname(fileURLToPath(import.meta.url)));
const ROOT = dirname(WEB);
const LANGS = ['en', 'it', 'fr'];

/** @type {string[]} */
const problems = [];
/** @type {Record<string, Record<string, string>>} */
const strings = {};
for (const lang of LANGS) strings[lang] = (await import(join(WEB, 'i18n', `${lang}.js`))).default;

const keys = new Set(LANGS.flatMap((lang) => Object.keys(strings[lang])));
/** @param {string} text */
const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort().join(',');
for (const key of keys) {
  for (const lang of LANGS) {
    const text = strings[lang][key];
    if (text === undefined) problems.push(`${lang}: missing ${key}`);
    else if (typeof text !== 'string' || text.trim() === '') problems.push(`${lang}: blank ${key}`);
    else if (placeholders(text) !== placeholders(strings.en[key] ?? text)) {
      problems.push(`${lang}: ${key} has placeholders {${placeholders(text)}}, English {${placeholders(strings.en[key])}}`);
    }
  }
}

/**
 * Every file under `dir` whose name ends with one of `exts`.
 * @param {string} dir
 * @param {string[]} exts
 * @returns {Promise<string[]>}
 */
async function files(dir, exts) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['i18n', 'tests'].includes(entry.name)) out.push(...(await files(path, exts)));
    } else if (exts.some((ext) => entry.name.endsWith(ext))) {
      out.push(path);
    }
  }
  return out;
}

// Keys are written out whole in the code (js/names.js lists the families), so a key is
// used when it appears as a quoted string or in data-i18n attributes.
const used = new Set();
const keyLike = /['"`]([a-z][a-z0-9_]*\.[a-z0-9_.]+)['"`]/g;
for (const file of await files(WEB, ['.js', '.html'])) {
  const text = await readFile(file, 'utf8');
  for (const m of text.matchAll(keyLike)) used.add(m[1]);
}
for (const key of keys) {
  const base = key.replace(/_one$/, '');
  if (!used.has(key) && !used.has(base)) problems.push(`unused key ${key}`);
  if (key.endsWith('_one') && !keys.has(base)) problems.push(`${key} has no ${base}`);
}
for (const key of used) {
  if (/^(reason|game|side|piece|board|common|nav|home|play|watch|archive|analysis|profile|account|settings|result|clock|lobby|error|time|rules|level|mine|players)\./.test(key) && !keys.has(key)) {
    problems.push(`code uses ${key}, which no language has`);
  }
}

// Every reason a game can end for, and every game, has words in every language.
const gameSource = await readFile(join(ROOT, 'crates', 'game', 'src', 'lib.rs'), 'utf8');
const reasons = [...gameSource.matchAll(/EndReason::\w+ => "([a-z_]+)"/g)].map((m) => m[1]);
const kinds = [...gameSource.matchAll(/GameKind::\w+ => "([a-z_]+)"/g)].map((m) => m[1]);
if (reasons.length < 10) problems.push(`found only ${reasons.length} EndReason names in crates/game`);
if (kinds.length < 3) problems.push(`found only ${kinds.length} GameKind names in crates/game`);
for (const reason of reasons) if (!keys.has(`reason.${reason}`)) problems.push(`no words for EndReason ${reason}`);
for (const kind of kinds) if (!keys.has(`game.${kind}`)) problems.push(`no name for GameKind ${kind}`);

if (problems.length) {
  console.error(`i18n check: ${problems.length} problem(s)`);
  for (const p of new Set(problems)) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`i18n check: ${keys.size} keys in ${LANGS.join(', ')}; ${reasons.length} end reasons and ${kinds.length} games covered`);
