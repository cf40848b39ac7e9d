// The page's project runner, a module Web Worker:
//
//   new Worker('/srdd/worker.mjs', { type: 'module' })
//
// It loads Pyodide from ../pyodide/ (the build copies it there for the
// HumanEval checker too) and the two Python files beside it, then serves
// project.mjs's messages (see serveProjects there) after locking the
// interpreter in as the HumanEval worker does (check.mjs's lockDown: no
// network, storage, postMessage to the page, or code generation). First
// message out: {type: "ready", ms, python, pyodide} (the versions); a worker that cannot start posts
// {type: "fatal", id: null, message}.
//
// The host (platform/project.rs) stops a run after RUN_MS by terminating
// this worker; a new one serves the next.
import { loadPyodide } from '../pyodide/pyodide.mjs';
import { fatalMessage, lockDown } from '../humaneval/check.mjs';
import { serveProjects } from './project.mjs';

const post = self.postMessage.bind(self); // before lockDown takes it off the global scope
const waiting = [];
let serve = null;

self.onmessage = (event) => {
  if (serve) serve(event.data);
  else waiting.push(event.data);
};

try {
  const text = async (name) => {
    const r = await fetch(new URL(name, import.meta.url));
    if (!r.ok) throw new Error(`${name}: HTTP ${r.status}`);
    return r.text();
  };
  const [standins, metrics] = await Promise.all([text('./gui_standins.py'), text('./metrics.py')]);
  const pyodide = await loadPyodide({ indexURL: new URL('../pyodide/', import.meta.url).href });
  serve = serveProjects({ pyodide, standins, metrics, post, lockDown, fatalMessage });
  const python = pyodide.runPython('import sys; sys.version.split()[0]');
  post({ type: 'ready', ms: Math.round(performance.now()), python, pyodide: pyodide.version });
  while (waiting.length) serve(waiting.shift());
} catch (e) {
  post({ type: 'fatal', id: null, message: `could not start Python: ${e?.message ?? e}` });
}
