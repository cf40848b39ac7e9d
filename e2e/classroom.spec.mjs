// The classroom in Chromium: two travel variants on one query compared
// side by side (metric difference, first divergence), "Run a variant of
// this" opening the comparison; a lesson written from a demo run with a
// note and questions, shared, opened in a fresh context, answered wrong
// and right, scored; a built-in lesson presented with the keyboard only;
// a comparison too big for a link; the pages at desktop and phone width.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, openApp, waitForStatus, screenshot, eventually, instantDemo } from './harness.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 2 })));
after(async () => env && (await env.close()));

const a11y = existsSync('e2e/a11y.mjs') ? await import('./a11y.mjs') : null;
async function accessible(page, label) {
  assert.ok(a11y, 'e2e/a11y.mjs (axe-core) is there');
  await a11y.checkA11y(page, label);
}

async function runTravel(page, variant) {
  await page.getByLabel('Coordinator').selectOption('travel');
  await page.getByLabel('Query', { exact: true }).selectOption('1');
  await page.getByLabel('Variant').selectOption(variant);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/, 60000);
}

async function teachMenu(page, item) {
  await page.locator('.run-toolbar summary', { hasText: 'Compare & teach' }).click();
  await page.getByRole('menuitem', { name: item }).click();
}

test('two travel variants side by side: the metric difference and where they first diverge; Run a variant opens the comparison', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await instantDemo(page);
  await runTravel(page, 'fixed');
  // Run a variant of this: the orchestrator on the same query.
  await teachMenu(page, 'Run a variant of this…');
  const dialog = page.getByRole('dialog', { name: 'Run a variant of this' });
  await dialog.getByLabel('Variant').selectOption('orchestrator');
  await dialog.getByRole('button', { name: 'Start the variant' }).click();
  // When it ends, the comparison opens by itself.
  await page.waitForURL(/\/compare$/, { timeout: 60000 });
  const columns = page.locator('.cmp-col');
  await eventually(async () => (await columns.count()) === 2);
  assert.match(await columns.nth(0).innerText(), /travel · fixed/);
  assert.match(await columns.nth(1).innerText(), /travel · orchestrator/);
  const table = page.locator('.cmp-table');
  const calls = table.locator('tr', { hasText: 'model calls' });
  assert.ok(await calls.evaluate((tr) => tr.classList.contains('differs')), 'the call counts differ');
  const cells = await calls.locator('td').allInnerTexts();
  assert.ok(Number(cells[1]) > Number(cells[0]), `the orchestrator makes more calls (${cells})`);
  assert.ok(await table.locator('tr', { hasText: 'final_pass' }).count(), 'the metrics are rows');
  const divergence = page.locator('.cmp-divergence');
  assert.match(await divergence.innerText(), /A vs B: model call 1 \(agent\).*transportation vs orchestrator/s);
  // Scrub the aligned timeline to a phase: both columns move.
  await page.locator('.cmp-phases button').first().click();
  const shown = await page.locator('.cmp-col .small.muted').allInnerTexts();
  assert.ok(shown.every((t) => /^\d+ of \d+ events/.test(t)) && shown.some((t) => !/^(\d+) of \1 /.test(t)), `positions: ${shown}`);
  await page.locator('.cmp-divergence button').first().click();
  await screenshot(page, 'compare-desktop');
  // Exports: the Markdown report has the difference and the divergence.
  const [md] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Markdown report' }).click()]);
  const { readFileSync } = await import('node:fs');
  const report = readFileSync(await md.path(), 'utf8');
  assert.match(report, /## Metrics/);
  assert.match(report, /A vs B: at model call 1 \(agent\)/);
  const [svg] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Chart (.svg)' }).click()]);
  assert.match(readFileSync(await svg.path(), 'utf8'), /^<svg[^>]+xmlns/);
  // Its link opens the same comparison in a fresh context.
  await page.getByRole('button', { name: 'Share link' }).click();
  const url = await page.getByLabel('Comparison link').inputValue();
  assert.match(url, /\/compare#compare=B1~/);
  const fresh = await openApp(env, { context: await env.browser.newContext() });
  await fresh.goto(url);
  await fresh.locator('.cmp-col').nth(1).waitFor();
  assert.match(await fresh.locator('.cmp-divergence').innerText(), /model call 1/);
  await accessible(fresh, 'compare');
  await fresh.setViewportSize({ width: 390, height: 844 });
  await screenshot(fresh, 'compare-phone');
  // Back on the Run page, the setup panel says what the variant ran with.
  await page.getByRole('link', { name: 'Run', exact: true }).click();
  await page.locator('#variant').waitFor();
  assert.equal(await page.locator('#variant').inputValue(), 'orchestrator', "the panel shows the variant's own setup");
  assert.deepEqual(page.errors, []);
  assert.deepEqual(fresh.errors, []);
});

test('a lesson written from a demo run: a note and questions, shared, answered wrong and right by a student, scored', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await instantDemo(page);
  await runTravel(page, 'orchestrator');
  await teachMenu(page, 'Write a lesson on this run');
  const editor = page.getByRole('region', { name: 'Lesson editor' });
  await editor.getByLabel('Title').fill('Predict the orchestrator');
  await editor.getByLabel('Note at this point').fill('The orchestrator never sees the notebook.');
  await editor.getByLabel('Highlight').selectOption('graph');
  await editor.getByRole('button', { name: 'Add note here' }).click();
  // The questions offered come from the run's own events.
  const offered = editor.locator('.offered li');
  await offered.first().waitFor();
  const labels = await offered.allInnerTexts();
  const answers = labels.slice(0, 2).map((l) => l.match(/answer: (.*)\)/)[1]);
  await offered.nth(0).getByRole('button', { name: 'Add' }).click();
  await offered.nth(1).getByRole('button', { name: 'Add' }).click();
  assert.equal(await editor.locator('.step-row').count(), 3);
  await screenshot(page, 'lesson-editor');
  await accessible(page, 'lesson editor');
  // Reorder and back: the note stays first.
  await editor.getByRole('button', { name: 'Move step 1 down' }).click();
  assert.match(await editor.locator('.step-row').first().innerText(), /Question/);
  await editor.getByRole('button', { name: 'Move step 2 up' }).click();
  assert.match(await editor.locator('.step-row').first().innerText(), /Note/);
  await editor.getByRole('button', { name: 'Save' }).click();
  await editor.getByText('Saved in this browser').waitFor();
  await editor.getByRole('button', { name: 'Share link' }).click();
  const url = await editor.getByLabel('Lesson link').inputValue();
  assert.match(url, /\/#lesson=B1~/);

  // A student opens it in a fresh browser context.
  const student = await openApp(env, { context: await env.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }) });
  await student.goto(url);
  const lesson = student.getByRole('region', { name: 'Lesson', exact: true });
  await lesson.waitFor();
  assert.match(await lesson.innerText(), /Predict the orchestrator/);
  assert.match(await lesson.innerText(), /never sees the notebook/);
  // The note highlights the graph (marked once the step is drawn).
  await student.locator('.graph-panel.lesson-highlight').waitFor({ timeout: 5000 });
  await screenshot(student, 'lesson-student-phone');
  await lesson.getByRole('button', { name: /Next/ }).tap();
  // Question 1: answer wrong first, then right (only the first counts).
  const choices = lesson.locator('.choice');
  await choices.first().waitFor();
  const texts = await choices.allInnerTexts();
  const right = texts.findIndex((t) => t.includes(answers[0]));
  assert.ok(right >= 0, `the answer is a choice (${texts})`);
  const wrong = right === 0 ? 1 : 0;
  await choices.nth(wrong).tap();
  await lesson.getByText(/Not quite: the answer is/).waitFor();
  await choices.nth(right).tap();
  await lesson.getByText(/^Right!/).waitFor();
  await screenshot(student, 'lesson-question-phone');
  await lesson.getByRole('button', { name: /Next/ }).tap();
  // Question 2: right the first time.
  const texts2 = await choices.allInnerTexts();
  await choices.nth(texts2.findIndex((t) => t.includes(answers[1]))).tap();
  await lesson.getByText(/^Right!/).waitFor();
  await lesson.getByRole('button', { name: /Finish/ }).tap();
  await lesson.getByText('You predicted 1 of 2 correctly.').waitFor();
  await accessible(student, 'lesson score');
  await screenshot(student, 'lesson-score-phone');
  // The saved lesson is on the Lessons page.
  await page.getByRole('link', { name: 'Lessons' }).click();
  await page.getByText('Predict the orchestrator').waitFor();
  assert.deepEqual(page.errors, []);
  assert.deepEqual(student.errors, []);
});

test('presenter mode: a built-in lesson walked through with the keyboard only', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole('link', { name: 'Lessons' }).click();
  await page.getByRole('heading', { name: 'Built-in lessons' }).waitFor();
  await accessible(page, 'lessons page');
  await screenshot(page, 'lessons-page');
  // Tab to "Present" of the first built-in lesson and press Enter.
  const present = page.getByRole('button', { name: /^Present “Who acts next/ });
  await present.focus();
  await page.keyboard.press('Enter');
  const lesson = page.getByRole('region', { name: 'Lesson', exact: true });
  await lesson.waitFor();
  assert.ok(await page.evaluate(() => document.body.classList.contains('presenter')), 'presenter mode');
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  const progress = async () => Number(await lesson.getByRole('progressbar').getAttribute('aria-valuenow'));
  const count = async () => lesson.locator('.lesson-count').innerText();
  assert.match(await count(), /Step 1 of 11/);
  // The run stands where the first step is anchored (it opens there, not at its end).
  const first = await page.evaluate(async () => (await (await fetch('/public/lessons/travel-orchestrator.lesson.json')).json()).lesson.steps[0].at);
  assert.match(await page.getByTestId('replay-position').textContent(), new RegExp(`^event ${first} / \\d+ `));
  await screenshot(page, 'presenter-note');
  await accessible(page, 'presenter mode');
  let steps = 0;
  while (!/Finished/.test(await count()) && steps < 40) {
    const before = await progress();
    if (await lesson.locator('.choice').count()) {
      // Answer with a number key; the answer is revealed.
      await page.keyboard.press('1');
      await lesson.locator('.lesson-feedback').waitFor();
      if (steps === 1) await screenshot(page, 'presenter-question');
    }
    await page.keyboard.press(steps % 2 ? 'ArrowRight' : ' ');
    steps += 1;
    if (!/Finished/.test(await count())) assert.ok((await progress()) > before, 'progress moves on');
  }
  assert.match(await count(), /Finished/);
  assert.match(await lesson.innerText(), /You predicted \d of 6 correctly/);
  await page.keyboard.press('ArrowLeft');
  assert.match(await count(), /Step 11 of 11/);
  // The last step ("Finally the evaluator scores the plan…") shows the
  // run's end: the replay stands at its last event and the plan is scored.
  // (The replay plays on to the step's event.)
  const position = async () => /^event (\d+) \/ (\d+)/.exec(await page.getByTestId('replay-position').textContent()).slice(1);
  await eventually(async () => new Set(await position()).size === 1, { timeout: 20000 }).catch(async () =>
    assert.fail(`the last step stands at the run's last event, not ${(await position()).join(' / ')}`),
  );
  const metrics = await page.getByRole('region', { name: 'Metrics' }).innerText();
  assert.doesNotMatch(metrics, /when the run ends/, 'the plan is scored at the last step');
  assert.match(metrics, /Commonsense/, metrics);
  await page.keyboard.press('Escape');
  assert.ok(!(await page.evaluate(() => document.body.classList.contains('presenter'))), 'Esc leaves presenter mode');
  await lesson.getByRole('button', { name: 'Close lesson' }).click();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('link', { name: 'Lessons' }).click();
  await page.getByRole('heading', { name: 'Built-in lessons' }).waitFor();
  await screenshot(page, 'lessons-page-phone');
  assert.deepEqual(page.errors, []);
});

/** A run file whose one request is `size` characters of incompressible text. */
function bigRun(k, size) {
  let s = BigInt(0x2545f4914f6cdd1d + k);
  let text = '';
  const mask = (1n << 64n) - 1n;
  while (text.length < size) {
    s ^= (s << 13n) & mask;
    s ^= s >> 7n;
    s ^= (s << 17n) & mask;
    text += s.toString(36) + (text.length % 100 < 13 ? '\n' : '');
  }
  const config = {
    schema_version: 1, run_id: `big-${k}`, coordinator: 'single', task: `big ${k}`,
    models: [{ role: '*', spec: { provider: 'demo', base_url: '', model: 'demo' } }],
  };
  const req = { messages: [{ role: 'user', content: text }] };
  const events = [
    { run_started: { config } },
    { agent_added: { agent: 'a', role: 'assistant', name: 'A' } },
    { llm_request: { call: 0, agent: 'a', model: 'demo', request: req } },
    { llm_response: { call: 0, response: { text: 'ok', usage: { input_tokens: 300000, output_tokens: 1 } }, latency_ms: 1 } },
    { run_finished: {} },
  ].map((event, seq) => ({ seq, t_ms: seq, event }));
  return JSON.stringify({ format: 'roundtable.run', schema_version: 1, config, events });
}

test('a comparison too big for a link says so and offers the file', async () => {
  const page = await openApp(env);
  const dir = mkdtempSync(join(tmpdir(), 'rt-big-'));
  for (let k = 0; k < 3; k++) {
    const file = join(dir, `big-${k}.json`);
    writeFileSync(file, bigRun(k, 1_200_000));
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByLabel('Import run file').setInputFiles(file);
    await page.waitForURL((u) => new URL(u).pathname === '/');
    await page.locator('.run-toolbar').waitFor();
    await teachMenu(page, 'Add to comparison');
  }
  await page.getByRole('link', { name: /^Compare/ }).click();
  await eventually(async () => (await page.locator('.cmp-col').count()) === 3);
  await page.getByRole('button', { name: 'Share link' }).click();
  const alert = page.locator('.compare-error');
  await alert.waitFor({ timeout: 30000 });
  assert.match(await alert.innerText(), /too big for a link: it needs \d+ KB and a link holds at most 2730 KB\. Export it as a file instead/);
  assert.deepEqual(page.errors, []);
});
