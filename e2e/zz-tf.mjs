import { chromium } from 'playwright-core';
import { startStatic } from './serve-dist.mjs';
import { CHROMIUM, CHROMIUM_ARGS, coldPage } from './harness.mjs';
import { readFileSync } from 'node:fs';
const app = await startStatic({ root: process.argv[3] || 'dist' });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, '--js-flags=--trace-wasm-compilation-times'] });
const raw = readFileSync(process.argv[2], 'utf8').trim();
const path = raw.startsWith('compare=') ? `/compare#${raw}` : /^[a-z]+=/.test(raw) ? `/#${raw}` : `/#run=${raw}`;
for (let i = 0; i < 2; i++) {
  const { ctx, page } = await coldPage(browser);
  console.error('=== LOAD', i);
  await page.goto(app.url + path, { waitUntil: 'commit' });
  await page.waitForTimeout(800);
  await page.waitForFunction(() => document.body.hasAttribute('data-link-ready-ms'));
  console.error('=== READY', await page.evaluate(() => document.body.getAttribute('data-link-ready-ms')));
  await ctx.close();
}
await browser.close(); await app.close();
