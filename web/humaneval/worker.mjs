// The HumanEval checker as a browser module worker:
//
//   const worker = new Worker(new URL('humaneval/worker.mjs', base), { type: 'module' });
//
// It loads Pyodide from ../pyodide/ (next to this folder: the build copies
// node_modules/pyodide there), makes the checker of check.mjs, and locks the
// interpreter in before it runs any program (lockDown: no network, storage,
// postMessage to the page, eval or Function constructors for Python code).
//
// Messages out:
//   {type: "ready", ms}                       once, when programs can be sent
//                                             (ms: since the worker started)
//   {type: "verdict", id, passed, result}     for each {id, program} received
//   {type: "fatal", id, message}              the interpreter died (e.g. a
//                                             JavaScript stack overflow from
//                                             deep recursion through C), or
//                                             could not be loaded or locked
//                                             down (id null then): the page
//                                             reports the program as failed,
//                                             passed false, result "failed: "
//                                             + message (fatalResult), and
//                                             replaces the worker; this one
//                                             answers nothing more. A worker
//                                             "error" event means the same.
// Messages in:
//   {id, program}                             id: any structured-clonable
//                                             value, echoed back
//
// The time limit is the page's: a worker cannot interrupt the Python it runs.
// Contract: send one program at a time; if its verdict has not come within
// TIME_LIMIT_MS (3 s) of sending it (after "ready"), terminate() the worker,
// report "timed out" (passed false), and start a new one. Programs sent
// before "ready" wait for it in order. Loading takes 2.5–4 s (13.5 MB, or
// 6.3 MB gzipped, from ../pyodide/; the browser caches it for the next one).
import { loadPyodide } from '../pyodide/pyodide.mjs';
import { fatalMessage, lockDown, makeChecker } from './check.mjs';

const post = self.postMessage.bind(self); // before lockDown takes it off the global scope
const waiting = [];
let checker = null;
let dead = false;
let busy = false;
let current = null;

function die(id, error) {
  if (dead) return;
  dead = true;
  post({ type: 'fatal', id: id ?? null, message: typeof error === 'string' ? error : fatalMessage(error) });
}

async function drain() {
  if (busy || !checker) return;
  busy = true;
  while (waiting.length && !dead) {
    const { id, program } = waiting.shift();
    current = id;
    if (typeof program !== 'string') {
      die(id, 'the message has no program (a string)');
      break;
    }
    try {
      const { passed, result } = await checker.check(program);
      post({ type: 'verdict', id, passed, result });
    } catch (e) {
      die(id, e);
    }
    current = null;
  }
  busy = false;
}

self.onmessage = (event) => {
  const data = event.data;
  if (dead) return;
  waiting.push({ id: data?.id, program: data?.program });
  drain();
};
self.addEventListener('error', (event) => die(current, event.error ?? event.message));
self.addEventListener('unhandledrejection', (event) => die(current, event.reason));

try {
  const indexURL = new URL('../pyodide/', import.meta.url).href;
  const pyodide = await loadPyodide({ indexURL });
  const made = await makeChecker(pyodide);
  const left = lockDown(pyodide, made);
  if (left.length) throw new Error(`could not lock the interpreter in: ${left.join(', ')} still reachable`);
  checker = made;
  post({ type: 'ready', ms: Math.round(performance.now()) });
  drain();
} catch (e) {
  die(null, `could not start the checker: ${e?.message ?? e}`);
}
