// MAEL in the browser, with the offline demo model: a run shows the call
// tree, the team graph (root crowned, closeness), the backward pass's
// rewards and what each step retrieved; it replays from a share link in a
// fresh browser; the team editor refuses a disconnected team; on the MAEL
// page a learning phase fills a pool that survives a reload and resumes,
// a bad pool file is refused with nothing stored, a pool exports, imports,
// merges and clears, the inspector ranks a query, and an evaluation fills
// the paper's table and sweep.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setup, openApp, waitForStatus, screenshot, shareLink, eventually } from './harness.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 2 })));
after(async () => env && (await env.close()));

async function chooseMael(page) {
  await page.getByLabel('Coordinator').selectOption('mael');
  await page.getByLabel('Task', { exact: true }).waitFor();
}

// A MAEL run opens its pool before it starts: wait for the status line to
// leave the last run's, then for this run's end.
async function run(page) {
  const before = await page.getByTestId('run-status').innerText();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction((b) => document.querySelector('[data-testid="run-status"]')?.innerText !== b, before);
  await waitForStatus(page, /Finished/, 60000);
}

const treeTasks = (page) => page.getByRole('region', { name: 'Call tree' }).locator('details.ml-task');

test('a MAEL run: call tree, team graph, rewards, retrievals; it replays from a share link', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await chooseMael(page);
  assert.match(await page.locator('.ml-setup').innerText(), /4 agents, 4 edges · root Agent 1 \(closeness 1\.00\)/);
  await screenshot(page, 'mael-setup');
  await run(page);
  // The team: the root crowned, every agent's closeness.
  const team = page.getByRole('region', { name: 'Team' });
  await team.locator('g.ml-node.root .ml-crown').waitFor();
  assert.equal(await team.locator('g.ml-node').count(), 4);
  assert.deepEqual(
    await team.locator('.ml-closeness').allTextContents(),
    ['c 1.00', 'c 0.75', 'c 0.75', 'c 0.60'],
    'the hub reaches everyone in one hop; two leaves are joined (depth 2 is reachable)',
  );
  // The call tree: the root task split into one subtask per line, each
  // with its solver, critique rounds and rewards.
  await page.getByRole('tab', { name: /Call tree/ }).click();
  const tasks = treeTasks(page);
  await tasks.first().waitFor();
  const n = await tasks.count();
  assert.ok(n >= 3, `root and at least two subtasks (${n})`);
  const tree = page.getByRole('region', { name: 'Call tree' });
  assert.match(await tree.innerText(), /Judge: splits it/);
  assert.match(await tree.innerText(), /Critique, round 1/);
  assert.ok((await tree.locator('.ml-step-reward').count()) >= n, 'rewards on the steps');
  // Folding: a closed task stays closed; Collapse all / Expand all.
  await tasks.nth(1).locator('summary').first().click();
  assert.equal(await tasks.nth(1).getAttribute('open'), null);
  await page.getByRole('button', { name: 'Collapse all' }).click();
  assert.equal(await tree.locator('details.ml-task[open]').count(), 0);
  await page.getByRole('button', { name: 'Expand all' }).click();
  assert.equal(await tree.locator('details.ml-task[open]').count(), n);
  await screenshot(page, 'mael-tree');
  // What the backward pass stored.
  await page.getByRole('tab', { name: /Experience/ }).click();
  const stored = page.getByRole('region', { name: 'Experience' }).locator('table.ml-experiences tbody tr');
  await stored.first().waitFor();
  const learned = await stored.count();
  // A second run retrieves from the pool the first one filled.
  await run(page);
  await page.getByRole('tab', { name: /Experience/ }).click();
  const retrievals = page.getByRole('region', { name: 'Experience' }).locator('.ml-retrieval');
  await retrievals.first().waitFor();
  assert.match(await retrievals.first().innerText(), /✓ used/);
  assert.match(await retrievals.first().innerText(), /similarity/);
  await screenshot(page, 'mael-experience');
  // An agent's inspector lists what its steps retrieved.
  await team.locator('g.ml-node[data-agent="a2"]').click();
  const inspector = page.getByRole('region', { name: 'Inspector' });
  await inspector.getByText('Retrieved experience').waitFor();
  assert.match(await inspector.innerText(), /experiences? of this agent stored/);
  await screenshot(page, 'mael-inspector');
  assert.ok(learned > 5, `the first run stored its steps (${learned})`);

  // The share link replays the run, views and all, in a fresh browser.
  await page.getByRole('tab', { name: /Call tree/ }).click();
  const here = await tree.innerText();
  const url = await shareLink(page);
  assert.match(url, /#run=5\./);
  const other = await (await env.browser.newContext()).newPage();
  other.errors = [];
  other.on('pageerror', (e) => other.errors.push(String(e)));
  await other.goto(url);
  await other.waitForSelector('body[data-ready="1"]');
  await other.getByText('Shared link', { exact: true }).waitFor();
  await other.getByRole('tab', { name: /Call tree/ }).click();
  await treeTasks(other).first().waitFor();
  assert.equal(await other.getByRole('region', { name: 'Call tree' }).innerText(), here, 'the same tree');
  await other.getByRole('region', { name: 'Team' }).locator('.ml-crown').waitFor();
  assert.deepEqual(other.errors, []);
  assert.deepEqual(page.errors, []);
});

test('the team editor refuses a disconnected team; the edited team runs', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await chooseMael(page);
  await page.getByRole('button', { name: 'Edit team…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit the team' });
  // Agent 3 is joined to the hub and to Agent 2 (the default's linked leaves).
  await dialog.getByLabel('Edge a1–a3').uncheck();
  await dialog.getByLabel('Edge a2–a3').uncheck();
  await dialog.getByRole('alert').filter({ hasText: 'not connected: Agent 3' }).waitFor();
  assert.equal(await dialog.getByRole('button', { name: 'Apply' }).isDisabled(), true);
  await dialog.getByLabel('Edge a2–a3').check();
  await dialog.getByLabel('Name of a2').fill('Scout');
  await dialog.getByLabel('Name of a2').press('Tab');
  await dialog.getByRole('button', { name: 'Add agent' }).click();
  await screenshot(page, 'mael-team-editor');
  await dialog.getByRole('button', { name: 'Apply' }).click();
  await dialog.waitFor({ state: 'hidden' });
  assert.match(await page.locator('.ml-setup').innerText(), /5 agents, 4 edges · root Agent 1/);
  await run(page);
  const team = page.getByRole('region', { name: 'Team' });
  await team.locator('g.ml-node').nth(4).waitFor();
  assert.match((await team.locator('svg').textContent()) ?? '', /Scout/);
  assert.deepEqual(page.errors, []);
});

test('pools: learning fills one that survives a reload and resumes; bad files are refused; export, import, merge, clear; inspector; evaluation', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.getByRole('link', { name: 'MAEL', exact: true }).click();
  const pools = page.getByRole('region', { name: 'Pools' });
  await pools.waitFor();
  await page.getByLabel('Tasks (first N)').fill('6');
  await page.getByLabel('Tasks (first N)').press('Tab');
  await page.getByRole('button', { name: 'Start learning' }).click();
  const job = page.getByRole('region', { name: 'Job' });
  await job.getByText(/Learned 6 tasks; the pool "default" has \d+ experiences/).waitFor({ timeout: 60000 });
  const row = pools.locator('tr[data-pool="default"]');
  const count = Number((await job.innerText()).match(/the pool "default" has (\d+) experiences/)[1]);
  assert.ok(count > 30, `the pool filled (${count})`);
  await eventually(async () => (await row.count()) === 1 && Number(await row.locator('td.num').innerText()) === count);

  // A reload keeps it (IndexedDB); learning again resumes after the 6.
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await pools.locator('tr[data-pool="default"]').waitFor();
  assert.equal(Number(await pools.locator('tr[data-pool="default"] td.num').innerText()), count);
  await page.getByLabel('Tasks (first N)').fill('8');
  await page.getByLabel('Tasks (first N)').press('Tab');
  await page.getByRole('button', { name: 'Start learning' }).click();
  await job.getByText(/Learned 2 tasks/).waitFor({ timeout: 60000 });
  assert.match(await job.innerText(), /6 tasks already learned, skipped/);
  // The job states the pool's new size; the table, refreshed from
  // IndexedDB after the job ends, comes to show the same.
  const stated = Number((await job.innerText()).match(/the pool "default" has (\d+) experiences/)[1]);
  assert.ok(stated > count, `the pool grew (${count} → ${stated})`);
  await eventually(async () => Number(await pools.locator('tr[data-pool="default"] td.num').innerText()) === stated);
  const grown = stated;

  // Another tab holding the pool's lock (as it does while it learns into
  // it): this tab refuses to learn into the pool, and learns once it is free.
  const other = await page.context().newPage();
  await other.goto(env.app.url + '/');
  await other.evaluate(() => new Promise((held) => {
    navigator.locks.request('roundtable.pool.default', () => { held(); return new Promise((r) => { window.__release = r; }); });
  }));
  await page.getByLabel('Tasks (first N)').fill('9');
  await page.getByLabel('Tasks (first N)').press('Tab');
  await page.getByRole('button', { name: 'Start learning' }).click();
  await job.getByText(/Another tab is learning into the pool "default"/).waitFor();
  assert.equal(Number(await pools.locator('tr[data-pool="default"] td.num').innerText()), grown, 'nothing learned');
  await screenshot(page, 'mael-pool-locked');
  await other.evaluate(() => window.__release());
  await other.close();
  await page.getByLabel('Tasks (first N)').fill('8');
  await page.getByLabel('Tasks (first N)').press('Tab');

  // Export: the documented file format.
  const [file] = await Promise.all([page.waitForEvent('download'), pools.locator('tr[data-pool="default"]').getByRole('button', { name: 'Export' }).click()]);
  const text = readFileSync(await file.path(), 'utf8');
  const exported = JSON.parse(text);
  assert.equal(exported.format, 'roundtable.experience-pool');
  assert.equal(exported.version, 1);
  assert.deepEqual(exported.embedder, { id: 'lexical-v1', dims: 384 });
  assert.equal(exported.experiences.length, grown);
  for (const key of ['id', 'agent', 'step', 'task_id', 'input', 'output', 'reward', 'embedding']) assert.ok(key in exported.experiences[0], key);
  assert.equal(exported.experiences[0].embedding.length, 384);

  // A bad file (a reward outside [0, 1]) is refused; nothing is stored.
  const bad = structuredClone(exported);
  bad.experiences[3].reward = 1.5;
  await page.getByLabel('Import pool file').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bad)) });
  await pools.getByRole('alert').filter({ hasText: 'Nothing was stored' }).waitFor();
  assert.match(await pools.getByRole('alert').innerText(), /experience 4 has the reward 1\.5/);
  assert.equal(await pools.locator('tbody tr').count(), 1, 'still one pool');
  await page.getByLabel('Import pool file').setInputFiles({ name: 'junk.json', mimeType: 'application/json', buffer: Buffer.from('{"format": "something else"') });
  await pools.getByRole('alert').filter({ hasText: 'Nothing was stored' }).waitFor();
  assert.equal(await pools.locator('tbody tr').count(), 1, 'still one pool');

  // The good file imports as a new pool; merging it back adds nothing new; clear removes it.
  await page.getByLabel('Import pool file').setInputFiles({ name: 'default.pool.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  const copy = pools.locator('tr[data-pool="default (2)"]');
  await copy.waitFor();
  assert.equal(Number(await copy.locator('td.num').innerText()), grown);
  const inspector = page.getByRole('region', { name: 'Pool inspector' });
  await inspector.locator('.ml-name', { hasText: 'default (2)' }).waitFor();
  await inspector.locator('.ml-pool-summary').waitFor();
  await pools.locator('tr[data-pool="default"]').getByRole('button', { name: 'Inspect' }).click();
  await inspector.locator('.ml-pool-summary').waitFor();
  await inspector.getByLabel('Merge into this pool:').selectOption('default (2)');
  await inspector.getByRole('button', { name: 'Merge', exact: true }).click();
  await pools.getByText(/Added 0 experiences of "default \(2\)" to "default"/).waitFor();
  await copy.getByRole('button', { name: 'Clear' }).click();
  await pools.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await copy.waitFor({ state: 'detached' });

  // The inspector: per agent and step, histogram, projection, a ranked query.
  assert.ok((await inspector.locator('.ml-projection circle').count()) >= 3);
  assert.equal(await inspector.locator('.ml-histogram rect').count(), 10);
  await inspector.getByLabel('Agent').selectOption('a2');
  await inspector.getByLabel('Step').selectOption('solve');
  await inspector.getByLabel('Query').fill('Find the cost of 3 candles at $4 each.');
  await inspector.getByRole('button', { name: 'Rank entries' }).click();
  const hits = inspector.locator('.ml-query-hits table tbody tr');
  await hits.first().waitFor();
  assert.ok((await hits.count()) >= 1 && (await hits.count()) <= 5);
  await screenshot(page, 'mael-pool-inspector');

  // An evaluation: the three modes and a two-point sweep.
  await page.getByLabel('Tasks (first K)').fill('4');
  await page.getByLabel('Tasks (first K)').press('Tab');
  await page.getByLabel('Sweep: pool sizes').fill('0,8');
  await page.getByLabel('Sweep: pool sizes').press('Tab');
  await page.getByRole('button', { name: 'Start evaluation' }).click();
  await job.getByText(/^Done: 4 tasks × 3 rows and a 2-point sweep/).waitFor({ timeout: 90000 });
  const results = page.getByRole('region', { name: 'Evaluation results' });
  const table = results.locator('table.tp-table.ml-report tbody tr');
  assert.deepEqual(await table.locator('th').allInnerTexts(), ['MAEL-ØExp', 'MAEL-Task', 'MAEL-Step']);
  assert.equal(await results.locator('svg.ml-chart').count(), 4, 'score, tokens, rounds, sweep');
  const [csv] = await Promise.all([page.waitForEvent('download'), results.getByRole('button', { name: 'CSV' }).click()]);
  const lines = readFileSync(await csv.path(), 'utf8').trim().split('\n');
  assert.ok(lines.length >= 6, lines.join('\n'));
  assert.equal(Number(await pools.locator('tr[data-pool="default"] td.num').innerText()), grown, 'an evaluation never changes the pool');
  await screenshot(page, 'mael-learn');
  // Evaluating on the pool's training tasks is refused, naming them.
  await page.locator('#ml-eval-set').selectOption('builtin:train');
  await page.getByRole('button', { name: 'Start evaluation' }).click();
  await job.getByText(/The pool "default" learned from 4 of these 4 test tasks \(builtin:train:0, builtin:train:1, builtin:train:2, builtin:train:3\)/).waitFor();
  await screenshot(page, 'mael-eval-refused');
  assert.deepEqual(page.errors, []);
});

test('task sets import from JSONL (checked first: a bad line is refused, nothing is kept)', async () => {
  const page = await openApp(env);
  await chooseMael(page);
  const row = (q, a) => JSON.stringify({ question: q, answer: `${a}\n#### ${a}` });
  const good = [row('Tom has 3 apples and buys 4 more. How many?', 7), row('Half of 18?', 9)].join('\n');
  await page.getByLabel('Import as').selectOption('gsm8k');
  await page.getByLabel('Import tasks (JSONL, or SRDD\'s CSV)').setInputFiles({ name: 'mini-gsm8k.jsonl', mimeType: 'application/json', buffer: Buffer.from(good) });
  await page.locator('#ml-set').filter({ hasText: 'mini-gsm8k.jsonl · gsm8k' }).waitFor();
  await page.waitForFunction(() => document.querySelector('#ml-set')?.value === 'mini-gsm8k.jsonl');
  assert.equal(await page.locator('#ml-task option').count(), 2);
  assert.match(await page.getByLabel('Task text').innerText(), /Tom has 3 apples/);
  const bad = `${good}\n{"question": "no answer here"}`;
  await page.getByLabel('Import tasks (JSONL, or SRDD\'s CSV)').setInputFiles({ name: 'broken.jsonl', mimeType: 'application/json', buffer: Buffer.from(bad) });
  await page.getByText(/Could not import broken\.jsonl: broken\.jsonl line 3: .*Nothing was stored\./).waitFor();
  assert.equal(await page.locator('#ml-set option', { hasText: 'broken' }).count(), 0, 'not kept');
  assert.equal(await page.locator('#ml-set').inputValue(), 'mini-gsm8k.jsonl', 'the set in use is unchanged');
  // It survives a reload.
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await chooseMael(page);
  await page.locator('#ml-set option', { hasText: 'mini-gsm8k.jsonl' }).waitFor({ state: 'attached' });
  assert.deepEqual(page.errors, []);
});

test('SRDD: a built-in requirement is built in the page: a pipeline writes the files, the critic reads the run, the project is scored', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await chooseMael(page);
  await page.locator('#ml-set').selectOption('builtin:software:test');
  await page.waitForFunction(() => document.querySelector('#ml-task option')?.textContent.includes('Develop the software'));
  assert.equal(await page.locator('#ml-task option').count(), 4);
  await run(page);
  // The files: the core by one stage's agent, main.py by the next's.
  const files = page.locator('.files');
  await page.getByRole('tab', { name: /^Files/ }).click();
  await files.locator('.file-tree').waitFor();
  const tree = (await files.locator('.file-tree li').allInnerTexts()).join(' ');
  assert.match(tree, /main\.py/);
  assert.match(tree, /unit_shifter\.py/);
  await files.getByRole('button', { name: 'Run main.py' }).click();
  const output = files.getByRole('region', { name: 'Run output' });
  await output.locator('.run-head').waitFor({ timeout: 90_000 });
  assert.match(await output.locator('pre.run-stdout').innerText(), /Unit_Shifter\n1\. Converts lengths, weights and temperatures between metric and imperial units\. -> 4 items, 67\.75 in all\n2\. prints a table of sample conversions\. -> 16\.94 on average/);
  await screenshot(page, 'mael-srdd-files');
  // The critic was shown the program's run; the score names the runner.
  await page.getByRole('tab', { name: /Call tree/ }).click();
  const treeText = await page.getByRole('region', { name: 'Call tree' }).innerText();
  assert.match(treeText, /Split into a pipeline/);
  assert.match(treeText, /A placeholder \(`?pass`?\) is left/);
  assert.match(treeText, /completeness 1\.00 · executability 1\.00 · consistency 0\.\d\d/);
  assert.match(treeText, /Scored by Pyodide [\d.]+ \(CPython [\d.]+\), in the page; consistency by the built-in lexical embedder/);
  // Fig. 4's shape: the placeholder's main.py is incomplete (0%) until refined.
  assert.match(treeText, /Quality after each step that wrote files: \d+% → 0% → \d+% → \d+%/);
  await screenshot(page, 'mael-srdd-tree');
  // SRDD's CSV imports as a task set (a bad row is refused, nothing kept).
  const csv = 'Name,Description,Category\nTiny_Timer,"Counts down from ten, then prints done.",Utility\n';
  await page.getByLabel('Import as').selectOption('srdd');
  await page.getByLabel('Import tasks (JSONL, or SRDD\'s CSV)').setInputFiles({ name: 'mini-srdd.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.waitForFunction(() => document.querySelector('#ml-set')?.value === 'mini-srdd.csv');
  assert.match(await page.getByLabel('Task text').innerText(), /Develop the software Tiny_Timer: Counts down from ten/);
  await page.getByLabel('Import tasks (JSONL, or SRDD\'s CSV)').setInputFiles({ name: 'bad-srdd.csv', mimeType: 'text/csv', buffer: Buffer.from('Name,Category\nx,y\n') });
  await page.getByText(/Could not import bad-srdd\.csv: .*no column "Description".*Nothing was stored\./).waitFor();
  assert.deepEqual(page.errors, []);
});

test('SRDD on the MAEL page: learning on the built-in software, then Tables 2 and 3, Fig. 2 relative to no experience, Fig. 4 per case', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1200 });
  await page.getByRole('link', { name: 'MAEL', exact: true }).click();
  await page.getByRole('region', { name: 'Pools' }).waitFor();
  await page.locator('#ml-learn-set').selectOption('builtin:software:train');
  await page.getByRole('button', { name: 'Start learning' }).click();
  const job = page.getByRole('region', { name: 'Job' });
  await job.getByText(/Learned 4 tasks; the pool "default" has \d+ experiences/).waitFor({ timeout: 120000 });
  await page.locator('#ml-eval-set').selectOption('builtin:software:test');
  await page.getByLabel('Sweep: pool sizes').fill('');
  await page.getByLabel('Sweep: pool sizes').press('Tab');
  await page.getByRole('button', { name: 'Start evaluation' }).click();
  await job.getByText(/^Done: 4 tasks × 3 rows/).waitFor({ timeout: 180000 });
  const results = page.getByRole('region', { name: 'Evaluation results' });
  const text = await results.innerText();
  assert.match(text, /Table 2 · SRDD quality/);
  assert.match(text, /Table 3 · scale and complexity/);
  // Fig. 2: with experience the refinement round is saved.
  const rel = results.locator('table', { hasText: 'Fig. 2' }).locator('tbody tr');
  assert.deepEqual((await rel.allInnerTexts()).map((t) => t.split(/\s+/).pop()), ['1.00', '0.50', '0.50']);
  // Fig. 4: one chart per case, a line per row.
  const curves = results.locator('svg.ml-curves');
  assert.equal(await curves.count(), 4);
  assert.equal(await curves.first().locator('polyline').count(), 3);
  const [json] = await Promise.all([page.waitForEvent('download'), results.getByRole('button', { name: 'JSON' }).click()]);
  const exported = JSON.parse(readFileSync(await json.path(), 'utf8'));
  assert.equal(exported.modes[2].relative_to_none.rounds, 0.5);
  assert.equal(exported.modes[0].parts.completeness, 1);
  assert.equal(exported.quality_per_iteration.length, 12);
  await results.locator('svg.ml-curves').first().scrollIntoViewIfNeeded();
  await screenshot(page, 'mael-srdd-eval');
  assert.deepEqual(page.errors, []);
});

test('HumanEval: an imported problem is scored by running its tests in Pyodide, in a worker fetched only then', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  await chooseMael(page);
  const problem = {
    task_id: 'HumanEval/900',
    prompt: 'def add(a, b):\n    """Add two numbers."""\n',
    test: 'def check(candidate):\n    assert candidate(2, 3) == 5\n',
    entry_point: 'add',
  };
  await page.getByLabel('Import as').selectOption('humaneval');
  await page.getByLabel('Import tasks (JSONL, or SRDD\'s CSV)').setInputFiles({ name: 'he-one.jsonl', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(problem)) });
  await page.waitForFunction(() => document.querySelector('#ml-set')?.value === 'he-one.jsonl');
  assert.equal(fetched.filter((p) => p.startsWith('/pyodide/') || p.startsWith('/humaneval/')).length, 0, 'nothing of Python before a HumanEval answer is scored');
  await run(page);
  // The demo model cannot write code: its prose is read as the code
  // (flagged), and Python's verdict is shown with what ran.
  await page.getByRole('tab', { name: /Call tree/ }).click();
  const program = page.getByRole('region', { name: 'Call tree' }).locator('.ml-program');
  await program.waitFor();
  assert.match(await program.innerText(), /Tests: failed: /);
  assert.ok((await program.locator('.repair-mark').count()) >= 1, 'the reading is flagged');
  assert.equal(await program.getAttribute('data-passed'), 'false');
  assert.ok(fetched.includes('/humaneval/worker.mjs'), fetched.join(' '));
  assert.ok(fetched.some((p) => p.startsWith('/pyodide/')), 'Pyodide fetched for the scoring');
  await screenshot(page, 'mael-humaneval');
  assert.deepEqual(page.errors, []);
});
