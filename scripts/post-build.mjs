// Trunk's post-build step (one hook: Trunk runs a stage's hooks at the same
// time, and both of these rewrite index.html): the run views' pack and its
// loader (split-manifest.mjs), then the stylesheets as one file
// (merge-css.mjs); and the HumanEval checker with the Python it runs
// (copyHumanEval, below), and the workspace's project runner (copySrdd). Works on Trunk's staging directory, or on the one
// given.
import { copyFileSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from './split-manifest.mjs';
import { mergeCss } from './merge-css.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

// The files of Pyodide (CPython in wasm, from the npm package) that the
// HumanEval worker loads: loadPyodide fetches exactly these at start-up
// (pyodide.mjs imports pyodide.asm.mjs, which instantiates the wasm; the
// standard library and the package lock are read before the interpreter
// runs). Checked against the requests a worker makes (e2e/humaneval.test.mjs).
export const PYODIDE_FILES = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];
export const HUMANEVAL_FILES = ['check.mjs', 'worker.mjs'];
// The project runner's worker (web/srdd/worker.mjs) fetches the two Python
// files beside it and imports project.mjs and ../humaneval/check.mjs.
export const SRDD_FILES = ['worker.mjs', 'project.mjs', 'gui_standins.py', 'metrics.py'];

/**
 * web/humaneval/{check,worker}.mjs → <dir>/humaneval/, and Pyodide's files →
 * <dir>/pyodide/ (worker.mjs imports ../pyodide/pyodide.mjs). No page links
 * them: only a page that scores HumanEval starts the worker, which loads
 * them (13.5 MB; 6.3 MB gzipped, the standard library being a zip
 * already). Returns the bytes copied into pyodide/.
 */
export function copyHumanEval(dir) {
  const pyodide = join(ROOT, 'node_modules', 'pyodide');
  const want = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies?.pyodide;
  let have;
  try {
    have = JSON.parse(readFileSync(join(pyodide, 'package.json'), 'utf8')).version;
  } catch {
    throw new Error(`no Pyodide in ${pyodide}: run \`npm ci\` (scripts/setup.sh does it)`);
  }
  if (/^\d+\.\d+\.\d+$/.test(want ?? '') && have !== want) throw new Error(`node_modules has Pyodide ${have}, package.json wants ${want}: run \`npm ci\``);
  mkdirSync(join(dir, 'humaneval'), { recursive: true });
  for (const f of HUMANEVAL_FILES) copyFileSync(join(ROOT, 'web', 'humaneval', f), join(dir, 'humaneval', f));
  mkdirSync(join(dir, 'pyodide'), { recursive: true });
  let bytes = 0;
  for (const f of PYODIDE_FILES) {
    copyFileSync(join(pyodide, f), join(dir, 'pyodide', f));
    bytes += statSync(join(dir, 'pyodide', f)).size;
  }
  return bytes;
}

/** web/srdd's worker files → <dir>/srdd/ (it needs copyHumanEval's too). */
export function copySrdd(dir) {
  mkdirSync(join(dir, 'srdd'), { recursive: true });
  for (const f of SRDD_FILES) copyFileSync(join(ROOT, 'web', 'srdd', f), join(dir, 'srdd', f));
}

// Run as a script (Trunk's hook); imported, it only exports (the tests use copyHumanEval).
const isMain = process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (isMain) {
  const dir = process.argv[2] || process.env.TRUNK_STAGING_DIR;
  if (!dir) throw new Error('post-build needs a directory (or run it as a Trunk hook)');
  inject(dir);
  mergeCss(dir);
  copyHumanEval(dir);
  copySrdd(dir);
}
