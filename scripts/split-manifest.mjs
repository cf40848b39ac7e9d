// The lazily loaded parts of a build, read from the __wasm_split.js that
// wasm-split-cli writes: each split module's file and the shared chunks it
// needs. Used by the post-build step (the share-link preload list in
// index.html) and by the benchmarks (`e2e/bench.mjs`).
//
//   node scripts/split-manifest.mjs <dir>          prints the parts as JSON
//   node scripts/split-manifest.mjs --inject [dir] writes the run_view part's
//       files into <dir>/index.html (default: Trunk's $TRUNK_STAGING_DIR),
//       where the page preloads them when it is opened with a share link
//       (they hold the decoder and the run's views)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function splitParts(dir) {
  const js = readFileSync(join(dir, '__wasm_split.js'), 'utf8');
  const chunkFile = new Map(
    [...js.matchAll(/const (__chunk_\d+) = makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\.\/([^"]+)"/g)].map((m) => [m[1], m[2]]),
  );
  const parts = {};
  const loader = /export const __wasm_split_load_(\w+) = wrapAsyncCb\(makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\.\/([^"]+)"[\s\S]*?\n, \[([^\]]*)\]\)\);/g;
  for (const m of js.matchAll(loader)) {
    const deps = m[3].split(',').map((d) => d.trim()).filter(Boolean);
    const missing = deps.filter((d) => !chunkFile.has(d));
    if (missing.length) throw new Error(`__wasm_split.js: unknown chunks ${missing.join(', ')}`);
    parts[m[1]] = [m[2], ...deps.map((d) => chunkFile.get(d))];
  }
  if (!Object.keys(parts).length) throw new Error('__wasm_split.js: no split modules found (did wasm-split-cli change its output?)');
  return parts;
}

const PLACEHOLDER = '/*RUN_VIEW_FILES*/[]';

export function inject(dir) {
  const parts = splitParts(dir);
  if (!parts.run_view) throw new Error('no run_view part in this build');
  const html = join(dir, 'index.html');
  const text = readFileSync(html, 'utf8');
  if (!text.includes(PLACEHOLDER)) throw new Error(`${html} has no ${PLACEHOLDER} to fill`);
  // Trunk leaves the marker that kept it from building the crate itself.
  const out = text.replace(PLACEHOLDER, JSON.stringify(parts.run_view)).replace(/ *<!-- The wasm is built[\s\S]*?data-trunk-skip[^>]*>\n/, '');
  writeFileSync(html, out);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  if (args[0] === '--inject') {
    const dir = args[1] || process.env.TRUNK_STAGING_DIR;
    if (!dir) throw new Error('--inject needs a directory (or run it as a Trunk hook)');
    inject(dir);
  }
  else console.log(JSON.stringify(splitParts(args[0] || 'dist'), null, 2));
}
