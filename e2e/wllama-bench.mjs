// The in-page model beside wllama (llama.cpp compiled to wasm, the npm
// package @wllama/wllama, a bench-only dependency that `make bench`
// installs), in the same headless Chromium, on the real model of the tests
// (SmolLM2-135M-Instruct Q4_1, ROUNDTABLE_REAL_MODEL) and a Q8_0
// requantisation of it that this script writes:
//
// 1. speed: local-bench's prompt (one user turn, about 259 tokens with the
//    model's template), greedy, 64 tokens, read and written by Roundtable's
//    production worker (dist/llm-worker) on a page not isolated and on a
//    cross-origin isolated one (where it may use more workers), wllama on 1
//    thread and wllama on 2 threads (isolated: SharedArrayBuffer); prefill
//    and decode tokens per second (the better of two runs after one load),
//    and Roundtable / wllama 2 threads against the goal (>= 1.0);
// 2. parity: five chats (four short ones and the speed prompt), greedy, up
//    to 48 tokens, wllama's keys and values kept in f32, with llama.cpp's
//    five likeliest tokens and their log-probabilities at every step.
//    - llama.cpp's answers must be the ones stored in REFERENCE (the
//      fixture tests/llama_cpp_reference.rs and
//      e2e/llama-cpp-parity.spec.mjs check Roundtable against); a
//      difference exits non-zero. BENCH_WRITE_REFERENCE=1 writes it anew.
//    - Roundtable's page must write llama.cpp's text on every chat (its
//      pass rounds as llama.cpp's does); both texts are printed side by
//      side where they part, with llama.cpp's margin there, and a
//      difference exits non-zero.
//
// Everything is served from 127.0.0.1 (wllama's module and wasm from
// node_modules, nothing from a CDN), and Chromium resolves no other host.
//
//   ROUNDTABLE_REAL_MODEL=path/to/model.gguf node e2e/wllama-bench.mjs
//   ROUNDTABLE_DIST=dir   another build of the app than dist/ (experiments)
//   BENCH_PARITY_ONLY=1   the parity chats only
//   BENCH_WRITE_REFERENCE=1  writes llama.cpp's parity answers to REFERENCE
//   BENCH_PARITY_DUMP=f   writes both engines' parity answers (wllama's with
//                         its top-3 log-probabilities per token) to f as JSON
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { startStatic } from './serve-dist.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './harness.mjs';

/** The wllama release measured (the Makefile's bench target installs it). */
const WLLAMA_VERSION = '3.8.1';
const WLLAMA = 'node_modules/@wllama/wllama';
const DIST = process.env.ROUNDTABLE_DIST || 'dist';
/** BENCH_PARITY_ONLY=1: the parity chats only (no speed table). */
const PARITY_ONLY = process.env.BENCH_PARITY_ONLY === '1';
/** Tokens of context wllama allocates (its default, 1024: enough here). */
const N_CTX = 1024;

// local-bench's prompt: about 200 words, 259 tokens with SmolLM2's template.
const PROMPT = 'You are the hotel expert of a travel team. Find a hotel in Boston for two nights. '.repeat(12);
const SPEED_TOKENS = 64;
// Each engine runs the speed prompt twice after a load and the table keeps
// the better figure: on 2 cores, another process's burst slows wllama's 2
// spinning threads several times over (decode fell from ~14 to ~1 tok/s).
const RUNS = 2;
/** A new page's window settles before the work starts (harness.mjs's WINDOW_SETTLE_MS). */
const SETTLE_MS = 1000;

// The parity chats: short and varied (a question; a system turn; a
// conversation with an assistant turn; numbers and punctuation), and the
// speed prompt, whose 259 tokens llama.cpp reads in 64-key tiles and whose
// answer it writes over two halves of 512 keys (its other two attention
// paths).
const PARITY_TOKENS = 48;
/** llama.cpp's answers to the parity chats, as the real-model suite reads them. */
const REFERENCE = 'tests/fixtures/llama_cpp_smollm2_q4_1.json';
/** How many of llama.cpp's likeliest tokens each step records. */
const TOP = 5;
const CHATS = [
  [{ role: 'user', content: 'What is the capital of France?' }],
  [
    { role: 'system', content: 'You are a concise assistant. Answer in one sentence.' },
    { role: 'user', content: 'Why is the sky blue?' },
  ],
  [
    { role: 'user', content: 'Suggest a name for a cat.' },
    { role: 'assistant', content: 'How about Whiskers?' },
    { role: 'user', content: 'Another one, please.' },
  ],
  [{ role: 'user', content: 'Compute 12 * 7 + 3.5 - (4 / 2), step by step; then say "done!"' }],
  [{ role: 'user', content: PROMPT }],
];

// ---- What must be there --------------------------------------------------

console.log('in-page model beside wllama (llama.cpp in wasm), same headless Chromium');
if (!existsSync(join(DIST, 'llm-worker/llm_worker_bg.wasm')) || !existsSync(join(DIST, 'index.html'))) {
  console.error(`No worker in ${DIST}/llm-worker/: run \`make build\` (make bench does it).`);
  process.exit(1);
}
const real = process.env.ROUNDTABLE_REAL_MODEL;
if (!real || !existsSync(real)) {
  console.log(`  SKIPPED: the real model is missing (ROUNDTABLE_REAL_MODEL=${real ?? 'unset'} names no file; make bench sets it).`);
  console.log('  Roundtable beside wllama: NOT measured; parity with llama.cpp: NOT measured');
  process.exit(0);
}
const wllamaPkg = join(WLLAMA, 'package.json');
if (!existsSync(wllamaPkg) || !existsSync(join(WLLAMA, 'esm/wasm/wllama.wasm'))) {
  console.error(`@wllama/wllama is not installed (a bench-only dependency): run \`make bench\`, which installs @wllama/wllama@${WLLAMA_VERSION}.`);
  process.exit(1);
}
const wllamaVersion = JSON.parse(readFileSync(wllamaPkg, 'utf8')).version;
if (wllamaVersion !== WLLAMA_VERSION) console.log(`  note: @wllama/wllama ${wllamaVersion} is installed, not ${WLLAMA_VERSION} (the version make bench pins)`);

// ---- The Q8_0 file ---------------------------------------------------------

// llama.cpp's llama-quantize is not among this project's tools, so the
// requantisation is written here: every Q4_1 block dequantised to f32 and
// quantised again to Q8_0 as ggml's reference `quantize_row_q8_0_ref` does
// (scale max|x| / 127 in f16, values rounded half away from zero); tensors
// of other types (SmolLM2's Q8_0 embedding, its f32 norms) are copied.
const Q8 = 'target/bench-models/smollm2-135m-instruct-requant-q8_0.gguf';
mkdirSync('target/bench-models', { recursive: true });
if (!existsSync(Q8) || statSync(Q8).mtimeMs < statSync(real).mtimeMs) writeFileSync(Q8, requantiseToQ8_0(readFileSync(real)));
const MODELS = [
  { kind: 'Q4_1', file: real, note: 'the real model' },
  { kind: 'Q8_0', file: Q8, note: "requantised from it by this script (no llama.cpp tool here): Q8_0's speed, not a Q8_0 release's text" },
];

// ---- Servers and browser -----------------------------------------------

// Roundtable's worker from the built app, as local-bench runs it: a page
// not isolated (one worker), and the same isolated as wllama's (where the
// worker may split a forward pass over the cores: Loaded's info.workers).
const app = await startStatic({ root: DIST, isolated: false });
const appIsolated = await startStatic({ root: DIST, isolated: true });
// wllama from node_modules, beside a blank page, cross-origin isolated.
const wllamaRoot = mkdtempSync(join(tmpdir(), 'wllama-bench-'));
writeFileSync(join(wllamaRoot, 'index.html'), '<!doctype html><meta charset="utf-8"><title>wllama bench</title><input type="file" id="bench-file">\n');
symlinkSync(resolve(WLLAMA, 'esm'), join(wllamaRoot, 'wllama'));
const wl = await startStatic({ root: wllamaRoot, isolated: true });
// No host but 127.0.0.1 resolves: a fetch from a CDN would fail, loudly.
const args = [...CHROMIUM_ARGS, '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'];
const browser = await chromium.launch({ executablePath: CHROMIUM, args, headless: true });

let failed = false;
try {
  const speed = [];
  let parityR = null;
  let parityW = null;
  let wllamaSetup = '';
  const speedTurns = [{ role: 'user', content: PROMPT }];
  for (const { kind, file, note } of MODELS) {
    if (PARITY_ONLY && kind !== 'Q4_1') continue;
    console.log(`  ${kind}: ${file} (${(statSync(file).size / 1e6).toFixed(0)} MB), ${note}`);
    // Roundtable: the speed prompt RUNS times (a new conversation each: no
    // cache reused), then (Q4_1) the parity chats, on a page not isolated.
    const chats = kind === 'Q4_1' ? CHATS : [];
    const speedJobs = PARITY_ONLY ? [] : Array(RUNS).fill({ turns: speedTurns, max: SPEED_TOKENS });
    const r = await roundtable(app, file, [...speedJobs, ...chats.map((turns) => ({ turns, max: PARITY_TOKENS }))]);
    speed.push({ kind, engine: 'roundtable', workers: r.workers, runs: r.out.slice(0, RUNS).map(rates) });
    if (chats.length) parityR = r.out.slice(speedJobs.length);
    if (PARITY_ONLY) {
      parityW = await wllama(file, { n_threads: 2, cache_type_k: 'f32', cache_type_v: 'f32' }, chats.map((messages) => ({ messages, max: PARITY_TOKENS })), { logprobs: true });
      continue;
    }
    // The same, speed only, on a cross-origin isolated page.
    const ri = await roundtable(appIsolated, file, speedJobs);
    speed.push({ kind, engine: 'roundtableIsolated', workers: ri.workers, runs: ri.out.map(rates) });
    // wllama: llama.cpp's defaults (keys and values in f16, flash attention
    // where it runs) but for the threads; the same prompt RUNS times.
    for (const threads of [1, 2]) {
      const w = await wllama(file, { n_threads: threads }, Array(RUNS).fill({ messages: speedTurns, max: SPEED_TOKENS }));
      if (w.threads !== threads) throw new Error(`wllama ran ${w.threads} thread(s), not ${threads} (multi-thread: ${w.multithread}; is the page cross-origin isolated?)`);
      wllamaSetup = `llama.cpp ${w.version}, CPU, n_ctx ${N_CTX}, keys/values ${w.kv}, flash attention ${w.flash}`;
      speed.push({ kind, engine: `wllama${threads}`, runs: w.runs.map(rates) });
    }
    // The parity chats on wllama, keys and values in f32 (2 threads).
    if (chats.length) {
      parityW = await wllama(file, { n_threads: 2, cache_type_k: 'f32', cache_type_v: 'f32' }, chats.map((messages) => ({ messages, max: PARITY_TOKENS })), { logprobs: true });
    }
  }

  // ---- 1. The table ---------------------------------------------------------
  if (!PARITY_ONLY) {
    console.log(`  side by side: local-bench's prompt (${speed[0].runs[0].prompt} tokens), greedy, ${SPEED_TOKENS} tokens; prefill / decode tok/s, best of ${RUNS} runs:`);
    console.log(`    wllama ${wllamaVersion}: ${wllamaSetup}`);
    const workers = (engine) => speed.find((s) => s.engine === engine).workers ?? 'workers not reported: 1';
    const NAMES = {
      roundtable: `Roundtable, page not isolated (${workers('roundtable')})`,
      roundtableIsolated: `Roundtable, page isolated (${workers('roundtableIsolated')})`,
      wllama1: 'wllama, 1 thread',
      wllama2: 'wllama, 2 threads (page isolated)',
    };
    const W = Math.max(...Object.values(NAMES).map((n) => n.length)) + 2;
    const best = (row, key) => Math.max(...row.runs.map((x) => x[key]));
    const row = (kind, engine) => speed.find((s) => s.kind === kind && s.engine === engine);
    console.log(`    ${''.padEnd(W)}${MODELS.map((m) => `${m.kind}: prefill  decode`.padStart(24)).join('')}`);
    for (const engine of Object.keys(NAMES)) {
      const cells = MODELS.map((m) => `${best(row(m.kind, engine), 'prefill').toFixed(1).padStart(15)} ${best(row(m.kind, engine), 'decode').toFixed(1).padStart(7)}`);
      console.log(`    ${NAMES[engine].padEnd(W)}${cells.join('')}`);
    }
    for (const { kind } of MODELS) {
      for (const engine of ['roundtableIsolated', 'roundtable']) {
        const ratio = (key) => best(row(kind, engine), key) / best(row(kind, 'wllama2'), key);
        const [p, d] = [ratio('prefill'), ratio('decode')];
        const met = (x) => (x >= 1 ? 'met' : 'NOT met');
        console.log(`    ${kind}: ${NAMES[engine]} / wllama 2 threads: prefill ${p.toFixed(2)}x (goal >= 1.0: ${met(p)}), decode ${d.toFixed(2)}x (goal >= 1.0: ${met(d)})`);
      }
    }
    console.log("    how: Roundtable from its Done message as local-bench reads it (prompt_tokens / prefill_ms, (output_tokens - 1) / decode_ms);");
    console.log("    wllama from llama.cpp's own timings (prompt_n / prompt_ms, (predicted_n - 1) / predicted_ms): the same spans, the prompt");
    console.log('    to the first token, then the other tokens. Each run, prefill/decode tok/s [tokens read+written], then wllama\'s wall clock in');
    console.log('    the page (to the first streamed text + the rest):');
    for (const s of speed) {
      const runs = s.runs.map((x) => `${x.prefill.toFixed(1)}/${x.decode.toFixed(1)} [${x.prompt}+${x.output}]${x.wall ? ` (${x.wall})` : ''}`);
      console.log(`      ${s.kind} ${NAMES[s.engine]}: ${runs.join(', ')}`);
    }
  }

  // ---- 2. Parity -------------------------------------------------------------
  console.log(`  parity with llama.cpp (wllama ${wllamaVersion}, keys/values ${parityW.kv}, flash attention ${parityW.flash}), Q4_1, greedy, up to ${PARITY_TOKENS} tokens, the model's own template:`);
  if (!parityW.kv.startsWith('f32/f32')) console.log('    !!! wllama did NOT keep keys and values in f32: near-ties may differ for that reason alone !!!');
  checkReference(parityW, real);
  if (process.env.BENCH_PARITY_DUMP) {
    writeFileSync(process.env.BENCH_PARITY_DUMP, JSON.stringify({ chats: CHATS, roundtable: parityR, wllama: parityW.runs }, null, 1));
    console.log(`    (both engines' answers written to ${process.env.BENCH_PARITY_DUMP})`);
  }
  let differ = 0;
  CHATS.forEach((chat, i) => {
    const r = parityR[i];
    const w = parityW.runs[i];
    const tokens = r.prompt_tokens === w.prompt_tokens ? 'equal' : 'DIFFER';
    const at = firstDifference(r.text, w.text);
    const text = at < 0 ? 'equal' : `DIFFER (first difference at char ${at}: Roundtable ${JSON.stringify(r.text.slice(at, at + 24))}, wllama ${JSON.stringify(w.text.slice(at, at + 24))})`;
    console.log(`    chat ${i + 1}: prompt tokens ${r.prompt_tokens}/${w.prompt_tokens} ${tokens}, output ${text}; ${r.output_tokens}/${w.output_tokens} tokens, finish ${r.finish}/${w.finish}`);
    if (tokens !== 'equal' || at >= 0) {
      differ++;
      console.log(`      Roundtable: ${JSON.stringify(r.text)}`);
      console.log(`      wllama:     ${JSON.stringify(w.text)}`);
      if (at >= 0) console.log(`      ${nearTie(w.logprobs, r.text, at)}`);
    }
  });
  const same = CHATS.length - differ;
  console.log(`  free-running greedy text, Roundtable's page against llama.cpp's: ${same} of ${CHATS.length} chats the same (goal: all: ${same === CHATS.length ? 'met' : 'NOT met'})`);
  console.log(`  (make test checks the same natively with log-probabilities, tests/llama_cpp_reference.rs, and in the page in both builds`);
  console.log(`  and on two workers, e2e/llama-cpp-parity.spec.mjs)`);
  if (differ) failed = true;
} catch (e) {
  if (e.reference) console.error(`  ${e.message}`);
  else console.error(`  wllama bench failed: ${e.stack || e}`);
  failed = true;
} finally {
  await browser.close();
  await app.close();
  await appIsolated.close();
  await wl.close();
  rmSync(wllamaRoot, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

// ---- llama.cpp's stored answers ----------------------------------------------

/** An error that says llama.cpp's answers changed (no stack: the message is the report). */
function referenceMismatch(message) {
  return Object.assign(new Error(message), { reference: true });
}

/**
 * llama.cpp's parity answers (`w`, from wllama) against the stored
 * REFERENCE: the same prompt token counts, tokens and texts, and every
 * log-probability within 1e-3 (llama.cpp is deterministic on this machine;
 * a new wllama release or model file is what changes them). With
 * BENCH_WRITE_REFERENCE=1 they become the reference.
 */
function checkReference(w, modelFile) {
  const fresh = {
    about:
      'llama.cpp\'s greedy answers to the parity chats of e2e/wllama-bench.mjs, with its likeliest tokens and their log-probabilities at every step (its stop token has none). Written by BENCH_WRITE_REFERENCE=1 node e2e/wllama-bench.mjs; read by tests/llama_cpp_reference.rs.',
    reference: { engine: `llama.cpp via @wllama/wllama ${WLLAMA_VERSION}`, kv: w.kv, flash_attention: w.flash, threads: 2, sampling: 'greedy (temperature 0, top-k 1)', top: TOP },
    model: { file: modelFile.split('/').pop(), bytes: statSync(modelFile).size },
    chats: CHATS.map((messages, i) => ({
      messages,
      prompt_tokens: w.runs[i].prompt_tokens,
      text: w.runs[i].text,
      finish: w.runs[i].finish,
      steps: w.runs[i].logprobs,
    })),
  };
  if (process.env.BENCH_WRITE_REFERENCE === '1') {
    writeFileSync(REFERENCE, JSON.stringify(fresh, null, 1) + '\n');
    console.log(`    llama.cpp's answers written to ${REFERENCE}`);
    return;
  }
  const stored = JSON.parse(readFileSync(REFERENCE, 'utf8'));
  const problems = [];
  if (stored.model.bytes !== fresh.model.bytes) problems.push(`the model file has ${fresh.model.bytes} bytes, the reference's ${stored.model.bytes}`);
  fresh.chats.forEach((c, i) => {
    const s = stored.chats[i];
    if (!s || JSON.stringify(s.messages) !== JSON.stringify(c.messages)) return problems.push(`chat ${i + 1}: not the stored chat`);
    if (s.prompt_tokens !== c.prompt_tokens) problems.push(`chat ${i + 1}: prompt tokens ${c.prompt_tokens}, stored ${s.prompt_tokens}`);
    if (s.text !== c.text) problems.push(`chat ${i + 1}: text ${JSON.stringify(c.text)}, stored ${JSON.stringify(s.text)}`);
    c.steps.forEach((step, j) => {
      const t = s.steps[j];
      const same = t && t.id === step.id && t.top.length === step.top.length && t.top.every(([, p, id], k) => id === step.top[k][2] && Math.abs(p - step.top[k][1]) <= 1e-3);
      if (!same && problems.length < 12) problems.push(`chat ${i + 1} step ${j}: ${JSON.stringify(step)}, stored ${JSON.stringify(t)}`);
    });
  });
  if (problems.length) {
    throw referenceMismatch(`llama.cpp's answers are NOT the stored ones in ${REFERENCE} (a new wllama or model file? BENCH_WRITE_REFERENCE=1 writes them anew):\n    ${problems.join('\n    ')}`);
  }
  console.log(`    llama.cpp's answers are the ones stored in ${REFERENCE} (every token, log-probabilities within 1e-3)`);
}

// ---- Runners ----------------------------------------------------------------

/** A page whose file input holds `file`, as a user's pick. */
async function pageWithFile(url, file, ready) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  page.on('crash', () => console.log(`  the page crashed (${url})`));
  page.on('console', (m) => process.env.BENCH_DEBUG && console.log('   console:', m.text()));
  await page.goto(url);
  if (ready) await page.waitForSelector(ready);
  await page.waitForTimeout(SETTLE_MS);
  await page.evaluate(() => {
    if (document.getElementById('bench-file')) return;
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'bench-file';
    document.body.appendChild(input);
  });
  await page.locator('#bench-file').setInputFiles(file);
  return { ctx, page };
}

/**
 * Roundtable's production worker on a page of `server`: the file imported
 * and loaded, then each job `{ turns, max }` generated greedily, a fresh
 * chat each. Per job (`out`): the Started message's prompt tokens, the text
 * of the deltas and the Done message (prompt_tokens, output_tokens,
 * prefill_ms, decode_ms, finish); and the workers the load reported.
 */
async function roundtable(server, file, jobs) {
  const { ctx, page } = await pageWithFile(server.url + '/', file, 'body[data-ready="1"]');
  try {
    const r = await page.evaluate(async (jobs) => {
      const worker = new Worker('/llm-worker/worker.js', { type: 'module' });
      const waiting = new Map();
      const texts = new Map();
      const started = new Map();
      let ready;
      const readyP = new Promise((r) => (ready = r));
      worker.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.type === 'ready') return ready();
        if (m.type === 'started') started.set(m.id, m.prompt_tokens);
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
      const imported = await ask({ type: 'import', file_name: 'bench.gguf' }, document.getElementById('bench-file').files[0]);
      if (imported.type === 'error') return { error: imported.message };
      const sha256 = imported.model.info.sha256;
      const loaded = await ask({ type: 'load', sha256 });
      if (loaded.type === 'error') return { error: loaded.message };
      const out = [];
      for (const { turns, max } of jobs) {
        // temperature 0: greedy (sampler.rs: the argmax, the penalty off by default).
        const done = await ask({ type: 'generate', sha256, turns, params: { temperature: 0, max_tokens: max, seed: 1 } });
        if (done.type === 'error') return { error: done.message };
        out.push({ ...done, started_prompt_tokens: started.get(done.id), text: texts.get(done.id) || '' });
      }
      await ask({ type: 'delete', sha256 });
      worker.terminate();
      return { out, workers: loaded.info.workers };
    }, jobs);
    if (r.error) throw new Error(`Roundtable's worker: ${r.error}`);
    // The parity compares Started's count (the prompt as tokenized).
    const out = r.out.map((d) => ({ ...d, prompt_tokens: d.started_prompt_tokens ?? d.prompt_tokens }));
    const workers = r.workers === undefined ? undefined : `${r.workers} worker${r.workers === 1 ? '' : 's'}`;
    return { out, workers };
  } finally {
    await ctx.close();
  }
}

/**
 * wllama: the file loaded with `params` (CPU only, the model's Jinja
 * template as Roundtable uses it), then each job `{ messages, max }` as a
 * chat completion, greedy (temperature 0, top-k 1), streamed, its prompt
 * read in full (no cache reused). Per job: the
 * text, the prompt's token count (usage, else llama.cpp's timings),
 * llama.cpp's timings and the wall clock to the first text and after it.
 */
async function wllama(file, params, jobs, { logprobs = false } = {}) {
  const { ctx, page } = await pageWithFile(wl.url + '/', file);
  try {
    const r = await page.evaluate(
      async ({ params, jobs, nCtx, logprobs, top }) => {
        const { Wllama } = await import('/wllama/index.js');
        // llama.cpp's log, kept to report the cache's types and attention.
        const log = [];
        const keep = (...a) => log.push(a.map(String).join(' '));
        const w = new Wllama({ default: '/wllama/wasm/wllama.wasm' }, { logger: { debug: keep, log: keep, warn: keep, error: keep } });
        try {
          await w.loadModel([document.getElementById('bench-file').files[0]], { n_ctx: nCtx, n_gpu_layers: 0, jinja: true, seed: 1, ...params });
        } catch (e) {
          return { error: `load: ${e.message || e}`, log: log.slice(-20) };
        }
        const runs = [];
        for (const { messages, max } of jobs) {
          let text = '';
          let first = null;
          let last = null;
          const steps = [];
          const t0 = performance.now();
          await w.createChatCompletion({
            messages,
            max_tokens: max,
            temperature: 0,
            top_k: 1,
            seed: 1,
            // Every prompt read in full, as Roundtable reads a new chat's.
            cache_prompt: false,
            stream: true,
            stream_options: { include_usage: true },
            // The TOP likeliest tokens at each step (llama.cpp's
            // probabilities before sampling): the stored reference, and a
            // difference is told from a near-tie with them.
            ...(logprobs ? { logprobs: true, top_logprobs: top } : {}),
            onData: (chunk) => {
              const d = chunk.choices?.[0]?.delta?.content;
              if (d) {
                first ??= performance.now();
                text += d;
              }
              for (const t of chunk.choices?.[0]?.logprobs?.content ?? []) steps.push({ token: t.token, id: t.id, top: t.top_logprobs.map((x) => [x.token, x.logprob, x.id]) });
              if (chunk.choices?.[0]?.finish_reason) last = { ...last, finish: chunk.choices[0].finish_reason };
              if (chunk.timings) last = { ...last, timings: chunk.timings };
              if (chunk.usage) last = { ...last, usage: chunk.usage };
            },
          });
          const end = performance.now();
          runs.push({ text, steps, ...last, wallPrefill: (first ?? end) - t0, wallDecode: end - (first ?? end) });
        }
        const out = { runs, threads: w.getNumThreads(), multithread: w.isMultithread(), version: Wllama.getLibllamaVersion(), log: log.filter((l) => /K \(\w+\).*V \(\w+\)|Flash Attention/.test(l)) };
        await w.exit();
        return out;
      },
      { params, jobs, nCtx: N_CTX, logprobs, top: TOP },
    );
    if (r.error) throw new Error(`wllama: ${r.error}\n${r.log.join('\n')}`);
    // The keys' and values' types, from llama.cpp's log of the cache it made.
    const kvLine = r.log.find((l) => /K \((\w+)\).*V \((\w+)\)/.test(l));
    const kv = kvLine ? kvLine.match(/K \((\w+)\).*V \((\w+)\)/).slice(1).join('/') : `${params.cache_type_k ?? 'f16'}/${params.cache_type_v ?? 'f16'} (asked; not in the log)`;
    const flash = r.log.find((l) => /Flash Attention/.test(l))?.match(/Flash Attention (\w+)/)?.[1] ?? 'not in the log';
    if (process.env.BENCH_DEBUG) console.log(r.log.join('\n'));
    const runs = r.runs.map((x) => ({
      text: x.text,
      finish: x.finish,
      prompt_tokens: x.usage?.prompt_tokens ?? (x.timings ? x.timings.cache_n + x.timings.prompt_n : NaN),
      output_tokens: x.usage?.completion_tokens ?? x.timings?.predicted_n ?? NaN,
      timings: x.timings,
      logprobs: x.steps,
      wallPrefill: x.wallPrefill,
      wallDecode: x.wallDecode,
    }));
    return { runs, kv, flash, threads: r.threads, multithread: r.multithread, version: r.version };
  } finally {
    await ctx.close();
  }
}

/** Prefill and decode tokens per second of one run, either engine's. */
function rates(run) {
  if (run.timings) {
    // wllama: llama.cpp's timings (the prompt to the first token; then the
    // other tokens: predicted_ms spans predicted_n - 1 decoding steps).
    const t = run.timings;
    return {
      prompt: run.prompt_tokens,
      output: t.predicted_n,
      prefill: (t.prompt_n / t.prompt_ms) * 1000,
      decode: t.predicted_n > 1 ? ((t.predicted_n - 1) / t.predicted_ms) * 1000 : NaN,
      wall: `${(run.wallPrefill / 1000).toFixed(2)} s + ${(run.wallDecode / 1000).toFixed(2)} s`,
    };
  }
  // Roundtable: the Done message, as local-bench reads it.
  return {
    prompt: run.prompt_tokens,
    output: run.output_tokens,
    prefill: (run.prompt_tokens / run.prefill_ms) * 1000,
    decode: run.output_tokens > 1 ? ((run.output_tokens - 1) / run.decode_ms) * 1000 : NaN,
  };
}

/**
 * Where llama.cpp's answer and Roundtable's part: llama.cpp's three
 * likeliest tokens at that step (`steps`, log-probabilities), and the gap
 * between its pick and the one Roundtable's text goes on with, when that
 * one is among them (under 0.35, the NEAR_TIE of
 * tests/llama_cpp_reference.rs: a near-tie, which the two engines'
 * arithmetic may settle either way).
 */
function nearTie(steps, rText, at) {
  let start = 0;
  const i = steps.findIndex((s) => (start += s.token.length) > at);
  if (i < 0) return 'llama.cpp\'s probabilities there: not reported';
  start -= steps[i].token.length;
  const top = steps[i].top;
  const list = top.slice(0, 3).map(([t, p]) => `${JSON.stringify(t)} ${p.toFixed(3)}`).join(', ');
  const theirs = top.find(([t]) => t !== steps[i].token && t.length && rText.startsWith(t, start));
  const gap = theirs ? top[0][1] - theirs[1] : NaN;
  const verdict = theirs ? `Roundtable took ${JSON.stringify(theirs[0])}, ${gap.toFixed(3)} below: ${gap < 0.35 ? 'a near-tie' : 'NOT a near-tie'}` : 'Roundtable\'s token is not among them: NOT a near-tie';
  return `at token ${i + 1} llama.cpp's likeliest were ${list}; ${verdict}`;
}

/** The first index where the two strings differ, -1 when they are equal. */
function firstDifference(a, b) {
  if (a === b) return -1;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

// ---- Requantisation to Q8_0 ----------------------------------------------------

/** A GGUF file (version 2 or 3) with every Q4_1 tensor in Q8_0. */
function requantiseToQ8_0(src) {
  const F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8;
  // Bytes per block of 32 values.
  const BLOCK = { [F16]: 64, [Q4_0]: 18, [Q4_1]: 20, [Q5_0]: 22, [Q5_1]: 24, [Q8_0]: 34 };
  const bytesOf = (type, n) => (type === F32 ? 4 * n : (n / 32) * BLOCK[type]);
  if (src.toString('latin1', 0, 4) !== 'GGUF') throw new Error('not a GGUF file');
  let o = 8;
  const u32 = () => ((o += 4), src.readUInt32LE(o - 4));
  const u64 = () => ((o += 8), Number(src.readBigUInt64LE(o - 8)));
  const str = () => {
    const n = u64();
    o += n;
    return src.toString('utf8', o - n, o);
  };
  // Metadata value sizes by type (8 string and 9 array are read).
  const SIZE = [1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8];
  const skip = (type) => {
    if (type === 8) str();
    else if (type === 9) {
      const inner = u32();
      const n = u64();
      for (let i = 0; i < n; i++) skip(inner);
    } else o += SIZE[type];
  };
  const nTensors = u64();
  const nKv = u64();
  let fileType = -1;
  let alignment = 32;
  for (let i = 0; i < nKv; i++) {
    const key = str();
    const type = u32();
    if (key === 'general.file_type') fileType = o;
    if (key === 'general.alignment') alignment = src.readUInt32LE(o);
    skip(type);
  }
  const head = Buffer.from(src.subarray(0, o));
  if (fileType >= 0) head.writeUInt32LE(7, fileType); // LLAMA_FTYPE_MOSTLY_Q8_0
  const tensors = [];
  for (let i = 0; i < nTensors; i++) {
    const name = str();
    const dims = Array.from({ length: u32() }, u64);
    const type = u32();
    const offset = u64();
    if (type !== F32 && !(type in BLOCK)) throw new Error(`${name}: tensor type ${type} is not one this requantiser reads`);
    tensors.push({ name, dims, type, offset, n: dims.reduce((a, b) => a * b, 1) });
  }
  const align = (x) => Math.ceil(x / alignment) * alignment;
  const dataIn = align(o);
  // The new tensor infos and data layout.
  const infos = [];
  let at = 0;
  for (const t of tensors) {
    t.out = t.type === Q4_1 ? Q8_0 : t.type;
    t.at = at;
    at = align(at + bytesOf(t.out, t.n));
    const name = Buffer.from(t.name, 'utf8');
    const info = Buffer.alloc(8 + name.length + 4 + 8 * t.dims.length + 4 + 8);
    let p = info.writeBigUInt64LE(BigInt(name.length), 0);
    p += name.copy(info, p);
    p = info.writeUInt32LE(t.dims.length, p);
    for (const d of t.dims) p = info.writeBigUInt64LE(BigInt(d), p);
    p = info.writeUInt32LE(t.out, p);
    info.writeBigUInt64LE(BigInt(t.at), p);
    infos.push(info);
  }
  const header = Buffer.concat([head, ...infos]);
  const dataOut = align(header.length);
  const out = Buffer.alloc(dataOut + at);
  header.copy(out, 0);
  const x = new Float32Array(32);
  for (const t of tensors) {
    const from = dataIn + t.offset;
    const to = dataOut + t.at;
    if (t.out === t.type) {
      src.copy(out, to, from, from + bytesOf(t.type, t.n));
      continue;
    }
    // Q4_1 block: f16 d, f16 m, 16 bytes of 4-bit q (low nibbles: values
    // 0-15, high: 16-31); x = q * d + m. Q8_0 block: f16 d, 32 int8.
    for (let b = 0; b < t.n / 32; b++) {
      const s = from + b * 20;
      const d = f16ToF32(src.readUInt16LE(s));
      const m = f16ToF32(src.readUInt16LE(s + 2));
      let amax = 0;
      for (let j = 0; j < 16; j++) {
        const q = src[s + 4 + j];
        x[j] = Math.fround((q & 15) * d) + m;
        x[j + 16] = Math.fround((q >> 4) * d) + m;
      }
      for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[j]));
      const d8 = Math.fround(amax / 127);
      const id = d8 ? Math.fround(1 / d8) : 0;
      const q = to + b * 34;
      out.writeUInt16LE(f32ToF16(d8), q);
      for (let j = 0; j < 32; j++) {
        const v = Math.fround(x[j] * id);
        out.writeInt8(Math.sign(v) * Math.floor(Math.abs(v) + 0.5), q + 2 + j); // roundf
      }
    }
  }
  return out;
}

function f16ToF32(h) {
  const e = (h >> 10) & 31;
  const m = h & 1023;
  const v = e === 0 ? m * 2 ** -24 : e === 31 ? (m ? NaN : Infinity) : (1 + m / 1024) * 2 ** (e - 15);
  return h & 0x8000 ? -v : v;
}

/** f32 to f16, rounding to nearest even (ggml's GGML_FP32_TO_FP16). */
function f32ToF16(v) {
  const bits = new Uint32Array(new Float32Array([v]).buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = ((bits >>> 23) & 0xff) - 127 + 15;
  let mant = bits & 0x7fffff;
  if (((bits >>> 23) & 0xff) === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp >= 31) return sign | 0x7c00;
  let shift = 13;
  let base = exp << 10;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    shift = 14 - exp;
    base = 0;
  }
  let r = base + (mant >>> shift);
  const rest = mant & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  if (rest > half || (rest === half && r & 1)) r++; // a carry into the exponent is right
  return sign | r;
}
