#!/usr/bin/env node
// The CLI's HumanEval runner: the checker of check.mjs (the one the browser
// worker runs) in Pyodide, in a Node worker thread.
//
//   node web/humaneval/node-score.mjs [--timeout-ms 3000] [--stack-mb 1.75] < programs.jsonl
//
// stdin:  one JSON object a line, {"program": "<prompt + completion + \n + test + \n + check(entry_point)>"}
// stdout: one JSON line per input line, in the same order, each written as
//         soon as it is known:
//           {"passed": true|false, "result": "passed" | "timed out" | "failed: …"}
//         or, for a line that is not such an object, {"error": "…"}.
// stderr: diagnostics only (with ROUNDTABLE_HUMANEVAL_DEBUG=1: the workers'
//         console, and a last line with the times and each Pyodide load's).
//         Exit status 0 at the end of the input; 2 if Pyodide cannot be
//         loaded (the lines after the last one written were not scored).
//
// Pyodide is loaded from ../../node_modules/pyodide next to this file, or
// from the folder in ROUNDTABLE_PYODIDE_DIR; nothing is fetched. The
// interpreter is locked down as in the browser (no network, no host access:
// see lockDown in check.mjs) before it runs a program.
//
// The time limit (--timeout-ms, default 3000, the official 3 s) runs from
// when a program is handed to the worker; when it passes, the worker thread
// is terminated, the program's result is "timed out", and a new worker is
// started for the next. A program that kills the interpreter (a JavaScript
// stack overflow through deep recursion in C, os._exit) is "failed: <what
// happened>", and the worker is replaced too.
//
// --stack-mb is the worker's JavaScript stack, which bounds how deep Python
// can recurse through C code (repr, sort keys, functools.lru_cache) before
// the interpreter dies. 1.75 MB makes that depth about the one in a
// Chromium worker (measured: lru_cache recursion 361 levels here, 361–380
// there; repr 390 vs 434–439; sort keys 375 vs 312), so that the CLI's
// verdicts are the app's. Pure Python recursion is not bounded by it.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { createInterface } from 'node:readline';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { realpathSync } from 'node:fs';
import { fatalMessage, fatalResult, lockDown, makeChecker, TIME_LIMIT_MS } from './check.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));

export function pyodideDir(env = process.env) {
  return resolve(env.ROUNDTABLE_PYODIDE_DIR || resolve(HERE, '../../node_modules/pyodide'));
}

// ----------------------------------------------------------- the worker ---

async function workerMain() {
  const quiet = () => {};
  const post = (m) => parentPort.postMessage(m);
  // Pyodide reports a fatal error on the console; the message says it.
  if (!workerData.debug) for (const k of ['log', 'info', 'warn', 'error', 'debug']) console[k] = quiet;
  const started = performance.now();
  let checker;
  try {
    const dir = workerData.pyodideDir;
    const { loadPyodide } = await import(pathToFileURL(`${dir}/pyodide.mjs`).href);
    const pyodide = await loadPyodide({ indexURL: `${dir}/` });
    checker = await makeChecker(pyodide);
    const left = lockDown(pyodide, checker);
    if (left.length) throw new Error(`could not lock the interpreter in: ${left.join(', ')} still reachable`);
  } catch (e) {
    post({ type: 'fatal', id: null, message: `could not start the checker: ${e?.message ?? e}` });
    return;
  }
  let dead = false;
  parentPort.on('message', async ({ id, program }) => {
    if (dead) return;
    try {
      const { passed, result } = await checker.check(program);
      post({ type: 'verdict', id, passed, result });
    } catch (e) {
      dead = true;
      post({ type: 'fatal', id, message: fatalMessage(e) });
    }
  });
  post({ type: 'ready', ms: Math.round(performance.now() - started) });
}

// ------------------------------------------------------- the main thread ---

function parseArgs(argv) {
  const opts = { timeoutMs: TIME_LIMIT_MS, stackMb: 1.75 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${a} needs a positive number`);
      return v;
    };
    if (a === '--timeout-ms') opts.timeoutMs = value();
    else if (a === '--stack-mb') opts.stackMb = value();
    else if (a === '--help' || a === '-h') opts.help = true;
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

/** A line of input as {program} or {error}. */
export function parseLine(line) {
  let value;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return { error: `not JSON: ${e.message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'not a JSON object' };
  if (typeof value.program !== 'string') return { error: 'no "program" string' };
  return { program: value.program };
}

/**
 * One worker thread at a time, replaced when it times out or dies.
 * `run(program)` resolves to {passed, result}; runs must not overlap.
 */
class Runner {
  constructor({ timeoutMs, stackMb, dir, debug }) {
    Object.assign(this, { timeoutMs, stackMb, dir, debug });
    this.loads = []; // ms of each Pyodide load, for the log
    this.programMs = 0; // from handing each program over to its verdict
    this.nextId = 0;
    this.spawn();
  }

  spawn() {
    const worker = new Worker(fileURLToPath(import.meta.url), {
      workerData: { pyodideDir: this.dir, debug: this.debug },
      resourceLimits: { stackSizeMb: this.stackMb },
      stdout: true, // never onto our stdout, which carries the verdicts
      stderr: true,
    });
    worker.stdout.resume();
    if (this.debug) worker.stderr.pipe(process.stderr);
    else worker.stderr.resume();
    this.worker = worker;
    this.isReady = false;
    this.ready = new Promise((ok, fail) => {
      this.onReady = ok;
      this.onLoadFailure = fail;
    });
    this.ready.catch(() => {});
    this.pending = null; // {id, resolve}
    worker.on('message', (m) => this.message(worker, m));
    worker.on('error', (e) => this.died(worker, fatalMessage(e)));
    worker.on('exit', (code) => this.died(worker, `interpreter died (worker exit ${code})`));
  }

  message(worker, m) {
    if (worker !== this.worker) return;
    if (m.type === 'ready') {
      this.loads.push(m.ms);
      this.isReady = true;
      this.onReady();
    } else if (m.type === 'verdict' && this.pending?.id === m.id) {
      this.settle({ passed: m.passed, result: m.result });
    } else if (m.type === 'fatal') {
      this.died(worker, m.message);
    }
  }

  died(worker, message) {
    if (worker !== this.worker) return;
    if (this.pending) this.settle({ passed: false, result: fatalResult(message) }, true);
    else if (this.isReady) this.replace();
    else this.onLoadFailure(new Error(message));
  }

  settle(verdict, replace = false) {
    const { resolve, sentAt } = this.pending;
    this.programMs += performance.now() - sentAt;
    clearTimeout(this.timer);
    this.pending = null;
    if (replace) this.replace();
    resolve(verdict);
  }

  replace() {
    const old = this.worker;
    this.worker = null;
    old.terminate();
    this.spawn();
  }

  async run(program) {
    await this.ready; // throws if Pyodide cannot be loaded
    return new Promise((resolve) => {
      const id = this.nextId++;
      this.pending = { id, resolve, sentAt: performance.now() };
      this.worker.postMessage({ id, program });
      this.timer = setTimeout(() => this.settle({ passed: false, result: 'timed out' }, true), this.timeoutMs);
    });
  }

  close() {
    clearTimeout(this.timer);
    const w = this.worker;
    this.worker = null;
    return w?.terminate();
  }
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`node-score: ${e.message}\n`);
    process.exit(64);
  }
  if (opts.help) {
    process.stdout.write('usage: node-score.mjs [--timeout-ms N] [--stack-mb N] < {"program": …} lines\n');
    return;
  }
  const debug = !!process.env.ROUNDTABLE_HUMANEVAL_DEBUG;
  const runner = new Runner({ ...opts, dir: pyodideDir(), debug });
  process.stdout.on('error', () => process.exit(0)); // the reader went away
  const write = (obj) => new Promise((ok) => process.stdout.write(`${JSON.stringify(obj)}\n`, ok));
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let count = 0;
  const started = performance.now();
  try {
    for await (const line of lines) {
      const item = parseLine(line);
      await write(item.error !== undefined ? { error: item.error } : await runner.run(item.program));
      count++;
    }
  } catch (e) {
    process.stderr.write(`node-score: ${e.message}\n`);
    await runner.close();
    process.exit(2);
  }
  await runner.close();
  if (debug) {
    const ms = Math.round(performance.now() - started);
    const loads = runner.loads.join(', ');
    process.stderr.write(`node-score: ${count} lines in ${ms} ms, ${Math.round(runner.programMs)} ms of it running programs; Pyodide loads (ms): ${loads}\n`);
  }
}

if (isMainThread) {
  if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) await main();
} else if (workerData?.pyodideDir) {
  await workerMain();
}
