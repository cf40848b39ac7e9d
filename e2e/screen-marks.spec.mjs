// What a run's marks, notices and figures say agrees with what happened
// (issue 49, items 5–11): a reply cut by Stop is marked so; a notice about
// unreadable replies names the cap when the cap cut them; figures never
// break inside a number; a quoted reply is cut at a word and can be read
// whole; Settings quotes the local model's measured speeds, from the one
// source the guide's table checks against. (The loop mark's advice is in
// local-loop.spec.mjs, the lesson's last step in classroom.spec.mjs.)
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setup, openApp, configure, runMaelInProse, runTask, waitForStatus, screenshot, eventually } from './harness.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 10 })));
after(async () => env && (await env.close()));
beforeEach(() => env.mock.reset());

const onMock = (page) => configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'k' });

test('a reply cut short by Stop is marked as cut by the user', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await onMock(page);
  env.mock.script([{ text: '{"next": "Transportation expert", "instruction": "Find ' + 'the flights '.repeat(40) + '"}', chunkSize: 4, chunkDelayMs: 60 }]);
  await runTask(page, 'Plan a 3-day trip from Port Alder to Lake Merrow for one, budget $1,100.');
  const reply = page.locator('article.msg[data-call]').last();
  await eventually(async () => (await reply.innerText()).includes('the flights'), { timeout: 20000 });
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await waitForStatus(page, /Stopped/, 20000);
  const mark = reply.locator('.finish-mark');
  await mark.waitFor();
  assert.equal(await mark.locator('summary').innerText(), 'cut short: you stopped the run');
  await mark.locator('summary').click();
  assert.match(await mark.locator('p').innerText(), /no step read it/);
  await screenshot(page, 'marks-stopped-reply');
  assert.deepEqual(page.errors, []);
});

test('when the cap cut the replies, the notice names the cap, not the model', async () => {
  const page = await openApp(env);
  await onMock(page);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Longest answer (tokens)').fill('16');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  // After the root's judge and split, every reply ends where the cap cut it (mid-JSON).
  const cut = { text: '{"reason": "the three items are priced apart, so', finish: 'length' };
  await runMaelInProse(page, env, async () => env.mock.script(Array(60).fill(cut)));
  await waitForStatus(page, /Finished/, 60000);
  const notice = page.getByTestId('mostly-unreadable');
  await notice.waitFor();
  const text = await notice.innerText();
  assert.match(text, /cut off at 16 tokens/, text);
  assert.match(text, /Raise Longest answer/, text);
  assert.doesNotMatch(text, /larger model|not following the steps' formats/, `the cause named is the cap: ${text}`);
  assert.match(await page.locator('article.msg .finish-mark summary').first().innerText(), /cut off at 16 tokens/);
  await screenshot(page, 'marks-cap-notice');
  assert.deepEqual(page.errors, []);
});

/** Whether `el`'s text runs over more than one line. */
const wraps = (el) => {
  const r = document.createRange();
  r.selectNodeContents(el);
  return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size > 1;
};

async function figuresWhole(page, where) {
  const cells = page.locator('.usage-panel :is(th, td, dt, dd, .stat-label, .stat-value)');
  const n = await cells.count();
  assert.ok(n >= 6, `${where}: the usage figures are there (${n})`);
  for (const c of await cells.all()) {
    if (!(await c.isVisible())) continue;
    assert.equal(await c.evaluate(wraps), false, `${where}: "${(await c.innerText()).trim()}" breaks over lines`);
  }
}

test('usage figures never break inside a number: a run at 1440 px, and a lesson beside its run', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.getByLabel('Coordinator').selectOption('travel');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/, 120000);
  await figuresWhole(page, 'a finished run');
  // A lesson narrows the run: its figures stay whole too (at the run's end).
  await page.getByRole('link', { name: 'Lessons', exact: true }).click();
  await page.getByRole('button', { name: /^Start “Who acts next/ }).click();
  await page.getByRole('region', { name: 'Lesson', exact: true }).waitFor();
  const timeline = page.getByRole('slider', { name: 'Timeline' });
  const box = await timeline.boundingBox();
  await page.mouse.click(box.x + box.width - 1, box.y + box.height / 2);
  await eventually(async () => {
    const [, at, of] = /^event (\d+) \/ (\d+)/.exec(await page.getByTestId('replay-position').textContent());
    return Number(at) > Number(of) * 0.9;
  });
  await figuresWhole(page, 'the lesson layout');
  await screenshot(page, 'marks-lesson-usage');
  assert.deepEqual(page.errors, []);
});

test("Test connection quotes the reply cut at a word, marked, and readable whole", async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  const reply = "I'm here to help with whatever you need today, from planning trips to answering questions about anything.";
  env.mock.script([{ text: reply }]);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Provider', { exact: true }).selectOption('custom');
  await dialog.getByLabel('Base URL', { exact: true }).fill(env.mock.url + '/v1');
  await dialog.getByLabel('Model', { exact: true }).fill('mock-model');
  await dialog.getByLabel('API key', { exact: true }).fill('k');
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  const said = dialog.locator('.probe .clipped');
  await said.waitFor();
  const short = (await said.innerText()).replace(/\s*more$/, '');
  assert.match(short, /…$/, `the cut is marked: ${short}`);
  const kept = short.slice(0, -1).trimEnd();
  assert.ok(reply.startsWith(kept), short);
  assert.ok(reply[kept.length] === ' ' || ',.;'.includes(reply[kept.length]), `cut at a word: "${short}"`);
  await said.getByRole('button', { name: 'more' }).click();
  assert.ok((await said.innerText()).includes(reply), 'the whole reply can be read');
  assert.deepEqual(page.errors, []);
});

test("Settings quotes the local model's measured speeds and the tests' file, as the guide does", async () => {
  const page = await openApp(env);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Provider', { exact: true }).selectOption('local');
  const choices = dialog.locator('ul.suggested li');
  await choices.first().waitFor();
  const q41 = choices.filter({ hasText: 'Q4_1, 98 MB' });
  assert.equal(await q41.count(), 1, 'the file the README recommends is a good choice');
  const line = await q41.innerText();
  // The guide's table row for the same file.
  const row = readFileSync('docs/local-model.md', 'utf8').split('\n').find((l) => l.includes('| Q4_1, 98 MB |'));
  assert.ok(row, 'docs/local-model.md lists the Q4_1 file');
  const [read1, read2] = /(~\d+) \/ (~\d+) tokens\/s/.exec(row).slice(1);
  assert.match(line, new RegExp(`reads ${read1} prompt tokens/s on one core \\(${read2} on two\\)`), line);
  const hint = await dialog.locator('.hint').filter({ hasText: '1,000-token prompt' }).innerText();
  const seconds = Math.round(1000 / Number(read1.slice(1)));
  assert.match(hint, new RegExp(`~${seconds} s on one core`), hint);
  assert.doesNotMatch(await dialog.innerText(), /~50 tokens\/s|~20 s/, 'no stale figures');
  assert.deepEqual(page.errors, []);
});
