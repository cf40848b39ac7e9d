// The HumanEval execution harness (web/humaneval/): the official verdicts of
// openai/human-eval's check_correctness, computed by CPython in wasm
// (Pyodide) in Node (node-score.mjs, the CLI's runner) and in a Chromium
// module worker (worker.mjs, the app's), with the same Python (check.mjs).
//
//   node --test --test-concurrency=1 e2e/humaneval.test.mjs
//
// - all 164 canonical solutions pass, in Node and in Chromium (times printed);
// - the broken solutions of e2e/fixtures/humaneval-broken.jsonl get their
//   verdicts: `expected_result` is the official one, which native CPython
//   gives through scripts/humaneval-reference.py (checked here when python3
//   is there); `pyodide_result`, where present, is what CPython-in-wasm says
//   instead (same pass/fail; see the row's note); Node and Chromium agree;
// - programs cannot reach the network or storage: a TCP canary on 127.0.0.1
//   sees no connection from any of them, and a worker's global scope has no
//   fetch, indexedDB, caches … even for Python code handed that scope.
// The dataset comes from $ROUNDTABLE_SHARED (default ../shared next to the
// repository); without it those tests are skipped, and say so.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './harness.mjs';
import { copyHumanEval, PYODIDE_FILES } from '../scripts/post-build.mjs';
import { programFor, TIME_LIMIT_MS } from '../web/humaneval/check.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = process.env.ROUNDTABLE_SHARED ?? resolve(repoRoot, '../shared');
const DATASET = join(SHARED, 'datasets/humaneval/HumanEval.jsonl');
const FIXTURE = join(repoRoot, 'e2e/fixtures/humaneval-broken.jsonl');
const NODE_SCORE = join(repoRoot, 'web/humaneval/node-score.mjs');
const REFERENCE = join(repoRoot, 'scripts/humaneval-reference.py');
const LONG = { timeout: 600_000 };

const readJsonl = (path) => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const problems = existsSync(DATASET) ? new Map(readJsonl(DATASET).map((p) => [p.task_id, p])) : null;
const fixture = readJsonl(FIXTURE);
const canonical = () => [...problems.values()].map((p) => programFor(p, p.canonical_solution));
const broken = () => fixture.map((row) => programFor(problems.get(row.task_id), row.completion));
/** What CPython-in-wasm answers for a fixture row. */
const pyodideExpected = (row) => row.pyodide_result ?? row.expected_result;

function skipLoudly(t, why) {
  console.error(`\n*** SKIPPED: ${why}\n`);
  t.skip(why);
}
const noDataset = `the HumanEval dataset is missing: no ${DATASET} (set ROUNDTABLE_SHARED to the folder holding datasets/humaneval/)`;
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

// ------------------------------------------------------------- helpers ---

/** Runs node-score.mjs on these lines; its verdicts, and the times it logs. */
async function nodeScore(lines, { env = {}, args = [] } = {}) {
  const started = performance.now();
  const child = spawn(process.execPath, [NODE_SCORE, ...args], {
    env: { ...process.env, ROUNDTABLE_HUMANEVAL_DEBUG: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(lines.map((l) => `${l}\n`).join(''));
  const code = await new Promise((ok) => child.on('close', ok));
  const stats = stderr.match(/(\d+) ms of it running programs; Pyodide loads \(ms\): ([\d, ]+)/);
  return {
    code,
    stderr,
    out: stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)),
    wallMs: performance.now() - started,
    programMs: stats ? Number(stats[1]) : NaN,
    loads: stats ? stats[2].split(',').map(Number) : [],
  };
}
const asPrograms = (programs) => programs.map((program) => JSON.stringify({ program }));

/** A TCP server on 127.0.0.1 that counts the connections it gets. */
async function startCanary() {
  const canary = { connections: 0 };
  const server = net.createServer((s) => {
    canary.connections++;
    s.destroy();
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  canary.port = server.address().port;
  canary.close = () => new Promise((ok) => server.close(ok));
  // The counter works: one connection of our own.
  await new Promise((ok, fail) => net.connect(canary.port, '127.0.0.1', ok).on('error', fail).on('connect', function () { this.destroy(); }));
  for (let i = 0; i < 100 && canary.connections === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(canary.connections, 1, 'the canary counts connections');
  canary.connections = 0;
  return canary;
}

/**
 * Programs that try every way out we know of: each must fail, say nothing
 * was reached, and connect to nothing. `fatal: true` ones kill the
 * interpreter (the JavaScript they reach throws); the rest fail in Python.
 */
function escapePrograms(port) {
  const url = `http://127.0.0.1:${port}`;
  return [
    { name: 'import js; js.fetch', program: `import js\njs.fetch("${url}/js")` },
    { name: 'pyodide.http.pyfetch', program: `from pyodide.http import pyfetch\npyfetch("${url}/pyfetch")` },
    { name: 'pyodide_js', program: `import pyodide_js\npyodide_js.loadPackage("${url}/pkg.whl")` },
    { name: 'socket', program: `import socket\nsocket.create_connection(("127.0.0.1", ${port}), timeout=1)` },
    { name: 'urllib', program: `import urllib.request\nurllib.request.urlopen("${url}/urllib", timeout=1)` },
    {
      name: 'JavaScript objects found with gc',
      program: [
        'import gc',
        'proxies, errors, reached = [], set(), []',
        'for o in gc.get_objects():',
        '    if type(o).__name__ == "module" and getattr(o, "__name__", "").startswith(("pyodide", "_pyodide")):',
        '        proxies += [v for v in vars(o).values() if type(v).__name__.startswith("Js") or "JsProxy" in type(v).__name__]',
        'for p in proxies:',
        '    for route in (lambda: p.constructor("return globalThis")(), lambda: p.constructor.constructor("return globalThis")()):',
        '        try:',
        '            g = route()',
        '        except BaseException as e:',
        '            errors.add(type(e).__name__ + ": " + str(e)[:60])',
        '            continue',
        '        for name in ("fetch", "indexedDB", "caches", "XMLHttpRequest", "WebSocket", "importScripts", "require", "process"):',
        '            try:',
        '                if getattr(g, name, None) is not None:',
        '                    reached.append(name)',
        '            except BaseException:',
        '                pass',
        'assert not reached, "REACHED " + ", ".join(reached)',
        'raise RuntimeError(f"blocked ({len(proxies)} JavaScript objects found): " + "; ".join(sorted(errors)))',
      ].join('\n'),
    },
    {
      name: 'ctypes → emscripten_run_script',
      fatal: true,
      program: `import ctypes\nctypes.CDLL(None).emscripten_run_script(b"fetch('${url}/ctypes'); import('${url}/ctypes.mjs')")`,
    },
  ];
}

// ------------------------------------------------------ Node: node-score ---

let nodeFixture; // node-score's verdicts on the fixture, for the Chromium test
async function nodeFixtureRun() {
  nodeFixture ??= nodeScore(asPrograms(broken()));
  return nodeFixture;
}

test('Node: every canonical solution passes (node-score.mjs)', LONG, async (t) => {
  if (!problems) return skipLoudly(t, noDataset);
  assert.equal(problems.size, 164);
  const run = await nodeScore(asPrograms(canonical()));
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.out.length, 164);
  const failed = [...problems.keys()].map((id, i) => [id, run.out[i]]).filter(([, o]) => !o.passed).map(([id, o]) => `${id}: ${o.result}`);
  assert.deepEqual(failed, []);
  assert.ok(run.out.every((o) => o.result === 'passed'));
  console.log(
    `Node: 164 canonical solutions in ${seconds(run.programMs)} (Pyodide load ${seconds(run.loads[0])}; whole run ${seconds(run.wallMs)})`,
  );
});

test('the fixture holds the official verdicts (native CPython, scripts/humaneval-reference.py)', LONG, async (t) => {
  if (!problems) return skipLoudly(t, noDataset);
  const version = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0) return skipLoudly(t, 'no python3: the fixture was not checked against the official harness');
  const input = fixture.map((r) => JSON.stringify({ task_id: r.task_id, completion: r.completion })).join('\n') + '\n';
  const started = performance.now();
  const ref = spawnSync('python3', [REFERENCE, '--problems', DATASET], { input, encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(ref.status, 0, ref.stderr);
  const out = ref.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(out.length, fixture.length);
  const wrong = fixture
    .map((row, i) => [row, out[i]])
    .filter(([row, o]) => o.result !== row.expected_result || o.passed !== (row.expected_result === 'passed'))
    .map(([row, o]) => `${row.name}: official harness says ${JSON.stringify(o.result)}, fixture ${JSON.stringify(row.expected_result)}`);
  assert.deepEqual(wrong, [], `expected_result was established with CPython 3.11; this is ${version.stdout.trim()}`);
  console.log(`reference (${version.stdout.trim()}): ${fixture.length} programs in ${seconds(performance.now() - started)}`);
});

test('Node: the broken solutions get their verdicts, and each next program still runs', LONG, async (t) => {
  if (!problems) return skipLoudly(t, noDataset);
  const run = await nodeFixtureRun();
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.out.length, fixture.length);
  const wrong = fixture
    .map((row, i) => [row, run.out[i]])
    .filter(([row, o]) => o.result !== pyodideExpected(row) || o.passed !== (row.expected_result === 'passed'))
    .map(([row, o]) => `${row.name}: got ${JSON.stringify(o)}, want ${JSON.stringify(pyodideExpected(row))}`);
  assert.deepEqual(wrong, []);
  const timedOut = fixture.filter((r) => pyodideExpected(r) === 'timed out').length;
  console.log(
    `Node: ${fixture.length} broken solutions in ${seconds(run.wallMs)}, ${run.loads.length} Pyodide loads ` +
      `(${run.loads.join(', ')} ms; ${timedOut} "timed out", ${fixture.filter((r) => r.pyodide_result).length} answered differently from native CPython)`,
  );
});

test('Node: malformed lines get an error line, in order, and the run goes on', LONG, async () => {
  const run = await nodeScore([
    JSON.stringify({ program: '1' }),
    'garbage',
    '[]',
    JSON.stringify({ program: 5 }),
    '',
    JSON.stringify({ program: 'assert False' }),
    JSON.stringify({ program: 'while True: pass' }),
    JSON.stringify({ program: 'print("x" * 10 ** 8)' }),
  ], { args: ['--timeout-ms', '1500'] });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(
    run.out.map((o) => (o.error !== undefined ? 'error' : o.result)),
    ['passed', 'error', 'error', 'error', 'error', 'failed: ', 'timed out', 'passed'],
  );
});

test('Node: a missing Pyodide is an error, not a verdict', async () => {
  const run = await nodeScore([JSON.stringify({ program: '1' })], { env: { ROUNDTABLE_PYODIDE_DIR: join(tmpdir(), 'no-pyodide-here') } });
  assert.equal(run.code, 2);
  assert.deepEqual(run.out, []);
  assert.match(run.stderr, /could not start the checker/);
});

test('Node: programs reach no network', LONG, async () => {
  const canary = await startCanary();
  try {
    const programs = escapePrograms(canary.port);
    const run = await nodeScore(asPrograms(programs.map((p) => p.program)));
    assert.equal(run.code, 0, run.stderr);
    programs.forEach((p, i) => {
      const o = run.out[i];
      assert.equal(o.passed, false, `${p.name}: ${o.result}`);
      assert.match(o.result, /^failed: /, p.name);
      assert.doesNotMatch(o.result, /REACHED/, p.name);
      if (p.fatal) assert.equal(o.result, 'failed: interpreter died (EvalError: eval is disabled here)', p.name);
    });
    console.log(`Node escape attempts:\n${programs.map((p, i) => `  ${p.name}: ${run.out[i].result.slice(0, 160)}`).join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(canary.connections, 0, 'a program connected to the canary');
  } finally {
    await canary.close();
  }
});

test('Node: even Python code handed the global scope finds no network, process or require', LONG, async () => {
  const canary = await startCanary();
  const url = `http://127.0.0.1:${canary.port}`;
  // A worker thread of our own, locked down as node-score's, with a door
  // node-score's has not: a JavaScript module holding the global scope.
  const source = `
    import { parentPort, workerData } from 'node:worker_threads';
    import { pathToFileURL } from 'node:url';
    const { loadPyodide } = await import(pathToFileURL(workerData.dir + '/pyodide.mjs').href);
    const { makeChecker, lockDown } = await import(pathToFileURL(workerData.check).href);
    for (const k of ['log', 'warn', 'error', 'info']) console[k] = () => {};
    const pyodide = await loadPyodide({ indexURL: workerData.dir + '/' });
    const checker = await makeChecker(pyodide);
    const left = lockDown(pyodide, checker);
    pyodide.registerJsModule('door', { scope: globalThis });
    const results = {};
    for (const [name, program] of Object.entries(workerData.programs)) {
      try { results[name] = (await checker.check(program)).result; }
      catch (e) { results[name] = 'FATAL ' + String(e?.message ?? e).split('\\n')[0]; break; }
    }
    parentPort.postMessage({ left, results });`;
  const programs = {
    fetch: `from door import scope\nscope.fetch("${url}/fetch")`,
    require: `from door import scope\nscope.require("node:child_process").execSync("true")`,
    process: `from door import scope\nscope.process.binding("tcp_wrap")`,
    eval: `from door import scope\nscope.eval("import('node:net')")`,
    Function: `from door import scope\nscope.Function("return import('node:net')")()`,
    'function constructor': `from door import scope\nscope.setTimeout.constructor("return process")()`,
    'setTimeout(string)': `from door import scope\nscope.setTimeout("globalThis.x = 1", 0)`,
    WebSocket: `from door import scope\nscope.WebSocket.new("ws://127.0.0.1:${canary.port}/")`,
    'after all that': '1 + 1',
  };
  try {
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`), {
      workerData: { dir: join(repoRoot, 'node_modules/pyodide'), check: join(repoRoot, 'web/humaneval/check.mjs'), programs },
    });
    const { left, results } = await new Promise((ok, fail) => worker.once('message', ok).once('error', fail));
    await worker.terminate();
    assert.deepEqual(left, []);
    console.log(`Node, through the door:\n${Object.entries(results).map(([k, v]) => `  ${k}: ${v.slice(0, 140)}`).join('\n')}`);
    for (const [name, result] of Object.entries(results)) {
      if (name === 'after all that') assert.equal(result, 'passed');
      else assert.match(result, /^failed: /, `${name}: ${result}`);
    }
    assert.equal(Object.keys(results).length, Object.keys(programs).length, 'a program killed the interpreter');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(canary.connections, 0);
  } finally {
    await canary.close();
  }
});

// ----------------------------------------------------- Chromium: worker ---

// A worker locked down as worker.mjs is, with a door worker.mjs has not:
// Python gets the worker's global scope as a module, and tries what it
// holds. Written next to worker.mjs in the served folder.
const PROBE_WORKER = `
import { loadPyodide } from '../pyodide/pyodide.mjs';
import { lockDown, makeChecker, FORBIDDEN_GLOBALS } from './check.mjs';
const post = self.postMessage.bind(self);
self.onmessage = async ({ data: programs }) => {
  const pyodide = await loadPyodide({ indexURL: new URL('../pyodide/', import.meta.url).href });
  const checker = await makeChecker(pyodide);
  const left = lockDown(pyodide, checker);
  const js = {};
  for (const name of ['fetch', 'indexedDB', 'caches', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'importScripts', 'navigator', 'postMessage', 'Worker']) {
    js[name] = { typeof: typeof self[name], in: name in self };
  }
  js.prototypeChain = [];
  for (let o = self; o; o = Object.getPrototypeOf(o)) {
    js.prototypeChain.push(...FORBIDDEN_GLOBALS.filter((n) => Object.getOwnPropertyDescriptor(o, n)?.get || Object.getOwnPropertyDescriptor(o, n)?.value));
  }
  pyodide.registerJsModule('door', { scope: self });
  const results = {};
  for (const [name, program] of Object.entries(programs)) {
    try { results[name] = (await checker.check(program)).result; }
    catch (e) { results[name] = 'FATAL ' + String(e?.message ?? e).split('\\n')[0]; break; }
  }
  post({ left, js, results });
};
`;

let site; // {url, dir, requests, close}
let browser;

/** Serves a folder laid out as dist/ (humaneval/, pyodide/) on 127.0.0.1, logging every request. */
async function startSite(dir) {
  const TYPES = { '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.zip': 'application/zip' };
  const requests = [];
  const server = http.createServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    requests.push(path);
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>HumanEval</title>');
    const file = normalize(join(dir, decodeURIComponent(path)));
    if (!file.startsWith(dir + '/')) return void res.writeHead(403).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  server.on('upgrade', (req, socket) => {
    requests.push(`UPGRADE ${req.url}`);
    socket.destroy();
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${server.address().port}`, requests, close: () => new Promise((ok) => server.close(ok)) };
}

// The page's side of the worker's contract (worker.mjs): one program at a
// time; no verdict within the time limit → terminate, "timed out", new
// worker; "fatal" → failed with its message, new worker. Runs in the page.
async function scoreInPage({ programs, timeoutMs }) {
  const { fatalResult } = await import('/humaneval/check.mjs');
  const loads = [];
  let worker;
  let ready;
  const start = () => {
    const began = performance.now();
    const w = new Worker('/humaneval/worker.mjs', { type: 'module' });
    worker = w;
    ready = new Promise((ok, fail) => {
      w.onmessage = (e) => {
        if (e.data.type === 'ready') {
          loads.push({ workerMs: e.data.ms, pageMs: Math.round(performance.now() - began) });
          ok();
        } else if (e.data.type === 'fatal') fail(new Error(e.data.message));
      };
      w.onerror = (e) => fail(new Error(e.message || 'the worker did not start'));
    });
  };
  let programMs = 0;
  const times = [];
  const run = async (id, program) => {
    await ready;
    const w = worker;
    const sent = performance.now();
    return new Promise((resolve) => {
      const finish = (verdict, replace) => {
        clearTimeout(timer);
        programMs += performance.now() - sent;
        times.push(Math.round(performance.now() - sent));
        w.onmessage = w.onerror = null;
        if (replace) {
          w.terminate();
          start();
        }
        resolve(verdict);
      };
      const timer = setTimeout(() => finish({ passed: false, result: 'timed out' }, true), timeoutMs);
      w.onmessage = (e) => {
        const m = e.data;
        if (m.type === 'verdict' && m.id === id) finish({ passed: m.passed, result: m.result }, false);
        else if (m.type === 'fatal') finish({ passed: false, result: fatalResult(m.message) }, true);
      };
      w.onerror = (e) => finish({ passed: false, result: fatalResult(e.message || 'worker error') }, true);
      w.postMessage({ id, program });
    });
  };
  start();
  const results = [];
  const began = performance.now();
  for (let i = 0; i < programs.length; i++) results.push(await run(i, programs[i]));
  worker.terminate();
  return { results, loads, times, programMs: Math.round(programMs), totalMs: Math.round(performance.now() - began) };
}

async function newPage() {
  await startChromium();
  const ctx = await browser.newContext();
  // Never let the page reach anything but 127.0.0.1.
  await ctx.route(/^(?!https?:\/\/127\.0\.0\.1[:/]).*/, (route) => route.abort());
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(site.url + '/');
  return page;
}

const chromiumMissing = !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`;

let starting;
/** The served folder and the browser, made when a Chromium test first needs them. */
function startChromium() {
  starting ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roundtable-humaneval-'));
    copyHumanEval(dir); // as the build lays out dist/
    writeFileSync(join(dir, 'humaneval', 'probe-worker.mjs'), PROBE_WORKER);
    site = { ...(await startSite(dir)), dir };
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  })();
  return starting;
}
after(async () => {
  await browser?.close();
  await site?.close();
  if (site) rmSync(site.dir, { recursive: true, force: true });
});

test('Chromium: every canonical solution passes in the module worker', LONG, async (t) => {
  if (chromiumMissing) return skipLoudly(t, chromiumMissing);
  if (!problems) return skipLoudly(t, noDataset);
  const page = await newPage();
  const run = await page.evaluate(scoreInPage, { programs: canonical(), timeoutMs: TIME_LIMIT_MS });
  const failed = run.results.map((r, i) => [i, r]).filter(([, r]) => !r.passed).map(([i, r]) => `HumanEval/${i}: ${r.result}`);
  assert.deepEqual(failed, []);
  assert.equal(run.loads.length, 1);
  assert.deepEqual(page.errors, []);
  console.log(
    `Chromium: 164 canonical solutions in ${seconds(run.programMs)} (Pyodide load ${seconds(run.loads[0].workerMs)} in the worker, ` +
      `${seconds(run.loads[0].pageMs)} from new Worker() to ready)`,
  );
  await page.context().close();
});

test('Chromium: the broken solutions get the same verdicts as in Node', LONG, async (t) => {
  if (chromiumMissing) return skipLoudly(t, chromiumMissing);
  if (!problems) return skipLoudly(t, noDataset);
  const page = await newPage();
  const run = await page.evaluate(scoreInPage, { programs: broken(), timeoutMs: TIME_LIMIT_MS });
  const node = await nodeFixtureRun();
  const wrong = fixture
    .map((row, i) => [row, run.results[i], node.out[i]])
    .filter(([row, b, n]) => b.result !== pyodideExpected(row) || b.result !== n.result || b.passed !== n.passed)
    .map(([row, b, n]) => `${row.name}: Chromium ${JSON.stringify(b.result)}, Node ${JSON.stringify(n.result)}, want ${JSON.stringify(pyodideExpected(row))}`);
  assert.deepEqual(wrong, []);
  const slowest = fixture
    .map((row, i) => [row.name, run.times[i]])
    .filter(([name]) => pyodideExpected(fixture.find((r) => r.name === name)) !== 'timed out')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3);
  console.log(
    `Chromium: ${fixture.length} broken solutions in ${seconds(run.totalMs)}, ${run.loads.length} worker starts ` +
      `(${run.loads.map((l) => l.workerMs).join(', ')} ms); slowest verdicts: ${slowest.map(([n, ms]) => `${n} ${ms} ms`).join(', ')}`,
  );
  await page.context().close();
});

test('Chromium: programs reach no network, and the worker fetches only its own files', LONG, async (t) => {
  if (chromiumMissing) return skipLoudly(t, chromiumMissing);
  const canary = await startCanary();
  try {
    const page = await newPage();
    const programs = escapePrograms(canary.port);
    const run = await page.evaluate(scoreInPage, { programs: programs.map((p) => p.program), timeoutMs: TIME_LIMIT_MS });
    console.log(`Chromium escape attempts:\n${programs.map((p, i) => `  ${p.name}: ${run.results[i].result.slice(0, 160)}`).join('\n')}`);
    programs.forEach((p, i) => {
      const r = run.results[i];
      assert.equal(r.passed, false, `${p.name}: ${r.result}`);
      assert.match(r.result, /^failed: /, p.name);
      assert.doesNotMatch(r.result, /REACHED/, p.name);
      if (p.fatal) assert.equal(r.result, 'failed: interpreter died (EvalError: eval is disabled here)', p.name);
    });
    await page.context().close();
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(canary.connections, 0, 'a program connected to the canary');
    // Everything any page of this file asked the server for.
    const asked = new Set(site.requests);
    const allowed = new Set(['/', '/favicon.ico', '/humaneval/worker.mjs', '/humaneval/check.mjs', '/humaneval/probe-worker.mjs', ...PYODIDE_FILES.map((f) => `/pyodide/${f}`)]);
    assert.deepEqual([...asked].filter((p) => !allowed.has(p)), []);
    assert.deepEqual(PYODIDE_FILES.filter((f) => !asked.has(`/pyodide/${f}`)), [], 'a file the build copies is not needed');
  } finally {
    await canary.close();
  }
});

test('Chromium: Python handed the worker\'s global scope finds no fetch, indexedDB, caches …', LONG, async (t) => {
  if (chromiumMissing) return skipLoudly(t, chromiumMissing);
  const canary = await startCanary();
  const url = `http://127.0.0.1:${canary.port}`;
  const programs = {
    fetch: `from door import scope\nscope.fetch("${url}/fetch")`,
    indexedDB: `from door import scope\nscope.indexedDB.open("db")`,
    caches: `from door import scope\nscope.caches.open("c")`,
    'navigator.storage': `from door import scope\nscope.navigator.storage.getDirectory()`,
    XMLHttpRequest: `from door import scope\nx = scope.XMLHttpRequest.new()\nx.open("GET", "${url}/xhr")\nx.send()`,
    WebSocket: `from door import scope\nscope.WebSocket.new("ws://127.0.0.1:${canary.port}/")`,
    EventSource: `from door import scope\nscope.EventSource.new("${url}/es")`,
    importScripts: `from door import scope\nscope.importScripts("${url}/x.js")`,
    Worker: `from door import scope\nscope.Worker.new("${url}/w.js")`,
    postMessage: `from door import scope\nscope.postMessage("a forged verdict")`,
    eval: `from door import scope\nscope.eval("import('${url}/eval.mjs')")`,
    Function: `from door import scope\nscope.Function("return import('${url}/fn.mjs')")()`,
    'function constructor': `from door import scope\nscope.setTimeout.constructor("return fetch")()`,
    'setTimeout(string)': `from door import scope\nscope.setTimeout("fetch('${url}/timer')", 0)`,
    FontFace: `from door import scope\nscope.FontFace.new("f", "url(${url}/font)").load()`,
    'after all that': '1 + 1',
  };
  try {
    const page = await newPage();
    const got = await page.evaluate(
      (programs) =>
        new Promise((ok, fail) => {
          const w = new Worker('/humaneval/probe-worker.mjs', { type: 'module' });
          w.onmessage = (e) => {
            w.terminate();
            ok(e.data);
          };
          w.onerror = (e) => fail(new Error(e.message));
          w.postMessage(programs);
        }),
      programs,
    );
    await page.waitForTimeout(300); // anything a program set off would have left by now
    await page.context().close();
    console.log(`Chromium, through the door:\n${Object.entries(got.results).map(([k, v]) => `  ${k}: ${v.slice(0, 140)}`).join('\n')}`);
    assert.deepEqual(got.left, []);
    for (const [name, seen] of Object.entries(got.js)) {
      if (name === 'prototypeChain') assert.deepEqual(seen, [], 'still on the global scope or its prototypes');
      else assert.deepEqual(seen, { typeof: 'undefined', in: false }, name);
    }
    assert.equal(Object.keys(got.results).length, Object.keys(programs).length, `a program killed the interpreter: ${JSON.stringify(got.results)}`);
    for (const [name, result] of Object.entries(got.results)) {
      if (name === 'after all that') assert.equal(result, 'passed');
      else assert.match(result, /^failed: /, `${name}: ${result}`);
    }
    assert.equal(canary.connections, 0, 'a program connected to the canary');
  } finally {
    await canary.close();
  }
});
