#!/usr/bin/env python3
"""The official HumanEval verdicts, from native CPython: a re-implementation
of check_correctness in openai/human-eval's human_eval/execution.py, with its
semantics (one fresh process per program; stdout, stderr and stdin swallowed;
a 3 s SIGALRM time limit and a hard kill one second later; a fresh temporary
working directory; the same "reliability guard"; "passed", "timed out" or
f"failed: {e}" for any BaseException e, "timed out" also when the process
ended without a result). It is the yardstick for the Pyodide checker in
web/humaneval/check.mjs (the e2e test compares the two on
e2e/fixtures/humaneval-broken.jsonl). It runs untrusted code as the official
harness does, i.e. unsandboxed: feed it only programs you have read.

    python3 scripts/humaneval-reference.py [--problems HumanEval.jsonl] [--timeout 3.0] < in.jsonl > out.jsonl

Each input line is {"program": "..."} or, with --problems,
{"task_id": "HumanEval/N", "completion": "..."}; each output line is
{"passed": bool, "result": "..."} (or {"error": "..."} for a bad line), in
order, as node-score.mjs writes them.
"""

import argparse
import contextlib
import faulthandler
import io
import json
import multiprocessing
import os
import platform
import signal
import sys
import tempfile


class TimeoutException(Exception):
    pass


class WriteOnlyStringIO(io.StringIO):
    """A StringIO that cannot be read from."""

    def read(self, *args, **kwargs):
        raise OSError

    def readline(self, *args, **kwargs):
        raise OSError

    def readlines(self, *args, **kwargs):
        raise OSError

    def readable(self, *args, **kwargs):
        return False


class redirect_stdin(contextlib._RedirectStream):  # noqa: N801 (as contextlib names them)
    _stream = "stdin"


@contextlib.contextmanager
def swallow_io():
    stream = WriteOnlyStringIO()
    with contextlib.redirect_stdout(stream), contextlib.redirect_stderr(stream), redirect_stdin(stream):
        yield


@contextlib.contextmanager
def time_limit(seconds):
    def on_alarm(signum, frame):
        raise TimeoutException("Timed out!")

    signal.setitimer(signal.ITIMER_REAL, seconds)
    signal.signal(signal.SIGALRM, on_alarm)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


@contextlib.contextmanager
def in_directory(root):
    cwd = os.getcwd()
    os.chdir(root)
    try:
        yield
    finally:
        os.chdir(cwd)


@contextlib.contextmanager
def create_tempdir():
    with tempfile.TemporaryDirectory() as name, in_directory(name):
        yield name


def reliability_guard():
    """What execution.py disables before it runs a program (no memory limit:
    check_correctness calls it without one)."""
    faulthandler.disable()

    import builtins

    builtins.exit = None
    builtins.quit = None

    os.environ["OMP_NUM_THREADS"] = "1"
    for name in (
        "kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork",
        "forkpty", "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod",
        "fchown", "chmod", "chown", "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir",
    ):
        setattr(os, name, None)

    import shutil

    shutil.rmtree = None
    shutil.move = None
    shutil.chown = None

    import subprocess

    subprocess.Popen = None

    builtins.help = None

    for name in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
        sys.modules[name] = None


def unsafe_execute(program, timeout, result):
    with create_tempdir():
        import shutil

        rmtree, rmdir, chdir = shutil.rmtree, os.rmdir, os.chdir
        reliability_guard()
        try:
            exec_globals = {}
            with swallow_io():
                with time_limit(timeout):
                    exec(program, exec_globals)
            result.append("passed")
        except TimeoutException:
            result.append("timed out")
        except BaseException as e:
            result.append(f"failed: {e}")
        shutil.rmtree, os.rmdir, os.chdir = rmtree, rmdir, chdir


def check_program(program, timeout, manager):
    result = manager.list()
    p = multiprocessing.Process(target=unsafe_execute, args=(program, timeout, result))
    p.start()
    p.join(timeout=timeout + 1)
    if p.is_alive():
        p.kill()
    if not result:
        result.append("timed out")
    return {"passed": result[0] == "passed", "result": result[0]}


def program_for(problem, completion):
    return problem["prompt"] + completion + "\n" + problem["test"] + "\n" + f"check({problem['entry_point']})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", help="HumanEval.jsonl, for lines with task_id and completion")
    parser.add_argument("--timeout", type=float, default=3.0)
    args = parser.parse_args()
    problems = {}
    if args.problems:
        with open(args.problems, encoding="utf-8") as f:
            problems = {p["task_id"]: p for p in map(json.loads, filter(str.strip, f))}
    if platform.system() != "Linux":
        print("humaneval-reference: only checked on Linux (fork, SIGALRM)", file=sys.stderr)
    with multiprocessing.Manager() as manager:
        for line in sys.stdin:
            line = line.rstrip("\n")
            try:
                item = json.loads(line)
                if not isinstance(item, dict):
                    raise ValueError("not a JSON object")
                if isinstance(item.get("program"), str):
                    program = item["program"]
                elif isinstance(item.get("completion"), str) and item.get("task_id") in problems:
                    program = program_for(problems[item["task_id"]], item["completion"])
                else:
                    raise ValueError('no "program", or no known "task_id" with a "completion"')
            except ValueError as e:
                out = {"error": str(e)}
            else:
                out = check_program(program, args.timeout, manager)
            print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
