// A stored model is the user's: only their Delete removes it (issue 49).
// One browser profile, several tabs of one site, through the real relay
// (so a live class runs on the same origin): a model added in Settings is
// used, other tabs list the store while it loads, History opens the run,
// its share link replays in another tab, a lesson plays, a live class runs
// with a student tab, Settings are saved, a tab opened before the model was
// added changes the theme, a copy is cut off by closing its tab, another
// tab's copy is in progress, the model's record is damaged, and the browser
// removes the files itself. After each, the model's two files in the
// browser's private file storage are byte for byte what they were, or (the
// last two) the page says what happened and how to get the model back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { setup, openApp, screenshot, waitForStatus, shareLink, eventually } from './harness.mjs';
import { startRelay } from './relay.mjs';

const TOOL = 'target/llm-worker/debug/tiny-gguf';
const DIR = 'target/e2e-models';
let env;
let relay;
let files;


before(async () => {
  assert.ok(existsSync(TOOL), `${TOOL} is missing: scripts/test.sh builds it`);
  mkdirSync(DIR, { recursive: true });
  files = { scripted: `${DIR}/store-scripted.gguf` };
  execFileSync(TOOL, ['scripted', files.scripted, '- split adequate', 'Tiny scripted']);
  // A file large enough that its copy can be cut off: the real model when
  // make test fetched it, else one of its shape with random weights.
  const real = process.env.ROUNDTABLE_REAL_MODEL;
  files.large = real && existsSync(real) ? real : `${DIR}/store-large.gguf`;
  if (files.large !== real) execFileSync(TOOL, ['random', files.large, 'smollm2-135m', 'q8_0']);
  env = await setup();
  relay = await startRelay();
});
after(async () => {
  relay?.kill();
  await env?.close();
});

/** The store's files in this profile: name → [size, SHA-256 of the bytes]. */
async function storeFiles(page) {
  return page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('roundtable-models', { create: true });
    const out = {};
    for await (const [name, h] of dir.entries()) {
      const bytes = await (await h.getFile()).arrayBuffer();
      const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
      out[name] = [bytes.byteLength, Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('')];
    }
    return out;
  });
}

async function openSettings(page) {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  return dialog;
}

async function closeSettings(dialog) {
  await dialog.getByRole('button', { name: 'Close settings' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

const storedRows = (dialog) => dialog.getByRole('list', { name: 'Models stored in this browser' }).locator('li');

async function newTab(ctx, path = '/') {
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(relay.url + path);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

test('a stored model is removed only by the user: other tabs, History, share links, lessons, live classes, Settings, a cut-off copy', async () => {
  const ctx = await env.browser.newContext({ viewport: { width: 1440, height: 1000 } });
  await ctx.route(/^(?!https?:\/\/127\.0\.0\.1[:/]).*/, (route) => route.abort());
  // A tab opened before the model is added: its settings are older.
  const stale = await newTab(ctx);
  const page = await openApp({ ...env, app: { url: relay.url } }, { context: ctx });

  const dialog = await openSettings(page);
  await dialog.getByLabel('Provider', { exact: true }).selectOption('local');
  await dialog.locator('#local-file').setInputFiles(files.scripted);
  await dialog.getByText(/^Added store-scripted · F32/).waitFor();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  const kept = await storeFiles(page);
  const names = Object.keys(kept).sort();
  assert.equal(names.length, 2, `a model file and its record: ${names}`);
  const unchanged = async (what) => assert.deepEqual(await storeFiles(page), kept, `the stored model is untouched by ${what}`);
  const header = async () => (await page.locator('.app-header').innerText()).replace(/\s+/g, ' ');
  assert.match(await header(), /store-scripted · F32/);

  // The older tab switches the theme: it writes only the theme, over
  // the settings the other tab saved, which it now follows.
  await stale.getByRole('button', { name: /Switch to (dark|light) theme/ }).click();
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  assert.match(await header(), /store-scripted · F32/, 'the pick survives an older tab saving its theme');
  await eventually(async () => /store-scripted · F32/.test(await stale.locator('.app-header').innerText()));

  // A run on the model; a second tab lists the store while it loads.
  await page.getByLabel('Coordinator').selectOption('mael');
  await page.locator('#ml-size').fill('2');
  await page.locator('#ml-size').press('Tab');
  await page.locator('#ml-learn').uncheck();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const other = await newTab(ctx);
  const otherSettings = await openSettings(other);
  await storedRows(otherSettings).first().waitFor();
  assert.equal(await storedRows(otherSettings).count(), 1);
  await closeSettings(otherSettings);
  await waitForStatus(page, /Finished/, 120000);
  await unchanged('a run and another tab listing the store');

  // History: the run opens from it.
  await page.getByRole('link', { name: 'History' }).click();
  await page.getByRole('heading', { name: 'History' }).waitFor();
  await page.locator('.run-row').first().getByRole('button', { name: 'Open' }).click();
  await page.getByText('From History', { exact: true }).waitFor();
  await unchanged('History');

  // Its share link, in another tab of the same profile.
  const link = await shareLink(page);
  const shared = await newTab(ctx);
  await shared.goto(link);
  await shared.waitForSelector('body[data-ready="1"]');
  await shared.getByText('Shared link', { exact: true }).waitFor();
  await shared.close();
  await unchanged('a share link');

  // A lesson, then a live class with a student in another tab.
  await page.goto(relay.url + '/lessons');
  await page.getByRole('button', { name: /^Start “Who acts next/ }).click();
  const lesson = page.getByRole('region', { name: 'Lesson', exact: true });
  await lesson.waitFor();
    await lesson.getByRole('button', { name: /Next/ }).click();
  await lesson.getByRole('button', { name: 'Teach live' }).click();
  const panel = page.locator('.live-panel.teacher');
  const code = (await panel.locator('.live-code').innerText({ timeout: 15000 })).trim();
  const student = await newTab(ctx, `/join/${code}`);
  await student.getByRole('button', { name: 'Join', exact: true }).click();
  await panel.getByText('1 student connected').waitFor({ timeout: 15000 });
  await panel.getByRole('button', { name: 'Reveal the answer' }).click();
  await panel.getByRole('button', { name: 'End class' }).click();
  await student.locator('.live-panel.student').getByText(/the teacher ended the class/).waitFor();
  await student.close();
  await unchanged('a lesson and a live class');

  // Saving Settings (another field changed) keeps the pick and the files.
  await page.goto(relay.url + '/');
  await page.waitForSelector('body[data-ready="1"]');
  let s = await openSettings(page);
  assert.equal(await s.getByLabel('Provider', { exact: true }).inputValue(), 'local');
  await storedRows(s).first().waitFor();
  assert.equal(await storedRows(s).first().getByRole('radio').isChecked(), true);
  await s.getByRole('button', { name: 'Save' }).click();
  await s.waitFor({ state: 'hidden' });
  assert.match(await header(), /store-scripted · F32/);
  await unchanged('saving Settings');

  // A copy cut off: its tab closes while the file is copied in.
  const cut = await newTab(ctx);
  const cutSettings = await openSettings(cut);
  await cutSettings.getByLabel('Provider', { exact: true }).selectOption('local');
  await storedRows(cutSettings).first().waitFor();
  await cutSettings.locator('#local-file').setInputFiles(files.large);
  await cutSettings.getByText(/Copying into this browser's storage/).waitFor({ timeout: 60000 });
  await cut.close();
  s = await openSettings(page);
  await storedRows(s).first().waitFor();
  assert.equal(await storedRows(s).count(), 1, 'the cut-off copy is not a model');
  const left = s.getByRole('list', { name: 'Leftover files' }).locator('li');
  await left.first().waitFor();
  assert.match(await left.first().innerText(), /A model file without its record/);
  await screenshot(page, 'model-store-leftover');
  const withLeftover = await storeFiles(page);
  for (const n of names) assert.deepEqual(withLeftover[n], kept[n], 'the stored model is untouched by a cut-off copy');
  await left.first().getByRole('button', { name: 'Delete file' }).click();
  await s.getByRole('list', { name: 'Leftover files' }).waitFor({ state: 'detached' });
  await closeSettings(s);
  await unchanged('a cut-off copy and the Delete of its leftover');

  // Another tab's copy in progress (its lock held, its record not yet
  // written): listing leaves it alone and does not call it a leftover.
  await page.evaluate(async () => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('roundtable-models');
    await new Promise((granted) => {
      navigator.locks.request('roundtable-models/copy/mbusy', () => {
        granted();
        return new Promise((release) => (window.releaseCopy = release));
      });
    });
    for (const [name, text] of [['mbusy.gguf', 'GGUF partial'], ['mbusy.json', '']]) {
      const w = await (await dir.getFileHandle(name, { create: true })).createWritable();
      await w.write(text);
      await w.close();
    }
  });
  s = await openSettings(page);
  await storedRows(s).first().waitFor();
  assert.equal(await s.getByTestId('local-leftovers').count(), 0, 'a copy in progress is not a leftover');
  await closeSettings(s);
  const busy = await storeFiles(page);
  assert.ok(busy['mbusy.gguf'] && busy['mbusy.json'], 'listing never removes a copy in progress');
  // Its tab closes (the lock is let go): now a leftover, still there until deleted.
  await page.evaluate(() => window.releaseCopy());
  s = await openSettings(page);
  await s.getByRole('list', { name: 'Leftover files' }).locator('li').first().waitFor();
  assert.match(await s.getByTestId('local-leftovers').innerText(), /A model file whose record cannot be read/);
  await s.getByRole('list', { name: 'Leftover files' }).getByRole('button', { name: 'Delete file' }).click();
  await s.getByRole('list', { name: 'Leftover files' }).waitFor({ state: 'detached' });
  await closeSettings(s);
  await unchanged('another tab\'s copy');

  // The model's record damaged (a version that wrote it otherwise, a
  // crash): the file stays, and "Check and keep" makes the model whole.
  const record = names.find((n) => n.endsWith('.json'));
  await page.evaluate(async (name) => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('roundtable-models');
    const w = await (await dir.getFileHandle(name)).createWritable();
    await w.write('{"info": {"workers": "two"}}');
    await w.close();
  }, record);
  s = await openSettings(page);
  const damaged = s.getByRole('list', { name: 'Leftover files' }).locator('li');
  await damaged.first().waitFor();
  assert.match(await damaged.first().innerText(), /record cannot be read/);
  assert.match(await s.getByTestId('local-missing').first().innerText(), /may be one of the leftover files below/, 'not called removed: it may be the damaged file');
  assert.ok((await storeFiles(page))[names.find((n) => n.endsWith('.gguf'))], 'the model file stays');
  await screenshot(page, 'model-store-damaged');
  await damaged.first().getByRole('button', { name: 'Check and keep' }).click();
  await storedRows(s).first().waitFor();
  assert.equal(await storedRows(s).first().getByRole('radio').isChecked(), true, 'the pick holds again');
  assert.equal(await s.getByTestId('local-leftovers').count(), 0);
  await closeSettings(s);
  assert.deepEqual(Object.keys(await storeFiles(page)).sort(), names);

  // The browser removes the files itself (site data cleared, eviction):
  // Settings says so, keeps the pick, and the same file makes it whole.
  await page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    await root.removeEntry('roundtable-models', { recursive: true });
  });
  s = await openSettings(page);
  const missing = s.getByTestId('local-missing');
  await missing.first().waitFor();
  assert.match(await missing.first().innerText(), /store-scripted · F32 · 2\.1 MB \(picked\) is no longer stored in this browser\. The browser removed it/s);
  assert.match(await missing.first().innerText(), /store-scripted\.gguf again/);
  assert.match(await header(), /store-scripted · F32/, 'the pick is kept');
  await screenshot(page, 'model-store-missing');
  await s.locator('#local-file').setInputFiles(files.scripted);
  await storedRows(s).first().waitFor();
  assert.equal(await storedRows(s).first().getByRole('radio').isChecked(), true);
  assert.equal(await s.getByTestId('local-missing').count(), 0);

  // The user's Delete: gone, and nothing is said to be missing.
  await s.getByRole('button', { name: /^Delete store-scripted · F32/ }).click();
  await s.getByTestId('local-empty').waitFor();
  assert.equal(await s.getByTestId('local-missing').count(), 0);
  assert.deepEqual(await storeFiles(page), {});
  for (const p of [page, stale, other]) assert.deepEqual(p.errors, []);
  await ctx.close();
});
