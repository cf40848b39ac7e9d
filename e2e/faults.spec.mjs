// (d) Faults from the provider: 429 with Retry-After then success, repeated
// 500, a stream cut mid-way, 401. (e) Stop aborts the request in flight.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openApp, configure, runTask, waitForStatus, eventually, openEvents } from './harness.mjs';

let env;
before(async () => (env = await setup()));
after(async () => env && (await env.close()));
beforeEach(() => env.mock.reset());

async function openConfigured() {
  const page = await openApp(env);
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'sk-x' });
  return page;
}

const failureText = (page) => page.locator('.status-line + .notice.error').innerText();

test('429 with Retry-After, then success: the run completes and the retry is in Events', async () => {
  const page = await openConfigured();
  env.mock.script([{ status: 429, retryAfter: 1 }, { text: 'Worked after waiting.' }]);
  const t0 = Date.now();
  await runTask(page, 'Try hard.');
  await waitForStatus(page, /Finished/);
  assert.ok(Date.now() - t0 >= 950, 'waited for Retry-After');
  assert.match(await page.getByRole('log', { name: 'Transcript' }).innerText(), /Worked after waiting\./);
  await openEvents(page);
  const retry = page.locator('.event[data-kind="llm_retry"]');
  assert.equal(await retry.count(), 1);
  assert.match(await retry.innerText(), /\(rate_limited\), retry in 1000 ms/);
  assert.equal(env.mock.log().length, 2);
});

test('repeated 500s: clear error, run marked failed, the app stays usable', async () => {
  const page = await openConfigured();
  // Two attempts per call keeps the test short (the backoff is real).
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByLabel('Attempts per LLM call').fill('2');
  await page.getByRole('button', { name: 'Save' }).click();
  env.mock.script([{ status: 500 }, { status: 500 }]);
  await runTask(page, 'Fail please.');
  await waitForStatus(page, /^Failed/, 20000);
  assert.match(await failureText(page), /server error \(HTTP 500\)/);
  assert.equal(env.mock.log().length, 2, 'one retry, then give up');
  // Still usable: the next run succeeds.
  env.mock.script([{ text: 'Back to normal.' }]);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/);
  assert.match(await page.getByRole('log', { name: 'Transcript' }).innerText(), /Back to normal\./);
  assert.deepEqual(page.errors, []);
});

test('a stream cut mid-way gives a clear error', async () => {
  const page = await openConfigured();
  env.mock.script([{ text: 'This answer will be cut off somewhere in the middle of it.', cutAfterChunks: 3 }]);
  await runTask(page, 'Cut me.');
  await waitForStatus(page, /^Failed/);
  assert.match(await failureText(page), /could not be read.*connection broke while the answer was streaming/);
});

test('401 tells the user to check the API key', async () => {
  const page = await openConfigured();
  env.mock.script([{ status: 401 }]);
  await runTask(page, 'Hello?');
  await waitForStatus(page, /^Failed/);
  const msg = await failureText(page);
  assert.match(msg, /Check the API key in Settings/);
  assert.match(msg, /Incorrect API key/);
  assert.equal(env.mock.log().length, 1, 'auth errors are not retried');
  await page.getByRole('button', { name: 'Check Settings' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).waitFor();
});

test('Stop during streaming aborts the request: the server sees the connection close', async () => {
  const page = await openConfigured();
  env.mock.script([{ text: 'x'.repeat(400), chunkSize: 4, chunkDelayMs: 80 }]);
  await runTask(page, 'Stream slowly.');
  await eventually(async () => (await page.locator('article.msg[data-call]').last().innerText()).includes('xxxx'));
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await waitForStatus(page, /Stopped/);
  const rec = await eventually(() => env.mock.log().find((r) => r.aborted));
  assert.equal(rec.aborted, true);
  assert.equal(rec.cut, false);
  assert.match(await page.getByRole('log', { name: 'Transcript' }).innerText(), /Run stopped\./);
});
