// Shared setup for the end-to-end tests: the built app served from dist/,
// the mock LLM server, and Debian's Chromium driven by playwright-core.
// Everything listens on 127.0.0.1 on ports the OS picks.
import { chromium } from 'playwright-core';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { startStatic } from './serve-dist.mjs';
import { startMockLlm } from './mock-llm.mjs';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
export const SCREENSHOTS = resolve('e2e/screenshots');

export async function setup({ chunkDelayMs = 40 } = {}) {
  if (!existsSync('dist/index.html')) throw new Error('No build in dist/: run `make build` (make test does it).');
  const app = await startStatic({ root: 'dist' });
  const mock = await startMockLlm({ defaultChunkDelayMs: chunkDelayMs });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  return {
    app,
    mock,
    browser,
    async close() {
      await browser.close();
      await mock.close();
      await app.close();
    },
  };
}

/**
 * How long the timing tools let a new window finish its own start-up (and
 * the previous context's teardown) before they navigate. A new context is a
 * new browser window in Chromium's headless mode, and a window starts with
 * work of its own: traced, its address bar's popup (a WebUI page of ~400
 * requests) kept another renderer's main thread busy ~300 ms of the first
 * 350 ms after the navigation, on 2 cores. Someone opening a link
 * typically does it in a browser that is already up; the context is still
 * new (cold cache and storage), and nothing of the page is requested
 * before the navigation. Measured on a lesson link, 11 loads each:
 * navigating at once 375 ms; after 0.5 / 1 / 1.5 / 3 s, 215 / 232 / 234 /
 * 223 ms. Switching only the popup off (another run) took it from 388 to
 * 317 ms: the rest of the gain is other start-up work, not attributed.
 * A page that paints one line: 52 ms at once, 34 ms after 1 s.
 * WINDOW_SETTLE_MS=0 in the environment measures the old way.
 */
export const WINDOW_SETTLE_MS = settleMs(process.env.WINDOW_SETTLE_MS);

function settleMs(text) {
  if (text === undefined) return 1000;
  const ms = Number(text);
  if (text.trim() === '' || !Number.isFinite(ms) || ms < 0) {
    throw new Error(`WINDOW_SETTLE_MS must be a number of milliseconds ≥ 0, not "${text}"`);
  }
  return ms;
}

/**
 * A page in a new browser context (its own cache and storage: a cold
 * load), in a window that has finished starting (after `settleMs`):
 * what the benchmarks measure an open in.
 */
export async function coldPage(browser, settleMs = WINDOW_SETTLE_MS) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  if (settleMs > 0) await page.waitForTimeout(settleMs);
  return { ctx, page };
}

/** A page on the app with console errors and page errors collected. */
export async function openApp(env, { context } = {}) {
  const ctx = context || (await env.browser.newContext());
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => {
    // The browser logs failed HTTP statuses itself; scripted faults cause those.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) page.errors.push(m.text());
  });
  // Never let the page reach anything but 127.0.0.1.
  await ctx.route(/^(?!https?:\/\/127\.0\.0\.1[:/]).*/, (route) => route.abort());
  await page.goto(env.app.url + '/');
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

/** Fills the Settings dialog and saves it. */
export async function configure(page, { provider, baseUrl, model, key, remember = false }) {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Provider', { exact: true }).selectOption(provider);
  if (baseUrl !== undefined) await dialog.getByLabel('Base URL', { exact: true }).fill(baseUrl);
  if (model !== undefined) await dialog.getByLabel('Model', { exact: true }).fill(model);
  if (key !== undefined) await dialog.getByLabel('API key', { exact: true }).fill(key);
  const box = dialog.getByLabel('Remember on this device', { exact: true });
  if ((await box.isEnabled()) && (await box.isChecked()) !== remember) await box.click();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/**
 * Starts a MAEL run on the mock whose root is judged and split as asked and
 * whose every later step is answered in prose (no verdict, critique or
 * rating reads): most replies cannot be read. `before` runs on the page
 * once MAEL is picked (to set its form).
 */
export async function runMaelInProse(page, env, before = async () => {}) {
  await page.setViewportSize({ width: 1440, height: 1000 });
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'k' });
  env.mock.script([
    { text: '{"reason": "three lines, priced apart", "solvable": false}' },
    { text: '{"subtasks": ["Find the cost of 3 candles at $4 each.", "Find the cost of 4 kites at $20 each.", "Find the cost of 10 backpacks at $25 each."]}' },
  ]);
  await page.getByLabel('Coordinator').selectOption('mael');
  await before();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
}

export async function runTask(page, task) {
  await page.getByRole('textbox', { name: 'Task', exact: true }).fill(task);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
}

/** Opens the Events tab and waits for it: its code loads on first use. */
export async function openEvents(page) {
  await page.getByRole('tab', { name: /Events/ }).click();
  await page.locator('.events').waitFor();
}

export async function waitForStatus(page, pattern, timeout = 20000) {
  await page.getByTestId('run-status').filter({ hasText: pattern }).waitFor({ timeout });
}

export async function screenshot(page, name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = resolve(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
  return path;
}

/** Polls `fn` until it returns a truthy value. */
/** The run's share link, from the Share dialog (which it closes again). */
export async function shareLink(page) {
  await page.getByRole('button', { name: 'Copy share link' }).click();
  const input = page.getByRole('textbox', { name: 'Share link' });
  await input.waitFor();
  const url = await input.inputValue();
  await page.getByRole('dialog', { name: 'Share this run' }).getByRole('button', { name: 'Close' }).click();
  return url;
}

export async function eventually(fn, { timeout = 10000, interval = 50 } = {}) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, interval));
  }
  throw new Error(`condition not met within ${timeout} ms (last: ${JSON.stringify(last)})`);
}

/** The travel batch form narrowed to the first `n` easy queries and two
 * variants (solo and the orchestrator): `n` × 2 runs. */
export async function easyTravelBatch(page, n) {
  await page.getByLabel('medium').uncheck();
  await page.getByLabel('hard').uncheck();
  await page.getByLabel('At most this many queries (0 = all)').fill(String(n));
  await page.getByLabel('At most this many queries (0 = all)').dispatchEvent('change');
  await page.getByLabel('Fixed workflow, no notebook').uncheck();
  await page.getByLabel('Fixed workflow + notebook').uncheck();
}

/** The demo model without pauses (Settings → demo pace "Instant"). */
export async function instantDemo(page) {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel("Demo model's streaming pace").selectOption('0');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/** The run on screen as its run file (Export → Run file), parsed. */
export async function runFile(page) {
  await page.locator('.menu summary', { hasText: 'Export' }).click();
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: 'Run file (.json)' }).click()]);
  return JSON.parse(readFileSync(await dl.path(), 'utf8'));
}
