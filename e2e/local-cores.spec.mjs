// The in-browser model on several cores: on a cross-origin isolated page
// (COOP same-origin + COEP require-corp, which `make run`'s server sends)
// the worker starts a helper worker and splits every forward pass with it;
// on a page without those headers it runs alone. Both write the same
// greedy answer, token for token (the split is exact: each row of every
// product is computed by one worker with the same kernel). Settings says
// which it is.
//
// The worker has two builds: Chromium gets the one with relaxed SIMD, and
// it writes what the simd128 build (every other browser's) writes, token
// for token, in every quantisation whose kernels differ between them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { startStatic } from './serve-dist.mjs';
import { CHROMIUM, CHROMIUM_ARGS, screenshot } from './harness.mjs';

const TOOL = 'target/llm-worker/debug/tiny-gguf';
const DIR = 'target/e2e-models';
let browser;
let isolated;
let plain;
const files = {};

before(async () => {
  if (!existsSync(TOOL)) throw new Error(`${TOOL} is missing: scripts/test.sh builds it.`);
  mkdirSync(DIR, { recursive: true });
  // Every type with kernels of ours.
  for (const q of ['q8_0', 'q4_0', 'q4_1', 'q5_0', 'q5_1', 'q2k', 'q3k', 'q4k', 'q5k', 'q6k']) {
    files[q] = `${DIR}/cores-medium-${q}.gguf`;
    execFileSync(TOOL, ['random', files[q], 'medium', q]);
  }
  isolated = await startStatic({ root: 'dist', isolated: true });
  plain = await startStatic({ root: 'dist', isolated: false });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await isolated?.close();
  await plain?.close();
});

/** Stores `file` through the worker's protocol, loads it, and writes a
 * greedy answer; returns the worker count and build, the answer and the
 * timings. `script`: the worker's URL (`?simd=simd128` forces that build);
 * `blocked`: requests to fail (a host without a file); `probe`: another
 * simd-probe.mjs to serve (a browser whose relaxed SIMD sums otherwise);
 * `repeat`: the prompt's sentence this many times (20: ~180 tokens). */
async function answer(app, file, script = '/llm-worker/worker.js', blocked = null, probe = null, repeat = 20) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await ctx.route(/^(?!https?:\/\/127\.0\.0\.1[:/]).*/, (route) => route.abort());
  const failed = [];
  if (blocked) {
    await ctx.route(blocked, (route) => {
      failed.push(route.request().url());
      return route.fulfill({ status: 404, body: 'not here' });
    });
  }
  const probed = [];
  if (probe) {
    await ctx.route(/\/llm-worker\/simd-probe\.mjs$/, (route) => {
      probed.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/javascript', body: probe });
    });
  }
  await page.goto(app.url + '/');
  await page.waitForSelector('body[data-ready="1"]');
  await page.evaluate(() => {
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'cores-file';
    document.body.appendChild(input);
  });
  await page.locator('#cores-file').setInputFiles(file);
  const r = await page.evaluate(async ({ script, repeat }) => {
    const worker = new Worker(script, { type: 'module' });
    const waiting = new Map();
    let text = '';
    let ready;
    const readyP = new Promise((r) => (ready = r));
    worker.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.type === 'ready') return ready();
      if (m.type === 'delta') text += m.text;
      const w = waiting.get(m.id);
      if (w && ['imported', 'loaded', 'done', 'error'].includes(m.type)) w(m);
    };
    await readyP;
    let next = 1;
    const ask = (msg, file) =>
      new Promise((res) => {
        const id = next++;
        waiting.set(id, res);
        worker.postMessage({ msg: JSON.stringify({ ...msg, id }), file });
      });
    const imported = await ask({ type: 'import', file_name: 'cores.gguf' }, document.getElementById('cores-file').files[0]);
    if (imported.type === 'error') return { error: imported.message };
    const sha256 = imported.model.info.sha256;
    const loaded = await ask({ type: 'load', sha256 });
    if (loaded.type === 'error') return { error: loaded.message };
    const turns = [{ role: 'user', content: 'plan a trip to boston with hotels and flights '.repeat(repeat) }];
    const params = { max_tokens: 24, temperature: 0, seed: 1 };
    const first = await ask({ type: 'generate', sha256, turns, params });
    const firstText = text;
    // The next turn reads from the cache of the first.
    text = '';
    turns.push({ role: 'assistant', content: firstText }, { role: 'user', content: 'and the restaurants' });
    const second = await ask({ type: 'generate', sha256, turns, params });
    worker.terminate();
    return { workers: loaded.info.workers, simd: loaded.info.simd, first, second, texts: [firstText, text] };
  }, { script, repeat });
  const cores = await page.evaluate(() => [self.crossOriginIsolated, navigator.hardwareConcurrency]);
  await ctx.close();
  assert.deepEqual(errors, []);
  if (r.error) throw new Error(r.error);
  return { ...r, cores, failed, probed };
}

test('an isolated page splits the model over its cores and writes what one worker writes', async () => {
  for (const q of ['q8_0', 'q4_1']) {
    const one = await answer(plain, files[q]);
    const split = await answer(isolated, files[q]);
    assert.equal(one.cores[0], false, 'the plain page is not isolated');
    assert.equal(one.workers, 1, `${q}: one worker without isolation`);
    assert.equal(split.cores[0], true, 'the page with COOP/COEP is isolated');
    assert.ok(split.cores[1] >= 2, `this machine has ${split.cores[1]} cores`);
    assert.equal(split.workers, Math.min(split.cores[1], 4), `${q}: a worker per core`);
    for (const r of [one, split]) {
      assert.equal(r.first.type, 'done');
      assert.ok(r.first.output_tokens > 0, `${q}: an answer`);
      assert.ok(r.second.reused > 0, `${q}: the second turn reuses the cache`);
    }
    assert.equal(split.first.output_tokens, one.first.output_tokens);
    // (Over the whole answer: a split that falls back to one worker on a
    // loaded machine may do so while reading the prompt.)
    assert.ok(split.first.all_exchanges > 0 && one.first.all_exchanges === 0, 'only the split pass exchanges products');
    assert.deepEqual(split.texts, one.texts, `${q}: the same greedy answers`);
    console.log(
      `${q}: 1 worker ${one.first.prefill_ms.toFixed(0)} + ${one.first.decode_ms.toFixed(0)} ms, ` +
        `${split.workers} workers ${split.first.prefill_ms.toFixed(0)} + ${split.first.decode_ms.toFixed(0)} ms ` +
        `(${split.first.all_exchanges} products exchanged, ${split.first.exchanges} while writing, ${split.first.exchange_ms.toFixed(0)} ms; ${split.first.workers} at the end)`,
    );
  }
});

test('Chromium runs the relaxed-SIMD build, which writes what the simd128 build writes', async () => {
  for (const q of ['q4_0', 'q4_1', 'q5_0', 'q5_1', 'q2k', 'q3k', 'q4k', 'q5k', 'q6k']) {
    // A shorter prompt (~40 tokens, still read as one batch): nine types
    // twice each.
    const relaxed = await answer(plain, files[q], undefined, null, null, 4);
    const simd = await answer(plain, files[q], '/llm-worker/worker.js?simd=simd128', null, null, 4);
    assert.equal(relaxed.simd, 'relaxed-simd', `${q}: Chromium picks the relaxed-SIMD build`);
    assert.equal(simd.simd, 'simd128', `${q}: ?simd=simd128 forces the other`);
    assert.ok(relaxed.first.output_tokens > 0, `${q}: an answer`);
    // Prompts read as a batch (the unpacked-row kernels) and answers
    // written a token at a time (the packed ones): the same tokens.
    assert.deepEqual(relaxed.texts, simd.texts, `${q}: the same greedy answers`);
    console.log(
      `${q}: relaxed SIMD ${relaxed.first.prefill_ms.toFixed(0)} + ${relaxed.first.decode_ms.toFixed(0)} ms, ` +
        `simd128 ${simd.first.prefill_ms.toFixed(0)} + ${simd.first.decode_ms.toFixed(0)} ms`,
    );
  }
});

test('a host without the relaxed-SIMD build still runs the model, on the simd128 one', async () => {
  const r = await answer(plain, files.q4_1, '/llm-worker/worker.js', /\/llm-worker\/relaxed\//);
  assert.ok(r.failed.some((u) => u.includes('/llm-worker/relaxed/')), 'the relaxed build was asked for and not found');
  assert.equal(r.simd, 'simd128');
  assert.ok(r.first.output_tokens > 0, 'an answer');
});

test('a host without the SIMD probe still runs the model, on the simd128 build', async () => {
  const r = await answer(plain, files.q4_1, '/llm-worker/worker.js', /\/llm-worker\/simd-probe\.mjs$/);
  assert.ok(r.failed.some((u) => u.includes('/llm-worker/simd-probe.mjs')), 'the probe was asked for and not found');
  assert.equal(r.simd, 'simd128');
  assert.ok(r.first.output_tokens > 0, 'an answer');
});

test('a browser whose relaxed dot products sum wrong gets the simd128 build', async () => {
  // Node 20's V8 on AVX-VNNI CPUs validates relaxed SIMD and returns twice
  // the sum from i32x4.relaxed_dot_i8x16_i7x16_add_s. Chromium sums right,
  // so the probe is served expecting other sums: to it, Chromium is such
  // an engine.
  const real = readFileSync('web/llm-worker/simd-probe.mjs', 'utf8');
  const probe = real.replace('exports.add(-3, 5) === -60', 'exports.add(-3, 5) === -120');
  assert.notEqual(probe, real, 'the probe still checks four products of -3 * 5');
  const r = await answer(plain, files.q4_1, '/llm-worker/worker.js', null, probe);
  assert.equal(r.probed.length, 1, 'the worker ran the probe');
  assert.equal(r.simd, 'simd128');
  assert.ok(r.first.output_tokens > 0, 'an answer');
});

test('Settings says how many cores the model runs on', async () => {
  for (const [app, want] of [
    [isolated, /runs on \d of this device's cores/],
    [plain, /runs on one core here: this page is not cross-origin isolated/],
  ]) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await ctx.route(/^(?!https?:\/\/127\.0\.0\.1[:/]).*/, (route) => route.abort());
    await page.goto(app.url + '/');
    await page.waitForSelector('body[data-ready="1"]');
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByLabel('Provider', { exact: true }).selectOption('local');
    const note = dialog.getByTestId('local-cores');
    await note.waitFor();
    assert.match(await note.textContent(), want);
    if (app === isolated) await screenshot(page, 'local-cores-settings');
    await ctx.close();
  }
});
