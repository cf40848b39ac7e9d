// Pairwise open times of share links in two (or more) builds: each round
// loads every link in every build, alternating, in a cold browser context,
// so a machine that slows down during the run slows every build alike.
// A tool for comparing a change's open time with the build before it.
//
//   node e2e/ab-open.mjs DIST_A DIST_B -- FRAGMENT_FILE...
//
// A fragment file holds a link's fragment (run=…, lesson=…, compare=…) or
// a bare run payload. Prints each link's median per build (ms from
// navigation to the frame that shows it, `data-link-ready-ms`) and the
// ratio of each build to the first. TRACE=1 also traces every load and
// prints the medians of V8's lazy wasm compilation on the main thread
// before the mark (functions compiled, ms): a figure far less noisy than
// the open time, for changes to how much code a link runs.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { chromium } from 'playwright-core';
import { startStatic } from './serve-dist.mjs';
import { CHROMIUM, CHROMIUM_ARGS, coldPage } from './harness.mjs';

const args = process.argv.slice(2);
const sep = args.indexOf('--');
if (sep < 1 || sep === args.length - 1) {
  console.error('usage: node e2e/ab-open.mjs DIST_A [DIST_B …] -- FRAGMENT_FILE…');
  process.exit(2);
}
const roots = args.slice(0, sep);
const RUNS = Number(process.env.RUNS || 11);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const links = args.slice(sep + 1).map((f) => {
  const raw = readFileSync(f, 'utf8').trim();
  const path = raw.startsWith('compare=') ? `/compare#${raw}` : /^[a-z]+=/.test(raw) ? `/#${raw}` : `/#run=${raw}`;
  return [basename(f), path];
});
const apps = await Promise.all(roots.map((root) => startStatic({ root })));
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const res = {};
const phases = {};
const compiled = {};

/** Lazy wasm compilations on the page's main thread before `readyMs`: [count, ms]. */
function compileLazy(buf, readyMs) {
  const events = JSON.parse(buf.toString()).traceEvents;
  const nav = events.find((e) => e.name === 'navigationStart' && e.args?.data?.isLoadingMainFrame) || events.find((e) => e.name === 'navigationStart');
  const xs = events.filter((e) => e.name === 'wasm.CompileLazy' && e.pid === nav.pid && e.tid === nav.tid && e.ts <= nav.ts + readyMs * 1000);
  return [xs.length, xs.reduce((n, e) => n + (e.dur || 0), 0) / 1000];
}
for (let i = 0; i <= RUNS; i++) {
  for (const [name, path] of links) {
    for (const [k, app] of apps.entries()) {
      const { ctx, page } = await coldPage(browser);
      if (process.env.TRACE) await browser.startTracing(page, { categories: ['v8.wasm', 'v8', 'devtools.timeline', 'blink.user_timing', 'loading'] });
      await page.goto(app.url + path, { waitUntil: 'commit' });
      await page.waitForTimeout(600);
      await page.waitForFunction(() => document.body.hasAttribute('data-link-ready-ms'), null, { timeout: 30000 });
      const t = Number(await page.evaluate(() => document.body.getAttribute('data-link-ready-ms')));
      const lazy = process.env.TRACE ? compileLazy(await browser.stopTracing(), t) : undefined;
      const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('rt:')).map((m) => [m.name.slice(3), m.startTime])));
      if (i > 0) {
        // the first round warms up
        ((res[name] ||= {})[k] ||= []).push(t);
        if (lazy) (((compiled[name] ||= {})[k] ||= [])).push(lazy);
        for (const [m, v] of Object.entries(marks)) (((phases[name] ||= {})[k] ||= {})[m] ||= []).push(v);
      }
      await ctx.close();
    }
  }
}
await browser.close();
for (const a of apps) await a.close();
for (const [name, byBuild] of Object.entries(res)) {
  const base = median(byBuild[0]);
  for (const [k, times] of Object.entries(byBuild)) {
    const m = median(times);
    console.log(`${name.padEnd(24)} ${roots[k].padEnd(28)} median ${m.toFixed(0).padStart(4)} ms  ×${(m / base).toFixed(2)}  (${times.map((t) => t.toFixed(0)).join(', ')})`);
    const ph = phases[name]?.[k] || {};
    const order = Object.keys(ph).sort((a, b) => median(ph[a]) - median(ph[b]));
    const c = compiled[name]?.[k];
    if (c) console.log(`    lazy wasm compilation before the mark (medians): ${median(c.map((x) => x[0]))} functions, ${median(c.map((x) => x[1])).toFixed(1)} ms`);
    console.log(`    marks (medians): ${order.map((p) => `${p} ${median(ph[p]).toFixed(0)}`).join(' → ')} → on screen ${m.toFixed(0)}`);
  }
}
