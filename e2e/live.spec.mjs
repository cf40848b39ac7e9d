// A live class in Chromium, through the real relay (`roundtable serve`,
// the binary `cargo test` built): a teacher and three students (one on a
// phone) follow a built-in lesson; they answer, the teacher's counts
// match, the answer is revealed with how the class answered; the relay is
// killed and restarted mid-question, and the pages reconnect and the class
// goes on (restored from the teacher's tab). A live demo-model run streams
// to a student whose page is reloaded mid-run: it resumes, and its log
// equals the teacher's event by event. Without the relay (the app served
// statically), "Teach live" says what it needs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { setup, openApp, screenshot, eventually, waitForStatus } from './harness.mjs';
import { startRelay, RELAY_KEY } from './relay.mjs';

let env;
let relay;
before(async () => {
  env = await setup({ chunkDelayMs: 2 });
  relay = await startRelay();
});
after(async () => {
  await relay?.kill();
  await env?.close();
});

const a11y = existsSync('e2e/a11y.mjs') ? await import('./a11y.mjs') : null;
async function accessible(page, label) {
  assert.ok(a11y, 'e2e/a11y.mjs (axe-core) is there');
  await a11y.checkA11y(page, label);
}

/** The app from the relay, in a fresh context (`phone`: 390×844, touch). */
async function openOnRelay({ phone = false, path = '/', url = relay.url } = {}) {
  const context = await env.browser.newContext(
    phone ? { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true } : { viewport: { width: 1440, height: 1000 } },
  );
  const page = await openApp({ ...env, app: { url } }, { context });
  if (path !== '/') {
    await page.goto(url + path);
    await page.waitForSelector('body[data-ready="1"]');
  }
  return page;
}

async function join(code, name, opts = {}) {
  const page = await openOnRelay({ ...opts, path: `/join/${code}` });
  const card = page.locator('.join-card');
  await card.waitFor();
  assert.equal(await page.getByLabel('Class code').inputValue(), code, 'the link fills the code in');
  if (name) await page.getByLabel(/Your name/).fill(name);
  if (opts.phone) await screenshot(page, 'live-join-phone');
  await page.getByRole('button', { name: 'Join', exact: true }).click();
  await studentPanel(page).locator('.live-state.open').waitFor({ timeout: 15000 });
  return page;
}

/** Console errors, but the browser's own line for each failed WebSocket
 * connection (the relay is down on purpose while restarting). */
const errors = (page) => page.errors.filter((e) => !/^WebSocket connection to .* failed/.test(e));

const studentPanel = (page) => page.locator('.live-panel.student');
const teacherPanel = (page) => page.locator('.live-panel.teacher');

/** End class: over on every student's page; no console errors; the pages closed. */
async function endClass(teacher, students) {
  await teacherPanel(teacher).getByRole('button', { name: 'End class' }).click();
  for (const s of students) await studentPanel(s).getByText(/the teacher ended the class/).waitFor();
  for (const p of [teacher, ...students]) {
    assert.deepEqual(errors(p), []);
    await p.context().close();
  }
}

async function counts(teacher) {
  return (await teacherPanel(teacher).locator('.live-bar-n').allInnerTexts()).map(Number);
}

test('a teacher and three students (one on a phone) follow a lesson, answer, survive a relay restart, see the reveal', async () => {
  const teacher = await openOnRelay();
  await teacher.goto(relay.url + '/lessons');
  await teacher.getByRole('button', { name: /^Start “Who acts next/ }).click();
  const lesson = teacher.getByRole('region', { name: 'Lesson', exact: true });
  await lesson.waitFor();
  await lesson.getByRole('button', { name: 'Teach live' }).click();
  const panel = teacherPanel(teacher);
  const codeEl = panel.locator('.live-code');
  await codeEl.waitFor({ timeout: 15000 });
  const code = (await codeEl.innerText()).trim();
  assert.match(code, /^[A-Z0-9]{6}$/);
  assert.equal(await panel.locator('.live-link a').innerText(), `${relay.url}/join/${code}`);
  // The QR code is the relay's drawing of that link.
  const qr = await panel.locator('img.live-qr').getAttribute('src');
  const svg = await teacher.evaluate(async (src) => (await fetch(src)).text(), qr);
  assert.match(svg, /^<\?xml|^<svg/);
  assert.equal(decodeURIComponent(qr.split('text=')[1]), `${relay.url}/join/${code}`);
  await panel.getByText('No students yet').waitFor();

  // Three students: two named (one with markup in the name), one anonymous on a phone.
  const ada = await join(code, 'Ada');
  const ben = await join(code, '<b>Ben</b>');
  const phone = await join(code, '', { phone: true });
  await panel.getByText('3 students connected').waitFor();
  const names = await panel.locator('.live-names li .live-name').allInnerTexts();
  assert.deepEqual(names.slice(0, 2), ['Ada', '<b>Ben</b>'], 'names are shown as text');
  assert.match(names[2], /^Anonymous/);
  assert.equal(await panel.locator('.live-names b').count(), 0, 'a name never becomes markup');
  await accessible(ada, 'a student following a live lesson');

  // The teacher moves to the first question; everyone sees the same step.
  for (let i = 0; i < 10 && !(await panel.locator('.live-question').count()); i++) {
    await lesson.getByRole('button', { name: /Next/ }).click();
  }
  const prompt = (await panel.locator('.live-question .question-prompt').innerText()).trim();
  const step = (await lesson.locator('.lesson-count').innerText()).match(/Step (\d+) of (\d+)/);
  for (const s of [ada, ben, phone]) {
    await studentPanel(s).locator('.live-q .question-prompt', { hasText: prompt }).waitFor();
    assert.match(await studentPanel(s).innerText(), new RegExp(`Step ${step[1]} of ${step[2]}`));
  }
  await screenshot(phone, 'live-student-phone-question');

  // They answer: Ada and the phone the first choice, Ben the second.
  const answer = async (s, i) => {
    await studentPanel(s).locator('.live-q .choice').nth(i).click();
    await studentPanel(s).getByText('Answer sent ✓').waitFor();
  };
  await answer(ada, 0);
  // Ben with the keyboard: the number key answers.
  await ben.keyboard.press('2');
  await studentPanel(ben).getByText('Answer sent ✓').waitFor();
  await phone.locator('.live-q .choice').first().tap();
  await studentPanel(phone).getByText('Answer sent ✓').waitFor();
  await panel.getByText('3 of 3 answered').waitFor();
  assert.deepEqual((await counts(teacher)).slice(0, 2), [2, 1]);
  // An answer is given once: the buttons are done.
  assert.ok(await studentPanel(ada).locator('.live-q .choice').nth(1).isDisabled());
  await screenshot(teacher, 'live-teacher-answers');
  // The README's picture: the teacher's panel alone.
  await panel.screenshot({ path: 'e2e/screenshots/live-teacher-panel.png' });
  await accessible(teacher, 'the teacher with the class answering');

  // The relay dies mid-question and comes back on the same port.
  const port = relay.port;
  await relay.kill();
  for (const p of [teacher, ada, phone]) await p.locator('.live-state.retrying').first().waitFor({ timeout: 10000 });
  relay = await startRelay({ port });
  await panel.locator('.live-state.open').waitFor({ timeout: 20000 });
  for (const s of [ada, ben, phone]) await studentPanel(s).locator('.live-state.open').waitFor({ timeout: 30000 });
  await panel.getByText('3 students connected').waitFor({ timeout: 15000 });
  // The class's answers came back with it, and nobody can answer twice.
  await panel.getByText('3 of 3 answered').waitFor();
  assert.deepEqual((await counts(teacher)).slice(0, 2), [2, 1]);
  assert.ok(await studentPanel(ben).locator('.live-q .choice').nth(0).isDisabled());

  // Reveal: the teacher's panel and every student's show the answer and the class's answers.
  await panel.getByRole('button', { name: 'Reveal the answer' }).click();
  await panel.locator('.live-bar.right').waitFor();
  const right = await panel.locator('.live-bar').evaluateAll((bars) => bars.findIndex((b) => b.classList.contains('right')));
  const expected = [2, 1][right] ?? 0;
  for (const [s, mine] of [[ada, 0], [ben, 1], [phone, 0]]) {
    const fb = studentPanel(s).locator('.live-q .lesson-feedback');
    await fb.filter({ hasText: `${expected} of 3 in the class answered this` }).waitFor();
    assert.match(await fb.innerText(), mine === right ? /right/ : /Not quite/);
  }
  await screenshot(teacher, 'live-teacher-revealed');
  await screenshot(phone, 'live-student-phone-revealed');

  // The teacher moves on: the students' step follows.
  await lesson.getByRole('button', { name: /Next|Finish/ }).click();
  const next = Number(step[1]) + 1;
  if (next <= Number(step[2])) await studentPanel(ada).getByText(`Step ${next} of ${step[2]}`).waitFor();

  // End class: over for everyone.
  await panel.getByRole('button', { name: 'End class' }).click();
  for (const s of [ada, ben, phone]) await studentPanel(s).getByText(/the teacher ended the class/).waitFor();
  assert.equal(await teacher.locator('.live-panel').count(), 0);
  for (const p of [teacher, ada, ben, phone]) {
    assert.deepEqual(errors(p), [], 'no errors in the console');
    await p.context().close();
  }
});

test('a live demo-model run streams to a student; reloaded mid-run, the student resumes with the same log, event by event', async () => {
  const teacher = await openOnRelay();
  // A task longer than the student's header holds, a figure at the cut.
  const task = 'Plan a 3-day trip for one traveller from Port Alder to Lake Merrow in early March for two people; the total budget is $1,100, a quiet hotel near the water.';
  await teacher.getByRole('textbox', { name: 'Task', exact: true }).fill(task);
  await teacher.getByRole('button', { name: 'Run', exact: true }).click();
  await teacher.locator('.run-toolbar summary', { hasText: 'Compare & teach' }).click();
  await teacher.getByRole('menuitem', { name: 'Start a live class' }).click();
  const panel = teacherPanel(teacher);
  await panel.locator('.live-code').waitFor({ timeout: 15000 });
  const code = (await panel.locator('.live-code').innerText()).trim();
  const student = await join(code, 'Cleo');
  // Cut at a word and marked, never inside "$1,100"; the whole task a click away.
  const title = studentPanel(student).locator('.live-title');
  await title.getByText(/^Plan a 3-day trip/).waitFor();
  const shown = (await title.innerText()).replace(/\s*more$/, '');
  assert.match(shown, /…$/, shown);
  assert.ok(task.startsWith(shown.slice(0, -1).trimEnd()), shown);
  assert.doesNotMatch(shown, /\$1…$|\$1,1?0?…$/, `a figure cut inside: ${shown}`);
  await title.getByRole('button', { name: 'more' }).click();
  assert.equal((await title.innerText()).replace(/\s*less$/, ''), task);
  // Mid-run: some events arrived, the run goes on.
  const events = async (p) => Number(await p.getByRole('tab', { name: /Events/ }).locator('.tab-count').innerText());
  await eventually(async () => (await events(student)) >= 3, { timeout: 20000 });
  assert.notEqual(await teacher.getByTestId('run-status').innerText(), 'Finished', 'the reload comes mid-run');
  await student.reload();
  await student.waitForSelector('body[data-ready="1"]');
  await studentPanel(student).locator('.live-state.open').waitFor({ timeout: 15000 });
  assert.match(await studentPanel(student).innerText(), /You are Cleo/, 'the same seat');
  await waitForStatus(teacher, /Finished/, 60000);
  const total = await events(teacher);
  await eventually(async () => (await panel.innerText()).includes(`${total} of ${total} events sent`), { timeout: 20000 });
  await eventually(async () => (await events(student)) === total, { timeout: 20000 });
  // Both logs, exported as run files, event by event.
  const exported = async (p) => {
    await p.locator('.run-toolbar summary', { hasText: 'Export' }).click();
    const [dl] = await Promise.all([p.waitForEvent('download'), p.getByRole('menuitem', { name: 'Run file (.json)' }).click()]);
    return JSON.parse(readFileSync(await dl.path(), 'utf8'));
  };
  const mine = await exported(student);
  const theirs = await exported(teacher);
  assert.equal(mine.events.length, theirs.events.length);
  mine.events.forEach((e, i) => assert.deepEqual(e, theirs.events[i], `event ${i}`));
  assert.equal(mine.config.task, theirs.config.task);
  await screenshot(student, 'live-student-run');
  // The teacher's tab reloaded: it takes its class back (the token is kept
  // in the tab), the student still in it.
  await teacher.reload();
  await teacher.waitForSelector('body[data-ready="1"]');
  await panel.locator('.live-state.open').waitFor({ timeout: 15000 });
  await panel.getByText('1 student connected').waitFor();
  assert.equal((await panel.locator('.live-code, .live-code-small').first().innerText()).trim(), code);
  await endClass(teacher, [student]);
});

test('a relay whose key changed will not give the class back: the teacher is told why, keeps the token, and Try again works once the right relay is back; the teacher removes a student', async () => {
  const teacher = await openOnRelay();
  await teacher.goto(relay.url + '/lessons');
  await teacher.getByRole('button', { name: /^Start “Who acts next/ }).click();
  await teacher.getByRole('region', { name: 'Lesson', exact: true }).getByRole('button', { name: 'Teach live' }).click();
  const panel = teacherPanel(teacher);
  await panel.locator('.live-code').waitFor({ timeout: 15000 });
  const code = (await panel.locator('.live-code').innerText()).trim();
  const ada = await join(code, 'Ada');
  const ben = await join(code, 'Ben');
  await panel.getByText('2 students connected').waitFor();

  // The teacher removes Ada: her page says so and does not come back; Ben stays.
  await panel.getByRole('button', { name: 'Remove Ada from the class' }).click();
  await studentPanel(ada).getByText(/The teacher removed you from this class/).waitFor({ timeout: 10000 });
  await panel.getByText('1 student connected').waitFor();
  assert.equal(await panel.getByRole('button', { name: 'Remove Ada from the class' }).count(), 0);
  await studentPanel(ben).locator('.live-state.open').waitFor();

  // The relay restarts with another key (its key file lost): the teacher's
  // token cannot be checked, so the class is not given back — to anyone.
  const port = relay.port;
  await relay.kill();
  const otherKey = `${RELAY_KEY}-other`;
  relay = await startRelay({ port, key: otherKey });
  const refusal = panel.getByRole('alert').filter({ hasText: 'would not give this class back' });
  await refusal.waitFor({ timeout: 20000 });
  assert.match(await refusal.innerText(), /start a new class/);
  assert.match(await refusal.innerText(), /keeps the class's token/);
  await screenshot(teacher, 'live-teacher-refused');
  const kept = await teacher.evaluate(() => Object.keys(sessionStorage).map((k) => sessionStorage.getItem(k)).join(' '));
  assert.ok(kept.includes(code), 'the tab kept its class and token');

  // The right relay is back (its key found): Try again takes the class
  // back from what the tab kept, and Ben rejoins it.
  await relay.kill();
  relay = await startRelay({ port });
  await refusal.getByRole('button', { name: 'Try again' }).click();
  await panel.locator('.live-state.open').waitFor({ timeout: 20000 });
  await studentPanel(ben).locator('.live-state.open').waitFor({ timeout: 30000 });
  await panel.getByText('1 student connected').waitFor({ timeout: 15000 });
  await endClass(teacher, [ben]);
  await ada.context().close();
  rmSync(otherKey, { force: true });
});

test('a two-run lesson and then a plain comparison, taught live: the student sees both runs where the teacher has them', async () => {
  const teacher = await openOnRelay();
  await teacher.goto(relay.url + '/lessons');
  await teacher.getByRole('button', { name: /^Start “Orchestrator or fixed workflow/ }).click();
  await teacher.waitForURL(/\/compare$/);
  const lesson = teacher.getByRole('region', { name: 'Lesson', exact: true });
  await lesson.getByRole('button', { name: 'Teach live' }).click();
  const panel = teacherPanel(teacher);
  await panel.locator('.live-code').waitFor({ timeout: 15000 });
  const code = (await panel.locator('.live-code').innerText()).trim();
  const student = await join(code, 'Dee');
  await student.waitForURL(/\/compare$/);
  await eventually(async () => (await student.locator('.cmp-col').count()) === 2);
  const transcripts = (p) => p.locator('.cmp-transcript').allInnerTexts();
  const same = async () => JSON.stringify(await transcripts(student)) === JSON.stringify(await transcripts(teacher));
  await lesson.getByRole('button', { name: /Next/ }).click();
  await lesson.getByRole('button', { name: /Next|Skip/ }).click();
  const step = (await lesson.locator('.lesson-count').innerText()).match(/Step (\d+) of (\d+)/);
  await studentPanel(student).getByText(`Step ${step[1]} of ${step[2]}`).waitFor();
  await eventually(same, { timeout: 10000 });
  // The lesson closed, the comparison stays: the class sees it plainly,
  // and follows the teacher's timeline.
  await lesson.getByRole('button', { name: 'Close lesson' }).click();
  await studentPanel(student).getByText('2 runs side by side').waitFor();
  await teacher.locator('.cmp-phases .chip').nth(2).click();
  await eventually(same, { timeout: 10000 });
  await screenshot(student, 'live-student-comparison');
  await screenshot(teacher, 'live-teacher-comparison');
  assert.ok((await transcripts(student)).some((t) => t.trim().length > 0), 'the columns show messages');
  await endClass(teacher, [student]);
});

test('a relay with a lower event rate: refused events are sent again, slower, until the student has the whole run', async () => {
  const slow = await startRelay({ extra: ['--events-per-second', '10'] });
  try {
    const teacher = await openOnRelay({ url: slow.url });
    await teacher.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = teacher.getByRole('dialog', { name: 'Settings' });
    await dialog.getByLabel("Demo model's streaming pace").selectOption('0');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await teacher.getByRole('textbox', { name: 'Task', exact: true }).fill('Name three rivers');
    await teacher.getByRole('button', { name: 'Run', exact: true }).click();
    await waitForStatus(teacher, /Finished/, 60000);
    const events = async (p) => Number(await p.getByRole('tab', { name: /Events/ }).locator('.tab-count').innerText());
    const total = await events(teacher);
    // More than the relay takes in a second: the first frame is refused.
    assert.ok(total > 10, `${total} events`);
    await teacher.locator('.run-toolbar summary', { hasText: 'Compare & teach' }).click();
    await teacher.getByRole('menuitem', { name: 'Start a live class' }).click();
    const panel = teacherPanel(teacher);
    await panel.locator('.live-code').waitFor({ timeout: 15000 });
    const code = (await panel.locator('.live-code').innerText()).trim();
    const student = await join(code, 'Eve', { url: slow.url });
    await eventually(async () => (await panel.innerText()).includes(`${total} of ${total} events sent`), { timeout: 60000 });
    await eventually(async () => (await events(student)) === total, { timeout: 30000 });
    assert.equal(await panel.getByRole('alert').count(), 0, 'the class goes on');
    await panel.locator('.live-state.open').waitFor();
    await endClass(teacher, [student]);
  } finally {
    await slow.kill();
  }
});

test('without the relay (a static host), Teach live says what it needs and the lesson goes on', async () => {
  const page = await openApp(env);
  await page.goto(env.app.url + '/lessons');
  await page.getByRole('button', { name: /^Start “Who acts next/ }).click();
  const lesson = page.getByRole('region', { name: 'Lesson', exact: true });
  await lesson.getByRole('button', { name: 'Teach live' }).click();
  const alert = teacherPanel(page).getByRole('alert');
  await alert.waitFor({ timeout: 15000 });
  assert.match(await alert.innerText(), /roundtable serve/);
  await teacherPanel(page).getByRole('button', { name: 'Close' }).click();
  assert.equal(await page.locator('.live-panel').count(), 0);
  await lesson.getByRole('button', { name: /Next/ }).click();
  await lesson.getByText(/Step 2 of/).waitFor();
  // A join link on a static host: the join page says the same.
  await page.goto(env.app.url + '/join/ABC234');
  await page.waitForSelector('body[data-ready="1"]');
  await page.getByRole('button', { name: 'Join', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: /roundtable serve/ }).waitFor({ timeout: 15000 });
  await screenshot(page, 'live-join-no-relay');
  await accessible(page, 'the join page');
  assert.deepEqual(errors(page), []);
  await page.context().close();
});
