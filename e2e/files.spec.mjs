// The Files tab: a run's workspace (files its agents wrote, each version
// with its writer) from the run's own events — shown only once the run
// has a file, its tree, a file highlighted, a version's changes, the zip,
// the writes a log from outside is refused, and the same files from a
// share link in a fresh browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { setup, openApp, runTask, waitForStatus, screenshot, shareLink, instantDemo, runFile } from './harness.mjs';

let env;
before(async () => (env = await setup()));
after(async () => env && (await env.close()));

const filesTab = (page) => page.getByRole('tab', { name: /^Files/ });
/** The tree's rows as text, white space aside (a file with versions shows their count). */
const treeRows = async (page) => (await page.locator('.files .file-tree li').allInnerTexts()).map((t) => t.replace(/\s+/g, ''));

/** The files of a zip, read by its central directory (as unzip does). */
function unzip(buf) {
  const end = buf.length - 22;
  assert.equal(buf.readUInt32LE(end), 0x06054b50, 'a zip ends with its directory');
  const out = {};
  let at = buf.readUInt32LE(end + 16);
  for (let n = buf.readUInt16LE(end + 10); n > 0; n--) {
    const method = buf.readUInt16LE(at + 10);
    const size = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.subarray(at + 46, at + 46 + nameLen).toString('utf8');
    const body = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(body, body + size);
    out[name] = (method === 8 ? inflateRawSync(data) : data).toString('utf8');
    at += 46 + nameLen;
  }
  return out;
}

/** The demo's run file with these writes ([path, text, writer = its first agent]) added before its end, dropped on the page as an import. */
async function importWithWrites(page, doc, writes) {
  doc = structuredClone(doc);
  const agent = doc.events.map((e) => e.event.agent_added).find(Boolean).agent;
  const last = doc.events.pop();
  for (const [path, text, who = agent] of writes) doc.events.push({ seq: 0, t_ms: last.t_ms, event: { file_written: { agent: who, path, text } } });
  doc.events.push(last);
  doc.events.forEach((e, i) => (e.seq = i));
  const dt = await page.evaluateHandle((c) => {
    const d = new DataTransfer();
    d.items.add(new File([c], 'files.json', { type: 'application/json' }));
    return d;
  }, JSON.stringify(doc));
  await page.dispatchEvent('body', 'drop', { dataTransfer: dt });
}

test('Run main.py runs the workspace in the page\'s Python as SRDD\'s metric does, and shows what it printed', async () => {
  const page = await openApp(env);
  await instantDemo(page);
  await runTask(page, 'Write me a tiny game.');
  await waitForStatus(page, /Finished/);
  const doc = await runFile(page);
  const files = page.locator('.files');
  const output = files.getByRole('region', { name: 'Run output' });
  const run = async (writes, done = /executable/) => {
    await importWithWrites(page, doc, writes);
    await filesTab(page).waitFor();
    await filesTab(page).click();
    // A new workspace clears the last output.
    await files.locator('.file-tree').waitFor();
    await output.waitFor({ state: 'detached' });
    await files.getByRole('button', { name: 'Run main.py' }).click();
    await output.locator('.run-head').waitFor({ timeout: 90_000 });
    const text = await output.locator('.run-head').innerText();
    assert.match(text, done);
    const notes = await output.locator('.run-notes').innerText();
    return `${text}\n${notes}`;
  };

  const stdout = async () => (await output.locator('pre.run-stdout').innerText()).trim();
  // A helper module beside main.py; output with markup shown as text.
  let text = await run([
    ['util.py', 'def greet(who):\n    return f"hello, <b>{who}</b>"\n'],
    ['main.py', 'import sys\nfrom util import greet\nsys.path.append("/elsewhere")\nprint(greet("board"))\n'],
  ]);
  assert.match(text, /^executable: no traceback on stderr/);
  assert.match(text, /Pyodide [\d.]+ \(CPython 3\.\d+[\d.]*\), in the page · [\d.]+ s, Python's start [\d.]+ s of it/);
  assert.equal(await stdout(), 'hello, <b>board</b>');
  assert.equal(await output.locator('pre.run-stdout b').count(), 0);
  assert.equal(await output.locator('pre.run-stderr').count(), 0);

  // The same interpreter, reset: nothing of the last project is left.
  text = await run([['main.py', 'import sys\nprint("util" in sys.modules, "/elsewhere" in sys.path)\n']]);
  assert.equal(await stdout(), 'False False');
  assert.doesNotMatch(text, /Python's start/, 'the same worker ran it');

  // A traceback: not executable, stderr shown.
  text = await run([['main.py', 'print("start")\nraise ValueError("boom")\n']], /not executable/);
  assert.match(text, /not executable: its stderr has a traceback/);
  assert.match(await output.locator('pre.run-stderr').innerText(), /Traceback \(most recent call last\):[\s\S]*ValueError: boom/);
  assert.equal(await stdout(), 'start');

  // A GUI program: its toolkit served headless, its main loop still
  // running at 3 s, so it is stopped (the worker terminated): executable.
  text = await run([['main.py', 'import tkinter\nroot = tkinter.Tk()\nprint("window up", flush=True)\nroot.mainloop()\n']]);
  assert.match(text, /^executable/);
  assert.match(text, /GUI served headless: tkinter/);
  assert.match(text, /Stopped after 3 s, still running/);
  assert.equal(await stdout(), 'window up');
  await screenshot(page, 'files-run');
  // A fresh worker serves the next run.
  await run([['main.py', 'print(6 * 7)\n']]);
  assert.equal(await stdout(), '42');
  await output.getByRole('button', { name: 'Close the output' }).click();
  await output.waitFor({ state: 'detached' });

  // Leaving the tab while a run is going: it ends unseen, and nothing breaks.
  await importWithWrites(page, doc, [['main.py', 'while True:\n    pass\n']]);
  await filesTab(page).click();
  await files.locator('.code-text', { hasText: 'while True' }).waitFor();
  await files.getByRole('button', { name: 'Run main.py' }).click();
  await page.getByRole('tab', { name: /^Transcript/ }).click();
  await page.waitForTimeout(4000);
  await filesTab(page).click();
  await files.locator('.code-text', { hasText: 'while True' }).waitFor();
  // Shown if the tab kept its state, else gone with it: never half.
  if (await output.count()) {
    assert.match(await output.innerText(), /Stopped after 3 s/);
    await output.getByRole('button', { name: 'Close the output' }).click();
  }
  // The stopped worker was replaced: the next run starts a new one.
  await importWithWrites(page, doc, [['main.py', 'print(1)\n']]);
  await filesTab(page).click();
  await files.locator('.code-text', { hasText: 'print(1)' }).waitFor();
  await files.getByRole('button', { name: 'Run main.py' }).click();
  await output.locator('.run-head').waitFor({ timeout: 90_000 });
  assert.match(await output.locator('.run-head').innerText(), /Python's start/);
  assert.equal(await stdout(), '1');
  assert.deepEqual(page.errors, []);
});

test('the Files tab shows the workspace a run wrote, version by version, and carries it in a share link', async () => {
  const page = await openApp(env);
  await instantDemo(page);
  await runTask(page, 'Write me a tiny game.');
  await waitForStatus(page, /Finished/);
  assert.equal(await filesTab(page).count(), 0, 'no Files tab before a run has files');

  // The run file, with writes added before its end: two versions of
  // main.py by two agents, a file in a folder, one outside the workspace.
  const doc = await runFile(page);
  const v1 = 'def main():\n    print("hello")\n';
  const v2 = 'import random\n\ndef main():\n    print("hello", random.randint(1, 6))  # a die\n';
  await importWithWrites(page, doc, [
    ['main.py', v1],
    ['game/board.py', 'class Board:\n    size = 3\n'],
    ['README.md', '# Tiny game\n<script>alert(1)</script>\n'],
    ['../escape.py', 'print("out")'],
    ['main.py', v2, 'critic'],
  ]);
  await filesTab(page).waitFor();
  await filesTab(page).click();
  const files = page.locator('.files');
  await files.locator('.file-tree').waitFor();
  assert.deepEqual(await treeRows(page), ['game/', 'board.py', 'README.md', 'main.py2']);
  assert.match(await files.locator('.files-toolbar').innerText(), /3 files/);
  // The refused write is named, with why.
  assert.match(await files.locator('.files-refused').innerText(), /\.\.\/escape\.py: a path cannot leave the workspace/);

  // A file shows as text (never as HTML) with its writer.
  await files.getByRole('button', { name: 'README.md' }).click();
  assert.match(await files.locator('.code-text').innerText(), /<script>alert\(1\)<\/script>/);
  assert.equal(await files.locator('.code-text script').count(), 0);

  await files.locator('.file-tree').getByRole('button', { name: /main\.py/ }).click();
  const head = files.locator('.file-head');
  assert.match(await head.innerText(), /main\.py/);
  assert.match(await head.innerText(), /written by critic/);
  assert.deepEqual(await files.locator('.code-text .hl-kw').allInnerTexts(), ['import', 'def']);
  assert.deepEqual(await files.locator('.code-text .hl-com').allInnerTexts(), ['# a die']);
  // The changes since version 1.
  await files.getByLabel('Changes since the version before').check();
  assert.deepEqual(await files.locator('.diff-del').allInnerTexts(), ['−    print("hello")']);
  assert.ok((await files.locator('.diff-add').allInnerTexts()).some((l) => l.includes('random.randint')));
  await screenshot(page, 'files-tab');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'files-tab-phone');
  await page.setViewportSize({ width: 1440, height: 900 });
  // Version 1 has nothing before it.
  await files.getByLabel('Version', { exact: true }).selectOption('0');
  assert.match(await head.innerText(), new RegExp(`written by (?!critic)`));
  assert.ok(await files.getByLabel('Changes since the version before').isDisabled());
  assert.match(await files.locator('.code-text').innerText(), /print\("hello"\)\n?$/);

  // The zip holds every file's latest version.
  const [dl] = await Promise.all([page.waitForEvent('download'), files.getByRole('button', { name: 'Download zip' }).click()]);
  assert.equal(dl.suggestedFilename(), 'workspace.zip');
  const zipped = unzip(readFileSync(await dl.path()));
  assert.deepEqual(Object.keys(zipped).sort(), ['workspace/README.md', 'workspace/game/board.py', 'workspace/main.py']);
  assert.equal(zipped['workspace/main.py'], v2);

  // A share link carries the files to a fresh browser.
  const link = await shareLink(page);
  const fresh = await env.browser.newContext();
  await fresh.route(/^(?!https?:\/\/127\.0\.0\.1[:/]).*/, (route) => route.abort());
  const other = await fresh.newPage();
  other.errors = [];
  other.on('pageerror', (e) => other.errors.push(String(e)));
  await other.goto(link);
  await other.waitForSelector('body[data-ready="1"]');
  await filesTab(other).waitFor();
  await filesTab(other).click();
  await other.locator('.files .file-tree').waitFor();
  assert.deepEqual(await treeRows(other), ['game/', 'board.py', 'README.md', 'main.py2']);
  assert.deepEqual(page.errors, []);
  assert.deepEqual(other.errors, []);
  await fresh.close();
});
