// Benchmarks of the built app: transfer sizes (gzip -9) of what the start
// page loads and of each part loaded on first use; navigation-to-interactive
// and the time to open a shared run in headless Chromium (median of 9 cold
// loads after a warm-up, each in a new context whose window has finished
// starting: harness.mjs's coldPage), with where that time goes, and the
// harness's floor (a page that paints one line) to read them against.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join, extname, basename } from 'node:path';
import { PACK, splitParts } from '../scripts/split-manifest.mjs';
import { gzipSync, constants } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startStatic } from './serve-dist.mjs';
import { CHROMIUM, CHROMIUM_ARGS, WINDOW_SETTLE_MS, coldPage } from './harness.mjs';
import { recordFigure } from './bench-figures.mjs';

/** Cold loads per figure (each in a new browser context, see coldPage), after one warm-up load. */
const RUNS = 9;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (n) => (n / 1024).toFixed(1).padStart(8) + ' KB';
const gz = (file) => gzipSync(readFileSync(join('dist', file)), { level: constants.Z_BEST_COMPRESSION }).length;
const CODE = new Set(['.wasm', '.js', '.css']);

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
  // The run views' pack (what a link page fetches instead of their files) is counted apart: it holds them again.
  const all = readdirSync('dist').filter((f) => statSync(join('dist', f)).isFile() && CODE.has(extname(f)) && f !== PACK);
  const start = await startPageFiles(app, browser);
  const sum = (files) => files.reduce((n, f) => n + gz(f), 0);
  const startTotal = sum(start);
  console.log('transfer size of the start page (gzip -9): what the browser downloads to show the app');
  for (const f of start.sort()) console.log(`  ${f.padEnd(34)} ${kb(gz(f))}`);
  console.log(`  total ${kb(startTotal).trim().padStart(38)}   goal ≤ 350 KB: ${startTotal <= 350 * 1024 ? 'met' : 'NOT met'}`);
  recordFigure('start_page', { gzip_bytes: startTotal, files: start.sort() });
  console.log('parts loaded on first use (their module + the shared chunks they need; a chunk two parts share is counted in both)');
  const labels = {
    live: "starting a run: the runner, the demo model, the provider clients' loader, History's recorder (shared with the coordinators' parts)",
    run_view: "a run on screen: toolbar, replay, graph, the folds, transcript + Markdown, the coordinators' run tabs (travel, ACT, MAEL), provider clients, share-link decoder; the classroom (Compare, lessons, the Lessons page)",
    extras: 'Settings, share and fork dialogs, History, Events tab, inspector, exports',
    travel: 'the travel planner: coordinator, demo roles, sandbox, evaluator, setup, Batch',
    mael: 'MAEL: coordinator, demo team, pools and embedders, setup, team editor, the MAEL page',
    act: 'ACT: coordinator, demo team and glossary, ACT+ banks, setup, the ACT page',
  };
  for (const [name, files] of Object.entries(splitParts('dist'))) {
    const lazy = files.filter((f) => !start.includes(f));
    console.log(`  ${name.padEnd(14)} ${kb(sum(lazy))}  ${labels[name] || ''}`);
  }
  console.log(`  ${'run_view pack'.padEnd(14)} ${kb(gz(PACK))}  the same modules in one file: what a page opened with a link fetches`);
  console.log(`everything in dist/ (wasm, js, css): ${kb(sum(all)).trim()} in ${all.length} files`);
}

/**
 * Reads a time the page records on <body> (ms since navigation start) once it
 * is there. Nothing runs in the page until then: polling with a selector
 * would execute script in the page while it loads, and be measured with it.
 */
async function pageMark(page, attr) {
  await page.waitForTimeout(800);
  for (let i = 0; i < 100; i++) {
    const v = await page.evaluate((a) => document.body.getAttribute(a), attr);
    if (v !== null) return Number(v);
    await page.waitForTimeout(200);
  }
  throw new Error(`the page never set ${attr}`);
}

/** The app's performance marks (rt:…), by name, in ms since navigation start. */
const appMarks = (page) =>
  page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('rt:')).map((m) => [m.name.slice(3), m.startTime])));

/** Cold loads of `url` in `browser`: the time each stamped `attr` on <body>, after one warm-up load. */
async function timedLoads(browser, url, attr, settleMs) {
  const times = [];
  for (let i = 0; i <= RUNS; i++) {
    const { ctx, page } = await coldPage(browser, settleMs);
    await page.goto(url, { waitUntil: 'commit' });
    const t = await pageMark(page, attr);
    if (i > 0) times.push(t); // the first load warms the browser up
    await ctx.close();
  }
  return times;
}

/** {@link timedLoads} of `path` served from `root`, in a browser of its own. */
async function coldLoads(root, path, attr) {
  const app = await startStatic({ root });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    return await timedLoads(browser, app.url + path, attr);
  } finally {
    await browser.close();
    await app.close();
  }
}

/**
 * The harness's floor: a page that paints one line of text, stamping its
 * time the way the app stamps a link's (a timeout set in the frame, after
 * its paint; the app's data-ready-ms is stamped at mount, before a paint).
 */
async function floor() {
  const dir = mkdtempSync(join(tmpdir(), 'rt-floor-'));
  let times;
  try {
    writeFileSync(
      join(dir, 'index.html'),
      '<!DOCTYPE html><html lang="en"><title>floor</title><body><p>One line of text.</p><script>requestAnimationFrame(() => setTimeout(() => document.body.setAttribute("data-floor-ms", performance.now().toFixed(1))));</script></body></html>',
    );
    times = await coldLoads(dir, '/', 'data-floor-ms');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`the harness's floor: a page that paints one line of text (same browser, a cold context whose window had ${WINDOW_SETTLE_MS} ms to start, median of ${RUNS}): ${median(times).toFixed(0)} ms (runs ${times.map((t) => t.toFixed(0)).join(', ')})`);
  return median(times);
}

async function interactive() {
  const times = await coldLoads('dist', '/', 'data-ready-ms');
  console.log(`navigation to interactive: the app mounted, handlers bound (headless Chromium, a cold context whose window had ${WINDOW_SETTLE_MS} ms to start, served from 127.0.0.1, median of ${RUNS})`);
  console.log(`  runs   ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
  console.log(`  median ${median(times).toFixed(0)} ms`);
  return median(times);
}

// Opening a shared run: navigation to the run on screen (the app marks the
// frame after it shows the link's run), from payloads `cargo bench --bench
// share_bench` writes.
async function openShared(interactiveMs, floorMs) {
  const opened = {};
  const links = [];
  for (const [label, file] of [
    ['random run, 500 events', 'target/share-bench/open-500.payload'],
    ['travel planner demo run', 'target/share-bench/open-travel.payload'],
    ['MAEL demo run', 'target/share-bench/open-mael.payload'],
    ['ACT demo run', 'target/share-bench/open-act.payload'],
  ]) {
    try {
      links.push({ label, path: `/#run=${readFileSync(file, 'utf8').trim()}` });
    } catch {
      console.log(`  ${label}: ${file} missing — run \`cargo bench --bench share_bench\` first`);
    }
  }
  // A built-in lesson's link, and a comparison of the two travel runs of
  // another built-in lesson, made by the CLI as the app makes them.
  const encode = (json) => execFileSync('target/release/roundtable', ['share', 'encode'], { input: json, encoding: 'utf8', maxBuffer: 64 << 20 }).trim();
  const lesson = readFileSync('public/lessons/travel-orchestrator.lesson.json', 'utf8');
  links.push({ label: 'built-in lesson (travel)', path: `/#${encode(lesson)}`, events: JSON.parse(lesson).runs[0].events.length });
  const pair = JSON.parse(readFileSync('public/lessons/travel-notebook.lesson.json', 'utf8'));
  const comparison = { format: 'roundtable.comparison', version: 1, title: 'fixed vs orchestrator', runs: pair.runs };
  links.push({ label: 'comparison of 2 runs', path: `/compare#${encode(JSON.stringify(comparison))}`, events: pair.runs.reduce((n, r) => n + r.events.length, 0) });

  const app = await startStatic({ root: 'dist' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  console.log(`opening a shared run, lesson or comparison to interactive: the frame that shows it is painted (headless Chromium, a cold context whose window had ${WINDOW_SETTLE_MS} ms to start, median of ${RUNS})`);
  for (const { label, path, events: known } of links) {
    const times = [];
    const phases = {};
    let events = known ?? 0;
    for (let i = 0; i <= RUNS; i++) {
      const { ctx, page } = await coldPage(browser);
      await page.goto(`${app.url}${path}`, { waitUntil: 'commit' });
      const t = await pageMark(page, 'data-link-ready-ms');
      const marks = await appMarks(page);
      if (i > 0) {
        // the first load warms the browser up
        times.push(t);
        for (const [k, v] of Object.entries(marks)) (phases[k] ||= []).push(v);
      }
      if (known === undefined) events = Number((await page.getByRole('tab', { name: /Events/ }).innerText()).match(/\d+/)?.[0] ?? 0);
      await ctx.close();
    }
    const m = median(times);
    console.log(`  ${label.padEnd(26)} ${String(events).padStart(4)} events, link ${(path.length / 1024).toFixed(1)} KB: median ${m.toFixed(0)} ms (runs ${times.map((t) => t.toFixed(0)).join(', ')}) = ${(m / interactiveMs).toFixed(2)}× navigation → interactive`);
    opened[label] = { median_ms: m, events, link_chars: path.length, phases: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, median(v)])) };
    const order = ['js-loaded', 'wasm-started', 'link-chunk', 'link-decoded', 'link-shown', 'mounted'];
    console.log(`    where the time goes (medians, ms since navigation): ${order.filter((k) => phases[k]).map((k) => `${k} ${median(phases[k]).toFixed(0)}`).join(' → ')} → on screen ${m.toFixed(0)}`);
  }
  console.log(`    (a transcript longer than 24 entries shows the rest in the frames after)`);
  // The lesson again, navigated to at once in each new window (how these
  // figures were taken until stop 21): what the window's own start-up adds.
  const lessonLink = links.find((l) => l.label === 'built-in lesson (travel)');
  const starting = await timedLoads(browser, `${app.url}${lessonLink.path}`, 'data-link-ready-ms', 0);
  opened[lessonLink.label].window_starting_ms = median(starting);
  console.log(`  the lesson in a window still starting (navigated at once, as measured until stop 21): median ${median(starting).toFixed(0)} ms (runs ${starting.map((t) => t.toFixed(0)).join(', ')})`);
  await browser.close();
  await app.close();
  recordFigure('open', { floor_ms: floorMs, interactive_ms: interactiveMs, links: opened });
}

{
  const app = await startStatic({ root: 'dist' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  await sizes(app, browser);
  await browser.close();
  await app.close();
}
// A learning phase on the MAEL page with the demo model: 30 built-in
// training tasks, the pool saved to IndexedDB after each (as a user runs it).
async function learnInBrowser() {
  const app = await startStatic({ root: 'dist' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const page = await (await browser.newContext()).newPage();
  await page.goto(app.url + '/mael');
  await page.waitForSelector('body[data-ready="1"]');
  await page.getByLabel('Tasks (first N)').fill('30');
  await page.getByLabel('Tasks (first N)').press('Tab');
  const t0 = Date.now();
  await page.getByRole('button', { name: 'Start learning' }).click();
  await page.getByText(/Learned 30 tasks/).waitFor({ timeout: 300000 });
  const secs = (Date.now() - t0) / 1000;
  const pool = await page.locator('tr[data-pool="default"] td.num').innerText();
  console.log(`MAEL learning phase in Chromium (demo model, pool saved to IndexedDB after each task): 30 built-in tasks in ${secs.toFixed(1)} s = ${(30 / secs).toFixed(1)} tasks/s, ${pool} experiences`);
  await browser.close();
  await app.close();
}

const floorMs = await floor();
await openShared(await interactive(), floorMs);
await learnInBrowser();
