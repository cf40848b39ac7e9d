// Benchmarks of the built app: transfer sizes (gzip -9) of what the start
// page loads and of each part loaded on first use; navigation-to-interactive
// and the time to open a shared run in headless Chromium (median of 5 cold
// loads), with where that time goes.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, extname, basename } from 'node:path';
import { gzipSync, constants } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startStatic } from './serve-dist.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './harness.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (n) => (n / 1024).toFixed(1).padStart(8) + ' KB';
const gz = (file) => gzipSync(readFileSync(join('dist', file)), { level: constants.Z_BEST_COMPRESSION }).length;
const CODE = new Set(['.wasm', '.js', '.css']);

/** The lazily loaded parts: each split module and the shared chunks it needs (from __wasm_split.js). */
function parts() {
  const js = readFileSync('dist/__wasm_split.js', 'utf8');
  const chunkFile = new Map([...js.matchAll(/const (__chunk_\d+) = makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\.\/([^"]+)"/g)].map((m) => [m[1], m[2]]));
  const out = [];
  for (const m of js.matchAll(/export const __wasm_split_load_(\w+) = wrapAsyncCb\(makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\.\/([^"]+)"[\s\S]*?\n, \[([^\]]*)\]\)\);/g)) {
    const deps = m[3].split(',').map((d) => d.trim()).filter(Boolean).map((d) => chunkFile.get(d));
    out.push({ name: m[1], files: [m[2], ...deps] });
  }
  return out;
}

/** The files the start page fetches (wasm, js, css), watched in Chromium until the page is idle. */
async function startPageFiles(app, browser) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const files = new Set();
  page.on('request', (r) => {
    const f = basename(new URL(r.url()).pathname);
    if (CODE.has(extname(f))) files.add(f);
  });
  await page.goto(app.url + '/');
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForLoadState('networkidle');
  await ctx.close();
  return [...files];
}

async function sizes(app, browser) {
  const all = readdirSync('dist').filter((f) => statSync(join('dist', f)).isFile() && CODE.has(extname(f)));
  const start = await startPageFiles(app, browser);
  const sum = (files) => files.reduce((n, f) => n + gz(f), 0);
  const startTotal = sum(start);
  console.log('transfer size of the start page (gzip -9): what the browser downloads to show the app');
  for (const f of start.sort()) console.log(`  ${f.padEnd(34)} ${kb(gz(f))}`);
  console.log(`  total ${kb(startTotal).trim().padStart(38)}   goal ≤ 450 KB: ${startTotal <= 450 * 1024 ? 'met' : 'NOT met'}`);
  console.log('parts loaded on first use (their module + the shared chunks they need; a chunk two parts share is counted in both)');
  const labels = {
    run_view: 'a run on screen: transcript + Markdown, provider clients, share-link decoder',
    extras: 'Settings, share and fork dialogs, History, Events tab, inspector, exports',
    travel: 'the travel planner: coordinator, demo roles, sandbox, evaluator, setup, Batch',
    travel_views: "a travel run's notebook, plan and metrics",
  };
  for (const p of parts()) {
    const lazy = p.files.filter((f) => !start.includes(f));
    console.log(`  ${p.name.padEnd(14)} ${kb(sum(lazy))}  ${labels[p.name] || ''}`);
  }
  console.log(`everything in dist/ (wasm, js, css): ${kb(sum(all)).trim()} in ${all.length} files`);
}

async function interactive() {
  const app = await startStatic({ root: 'dist' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const times = [];
  for (let i = 0; i < 5; i++) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(app.url + '/');
    await page.waitForSelector('body[data-ready="1"]');
    times.push(Number(await page.getAttribute('body', 'data-ready-ms')));
    await ctx.close();
  }
  await browser.close();
  await app.close();
  console.log('navigation to interactive (headless Chromium, cold context, served from 127.0.0.1)');
  console.log(`  runs   ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
  console.log(`  median ${median(times).toFixed(0)} ms`);
}

// Opening a shared run: navigation to the run on screen (the app marks the
// frame after it shows the link's run), from payloads `cargo bench --bench
// share_bench` writes.
async function openShared() {
  const files = [
    ['random run, 500 events', 'target/share-bench/open-500.payload'],
    ['travel planner demo run', 'target/share-bench/open-travel.payload'],
  ];
  const app = await startStatic({ root: 'dist' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  console.log('opening a shared run to interactive (headless Chromium, cold context, median of 5)');
  for (const [label, file] of files) {
    let payload;
    try {
      payload = readFileSync(file, 'utf8').trim();
    } catch {
      console.log(`  ${label}: ${file} missing — run \`cargo bench --bench share_bench\` first`);
      continue;
    }
    const times = [];
    let events = 0;
    for (let i = 0; i < 5; i++) {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(`${app.url}/#run=${payload}`);
      await page.waitForSelector('body[data-link-ready-ms]');
      times.push(Number(await page.getAttribute('body', 'data-link-ready-ms')));
      events = Number((await page.getByRole('tab', { name: /Events/ }).innerText()).match(/\d+/)?.[0] ?? 0);
      await ctx.close();
    }
    const m = median(times);
    console.log(`  ${label.padEnd(26)} ${String(events).padStart(4)} events, link ${(payload.length / 1024).toFixed(1)} KB: median ${m.toFixed(0)} ms (runs ${times.map((t) => t.toFixed(0)).join(', ')})   goal ≤ 300 ms: ${m <= 300 ? 'met' : 'NOT met'}`);
  }
  await browser.close();
  await app.close();
}

{
  const app = await startStatic({ root: 'dist' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  await sizes(app, browser);
  await browser.close();
  await app.close();
}
await interactive();
await openShared();
