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
import { setup, openApp, waitForStatus, screenshot, shareLink, eventually, runFile, instantDemo } from './harness.mjs';

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
