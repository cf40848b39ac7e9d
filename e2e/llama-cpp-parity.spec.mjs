// The in-page model writes llama.cpp's greedy text, in the browser: the
// real model (SmolLM2-135M-Instruct Q4_1, ROUNDTABLE_REAL_MODEL) answers the
// chats of tests/fixtures/llama_cpp_smollm2_q4_1.json (llama.cpp's answers
// through wllama 3.8.1, written by `BENCH_WRITE_REFERENCE=1 node
// e2e/wllama-bench.mjs`) with exactly llama.cpp's text and finish, in each
// way a browser runs it: the relaxed-SIMD build Chromium picks, the
// simd128 build every other browser gets, and split over two workers on an
// isolated page. The fifth chat's 259-token prompt and its answer take
// llama.cpp's tiled and split attention; the others its key-by-key one.
// tests/llama_cpp_reference.rs checks the same natively, log-probabilities
// included.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startStatic } from './serve-dist.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './harness.mjs';

const MODEL = process.env.ROUNDTABLE_REAL_MODEL;
const REFERENCE = JSON.parse(readFileSync('tests/fixtures/llama_cpp_smollm2_q4_1.json', 'utf8'));
let browser;
let isolated;
let plain;

before(async () => {
  if (!MODEL || !existsSync(MODEL)) {
    throw new Error(`ROUNDTABLE_REAL_MODEL (${MODEL ?? 'unset'}) names no file: scripts/test.sh sets it to what \`bash scripts/setup.sh --model-path\` prints, after setup fetched the model.`);
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

/** Loads the model in a worker of `app` (`script` picks its build) and
 * answers every chat greedily, as many tokens as llama.cpp wrote (and one
 * more, for its stop token). */
async function answers(app, script) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await ctx.route(/^(?!https?:\/\/127\.0\.0\.1[:/]).*/, (route) => route.abort());
  await page.goto(app.url + '/');
  await page.waitForSelector('body[data-ready="1"]');
  await page.evaluate(() => {
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'parity-file';
    document.body.appendChild(input);
  });
  await page.locator('#parity-file').setInputFiles(MODEL);
  const jobs = REFERENCE.chats.map((c) => ({ turns: c.messages, max: c.steps.length + 1 }));
  const r = await page.evaluate(
    async ({ script, jobs }) => {
      const worker = new Worker(script, { type: 'module' });
      const waiting = new Map();
      const texts = new Map();
      let ready;
      const readyP = new Promise((r) => (ready = r));
      worker.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.type === 'ready') return ready();
        if (m.type === 'delta') texts.set(m.id, (texts.get(m.id) || '') + m.text);
        const w = waiting.get(m.id);
        if (w && ['imported', 'loaded', 'done', 'error', 'deleted'].includes(m.type)) w(m);
      };
      await readyP;
      let next = 1;
      const ask = (msg, file) =>
        new Promise((res) => {
          const id = next++;
          waiting.set(id, (m) => res({ ...m, id }));
          worker.postMessage({ msg: JSON.stringify({ ...msg, id }), file });
        });
      const imported = await ask({ type: 'import', file_name: 'smollm2.gguf' }, document.getElementById('parity-file').files[0]);
      if (imported.type === 'error') return { error: imported.message };
      const sha256 = imported.model.info.sha256;
      const loaded = await ask({ type: 'load', sha256 });
      if (loaded.type === 'error') return { error: loaded.message };
      const out = [];
      for (const { turns, max } of jobs) {
        const done = await ask({ type: 'generate', sha256, turns, params: { temperature: 0, max_tokens: max, seed: 1 } });
        if (done.type === 'error') return { error: done.message };
        out.push({ finish: done.finish, output_tokens: done.output_tokens, text: texts.get(done.id) || '' });
      }
      await ask({ type: 'delete', sha256 });
      worker.terminate();
      return { out, workers: loaded.info.workers, simd: loaded.info.simd };
    },
    { script, jobs },
  );
  await ctx.close();
  assert.deepEqual(errors, []);
  if (r.error) throw new Error(r.error);
  return r;
}

function check(r, how) {
  const wrong = [];
  REFERENCE.chats.forEach((chat, i) => {
    const theirs = chat.steps.map((s) => s.token).join('');
    const ours = r.out[i];
    const same = chat.finish === 'stop' ? ours.text === theirs && ours.finish === 'stop' : ours.text.startsWith(theirs);
    if (!same) wrong.push(`chat ${i + 1} (${chat.finish}):\n    ours:      ${JSON.stringify(ours.text)} (${ours.finish})\n    llama.cpp: ${JSON.stringify(theirs)}`);
  });
  assert.deepEqual(wrong, [], `${how}: not llama.cpp's text`);
  REFERENCE.chats.forEach((chat, i) => {
    const theirs = chat.steps.map((s) => s.token).join('');
    const ours = r.out[i];
    if (chat.finish === 'stop') {
      assert.equal(ours.text, theirs, `${how}, chat ${i + 1}: llama.cpp's text`);
      assert.equal(ours.finish, 'stop', `${how}, chat ${i + 1}: stops where llama.cpp stopped`);
      assert.equal(ours.output_tokens, chat.steps.length, `${how}, chat ${i + 1}: as many tokens`);
    } else {
      // llama.cpp was cut off: ours goes on one token further, the same up to there.
      assert.ok(ours.text.startsWith(theirs), `${how}, chat ${i + 1}: llama.cpp's text\n  ours:      ${JSON.stringify(ours.text)}\n  llama.cpp: ${JSON.stringify(theirs)}`);
    }
  });
  console.log(`${how}: ${REFERENCE.chats.length} of ${REFERENCE.chats.length} chats llama.cpp's text`);
}

test("the page's model writes llama.cpp's greedy text, in both builds and on two workers", { timeout: 600_000 }, async () => {
  const relaxed = await answers(plain, '/llm-worker/worker.js');
  const simd = await answers(plain, '/llm-worker/worker.js?simd=simd128');
  const split = await answers(isolated, '/llm-worker/worker.js');
  assert.equal(relaxed.simd, 'relaxed-simd', 'Chromium picks the relaxed-SIMD build');
  assert.equal(relaxed.workers, 1);
  assert.equal(simd.simd, 'simd128', '?simd=simd128 forces the other build');
  assert.ok(split.workers >= 2, `an isolated page splits the model (${split.workers} workers)`);
  const wrong = [];
  for (const [r, how] of [
    [relaxed, 'relaxed-SIMD build, 1 worker'],
    [simd, 'simd128 build, 1 worker'],
    [split, `relaxed-SIMD build, ${split.workers} workers`],
  ]) {
    try {
      check(r, how);
    } catch (e) {
      wrong.push(e.message);
    }
  }
  assert.deepEqual(wrong, []);
});
