// (b) OpenAI-compatible and (c) Anthropic presets pointed at the mock
// server: tokens appear progressively, usage from the provider is shown.
// (g) Model output with <script> and <img onerror> is shown as text.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openApp, configure, runTask, waitForStatus, eventually, screenshot } from './harness.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 60 })));
after(async () => env && (await env.close()));
beforeEach(() => env.mock.reset());

const transcript = (page) => page.getByRole('log', { name: 'Transcript' });

/** Samples the assistant's text while the run streams. */
async function streamSamples(page) {
  const samples = [];
  await eventually(async () => {
    const t = await page.locator('article.msg[data-call]').last().innerText().catch(() => '');
    samples.push(t.length);
    return (await page.getByTestId('run-status').innerText()).match(/Finished|Failed/);
  }, { timeout: 20000, interval: 40 });
  return samples;
}

for (const [label, provider, path] of [
  ['OpenAI-compatible', 'custom', '/v1/chat/completions'],
  ['Anthropic', 'custom-anthropic', '/v1/messages'],
]) {
  test(`${label} preset against the mock: tokens stream in, real usage is shown`, async () => {
    const page = await openApp(env);
    await configure(page, { provider, baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'sk-test-123' });
    const text = 'Streaming works: the quick brown fox jumps over the lazy dog, one chunk at a time, until the very end of this sentence.';
    env.mock.script([{ text, chunkSize: 5, chunkDelayMs: 60 }]);
    await runTask(page, 'Say something long.');
    const samples = await streamSamples(page);
    const growing = samples.filter((n, i) => i > 0 && n > samples[i - 1]).length;
    assert.ok(growing >= 5, `text should grow step by step, samples: ${samples.join(',')}`);
    await waitForStatus(page, /Finished/);
    assert.match(await transcript(page).innerText(), /until the very end of this sentence\./);
    // Usage comes from the provider (not estimated): no ≈ mark.
    const input = await page.getByTestId('usage-input').innerText();
    assert.match(input, /^\d+$/, `input tokens shown as reported: ${input}`);
    assert.ok(Number(input) > 0);
    const log = env.mock.log();
    assert.equal(log.length, 1);
    assert.equal(log[0].path, path);
    assert.equal(log[0].body.stream, true);
    if (provider === 'custom') {
      assert.equal(log[0].headers.authorization, 'Bearer sk-test-123');
      assert.deepEqual(log[0].body.stream_options, { include_usage: true });
    } else {
      assert.equal(log[0].headers['x-api-key'], 'sk-test-123');
      assert.equal(log[0].headers['anthropic-dangerous-direct-browser-access'], 'true');
      assert.ok(log[0].headers['anthropic-version']);
      assert.equal(typeof log[0].body.system, 'string');
    }
    assert.deepEqual(page.errors, []);
  });
}

test('model output with <script> and <img onerror> is shown as text and never runs', async () => {
  const page = await openApp(env);
  await page.evaluate(() => (window.__pwned = 0));
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'k' });
  const evil = 'Here: <script>window.__pwned = 1</script> and <img src=x onerror="window.__pwned = 2"> and [click](javascript:window.__pwned=3) <iframe src="javascript:window.__pwned=4"></iframe>';
  env.mock.script([{ text: evil, chunkSize: 7, chunkDelayMs: 5 }]);
  await runTask(page, 'Say something dangerous.');
  await waitForStatus(page, /Finished/);
  const msg = page.locator('article.msg[data-call]').last();
  const shown = await msg.innerText();
  assert.match(shown, /<script>window.__pwned = 1<\/script>/);
  assert.match(shown, /<img src=x onerror="window.__pwned = 2">/);
  assert.equal(await msg.locator('script, img, iframe').count(), 0, 'no live elements from model output');
  const hrefs = await msg.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  assert.ok(hrefs.every((h) => !/^javascript:/i.test(h)), `hrefs: ${hrefs}`);
  await msg.locator('a').first().click().catch(() => {});
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__pwned), 0);
});

// Structured replies on a provider: a step that needs a shape sends its
// JSON Schema as `response_format` (strict); a server that refuses the
// schema is asked once more in JSON mode, remembered for the next calls,
// and every reply says how it was held. Test connection says so too.
async function runMaelOnMock(page) {
  env.mock.script([
    { text: '{"reason": "one product of two numbers", "solvable": true}' },
    { text: 'Three candles at $4 each cost $12.' },
  ]);
  await page.getByLabel('Coordinator').selectOption('mael');
  await page.getByLabel('Task', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/, 30000);
}

const judged = (r) => /solvable/.test(JSON.stringify(r.body?.messages ?? []));

test('a shaped step sends its schema to an OpenAI-compatible server; a server that refuses it gets JSON mode, remembered and marked', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'k' });
  await runMaelOnMock(page);
  let log = env.mock.log();
  const judge = log.find(judged);
  assert.ok(judge, 'the judge was asked');
  const format = judge.body.response_format;
  assert.equal(format?.type, 'json_schema', JSON.stringify(format));
  assert.equal(format.json_schema.strict, true);
  assert.ok(format.json_schema.schema.properties.solvable, 'the judge\'s own schema is sent');
  assert.deepEqual([...format.json_schema.schema.required].sort(), Object.keys(format.json_schema.schema.properties).sort(), 'strict: every field required');
  assert.equal(format.json_schema.schema.additionalProperties, false);
  const free = log.filter((r) => r !== judge && r.status === 200);
  assert.ok(free.length >= 1, 'the solver was asked');
  assert.ok(free.some((r) => r.body.response_format === undefined), 'a free step (the solver) is asked without a shape');
  assert.equal(await page.locator('.shape-mark.held').count(), 1, 'the judge\'s reply is marked held to schema');
  assert.equal(await page.locator('.shape-mark.json, .shape-mark.lenient').count(), 0);

  // The same server, now without JSON Schema support.
  env.mock.reset();
  env.mock.refuse(['json_schema']);
  const next = await openApp(env);
  await next.setViewportSize({ width: 1440, height: 1000 });
  await configure(next, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'k' });
  await runMaelOnMock(next);
  log = env.mock.log().filter(judged);
  assert.deepEqual(log.map((r) => [r.body.response_format?.type, r.status]), [['json_schema', 400], ['json_object', 200]],
    'the refused schema is asked once more in JSON mode');
  assert.equal(await next.locator('.shape-mark.json').count(), 1, 'the reply says the provider\'s JSON mode held it');
  assert.equal(await next.locator('.shape-mark.held').count(), 0);
  assert.match(await next.locator('.shape-mark.json').first().innerText(), /provider's JSON mode/);
  await screenshot(next, 'provider-json-mode');
  // Remembered: Test connection on this page asks in JSON mode at once and says so.
  const before = env.mock.log().length;
  env.mock.script([{ text: '{"ok": true}' }]);
  await next.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = next.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await dialog.locator('.probe').filter({ hasText: 'Connected' }).waitFor();
  assert.match(await dialog.locator('.probe').innerText(), /JSON mode only \(the server refused a JSON Schema\)/);
  const probes = env.mock.log().slice(before);
  assert.deepEqual(probes.map((r) => r.body.response_format?.type), ['json_object'], 'the refusal is remembered');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(next.errors, []);
});
