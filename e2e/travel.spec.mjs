// The travel planner in the browser: a demo-model run fills the notebook
// and ends with a scored plan; a run against the mock server scripted as a
// tool-calling LLM (OpenAI native tool calls) completes; the real
// TravelPlanner database is imported through the folder picker.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setup, openApp, configure, waitForStatus, screenshot, easyTravelBatch } from './harness.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 2 })));
after(async () => env && (await env.close()));
beforeEach(() => env.mock.reset());

const SHARED = resolve(process.env.ROUNDTABLE_SHARED || '../shared');
const gold = (idx) =>
  readFileSync('public/travel/builtin_queries.jsonl', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((q) => q.idx === idx);

async function chooseTravel(page, { query = '1', variant = 'orchestrator' } = {}) {
  await page.getByLabel('Coordinator').selectOption('travel');
  await page.getByLabel('Query', { exact: true }).selectOption(query);
  await page.getByLabel('Variant').selectOption(variant);
}

test('demo model: experts fill the notebook, the plan is scored constraint by constraint', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await chooseTravel(page);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  // Switching views while tokens stream is safe (panels come and go).
  await page.locator('.transcript .entry').first().waitFor();
  for (const tab of ['Notebook', 'Plan', 'Events', 'Transcript', 'Notebook', 'Transcript']) {
    await page.getByRole('tab', { name: new RegExp(tab) }).click();
    await page.waitForTimeout(150);
  }
  await waitForStatus(page, /Finished/, 60000);
  assert.deepEqual(page.errors, [], 'no errors while switching views mid-run');
  await page.getByRole('tab', { name: /Notebook/ }).click();
  const notebook = page.getByRole('region', { name: 'Notebook' });
  const cards = notebook.locator('.tp-card');
  await cards.first().waitFor();
  assert.ok((await cards.count()) >= 4, 'one notebook entry per tool call at least');
  assert.match(await notebook.innerText(), /AccommodationSearch/);
  assert.ok((await notebook.locator('table').count()) >= 4, 'tool results shown as tables');
  // "source" opens the tool call in the Events tab.
  await cards.first().getByRole('button', { name: 'source' }).click();
  await page.locator('.event.focused details[open]').waitFor();
  assert.match(await page.locator('.event.focused').innerText(), /tool_called/);
  await page.getByRole('tab', { name: /Notebook/ }).click();
  await screenshot(page, 'travel-notebook');
  await page.getByRole('tab', { name: /Plan/ }).click();
  const plan = page.getByRole('table', { name: 'Plan' });
  await plan.waitFor();
  assert.equal(await plan.locator('tbody tr').count(), 3, 'a 3-day plan');
  assert.ok((await plan.locator('td.cell-pass').count()) > 10, 'cells coloured by their verdicts');
  const metrics = page.getByRole('region', { name: 'Metrics' });
  assert.match(await metrics.innerText(), /Within Sandbox/);
  assert.match(await metrics.innerText(), /Final pass\s*pass/i, 'the demo team passes query 1');
  await screenshot(page, 'travel-plan');
  // The plan and the metrics export as CSV.
  await page.locator('.run-toolbar summary', { hasText: 'Export' }).click();
  const [planFile] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: 'Plan (.csv)' }).click()]);
  const planCsv = readFileSync(await planFile.path(), 'utf8').trim().split('\n');
  assert.equal(planCsv.length, 4, 'header + 3 days');
  assert.match(planCsv[0], /^Day,Current city,Transportation,Breakfast,Attraction,Lunch,Dinner,Accommodation,Failed checks$/);
  await page.locator('.run-toolbar summary', { hasText: 'Export' }).click();
  const [metricsFile] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: 'Metrics (.csv)' }).click()]);
  assert.match(readFileSync(await metricsFile.path(), 'utf8'), /commonsense,is_valid_information_in_sandbox,Within Sandbox,pass/);
  // Hand-offs and private tool loops are on the graph.
  assert.ok((await page.locator('g.edge-handoff').count()) >= 4, 'orchestrator → expert hand-offs');
  assert.ok((await page.locator('g.node[data-agent="hotel"] .tool-loop').count()) === 1, 'the expert\'s own tool loop');
  // The orchestrator's reflections are in its inspector; an expert's tool calls in its own.
  // The inspector is generic (tool calls, hand-offs, LLM calls); the
  // reflections are the travel planner's own section of it.
  await page.locator('g.node[data-agent="orchestrator"]').click();
  const inspector = page.getByRole('region', { name: 'Inspector' });
  await inspector.locator('.tp-reflection').first().waitFor();
  assert.match(await inspector.innerText(), /Orchestrator[\s\S]*Reflections[\s\S]*Missing[\s\S]*Hand-offs[\s\S]*LLM calls/);
  await screenshot(page, 'travel-orchestrator-inspector');
  await page.locator('g.node[data-agent="hotel"]').click();
  await inspector.getByText('Hotel expert').first().waitFor();
  assert.match(await inspector.innerText(), /AccommodationSearch\[[\s\S]*Hand-offs[\s\S]*Orchestrator → Hotel expert/);
  assert.doesNotMatch(await inspector.innerText(), /Reflections/, 'experts have no reflections');
  await screenshot(page, 'travel-inspector');
  assert.deepEqual(page.errors, []);
});

test('fork a travel run at call 2 with an edited response: it continues live and finishes', async () => {
  const page = await openApp(env);
  await chooseTravel(page, { query: '2' });
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/, 60000);
  const calls = Number((await page.getByTestId('run-status').innerText()).match(/(\d+) LLM calls/)[1]);
  await page.locator('article.msg[data-call="1"]').hover();
  await page.locator('article.msg[data-call="1"]').getByRole('button', { name: 'Fork here' }).click();
  const dialog = page.getByRole('dialog', { name: /Fork at call 2/ });
  await dialog.getByLabel('Use my edited answer').check();
  await dialog.getByLabel('Answer', { exact: true }).fill('No tools this time: I could not find a route, please ask me again.');
  await dialog.getByRole('button', { name: 'Fork and continue' }).click();
  await waitForStatus(page, /Finished/, 60000);
  assert.match(await page.locator('.run-toolbar').innerText(), /Forked from/);
  const usage = await page.locator('.usage-panel').innerText();
  assert.match(usage, /2 calls answered from the parent run's log/, 'call 1 replayed, call 2 the edited answer');
  assert.match(await page.getByRole('log', { name: 'Transcript' }).innerText(), /could not find a route/);
  const forked = Number((await page.getByTestId('run-status').innerText()).match(/(\d+) LLM calls/)[1]);
  assert.ok(forked > calls, `the orchestrator had to come back to the transportation expert (${forked} vs ${calls} calls)`);
  assert.match(await page.getByRole('region', { name: 'Metrics' }).innerText(), /Delivered\s*pass/);
  assert.deepEqual(page.errors, []);
});

test('batch: two variants over the easy queries, the paper\'s table, exports, and opening a run', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.locator('nav a[href="/batch"]').click();
  await easyTravelBatch(page, 2);
  assert.match(await page.getByRole('form', { name: 'Batch setup' }).innerText(), /2 queries × 2 variants = 4 runs/);
  await page.getByRole('button', { name: 'Start batch' }).click();
  const progress = page.getByRole('status', { name: 'Batch progress' });
  await progress.filter({ hasText: /Done: 4 of 4 runs/ }).waitFor({ timeout: 60000 });
  const table = page.getByRole('region', { name: 'Batch results' }).locator('table').first();
  const text = await table.innerText();
  for (const row of ['Delivery Rate', 'Commonsense Pass Rate (Micro)', 'Hard Constraint Pass Rate (Macro)', 'Final Pass Rate']) {
    assert.match(text, new RegExp(row.replace(/[()]/g, '\\$&')));
  }
  assert.match(text, /Single agent/);
  assert.match(text, /Orchestrator/);
  assert.equal(await page.getByRole('img', { name: 'Pass rates per group' }).count(), 1);
  await screenshot(page, 'travel-batch');
  // Exports: the runs CSV has one line per run.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Runs CSV' }).click()]);
  const csv = readFileSync(await download.path(), 'utf8').trim().split('\n');
  assert.equal(csv.length, 5, 'header + 4 runs');
  assert.match(csv[0], /^group,variant,query_idx/);
  // Open one run: it shows on the Run page with its notebook and plan.
  const runs = page.getByRole('region', { name: 'Runs' });
  assert.equal(await runs.locator('tbody tr').count(), 4);
  await runs.getByRole('button', { name: 'Open' }).last().click();
  await page.getByText('Batch run', { exact: true }).waitFor();
  await page.getByRole('tab', { name: /Plan/ }).click();
  await page.getByRole('table', { name: 'Plan' }).waitFor();
  // The runs were saved to History.
  await page.getByRole('link', { name: 'History' }).click();
  await page.getByRole('heading', { name: 'History' }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.run-row').length >= 4);
  assert.deepEqual(page.errors, []);
});

test('a tool-calling LLM (OpenAI native tool calls, mock server) completes a run', async () => {
  const page = await openApp(env);
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'sk-t' });
  await chooseTravel(page);
  const q = gold(1);
  const decide = (next) => ({ text: JSON.stringify({ done: '', missing: next, conflicts: '', next, instruction: `please handle ${next}` }) });
  const post = (what) => ({ text: `${what} done.\n\`\`\`json\n{"estimated_cost": 100}\n\`\`\`` });
  env.mock.script([
    decide('transportation'),
    { toolCalls: [{ name: 'FlightSearch', arguments: { origin: q.org, destination: q.dest, date: q.date[0] } }] },
    post('Transportation'),
    decide('hotel'),
    { toolCalls: [{ name: 'AccommodationSearch', arguments: { city: q.dest } }] },
    post('Hotel'),
    decide('restaurant'),
    { toolCalls: [{ name: 'RestaurantSearch', arguments: { city: q.dest } }] },
    post('Restaurant'),
    decide('attraction'),
    { toolCalls: [{ name: 'AttractionSearch', arguments: { city: q.dest } }] },
    post('Attraction'),
    decide('plan'),
    { text: JSON.stringify({ plan: q.annotated_plan, notes: 'Every part from the team\'s findings.' }) },
    { text: JSON.stringify({ summary: 'All constraints hold.', problems: [], approved: true }) },
  ]);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/, 60000);
  const log = env.mock.log();
  assert.equal(log.length, 15);
  const toolOffer = log[1].body.tools.map((t) => t.function.name);
  assert.deepEqual(toolOffer.sort(), ['CitySearch', 'FlightSearch', 'GoogleDistanceMatrix']);
  const followUp = log[2].body.messages;
  assert.equal(followUp.at(-1).role, 'tool', 'the tool result went back as a tool message');
  assert.match(followUp.at(-1).content, /F\d{7}/, 'a real flight from the sandbox');
  assert.ok(!JSON.stringify(log[3].body).includes(followUp.at(-1).content), 'the orchestrator never sees tool returns');
  // The orchestrator and the compiler ask for their shapes (strict JSON Schemas).
  assert.equal(log[12].body.response_format?.json_schema?.schema?.properties?.next?.type, 'string');
  assert.equal(log[13].body.response_format?.type, 'json_schema');
  assert.equal(log[13].body.response_format.json_schema.schema.properties.plan.type, 'array');
  assert.equal(log[14].body.response_format?.json_schema?.schema?.properties?.approved?.type, 'boolean', 'the critic\'s verdict is a boolean');
  assert.match(await page.getByRole('region', { name: 'Metrics' }).innerText(), /Final pass\s*pass/i);
});

test('the real TravelPlanner database imports through the folder picker', async (t) => {
  const dir = resolve(SHARED, 'travelplanner/database');
  if (!existsSync(dir)) {
    console.log(`\n!!! SKIPPED: ${dir} not found — the real-database import test needs ../shared (set ROUNDTABLE_SHARED).\n`);
    t.skip(`${dir} not found`);
    return;
  }
  const page = await openApp(env);
  await page.getByLabel('Coordinator').selectOption('travel');
  await page.getByRole('button', { name: 'Import database…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import the TravelPlanner database' });
  await dialog.getByLabel('Name').fill('TravelPlanner (train)');
  await dialog.getByLabel('Database folder').setInputFiles(dir);
  const done = dialog.getByRole('status').filter({ hasText: /Imported/ });
  await done.waitFor({ timeout: 60000 });
  const text = await done.innerText();
  assert.match(text, /4285 accommodations \(762 rows/);
  assert.match(text, /5302 attractions, 9551 restaurants, 313 flights, 17602 road pairs, 312 cities/);
  await dialog.getByRole('button', { name: 'Close' }).click();
  assert.equal(await page.getByLabel('Database', { exact: true }).inputValue(), 'TravelPlanner (train)');
  // It survives a reload (kept in IndexedDB).
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await page.getByLabel('Coordinator').selectOption('travel');
  await page.getByLabel('Database', { exact: true }).locator('option', { hasText: 'TravelPlanner (train)' }).waitFor({ state: 'attached' });
});
