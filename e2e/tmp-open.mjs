import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startStatic } from './serve-dist.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './harness.mjs';
const roots = process.argv.slice(2);
const RUNS = 13;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const links = [['500', `/#run=${readFileSync('target/share-bench/open-500.payload', 'utf8').trim()}`], ['travel', `/#run=${readFileSync('target/share-bench/open-travel.payload', 'utf8').trim()}`], ['lesson', `/#${readFileSync('/tmp/lk/lesson.frag', 'utf8').trim()}`]];
const apps = await Promise.all(roots.map((root) => startStatic({ root })));
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const res = {};
for (let i = 0; i <= RUNS; i++) for (const [name, path] of links) for (const [k, app] of apps.entries()) {
  const ctx = await browser.newContext(); const page = await ctx.newPage();
  await page.goto(app.url + path, { waitUntil: 'commit' });
  await page.waitForTimeout(600);
  await page.waitForFunction(() => document.body.hasAttribute('data-link-ready-ms'), null, { timeout: 30000 });
  const t = Number(await page.evaluate(() => document.body.getAttribute('data-link-ready-ms')));
  if (i > 0) (res[`${name} ${roots[k]}`] ||= []).push(t);
  await ctx.close();
}
await browser.close(); for (const a of apps) await a.close();
for (const [n, v] of Object.entries(res)) console.log(n.padEnd(30), 'median', median(v).toFixed(0));
