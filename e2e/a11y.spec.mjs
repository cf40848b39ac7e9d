// Accessibility: axe-core (WCAG 2.0 / 2.1 A and AA) on every page and state
// of the app, in the light and the dark theme: the run page empty and after a
// demo run of each coordinator (its tabs, the inspector), Settings (and its in-browser model section), the share
// and fork dialogs, History empty and with runs, the coordinators' own pages,
// the classroom (Compare, the variant dialog, Lessons, a lesson played,
// presented and written) and a run opened from a share link. No serious or critical violation may
// remain; each page prints a summary line.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openApp, runTask, waitForStatus, screenshot } from './harness.mjs';
import { checkA11y } from './a11y.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 1 })));
after(async () => env && (await env.close()));

const inspector = (page) => page.getByRole('region', { name: 'Inspector' });

async function tab(page, name) {
  await page.getByRole('tab', { name: new RegExp('^' + name) }).click();
}

// Starts a run and waits for its end (a part's run may open a pool or load
// its code first: wait for the status line to change, then for Finished).
async function run(page) {
  const before = await page.getByTestId('run-status').innerText();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction((b) => document.querySelector('[data-testid="run-status"]')?.innerText !== b, before);
  await waitForStatus(page, /Finished/, 120000);
}

async function nav(page, href) {
  await page.locator(`nav a[href="${href}"]`).click();
  await page.waitForLoadState();
}

for (const theme of ['light', 'dark']) {
  test(`no serious or critical accessibility violations, ${theme} theme`, async () => {
    const context = await env.browser.newContext({ colorScheme: theme, viewport: { width: 1440, height: 1000 } });
    const page = await openApp(env, { context });
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), theme);
    const failures = [];
    const check = async (label) => {
      await page.mouse.move(0, 0);
      const r = await checkA11y(page, `${theme} ${label}`, { soft: true });
      if (r.message) failures.push(r.message);
    };

    await check('run page, empty');
    await screenshot(page, `a11y-${theme}-run-empty`);

    // Settings.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = page.getByRole('dialog', { name: 'Settings' });
    await settings.waitFor();
    await check('Settings dialog');
    // The in-browser model's section, with no model stored and after a bad file.
    await settings.getByLabel('Provider', { exact: true }).selectOption('local');
    await settings.getByTestId('local-empty').waitFor();
    await settings.locator('#local-file').setInputFiles({ name: 'bad.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from('not a model') });
    await settings.getByTestId('local-error').waitFor();
    await check('Settings dialog, local model');
    await settings.getByRole('button', { name: 'Cancel' }).click();
    await settings.waitFor({ state: 'hidden' });

    // History, empty.
    await nav(page, '/history');
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await check('History, empty');
    await nav(page, '/');

    // The single agent: a demo run, its tabs, the inspector, share and fork.
    await runTask(page, 'What is 12 * (3 + 4)? Plan a short study session.');
    await waitForStatus(page, /Finished/);
    await check('run page, single agent, Transcript');
    await screenshot(page, `a11y-${theme}-run-single`);
    await tab(page, 'Events');
    await page.locator('.events').waitFor();
    await page.locator('.event details').first().evaluate((d) => (d.open = true));
    await check('run page, single agent, Events');
    await tab(page, 'Transcript');
    await page.locator('g.node[data-agent="assistant"]').click();
    await inspector(page).getByText('LLM calls').waitFor();
    await check('run page, single agent, inspector');
    await inspector(page).getByRole('button', { name: 'Close the inspector' }).click();

    await page.getByRole('button', { name: 'Copy share link' }).click();
    const share = page.getByRole('dialog', { name: 'Share this run' });
    const link = share.getByRole('textbox', { name: 'Share link' });
    await link.waitFor();
    const url = await link.inputValue();
    await check('share dialog');
    await share.getByRole('button', { name: 'Close' }).click();
    await share.waitFor({ state: 'hidden' });

    await page.locator('article.msg[data-call="0"]').hover();
    await page.locator('article.msg[data-call="0"]').getByRole('button', { name: 'Fork here' }).click();
    const fork = page.getByRole('dialog', { name: /Fork at call 1/ });
    await fork.waitFor();
    await check('fork dialog');
    await fork.getByLabel('Use my edited answer').check();
    await check('fork dialog, editing the answer');
    await fork.getByRole('button', { name: 'Cancel' }).click();
    await fork.waitFor({ state: 'hidden' });

    // The travel planner.
    await page.getByLabel('Coordinator').selectOption('travel');
    await page.getByLabel('Query', { exact: true }).waitFor();
    await check('run page, travel planner setup');
    await run(page);
    await check('run page, travel planner, Transcript');
    await tab(page, 'Notebook');
    await page.getByRole('region', { name: 'Notebook' }).locator('.tp-card').first().waitFor();
    await check('run page, travel planner, Notebook');
    await screenshot(page, `a11y-${theme}-travel-notebook`);
    await tab(page, 'Plan');
    await page.getByRole('table', { name: 'Plan' }).waitFor();
    await check('run page, travel planner, Plan');
    await screenshot(page, `a11y-${theme}-travel-plan`);
    await tab(page, 'Events');
    await page.locator('.events').waitFor();
    await check('run page, travel planner, Events');
    await page.locator('g.node[data-agent="orchestrator"]').click();
    await inspector(page).locator('.tp-reflection').first().waitFor();
    await check('run page, travel planner, inspector');
    await inspector(page).getByRole('button', { name: 'Close the inspector' }).click();
    await tab(page, 'Transcript');

    // ACT.
    await page.getByLabel('Coordinator').selectOption('act');
    await page.locator('.act-setup').waitFor();
    await check('run page, ACT setup');
    await run(page);
    const room = page.getByRole('region', { name: 'Meeting room' });
    await room.locator('g.act-seat').first().waitFor();
    await check('run page, ACT, Transcript and meeting room');
    for (const [name, region] of [['Meetings', 'Meetings'], ['Memory', 'Memory'], ['Tasks', 'Task evolution'], ['Output', 'Output']]) {
      await tab(page, name);
      await page.getByRole('region', { name: region }).waitFor();
      await page.waitForTimeout(100);
      await check(`run page, ACT, ${name}`);
    }
    await room.locator('g.act-seat[data-agent="a2"]').click();
    await inspector(page).locator('.act-memory[data-agent="a2"]').waitFor();
    await check('run page, ACT, inspector');
    await inspector(page).getByRole('button', { name: 'Close the inspector' }).click();
    await tab(page, 'Transcript');

    // MAEL.
    await page.getByLabel('Coordinator').selectOption('mael');
    await page.locator('.ml-setup').waitFor();
    await check('run page, MAEL setup');
    await page.getByRole('button', { name: 'Edit team…' }).click();
    const editor = page.getByRole('dialog', { name: /team/i });
    await editor.waitFor();
    await check('MAEL team editor');
    await editor.getByRole('button', { name: 'Cancel' }).click();
    await editor.waitFor({ state: 'hidden' });
    await run(page);
    await page.getByRole('region', { name: 'Team' }).locator('g.ml-node').first().waitFor();
    await check('run page, MAEL, Transcript and team');
    await tab(page, 'Call tree');
    await page.getByRole('region', { name: 'Call tree' }).locator('details.ml-task').first().waitFor();
    await check('run page, MAEL, Call tree');
    await tab(page, 'Experience');
    await page.getByRole('region', { name: 'Experience' }).waitFor();
    await page.waitForTimeout(100);
    await check('run page, MAEL, Experience');
    await page.getByRole('region', { name: 'Team' }).locator('g.ml-node[data-agent="a2"]').click();
    await inspector(page).getByText('Retrieved experience').waitFor();
    await check('run page, MAEL, inspector');
    await inspector(page).getByRole('button', { name: 'Close the inspector' }).click();
    await tab(page, 'Transcript');

    // History with runs; the coordinators' pages.
    await nav(page, '/history');
    await page.locator('.run-row').first().waitFor();
    await check('History, with runs');
    await nav(page, '/batch');
    await page.getByLabel('medium').waitFor();
    await page.waitForTimeout(200);
    await check('/batch (travel batch)');
    await nav(page, '/act');
    await page.waitForTimeout(500);
    await check('/act (ACT page)');
    await nav(page, '/mael');
    await page.getByRole('button', { name: 'Start learning' }).waitFor();
    await page.waitForTimeout(200);
    await check('/mael (MAEL page)');

    // The classroom: Compare (empty, then two runs), the variant dialog,
    // the Lessons page, a lesson played and presented, the lesson editor.
    await nav(page, '/compare');
    await page.getByRole('heading', { name: 'Compare runs' }).waitFor();
    await check('Compare, empty');
    await nav(page, '/history');
    const rows = page.locator('.run-row');
    await rows.nth(1).waitFor();
    await rows.nth(0).getByRole('button', { name: 'Compare' }).click();
    await rows.nth(1).getByRole('button', { name: 'Compare' }).click();
    await page.getByRole('button', { name: 'Open comparison' }).click();
    await page.locator('.cmp-col').nth(1).waitFor();
    await check('Compare, two runs');
    await page.getByRole('button', { name: 'Write a lesson on this' }).click();
    await page.getByRole('region', { name: 'Lesson editor' }).waitFor();
    await check('lesson editor on a comparison');
    await page.getByRole('region', { name: 'Lesson editor' }).getByRole('button', { name: 'Close' }).click();
    await nav(page, '/lessons');
    await page.getByRole('heading', { name: 'Built-in lessons' }).waitFor();
    await check('Lessons page');
    await page.getByRole('button', { name: /^Start “Who acts next/ }).click();
    const lesson = page.getByRole('region', { name: 'Lesson', exact: true });
    await lesson.waitFor();
    await lesson.getByRole('button', { name: /Next/ }).click();
    await lesson.locator('.choice').first().waitFor();
    await check('lesson, a question');
    await lesson.locator('.choice').first().click();
    await lesson.locator('.lesson-feedback').waitFor();
    await check('lesson, the answer revealed');
    await page.keyboard.press('p');
    await page.waitForFunction(() => document.body.classList.contains('presenter'));
    await check('presenter mode');
    await page.keyboard.press('Escape');
    await lesson.getByRole('button', { name: 'Close lesson' }).click();
    await page.locator('.run-toolbar summary', { hasText: 'Compare & teach' }).click();
    await page.getByRole('menuitem', { name: 'Run a variant of this…' }).click();
    const variant = page.getByRole('dialog', { name: 'Run a variant of this' });
    await variant.waitFor();
    await check('variant dialog');
    await variant.getByRole('button', { name: 'Cancel' }).click();
    await nav(page, '/');

    // A run opened from a share link, in a fresh browser.
    const fresh = await env.browser.newContext({ colorScheme: theme, viewport: { width: 1440, height: 1000 } });
    const other = await fresh.newPage();
    await other.goto(url);
    await other.waitForSelector('body[data-ready="1"]');
    await other.getByText('Shared link', { exact: true }).waitFor();
    await other.mouse.move(0, 0);
    const r = await checkA11y(other, `${theme} run opened from a share link`, { soft: true });
    if (r.message) failures.push(r.message);
    await fresh.close();

    assert.deepEqual(page.errors, []);
    await context.close();
    assert.equal(failures.length, 0, '\n' + failures.join('\n\n'));
  });
}
