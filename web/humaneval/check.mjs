// The HumanEval execution check, for Pyodide (CPython compiled to wasm): the
// same Python code decides every verdict, whether it runs in the browser
// (worker.mjs, a module Web Worker) or in Node (node-score.mjs, the CLI's
// runner), so the two cannot disagree.
//
// Semantics are those of openai/human-eval's execution.py (check_correctness):
//   program = prompt + completion + "\n" + test + "\n" + f"check({entry_point})"
// is exec'd in a fresh globals dict with stdout, stderr and stdin swallowed,
// under its "reliability guard" (exit/quit/help and the destructive os,
// shutil and subprocess functions set to None), in a fresh temporary working
// directory; the result is "passed", "timed out", or f"failed: {e}" for any
// BaseException e (SystemExit and KeyboardInterrupt included), and
// passed = result == "passed". The 3 s limit is not enforced here: a Python
// interpreter in wasm cannot interrupt itself, so the host (the page, or
// node-score.mjs) gives each program TIME_LIMIT_MS and then kills the worker
// holding the interpreter and answers "timed out".
//
// Where this differs from a fresh CPython process per program:
// - os._exit() and os.abort() raise an exception that the checker reports
//   as "timed out" (what the official check reports for a process that ended
//   without a result); a program that catches it (bare except) goes on.
// - Output is discarded, not collected in a StringIO (100 MB of prints cost no
//   memory); writing bytes, reading stdin etc. fail as they do there.
// - The modules that bridge to JavaScript (js, pyodide_js, pyodide, _pyodide,
//   _pyodide_core, micropip) are absent: importing them fails with
//   "No module named …", as in CPython.
// - The interpreter is reused, with fresh globals each time. Restored after
//   every program: sys.stdout/stderr/stdin (and the __std*__ ones), the
//   recursion limit, the int-to-str digit limit, the trace/profile hooks,
//   sys.path, sys.meta_path, sys.path_hooks, sys's except/display/unraisable/
//   breakpoint hooks, the builtins namespace (so exit/quit/help, print, len, …
//   come back), the guarded os/shutil/subprocess functions, the warnings
//   filters, the current decimal context, gc being enabled, the working
//   directory (each program gets a fresh empty one, removed afterwards) and
//   the guard's and the blocked modules' sys.modules entries.
//   NOT isolated: modules a program imported stay imported, and changes it
//   made to a module's attributes (math.pi = 3, random.seed(…)), to classes
//   of the standard library, to os.environ, to files outside its working
//   directory (e.g. /tmp), the locale, signal handlers, sys.monitoring
//   tools, atexit hooks and objects it leaked into other modules stay for the
//   programs after it. A program that breaks the interpreter itself is
//   reported by the host as failed and the worker is replaced.
// - Very deep recursion: CPython in wasm runs on the JavaScript engine's
//   stack. Pure Python recursion is fine up to any recursion limit (and the
//   checker unlinks a deep traceback iteratively, since freeing it
//   recursively would overflow that stack), but recursion through C
//   (__repr__ calling repr, sort keys, deeply nested containers) can exhaust
//   the engine's stack before CPython's own guard raises RecursionError. That
//   kills the interpreter: the host reports "failed: " + FATAL_STACK_OVERFLOW
//   where CPython would say "failed: maximum recursion depth exceeded …".
//   Either way the program fails. How deep C recursion gets depends on the
//   host's stack (a Chromium worker: ≈300–440 levels of repr/sort-key/
//   lru_cache recursion; node-score.mjs sets its worker's stack to match).
// - It is Pyodide's CPython (3.14), so messages are 3.14's: e.g. 1.0 / 0 is
//   "failed: division by zero" where 3.11 says "float division by zero".
// - No network: sockets fail ([Errno 23] Host is unreachable, wasm's errno)
//   before any connection is made. No threads or subprocesses (Pyodide has
//   none; the guard removes Popen anyway). asyncio.run needs Pyodide's
//   JavaScript bridge, which is absent, and fails.
// - Memory a program grew the wasm heap to stays with the interpreter until
//   the host replaces it (the heap is at most 4 GB).
// The fixture e2e/fixtures/humaneval-broken.jsonl lists, for programs whose
// verdict text differs from native CPython's, both texts (pass/fail agree).

/** The official time limit, in milliseconds (check_correctness's timeout=3.0). */
export const TIME_LIMIT_MS = 3000;

/** The program check_correctness executes for a problem and a completion. */
export function programFor(problem, completion) {
  return `${problem.prompt}${completion}\n${problem.test}\n` + `check(${problem.entry_point})`;
}

/** The message of a fatal error, as the result string a host reports for it. */
export function fatalResult(message) {
  return `failed: ${message}`;
}

/** What a JavaScript stack overflow (RangeError) that killed the interpreter is reported as. */
export const FATAL_STACK_OVERFLOW = 'interpreter stack overflow (RangeError: Maximum call stack size exceeded)';

/** A short, stable message for an error that killed the interpreter. */
export function fatalMessage(error) {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error?.message ?? error);
  if (/Maximum call stack size exceeded|too much recursion/i.test(text)) return FATAL_STACK_OVERFLOW;
  return `interpreter died (${text.split('\n')[0].slice(0, 200)})`;
}

// Python for a runner's make_*() (indented as its body): the set "blocked",
// and a finder that makes importing any of them fail as importing an absent
// module does. The runner binds _ModuleNotFoundError (a program may replace
// the builtin). web/srdd/project.mjs's runner has it too.
export const ABSENT_MODULES_PY = String.raw`
    blocked = set()

    class AbsentModules:
        @staticmethod
        def find_spec(name, path=None, target=None):
            top = name.partition(".")[0]
            if top in blocked or name in blocked:
                raise _ModuleNotFoundError(f"No module named {top!r}", name=top)
            return None

    sys.meta_path.insert(0, AbsentModules)
`;

// The Python side. make_checker() is run once per interpreter; it returns
// check(program) -> result string. Everything check() needs is bound when it
// is made, so a program that replaces sys.setrecursionlimit, os.chdir,
// builtins.exec … cannot break the programs after it.
export const CHECK_PY = String.raw`
def make_checker():
    import builtins, decimal, faulthandler, gc, io, os, shutil, sys, tempfile, warnings
    try:
        import subprocess
    except ImportError:
        subprocess = None

    # The reliability guard of human-eval's execution.py: what it disables.
    guarded = [
        (builtins, ("exit", "quit", "help")),
        (os, ("kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid",
              "fork", "forkpty", "killpg", "rename", "renames", "truncate", "replace", "unlink",
              "fchmod", "fchown", "chmod", "chown", "chroot", "lchflags", "lchmod", "lchown",
              "getcwd", "chdir")),
        (shutil, ("rmtree", "move", "chown")),
    ]
    if subprocess is not None:
        guarded.append((subprocess, ("Popen",)))
    guard_modules = ("ipdb", "joblib", "resource", "psutil", "tkinter")

    # os._exit and os.abort end the official check's process before it has
    # a result, which it reports as "timed out". Here they would end the
    # whole interpreter: they raise Exited instead, which check() reports
    # the same way.
    class Exited(BaseException):
        pass

    def _exit(*args, **kwargs):
        raise Exited

    import posix
    replaced = [(m, n, None) for m, names in guarded for n in names]
    replaced += [(m, n, _exit) for m in (os, posix) for n in ("_exit", "abort")]
    originals = [(m, n, getattr(m, n, None), hasattr(m, n)) for m, n, _ in replaced]
    # Set once for good, as the guard does in its (single-use) process.
    faulthandler.disable()
    os.environ["OMP_NUM_THREADS"] = "1"
    tempfile.gettempdir()  # decided now: it may call os.getcwd, which the guard removes

    # Modules block_modules() takes away (the bridges to JavaScript): gone from
    # sys.modules before every program, and importing them, or anything in
    # them, fails the way importing an absent module does.
${ABSENT_MODULES_PY}
    # Builtins the checker itself uses, bound now: a program may replace them.
    _exec, _setattr, _delattr, _getattr, _isinstance = exec, setattr, delattr, getattr, isinstance
    _len, _type, _id, _set, _str, _tuple, _list = len, type, id, set, str, tuple, list
    _BaseException, _AttributeError, _ModuleNotFoundError = BaseException, AttributeError, ModuleNotFoundError
    _chdir, _rmtree, _mkdtemp, _getcwd = os.chdir, shutil.rmtree, tempfile.mkdtemp, os.getcwd
    _catch_warnings, _OSError, _TypeError, _ValueError = warnings.catch_warnings, OSError, TypeError, ValueError
    _setrecursionlimit, _set_digits = sys.setrecursionlimit, sys.set_int_max_str_digits
    _settrace, _setprofile, _gc_enable, _TextIOBase = sys.settrace, sys.setprofile, gc.enable, io.TextIOBase
    modules = sys.modules
    builtins_dict = builtins.__dict__
    builtins_saved = dict(builtins_dict)
    limit, digits = sys.getrecursionlimit(), sys.get_int_max_str_digits()
    streams = {n: getattr(sys, n) for n in ("stdout", "stderr", "stdin", "__stdout__", "__stderr__", "__stdin__")}
    hooks = {n: getattr(sys, n) for n in ("excepthook", "displayhook", "unraisablehook", "breakpointhook")}
    path, meta_path, path_hooks = list(sys.path), list(sys.meta_path), list(sys.path_hooks)
    home = os.getcwd()
    Context, setcontext, half_even = decimal.Context, decimal.setcontext, decimal.ROUND_HALF_EVEN
    decimal_traps = [decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow]

    def sink():
        # human-eval's WriteOnlyStringIO, except that what is written is dropped.
        # A new class each time: a program that patches it patches only its own.
        class WriteOnlyDiscard(_TextIOBase):
            def write(self, s):
                if not _isinstance(s, _str):
                    raise _TypeError(f"string argument expected, got '{_type(s).__name__}'")
                if self.closed:
                    raise _ValueError("I/O operation on closed file.")
                return _len(s)

            def writable(self):
                return True

            def read(self, *args, **kwargs):
                raise _OSError

            def readline(self, *args, **kwargs):
                raise _OSError

            def readlines(self, *args, **kwargs):
                raise _OSError

            def readable(self, *args, **kwargs):
                return False

        return WriteOnlyDiscard()

    def guard():
        for m, n, value in replaced:
            _setattr(m, n, value)
        for n in guard_modules:
            modules[n] = None
        if blocked:
            for n in [n for n in modules if n in blocked or n.partition(".")[0] in blocked]:
                del modules[n]

    def unguard():
        for m, n, value, present in originals:
            if present:
                _setattr(m, n, value)
            else:
                try:
                    _delattr(m, n)
                except _AttributeError:
                    pass

    def restore():
        sys.stdout, sys.stderr, sys.stdin = streams["stdout"], streams["stderr"], streams["stdin"]
        sys.__stdout__, sys.__stderr__, sys.__stdin__ = streams["__stdout__"], streams["__stderr__"], streams["__stdin__"]
        for n, hook in hooks.items():
            _setattr(sys, n, hook)
        _settrace(None)
        _setprofile(None)
        _setrecursionlimit(limit)
        _set_digits(digits)
        sys.path, sys.meta_path, sys.path_hooks = _list(path), _list(meta_path), _list(path_hooks)
        for k in [k for k in builtins_dict if k not in builtins_saved]:
            del builtins_dict[k]
        builtins_dict.update(builtins_saved)
        unguard()
        setcontext(Context(prec=28, rounding=half_even, Emin=-999999, Emax=999999,
                           capitals=1, clamp=0, flags=[], traps=decimal_traps))
        _gc_enable()

    def unlink(error):
        # Frees what an exception holds one object at a time: freeing a
        # traceback of 10**6 frames the usual (recursive) way overflows the
        # JavaScript stack that CPython-in-wasm runs on.
        tbs, errors, todo, seen = [], [], [error], _set()
        while todo:
            e = todo.pop()
            if e is None or _id(e) in seen:
                continue
            seen.add(_id(e))
            errors.append(e)
            tb = e.__traceback__
            while tb is not None:
                tbs.append(tb)
                tb = tb.tb_next
            todo.append(e.__context__)
            todo.append(e.__cause__)
            group = _getattr(e, "exceptions", None)
            if _isinstance(group, _tuple):
                todo.extend(group)
        for e in errors:
            try:
                e.__traceback__ = None
                e.__context__ = None
                e.__cause__ = None
            except _BaseException:
                pass
        frames = [tb.tb_frame for tb in tbs]
        for tb in tbs:
            tb.tb_next = None
        tb = e = error = None  # no reference to any of them may outlive the lists
        del tbs[:], errors[:]
        while frames:
            frames.pop()  # innermost first: each frame's f_back is still held here

    def check(program):
        unguard()  # for the working directory's set-up
        work = _mkdtemp()
        _chdir(work)
        out = sink()
        result = None
        try:
            with _catch_warnings():
                guard()
                sys.stdout = sys.stderr = sys.stdin = out
                try:
                    _exec(program, {})
                    result = "passed"
                except Exited:
                    result = "timed out"
                except _BaseException as e:
                    try:
                        result = f"failed: {e}"
                    except _BaseException:
                        # str(e) raised: the official child process dies there
                        # without a result, which it reports as "timed out".
                        result = "timed out"
                    unlink(e)
                    del e
        finally:
            restore()
            try:
                _chdir(home)
                _rmtree(work, ignore_errors=True)
            except _BaseException:
                pass
        return result

    def block_modules(names):
        blocked.update(names)

    return check, block_modules
`;

/**
 * A checker on a loaded Pyodide: `await check(program)` runs one program and
 * returns {passed, result}. Output written below Python's sys.stdout (to the
 * file descriptors, e.g. os.write(1, …)) is discarded as well, and stdin is
 * an error. It throws only if the interpreter itself died (e.g. a JavaScript
 * stack overflow); the host must then replace it.
 */
export async function makeChecker(pyodide) {
  pyodide.setStdout({ write: (buffer) => buffer.length });
  pyodide.setStderr({ write: (buffer) => buffer.length });
  pyodide.setStdin({ error: true });
  const namespace = pyodide.globals.get('dict')();
  pyodide.runPython(CHECK_PY, { globals: namespace });
  const made = namespace.get('make_checker')();
  const [pyCheck, pyBlock] = [made.get(0), made.get(1)];
  made.destroy();
  namespace.destroy();
  return {
    async check(program) {
      if (typeof program !== 'string') throw new TypeError('program must be a string');
      const result = pyCheck(program);
      if (typeof result !== 'string') throw new Error(`checker returned ${typeof result}`);
      return { passed: result === 'passed', result };
    },
    /** Makes these modules (and their submodules) absent for every program from now on. */
    blockModules(names) {
      pyBlock(pyodide.toPy(names));
    },
  };
}

// ------------------------------------------------------------- lock-down ---

/**
 * Everything on the global scope that reaches the network, storage, other
 * contexts or code generation, on any JavaScript host Pyodide runs in here
 * (a browser worker, a Node worker thread). The page's own storage (cookies,
 * localStorage) is not reachable from a worker at all.
 */
export const FORBIDDEN_GLOBALS = [
  // network
  'fetch', 'XMLHttpRequest', 'WebSocket', 'WebSocketStream', 'WebSocketError', 'EventSource',
  'WebTransport', 'WebTransportError', 'RTCPeerConnection', 'webkitRTCPeerConnection',
  'RTCDataChannel', 'RTCIceCandidate', 'RTCSessionDescription', 'Request', 'Response',
  // storage
  'indexedDB', 'caches', 'cookieStore', 'localStorage', 'sessionStorage', 'openDatabase',
  'webkitRequestFileSystem', 'webkitRequestFileSystemSync', 'webkitResolveLocalFileSystemURL',
  'webkitResolveLocalFileSystemSyncURL', 'storageFoundation', 'IDBFactory', 'CacheStorage',
  'FileSystemHandle', 'FileSystemFileHandle', 'FileSystemDirectoryHandle', 'FileSystemSyncAccessHandle',
  'StorageManager', 'navigator',
  // loading code, other contexts, talking to the page
  'importScripts', 'Worker', 'SharedWorker', 'ServiceWorker', 'BroadcastChannel', 'postMessage',
  'FontFace', 'fonts', // a FontFace loads its url()
  // Node (Pyodide puts a require() for fs, crypto, ws and child_process on the global)
  'require', 'process', 'module', 'Deno', 'Bun',
];

/** The constructors that turn a string into code. */
function codeConstructors() {
  return [
    ['Function', Function],
    ['AsyncFunction', async function () {}.constructor],
    ['GeneratorFunction', function* () {}.constructor],
    ['AsyncGeneratorFunction', async function* () {}.constructor],
  ];
}

function removeEverywhere(global, name) {
  let removed = false;
  for (let o = global; o; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, name);
    if (!d) continue;
    if (!Reflect.deleteProperty(o, name)) {
      Object.defineProperty(o, name, { value: undefined, writable: false, enumerable: false, configurable: false });
    }
    removed = true;
  }
  return removed;
}

/** The forbidden names still reachable on `global` (empty when locked down). */
export function stillReachable(global = globalThis) {
  const left = FORBIDDEN_GLOBALS.filter((n) => {
    try {
      return global[n] !== undefined;
    } catch {
      return false;
    }
  });
  try {
    global.eval('1');
    left.push('eval');
  } catch {}
  for (const [name, C] of codeConstructors()) {
    try {
      C('return 1');
      left.push(name);
    } catch {}
    try {
      new C('return 1');
      left.push(`new ${name}`);
    } catch {}
  }
  for (const t of ['setTimeout', 'setInterval']) {
    try {
      const id = global[t]('0', 1e6);
      global.clearTimeout(id);
      global.clearInterval(id);
      left.push(`${t}(string)`);
    } catch {}
  }
  return left;
}

/**
 * Shuts the interpreter in, once it is loaded and the checker made, before
 * any program runs: afterwards Python code cannot reach the network, storage,
 * the page (postMessage) or the host (Node's require/process) — neither
 * through `import js` / `pyodide_js` / `pyodide.ffi` / `pyodide.http` (the
 * JavaScript modules are unregistered, and all of these made absent from
 * sys.modules and unimportable), nor through any
 * JavaScript it manages to reach by other means (ctypes → emscripten_run_script,
 * a JsProxy found with gc): the globals are gone from the scope and its
 * prototype chain, and eval, the Function constructors and string timers
 * throw, so no code can be made that uses import() either. Sockets
 * (emscripten's, which are WebSockets) fail.
 * Returns the names still reachable (none, unless this host is new to us:
 * the caller must then refuse to run programs).
 */
export function lockDown(pyodide, checker, global = globalThis) {
  // Python first, while Pyodide's own imports still work.
  for (const name of ['js', 'pyodide_js']) {
    try {
      pyodide.unregisterJsModule(name);
    } catch {}
  }
  checker.blockModules(['js', 'pyodide_js', 'pyodide', 'micropip', '_pyodide', '_pyodide_core']);
  // Emscripten's sockets connect through a WebSocket (in Node: the `ws` package).
  const sockets = pyodide._module?.SOCKFS?.websocket_sock_ops;
  if (sockets) {
    const ErrnoError = pyodide._module.FS?.ErrnoError;
    sockets.createPeer = () => {
      throw ErrnoError ? new ErrnoError(23 /* EHOSTUNREACH */) : new Error('no network');
    };
    sockets.listen = () => {
      throw ErrnoError ? new ErrnoError(138 /* EOPNOTSUPP */) : new Error('no network');
    };
  }
  for (const name of FORBIDDEN_GLOBALS) removeEverywhere(global, name);
  const refuse = (what) =>
    function () {
      throw new EvalError(`${what} is disabled here`);
    };
  removeEverywhere(global, 'eval');
  global.eval = refuse('eval');
  for (const [name, C] of codeConstructors()) {
    const blocked = new Proxy(C, { apply: refuse(name), construct: refuse(name) });
    Object.defineProperty(C.prototype, 'constructor', { value: blocked, writable: false, configurable: false });
    if (global[name] === C) Object.defineProperty(global, name, { value: blocked, writable: false, configurable: false });
  }
  for (const t of ['setTimeout', 'setInterval']) {
    const original = global[t];
    if (typeof original !== 'function') continue;
    const safe = function (handler, ...rest) {
      if (typeof handler !== 'function') throw new EvalError(`${t} with a string is disabled here`);
      return original.call(global, handler, ...rest);
    };
    removeEverywhere(global, t);
    Object.defineProperty(global, t, { value: safe, writable: false, configurable: false });
  }
  return stillReachable(global);
}
