// Running a generated project's main.py, and measuring its code, in Pyodide
// (CPython compiled to wasm): the same code serves the page's worker
// (worker.mjs, a module Web Worker) and the CLI's fallback when python3 is
// absent (node-run.mjs, a Node worker thread), so the two cannot disagree.
//
// A run does what `python3 main.py` does in the project's folder, as
// ChatDev's eval_quality.py starts it (the CLI's CPython path runs exactly
// that): the files are written to a fresh folder, main.py runs there as
// __main__ with argv ["main.py"], the folder first on sys.path, stdin empty
// (EOF, as /dev/null), GUI toolkits served by web/srdd/gui_standins.py (the
// CLI's sitecustomize; here installed once per interpreter, and each toolkit
// served reported as {kind: "gui"}). What Python prints for an ending
// program is what CPython prints:
// - an exception: "Traceback (most recent call last):" and the frames of
//   the project's code (not the runner's);
// - a syntax error in main.py: the bare SyntaxError lines, no "Traceback"
//   header (CPython's own quirk, which the metric reads as executable);
// - no main.py in the folder: python3's "can't open file" line;
// - sys.exit("text"): the text on stderr.
// stdout is strict UTF-8 (a lone surrogate raises, as in CPython); stderr
// writes lone surrogates as \udcxx (backslashreplace, as CPython's stderr).
// Bytes written to the file descriptors (os.write(2, …)) are read as UTF-8;
// bytes that are not say so ({kind: "not-utf8"}), as the official script
// fails to decode them.
//
// The time limit is the host's: a wasm interpreter cannot interrupt itself.
// The host stops the run after RUN_MS by terminating the worker; what was
// written until then has already been posted ({kind: "stdout"|"stderr"}, each
// write as it happens; {kind: "traceback"} once stderr has said it).
//
// Each stream is a pipe of PIPE_BYTES, as the official script's are: it
// reads neither until the 3 s are over, so a program that writes more is
// blocked there until it is stopped. Here a write past PIPE_BYTES writes what
// fits, posts {kind: "blocked", text: stream}, and waits for the host to stop
// it. Unlike CPython, output is not buffered: what a stopped program printed
// is shown (CPython's block-buffered stdout loses it; the metric reads
// neither stdout nor a partial stderr line).
//
// Between runs the interpreter is reset: the modules the project imported
// are unloaded, sys.path, sys.argv, __main__, the streams and the working
// directory restored, the project's folder removed. Not reset: changes it
// made to os.environ, to modules loaded before it, or files it wrote outside
// its folder (e.g. /tmp). A run that ends the interpreter (a JavaScript stack
// overflow) is reported by the host, which replaces the worker.

import { ABSENT_MODULES_PY } from '../humaneval/check.mjs';

/** How long main.py runs before the host stops it (eval_quality.py's 3 s). */
export const RUN_MS = 3000;
/** A pipe's size (bytes): Linux's default, which the official script's pipes have. */
export const PIPE_BYTES = 65536;

export const PROJECT_PY = String.raw`
def make_runner(standins_src, metrics_src, emit, pipe_bytes):
    import builtins, codecs, io, os, shutil, sys, tempfile, time, traceback, types, warnings
    _sleep = time.sleep

    standins = types.ModuleType("sitecustomize")
    standins.__file__ = "sitecustomize.py"
    exec(compile(standins_src, "sitecustomize.py", "exec"), standins.__dict__)
    standins._mark = lambda toolkit: emit("gui", toolkit)
    sys.modules["sitecustomize"] = standins
    metrics = {"__name__": "metrics"}
    exec(compile(metrics_src, "metrics.py", "exec"), metrics)
    measure_files = metrics["measure"]

    _ModuleNotFoundError = ModuleNotFoundError
${ABSENT_MODULES_PY}
    home = os.getcwd()
    path0, argv0, main0 = list(sys.path), list(sys.argv), sys.modules.get("__main__")
    streams0 = (sys.stdout, sys.stderr, sys.stdin)
    hooks0, limit0 = (sys.excepthook, sys.displayhook), sys.getrecursionlimit()

    class Stream(io.TextIOBase):
        def __init__(self, kind):
            self.kind, self.kept, self.tail, self.traceback = kind, 0, "", False
            self.utf8, self.check = True, codecs.getincrementaldecoder("utf-8")()

        @property
        def encoding(self):
            return "utf-8"

        @property
        def errors(self):
            return "backslashreplace" if self.kind == "stderr" else "strict"

        def writable(self):
            return True

        def isatty(self):
            return False

        def fileno(self):
            return 1 if self.kind == "stdout" else 2

        def reconfigure(self, *, encoding=None, errors=None, newline=None,
                        line_buffering=None, write_through=None):
            pass  # the bytes go to the pipe as they are written either way

        @property
        def buffer(self):
            return Bytes(self)

        def write(self, s):
            if not isinstance(s, str):
                raise TypeError(f"write() argument must be str, not {type(s).__name__}")
            return self.write_bytes(s.encode("utf-8", self.errors), len(s))

        def write_bytes(self, data, count=None):
            if self.kind == "stderr" and self.utf8:
                try:
                    self.check.decode(data)  # a character may end in the next write
                except UnicodeDecodeError:
                    self.utf8 = False
                    emit("not-utf8", "")
            room = pipe_bytes - self.kept
            blocked = len(data) > room
            s = data[:room].decode("utf-8", "replace")
            self.kept += min(len(data), room)
            if self.kind == "stderr" and not self.traceback:
                seen = self.tail + s.lower()
                if "traceback" in seen:
                    self.traceback = True
                    emit("traceback", "")
                self.tail = seen[-8:]
            if s:
                emit(self.kind, s)
            if blocked:
                emit("blocked", self.kind)
                while True:  # the pipe is full: blocked until the host stops the run
                    _sleep(1)
            return len(data) if count is None else count

    class Bytes(io.BufferedIOBase):
        """sys.stdout.buffer: the stream's bytes, to the same pipe."""

        def __init__(self, text):
            self.text = text

        def writable(self):
            return True

        def fileno(self):
            return self.text.fileno()

        def write(self, b):
            return self.text.write_bytes(bytes(b))

    def reset():
        sys.stdout, sys.stderr, sys.stdin = streams0
        sys.excepthook, sys.displayhook = hooks0
        sys.setrecursionlimit(limit0)
        sys.path, sys.argv = list(path0), list(argv0)
        if main0 is not None:
            sys.modules["__main__"] = main0
        for name in [n for n in sys.modules if n not in modules0]:
            del sys.modules[name]
        os.chdir(home)
        os.environ.pop("ROUNDTABLE_GUI_MARK", None)

    def run(files, folder):
        scratch = tempfile.mkdtemp(prefix="project-")
        project = os.path.join(scratch, "project")
        err = Stream("stderr")
        try:
            for path, text in files:
                dest = os.path.join(project, path)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "w", encoding="utf-8", newline="") as f:
                    f.write(text)
            here = os.path.join(project, folder) if folder else project
            os.makedirs(here, exist_ok=True)
            stdin = io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8")
            sys.stdout, sys.stderr, sys.stdin = Stream("stdout"), err, stdin
            os.chdir(here)
            sys.path = [here] + list(path0)
            sys.argv = ["main.py"]
            script = os.path.join(here, "main.py")
            try:
                with open(script, "rb") as f:
                    source = f.read()
            except OSError as e:
                # CPython's line (its errno: wasm numbers them otherwise)
                no = 2 if isinstance(e, FileNotFoundError) else e.errno
                err.write(f"python3: can't open file {script!r}: [Errno {no}] {e.strerror}\n")
                return
            main = types.ModuleType("__main__")
            main.__file__ = script
            main.__builtins__ = builtins
            sys.modules["__main__"] = main
            try:
                code = compile(source, script, "exec")
            except (SyntaxError, ValueError) as e:
                traceback.print_exception(type(e), e, None, file=err)
                return
            try:
                # Its warning filters are its own (the next project's start as these).
                with warnings.catch_warnings():
                    exec(code, main.__dict__)
            except SystemExit as e:
                if e.code is not None and not isinstance(e.code, int):
                    err.write(f"{e.code}\n")
            except BaseException as e:
                traceback.print_exception(type(e), e, e.__traceback__.tb_next, file=err)
        finally:
            reset()
            shutil.rmtree(scratch, ignore_errors=True)

    def measure(files):
        # ast's SyntaxWarnings (an invalid escape …) are not the run's output.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return measure_files([{"path": p, "text": t} for p, t in files])

    def block_modules(names):
        blocked.update(names)
        for n in [n for n in sys.modules if n in blocked or n.partition(".")[0] in blocked]:
            del sys.modules[n]

    modules0 = set(sys.modules)
    return run, measure, block_modules
`;

/** Reads a message's files as [[path, text], …], or throws saying why. */
export function readFiles(files) {
  if (!Array.isArray(files)) throw new TypeError('files must be a list');
  return files.map((f, i) => {
    if (typeof f?.path !== 'string' || typeof f?.text !== 'string') throw new TypeError(`file ${i} needs a path and a text`);
    return [f.path, f.text];
  });
}

/**
 * A runner on a loaded Pyodide. `emit(kind, text)` is called as the program
 * writes (kind "stdout", "stderr", "traceback", "gui" or "not-utf8").
 * `run(files, folder)` runs main.py (synchronously: the host's timer stops
 * it); `measure(files)` gives Table 3's figures (web/srdd/metrics.py).
 */
export function makeProjectRunner(pyodide, { standins, metrics, emit }) {
  // A run's own pipe: every run and measure starts with an empty one (a
  // count, a tail or a half character left by the last must not carry on).
  const fd = (kind) => {
    let decoder, kept, tail;
    const fresh = () => {
      decoder = new TextDecoder('utf-8', { fatal: true });
      kept = 0;
      tail = '';
    };
    fresh();
    return {
      fresh,
      write(buffer) {
        let text;
        try {
          text = decoder.decode(buffer, { stream: true });
        } catch {
          emit('not-utf8', '');
          return buffer.length;
        }
        if (kind === 'stderr') {
          const seen = tail + text.toLowerCase();
          if (seen.includes('traceback')) emit('traceback', '');
          tail = seen.slice(-8);
        }
        const room = PIPE_BYTES - kept;
        if (buffer.length > room) {
          const fits = new TextDecoder('utf-8').decode(buffer.subarray(0, room));
          if (fits) emit(kind, fits);
          emit('blocked', kind);
          for (;;); // the pipe is full: blocked until the host stops the run
        }
        kept += buffer.length;
        if (text) emit(kind, text);
        return buffer.length;
      },
    };
  };
  const pipes = [fd('stdout'), fd('stderr')];
  const freshPipes = () => pipes.forEach((p) => p.fresh());
  pyodide.setStdout({ write: (b) => pipes[0].write(b) });
  pyodide.setStderr({ write: (b) => pipes[1].write(b) });
  pyodide.setStdin({ error: true });
  const namespace = pyodide.globals.get('dict')();
  pyodide.runPython(PROJECT_PY, { globals: namespace });
  const made = namespace.get('make_runner')(standins, metrics, emit, PIPE_BYTES);
  const [pyRun, pyMeasure, pyBlock] = [made.get(0), made.get(1), made.get(2)];
  made.destroy();
  namespace.destroy();
  const toPy = (files) => pyodide.toPy(readFiles(files));
  return {
    run(files, folder) {
      if (folder !== null && typeof folder !== 'string') throw new TypeError('folder must be a string or null');
      freshPipes();
      pyRun(toPy(files), folder ?? '');
    },
    measure(files) {
      freshPipes();
      const got = pyMeasure(toPy(files));
      const out = got.toJs({ dict_converter: Object.fromEntries });
      got.destroy();
      return out;
    },
    /** lockDown's hook: these modules (and their submodules) become absent. */
    blockModules(names) {
      pyBlock(pyodide.toPy(names));
    },
  };
}

/** A run's outcome before its first message (the fields of srdd::run::Ran). */
export const newRan = () => ({ stdout: '', stderr: '', traceback: false, utf8: true, stopped: false, gui: [], blocked: null, died: null });

/** A host's reading of one {type: "out"} message into `ran` (platform/project.rs reads them alike). */
export function foldOut(ran, m) {
  if (m.kind === 'stdout' || m.kind === 'stderr') ran[m.kind] += m.text;
  else if (m.kind === 'traceback') ran.traceback = true;
  else if (m.kind === 'not-utf8') ran.utf8 = false;
  else if (m.kind === 'gui' && !ran.gui.includes(m.text)) ran.gui.push(m.text);
  else if (m.kind === 'blocked') ran.blocked = m.text;
}

/**
 * A worker's side, for either host: loads nothing itself (the host gives
 * it the loaded Pyodide and the two Python files), locks the interpreter
 * in (check.mjs's lockDown), then answers messages:
 *   in:  {id, op: "run", files: [{path, text}], folder: string|null}
 *        {id, op: "measure", files}
 *   out: {type: "out", id, kind, text}      as the program writes
 *        {type: "ran", id, ms}               main.py ended (not when stopped)
 *        {type: "measured", id, scale}       Table 3's figures
 *        {type: "refused", id, message}      a message that is not one of these
 *        {type: "fatal", id, message}        the interpreter died: replace the worker
 * `post` must be bound before the lock-down (it takes postMessage away).
 */
export function serveProjects({ pyodide, standins, metrics, post, lockDown, fatalMessage, global = globalThis }) {
  let current = null;
  const runner = makeProjectRunner(pyodide, {
    standins,
    metrics,
    emit: (kind, text) => post({ type: 'out', id: current, kind: String(kind), text: String(text) }),
  });
  const left = lockDown(pyodide, runner, global);
  if (left.length) throw new Error(`could not lock the interpreter in: ${left.join(', ')} still reachable`);
  let dead = false;
  return (data) => {
    if (dead) return;
    const id = data?.id ?? null;
    current = id;
    try {
      if (data?.op === 'run') {
        const started = performance.now();
        runner.run(data.files, data.folder ?? null);
        post({ type: 'ran', id, ms: Math.round(performance.now() - started) });
      } else if (data?.op === 'measure') {
        post({ type: 'measured', id, scale: runner.measure(data.files) });
      } else {
        post({ type: 'refused', id, message: 'the message has no op ("run" or "measure")' });
      }
    } catch (e) {
      // A message that is wrong, or a Python error outside the program (a
      // file that cannot be written): the interpreter is fine.
      if (e instanceof TypeError || e?.constructor?.name === 'PythonError') {
        post({ type: 'refused', id, message: e.message });
      } else {
        dead = true;
        post({ type: 'fatal', id, message: fatalMessage(e) });
      }
    }
    current = null;
  };
}
