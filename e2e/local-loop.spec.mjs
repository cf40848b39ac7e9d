// Replies that loop, and replies cut at their longest answer, in the
// in-browser model: a generated GGUF (crates/llm-worker's tiny-gguf
// `looping`, built by scripts/test.sh) writes one 10-token sentence over and
// over at temperature 0, as small real models sometimes do. The engine
// stops it at its third copy and the transcript says so; with a small
// "Longest answer" the reply is cut first, and says that instead. The
// Settings' sampler fields (llama.cpp's, empty = its defaults) reach the
// run file. The loop's mark advises only what the run did not try.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { setup, openApp, waitForStatus, screenshot, runFile } from './harness.mjs';

const TOOL = 'target/llm-worker/debug/tiny-gguf';
const DIR = 'target/e2e-models';
// 10 tokens: The / plan / is / to / go / north / , / then / home / .
const SENTENCE = 'The plan is to go north, then home.';
const FILE = `${DIR}/tiny-looping.gguf`;
let env;

before(async () => {
  if (!existsSync(TOOL)) {
    throw new Error(`${TOOL} is missing: scripts/test.sh builds it (cargo build --manifest-path crates/llm-worker/Cargo.toml --features fixtures --bin tiny-gguf).`);
  }
  mkdirSync(DIR, { recursive: true });
  execFileSync(TOOL, ['looping', FILE, SENTENCE, 'Tiny looping']);
  env = await setup();
});
after(async () => env && (await env.close()));

const responses = (doc) => doc.events.map((e) => e.event.llm_response).filter(Boolean);

async function run(page, task) {
  await page.getByRole('textbox', { name: 'Task', exact: true }).fill(task);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/, 120_000);
}

test('a looping reply is stopped and marked, a reply at its longest answer is marked cut, and the sampler settings are recorded', { timeout: 300_000 }, async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Provider', { exact: true }).selectOption('local');
  await dialog.getByTestId('local-empty').waitFor();
  await dialog.locator('#local-file').setInputFiles(FILE);
  await dialog.getByText(/^Added tiny-looping · /).waitFor();
  // The sampler: llama.cpp's settings, its defaults shown, all empty.
  const sampler = dialog.getByRole('group', { name: 'Sampler (local model)' });
  const placeholders = {};
  for (const label of ['Top-k', 'Top-p', 'Min-p', 'Repeat penalty', 'Repeat window (tokens)']) {
    const input = sampler.getByLabel(label, { exact: true });
    assert.equal(await input.inputValue(), '', `${label} starts empty`);
    placeholders[label] = await input.getAttribute('placeholder');
  }
  assert.deepEqual(placeholders, {
    'Top-k': '40',
    'Top-p': '0.95',
    'Min-p': '0.05',
    'Repeat penalty': '1.0 (off)',
    'Repeat window (tokens)': '64',
  });
  assert.match(await sampler.getByTestId('sampler-hint').innerText(), /llama\.cpp's defaults/);
  await dialog.getByRole('group', { name: 'Sampler (local model)' }).scrollIntoViewIfNeeded();
  await screenshot(page, 'local-loop-settings');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });

  // Greedy (no temperature set): the sentence comes back until the third copy ends it.
  await run(page, 'Where do we go?');
  const mark = page.locator('article.msg .finish-mark');
  await mark.first().waitFor();
  assert.equal(await mark.count(), 1);
  assert.equal(await mark.locator('summary').innerText(), 'stopped: it kept repeating itself');
  assert.match(await page.getByRole('log', { name: 'Transcript' }).innerText(), /The plan is to go north, then home\.The plan is/);
  // The mark opens by keyboard and says what happened.
  await mark.locator('summary').focus();
  await page.keyboard.press('Enter');
  await mark.locator('p').waitFor();
  assert.match(await mark.locator('p').innerText(), /same passage three times in a row/);
  await screenshot(page, 'local-loop-repeat');
  let doc = await runFile(page);
  let [r] = responses(doc);
  assert.equal(r.response.finish_reason, 'repeat');
  assert.equal(r.response.text, SENTENCE.repeat(3), 'everything written is kept, and nothing after the third copy');
  assert.equal(r.response.usage.output_tokens, 30);
  assert.equal(doc.config.models[0].spec.sampling, undefined, 'no sampler setting: none recorded');

  // A small longest answer cuts the reply before it can loop; sampler settings set.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await dialog.getByLabel('Longest answer (tokens)').fill('12');
  await sampler.getByLabel('Top-k', { exact: true }).fill('20');
  await sampler.getByLabel('Repeat penalty', { exact: true }).fill('1.1');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await run(page, 'And then?');
  const cut = page.locator('article.msg .finish-mark');
  await cut.first().waitFor();
  assert.equal(await cut.locator('summary').innerText(), 'cut off at 12 tokens');
  await screenshot(page, 'local-loop-cut');
  doc = await runFile(page);
  [r] = responses(doc);
  assert.equal(r.response.finish_reason, 'length');
  assert.equal(r.response.usage.output_tokens, 12);
  assert.ok(r.response.text.startsWith(SENTENCE), r.response.text);
  const spec = doc.config.models[0].spec;
  assert.equal(spec.max_tokens, 12);
  assert.deepEqual(spec.sampling, { top_k: 20, repeat_penalty: 1.1 }, 'the run records what ran');

  // Reopened, Settings shows what was saved.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  assert.equal(await sampler.getByLabel('Top-k', { exact: true }).inputValue(), '20');
  assert.equal(await sampler.getByLabel('Repeat penalty', { exact: true }).inputValue(), '1.1');
  assert.equal(await sampler.getByLabel('Min-p', { exact: true }).inputValue(), '');
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // At temperature 0.2 it still loops: the mark's advice follows what the
  // run tried (a temperature above 0 was tried; a repeat penalty was not).
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await dialog.getByLabel('Longest answer (tokens)').fill('');
  await dialog.getByLabel('Temperature', { exact: true }).fill('0.2');
  await sampler.getByLabel('Top-k', { exact: true }).fill('');
  await sampler.getByLabel('Repeat penalty', { exact: true }).fill('');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await run(page, 'Which way?');
  const warm = page.locator('article.msg .finish-mark');
  await warm.first().waitFor();
  assert.equal(await warm.locator('summary').innerText(), 'stopped: it kept repeating itself');
  await warm.locator('summary').click();
  const advice = await warm.locator('p').innerText();
  assert.match(advice, /looped at temperature 0\.2/, advice);
  assert.match(advice, /repeat penalty above 1/, advice);
  assert.doesNotMatch(advice, /temperature above 0/, `advice the run already took: ${advice}`);
  assert.deepEqual(page.errors, []);
});
