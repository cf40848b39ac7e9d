// What the screen says is what ran: a shown run's setup panel reflects its
// config (read-only until "Edit for a new run"); the status line counts
// answered calls as Usage does, says which are running or waiting for a
// slot, and its clock runs while a prompt is read with no events; panels
// that wait for the end say when a run was stopped before it.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setup, openApp, configure, runTask, runMaelInProse, waitForStatus, screenshot, shareLink, eventually, runFile } from './harness.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 30 })));
after(async () => env && (await env.close()));
beforeEach(() => env.mock.reset());

const status = (page) => page.getByTestId('run-status').innerText();

async function openHistory(page) {
  await page.getByRole('link', { name: 'History' }).click();
  await page.getByRole('heading', { name: 'History' }).waitFor();
}

test('a MAEL run opened from History shows its own setup, read-only until edited for a new run', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.getByLabel('Coordinator').selectOption('mael');
  // The panel may still be adopting its saved setup when it first shows (a
  // loaded machine took long enough that it reset the size typed here):
  // set the form until it holds what the run is meant to use.
  for (let tries = 0; ; tries++) {
    await page.locator('#ml-mode').selectOption('none');
    await page.locator('#ml-size').fill('2');
    await page.locator('#ml-size').press('Tab');
    await page.locator('#ml-learn').uncheck();
    await page.waitForTimeout(300);
    const held =
      (await page.locator('#ml-mode').inputValue()) === 'none' &&
      (await page.locator('#ml-size').inputValue()) === '2' &&
      !(await page.locator('#ml-learn').isChecked());
    if (held) break;
    assert.ok(tries < 10, 'the MAEL form keeps losing what was typed into it');
  }
  const before = await status(page);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction((b) => document.querySelector('[data-testid="run-status"]')?.innerText !== b, before);
  await waitForStatus(page, /Finished/, 60000);
  // The user moves on: the setup now says something else.
  await page.locator('#ml-mode').selectOption('step');
  await page.locator('#ml-size').fill('3');
  await page.locator('#ml-size').press('Tab');
  await page.locator('#ml-learn').check();

  await openHistory(page);
  await page.locator('.run-row').first().getByRole('button', { name: 'Open' }).click();
  await page.getByText('From History', { exact: true }).waitFor();
  await page.getByTestId('shown-setup').waitFor();
  assert.equal(await page.locator('#ml-mode').inputValue(), 'none', 'the run was made with no experience');
  assert.equal(await page.locator('#ml-size').inputValue(), '2');
  assert.equal(await page.locator('#ml-learn').isChecked(), false);
  for (const id of ['#ml-mode', '#ml-size', '#ml-learn', '#ml-task']) {
    assert.equal(await page.locator(id).isDisabled(), true, `${id} is read-only while it shows the run`);
  }
  await screenshot(page, 'shown-setup-mael');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'shown-setup-mael-phone');
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.getByRole('button', { name: 'Edit for a new run' }).click();
  await page.getByTestId('shown-setup').waitFor({ state: 'hidden' });
  assert.equal(await page.locator('#ml-mode').isDisabled(), false);
  assert.equal(await page.locator('#ml-mode').inputValue(), 'none', 'editing starts from the run on screen');
  // What the user edits stays: saving the run or coming back to the Run
  // page does not adopt the run's setup again.
  await page.locator('#ml-mode').selectOption('step');
  await openHistory(page);
  await page.getByRole('link', { name: 'Run', exact: true }).click();
  await page.locator('#ml-mode').waitFor();
  assert.equal(await page.locator('#ml-mode').inputValue(), 'step', 'the edit survives leaving the Run page');
  // Another coordinator's panel is not the shown run's: never locked by it.
  await openHistory(page);
  await page.locator('.run-row').first().getByRole('button', { name: 'Open' }).click();
  await page.getByTestId('shown-setup').waitFor();
  assert.equal(await page.locator('#ml-mode').inputValue(), 'none', 'opening the run again shows its setup again');
  await page.getByLabel('Coordinator').selectOption('travel');
  await page.getByLabel('Variant').waitFor();
  assert.equal(await page.getByTestId('shown-setup').count(), 0, "travel's panel does not claim the MAEL run's setup");
  assert.equal(await page.getByLabel('Variant').isDisabled(), false);
  assert.deepEqual(page.errors, []);
});

test("an ACT run from an imported set: where the set is, the panel picks it; where it is not, the run's own task", async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.getByRole('link', { name: 'ACT', exact: true }).click();
  const sets = page.getByRole('region', { name: 'Task sets' });
  await sets.waitFor();
  const items = ['a', 'b', 'c'].map((x) => JSON.stringify({ subject: `Design a ${x} tea corner`, details: ['small room'], solutions: [`${x} oolong shelf`] })).join('\n');
  await sets.getByLabel('Name').fill('e2e-tea');
  await sets.getByLabel('Import task set file').setInputFiles({ name: 'tea.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(items) });
  await sets.getByText(/Imported 3 items as "e2e-tea"/).waitFor();
  await page.getByRole('link', { name: 'Run', exact: true }).click();
  await page.getByLabel('Coordinator').selectOption('act');
  await page.locator('#act-source').selectOption('e2e-tea');
  await page.locator('#act-trial').fill('1');
  await page.locator('#act-trial').press('Tab');
  const task = await page.locator('.act-preview').innerText();
  assert.match(task, /tea corner/);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/, 90000);
  const link = await shareLink(page);
  // Here: the set is found by its name, at the run's trial.
  await page.locator('#act-source').selectOption('builtin');
  await openHistory(page);
  await page.locator('.run-row').first().getByRole('button', { name: 'Open' }).click();
  await page.getByTestId('shown-setup').waitFor();
  await eventually(async () => (await page.locator('#act-source').inputValue()) === 'e2e-tea');
  assert.equal(await page.locator('#act-trial').inputValue(), '1');
  // Elsewhere (no such set): the run's own task, not this browser's.
  const other = await openApp(env);
  await other.goto(link);
  await other.getByTestId('shown-setup').waitFor();
  await eventually(async () => (await other.locator('#act-source').inputValue()) === 'shown');
  assert.equal(await other.locator('.act-preview').innerText(), task);
  assert.equal(await other.locator('#act-trial').count(), 0, 'no trial to pick from a set that is not here');
  await screenshot(other, 'shown-setup-act-elsewhere');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(other.errors, []);
});

test('a travel run opened from a share link shows its variant and tool mode', async () => {
  const page = await openApp(env);
  await page.getByLabel('Coordinator').selectOption('travel');
  await page.getByLabel('Query', { exact: true }).selectOption('2');
  await page.getByLabel('Variant').selectOption('fixed-notebook');
  await page.locator('#tool-mode').selectOption('text');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/, 60000);
  const link = await shareLink(page);

  const other = await openApp(env);
  await other.goto(link);
  await other.getByTestId('shown-setup').waitFor();
  assert.equal(await other.getByLabel('Variant').inputValue(), 'fixed-notebook');
  assert.equal(await other.getByLabel('Query', { exact: true }).inputValue(), '2');
  assert.equal(await other.locator('#tool-mode').inputValue(), 'text');
  assert.equal(await other.getByTestId('tool-mode-why').innerText(), 'What the run on screen used.');
  assert.equal(await other.getByLabel('Variant').isDisabled(), true);
  await screenshot(other, 'shown-setup-travel');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(other.errors, []);
});

test('while a prompt is read with no events the clock runs; the status counts what Usage counts', async () => {
  const page = await openApp(env);
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'k' });
  env.mock.script([{ text: 'Answered after a long read.', hangMs: 3000 }]);
  await runTask(page, 'Take your time.');
  await waitForStatus(page, /Running · 0 LLM calls · 1 running/);
  const secs = async () => Number((await status(page)).match(/([\d.]+) s/)[1]);
  const first = await secs();
  await page.waitForTimeout(1500);
  const later = await secs();
  assert.ok(later - first >= 1, `the clock ran while nothing came (${first} → ${later} s)`);
  await waitForStatus(page, /Finished/);
  assert.match(await status(page), /^Finished · 1 LLM call · /);
  assert.equal(await page.getByTestId('usage-summary').locator('dd').first().innerText(), '1');
  const secsDone = Number((await status(page)).match(/([\d.]+) s/)[1]);
  assert.ok(secsDone >= 3, `the whole wait is counted (${secsDone} s)`);
  assert.deepEqual(page.errors, []);
});

test('with one parallel call, agents waiting their turn are shown as waiting, and recorded', async () => {
  const page = await openApp(env);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Parallel LLM calls').fill('1');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  // MAEL's agents solve their subtasks at the same time.
  await page.getByLabel('Coordinator').selectOption('mael');
  await page.locator('#ml-learn').uncheck();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const seen = await eventually(async () => {
    const s = await status(page);
    return /· 1 running · \d+ waiting for a slot/.test(s) && s;
  }, { timeout: 60000, interval: 20 });
  assert.doesNotMatch(seen, /[2-9] running/, 'one slot: never more than one call running');
  await waitForStatus(page, /Finished/, 180000);
  const doc = await runFile(page);
  const queued = doc.events.filter((e) => e.event.llm_queued).length;
  const answered = doc.events.filter((e) => e.event.llm_response).length;
  assert.ok(queued > 0, 'the waits are in the run file');
  // Usage says how many calls waited and how long, apart from their times.
  const [, waited] = (await page.locator('.usage-notes').innerText()).match(/(\d+) calls? waited [\d.]+ s in all for a free slot/);
  assert.equal(Number(waited), queued);
  assert.equal(doc.config.max_concurrency, 1);
  assert.match(await status(page), new RegExp(`^Finished · ${answered} LLM calls · `));
  assert.equal(await page.getByTestId('usage-summary').locator('dd').first().innerText(), String(answered));
  assert.deepEqual(page.errors, []);
});

test('after Stop, the panels that wait for the end say the run was stopped', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'k' });
  env.mock.script([{ text: 'Thinking about the trip…', hangMs: 20000 }]);
  await page.getByLabel('Coordinator').selectOption('travel');
  await page.getByLabel('Query', { exact: true }).selectOption('1');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /1 running/);
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await waitForStatus(page, /Stopped/);
  assert.match(await status(page), /Stopped · 0 LLM calls · 1 stopped · /);
  const metrics = page.getByRole('region', { name: 'Metrics' });
  assert.equal(await metrics.getByTestId('ended-early').innerText(), 'The run was stopped before its plan was scored.');
  await page.getByRole('tab', { name: /Plan/ }).click();
  await page.getByText('No plan: the run was stopped before the compiler wrote one.').waitFor();
  await screenshot(page, 'stopped-travel');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'stopped-travel-phone');
  assert.deepEqual(page.errors, []);
});

test('once most replies could not be read, a run-level notice says so and leads to the flags', async () => {
  const page = await openApp(env);
  await runMaelInProse(page, env, () => page.locator('#ml-learn').check());
  const notice = page.getByTestId('mostly-unreadable');
  await notice.waitFor({ timeout: 60000 });
  await waitForStatus(page, /Finished|Failed|Stopped/, 120000);
  const [, n, m] = (await notice.innerText()).match(/(\d+) of (\d+) replies could not be read/);
  assert.ok(Number(m) >= 4 && 2 * Number(n) > Number(m), `${n} of ${m}`);
  // From another tab: the button goes to the transcript and its first
  // unreadable reply (not a harmless repair before it).
  await page.getByRole('tab', { name: /Experience/ }).click();
  await page.locator('.entries').waitFor({ state: 'detached' });
  await notice.getByRole('button', { name: 'Show the flagged replies' }).click();
  const first = page.locator('.repair-mark[data-unreadable]').first();
  await eventually(async () => (await first.getAttribute('open')) === '');
  assert.equal(await page.getByRole('tab', { name: 'Transcript' }).getAttribute('aria-selected'), 'true');
  assert.equal(await first.locator('summary').evaluate((s) => s === document.activeElement), true, 'and focused');
  await screenshot(page, 'mostly-unreadable');
  assert.deepEqual(page.errors, []);
});
