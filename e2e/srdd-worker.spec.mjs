// The page's project runner (web/srdd/worker.mjs, as the build serves it)
// gives the verdicts CPython gives: small projects, one per rule of SRDD's
// executability (a traceback, a program still running at 3 s, a GUI one, a
// syntax error, no main.py, a full pipe, sys.exit with text, stderr that is
// not UTF-8), run in a Chromium module worker the way platform/project.rs
// runs them (the worker terminated at 3 s), and in CPython by
// `roundtable srdd-score --runner cpython` on the same folders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, openApp } from './harness.mjs';

const BINARY = ['target/debug/roundtable', 'target/release/roundtable'].find((p) => existsSync(p));
const REQ = 'Write a program that greets the user.\n';
const PROJECTS = {
  done: 'print("hello")\n',
  traceback: 'print("start")\nraise ValueError("boom")\n',
  still_running: 'import time\nprint("tick", flush=True)\nwhile True:\n    time.sleep(0.01)\n',
  gui: 'import tkinter\nroot = tkinter.Tk()\nroot.title("hi")\nroot.mainloop()\n',
  gui_raises: 'import tkinter\nroot = tkinter.Tk()\nroot.nope()\n',
  syntax_error: 'print(\n',
  fills_pipe: 'for i in range(20000):\n    print("Hello, world! line", i)\nraise SystemError("after the pipe filled")\n',
  exit_text: 'import sys\nsys.exit("Goodbye")\n',
  stderr_bytes: 'import os\nos.write(2, b"\\xff\\xfe oops\\n")\n',
  warning: 'import warnings\nwarnings.warn("careful")\nprint("ok")\n',
};

let env;
before(async () => (env = await setup()));
after(async () => env && (await env.close()));

/** Runs each program in a fresh-or-reused module worker as platform/project.rs does; what each gave. */
async function runInPage(page, programs) {
  return page.evaluate(async ({ programs, runMs }) => {
    const { foldOut, newRan } = await import('/srdd/project.mjs');
    let worker = null;
    const start = () =>
      new Promise((ok, fail) => {
        const w = new Worker('/srdd/worker.mjs', { type: 'module' });
        w.onmessage = (e) => (e.data.type === 'ready' ? ok(w) : fail(new Error(e.data.message)));
        w.onerror = (e) => fail(new Error(e.message));
      });
    const out = {};
    let id = 0;
    for (const [name, text] of Object.entries(programs)) {
      worker ??= await start();
      const ran = newRan();
      const mine = ++id;
      const end = await new Promise((done) => {
        const timer = setTimeout(() => done('stopped'), runMs);
        worker.onmessage = (e) => {
          const m = e.data;
          if (m.id !== mine) return;
          if (m.type === 'out') foldOut(ran, m);
          else if (m.type === 'ran' || m.type === 'refused' || m.type === 'fatal') {
            clearTimeout(timer);
            done(m.type === 'ran' ? 'ran' : `${m.type}: ${m.message}`);
          }
        };
        const files = [{ path: 'requirement.txt', text: 'x' }];
        if (text !== null) files.push({ path: 'main.py', text });
        worker.postMessage({ id: mine, op: 'run', files, folder: null });
      });
      if (end === 'stopped') ran.stopped = true;
      else if (end !== 'ran') ran.end = end;
      if (end !== 'ran') {
        worker.terminate();
        worker = null;
      }
      out[name] = { ...ran, executability: ran.traceback || !ran.utf8 ? 0 : 1 };
    }
    worker?.terminate();
    return out;
  }, { programs, runMs: 3000 });
}

test('the page\'s project runner gives CPython\'s verdict on each rule of the metric', { timeout: 300_000 }, async (t) => {
  if (spawnSync('python3', ['--version']).status !== 0) {
    console.error('\n*** SKIPPED: no python3 to compare the page\'s runner with\n');
    return t.skip('no python3');
  }
  assert.ok(BINARY, 'the roundtable binary is built (cargo test builds target/debug/roundtable)');
  const root = mkdtempSync(join(tmpdir(), 'roundtable-srdd-page-'));
  try {
    for (const [name, text] of Object.entries({ ...PROJECTS, no_main: null })) {
      mkdirSync(join(root, name));
      writeFileSync(join(root, name, 'requirement.txt'), REQ);
      if (text !== null) writeFileSync(join(root, name, 'main.py'), text);
      else writeFileSync(join(root, name, 'notes.py'), '# no main here\n');
    }
    const cpython = Object.fromEntries(
      execFileSync(BINARY, ['srdd-score', '--projects', root, '--json', '--runner', 'cpython'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .map((l) => [l.project, l]),
    );
    const page = await openApp(env);
    // The page's run has no notes.py: no_main is main.py absent.
    const programs = { ...PROJECTS, no_main: null };
    const started = Date.now();
    const inPage = await runInPage(page, programs);
    console.log(`the page's runner: ${Object.keys(programs).length} projects in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const differ = [];
    for (const name of Object.keys(programs)) {
      const c = cpython[name];
      const p = inPage[name];
      assert.ok(c && !c.error, `${name}: CPython scored it: ${JSON.stringify(c)}`);
      assert.equal(p.end, undefined, `${name}: ${p.end}`);
      for (const [key, mine] of [['executability', p.executability], ['stopped', p.stopped], ['blocked', p.blocked], ['gui', p.gui]]) {
        if (JSON.stringify(mine) !== JSON.stringify(c[key])) differ.push(`${name} ${key}: page ${JSON.stringify(mine)}, CPython ${JSON.stringify(c[key])}`);
      }
    }
    assert.deepEqual(differ, []);
    // The rules were exercised: each verdict occurs.
    assert.equal(inPage.traceback.executability, 0);
    assert.equal(inPage.stderr_bytes.executability, 0);
    assert.equal(inPage.still_running.stopped, true);
    assert.equal(inPage.fills_pipe.blocked, 'stdout');
    assert.deepEqual(inPage.gui.gui, ['tkinter']);
    assert.match(inPage.exit_text.stderr, /^Goodbye\n?$/);
    assert.match(inPage.no_main.stderr, /can't open file .*main\.py.*\[Errno 2\]/);
    assert.deepEqual(page.errors, []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
