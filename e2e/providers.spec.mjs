// (b) OpenAI-compatible and (c) Anthropic presets pointed at the mock
// server: tokens appear progressively, usage from the provider is shown.
// (g) Model output with <script> and <img onerror> is shown as text.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openApp, configure, runTask, waitForStatus, eventually } from './harness.mjs';

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
