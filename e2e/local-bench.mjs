// Benchmark of the in-browser model in headless Chromium, through the
// production worker (dist/llm-worker): generated GGUF files with real
// shapes (random weights: the speed is that of a real model of that shape),
// stored into OPFS, loaded, then a prompt read and an answer written.
// Prints load time, prefill and decode tokens per second, the worker's
// wasm size (gzip -9), and what the start page fetches of it (nothing).
//
// With ROUNDTABLE_REAL_MODEL set (make bench sets it), the real model of the
// tests too: SmolLM2-135M-Instruct Q4_1, as a user's file.
//
//   node e2e/local-bench.mjs [shape ...]   shapes: smollm2-135m (default), qwen2.5-0.5b
import { readFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { gzipSync, constants } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startStatic } from './serve-dist.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './harness.mjs';

const TOOL = 'target/llm-worker/debug/tiny-gguf';
const shapes = (process.argv.slice(2).length ? process.argv.slice(2) : ['smollm2-135m', 'qwen2.5-0.5b']).filter((s) => s !== 'none');
if (!existsSync(TOOL)) throw new Error(`${TOOL} is missing: cargo build --manifest-path crates/llm-worker/Cargo.toml --features fixtures --bin tiny-gguf`);
/** Another build of the app than dist/ (ROUNDTABLE_DIST=dir: experiments side by side). */
const DIST = process.env.ROUNDTABLE_DIST || 'dist';
if (!existsSync(`${DIST}/llm-worker/llm_worker_bg.wasm`)) throw new Error(`No worker in ${DIST}/: run \`make build\`.`);

console.log('in-browser model (crates/llm-worker, fetched on first use of "Local model (in this browser)")');
// Two builds; a page fetches one (worker.js picks it).
for (const [build, path] of [['simd128', 'llm-worker'], ['relaxed-simd', 'llm-worker/relaxed']]) {
  const wasm = readFileSync(`${DIST}/${path}/llm_worker_bg.wasm`);
  const gz = gzipSync(wasm, { level: constants.Z_BEST_COMPRESSION }).length;
  console.log(`  worker wasm, ${build} build: ${(wasm.length / 1e6).toFixed(2)} MB raw, ${(gz / 1e6).toFixed(2)} MB gzip -9 (goal <= 1.8: ${gz <= 1.8e6 ? 'met' : 'NOT met'})`);
}

const app = await startStatic({ root: DIST, isolated: false });
// The same app cross-origin isolated: the worker splits each forward pass
// over the machine's cores (up to 4).
const isolatedApp = await startStatic({ root: DIST, isolated: true });
const SETUPS = process.env.BENCH_SETUPS ? process.env.BENCH_SETUPS.split(',') : ['1 worker', 'isolated'];
// The worker build this browser picks (relaxed SIMD in Chromium), and the
// simd128 build every browser can run, forced (quant-bench files only).
const BUILDS = process.env.BENCH_BUILDS ? process.env.BENCH_BUILDS.split(',') : ['picked', 'simd128'];
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
mkdirSync('target/bench-models', { recursive: true });

// The start page fetches nothing of the worker.
{
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const urls = [];
  page.on('request', (r) => urls.push(r.url()));
  await page.goto(app.url + '/');
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForLoadState('networkidle');
  const worker = urls.filter((u) => u.includes('/llm-worker/'));
  console.log(`  start page: ${urls.length} requests, ${worker.length} of them for the model worker (goal 0: ${worker.length === 0 ? 'met' : 'NOT met'})`);
  await ctx.close();
}

// A prompt of about 200 tokens, then up to 64 tokens of answer.
const PROMPT = 'You are the hotel expert of a travel team. Find a hotel in Boston for two nights. '.repeat(12);

const models = shapes.map((shape) => ({ shape, file: `target/bench-models/${shape}.gguf`, kind: 'Q8_0' }));
// Every quantisation the worker reads, in one shape (about 100M parameters,
// widths K-quants take): tok/s compared with Q8_0's, same parameters. F16
// too, though not a quantisation: unpacked to f32, it reads four bytes a
// parameter where Q8_0 reads one, and writing (bound by memory) shows it.
const QUANTS = process.env.BENCH_QUANTS ? process.env.BENCH_QUANTS.split(',') : ['q8_0', 'q4_0', 'q4_1', 'q5_0', 'q5_1', 'q2k', 'q3k', 'q4k', 'q5k', 'q6k', 'f16'];
if (!process.env.BENCH_NO_QUANTS) {
  for (const q of QUANTS) models.push({ shape: 'quant-bench', dtype: q, file: `target/bench-models/quant-bench-${q}.gguf`, kind: q.toUpperCase().replace(/K$/, '_K') });
}
const results = [];
// The largest step shape (constrained decoding): the real model writes once
// free and once held to it, so the bench shows what holding costs in the page.
const LARGEST = existsSync('target/largest-shape.json')
  ? JSON.parse(readFileSync('target/largest-shape.json', 'utf8'))
  : JSON.parse(execFileSync('target/debug/roundtable', ['shapes', '--largest'], { encoding: 'utf8' }));
const real = process.env.ROUNDTABLE_REAL_MODEL;
if (real && existsSync(real)) models.push({ shape: 'real SmolLM2-135M-Instruct', file: real, kind: 'Q4_1', real: true });
else console.log(`  the real model: NOT measured (ROUNDTABLE_REAL_MODEL=${real ?? 'unset'} names no file; make bench sets it)`);

for (const { shape, file, kind, dtype, real: isReal } of models) for (const setup of SETUPS) for (const build of BUILDS) {
  if (build !== 'picked' && shape !== 'quant-bench') continue;
  const script = '/llm-worker/worker.js' + (build === 'picked' ? '' : `?simd=${build}`);
  if (!isReal && !existsSync(file)) execFileSync(TOOL, ['random', file, shape, ...(dtype ? [dtype] : [])]);
  const bytes = statSync(file).size;
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  page.on('crash', () => console.log(`  ${shape}: the page crashed`));
  page.on('console', (m) => process.env.BENCH_DEBUG && console.log('   console:', m.text()));
  await page.goto((setup === 'isolated' ? isolatedApp : app).url + '/');
  await page.waitForSelector('body[data-ready="1"]');
  // The file goes in as the user's would: picked in a file input.
  await page.evaluate(() => {
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'bench-file';
    document.body.appendChild(input);
  });
  await page.locator('#bench-file').setInputFiles(file);
  const r = await page.evaluate(async ({ prompt, script, schema }) => {
    const worker = new Worker(script, { type: 'module' });
    const waiting = new Map();
    let ready;
    let text = '';
    const readyP = new Promise((r) => (ready = r));
    worker.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.type === 'ready') return ready();
      const w = waiting.get(m.id);
      if (m.type === 'delta') text += m.text;
      if (w && ['imported', 'loaded', 'done', 'error', 'models', 'deleted'].includes(m.type)) w(m);
    };
    await readyP;
    let next = 1;
    const ask = (msg, file) =>
      new Promise((res) => {
        const id = next++;
        waiting.set(id, res);
        worker.postMessage({ msg: JSON.stringify({ ...msg, id }), file });
      });
    const blob = document.getElementById('bench-file').files[0];
    const t0 = performance.now();
    const imported = await ask({ type: 'import', file_name: 'bench.gguf' }, blob);
    if (imported.type === 'error') return { error: imported.message };
    const importMs = performance.now() - t0;
    const loaded = await ask({ type: 'load', sha256: imported.model.info.sha256 });
    if (loaded.type === 'error') return { error: loaded.message };
    const turns = [{ role: 'user', content: prompt }];
    const sha256 = imported.model.info.sha256;
    const gen = await ask({ type: 'generate', sha256, turns, params: { max_tokens: 64, seed: 1 } });
    if (gen.type === 'error') return { error: gen.message };
    // The same request held to the largest step shape (its prompt is in the cache).
    let held = null;
    if (schema) {
      const first = text;
      held = await ask({ type: 'generate', sha256, turns: [{ role: 'user', content: prompt }], params: { max_tokens: 64, seed: 1, schema } });
      if (held.type === 'error') return { error: held.message };
      text = first;
    }
    // The same agent's next turn: its prompt extends the last one (prefix cache).
    turns.push({ role: 'assistant', content: text }, { role: 'user', content: 'Now the restaurants for both days.' });
    const turn2 = await ask({ type: 'generate', sha256, turns, params: { max_tokens: 1, seed: 1 } });
    if (turn2.type === "error") return { error: turn2.message };
    await ask({ type: 'delete', sha256: imported.model.info.sha256 });
    worker.terminate();
    return { importMs, loadMs: loaded.ms, gen, held, next: turn2, params: imported.model.info.params, workers: loaded.info.workers, simd: loaded.info.simd };
  }, { prompt: PROMPT, script, schema: isReal ? LARGEST : null });
  await ctx.close();
  if (r.error) {
    console.log(`  ${shape}: ${r.error}`);
    continue;
  }
  const g = r.gen;
  const prefill = (g.prompt_tokens / g.prefill_ms) * 1000;
  const decode = g.output_tokens > 1 ? ((g.output_tokens - 1) / g.decode_ms) * 1000 : NaN;
  console.log(
    `  ${shape}${isReal ? '' : ' shape'} (${(r.params / 1e6).toFixed(0)}M parameters, ${kind}, ${(bytes / 1e6).toFixed(0)} MB, ` +
      `${r.workers} worker${r.workers === 1 ? '' : 's'}${setup === 'isolated' ? ', page isolated' : ''}, ${r.simd} build): ` +
      `copy into OPFS ${(r.importMs / 1000).toFixed(1)} s, load ${(r.loadMs / 1000).toFixed(2)} s, ` +
      `prefill ${g.prompt_tokens} tokens at ${prefill.toFixed(1)} tok/s, ` +
      `decode ${g.output_tokens} tokens at ${decode.toFixed(1)} tok/s`,
  );
  if (g.exchanges) {
    const per = g.exchange_ms / Math.max(1, g.output_tokens - 1);
    console.log(
      `    writing: ${g.exchanges} products exchanged between the workers, ` +
        `${(g.exchange_ms).toFixed(0)} ms handing over and waiting: ${per.toFixed(2)} ms per token ` +
        `(${((1000 * g.exchange_ms) / g.exchanges).toFixed(0)} us per product) of ${(g.decode_ms / Math.max(1, g.output_tokens - 1)).toFixed(2)} ms`,
    );
  }
  results.push({ shape, kind, prefill, decode, workers: r.workers, simd: r.simd });
  if (r.held) {
    const h = r.held;
    const heldDecode = h.output_tokens > 1 ? ((h.output_tokens - 1) / h.decode_ms) * 1000 : NaN;
    const ratio = heldDecode / decode;
    console.log(
      `    held to the largest step shape (constrained decoding, ${h.held ? 'held' : 'NOT held'}): ` +
        `decode ${h.output_tokens} tokens at ${heldDecode.toFixed(1)} tok/s, ${ratio.toFixed(2)}x free ` +
        `(goal: costs <= 10%, >= 0.90x: ${ratio >= 0.9 ? 'met' : 'NOT met'})`,
    );
  }
  const n = r.next;
  console.log(
    `    next turn of the same conversation: ${n.prompt_tokens} prompt tokens, ${n.reused} of them reused from the cache: ` +
      `read in ${(n.prefill_ms / 1000).toFixed(1)} s instead of about ${(n.prompt_tokens / prefill).toFixed(1)} s`,
  );
}
// Each quantisation against Q8_0 in the same shape, setup and build (goal: at least 0.8x).
const quants = results.filter((r) => r.shape === 'quant-bench');
const run = (r) => `${r.workers} worker${r.workers === 1 ? '' : 's'}, ${r.simd} build`;
for (const label of new Set(quants.map(run))) {
  const rows = quants.filter((r) => run(r) === label);
  const base = rows.find((r) => r.kind === 'Q8_0');
  if (!base) continue;
  console.log(`  every quantisation, same shape (quant-bench, ${label}): prefill / decode tok/s, and x Q8_0 (goal >= 0.8x):`);
  for (const r of rows) {
    const p = r.prefill / base.prefill;
    const d = r.decode / base.decode;
    // F16 is not a quantisation: its figures are shown, no goal applies.
    const ok = r.kind === 'F16' ? 'no goal (floats, 4 bytes a parameter)' : p >= 0.8 && d >= 0.8 ? 'met' : 'NOT met';
    console.log(`    ${r.kind.padEnd(5)} prefill ${r.prefill.toFixed(1).padStart(6)} (${p.toFixed(2)}x)  decode ${r.decode.toFixed(1).padStart(6)} (${d.toFixed(2)}x)  ${ok}`);
  }
}
await browser.close();
await app.close();
await isolatedApp.close();
