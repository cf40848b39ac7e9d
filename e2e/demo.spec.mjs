// (a) The offline demo model with no key: the transcript streams, the run
// completes, the graph, usage and events show it; Pause / Step / Space;
// screenshots of the run page in light and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openApp, runTask, waitForStatus, screenshot, eventually, openEvents } from './harness.mjs';

let env;
before(async () => (env = await setup()));
after(async () => env && (await env.close()));

const transcript = (page) => page.getByRole('log', { name: 'Transcript' });

test('demo model streams an answer with no key and the run completes', async () => {
  const page = await openApp(env);
  await assert.doesNotReject(page.getByRole('button', { name: 'Run', exact: true }).waitFor());
  await runTask(page, 'What is 12 * (3 + 4)? Plan a short study session.');
  // Streaming: the answer grows over several observations before the run ends.
  const lengths = [];
  await eventually(async () => {
    const text = await transcript(page).innerText();
    lengths.push(text.length);
    return (await page.getByTestId('run-status').innerText()).includes('Finished');
  }, { timeout: 20000, interval: 60 });
  const distinct = new Set(lengths).size;
  assert.ok(distinct >= 4, `transcript should grow progressively, saw lengths ${lengths.join(',')}`);
  const text = await transcript(page).innerText();
  assert.match(text, /not written by a language model/);
  assert.match(text, /= 84/);
  assert.match(text, /Run finished/);
  // Graph: one agent, idle at the end. Usage: estimated.
  const node = page.locator('g.node[data-agent="assistant"]');
  assert.equal(await node.getAttribute('data-status'), 'idle');
  assert.match(await page.getByTestId('usage-summary').innerText(), /≈/);
  // The inspector works for every coordinator: the assistant's one call.
  await node.click();
  const inspector = page.getByRole('region', { name: 'Inspector' });
  await inspector.getByText('LLM calls').waitFor();
  const seen = await inspector.innerText();
  assert.match(seen, /Assistant[\s\S]*LLM calls \(1\)[\s\S]*single\.answer[\s\S]*= \*\*84\*\*/);
  assert.doesNotMatch(seen, /Reflections|Tool calls/);
  await inspector.getByRole('button', { name: 'Close the inspector' }).click();
  // Events tab lists the log.
  await openEvents(page);
  const kinds = await page.locator('.event').evaluateAll((els) => els.map((e) => e.dataset.kind));
  for (const k of ['run_started', 'agent_added', 'llm_request', 'llm_delta', 'llm_response', 'run_finished']) {
    assert.ok(kinds.includes(k), `events include ${k}`);
  }
  assert.deepEqual(page.errors, []);
});

test('Step from idle holds the run before its first call; Space sends it', async () => {
  const page = await openApp(env);
  await page.getByRole('textbox', { name: 'Task', exact: true }).fill('Summarise the rules of chess.');
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await waitForStatus(page, /Paused — next: Assistant/);
  // Held at the gate: no request was sent, nothing streams.
  await page.waitForTimeout(400);
  await openEvents(page);
  const kinds = await page.locator('.event').evaluateAll((els) => els.map((e) => e.dataset.kind));
  assert.ok(kinds.includes('agent_added'), 'the run started');
  assert.ok(!kinds.includes('llm_request'), `no LLM request while paused: ${kinds}`);
  assert.equal(await page.getByRole('button', { name: 'Pause', exact: true }).isDisabled(), true);
  // Space (focus not in a field or on a button) steps one call.
  await page.locator('body').click({ position: { x: 5, y: 300 } });
  await page.keyboard.press('Space');
  await waitForStatus(page, /Finished/);
  const after = await page.locator('.event').evaluateAll((els) => els.map((e) => e.dataset.kind));
  assert.equal(after.filter((k) => k === 'llm_request').length, 1);
  assert.deepEqual(page.errors, []);
});

test('Pause during a run holds the next call; Run continues it', async () => {
  const page = await openApp(env);
  await page.getByRole('textbox', { name: 'Task', exact: true }).fill('Explain recursion.');
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await waitForStatus(page, /Paused/);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/);
  assert.deepEqual(page.errors, []);
});

test('screenshots of the run page in light and dark', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 900 });
  await runTask(page, 'Compare three note-taking methods and estimate 25 * 4 minutes of practice.');
  await waitForStatus(page, /Finished/);
  await screenshot(page, 'run-light');
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  await page.mouse.move(0, 0);
  await page.waitForTimeout(300); // let colour transitions settle
  await screenshot(page, 'run-dark');
  await page.setViewportSize({ width: 420, height: 900 });
  await screenshot(page, 'run-narrow-dark');
});
