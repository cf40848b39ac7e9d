import { chromium } from 'playwright-core';
import { startStatic } from './serve-dist.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './harness.mjs';
import { readFileSync } from 'node:fs';
const app = await startStatic({ root: process.argv[2] || 'dist' });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const frag = readFileSync('/tmp/lk/lesson.frag', 'utf8').trim();
for (const w of [360, 390, 600, 1280]) {
  const page = await (await browser.newContext({ viewport: { width: w, height: 900 } })).newPage();
  await page.goto(app.url + '/#' + frag);
  await page.waitForFunction(() => document.body.hasAttribute('data-link-ready-ms'));
  const el = page.locator('.run-toolbar').first();
  await el.scrollIntoViewIfNeeded();
  console.log(w, await page.evaluate(() => [...document.querySelectorAll('.run-toolbar .toolbar-actions > *')].map((b) => `${b.textContent.trim().slice(0,16)}:${Math.round(b.getBoundingClientRect().height)}`).join(' ')));
  await el.screenshot({ path: `/tmp/tb-${w}.png` });
}
await browser.close(); await app.close();
