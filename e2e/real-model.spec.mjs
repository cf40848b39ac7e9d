// A real model in the page, added as a user adds one: SmolLM2-135M-Instruct
// (Q4_1, the file scripts/setup.sh --browser fetches; scripts/test.sh names
// it in ROUNDTABLE_REAL_MODEL) picked in Settings → Local model, answers
// kept short in Settings. The single agent's answer streams with counted
// tokens; then one MAEL task and one ACT task run to their end, every
// structured reply held to its schema, and what their steps had to repair
// is counted and shown.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { setup, openApp, waitForStatus, screenshot, runFile } from './harness.mjs';

const MODEL = process.env.ROUNDTABLE_REAL_MODEL;
let env;

before(async () => {
  if (!MODEL || !existsSync(MODEL)) {
    throw new Error(`ROUNDTABLE_REAL_MODEL (${MODEL ?? 'unset'}) names no file: scripts/test.sh sets it to what \`bash scripts/setup.sh --model-path\` prints, after setup fetched the model.`);
  }
  env = await setup();
});
after(async () => env && (await env.close()));

const responses = (doc) => doc.events.map((e) => e.event.llm_response).filter(Boolean);

test('SmolLM2 added in Settings answers the single agent as it streams, then runs a MAEL task and an ACT task to their end', { timeout: 1_200_000 }, async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Provider', { exact: true }).selectOption('local');
  await dialog.getByTestId('local-empty').waitFor();
  await dialog.locator('#local-file').setInputFiles(MODEL);
  await dialog.getByText(/Added .*Q4_1/i).waitFor({ timeout: 120_000 });
  await dialog.getByLabel('Temperature').fill('0');
  await dialog.getByLabel('Longest answer (tokens)').fill('48');
  await screenshot(page, 'real-model-settings');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });

  // The single agent: the answer streams in before the run ends.
  await page.getByRole('textbox', { name: 'Task', exact: true }).fill('What is the capital of France? Answer in one sentence.');
  // Watched from before the click: the model writes this answer in about
  // a second, so polling for the streaming message could miss it.
  await page.evaluate(() => {
    window.__streamed = '';
    new MutationObserver(() => {
      const md = document.querySelector('.msg.streaming .md');
      if (md && /\S/.test(md.textContent)) window.__streamed = md.textContent;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction(() => window.__streamed !== '', null, { timeout: 120_000 });
  await waitForStatus(page, /Finished/, 180_000);
  await screenshot(page, 'real-model-single');
  const single = await runFile(page);
  const [answer] = responses(single);
  assert.match(answer.response.text, /Paris/, 'greedy SmolLM2 knows it');
  assert.ok(answer.response.usage.input_tokens > 20 && answer.response.usage.output_tokens > 0, 'counted tokens');
  assert.equal(answer.response.usage.estimated, undefined, 'counted, not estimated');
  assert.equal(single.config.models[0].spec.temperature, 0);
  assert.equal(single.config.models[0].spec.max_tokens, 48);

  // One MAEL task, two agents, learning off: it ends, and the status line
  // says how many replies its steps had to repair.
  await page.getByLabel('Coordinator').selectOption('mael');
  assert.equal(await page.getByTestId('ml-temperature').innerText(),
    'Temperature 0 (set in Settings; the paper samples at 0.2) · answers up to 48 tokens');
  await page.locator('#ml-size').fill('2');
  await page.locator('#ml-size').press('Tab');
  await page.locator('#ml-learn').uncheck();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Running/, 30_000);
  await waitForStatus(page, /Finished|Failed|Stopped/, 480_000);
  const status = await page.getByTestId('run-status').innerText();
  assert.match(status, /Finished/, status);
  assert.match(status, /replies repaired: \d+ of \d+/, status);
  await screenshot(page, 'real-model-mael');
  const mael = await runFile(page);
  const repaired = new Set(mael.events.map((e) => e.event.reply_repaired).filter(Boolean).map((r) => r.call));
  const [, shown, total, unreadable] = status.match(/replies repaired: (\d+) of (\d+)(?: · unreadable: (\d+) of \d+)?/);
  const unread = new Set(mael.events.map((e) => e.event.reply_repaired).filter((r) => r && r.repairs.some((x) => ['default', 'asked_again'].includes(x.kind))).map((r) => r.call));
  assert.equal(Number(unreadable ?? 0), unread.size, 'the unreadable replies shown are those recorded');
  assert.equal(Number(shown) + Number(unreadable ?? 0), repaired.size, 'the counts shown are the repairs recorded');
  assert.equal(Number(total), responses(mael).length);
  // Every structured step's reply was held to its schema by constrained
  // decoding, and says so; free-text steps carry no such mark.
  const shapedCalls = new Set(mael.events.map((e) => e.event.llm_request).filter((r) => r && r.request.params?.schema).map((r) => r.call));
  assert.ok(shapedCalls.size > 0, 'MAEL asked for shaped replies');
  for (const r of responses(mael)) {
    assert.equal(r.response.structured, shapedCalls.has(r.call) ? 'schema' : undefined, `call ${r.call}`);
  }
  assert.equal(await page.locator('.shape-mark.held').count(), shapedCalls.size, 'each shaped reply is marked held to schema');
  assert.equal(await page.locator('.shape-mark:not(.held)').count(), 0);
  const marks = page.locator('.repair-mark');
  assert.equal(await marks.count(), repaired.size, 'each repaired reply carries a mark');
  if (repaired.size > 0) {
    await marks.first().locator('summary').focus();
    await page.keyboard.press('Enter');
    await marks.first().locator('li').first().waitFor();
    await screenshot(page, 'real-model-mael-repair');
  }
  // ACT on the same model: a task the team of two splits itself, in the
  // baseline row of Table 6 (no meetings before production: the shortest
  // run through decomposition, expertise, the production meeting and the
  // leader's check). Every structured step is held to its schema.
  await page.getByLabel('Coordinator').selectOption('act');
  await page.locator('#act-source').selectOption('free');
  await page.locator('#act-free').fill('Plan a school picnic for thirty children: food, games and transport.');
  await page.locator('#act-size').fill('2');
  await page.locator('#act-size').press('Tab');
  await page.locator('#act-variant').selectOption('baseline');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Running/, 30_000);
  const actStarted = Date.now();
  await waitForStatus(page, /Finished|Failed|Stopped/, 480_000);
  console.log(`# ACT on SmolLM2 in the page: ${((Date.now() - actStarted) / 1000).toFixed(0)} s`);
  const actStatus = await page.getByTestId('run-status').innerText();
  assert.match(actStatus, /Finished/, actStatus);
  await screenshot(page, 'real-model-act');
  const act = await runFile(page);
  // What a flagged reply was, for the log (a 135M model's words vary with the kernels).
  for (const r of act.events.map((e) => e.event.reply_repaired).filter(Boolean)) {
    const step = act.events.map((e) => e.event.llm_request).find((q) => q && q.call === r.call)?.request.step;
    console.log(`# ACT call ${r.call} (${step}) flagged: ${r.repairs.map((x) => `${x.kind}: ${x.detail}`).join('; ')}`);
  }
  const actShaped = new Set(act.events.map((e) => e.event.llm_request).filter((r) => r && r.request.params?.schema).map((r) => r.call));
  const actSteps = new Set(act.events.map((e) => e.event.llm_request).filter(Boolean).map((r) => r.request.step));
  for (const step of ['act.decompose', 'act.expertise', 'act.production.draft', 'act.production.check']) {
    assert.ok(actSteps.has(step), `${step} asked: ${[...actSteps]}`);
  }
  assert.ok(actShaped.size >= 4, `ACT asked for shaped replies: ${actShaped.size}`);
  for (const r of responses(act)) {
    assert.equal(r.response.structured, actShaped.has(r.call) ? 'schema' : undefined, `ACT call ${r.call}`);
  }
  assert.equal(await page.locator('.shape-mark.held').count(), actShaped.size, 'each shaped ACT reply is marked held to schema');
  assert.equal(await page.locator('.shape-mark:not(.held)').count(), 0);
  // The other setup panels say which temperature their requests carry.
  await page.getByLabel('Coordinator').selectOption('travel');
  assert.equal(await page.getByTestId('travel-temperature').innerText(), 'Temperature 0 (set in Settings) · answers up to 48 tokens');
  await page.getByLabel('Coordinator').selectOption('act');
  assert.match(await page.getByTestId('act-temperature').innerText(), /^Temperature 0\.7 for the agents' speech, 0 for .*Settings temperature does not change them\) · answers up to 48 tokens$/);
  assert.deepEqual(page.errors, []);
});

// A reply that loops: greedy SmolLM2 answers "Tell me a joke." with one
// line written again and again (found with the engine natively). The line's
// words depend on the kernels — here `A: "A joke about a joke."`, natively
// with quantised weights another line, in the CLI (weights unpacked to f32)
// `Z: "` — but each loops. The engine stops it once one block has come three
// times in a row, and the transcript says so on the reply.
test('SmolLM2 looping at temperature 0 is stopped and the reply marked "stopped: it kept repeating itself"', { timeout: 600_000 }, async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Provider', { exact: true }).selectOption('local');
  await dialog.getByTestId('local-empty').waitFor();
  await dialog.locator('#local-file').setInputFiles(MODEL);
  await dialog.getByText(/Added .*Q4_1/i).waitFor({ timeout: 120_000 });
  await dialog.getByLabel('Temperature').fill('0');
  await dialog.getByLabel('Longest answer (tokens)').fill('200');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByRole('textbox', { name: 'Task', exact: true }).fill('Tell me a joke.');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/, 300_000);
  const mark = page.locator('article.msg .finish-mark');
  await mark.first().waitFor();
  assert.equal(await mark.locator('summary').innerText(), 'stopped: it kept repeating itself');
  await screenshot(page, 'real-model-loop');
  const [answer] = responses(await runFile(page));
  assert.equal(answer.response.finish_reason, 'repeat');
  assert.ok(answer.response.usage.output_tokens < 200, `stopped before the cap: ${answer.response.usage.output_tokens} tokens`);
  assert.deepEqual(page.errors, []);
});
