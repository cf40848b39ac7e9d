// (f) The API key stays out of localStorage unless "Remember on this device"
// is ticked, and never appears in the URL or the run's events.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openApp, configure, runTask, waitForStatus, openEvents } from './harness.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 5 })));
after(async () => env && (await env.close()));
beforeEach(() => env.mock.reset());

const KEY = 'sk-secret-e2e-7f3a9c';
const storageDump = (page) => page.evaluate(() => JSON.stringify({ ...localStorage }));

test('without Remember, the key lives in memory only', async () => {
  const ctx = await env.browser.newContext();
  const page = await openApp(env, { context: ctx });
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'm', key: KEY, remember: false });
  assert.ok(!(await storageDump(page)).includes(KEY), 'not in localStorage');
  await runTask(page, 'Use the key.');
  await waitForStatus(page, /Finished/);
  assert.equal(env.mock.log()[0].headers.authorization, `Bearer ${KEY}`, 'it was sent to the provider');
  assert.ok(!page.url().includes(KEY), 'not in the URL');
  await openEvents(page);
  assert.ok(!(await page.content()).includes(KEY), 'not in the rendered run log');
  assert.ok(!(await storageDump(page)).includes(KEY));
  // Reload: the key is gone; the settings (non-secret) remain.
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  assert.equal(await page.getByLabel('API key', { exact: true }).inputValue(), '');
  assert.equal(await page.getByLabel('Base URL', { exact: true }).inputValue(), env.mock.url + '/v1');
  await ctx.close();
});

test('with Remember, the key survives a reload; unticking removes it', async () => {
  const ctx = await env.browser.newContext();
  const page = await openApp(env, { context: ctx });
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'm', key: KEY, remember: true });
  assert.ok((await storageDump(page)).includes(KEY), 'stored on the device when asked');
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await runTask(page, 'Use the remembered key.');
  await waitForStatus(page, /Finished/);
  assert.equal(env.mock.log()[0].headers.authorization, `Bearer ${KEY}`);
  assert.ok(!page.url().includes(KEY));
  await configure(page, { provider: 'custom', remember: false });
  assert.ok(!(await storageDump(page)).includes(KEY), 'unticking removes it from the device');
  await ctx.close();
});
