// Where the time of a page load goes, from a Chromium performance trace:
// main-thread self time by activity (script, wasm compile, style, layout,
// paint, …) from navigation until the app's mark, and the network
// requests with their finish times. A tool for `make bench`'s figures, not
// a test.
//
//   node e2e/trace.mjs                      the empty app (data-ready-ms)
//   node e2e/trace.mjs PAYLOAD_FILE         a shared run (data-link-ready-ms)
//   node e2e/trace.mjs PAYLOAD_FILE --save trace.json   also keeps the trace (chrome://tracing)
//   node e2e/trace.mjs PAYLOAD_FILE --profile          also samples the CPU: self time by
//                                                        function (a build with names:
//                                                        ROUNDTABLE_WASM_NAMES=1, DIST=its folder)
import { readFileSync, writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startStatic } from './serve-dist.mjs';
import { CHROMIUM, CHROMIUM_ARGS, coldPage } from './harness.mjs';

const args = process.argv.slice(2);
const payloadFile = args[0] && !args[0].startsWith('--') ? args[0] : undefined;
const flag = args.includes('--save') ? '--save' : undefined;
const savePath = flag && args[args.indexOf('--save') + 1];
const profile = args.includes('--profile');
const raw = payloadFile ? readFileSync(payloadFile, 'utf8').trim() : '';
// A payload file holds a run link's payload, or a whole fragment (lesson=…, compare=…).
const path = !payloadFile ? '/' : /^[a-z]+=/.test(raw) ? `/#${raw}` : `/#run=${raw}`;
const mark = payloadFile ? 'data-link-ready-ms' : 'data-ready-ms';
const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.wasm', 'blink', 'loading', 'toplevel', 'blink.user_timing'];

const app = await startStatic({ root: process.env.DIST || 'dist' });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
// A warm-up load (the bench's figures are medians after one).
{
  const ctx = await browser.newContext();
  const p = await ctx.newPage();
  await p.goto(app.url + path);
  await p.waitForFunction((a) => document.body.hasAttribute(a), mark, { timeout: 30000 });
  await ctx.close();
}
const { ctx, page } = await coldPage(browser);
const cdp = profile ? await ctx.newCDPSession(page) : null;
if (cdp) {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
}
await browser.startTracing(page, { categories: CATEGORIES });
await page.goto(app.url + path, { waitUntil: 'commit' });
await page.waitForFunction((a) => document.body.hasAttribute(a), mark, { timeout: 30000 });
const readyMs = Number(await page.evaluate((a) => document.body.getAttribute(a), mark));
const marks = await page.evaluate(() => performance.getEntriesByType('mark').filter((m) => m.name.startsWith('rt:')).map((m) => [m.name.slice(3), m.startTime]));
const resources = await page.evaluate(() => performance.getEntriesByType('resource').map((r) => [r.name.split('/').pop().slice(0, 40), r.startTime, r.responseEnd, r.transferSize]));
await page.waitForTimeout(300);
const cpu = cdp ? (await cdp.send('Profiler.stop')).profile : null;
if (cpu && process.env.CPU_OUT) writeFileSync(process.env.CPU_OUT, JSON.stringify(cpu));
const buf = await browser.stopTracing();
await browser.close();
await app.close();
if (flag === '--save' && savePath) writeFileSync(savePath, buf);

const events = JSON.parse(buf.toString()).traceEvents;
const threadName = {};
for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threadName[`${e.pid}:${e.tid}`] = e.args.name;
const main = Object.entries(threadName).filter(([, n]) => n === 'CrRendererMain').map(([k]) => k);
const nav = events.find((e) => e.name === 'navigationStart' && main.includes(`${e.pid}:${e.tid}`)) || events.find((e) => e.name === 'navigationStart');
const t0 = nav ? nav.ts : Math.min(...events.filter((e) => e.ts).map((e) => e.ts));
const end = t0 + readyMs * 1000;
// Self time per event name on the main thread, within [navigation, ready].
const self = {};
for (const key of main) {
  const xs = events.filter((e) => e.ph === 'X' && `${e.pid}:${e.tid}` === key && e.ts >= t0 && e.ts < end && e.dur).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const stack = [];
  for (const e of xs) {
    while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur <= e.ts) stack.pop();
    const parent = stack[stack.length - 1];
    const d = Math.min(e.dur, end - e.ts);
    self[e.name] = (self[e.name] || 0) + d;
    if (parent) self[parent.name] = (self[parent.name] || 0) - d;
    stack.push(e);
  }
}
const busy = Object.values(self).reduce((a, b) => a + b, 0);
console.log(`${payloadFile ? `shared run ${payloadFile}` : 'the empty app'}: ${mark} ${readyMs.toFixed(0)} ms; main thread busy ${(busy / 1000).toFixed(0)} ms of it`);
console.log('  main-thread self time by activity (ms):');
for (const [n, us] of Object.entries(self).sort((a, b) => b[1] - a[1]).slice(0, 22)) if (us > 500) console.log(`    ${(us / 1000).toFixed(1).padStart(7)}  ${n}`);
console.log(`  app marks (ms): ${marks.map(([n, t]) => `${n} ${t.toFixed(0)}`).join(' → ')}`);
console.log('  requests (start → end ms, bytes):');
for (const [n, s, e, b] of resources) console.log(`    ${s.toFixed(0).padStart(5)} → ${e.toFixed(0).padStart(5)}  ${String(b).padStart(8)}  ${n}`);

if (cpu) {
  // Self time by function, from the samples taken before the app's mark.
  const byId = new Map(cpu.nodes.map((n) => [n.id, n]));
  const self = {};
  let t = cpu.startTime;
  // PROFILE_FROM=<app mark>: only the samples from that mark on (e.g. mounted).
  const from = process.env.PROFILE_FROM ? Object.fromEntries(marks)[process.env.PROFILE_FROM] : undefined;
  const start = from === undefined ? -Infinity : t0 + from * 1000;
  const stop = t0 + readyMs * 1000;
  cpu.samples.forEach((id, i) => {
    t += cpu.timeDeltas[i];
    if (t > stop || t < start) return;
    const f = byId.get(id).callFrame;
    const name = f.functionName || `(${f.url.split('/').pop() || 'program'})`;
    self[name] = (self[name] || 0) + (cpu.timeDeltas[i + 1] ?? 100);
  });
  console.log(`  CPU self time by function (ms, sampled every 0.1 ms${from === undefined ? '' : `, from ${process.env.PROFILE_FROM}`}):`);
  for (const [n, us] of Object.entries(self).sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`    ${(us / 1000).toFixed(1).padStart(7)}  ${n.slice(0, 150)}`);
}
