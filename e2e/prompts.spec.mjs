// Prompts are data in the page: the travel orchestrator's template is
// edited in the Prompts dialog (a bad edit refused with its line, the
// changes shown against the paper's, a preview), a demo run takes it, its
// share link replays it in a fresh browser (the orchestrator's calls show
// the edited system prompt), and beside a run told the paper's prompts
// the Compare page opens with the template's diff. The edit survives a
// reload; Reset all is the only way it goes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setup, openApp, waitForStatus, screenshot, shareLink, eventually, runFile, instantDemo, easyTravelBatch } from './harness.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 2 })));
after(async () => env && (await env.close()));

const CHEAP = 'You coordinate a team of travel experts on a tight budget: always send the work to whoever can find the cheapest options first.';

async function runTravel(page) {
  await page.getByLabel('Query', { exact: true }).selectOption('1');
  await page.getByLabel('Variant').selectOption('orchestrator');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/, 60000);
}

async function addToComparison(page) {
  await page.locator('.run-toolbar summary', { hasText: 'Compare & teach' }).click();
  await page.getByRole('menuitem', { name: 'Add to comparison' }).click();
}

const orchestratorSystems = (doc) =>
  doc.events
    .map((e) => e.event.llm_request)
    .filter((r) => r && r.request.step === 'travel.orchestrator')
    .map((r) => r.request.messages[0].content);

test('an edited orchestrator prompt runs, replays from its link, and shows as a diff in Compare', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  page.on('dialog', (d) => d.accept());
  await instantDemo(page);
  await page.getByLabel('Coordinator').selectOption('travel');
  const line = page.getByTestId('prompts-line');
  assert.match(await line.innerText(), /Prompts: the paper's/);

  // The paper's prompts first.
  await runTravel(page);
  const paper = await runFile(page);
  assert.equal(paper.config.prompts, undefined, 'a run told the paper\'s prompts records none');
  await addToComparison(page);

  // The editor: every template listed; the orchestrator's edited.
  await line.getByRole('button', { name: 'Read or edit them…' }).click();
  const dialog = page.getByRole('dialog', { name: /^Prompts · Travel planner/ });
  await dialog.waitFor();
  const list = dialog.getByRole('navigation', { name: 'Templates' });
  assert.ok((await list.getByRole('button').count()) >= 15, 'every template');
  await list.getByRole('button', { name: /orchestrator\.system/ }).click();
  const text = dialog.getByLabel('Template', { exact: true });
  assert.match(await text.inputValue(), /^You coordinate a team of travel-planning experts/);
  // A variable the step does not give is refused, with its line.
  await text.fill(`${CHEAP}\nBudget: {{ budget }}`);
  const error = dialog.getByTestId('prompt-error');
  await error.waitFor();
  assert.match(await error.innerText(), /travel\.orchestrator\.system, line 2: it uses \{\{ budget \}\}, which this step does not give/);
  await text.fill(CHEAP);
  await error.waitFor({ state: 'detached' });
  assert.match(await dialog.locator('.prompts-changes').innerText(), /Changes from the paper's/);
  assert.equal(await dialog.locator('.prompts-changes .line-diff .added').innerText(), `+${CHEAP}`);
  await dialog.locator('.prompts-preview summary').click();
  assert.equal(await dialog.locator('.prompt-preview').innerText(), CHEAP);
  assert.match(await dialog.getByRole('button', { name: /orchestrator\.system/ }).innerText(), /edited/);
  await screenshot(page, 'prompts-dialog');
  await dialog.getByRole('button', { name: 'Done' }).click();
  await dialog.waitFor({ state: 'hidden' });
  assert.match(await line.innerText(), /Prompts edited: 1 template\./);

  // A run takes it: recorded, and sent as the orchestrator's system prompt.
  await runTravel(page);
  const edited = await runFile(page);
  assert.deepEqual(Object.keys(edited.config.prompts), ['travel.orchestrator.system']);
  const systems = orchestratorSystems(edited);
  assert.ok(systems.length > 0 && systems.every((s) => s === CHEAP), 'every orchestrator call was told the edit');
  await addToComparison(page);

  // Its share link replays it in a fresh browser, which has no edits of its own.
  const url = await shareLink(page);
  const fresh = await env.browser.newContext();
  const other = await fresh.newPage();
  await other.goto(url);
  await other.waitForSelector('body[data-ready="1"]');
  await other.getByText('Shared link', { exact: true }).waitFor();
  assert.match(await other.getByTestId('shown-prompts').innerText(), /The run on screen was told other prompts: 1 template edited/);
  await other.locator('g.node[data-agent="orchestrator"]').click();
  const inspector = other.getByRole('region', { name: 'Inspector' });
  await inspector.getByText('LLM calls').waitFor();
  await inspector.getByText('System prompt').first().click();
  assert.ok((await inspector.innerText()).includes(CHEAP), 'the inspector shows the edited system prompt');
  await screenshot(other, 'prompts-replayed');
  await fresh.close();

  // Compare: the two runs, and the template's diff at the top.
  await page.getByRole('link', { name: /^Compare/ }).click();
  const diff = page.getByTestId('prompt-diff');
  await eventually(async () => /Prompts differ: 1 template/.test(await diff.innerText()));
  assert.match(await diff.innerText(), /travel\.orchestrator\.system/);
  assert.equal(await diff.locator('.added').innerText(), `+${CHEAP}`);
  assert.match(await diff.locator('.removed').innerText(), /^−You coordinate a team of travel-planning experts/);
  await screenshot(page, 'prompts-compare');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'prompts-compare-phone');

  // The edit is kept across a reload; Reset all puts the paper's back.
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.goto(env.app.url + '/');
  await page.waitForSelector('body[data-ready="1"]');
  await page.getByLabel('Coordinator').selectOption('travel');
  assert.match(await line.innerText(), /Prompts edited: 1 template\./);
  await line.getByRole('button', { name: 'Edit…' }).click();
  await dialog.waitFor();
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'prompts-dialog-phone');
  await page.setViewportSize({ width: 1440, height: 1000 });
  await dialog.getByRole('button', { name: 'Reset all' }).click();
  await dialog.getByRole('button', { name: 'Done' }).click();
  assert.match(await line.innerText(), /Prompts: the paper's/);
  assert.equal(await page.evaluate(() => localStorage.getItem('roundtable.prompts.v1')), null);
  assert.deepEqual(page.errors, []);
});

test('a batch runs the paper\'s prompts beside the user\'s, one column each', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await instantDemo(page);
  await page.locator('nav a[href="/batch"]').click();
  const form = page.getByRole('form', { name: 'Batch setup' });
  const prompts = form.getByTestId('batch-prompts');
  // With nothing edited: the paper's, and the way to edit them.
  assert.match(await prompts.innerText(), /The paper's, as written for Roundtable/);
  await prompts.getByRole('button', { name: 'Edit them' }).click();
  const dialog = page.getByRole('dialog', { name: /^Prompts · Travel planner/ });
  await dialog.getByRole('navigation', { name: 'Templates' }).getByRole('button', { name: /orchestrator\.system/ }).click();
  await dialog.getByLabel('Template', { exact: true }).fill(CHEAP);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await dialog.waitFor({ state: 'hidden' });
  assert.match(await prompts.innerText(), /Mine \(1 template edited\)/);

  await easyTravelBatch(page, 1);
  assert.match(await form.innerText(), /1 queries × 2 variants = 2 runs/);
  await prompts.getByLabel(/The paper's and mine, side by side/).check();
  assert.match(await form.innerText(), /1 queries × 2 variants × 2 prompt sets = 4 runs/);
  await screenshot(page, 'batch-prompt-sets');
  await page.getByRole('button', { name: 'Start batch' }).click();
  await page.getByRole('status', { name: 'Batch progress' }).filter({ hasText: /Done: 4 of 4 runs/ }).waitFor({ timeout: 60000 });

  // One column per variant and prompt set, in the table and its export.
  const table = page.getByRole('region', { name: 'Batch results' }).locator('table').first();
  const heads = (await table.locator('thead th').allInnerTexts()).map((t) => t.trim());
  const solo = 'Single agent (ReAct)', orch = 'Orchestrator + notebook + critic';
  assert.deepEqual(heads.slice(1), [solo, `${solo} · edited prompts`, orch, `${orch} · edited prompts`]);
  const runs = page.getByRole('region', { name: 'Runs' });
  assert.equal(await runs.locator('tbody tr').count(), 4);
  assert.equal(await runs.locator('tbody tr', { hasText: 'edited prompts' }).count(), 2);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Summary CSV' }).click()]);
  const csv = readFileSync(await download.path(), 'utf8');
  assert.match(csv, /\nOrchestrator \+ notebook \+ critic · edited prompts,1,/);
  await screenshot(page, 'batch-prompt-sets-results');
  assert.deepEqual(page.errors, []);
});

test('ACT\'s batch side by side: a row per prompt set, ACT+ learning into a bank per set', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1400, height: 1100 });
  await instantDemo(page);
  const member = 'You are a member of a small design team. Speak for your own task and say what could go wrong with it.';
  await page.evaluate((text) => localStorage.setItem('roundtable.prompts.v1', JSON.stringify({ act: { 'act.member.system': text } })), member);
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await page.getByRole('link', { name: 'ACT', exact: true }).click();
  const form = page.getByRole('form', { name: 'Batch setup' });
  await form.getByLabel('Tasks', { exact: true }).selectOption('builtin');
  await form.getByLabel('ACT − break time').uncheck();
  await form.getByLabel('Baseline (all five removed)').uncheck();
  await form.getByLabel('ACT+ (knowledge carried over)').check();
  await form.getByLabel('ACT+ knowledge bank').fill('e2e-sets');
  await form.getByLabel('ACT+ knowledge bank').dispatchEvent('change');
  await form.getByLabel('Trials (K)').fill('2');
  await form.getByLabel('Trials (K)').dispatchEvent('change');
  const prompts = form.getByTestId('batch-prompts');
  assert.match(await prompts.innerText(), /Mine \(1 template edited\)/);
  await prompts.getByLabel(/The paper's and mine, side by side/).check();
  assert.match(await form.innerText(), /2 variant\(s\) × 2 trial\(s\) × 2 prompt sets = 8 runs/);
  await page.getByRole('button', { name: 'Start batch' }).click();
  await page.getByRole('status', { name: 'Batch progress' }).getByText(/Done: 8 of 8 runs/).waitFor({ timeout: 120000 });
  const results = page.getByRole('region', { name: 'Batch results' });
  const rows = (await results.locator('table.act-report tbody th').allInnerTexts()).map((t) => t.trim());
  assert.deepEqual(rows, ['ACT', 'ACT · edited prompts', 'ACT+ (knowledge carried over)', 'ACT+ (knowledge carried over) · edited prompts']);
  assert.match(await results.innerText(), /the paper's prompts and edited ones/);
  // Each set's ACT+ trials filled a bank of their own, two trials each.
  const banks = page.getByRole('region', { name: 'Knowledge banks' });
  const trialsOf = async (name) => {
    const row = banks.locator('tbody tr').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
    return (await row.count()) === 1 ? (await row.locator('td').first().innerText()).trim() : null;
  };
  await eventually(async () => (await trialsOf('e2e-sets')) === '2' && (await trialsOf("e2e-sets (paper's prompts)")) === '2');
  await screenshot(page, 'act-batch-prompt-sets');
  assert.deepEqual(page.errors, []);
});
