// ACT in the browser, with the offline demo model: a run shows the meeting
// room (the leader crowned, experts in side rooms during break time), the
// meetings, every agent's memory (expertise, episodes, knowledge cards and
// what each prompt was given), the task evolution and the scored output;
// it replays from a share link in a fresh browser with the memory intact;
// ACT+'s knowledge bank survives a reload and the next task takes it over.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openApp, waitForStatus, screenshot, shareLink } from './harness.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 1 })));
after(async () => env && (await env.close()));

async function chooseAct(page) {
  await page.getByLabel('Coordinator').selectOption('act');
  await page.locator('.act-setup').waitFor();
}

async function run(page) {
  const before = await page.getByTestId('run-status').innerText();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction((b) => document.querySelector('[data-testid="run-status"]')?.innerText !== b, before);
  await waitForStatus(page, /Finished/, 120000);
}

async function tab(page, name) {
  await page.getByRole('tab', { name: new RegExp('^' + name) }).click();
}

test('an ACT run: meeting room, meetings, memory, task evolution, output; it replays from a share link', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await chooseAct(page);
  const preview = page.getByLabel("The agents' tasks");
  assert.equal(await preview.locator('li').count(), 4, 'four agents, one task each');
  assert.match(await preview.innerText(), /hidden from the agents/);
  await screenshot(page, 'act-setup');
  await run(page);

  const room = page.getByRole('region', { name: 'Meeting room' });
  assert.equal(await room.locator('g.act-seat').count(), 4);
  assert.equal(await room.locator('.act-crown').count(), 1, 'one leader');
  assert.equal(await room.locator('g.act-expert').count(), 0, 'the experts left after break time');
  assert.match(await room.innerText(), /ROUGE-L recall \d+\.\d/);

  await tab(page, 'Meetings');
  const meetings = page.getByRole('region', { name: 'Meetings' });
  assert.deepEqual(
    await meetings.locator('section.act-meeting').evaluateAll((els) => els.map((e) => e.dataset.phase)),
    ['team_meeting', 'break_time', 'production_meeting'],
  );
  assert.equal(await meetings.locator('.act-side-room').count(), 4, 'one side room per member and its expert');
  assert.match(await meetings.innerText(), /fuses G/);
  await screenshot(page, 'act-meetings');

  await tab(page, 'Memory');
  const memory = page.getByRole('region', { name: 'Memory' });
  const cards = await memory.locator('.act-card').count();
  assert.ok(cards >= 8, `knowledge cards (${cards})`);
  assert.equal(await memory.locator('section.act-memory').count(), 8, '4 members and their 4 experts');
  assert.match(await memory.innerText(), /About Expert on /, 'knowledge from break time names the expert');
  assert.match(await memory.innerText(), /What each prompt was given/);
  await screenshot(page, 'act-memory');

  await tab(page, 'Tasks');
  const tasks = page.getByRole('region', { name: 'Task evolution' });
  assert.equal(await tasks.locator('section.act-task').count(), 4);
  assert.equal(await tasks.locator('.act-stages > li').count(), 12, 'initial, after the team meeting, after break time');

  await tab(page, 'Output');
  const output = page.getByRole('region', { name: 'Output' });
  await output.locator('.act-scores').waitFor();
  assert.match(await output.innerText(), /ROUGE-1/);
  assert.ok((await output.locator('.act-deliverable mark').count()) > 10, 'reference words highlighted');
  const here = await output.locator('.act-scores').innerText();
  await screenshot(page, 'act-output');

  // An agent's inspector shows its memory: from the keyboard (a seat is a
  // focusable button; focus() does nothing on an element that is not)...
  const inspector = page.getByRole('region', { name: 'Inspector' });
  const seat = room.locator('g.act-seat[data-agent="a1"]');
  await seat.focus();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-agent')), 'a1', 'the seat takes focus');
  assert.equal(await seat.getAttribute('role'), 'button');
  await page.keyboard.press('Enter');
  await inspector.locator('.act-memory[data-agent="a1"]').waitFor();
  // ... or with the mouse.
  await room.locator('g.act-seat[data-agent="a2"]').click();
  await inspector.locator('.act-memory[data-agent="a2"]').waitFor();
  assert.match(await inspector.innerText(), /Expertise/);

  // The share link (format 5: LZMA, made in the page) replays the run with its memory.
  const url = await shareLink(page);
  assert.match(url, /#run=5\./);
  const other = await (await env.browser.newContext()).newPage();
  other.errors = [];
  other.on('pageerror', (e) => other.errors.push(String(e)));
  await other.goto(url);
  await other.waitForSelector('body[data-ready="1"]');
  await other.getByText('Shared link', { exact: true }).waitFor();
  await tab(other, 'Memory');
  await other.getByRole('region', { name: 'Memory' }).locator('.act-card').first().waitFor();
  assert.equal(await other.getByRole('region', { name: 'Memory' }).locator('.act-card').count(), cards);
  await tab(other, 'Output');
  assert.equal(await other.getByRole('region', { name: 'Output' }).locator('.act-scores').innerText(), here);
  assert.deepEqual(other.errors, []);
  assert.deepEqual(page.errors, []);
});

test("ACT+: the knowledge bank survives a reload and the next task takes it over", async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await chooseAct(page);
  await page.getByLabel('Variant').selectOption('act-plus');
  await page.getByLabel('Knowledge bank').fill('e2e-bank');
  await page.getByLabel('Knowledge bank').dispatchEvent('change');
  await run(page);
  const hint = page.locator('.act-setup').getByText(/tasks? so far/);
  await hint.waitFor();
  assert.match(await hint.innerText(), /^1 task so far · 4 agents · \d+ knowledge entries/);
  const entries = Number((await hint.innerText()).match(/(\d+) knowledge entries/)[1]);
  assert.ok(entries > 0);

  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await chooseAct(page);
  await page.getByLabel('Variant').selectOption('act-plus');
  await page.getByLabel('Knowledge bank').fill('e2e-bank');
  await page.getByLabel('Knowledge bank').dispatchEvent('change');
  await page.getByLabel('Trial').fill('5');
  await page.getByLabel('Trial').dispatchEvent('change');
  await page.locator('.act-setup').getByText(`1 task so far · 4 agents · ${entries} knowledge entries`).waitFor();
  await run(page);
  // The team took its bank over: its memory holds the first task's knowledge
  // from the first meeting on, and the bank now counts two tasks.
  await tab(page, 'Memory');
  const memory = page.getByRole('region', { name: 'Memory' });
  assert.ok((await memory.locator('.act-card').count()) > entries, 'carried entries plus new ones');
  await page.locator('.act-setup').getByText(/^2 tasks so far/).waitFor();
  await tab(page, 'Tasks');
  const taken = page.getByRole('region', { name: 'Task evolution' }).locator('.act-assigned');
  assert.equal(await taken.count(), 4, 'each agent took a part over');
  assert.match(await taken.first().innerText(), /built-in lexical embedder/);
  assert.deepEqual(page.errors, []);
});

test('the ACT page: a bad task set is refused with nothing stored; a demo batch fills the paper\'s table', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1400, height: 1100 });
  await page.getByRole('link', { name: 'ACT', exact: true }).click();
  const sets = page.getByRole('region', { name: 'Task sets' });
  await sets.waitFor();
  const rowsBefore = await sets.locator('tbody tr').count();
  await sets.getByLabel('Name').fill('e2e-bad');
  const bad = '{"subject": "s", "details": [], "solutions": ["r"]}\n{"subject": "t"}\n';
  await sets.getByLabel('Import task set file').setInputFiles({ name: 'bad.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(bad) });
  await sets.getByText(/line 2: not a task/).waitFor();
  assert.match(await sets.innerText(), /Nothing was stored/);
  assert.equal(await sets.locator('tbody tr').count(), rowsBefore, 'nothing stored');
  const good = ['a', 'b', 'c'].map((x) => JSON.stringify({ subject: `Design a ${x} tea corner`, details: ['small room'], solutions: [`${x} oolong shelf`] })).join('\n');
  await sets.getByLabel('Name').fill('e2e-good');
  await sets.getByLabel('Import task set file').setInputFiles({ name: 'good.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(good) });
  await sets.getByText(/Imported 3 items as "e2e-good"/).waitFor();
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await page.getByRole('region', { name: 'Task sets' }).getByText('e2e-good', { exact: true }).waitFor();
  // Back to the built-in set, then a batch of two variants over two trials.
  await page.getByRole('form', { name: 'Batch setup' }).getByLabel('Tasks', { exact: true }).selectOption('builtin');
  await page.getByLabel('Trials (K)').fill('2');
  await page.getByLabel('Trials (K)').dispatchEvent('change');
  await page.getByRole('button', { name: 'Start batch' }).click();
  const results = page.getByRole('region', { name: 'Batch results' });
  await page.getByRole('status', { name: 'Batch progress' }).getByText(/Done: 6 of 6 runs/).waitFor({ timeout: 120000 });
  const table = await results.locator('table.act-report').innerText();
  for (const v of ['ACT', 'ACT − break time', 'Baseline']) assert.match(table, new RegExp(v));
  assert.equal(await results.locator('svg.act-chart rect').count(), 3);
  assert.equal(await page.getByRole('region', { name: 'Runs' }).locator('tbody tr').count(), 6);
  await screenshot(page, 'act-page');
  assert.deepEqual(page.errors, []);
});

test('the built-in set can draw each member\'s task from another community (Table 6)', async () => {
  const page = await openApp(env);
  await chooseAct(page);
  const preview = page.getByLabel("The agents' tasks");
  const byTrial = await preview.innerText();
  await page.locator('#act-community').selectOption('mixed');
  await page.waitForFunction((t) => document.querySelector('[aria-label="The agents\' tasks"]')?.innerText !== t, byTrial);
  assert.equal(await preview.locator('li').count(), 4, 'still one task per agent');
  assert.deepEqual(page.errors, []);
});

test('a tool task (§4.3): the notebook runs in the page, members write the Files tab, the web goes to a local search server', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await chooseAct(page);
  await page.getByLabel(/Tools \(§4\.3\)/).check();
  const endpoint = page.getByLabel("Search endpoint (a SearXNG instance's JSON API)");
  await endpoint.fill(env.mock.url);
  await endpoint.dispatchEvent('change');
  await screenshot(page, 'act-tools-setup');
  await run(page);
  // The members' notes, written through the file-system tool.
  await tab(page, 'Files');
  const files = page.locator('.files');
  await files.locator('.file-tree').waitFor();
  const tree = (await files.locator('.file-tree li').allInnerTexts()).join(' ');
  assert.match(tree, /notes/);
  assert.match(tree, /agent-a\.md/);
  await screenshot(page, 'act-tools-files');
  // The notebook's cells ran in the page's Python; the searches went to
  // the local SearXNG-speaking server, in its JSON format.
  await tab(page, 'Transcript');
  const log = page.getByRole('log', { name: 'Transcript' });
  const cell = log.locator('details.tool', { hasText: 'PythonNotebook_execute_cell' }).first();
  await cell.locator('summary').click();
  assert.match(await cell.locator('pre').innerText(), /^cell_index: \d+\n\d+ words$/);
  const search = log.locator('details.tool', { hasText: 'WebEnv_search_and_browse' }).first();
  await search.locator('summary').click();
  assert.match(await search.locator('pre').innerText(), /^Results for "[^"]+" \(looking for: [^)]+\):\n1\. Result 1 for /);
  const searches = env.mock.log().filter((r) => r.path === '/search');
  assert.ok(searches.length >= 4, `a search per member (${searches.length})`);
  assert.ok(searches.every((r) => r.format === 'json'));
  await screenshot(page, 'act-tools-transcript');
  // The endpoint is kept (Settings), and never in the run's file or link.
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await chooseAct(page);
  await page.getByLabel(/Tools \(§4\.3\)/).check();
  assert.equal(await page.getByLabel("Search endpoint (a SearXNG instance's JSON API)").inputValue(), env.mock.url);
  assert.deepEqual(page.errors, []);
});

test('tool tasks in the page: the built-in ones and an imported tasks.jsonl, a web task waits for an endpoint, the judge counts the sub-tasks, a batch reports them', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await chooseAct(page);
  const setup = page.locator('.act-setup');
  await page.locator('#act-source').selectOption('builtin-tools');
  const preview = page.getByLabel("The agents' tasks");
  await preview.getByText(/12,000 euros/).waitFor();
  assert.match(await preview.innerText(), /3 agents split it · every tool · judged by the sub-tasks it asks/);
  // A tool task has every tool and is judged by its sub-tasks.
  assert.equal(await page.locator('#act-tools').isChecked(), true);
  assert.equal(await page.locator('#act-tools').isDisabled(), true);
  assert.equal(await page.locator('#act-judge').isChecked(), true);
  assert.match(await setup.locator('.act-judge-note').innerText(), /sub-tasks the question asks/);
  // The garden task needs the web: said in the preview, and Run refuses
  // before anything starts.
  await page.locator('#act-trial').fill('2');
  await page.locator('#act-trial').dispatchEvent('change');
  await preview.getByRole('alert').getByText(/Needs the web, and no search endpoint is set/).waitFor();
  await screenshot(page, 'act-tool-task-needs-web');
  const status = await page.getByTestId('run-status').innerText();
  const searched = env.mock.log().filter((r) => r.path === '/search').length;
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByText(/The task "garden" needs the web .* set the search endpoint under Tools/).waitFor();
  assert.equal(await page.getByTestId('run-status').innerText(), status, 'nothing started');
  assert.equal(env.mock.log().filter((r) => r.path === '/search').length, searched);
  // Check says whether the endpoint answers as SearXNG's JSON API.
  const endpoint = page.getByLabel("Search endpoint (a SearXNG instance's JSON API)");
  await endpoint.fill(env.mock.url + '/nothing-here');
  await endpoint.dispatchEvent('change');
  await setup.getByRole('button', { name: 'Check' }).click();
  await setup.getByRole('alert').getByText(/The endpoint did not answer a search/).waitFor();
  await endpoint.fill(env.mock.url);
  await endpoint.dispatchEvent('change');
  await setup.getByRole('button', { name: 'Check' }).click();
  await setup.getByRole('status').getByText(/answered a test search with \d+ results?/).waitFor();
  await preview.getByText(/Needs the web: the search endpoint below is used/).waitFor();
  await screenshot(page, 'act-tool-task-setup');
  // The loan task runs; the Output tab shows the judge's sub-tasks.
  await page.locator('#act-trial').fill('0');
  await page.locator('#act-trial').dispatchEvent('change');
  await run(page);
  await tab(page, 'Output');
  await page.getByText('Sub-tasks completed').waitFor();
  const subtasks = page.getByLabel("The judge's sub-tasks").locator('li');
  assert.ok((await subtasks.count()) >= 1, 'the judge listed sub-tasks');
  await screenshot(page, 'act-tool-task-output');
  // An imported tasks.jsonl (AgentVerse's shape) on the ACT page, then a
  // batch over it: the sub-tasks done per variant; the web task ran (an
  // endpoint is set).
  await page.getByRole('link', { name: 'ACT', exact: true }).click();
  const sets = page.getByRole('region', { name: 'Task sets' });
  await sets.waitFor();
  await sets.getByText('Built-in tool tasks').waitFor();
  await sets.getByLabel('Lines are').selectOption('tools');
  await sets.getByLabel('Name').fill('e2e-tools');
  const bad = '{"id": "a", "task": "Add 2 and 2 with code."}\n{"id": "b"}\n';
  await sets.getByLabel('Import task set file').setInputFiles({ name: 'tasks.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(bad) });
  await sets.getByText(/line 2: no "task" text/).waitFor();
  const good = [
    { id: 'sum', task: 'Add the numbers from 1 to 100 with Python code and explain the trick.', agents: 2 },
    { id: 'car', task: 'Compare the latest electric cars on range and price.', agents: 3 },
  ].map((x) => JSON.stringify(x)).join('\n');
  await sets.getByLabel('Import task set file').setInputFiles({ name: 'tasks.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(good) });
  await sets.getByText(/Imported 2 tool tasks as "e2e-tools"/).waitFor();
  const form = page.getByRole('form', { name: 'Batch setup' });
  // The imported set is the task source once it has loaded.
  await page.waitForFunction(() => document.querySelector('#act-batch-source')?.value === 'e2e-tools');
  await form.getByText(/2 tool tasks \(trials 0–1\)/).waitFor();
  await form.getByLabel('Trials (K)').fill('2');
  await form.getByLabel('Trials (K)').dispatchEvent('change');
  const picked = form.locator('.act-variants input[type=checkbox]:checked');
  while ((await picked.count()) > 0) await picked.first().uncheck();
  await form.getByLabel('ACT', { exact: true }).check();
  const searchesBefore = env.mock.log().filter((r) => r.path === '/search').length;
  await page.getByRole('button', { name: 'Start batch' }).click();
  await page.getByRole('status', { name: 'Batch progress' }).getByText(/Done: 2 of 2 runs/).waitFor({ timeout: 120000 });
  const results = page.getByRole('region', { name: 'Batch results' });
  const head = await results.locator('table.act-report thead').innerText();
  assert.match(head, /sub-tasks done %/);
  const row = await results.locator('table.act-report tbody tr').first().innerText();
  assert.match(row, /\d+\.\d\d/);
  const scores = await page.getByRole('region', { name: 'Runs' }).locator('tbody tr').allInnerTexts();
  assert.equal(scores.length, 2);
  for (const s of scores) assert.match(s, /sub-tasks done %/);
  assert.ok(env.mock.log().filter((r) => r.path === '/search').length > searchesBefore, 'the web task searched');
  await results.scrollIntoViewIfNeeded();
  await screenshot(page, 'act-tool-batch');
  assert.deepEqual(page.errors, []);
});
