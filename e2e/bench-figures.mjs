// The figures `make bench` measures, kept between its steps as JSON in
// target/bench/ (one file per step) so that its last step prints every goal
// in one table (e2e/bench-table.mjs). A step that did not run this time
// leaves no file: `make bench` clears them first.
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const DIR = 'target/bench';

export function recordFigure(step, figures) {
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, `${step}.json`), JSON.stringify(figures, null, 1));
}

export function readFigures() {
  let names = [];
  try {
    names = readdirSync(DIR).filter((f) => f.endsWith('.json'));
  } catch {
    return {};
  }
  return Object.fromEntries(names.map((f) => [f.slice(0, -5), JSON.parse(readFileSync(join(DIR, f), 'utf8'))]));
}

export function clearFigures() {
  rmSync(DIR, { recursive: true, force: true });
}

// `node e2e/bench-figures.mjs --clear`: the first step of `make bench`.
const isMain = process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (isMain && process.argv[2] === '--clear') clearFigures();
