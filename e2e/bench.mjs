// Benchmarks of the built app: transfer size of dist/ (gzip) and
// navigation-to-interactive in headless Chromium (median of 5 cold loads).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, extname } from 'node:path';
import { gzipSync, constants } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startStatic } from './serve-dist.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './harness.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (n) => (n / 1024).toFixed(1).padStart(8) + ' KB';

function sizes() {
  const groups = { wasm: 0, js: 0, css: 0 };
  const raw = { wasm: 0, js: 0, css: 0 };
  for (const f of readdirSync('dist')) {
    const p = join('dist', f);
    if (!statSync(p).isFile()) continue;
    const ext = extname(f).slice(1);
    if (!(ext in groups)) continue;
    const bytes = readFileSync(p);
    raw[ext] += bytes.length;
    groups[ext] += gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length;
  }
  const total = groups.wasm + groups.js + groups.css;
  console.log('dist transfer size (gzip -9)');
  for (const k of Object.keys(groups)) console.log(`  ${k.padEnd(5)} ${kb(groups[k])}   (raw ${kb(raw[k]).trim()})`);
  console.log(`  total ${kb(total)}   goal ≤ 450 KB: ${total <= 450 * 1024 ? 'met' : 'NOT met'}`);
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

sizes();
await interactive();
await openShared();
