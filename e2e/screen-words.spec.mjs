// What the screen says agrees with where the user is and with itself
// (issue 49): a problem found inside Settings points at the form, not at
// "Settings"; nothing is cut or broken inside a word on a phone or at
// 1440 px; the graph names agents as every other view does; an unreadable
// reply is never called repaired.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openApp, configure, runMaelInProse, waitForStatus, screenshot, eventually } from './harness.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 10 })));
after(async () => env && (await env.close()));
beforeEach(() => env.mock.reset());

test("inside Settings, Test connection's problems point at the form, not at Settings", async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Provider', { exact: true }).selectOption('openai');
  await dialog.getByLabel('Base URL', { exact: true }).fill(env.mock.url + '/v1');
  await dialog.getByLabel('API key', { exact: true }).fill('');
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  const said = dialog.locator('.probe [role="alert"]');
  await said.waitFor();
  const text = await said.innerText();
  assert.match(text, /needs an API key/, text);
  assert.doesNotMatch(text, /in Settings/, `inside Settings the message says where on the form: ${text}`);
  assert.match(text, /above/, text);
  await screenshot(page, 'settings-no-key');
  assert.deepEqual(page.errors, []);
});

/** Whether `el`'s text runs over more than one line. */
const wraps = (el) => {
  const r = document.createRange();
  r.selectNodeContents(el);
  const tops = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
  return tops.size > 1;
};

test('on a phone the current page link is in view; the metrics labels, run tabs and agent names are whole', async () => {
  const page = await openApp(env, { context: await env.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }) });
  await page.getByLabel('Coordinator').selectOption('travel');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByTestId('run-status').filter({ hasText: /Finished/ }).waitFor({ timeout: 120000 });
  // The metrics' labels ("Commonsense" …) never break inside a word.
  const labels = page.locator('.tp-stat dt');
  assert.ok((await labels.count()) >= 4);
  for (const l of await labels.all()) {
    assert.equal(await l.evaluate(wraps), false, `"${await l.innerText()}" breaks over lines`);
    assert.ok(await l.evaluate((e) => e.scrollWidth <= e.clientWidth + 1), `"${await l.innerText()}" is cut`);
  }
  // Every run tab is whole on the screen (the row wraps; none hides off the edge).
  const tabs = page.locator('.tabs [role="tab"]');
  assert.ok((await tabs.count()) >= 4);
  for (const t of await tabs.all()) {
    const b = await t.boundingBox();
    assert.ok(b && b.x >= 0 && b.x + b.width <= 390 + 0.5, `the tab "${await t.innerText()}" is off the screen (${JSON.stringify(b)})`);
  }
  await screenshot(page, 'phone-run-tabs');
  // Every panel keeps within its column (a wide table scrolls inside its panel).
  const over = await page.locator('.column').evaluateAll((cols) =>
    cols.flatMap((c) => {
      const right = c.getBoundingClientRect().right;
      return [...c.querySelectorAll(':scope > .panel, :scope > * > .panel')]
        .filter((p) => p.getBoundingClientRect().right > right + 0.5)
        .map((p) => `${p.className}: ${Math.round(p.getBoundingClientRect().right - right)} px past its column`);
    }),
  );
  assert.deepEqual(over, [], 'a panel wider than its column');
  // The agent graph names each agent as every other view does: whole.
  const nodes = await page.locator('svg.graph g.node').evaluateAll((gs) =>
    gs.map((g) => ({
      label: g.querySelector('.node-label').textContent.trim(),
      name: g.querySelector('title').textContent.replace(/ \(.*$/, ''),
    })),
  );
  assert.ok(nodes.length >= 5, JSON.stringify(nodes));
  assert.deepEqual(nodes.filter((n) => n.label !== n.name), [], 'a graph label is not the agent\'s name');
  // On a page whose link is at the row's far end, that link is whole in view.
  for (const name of ['Lessons', 'History', 'Run']) {
    await page.getByRole('link', { name, exact: true }).click();
    const current = page.locator('.nav a[aria-current="page"]');
    const whole = async () => {
      const [nav, link] = [await page.locator('.nav').boundingBox(), await current.boundingBox()];
      return link.x >= nav.x - 0.5 && link.x + link.width <= nav.x + nav.width + 0.5 ? 'in view' : `${name}: the current link is out of view`;
    };
    await eventually(async () => (await whole()) === 'in view').catch(async () => assert.fail(await whole()));
  }
  await screenshot(page, 'phone-nav-current');
  assert.deepEqual(page.errors, []);
});

test("at 1440 px MAEL's team graph shows every agent's name and closeness, and its selects their whole choice", async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.getByLabel('Coordinator').selectOption('mael');
  await page.locator('#ml-size').waitFor();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByTestId('run-status').filter({ hasText: /Finished/ }).waitFor({ timeout: 180000 });
  const svg = page.locator('svg.ml-team:visible').first();
  await svg.waitFor();
  const inside = await svg.evaluate((s) => {
    const [, , w, h] = s.getAttribute('viewBox').split(/\s+/).map(Number);
    return [...s.querySelectorAll('text.ml-label, text.ml-closeness')].map((t) => {
      const b = t.getBBox();
      return { text: t.textContent, ok: b.x >= 0 && b.y >= 0 && b.x + b.width <= w && b.y + b.height <= h };
    });
  });
  assert.ok(inside.length >= 8, JSON.stringify(inside));
  assert.deepEqual(inside.filter((t) => !t.ok), [], 'a label or closeness lies outside the graph');
  // The team's shape and the import's dataset selects are wide enough for
  // their choices.
  for (const css of ['.ml-team-row select', '#ml-import-kind']) {
    const select = page.locator(css).first();
    const [text, fits] = await select.evaluate((s) => {
      const c = document.createElement('canvas').getContext('2d');
      c.font = getComputedStyle(s).font;
      const text = s.selectedOptions[0].text;
      return [text, c.measureText(text).width + 24 <= s.clientWidth];
    });
    assert.ok(fits, `${css} cuts "${text}"`);
  }
  await screenshot(page, 'mael-team-1440');
  assert.deepEqual(page.errors, []);
});

test('a reply that could not be read is named unreadable, apart from repaired ones: mark, status and History', async () => {
  const page = await openApp(env);
  await runMaelInProse(page, env);
  const notice = page.getByTestId('mostly-unreadable');
  await notice.waitFor({ timeout: 60000 });
  await waitForStatus(page, /Finished|Failed|Stopped/, 120000);
  const [, n, m] = (await notice.innerText()).match(/(\d+) of (\d+) replies could not be read/);
  const status = await page.getByTestId('run-status').innerText();
  assert.match(status, new RegExp(`unreadable: ${n} of ${m}`), `the status names the unreadable replies as the notice does: ${status}`);
  const [, repaired] = status.match(/replies repaired: (\d+) of \d+/);
  const unreadableMarks = page.locator('.repair-mark[data-unreadable]');
  assert.equal(await unreadableMarks.count(), Number(n));
  for (const badge of await unreadableMarks.locator('.repair-badge').allInnerTexts()) assert.equal(badge, 'Reply unreadable');
  const repairedMarks = page.locator('.repair-mark:not([data-unreadable])');
  assert.equal(await repairedMarks.count(), Number(repaired), 'the repaired count is the marks that say repaired');
  for (const badge of await repairedMarks.locator('.repair-badge').allInnerTexts()) assert.equal(badge, 'Reply repaired');
  await screenshot(page, 'unreadable-named');
  await page.getByRole('link', { name: 'History' }).click();
  const row = page.locator('.run-row').first();
  await row.waitFor();
  assert.match(await row.innerText(), new RegExp(`unreadable: ${n} of ${m}`), 'History says it too');
  assert.deepEqual(page.errors, []);
});

test('History counts a stopped run\'s calls as the status line and Usage do', async () => {
  const page = await openApp(env);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'k' });
  // The root is judged; the next call hangs until Stop.
  env.mock.script([{ text: '{"reason": "three lines, priced apart", "solvable": false}' }, { hangMs: 60000 }]);
  await page.getByLabel('Coordinator').selectOption('mael');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /1 LLM call · 1 running/, 60000);
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await waitForStatus(page, /Stopped/, 30000);
  const status = await page.getByTestId('run-status').innerText();
  const [calls] = status.match(/\d+ LLM calls?(?: · \d+ [a-z ]+?(?= ·|$))*/m) ?? [];
  assert.match(calls ?? '', /^1 LLM call · 1 stopped/, status);
  await page.getByRole('link', { name: 'History' }).click();
  const row = page.locator('.run-row').first();
  await row.waitFor();
  // The run's last record is written on the recorder's next tick; a row
  // still "running" is read again by History within 1.5 s.
  const said = await eventually(async () => {
    const text = await row.innerText();
    return /events · 1 LLM call · 1 stopped/.test(text) && text;
  }, { timeout: 5000 }).catch(async () => row.innerText());
  assert.match(said, /events · 1 LLM call · 1 stopped/, 'History says what the status line said');
  assert.deepEqual(page.errors, []);
});
