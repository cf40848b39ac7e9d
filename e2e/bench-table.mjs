// The last step of `make bench`: every goal (issues 12 and 13) in one
// table, from the figures the steps before recorded (e2e/bench-figures.mjs).
import { readFigures } from './bench-figures.mjs';

const f = readFigures();
const rows = [];
const row = (figure, goal, now, met) => rows.push([figure, goal, now, met === undefined ? '—' : met ? 'met' : 'NOT met']);
const missing = (figure, goal, why) => row(figure, goal, why, false);

if (f.start_page) {
  const kb = f.start_page.gzip_bytes / 1024;
  row('start page transfer, gzip', '≤ 350 KB', `${kb.toFixed(1)} KB`, kb <= 350);
} else missing('start page transfer, gzip', '≤ 350 KB', 'not measured');

const open = f.open;
if (open) {
  if (open.floor_ms !== undefined) row("the harness's floor: a page that paints one line", 'reported', `${open.floor_ms.toFixed(0)} ms`);
  row('navigation → interactive, median of 9', '≤ 250 ms', `${open.interactive_ms.toFixed(0)} ms`, open.interactive_ms <= 250);
  const names = {
    'random run, 500 events': 'random 500-event run',
    'travel planner demo run': 'travel planner demo run',
    'MAEL demo run': 'MAEL demo run',
    'ACT demo run': 'ACT demo run',
  };
  for (const [label, what] of Object.entries(names)) {
    const l = open.links[label];
    const name = `open a shared ${what} ÷ interactive`;
    if (!l) missing(name, '≤ 1.5×', 'not measured');
    else {
      const r = l.median_ms / open.interactive_ms;
      row(name, '≤ 1.5×', `${l.median_ms.toFixed(0)} ÷ ${open.interactive_ms.toFixed(0)} ms = ${r.toFixed(2)}×`, r <= 1.5);
    }
  }
  const lesson = open.links['built-in lesson (travel)'];
  if (lesson) {
    const starting = lesson.window_starting_ms === undefined ? '' : ` (${lesson.window_starting_ms.toFixed(0)} in a window still starting)`;
    row('open a built-in lesson link (issue 12)', '≤ 300 ms', `${lesson.median_ms.toFixed(0)} ms${starting}`, lesson.median_ms <= 300);
  }
  const cmp = open.links['comparison of 2 runs'];
  if (cmp) row('open a 2-run comparison link (issue 12)', 'reported', `${cmp.median_ms.toFixed(0)} ms`);
} else missing('navigation → interactive, shared runs', '', 'not measured');

if (f.link_length) {
  for (const [k, w] of Object.entries(f.link_length.worst)) {
    if (!k.endsWith('/ demo')) continue;
    const who = k.replace(' / demo', '');
    row(`link ÷ lz-string, worst ${who} demo run`, '≤ 0.15×', `${w.lz.toFixed(3)}×`, w.lz <= 0.15);
    row(`link ÷ brotli-11, worst ${who} demo run`, '≤ 0.8×', `${w.brotli.toFixed(3)}×`, w.brotli <= 0.8);
  }
} else missing('share-link length', '≤ 0.15× / ≤ 0.8×', 'not measured');

const ev = f.travel_eval_wasm;
if (ev?.plans_per_s) {
  const x = ev.plans_per_s / 7.4;
  row(`TravelPlanner evaluation in Chromium, ${ev.cases} cases`, '≥ 30× 7.4 plans/s, identical verdicts', `${ev.plans_per_s.toFixed(0)} plans/s = ${x.toFixed(0)}×, identical`, x >= 30 && ev.verdicts_identical);
} else missing('TravelPlanner evaluation in Chromium', '≥ 30× 7.4 plans/s', ev?.skipped ? `SKIPPED: ${ev.skipped}` : 'not measured');

const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i].length), ['figure', 'goal', 'now', 'met'][i].length));
const line = (r) => `  ${r.map((c, i) => c.padEnd(widths[i])).join('  │ ')}`;
console.log('\nGoals (issues 12 and 13), this bench run:');
console.log(line(['figure', 'goal', 'now', 'met']));
console.log(`  ${widths.map((w) => '─'.repeat(w)).join('──┼─')}`);
for (const r of rows) console.log(line(r));
const notMet = rows.filter((r) => r[3] === 'NOT met').length;
console.log(notMet ? `\n${notMet} goal(s) not met.` : '\nEvery goal met.');
