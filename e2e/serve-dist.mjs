#!/usr/bin/env node
// Static server for the built app (dist/), bound to 127.0.0.1, with the
// right MIME types, gzip for text assets, index.html for unknown paths
// (client-side routes), and the two headers that make the page
// cross-origin isolated (the in-page model then uses every core). `make
// run` and the end-to-end tests use it.
import http from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { createReadStream, realpathSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};
const ISOLATION = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
const COMPRESS = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.svg', '.json', '.txt']);

// `isolated` (the default) sends Cross-Origin-Opener-Policy: same-origin
// and Cross-Origin-Embedder-Policy: require-corp on every response, so
// pages are cross-origin isolated: SharedArrayBuffer exists, and the
// in-page model splits its work over helper workers (wllama's threads need
// it too). The page loads nothing from other origins, and fetches to
// providers are CORS requests, which these headers allow. `isolated:
// false` serves a page as a static host without them would (one worker).
export async function startStatic({ root = 'dist', port = 0, host = '127.0.0.1', isolated = true } = {}) {
  const base = resolve(root);
  const cache = new Map();
  const server = http.createServer(async (req, res) => {
    if (isolated) for (const [name, value] of Object.entries(ISOLATION)) res.setHeader(name, value);
    try {
      const url = new URL(req.url, 'http://x');
      let path = normalize(join(base, decodeURIComponent(url.pathname)));
      if (!path.startsWith(base)) return void res.writeHead(403).end();
      let info = await stat(path).catch(() => null);
      if (!info || info.isDirectory()) {
        const index = join(path, 'index.html');
        info = await stat(index).catch(() => null);
        path = info ? index : join(base, 'index.html');
      }
      const ext = extname(path);
      const headers = { 'content-type': TYPES[ext] || 'application/octet-stream', 'cache-control': 'no-cache' };
      if (COMPRESS.has(ext) && /\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
        const s = await stat(path);
        const key = `${path}:${s.mtimeMs}`;
        if (!cache.has(key)) cache.set(key, gzipSync(await readFile(path)));
        res.writeHead(200, { ...headers, 'content-encoding': 'gzip' });
        return void res.end(cache.get(key));
      }
      res.writeHead(200, headers);
      createReadStream(path).pipe(res);
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e));
    }
  });
  await new Promise((ok, fail) => server.once('error', fail).listen(port, host, ok));
  const actual = server.address().port;
  return { url: `http://${host}:${actual}`, port: actual, close: () => new Promise((r) => server.close(r)) };
}

const isMain = process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (isMain) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : dflt;
  };
  const port = Number(opt('--port', '8080'));
  const root = opt('--root', 'dist');
  // --not-isolated: without COOP/COEP, as a plain static host serves it.
  const isolated = !args.includes('--not-isolated');
  try {
    await stat(join(root, 'index.html'));
  } catch {
    console.error(`No build in ${root}/: run \`make build\` first.`);
    process.exit(1);
  }
  startStatic({ root, port, isolated })
    .then((s) => console.log(`Roundtable is served at ${s.url}  (Ctrl+C stops)`))
    .catch((e) => {
      console.error(e.code === 'EADDRINUSE' ? `Port ${port} is in use: stop what runs there, or run with PORT=<other> make run.` : String(e));
      process.exit(1);
    });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
}
