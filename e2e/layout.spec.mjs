// Layout under messy output (issue 28, item 5): what a weak model writes
// stays inside its box. Runs against the mock server answer with a
// 3,000-character line without a space (and a code block of one) and, in
// ACT, a 2,000-character keyword; nothing on the run page is then wider
// than its box, the keyword's pill stays small (the whole keyword in its
// title and in the inspector), agents "Agent 1".."Agent 4" show 1..4 in the
// graph, the team panel and the transcript, each in a colour of its own;
// the header keeps one line at 1440 px with a local model's long name; a
// file being added in Settings shows no text of the file input over its
// button. Screenshots at 1440×1000 and 390×844.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { setup, openApp, configure, waitForStatus, screenshot } from './harness.mjs';

let env;
before(async () => (env = await setup({ chunkDelayMs: 1 })));
after(async () => env && (await env.close()));
beforeEach(() => env.mock.reset());

const DESKTOP = { width: 1440, height: 1000 };
const PHONE = { width: 390, height: 844 };
const UNBROKEN = 'Z'.repeat(3000);
const CODE = 'const plan = "' + 'Q'.repeat(3000) + '";';
// A keyword as a small model wrote one: a paragraph, 2,000 characters.
const KEYWORD = ('oolong tea terroir and the oxidation of its leaves ').repeat(40).slice(0, 2000);

/**
 * Elements of the run page whose content is wider than they are: it
 * overflows them (visible), is cut (hidden) or scrolls sideways (auto).
 * Cut with an ellipsis on purpose, visually hidden (1 px), and the boxes
 * that scroll tables or the page links sideways by design do not count.
 */
async function overflowing(page, scope = '.run-page') {
  return page.evaluate((scope) => {
    const root = document.querySelector(scope);
    if (!root) return [`no ${scope}`];
    // Tables (their wrappers) and the tab strip scroll sideways; the timeline's band labels
    // are cut at its end.
    const scrollsByDesign = ['tp-table-wrap', 'table-scroll', 'nav', 'tabs', 'event-list', 'band-labels'];
    const out = [];
    for (const el of root.querySelectorAll('*')) {
      if (el.closest('svg')) continue;
      const cs = getComputedStyle(el);
      if (cs.display === 'none' || cs.visibility === 'hidden' || el.clientWidth <= 1) continue;
      if (cs.textOverflow === 'ellipsis') continue;
      if (scrollsByDesign.some((c) => el.classList.contains(c))) continue;
      if (el.scrollWidth > el.clientWidth + 1) {
        out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} ${el.scrollWidth}>${el.clientWidth} (${cs.overflowX})`);
      }
    }
    return out;
  }, scope);
}

/** Reply boxes (and their pre blocks) that scroll or overflow sideways. */
async function wideBoxes(page, selector) {
  return page.locator(selector).evaluateAll((els) =>
    els
      .filter((e) => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
      .map((e) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} ${e.scrollWidth}>${e.clientWidth}`),
  );
}

/** Every element inside `outer` ends within it (no box wider than its container). */
async function outsideOf(page, outer) {
  return page.locator(outer).evaluateAll((roots) => {
    const out = [];
    for (const root of roots) {
      const box = root.getBoundingClientRect();
      for (const el of root.querySelectorAll('*')) {
        if (el.closest('svg')) continue;
        const r = el.getBoundingClientRect();
        if (r.width <= 1 || getComputedStyle(el).position === 'fixed') continue;
        if (r.right > box.right + 1 || r.left < box.left - 1) {
          out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} [${Math.round(r.left)}, ${Math.round(r.right)}] outside [${Math.round(box.left)}, ${Math.round(box.right)}]`);
        }
      }
    }
    return out;
  });
}

/** The header's items sit on one line: their vertical centres agree. */
async function headerLines(page) {
  return page.locator('.app-header').evaluate((h) => {
    const items = [...h.children].filter((c) => c.getBoundingClientRect().width > 0 && getComputedStyle(c).position !== 'absolute');
    const centres = items.map((c) => {
      const r = c.getBoundingClientRect();
      return Math.round(r.top + r.height / 2);
    });
    const tallest = Math.max(...items.map((c) => c.getBoundingClientRect().height));
    const cs = getComputedStyle(h);
    return {
      spread: Math.max(...centres) - Math.min(...centres),
      height: h.getBoundingClientRect().height,
      single: tallest + parseFloat(cs.paddingTop) + parseFloat(cs.paddingBottom) + parseFloat(cs.borderBottomWidth),
    };
  });
}

async function assertOneLineHeader(page, what) {
  const h = await headerLines(page);
  assert.ok(h.spread <= 4, `${what}: the header's items are on one line (centres ${h.spread}px apart)`);
  assert.ok(Math.abs(h.height - h.single) <= 1, `${what}: the header is one line high (${h.height} vs ${h.single})`);
}

const gold = (idx) =>
  readFileSync('public/travel/builtin_queries.jsonl', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((q) => q.idx === idx);

async function tab(page, name) {
  await page.getByRole('tab', { name: new RegExp('^' + name) }).click();
}

test('travel: a critic and experts writing 3,000 characters without a space keep inside every box', async () => {
  const page = await openApp(env);
  await page.setViewportSize(DESKTOP);
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'sk-t' });
  await page.getByLabel('Coordinator').selectOption('travel');
  await page.getByLabel('Query', { exact: true }).selectOption('1');
  await page.getByLabel('Variant').selectOption('orchestrator');
  const q = gold(1);
  const fast = { chunkSize: 800 };
  const decide = (next) => ({ ...fast, text: JSON.stringify({ done: '', missing: next, conflicts: '', next, instruction: `please handle ${next} ${UNBROKEN.slice(0, 400)}` }) });
  const post = (what) => ({ ...fast, text: `${what} done. ${UNBROKEN}\n\`\`\`json\n{"estimated_cost": 100}\n\`\`\`` });
  env.mock.script([
    decide('transportation'),
    { toolCalls: [{ name: 'FlightSearch', arguments: { origin: q.org, destination: q.dest, date: q.date[0] } }] },
    post('Transportation'),
    decide('hotel'),
    { toolCalls: [{ name: 'AccommodationSearch', arguments: { city: q.dest } }] },
    post('Hotel'),
    decide('restaurant'),
    { toolCalls: [{ name: 'RestaurantSearch', arguments: { city: q.dest } }] },
    post('Restaurant'),
    decide('attraction'),
    { toolCalls: [{ name: 'AttractionSearch', arguments: { city: q.dest } }] },
    post('Attraction'),
    decide('plan'),
    { ...fast, text: 'Here is the plan.\n```json\n' + JSON.stringify(q.annotated_plan) + '\n```' },
    { ...fast, text: `All constraints hold. ${UNBROKEN}\n\n\`\`\`\n${CODE}\n\`\`\`\n\nAPPROVED` },
  ]);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await waitForStatus(page, /Finished/, 90000);

  // The transcript: every reply box and code block wraps.
  const replies = '.transcript .msg-main, .transcript .md, .transcript .md pre';
  assert.deepEqual(await wideBoxes(page, replies), []);
  assert.deepEqual(await outsideOf(page, '.transcript'), []);
  assert.deepEqual(await overflowing(page), []);
  const critic = page.locator('article.msg', { hasText: 'All constraints hold' }).last();
  await critic.scrollIntoViewIfNeeded();
  await screenshot(page, 'layout-travel-transcript');

  // The critic's reply in its inspector.
  await page.locator('g.node[data-agent="critic"]').click();
  const inspector = page.getByRole('region', { name: 'Inspector' });
  await inspector.getByText('LLM calls').waitFor();
  await inspector.locator('details').evaluateAll((ds) => ds.forEach((d) => (d.open = true)));
  assert.deepEqual(await wideBoxes(page, '.inspector-body, .inspector-body pre, .inspector-body .tp-answer, .inspector-body .md'), []);
  assert.deepEqual(await outsideOf(page, '.inspector-body'), []);
  assert.deepEqual(await overflowing(page), []);
  await screenshot(page, 'layout-travel-critic-inspector');

  for (const name of ['Notebook', 'Plan', 'Events']) {
    await tab(page, name);
    await page.waitForTimeout(300);
    if (name === 'Events') await page.locator('.event summary').last().click();
    assert.deepEqual(await overflowing(page), [], name);
  }
  await tab(page, 'Transcript');

  // A phone: the same boxes wrap in a column 390 px wide.
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(300);
  assert.deepEqual(await wideBoxes(page, replies), []);
  assert.deepEqual(await outsideOf(page, '.transcript'), []);
  assert.deepEqual(await overflowing(page), []);
  await critic.scrollIntoViewIfNeeded();
  await screenshot(page, 'layout-travel-transcript-phone');
  assert.deepEqual(page.errors, []);
});

test('ACT: a 2,000-character keyword is a small pill, whole in its title and the inspector', async () => {
  const page = await openApp(env);
  await page.setViewportSize(DESKTOP);
  await configure(page, { provider: 'custom', baseUrl: env.mock.url + '/v1', model: 'mock-model', key: 'sk-t' });
  await page.getByLabel('Coordinator').selectOption('act');
  await page.locator('.act-setup').waitFor();
  // One reply every step of ACT reads what it needs from.
  const reply = JSON.stringify({
    tasks: [1, 2, 3, 4].map((i) => ({ subject: `Part ${i}`, details: ['detail'] })),
    expertise: [KEYWORD, 'tea'],
    subject: 'Tea',
    detail: 'The details.',
    description: `How the parts fit: ${UNBROKEN}`,
    task: 'Write about oolong tea.',
    episodes: [{ subject: 'Agent B', text: `B spoke of ${UNBROKEN}` }],
    knowledge: [{ subject: 'Agent B', summary: `Oolong ${UNBROKEN}`, keywords: [KEYWORD, 'oolong'], importance: 7 }],
    reflection: 'Go deeper.',
    deepen: 'oolong',
    questions: ['Why?'],
    done: true,
    ok: true,
    issues: [],
    scores: {},
  });
  env.mock.script(Array.from({ length: 400 }, () => ({ text: reply, chunkSize: 4000 })));
  const before = await page.getByTestId('run-status').innerText();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction((b) => document.querySelector('[data-testid="run-status"]')?.innerText !== b, before);
  await waitForStatus(page, /Finished/, 180000);
  assert.deepEqual(await overflowing(page), []);

  // Today's reader keeps 40 characters of a keyword; a run recorded before
  // it (a file, a link) holds the whole 2,000. Such a run, opened.
  await page.locator('.run-toolbar summary', { hasText: 'Export' }).click();
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: 'Run file (.json)' }).click()]);
  const doc = JSON.parse(readFileSync(await dl.path(), 'utf8'));
  let planted = 0;
  const plant = (v) => {
    if (Array.isArray(v)) return v.forEach(plant);
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'keywords' && Array.isArray(x) && x.length) {
        x[0] = KEYWORD;
        planted++;
      } else plant(x);
    }
  };
  plant(doc.events);
  assert.ok(planted >= 4, `keywords planted (${planted})`);
  await page.goto(env.app.url + '/history');
  await page.waitForSelector('body[data-ready="1"]');
  await page.getByLabel('Import run file').setInputFiles({ name: 'old-act-run.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });
  await page.getByText('Imported file', { exact: true }).waitFor();

  await tab(page, 'Memory');
  const memory = page.getByRole('region', { name: 'Memory' });
  const pills = memory.locator('.act-kw');
  await pills.first().waitFor();
  const long = memory.locator('.act-kw[title]').first();
  assert.equal(await long.getAttribute('title'), KEYWORD, 'the whole keyword in the title');
  const text = await long.innerText();
  assert.ok(text.length <= 32 && text.endsWith('…'), `the pill shows a cut keyword: "${text}"`);
  const widths = await pills.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
  const heights = await pills.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
  assert.ok(Math.max(...widths) <= 260, `pills at most 260 px wide (${Math.max(...widths)})`);
  assert.ok(Math.max(...heights) <= 24, `pills one line high (${Math.max(...heights)})`);
  assert.deepEqual(await overflowing(page), []);
  await long.scrollIntoViewIfNeeded();
  await screenshot(page, 'layout-act-memory');

  // The inspector: the pills, and the whole keyword as text.
  const room = page.getByRole('region', { name: 'Meeting room' });
  await room.locator('g.act-seat[data-agent="a1"]').click();
  const inspector = page.getByRole('region', { name: 'Inspector' });
  const full = inspector.locator('.act-kw-full').first();
  await full.waitFor();
  await full.locator('summary').click();
  assert.equal(await full.locator('li').first().innerText(), KEYWORD.trim());
  assert.deepEqual(await outsideOf(page, '.inspector-body'), []);
  assert.deepEqual(await overflowing(page), []);
  await inspector.scrollIntoViewIfNeeded();
  await screenshot(page, 'layout-act-inspector');

  for (const name of ['Meetings', 'Tasks', 'Output', 'Transcript']) {
    await tab(page, name);
    await page.waitForTimeout(300);
    assert.deepEqual(await overflowing(page), [], name);
  }
  // The room: the members' initials differ (A, B, C, D), colours too.
  const letters = await room.locator('g.act-seat .act-seat-letter').allTextContents();
  assert.deepEqual(letters, ['A', 'B', 'C', 'D']);
  const fills = await room.locator('g.act-seat circle').evaluateAll((cs) => cs.map((c) => c.style.fill));
  assert.equal(new Set(fills).size, 4, `four colours: ${fills}`);
  await page.setViewportSize(PHONE);
  await tab(page, 'Memory');
  await page.waitForTimeout(300);
  assert.deepEqual(await overflowing(page), []);
  assert.ok(Math.max(...(await pills.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width)))) <= 260);
  await long.scrollIntoViewIfNeeded();
  await screenshot(page, 'layout-act-memory-phone');
  assert.deepEqual(page.errors, []);
});

test('MAEL: Agent 1..4 show 1..4 in the graph, the team and the transcript, each in its own colour', async () => {
  const page = await openApp(env);
  await page.setViewportSize(DESKTOP);
  await page.getByLabel('Coordinator').selectOption('mael');
  await page.getByLabel('Task', { exact: true }).waitFor();
  const before = await page.getByTestId('run-status').innerText();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction((b) => document.querySelector('[data-testid="run-status"]')?.innerText !== b, before);
  await waitForStatus(page, /Finished/, 60000);

  const graph = await page.locator('g.node-marks .node-initial').allTextContents();
  assert.deepEqual(graph.slice(0, 4), ['1', '2', '3', '4'], `graph initials: ${graph}`);
  assert.equal(new Set(graph).size, graph.length, `every node its own initial: ${graph}`);
  const fills = await page.locator('g.node > circle[style]').evaluateAll((cs) => cs.map((c) => c.style.fill));
  assert.equal(new Set(fills).size, fills.length, `every node its own colour: ${fills}`);
  const team = await page.getByRole('region', { name: 'Team' }).locator('.ml-initial').allTextContents();
  assert.deepEqual(team, ['1', '2', '3', '4']);
  // The transcript's avatars: the graph's initials and colours.
  const avatars = await page.locator('.transcript article.msg:not(.from-user) .avatar').evaluateAll((as) =>
    as.map((a) => [a.textContent, a.style.background]),
  );
  assert.ok(avatars.length > 4);
  const byInitial = new Map(avatars);
  for (const [initial, colour] of avatars) assert.equal(byInitial.get(initial), colour, `one colour per agent (${initial})`);
  assert.ok([...byInitial.keys()].every((k) => graph.includes(k)), `avatars ${[...byInitial.keys()]} among ${graph}`);
  assert.ok(byInitial.size >= 4 && new Set(byInitial.values()).size === byInitial.size, 'distinct colours in the transcript');
  assert.deepEqual(await overflowing(page), []);
  await screenshot(page, 'layout-mael-initials');
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(300);
  assert.deepEqual(await overflowing(page), []);
  await screenshot(page, 'layout-mael-initials-phone');
  assert.deepEqual(page.errors, []);
});

test("the header keeps one line at 1440 px with a local model's long name, cut with its whole name in the title", async () => {
  const page = await openApp(env);
  await page.setViewportSize(DESKTOP);
  await assertOneLineHeader(page, 'the offline demo');
  // A local model picked earlier: the name inside its file is a training
  // run's; Settings noted the file's short name when it was picked.
  const settings = {
    provider: 'local',
    model: 'Smollm2 135M 8k Lc100K Mix1 Ep2 Q4_1',
    local_model: 'f00d',
    local_label: 'SmolLM2-135M-Instruct · Q4_1 · 98 MB',
  };
  await page.evaluate((s) => localStorage.setItem('roundtable.settings.v1', JSON.stringify(s)), settings);
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  const chip = page.locator('.model-chip');
  assert.equal((await chip.innerText()).trim(), 'SmolLM2-135M-Instruct · Q4_1 · 98 MB');
  assert.match(await chip.getAttribute('title'), /^Model in use: Local · SmolLM2-135M-Instruct · Q4_1 · 98 MB \(in this browser; the file calls it Smollm2 135M 8k Lc100K Mix1 Ep2 Q4_1\)/);
  // At 1440 px the short name shows whole.
  const whole = await page.locator('.model-chip-name').evaluate((e) => e.scrollWidth <= e.clientWidth);
  assert.ok(whole, 'the short name is not cut at 1440 px');
  for (const path of ['/', '/history', '/compare', '/lessons']) {
    await page.goto(env.app.url + path);
    await page.waitForSelector('body[data-ready="1"]');
    await page.locator('.model-chip').waitFor();
    await assertOneLineHeader(page, path);
  }
  await page.goto(env.app.url + '/');
  await page.waitForSelector('body[data-ready="1"]');
  await screenshot(page, 'layout-header');
  // Without the short name (settings saved before it was noted): the file's own name, cut.
  await page.evaluate((s) => localStorage.setItem('roundtable.settings.v1', JSON.stringify({ ...s, local_label: undefined })), settings);
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  assert.match(await chip.innerText(), /Smollm2 135M/);
  await assertOneLineHeader(page, 'the long name');
  const cut = await page.locator('.model-chip-name').evaluate((e) => [e.scrollWidth, e.clientWidth, getComputedStyle(e).textOverflow]);
  assert.equal(cut[2], 'ellipsis');
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(200);
  const chipBox = await chip.boundingBox();
  assert.ok(chipBox.x >= 0 && chipBox.x + chipBox.width <= PHONE.width, 'the chip stays on a phone screen');
  assert.ok((await chip.evaluate((c) => c.getBoundingClientRect().height)) < 40, 'the chip is one line on a phone');
  await screenshot(page, 'layout-header-phone');
  assert.deepEqual(page.errors, []);
});

test("Settings: the file input's own text never shows over its button, and the keyboard still reaches it", async () => {
  const page = await openApp(env);
  await page.setViewportSize(DESKTOP);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Provider', { exact: true }).selectOption('local');
  const input = dialog.getByLabel('Add a model file');
  await input.waitFor({ state: 'attached' });
  const button = dialog.locator('label.file-button');
  const hidden = () =>
    input.evaluate((i) => {
      const r = i.getBoundingClientRect();
      const cs = getComputedStyle(i);
      return r.width <= 1 && r.height <= 1 && cs.opacity === '0';
    });
  assert.ok(await hidden(), 'hidden when idle');
  // Copying a file disables the button: still nothing of the input shows.
  await page.evaluate(() => {
    const i = document.getElementById('local-file');
    i.disabled = true;
    i.closest('label').classList.add('disabled');
  });
  assert.ok(await hidden(), 'hidden while a file is added');
  assert.equal((await button.innerText()).trim(), 'Add a model file (.gguf)…');
  await screenshot(page, 'layout-file-button-busy');
  await page.evaluate(() => {
    const i = document.getElementById('local-file');
    i.disabled = false;
    i.closest('label').classList.remove('disabled');
  });
  // The keyboard reaches it, and the button shows the focus.
  await dialog.getByLabel('Provider', { exact: true }).focus();
  let found = false;
  for (let i = 0; i < 20 && !found; i++) {
    await page.keyboard.press('Tab');
    found = await page.evaluate(() => document.activeElement?.id === 'local-file');
  }
  assert.ok(found, 'Tab reaches the file input');
  assert.equal(await button.evaluate((b) => getComputedStyle(b).outlineStyle), 'solid', 'the button shows the focus');
  // A real copy, when the test models' tool is built: the progress shows,
  // the input does not.
  const tool = 'target/llm-worker/debug/tiny-gguf';
  if (existsSync(tool)) {
    mkdirSync('target/e2e-models', { recursive: true });
    const file = 'target/e2e-models/layout-medium.gguf';
    execFileSync(tool, ['random', file, 'medium']);
    await input.setInputFiles(file);
    const progress = dialog.locator('.local-progress');
    await progress.waitFor();
    assert.ok(await hidden(), 'hidden during the copy');
    await screenshot(page, 'layout-file-button-copying');
    await dialog.getByRole('status').filter({ hasText: /^Added / }).waitFor({ timeout: 60000 });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.match(await page.locator('.model-chip').innerText(), /^layout-medium · \S+ · [\d.]+ MB$/);
    await assertOneLineHeader(page, 'a model added in Settings');
  } else {
    console.log(`(${tool} not built: the copy itself is not exercised)`);
  }
  if (await dialog.isVisible()) {
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  }
  await page.setViewportSize(PHONE);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await dialog.getByLabel('Provider', { exact: true }).selectOption('local');
  await screenshot(page, 'layout-file-button-phone');
  assert.deepEqual(page.errors, []);
});
