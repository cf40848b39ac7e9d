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

sizes();
await interactive();
