// `make bench` (scripts/llama-bench.sh): the CLI's engine (gguf-speed) and
// native llama.cpp (llama-bench) on the same files and thread counts,
// interleaved (ours, theirs, ours, theirs: a busy moment hits both), the
// best of each kept. Prompt reading over the same number of tokens;
// writing measured after that prompt (llama-bench's --n-depth). Prints a
// table of tokens per second and ours / llama.cpp.
//
//   node e2e/native-bench.mjs LLAMA_BENCH GGUF_SPEED MODEL.gguf...
import { execFileSync } from 'node:child_process';
import { basename } from 'node:path';

const [llama, ours, ...models] = process.argv.slice(2);
if (!llama || !ours || models.length === 0) {
  console.error('usage: node e2e/native-bench.mjs LLAMA_BENCH GGUF_SPEED MODEL.gguf...');
  process.exit(2);
}
const ROUNDS = 2;
const THREADS = [1, 2];

const run = (bin, args) =>
  execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 24 });

function oursOnce(model, threads) {
  const line = run(ours, ['--threads', String(threads), model, '200', '64']).split('\n')[0];
  const r = JSON.parse(line);
  return { prompt: r.prompt_tokens, prefill: r.prefill_tok_s, decode: r.decode_tok_s, kernels: r.kernels };
}

function llamaOnce(model, threads, prompt) {
  const common = ['-m', model, '-t', String(threads), '--repack', '0', '-r', '1', '-o', 'json'];
  const pp = JSON.parse(run(llama, [...common, '-p', String(prompt), '-n', '0']));
  const tg = JSON.parse(run(llama, [...common, '-p', '0', '-n', '64', '-d', String(prompt)]));
  return { prefill: pp[0].avg_ts, decode: tg[0].avg_ts };
}

const rows = [];
for (const model of models) {
  for (const threads of THREADS) {
    let best = null;
    let theirs = null;
    for (let i = 0; i < ROUNDS; i++) {
      const o = oursOnce(model, threads);
      const l = llamaOnce(model, threads, o.prompt);
      best = best ? { ...o, prefill: Math.max(best.prefill, o.prefill), decode: Math.max(best.decode, o.decode) } : o;
      theirs = theirs
        ? { prefill: Math.max(theirs.prefill, l.prefill), decode: Math.max(theirs.decode, l.decode) }
        : l;
    }
    rows.push({ model: basename(model), threads, ours: best, theirs });
    console.error(`  measured ${basename(model)} on ${threads} thread(s)`);
  }
}

const f = (x) => x.toFixed(1).padStart(7);
const r = (x) => `${x.toFixed(2)}×`.padStart(7);
console.log('\nthe CLI engine beside native llama.cpp (tokens per second; best of 2 interleaved runs each)');
console.log(
  'model                                  thr  prompt  read: ours  llama.cpp  ratio   write: ours  llama.cpp  ratio'
);
for (const { model, threads, ours: o, theirs: t } of rows) {
  console.log(
    `${model.padEnd(38)} ${String(threads).padStart(3)}  ${String(o.prompt).padStart(6)}  ` +
      `${f(o.prefill)}    ${f(t.prefill)} ${r(o.prefill / t.prefill)}     ${f(o.decode)}    ${f(t.decode)} ${r(o.decode / t.decode)}`
  );
}
console.log(`(our kernels: ${rows[0]?.ours.kernels ?? '?'})`);
console.log(
  JSON.stringify({
    native_vs_llama_cpp: rows.map(({ model, threads, ours: o, theirs: t }) => ({
      model,
      threads,
      prefill_ratio: +(o.prefill / t.prefill).toFixed(3),
      decode_ratio: +(o.decode / t.decode).toFixed(3),
    })),
  })
);
