// Screenshots of every main screen at 1440 px and 390 px, light and dark,
// for a person to look at (not a test): `node e2e/screen-tour.mjs` after a
// build; the pictures go to e2e/screenshots/tour/. The run page after a
// travel run (transcript, graph, metrics, usage), its Events tab, History,
// Settings with the local model's section, a lesson beside its run, MAEL's
// setup with its team graph, Compare, and the join page.
import { mkdirSync } from 'node:fs';
import { setup, openApp, waitForStatus } from './harness.mjs';

const OUT = 'e2e/screenshots/tour';
mkdirSync(OUT, { recursive: true });
const env = await setup({ chunkDelayMs: 2 });
const shots = [];
try {
  for (const [width, height, device] of [[1440, 1000, 'desktop'], [390, 844, 'phone']]) {
    for (const colorScheme of ['light', 'dark']) {
      const phone = device === 'phone';
      const context = await env.browser.newContext({ viewport: { width, height }, colorScheme, isMobile: phone, hasTouch: phone });
      const page = await openApp(env, { context });
      const shot = async (name) => {
        const path = `${OUT}/${name}-${device}-${colorScheme}.png`;
        await page.screenshot({ path, fullPage: false });
        shots.push(path);
      };
      await page.getByLabel('Coordinator').selectOption('travel');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await waitForStatus(page, /Finished/, 120000);
      await shot('run');
      await page.locator('.usage-panel').scrollIntoViewIfNeeded();
      await shot('run-usage');
      await page.getByRole('tab', { name: /Events/ }).click();
      await page.locator('.events').waitFor();
      await shot('events');
      await page.getByRole('link', { name: 'History', exact: true }).click();
      await page.locator('main').waitFor();
      await shot('history');
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await dialog.getByLabel('Provider', { exact: true }).selectOption('local');
      await dialog.locator('ul.suggested').waitFor();
      await shot('settings-local');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('link', { name: 'Lessons', exact: true }).click();
      await page.getByRole('button', { name: /^Start “Who acts next/ }).click();
      await page.getByRole('region', { name: 'Lesson', exact: true }).waitFor();
      await shot('lesson');
      await page.getByRole('button', { name: 'Close lesson' }).click();
      await page.getByRole('link', { name: 'Run', exact: true }).click();
      await page.getByLabel('Coordinator').selectOption('mael');
      await page.locator('svg').first().waitFor();
      await shot('mael-setup');
      await page.getByRole('link', { name: 'Compare', exact: true }).click();
      await shot('compare');
      await page.goto(env.app.url + '/join/ABC234');
      await page.waitForSelector('body[data-ready="1"]');
      await page.locator('.join-card').waitFor();
      await shot('join');
      if (page.errors.length) console.log(`${device} ${colorScheme}: page errors`, page.errors);
      await context.close();
    }
  }
} finally {
  await env.close();
}
console.log(shots.join('\n'));
