#!/usr/bin/env node
// The CLI's project runner when python3 is absent: project.mjs (the code the
// page's worker runs) in Pyodide, in a Node worker thread.
//
//   node web/srdd/node-run.mjs [--timeout-ms 3000] < projects.jsonl
//
// stdin:  one JSON object a line, {"files": [{"path", "text"}], "folder": "<run folder>" | null}
// stdout: one JSON line per input line, in order:
//           {"scale": {files, lines, tokens, functions, complexity, unparsed},
//            "ran": null (folder null: nothing to run) |
//                   {"stdout", "stderr", "traceback", "utf8", "stopped", "gui", "blocked", "died"}}
//         (blocked: "stdout" or "stderr" when a full pipe held the program until it was stopped)
//         or {"error": "…"} for a line that is not such an object.
// Exit status 0 at the end of the input; 2 if Pyodide cannot be loaded.
//
// main.py runs until it ends or --timeout-ms (default 3000, the official 3 s)
// has passed since it was handed over; then the worker thread is terminated
// (stopped: true: what the program wrote until then is kept) and a new one
// serves the next line. A program that kills the interpreter (a JavaScript
// stack overflow from deep recursion) is reported with died: the message, and
// traceback: true — CPython raises RecursionError there, with a traceback.
// Pyodide comes from ../../node_modules/pyodide, or ROUNDTABLE_PYODIDE_DIR.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { createInterface } from 'node:readline';
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fatalMessage, lockDown } from '../humaneval/check.mjs';
import { foldOut, newRan, RUN_MS, serveProjects } from './project.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));

async function workerMain() {
  const post = (m) => parentPort.postMessage(m);
  for (const k of ['log', 'info', 'warn', 'error', 'debug']) console[k] = () => {};
  const started = performance.now();
  try {
    const dir = workerData.pyodideDir;
    const { loadPyodide } = await import(pathToFileURL(`${dir}/pyodide.mjs`).href);
    const pyodide = await loadPyodide({ indexURL: `${dir}/` });
    const standins = readFileSync(resolve(HERE, 'gui_standins.py'), 'utf8');
    const metrics = readFileSync(resolve(HERE, 'metrics.py'), 'utf8');
    const serve = serveProjects({ pyodide, standins, metrics, post, lockDown, fatalMessage });
    parentPort.on('message', serve);
  } catch (e) {
    post({ type: 'fatal', id: null, message: `could not start Python: ${e?.message ?? e}` });
    return;
  }
  post({ type: 'ready', ms: Math.round(performance.now() - started) });
}

/** A line of input as {files, folder} or {error}. */
export function parseLine(line) {
  let v;
  try {
    v = JSON.parse(line);
  } catch (e) {
    return { error: `not JSON: ${e.message}` };
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { error: 'not a JSON object' };
  if (!Array.isArray(v.files)) return { error: 'no "files" list' };
  if (v.folder !== null && v.folder !== undefined && typeof v.folder !== 'string') return { error: '"folder" must be a string or null' };
  return { files: v.files, folder: v.folder ?? null };
}

/** How long measuring a project's code may take (it runs no program; as platform/project.rs). */
const MEASURE_MS = 30_000;

/** One worker thread at a time, replaced when a run is stopped or dies. */
class Host {
  constructor({ timeoutMs, dir }) {
    Object.assign(this, { timeoutMs, dir, nextId: 0 });
    this.spawn();
  }

  spawn() {
    const worker = new Worker(fileURLToPath(import.meta.url), {
      workerData: { pyodideDir: this.dir },
      resourceLimits: { stackSizeMb: 1.75 }, // as node-score.mjs: a Chromium worker's depth
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    this.worker = worker;
    this.listener = null;
    this.ready = new Promise((ok, fail) => {
      this.onReady = ok;
      this.onFail = fail;
    });
    this.ready.catch(() => {});
    worker.on('message', (m) => {
      if (worker !== this.worker) return;
      if (m.type === 'ready') this.onReady();
      else if (m.type === 'fatal' && m.id === null) this.onFail(new Error(m.message));
      else this.listener?.(m);
    });
    const gone = (message) => {
      if (worker !== this.worker) return;
      this.onFail(new Error(message));
      this.listener?.({ type: 'fatal', id: this.pendingId, message });
    };
    worker.on('error', (e) => gone(fatalMessage(e)));
    worker.on('exit', (code) => gone(`interpreter died (worker exit ${code})`));
  }

  replace() {
    const old = this.worker;
    this.worker = null;
    old.terminate();
    this.spawn();
  }

  /** Sends one message; `on(m)` sees the worker's messages for it until it returns true. */
  async ask(message, on, timeoutMs = null) {
    await this.ready;
    const id = this.nextId++;
    this.pendingId = id;
    return new Promise((done) => {
      let timer = null;
      const finish = (value) => {
        clearTimeout(timer);
        this.listener = null;
        done(value);
      };
      this.listener = (m) => {
        if (m.id !== id) return;
        const out = on(m);
        if (out !== undefined) finish(out);
      };
      if (timeoutMs) timer = setTimeout(() => finish('stopped'), timeoutMs);
      this.worker.postMessage({ ...message, id });
    });
  }

  async measure(files) {
    const got = await this.ask(
      { op: 'measure', files },
      (m) => {
        if (m.type === 'measured') return { scale: m.scale };
        if (m.type === 'refused') return { error: m.message };
        if (m.type === 'fatal') return { error: `Python died measuring the code: ${m.message}`, died: true };
      },
      MEASURE_MS,
    );
    if (got === 'stopped') {
      this.replace();
      return { error: `measuring the code took over ${MEASURE_MS / 1000} s` };
    }
    if (got.died) this.replace();
    return got;
  }

  async run(files, folder) {
    const ran = newRan();
    const got = await this.ask(
      { op: 'run', files, folder },
      (m) => {
        if (m.type === 'out') return foldOut(ran, m);
        if (m.type === 'ran') return 'ran';
        if (m.type === 'refused') return { error: m.message };
        if (m.type === 'fatal') {
          ran.died = m.message;
          ran.traceback = true;
          return 'died';
        }
      },
      this.timeoutMs,
    );
    if (got?.error) return got;
    // The worker marks a traceback as it is written; stderr is read for one too, as the script reads it.
    if (ran.stderr.toLowerCase().includes('traceback')) ran.traceback = true;
    if (got === 'stopped') ran.stopped = true;
    if (got !== 'ran') this.replace();
    return { ran };
  }

  close() {
    const w = this.worker;
    this.worker = null;
    return w?.terminate();
  }
}

async function main() {
  const args = process.argv.slice(2);
  let timeoutMs = RUN_MS;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--timeout-ms' && Number(args[i + 1]) > 0) timeoutMs = Number(args[++i]);
    else {
      process.stderr.write(`node-run: unknown argument ${args[i]}\nusage: node-run.mjs [--timeout-ms N] < {"files", "folder"} lines\n`);
      process.exit(64);
    }
  }
  const dir = resolve(process.env.ROUNDTABLE_PYODIDE_DIR || resolve(HERE, '../../node_modules/pyodide'));
  const host = new Host({ timeoutMs, dir });
  process.stdout.on('error', () => process.exit(0));
  const write = (obj) => new Promise((ok) => process.stdout.write(`${JSON.stringify(obj)}\n`, ok));
  try {
    for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
      const item = parseLine(line);
      if (item.error) {
        await write({ error: item.error });
        continue;
      }
      const measured = await host.measure(item.files);
      if (measured.error) {
        await write({ error: measured.error });
        continue;
      }
      const ran = item.folder === null ? { ran: null } : await host.run(item.files, item.folder);
      await write(ran.error ? { error: ran.error } : { scale: measured.scale, ran: ran.ran });
    }
  } catch (e) {
    process.stderr.write(`node-run: ${e.message}\n`);
    await host.close();
    process.exit(2);
  }
  await host.close();
}

if (isMainThread) {
  if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) await main();
} else if (workerData?.pyodideDir) {
  await workerMain();
}
