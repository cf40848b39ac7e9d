// Runs as documents: History (persisted as the run grows, survives reload,
// interrupted runs), share links that replay anywhere, replay controls,
// fork, exports without secrets, import, and bad stored or shared data.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { setup, openApp, configure, runTask, waitForStatus, eventually, screenshot, shareLink } from './harness.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 20 })));
after(async () => env && (await env.close()));
beforeEach(() => env.mock.reset());

const transcript = (page) => page.getByRole('log', { name: 'Transcript' });
const KEY = 'sk-export-secret-4242';

async function finalState(page) {
  await transcript(page).locator('.entry').first().waitFor();
  return {
    transcript: await transcript(page).innerText(),
    usage: await page.getByTestId('usage-summary').innerText(),
    events: await page.getByRole('tab', { name: /Events/ }).innerText(),
    graph: await page.locator('g.node').evaluateAll((ns) => ns.map((n) => `${n.dataset.agent}:${n.dataset.status}`)),
  };
}

async function openHistory(page) {
  await page.getByRole('link', { name: 'History' }).click();
  await page.getByRole('heading', { name: 'History' }).waitFor();
}

test('a share link replays the run in a fresh browser with no key and no history', async () => {
  const page = await openApp(env);
  await runTask(page, 'Share me: what is 9 * 9?');
  await waitForStatus(page, /Finished/);
  const original = await finalState(page);
  const url = await shareLink(page);
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/#run=5\.[A-Za-z0-9_-]+$/);

  const fresh = await env.browser.newContext();
  const other = await fresh.newPage();
  await other.goto(url);
  await other.waitForSelector('body[data-ready="1"]');
  await other.getByText('Shared link', { exact: true }).waitFor();
  assert.deepEqual(await finalState(other), original, 'same final state');
  assert.equal(await other.evaluate(() => localStorage.length), 0, 'no settings or key needed');
  // Not in this browser's History until saved.
  await other.getByRole('button', { name: 'Save to History' }).click();
  await other.getByRole('button', { name: 'Save to History' }).waitFor({ state: 'hidden' });
  await openHistory(other);
  assert.equal(await other.locator('.run-row').count(), 1);
  await screenshot(other, 'history');
  await fresh.close();
});

test('corrupted and oversized links give clear errors and the app stays usable', async () => {
  const page = await openApp(env);
  await runTask(page, 'A run to damage.');
  await waitForStatus(page, /Finished/);
  const url = await shareLink(page);
  const ctx = await env.browser.newContext();
  const p = await ctx.newPage();
  await p.goto(url.slice(0, url.length - 25) + 'xx');
  await p.waitForSelector('body[data-ready="1"]');
  await p.getByRole('alert').filter({ hasText: /damaged or incomplete/ }).waitFor();
  // Longer than the 2 MB cap (browsers refuse to navigate to such URLs, but a page can set it).
  await p.evaluate((h) => (location.hash = h), '#run=3.' + 'A'.repeat(3 * 1024 * 1024));
  await p.getByRole('alert').filter({ hasText: /too large to open safely \(\d+ KB of data\)/ }).waitFor();
  // A small link that would expand past 32 MB (a decompression bomb).
  const bomb = deflateRawSync(Buffer.alloc(40 * 1024 * 1024, 32)).toString('base64url');
  assert.ok(bomb.length < 200_000);
  await p.goto(env.app.url + '/#run=1.' + bomb);
  await p.getByRole('alert').filter({ hasText: /expands beyond 32 MB/ }).waitFor();
  await p.goto(env.app.url + '/#run=7.abc');
  await p.getByRole('alert').filter({ hasText: /different version of Roundtable/ }).waitFor();
  // Still usable.
  await runTask(p, 'Still works?');
  await waitForStatus(p, /Finished/);
  await ctx.close();
});

test('a link over the size limit is not offered; the run file is', async () => {
  const page = await openApp(env);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByLabel('Share link limit (KB)').fill('1');
  await page.getByRole('button', { name: 'Save' }).click();
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'k' });
  // Incompressible text makes the link longer than 1 KB for sure.
  const noise = Array.from({ length: 600 }, (_, i) => ((i * 2654435761) >>> 0).toString(36)).join(' ');
  env.mock.script([{ text: noise, chunkSize: 400, chunkDelayMs: 1 }]);
  await runTask(page, 'Say a lot.');
  await waitForStatus(page, /Finished/);
  await page.getByRole('button', { name: 'Copy share link' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share this run' });
  await dialog.getByRole('alert').filter({ hasText: /longer than the 1 KB that can be shared comfortably/ }).waitFor();
  assert.equal(await dialog.getByRole('textbox', { name: 'Share link' }).count(), 0);
  const [dl] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download run file' }).click()]);
  const doc = JSON.parse(readFileSync(await dl.path(), 'utf8'));
  assert.equal(doc.format, 'roundtable.run');
  assert.ok(doc.events.length > 10);
});

test('replay controls move every view to the cursor', async () => {
  const page = await openApp(env);
  await runTask(page, 'Replay me slowly.');
  await waitForStatus(page, /Finished/);
  const full = await transcript(page).innerText();
  const position = page.getByTestId('replay-position');
  const total = Number((await position.innerText()).match(/\/ (\d+)/)[1]);
  // Scrub to the start: nothing has happened yet.
  const box = await page.getByRole('slider', { name: 'Timeline' }).boundingBox();
  await page.mouse.click(box.x + 1, box.y + box.height / 2);
  await eventually(async () => Number((await position.innerText()).match(/event (\d+)/)[1]) <= 5);
  assert.ok(!(await transcript(page).innerText()).includes('Offline demo answer'));
  // Next LLM call: the request is shown, the agent is thinking.
  await page.locator('body').click({ position: { x: 5, y: 500 } });
  await page.keyboard.press('Shift+ArrowRight');
  assert.equal(await page.locator('g.node').getAttribute('data-status'), 'thinking');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.locator('g.node').getAttribute('data-status'), 'speaking');
  const partial = await page.locator('article.msg[data-call]').innerText();
  assert.ok(partial.length < full.length);
  // Step back one event.
  const before = Number((await position.innerText()).match(/event (\d+)/)[1]);
  await page.getByRole('button', { name: 'Step back' }).click();
  assert.equal(Number((await position.innerText()).match(/event (\d+)/)[1]), before - 1);
  // Space plays to the end at 8×.
  await page.getByRole('combobox', { name: 'Replay speed' }).selectOption('8');
  await page.locator('body').click({ position: { x: 5, y: 500 } });
  await page.keyboard.press('Space');
  await eventually(async () => (await position.innerText()).startsWith(`event ${total} / ${total}`), { timeout: 15000 });
  assert.equal(await transcript(page).innerText(), full);
  await screenshot(page, 'replay');
});

test('reload in the middle of a run: History shows it interrupted with its events; Continue resumes it', async () => {
  const page = await openApp(env);
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'k' });
  env.mock.script([{ text: 'word '.repeat(200), chunkSize: 5, chunkDelayMs: 60 }]);
  await runTask(page, 'A long run that will be cut off.');
  await eventually(async () => (await page.locator('article.msg[data-call]').innerText().catch(() => '')).includes('word word word'));
  await page.waitForTimeout(700); // let the recorder write a chunk
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await openHistory(page);
  const row = page.locator('.run-row').first();
  let status;
  await eventually(async () => (status = await row.getAttribute('data-status')) === 'interrupted', { timeout: 15000 }).catch(
    async (e) => {
      throw new Error(`${e.message}; the row says "${status}": ${await row.innerText()}`);
    },
  );
  const facts = await row.innerText();
  const n = Number(facts.match(/(\d+) events/)[1]);
  assert.ok(n >= 6, `events up to the reload were kept (${n})`);
  await row.getByRole('button', { name: 'Open' }).click();
  await page.getByText('From History', { exact: true }).waitFor();
  await transcript(page).locator('.entry').first().waitFor();
  assert.match(await transcript(page).innerText(), /word word word/);
  // Continue = fork from the last completed call (none here), live.
  await openHistory(page);
  env.mock.script([{ text: 'Resumed and finished.' }]);
  await page.locator('.run-row[data-status="interrupted"]').getByRole('button', { name: 'Continue' }).click();
  await waitForStatus(page, /Finished/);
  assert.match(await transcript(page).innerText(), /Resumed and finished\./);
  assert.match(await page.locator('.run-toolbar').innerText(), /Forked from/);
});

test('fork at a call with an edited answer continues and records its lineage', async () => {
  const page = await openApp(env);
  await runTask(page, 'Fork me.');
  await waitForStatus(page, /Finished/);
  await page.locator('article.msg[data-call]').hover();
  await page.getByRole('button', { name: 'Fork here' }).click();
  const dialog = page.getByRole('dialog', { name: /Fork at call 1/ });
  await dialog.getByLabel('Use my edited answer').check();
  await dialog.getByLabel('Answer', { exact: true }).fill('An answer **edited** by the user.');
  await dialog.getByRole('button', { name: 'Fork and continue' }).click();
  await waitForStatus(page, /Finished/);
  assert.match(await transcript(page).innerText(), /An answer edited by the user\./);
  assert.match(await page.getByTestId('usage-summary').innerText(), /\$0/);
  assert.match(await page.locator('.usage-panel').innerText(), /1 call answered from the parent run's log/);
  await openHistory(page);
  await page.locator('.lineage').filter({ hasText: /fork of “Fork me\.” at call 1/ }).waitFor();
});

test('exports carry no secrets; a run file imports by picker and by drag-and-drop', async () => {
  const page = await openApp(env);
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: KEY });
  env.mock.script([{ text: 'Exported answer.' }]);
  await runTask(page, 'Export me.');
  await waitForStatus(page, /Finished/);
  assert.equal(env.mock.log()[0].headers.authorization, `Bearer ${KEY}`);
  const texts = { link: await shareLink(page), url: page.url() };
  for (const [label, ext] of [['Run file (.json)', 'json'], ['Transcript (.md)', 'md'], ['Agent graph (.svg)', 'svg'], ['Usage table (.csv)', 'csv'], ['Agent graph (.png)', 'png']]) {
    await page.locator('.menu summary', { hasText: 'Export' }).click();
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: label }).click()]);
    const path = await dl.path();
    texts[ext] = readFileSync(path, ext === 'png' ? 'latin1' : 'utf8');
    assert.ok(dl.suggestedFilename().endsWith(`.${ext}`));
  }
  assert.ok(texts.png.startsWith('\x89PNG'), 'a real PNG');
  assert.match(texts.md, /Exported answer\./);
  assert.match(texts.csv, /^group,name,calls/);
  assert.match(texts.svg, /^<svg/);
  const dump = await page.evaluate(async () => {
    const db = await new Promise((ok, no) => { const r = indexedDB.open('roundtable'); r.onsuccess = () => ok(r.result); r.onerror = no; });
    const all = async (store) => new Promise((ok) => { const r = db.transaction(store).objectStore(store).getAll(); r.onsuccess = () => ok(JSON.stringify(r.result)); });
    return (await all('runs')) + (await all('chunks'));
  });
  for (const [where, text] of Object.entries({ ...texts, indexeddb: dump })) {
    assert.ok(!text.includes(KEY), `the key must not be in the ${where}`);
  }
  // Import the downloaded run file in a fresh browser, by the file picker…
  const ctx = await env.browser.newContext();
  const p = await ctx.newPage();
  await p.goto(env.app.url + '/history');
  await p.waitForSelector('body[data-ready="1"]');
  await p.getByLabel('Import run file').setInputFiles({ name: 'run.json', mimeType: 'application/json', buffer: Buffer.from(texts.json) });
  await p.getByText('Imported file', { exact: true }).waitFor();
  await transcript(p).locator('.entry').first().waitFor();
  assert.match(await transcript(p).innerText(), /Exported answer\./);
  // …and by dropping it on the page (a damaged file is refused clearly).
  const drop = async (content) => {
    const dt = await p.evaluateHandle((c) => { const d = new DataTransfer(); d.items.add(new File([c], 'run.json', { type: 'application/json' })); return d; }, content);
    await p.dispatchEvent('body', 'drop', { dataTransfer: dt });
  };
  await drop('{"format":"roundtable.run","schema_version":1,"config":{}}');
  await p.getByRole('alert').filter({ hasText: /Could not import the file: The run file is damaged/ }).waitFor();
  await drop(texts.json);
  await openHistory(p);
  assert.equal(await p.locator('.run-row').count(), 1, 'the same run id is saved once');
  await ctx.close();
});

test('History: rename, star, search, delete with confirmation, delete all', async () => {
  const page = await openApp(env);
  for (const t of ['Alpha task', 'Beta task']) {
    await runTask(page, t);
    await waitForStatus(page, /Finished/);
  }
  await openHistory(page);
  const rows = page.locator('.run-row');
  await eventually(async () => (await rows.count()) === 2);
  await rows.filter({ hasText: 'Alpha task' }).getByRole('button', { name: 'Rename' }).click();
  await page.getByLabel('New name').fill('My favourite run');
  await page.getByLabel('New name').press('Enter');
  await rows.filter({ hasText: 'My favourite run' }).waitFor();
  await rows.filter({ hasText: 'My favourite run' }).getByRole('button', { name: 'Star' }).click();
  await page.getByLabel('Starred only').check();
  await eventually(async () => (await rows.count()) === 1);
  await page.getByLabel('Starred only').uncheck();
  await page.getByRole('searchbox', { name: 'Search runs' }).fill('beta');
  await eventually(async () => (await rows.count()) === 1);
  await page.getByRole('searchbox', { name: 'Search runs' }).fill('');
  await rows.filter({ hasText: 'Beta task' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Keep' }).click();
  assert.equal(await rows.count(), 2, 'Keep keeps it');
  await rows.filter({ hasText: 'Beta task' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await eventually(async () => (await rows.count()) === 1);
  await page.getByRole('button', { name: 'Delete all' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete all' }).click();
  await page.getByText('No runs here yet').waitFor();
});

test('records from a newer version or damaged ones are reported, not trusted; quota errors say what to do', async () => {
  const ctx = await env.browser.newContext();
  const page = await openApp(env, { context: ctx });
  await runTask(page, 'A good run.');
  await waitForStatus(page, /Finished/);
  await page.evaluate(async () => {
    const db = await new Promise((ok, no) => { const r = indexedDB.open('roundtable'); r.onsuccess = () => ok(r.result); r.onerror = no; });
    const tx = db.transaction('runs', 'readwrite');
    tx.objectStore('runs').put('{"v": 99, "meta": {"future": true}}', 'from-the-future');
    tx.objectStore('runs').put('{not json', 'broken');
    await new Promise((ok) => (tx.oncomplete = ok));
  });
  await openHistory(page);
  await page.locator('.run-row.bad').filter({ hasText: /newer version of Roundtable/ }).waitFor();
  await page.locator('.run-row.bad').filter({ hasText: /damaged/ }).waitFor();
  assert.equal(await page.locator('.run-row:not(.bad)').count(), 1, 'good runs still listed');
  await ctx.close();

  // A full disk: every IndexedDB write fails with QuotaExceededError.
  const full = await env.browser.newContext();
  await full.addInitScript(() => {
    IDBObjectStore.prototype.put = function () { throw new DOMException('The quota has been exceeded.', 'QuotaExceededError'); };
  });
  const p = await openApp(env, { context: full });
  await runTask(p, 'No room.');
  await waitForStatus(p, /Finished/);
  await p.getByRole('alert').filter({ hasText: /Browser storage is full/ }).waitFor();
  await full.close();
});
