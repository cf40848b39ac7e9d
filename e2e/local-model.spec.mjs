// The in-browser model ("Local model (in this browser)"): generated GGUF
// files (crates/llm-worker's tiny-gguf, built by scripts/test.sh) picked in
// Settings, checked and stored in OPFS, run by the worker wasm, which the
// page fetches only then. A scripted model answers every prompt with
// "- split adequate": text, not the JSON MAEL's judge and critic ask for,
// so those steps flag the reply and take their stated defaults (they used
// to read "split" and "adequate" out of the prose, unflagged); the run
// still goes to its end and the test can assert on exact text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { setup, openApp, waitForStatus, screenshot } from './harness.mjs';

const TOOL = 'target/llm-worker/debug/tiny-gguf';
const DIR = 'target/e2e-models';
const REPLY = '- split adequate';
let env;
let files;

before(async () => {
  if (!existsSync(TOOL)) {
    throw new Error(`${TOOL} is missing: scripts/test.sh builds it (cargo build --manifest-path crates/llm-worker/Cargo.toml --features fixtures --bin tiny-gguf).`);
  }
  mkdirSync(DIR, { recursive: true });
  files = {
    scripted: `${DIR}/tiny-scripted.gguf`,
    random: `${DIR}/tiny-random.gguf`,
    notGguf: `${DIR}/not-a-model.gguf`,
    truncated: `${DIR}/truncated.gguf`,
  };
  execFileSync(TOOL, ['scripted', files.scripted, REPLY, 'Tiny scripted']);
  execFileSync(TOOL, ['random', files.random, 'medium']);
  writeFileSync(files.notGguf, 'PK\u0003\u0004 this is a zip, not a model '.repeat(20));
  const whole = readFileSync(files.scripted);
  writeFileSync(files.truncated, whole.subarray(0, Math.floor(whole.length / 2)));
  env = await setup();
});
after(async () => env && (await env.close()));

async function openLocalSettings(page) {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Provider', { exact: true }).selectOption('local');
  return dialog;
}

const workerRequests = (urls) => urls.filter((u) => u.includes('/llm-worker/'));

test('a tiny GGUF picked in Settings runs a two-agent MAEL run to the end, and the run records only its name and hash', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  const urls = [];
  page.on('request', (r) => urls.push(r.url()));
  await page.waitForTimeout(300);
  assert.deepEqual(workerRequests(urls), [], 'the start page does not fetch the model worker');

  const dialog = await openLocalSettings(page);
  await dialog.getByTestId('local-empty').waitFor();
  assert.ok(workerRequests(urls).some((u) => u.endsWith('llm_worker_bg.wasm')), 'the worker loads on first use');
  await screenshot(page, 'local-settings-empty');

  // Bad files: a clear message each, nothing stored.
  await dialog.locator('#local-file').setInputFiles(files.notGguf);
  await dialog.getByTestId('local-error').filter({ hasText: 'not a GGUF model file' }).waitFor();
  await dialog.locator('#local-file').setInputFiles(files.truncated);
  await dialog.getByTestId('local-error').filter({ hasText: /incomplete|damaged/ }).waitFor();
  await dialog.getByTestId('local-empty').waitFor();
  await screenshot(page, 'local-settings-error');

  // The scripted model: checked, copied with progress, listed and picked.
  await dialog.locator('#local-file').setInputFiles(files.scripted);
  await dialog.getByText('Added tiny-scripted · F32 · 2.1 MB.').waitFor();
  const rows = dialog.getByRole('list', { name: 'Models stored in this browser' }).locator('li');
  await rows.first().waitFor();
  assert.equal(await rows.count(), 1);
  assert.match(await rows.first().innerText(), /tiny-scripted · F32 · 2\.1 MB[\s\S]*llama · .* parameters · file tiny-scripted\.gguf \(it calls itself Tiny scripted\)/);
  assert.equal(await rows.first().getByRole('radio').isChecked(), true);
  await screenshot(page, 'local-settings-added');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });

  // Travel's tool calls say what a local model gets: the text protocol.
  await page.getByLabel('Coordinator').selectOption('travel');
  const mode = page.locator('#tool-mode');
  await mode.waitFor();
  assert.equal(await mode.inputValue(), 'text');
  assert.equal(await mode.isDisabled(), true, 'nothing to choose: the model has no native tools');
  assert.match(await page.getByTestId('tool-mode-why').innerText(), /no native function calling: it gets the text protocol/);
  // Before a run: what this model can do here (a tiny model; its context
  // holds the travel planner's longest prompt, so nothing is said of it).
  const fit = await page.getByTestId('fit-note').innerText();
  assert.match(fit, /^A 517K model is small for multi-agent work/);
  assert.doesNotMatch(fit, /reads at most/);
  await screenshot(page, 'local-fit-note');
  // So does the travel batch form (the batch runs the text protocol too).
  await page.getByRole('link', { name: 'Batch', exact: true }).click();
  const batchMode = page.locator('#batch-tool-mode');
  await batchMode.waitFor();
  assert.equal(await batchMode.inputValue(), 'text');
  assert.equal(await batchMode.isDisabled(), true);
  assert.match(await page.getByTestId('batch-tool-mode-why').innerText(), /no native function calling/);
  await page.getByRole('link', { name: 'Run', exact: true }).click();

  // Two agents, learning off: five calls, every one answered by the worker.
  await page.getByLabel('Coordinator').selectOption('mael');
  await page.locator('#ml-size').fill('2');
  await page.locator('#ml-size').press('Tab');
  await page.locator('#ml-learn').uncheck();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/, 120000);
  await screenshot(page, 'local-mael-run');
  // One name for the model: the header's, in the run's Events too (not
  // the name inside the file).
  assert.match(await page.locator('.model-chip').innerText(), /tiny-scripted · F32 · 2\.1 MB/);
  await page.getByRole('tab', { name: /Events/ }).click();
  const eventsText = await page.getByRole('tabpanel').innerText();
  assert.match(eventsText, /tiny-scripted · F32 · 2\.1 MB/);
  assert.doesNotMatch(eventsText, /Tiny scripted/);
  await page.getByRole('tab', { name: /Transcript/ }).click();
  const transcript = await page.getByRole('log', { name: 'Transcript' }).innerText();
  // "- split adequate" is Markdown: a one-item list in each entry.
  const shown = transcript.split('split adequate').length - 1;
  assert.ok(shown >= 2, 'the model\'s text is in the transcript');
  // What the status counts as repaired or unreadable (checked against the
  // run's record below).
  const flagged = (await page.getByTestId('run-status').innerText()).match(/replies repaired: (\d+) of (\d+)(?: · unreadable: (\d+) of \d+)?/);
  assert.ok(flagged, 'the status counts the replies repaired');

  await page.locator('.menu summary', { hasText: 'Export' }).click();
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: 'Run file (.json)' }).click()]);
  const raw = readFileSync(await dl.path(), 'utf8');
  const doc = JSON.parse(raw);
  const spec = doc.config.models[0].spec;
  const sha = createHash('sha256').update(readFileSync(files.scripted)).digest('hex');
  assert.equal(spec.provider, 'local');
  assert.equal(spec.file_sha256, sha, 'the run names the file by its hash');
  assert.equal(spec.model, 'tiny-scripted · F32 · 2.1 MB', 'the name the header shows');
  assert.ok(raw.length < 200_000, 'no model bytes in the run file');
  assert.equal(doc.config.max_concurrency, 1, 'the model answers one call at a time, and the run says so');
  const responses = doc.events.map((e) => e.event.llm_response).filter(Boolean);
  const requests = doc.events.map((e) => e.event.llm_request).filter(Boolean);
  // The judge is held to its shape (constrained decoding): its verdict is
  // JSON by construction, whatever the model would have written, and the
  // run follows it.
  const steps = requests.map((r) => r.request.step);
  assert.equal(steps[0], 'mael.judge');
  assert.equal(responses[0].response.structured, 'schema', 'the judge was held to its schema');
  const verdict = JSON.parse(responses[0].response.text);
  assert.equal(typeof verdict.solvable, 'boolean', responses[0].response.text);
  if (verdict.solvable) assert.deepEqual(steps, ['mael.judge', 'mael.solve']);
  else assert.deepEqual([steps[1], steps.at(-1)], ['mael.decompose', 'mael.aggregate'], steps.join(' '));
  assert.ok(shown >= responses.length, 'every answer is shown (the last also as the result)');
  // Held to its shape with room for it, the judge's reply is whole JSON
  // whatever the model would have written, and the solver's prose is the
  // free text its step asks for: nothing needs a repair. (Before replies
  // were held, the judge's prose was flagged here.) The status and the
  // marks say exactly what the run recorded.
  const repaired = doc.events.map((e) => e.event.reply_repaired).filter(Boolean);
  assert.deepEqual(repaired, [], 'no reply needed a repair');
  assert.equal(Number(flagged[1]) + Number(flagged[3] ?? 0), 0, flagged[0]);
  assert.equal(Number(flagged[2]), responses.length, flagged[0]);
  assert.equal(await page.locator('.repair-mark').count(), 0, 'no reply carries a repair mark');
  for (const [i, r] of responses.entries()) {
    if (requests[i].request.params?.schema) {
      // A step with a shape: held to it, its text the model's under the mask.
      assert.equal(r.response.structured, 'schema', requests[i].request.step);
      continue;
    }
    assert.equal(r.response.text, REPLY);
    assert.equal(r.response.usage.output_tokens, 3, '"-", " split", " adequate"');
    assert.ok(r.response.usage.input_tokens > 20, 'real prompt token counts');
    assert.equal(r.response.usage.estimated, undefined, 'counted, not estimated');
    assert.equal(r.response.finish_reason, 'stop');
  }
  assert.deepEqual(page.errors, []);

  // The share link replays the recorded answers in a browser with no model.
  await page.getByRole('button', { name: 'Copy share link' }).click();
  const link = await page.getByRole('textbox', { name: 'Share link' }).inputValue();
  await page.getByRole('dialog', { name: 'Share this run' }).getByRole('button', { name: 'Close' }).click();
  const other = await (await env.browser.newContext()).newPage();
  await other.goto(link);
  await other.waitForSelector('body[data-ready="1"]');
  await other.getByText('Shared link', { exact: true }).waitFor();
  const replayed = await other.getByRole('log', { name: 'Transcript' }).innerText();
  assert.equal(replayed.split('split adequate').length - 1, shown, 'the answers replay without the model');
  await other.context().close();

  // A fork at the second call: one call from the log, the rest from the model.
  await page.locator('article.msg[data-call="1"]').first().hover();
  await page.locator('article.msg[data-call="1"]').first().getByRole('button', { name: 'Fork here' }).click();
  const fork = page.getByRole('dialog', { name: /Fork at call 2/ });
  await fork.getByRole('button', { name: 'Fork and continue' }).click();
  await waitForStatus(page, /Finished/, 120000);
  assert.match(await page.locator('.usage-panel').innerText(), /1 calls? answered from the parent run's log/);
  assert.match(await page.locator('.run-toolbar').innerText(), /Forked from/);

  // The model survives a reload, and is deleted on request.
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const again = page.getByRole('dialog', { name: 'Settings' });
  assert.equal(await again.getByLabel('Provider', { exact: true }).inputValue(), 'local');
  const kept = again.getByRole('list', { name: 'Models stored in this browser' }).locator('li');
  await kept.first().waitFor();
  assert.equal(await kept.first().getByRole('radio').isChecked(), true);
  await again.getByRole('button', { name: 'Delete tiny-scripted · F32 · 2.1 MB' }).click();
  await again.getByTestId('local-empty').waitFor();
});

test('Stop ends a local answer within a token, keeps what was written, and the model answers the next run', async () => {
  const page = await openApp(env);
  const dialog = await openLocalSettings(page);
  await dialog.getByTestId('local-empty').waitFor();
  await dialog.locator('#local-file').setInputFiles(files.random);
  await dialog.getByText(/^Added tiny-random · /).waitFor();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  // The random model rambles to the 512-token cap: stop it while it writes.
  await page.getByRole('textbox', { name: 'Task', exact: true }).fill('Hello world, plan the tool answer.');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Running/, 10000);
  const log = page.getByRole('log', { name: 'Transcript' });
  const start = (await log.innerText()).length;
  await page.waitForFunction(([n]) => (document.querySelector('[role="log"][aria-label="Transcript"]')?.innerText.length ?? 0) > n + 100, [start]);
  // The Run page says what the local model is doing.
  assert.match(await page.getByTestId('local-status').innerText(), /tiny-random · Q8_0 · [\d.]+ MB is answering|reading the prompt/);
  await screenshot(page, 'local-run-streaming');
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await waitForStatus(page, /Stopped/, 10000);
  assert.ok((await log.innerText()).length > start + 100, 'what was written is kept');
  // The worker took the cancel: a new run starts answering at once.
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Running/, 10000);
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await waitForStatus(page, /Stopped/, 10000);
  assert.deepEqual(page.errors, []);
});
