// The lazily loaded parts of a build, read from the __wasm_split.js that
// wasm-split-cli writes: each split module's file and the shared chunks it
// needs. Used by the post-build step (`post-build.mjs`: the share links'
// pack) and by the benchmarks (`e2e/bench.mjs`).
//
//   node scripts/split-manifest.mjs <dir>   prints the parts as JSON
//
// `inject(dir)` (run by post-build.mjs) packs the run_view part's files
// into one, <dir>/run_view.pack.wasm, which the page preloads when it is
// opened with a share link (the files hold the decoder and the run's
// views), and teaches __wasm_split.js to take those modules out of the
// pack on such a page: one request instead of 20 (each request cost the
// browser CPU while the page loads; measured 0.85× open time).
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

const PLACEHOLDER = '/*LINK_PRELOADS*/[]';

/** The file holding the run_view part's modules end to end. */
export const PACK = 'run_view.pack.wasm';

// Prepended to __wasm_split.js: its `fetch` of a module the pack holds,
// on a page that preloaded the pack (index.html sets __RT_PACK), is a
// slice of the pack; anything else is the real fetch. A failed pack fetch
// is forgotten, so "Try again" fetches it again; so are the pack's bytes
// once every module has been served (they are 1.4 MB).
const packLoader = (index) => `// Added by scripts/split-manifest.mjs: the run views' modules from one file.
const PACKED = ${JSON.stringify(index)};
const PACKED_COUNT = ${Object.keys(index).length};
const served = new Set();
let packBytes;
const fetch = (url) => {
  const name = new URL(url).pathname.split("/").pop();
  const at = globalThis.__RT_PACK ? PACKED[name] : undefined;
  if (!at) return globalThis.fetch(url);
  if (!packBytes) {
    const bytes = globalThis.fetch(new URL("./${PACK}", import.meta.url)).then((r) => {
      if (!r.ok) throw new Error(\`${PACK}: HTTP \${r.status}\`);
      return r.arrayBuffer();
    });
    bytes.catch(() => { if (packBytes === bytes) packBytes = undefined; });
    packBytes = bytes;
    served.clear();
  }
  const pack = packBytes;
  served.add(name);
  if (served.size === PACKED_COUNT) packBytes = undefined;
  return pack.then((b) => {
    if (at[0] + at[1] > b.byteLength) throw new Error("${PACK} is shorter than this build's");
    return new Response(new Uint8Array(b, at[0], at[1]), { headers: { "content-type": "application/wasm" } });
  });
};
`;

export function inject(dir) {
  const parts = splitParts(dir);
  if (!parts.run_view) throw new Error('no run_view part in this build');
  const index = {};
  const bytes = [];
  let offset = 0;
  for (const f of parts.run_view) {
    const b = readFileSync(join(dir, f));
    index[f] = [offset, b.length];
    offset += b.length;
    bytes.push(b);
  }
  writeFileSync(join(dir, PACK), Buffer.concat(bytes));
  const loader = join(dir, '__wasm_split.js');
  const js = readFileSync(loader, 'utf8');
  if (js.includes('const PACKED =')) throw new Error(`${loader} already reads a pack`);
  // After the imports (an ES module's imports may come anywhere, but keep them first).
  const imports = js.match(/^(import [^\n]*\n)*/)[0];
  writeFileSync(loader, imports + packLoader(index) + js.slice(imports.length));
  const html = join(dir, 'index.html');
  const text = readFileSync(html, 'utf8');
  if (!text.includes(PLACEHOLDER)) throw new Error(`${html} has no ${PLACEHOLDER} to fill`);
  // Trunk leaves the marker that kept it from building the crate itself.
  const out = text.replace(PLACEHOLDER, JSON.stringify([PACK])).replace(/ *<!-- The wasm is built[\s\S]*?data-trunk-skip[^>]*>\n/, '');
  writeFileSync(html, out);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(splitParts(process.argv[2] || 'dist'), null, 2));
}
