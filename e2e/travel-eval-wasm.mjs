// `make bench`: the TravelPlanner evaluator in headless Chromium
// (tests/travel_eval_wasm.rs, wasm in release as the app is built). The
// shared data (../shared/travelplanner, or $ROUNDTABLE_SHARED) goes to the
// test as one JSON bundle served on 127.0.0.1; without the data this prints
// SKIPPED loudly and records no figure.
import http from 'node:http';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { recordFigure } from './bench-figures.mjs';

const dir = join(process.env.ROUNDTABLE_SHARED || '../shared', 'travelplanner');
if (!existsSync(join(dir, 'eval_cases_public.jsonl'))) {
  console.log(`\n!!! SKIPPED the TravelPlanner evaluation in Chromium: ${dir}/eval_cases_public.jsonl not found (set ROUNDTABLE_SHARED)\n`);
  recordFigure('travel_eval_wasm', { skipped: `${dir} not found` });
  process.exit(0);
}
const walk = (d) => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
const files = walk(join(dir, 'database')).filter((f) => /\.(csv|txt)$/.test(f)).sort().map((f) => [relative(dir, f), readFileSync(f, 'utf8')]);
const body = JSON.stringify({
  files,
  queries: readFileSync(join(dir, 'train_queries.jsonl'), 'utf8'),
  cases: readFileSync(join(dir, 'eval_cases_public.jsonl'), 'utf8'),
});
const server = http.createServer((_, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
  res.end(body);
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${server.address().port}/travelplanner.json`;

const child = spawn('cargo', ['test', '--release', '--locked', '--target', 'wasm32-unknown-unknown', '--test', 'travel_eval_wasm', '--', '--nocapture'], {
  env: { ...process.env, ROUNDTABLE_TRAVEL_BUNDLE_URL: url, CHROMEDRIVER: '/usr/bin/chromedriver', WASM_BINDGEN_TEST_TIMEOUT: '300' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout.on('data', (d) => {
  out += d;
  process.stdout.write(d);
});
const code = await new Promise((ok) => child.on('close', ok));
server.close();
const m = out.match(/BENCH travel_eval_wasm plans_per_s=([\d.]+) cases=(\d+)/);
if (code !== 0 || !m) {
  console.error(`the TravelPlanner evaluation in Chromium failed (exit ${code})`);
  process.exit(1);
}
recordFigure('travel_eval_wasm', { plans_per_s: Number(m[1]), cases: Number(m[2]), verdicts_identical: true });
