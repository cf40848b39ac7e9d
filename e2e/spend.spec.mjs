// A spend cap keeps a class's runs in bounds: with a token cap in
// Settings, an ACT run on the demo model stops cleanly before the call
// that would pass it, says so and keeps everything it did.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openApp, waitForStatus, screenshot } from './harness.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 1 })));
after(async () => env && (await env.close()));

test('a run stops cleanly at the token cap set in Settings', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Token cap per run').fill('6000');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByLabel('Coordinator').selectOption('act');
  await page.locator('.act-setup').waitFor();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Stopped at the spend cap/, 120000);
  const alert = page.getByRole('alert').filter({ hasText: 'Stopped before LLM call' });
  await alert.waitFor();
  assert.match(await alert.innerText(), /token cap of 6000/);
  assert.match(await alert.innerText(), /Everything so far is kept/);
  // What the run did before the cap is all there.
  await page.getByRole('tab', { name: /^Memory/ }).click();
  assert.ok((await page.getByRole('region', { name: 'Memory' }).locator('section.act-memory').count()) >= 4);
  await screenshot(page, 'spend-cap');
  // The cap is kept with the settings; clearing it lifts it.
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  assert.equal(await dialog.getByLabel('Token cap per run').inputValue(), '6000');
  await dialog.getByLabel('Token cap per run').fill('');
  await dialog.getByRole('button', { name: 'Save' }).click();
  assert.deepEqual(page.errors, []);
});
