//! `roundtable srdd-score`: SRDD's official metric (ChatDev's
//! `eval_quality.py`) and MAEL's Table 3 on small projects written here,
//! run in CPython as the official script runs them: a finished program, a
//! `pass` line, a `password` line, a traceback, a program still running
//! after 3 s, a GUI program (headless stand-ins: executable unless it
//! raises), one that raises inside its GUI class, a project with no `.py`
//! file, one whose code is not UTF-8, one with no requirement file, and
//! CPython's own quirks (a syntax error in main.py prints no traceback, no
//! main.py, a full pipe blocks the program, `sys.exit("text")`, bytes on
//! stderr that are not UTF-8). Then the same projects in Pyodide through
//! Node (`--runner pyodide`, the page's project code): every figure and
//! verdict must be CPython's.
#![cfg(unix)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn write(root: &Path, project: &str, files: &[(&str, &[u8])]) {
    for (path, text) in files {
        let p = root.join(project).join(path);
        std::fs::create_dir_all(p.parent().expect("a folder")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
}

const REQ: (&str, &[u8]) = (
    "requirement.txt",
    b"A program that greets the user by name.\n",
);

/// The projects, written under `root`.
fn write_projects(root: &Path) {
    let _ = std::fs::remove_dir_all(root);
    // Each run has its own pipes: two runs of 40 KB on stderr (the file
    // descriptor itself, below sys.stderr) do not fill one, and a word
    // split across two runs is no word ("trace" | "back").
    for (name, text) in [
        ("err_a_big", "import os\nos.write(2, b'w' * 40000)\n"),
        ("err_b_big", "import os\nos.write(2, b'w' * 40000)\n"),
        ("err_c_trace", "import os\nos.write(2, b'no trace')\n"),
        ("err_d_back", "import os\nos.write(2, b'back to work')\n"),
        // What generated programs do with the standard streams.
        (
            "streams",
            "import sys\nsys.stdout.reconfigure(encoding='utf-8')\nsys.stdout.buffer.write(b'raw\\n')\n\
             sys.stderr.buffer.write(b'\\xc3')\nsys.stderr.buffer.write(b'\\xa9\\n')\n\
             print(sys.stdout.fileno(), sys.stderr.fileno(), repr(sys.stdin.read()), sys.stdin.buffer.read())\n",
        ),
        ("streams_bad", "import sys\nsys.stderr.buffer.write(b'\\xff\\n')\n"),
        // One project's warning filters are not the next one's.
        ("warn_a", "import warnings\nwarnings.simplefilter('error')\n"),
        ("warn_b", "import warnings\nwarnings.warn('careful')\nprint('on')\n"),
    ] {
        write(root, name, &[REQ, ("main.py", text.as_bytes())]);
    }
    write(
        root,
        "done",
        &[REQ, ("main.py", b"name = 'Ada'\nprint('Hello', name)\n")],
    );
    write(
        root,
        "pass_line",
        &[REQ, ("main.py", b"def greet():\n    pass\n\ngreet()\n")],
    );
    write(
        root,
        "password_line",
        &[
            REQ,
            (
                "main.py",
                b"password = 'x'  # the user's password\nprint(len(password))\n",
            ),
        ],
    );
    write(
        root,
        "traceback",
        &[
            REQ,
            ("main.py", b"print('start')\nraise KeyError('name')\n"),
        ],
    );
    write(
        root,
        "still_running",
        &[
            REQ,
            (
                "main.py",
                b"import time\nwhile True:\n    time.sleep(0.05)\n",
            ),
        ],
    );
    write(
        root,
        "gui",
        &[
            REQ,
            (
                "main.py",
                b"import tkinter as tk\nfrom tkinter import messagebox\n\nclass App(tk.Frame):\n    def __init__(self, master):\n        super().__init__(master)\n        self.pack()\n        tk.Button(self, text='Greet', command=self.greet).pack()\n\n    def greet(self):\n        messagebox.showinfo('Hello', 'Hello')\n\nApp(tk.Tk()).mainloop()\n",
            ),
        ],
    );
    write(
        root,
        "gui_raises",
        &[
            REQ,
            (
                "main.py",
                b"import tkinter as tk\n\nclass App(tk.Frame):\n    def __init__(self, master):\n        super().__init__(master)\n        self.label = tk.Label(self, text=greeting)\n\nApp(tk.Tk()).mainloop()\n",
            ),
        ],
    );
    write(root, "no_code", &[REQ, ("README.md", b"The program.\n")]);
    write(root, "not_utf8", &[REQ, ("main.py", b"print('\xff')\n")]);
    write(root, "no_requirement", &[("main.py", b"print(1)\n")]);
    // Table 3 on a file whose figures are counted by hand.
    write(
        root,
        "scale",
        &[
            REQ,
            (
                "main.py",
                b"# a greeting\nimport sys\n\ndef greet(name):\n    if name and name != 'x':\n        return [c for c in name if c.isalpha()]\n    return []\n\nasync def main():\n    for arg in sys.argv:\n        print(greet(arg))\n",
            ),
            // An f-string: one token in 3.11, parts in 3.12 and later
            // (metrics.py counts it as one in both).
            (
                "util/helpers.py",
                b"def shout(s):\n    return f'{s.upper()}!'\n",
            ),
        ],
    );
    write(
        root,
        "syntax_error",
        &[REQ, ("main.py", b"print('Hello'\n")],
    );
    write(root, "no_main", &[REQ, ("app.py", b"print('Hello')\n")]);
    write(
        root,
        "fills_pipe",
        &[
            REQ,
            (
                "main.py",
                b"import sys\nfor i in range(20000):\n    print('Hello, world! line', i)\nsys.stdout.flush()\nraise SystemError('after the pipe filled')\n",
            ),
        ],
    );
    write(
        root,
        "exit_text",
        &[REQ, ("main.py", b"import sys\nsys.exit('Goodbye')\n")],
    );
    write(
        root,
        "stderr_bytes",
        &[REQ, ("main.py", b"import os\nos.write(2, b'\\xff\\n')\n")],
    );
}

/// `srdd-score --json` on `root` with this runner: its lines by project,
/// its stderr, and how long it took.
fn score_all(root: &Path, runner: &str) -> (BTreeMap<String, Value>, String, f64) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_roundtable"))
        .args(["srdd-score", "--runner", runner, "--projects"])
        .arg(root)
        .arg("--json")
        .output()
        .expect("run the CLI");
    let took = started.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // Two projects cannot be scored: the exit code says so.
    assert_eq!(out.status.code(), Some(1), "{runner}: {stdout}\n{stderr}");
    let lines: BTreeMap<String, Value> = stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            (v["project"].as_str().expect("a project").to_string(), v)
        })
        .collect();
    assert_eq!(lines.len(), 24, "{runner}: one line per folder: {stdout}");
    (lines, stderr, took)
}

#[test]
fn every_rule_of_the_metric_on_small_projects() {
    assert!(
        Command::new("python3").arg("--version").output().is_ok(),
        "srdd-score runs projects in CPython: python3 must be on the PATH"
    );
    let root = std::env::temp_dir().join(format!("roundtable-srdd-test-{}", std::process::id()));
    write_projects(&root);
    let (lines, stderr, took) = score_all(&root, "cpython");
    let (pyodide, pyodide_stderr, pyodide_took) = score_all(&root, "pyodide");
    let _ = std::fs::remove_dir_all(&root);
    eprintln!(
        "srdd-score on 24 projects: CPython {took:.1} s, Pyodide in Node {pyodide_took:.1} s"
    );
    check_rules(&lines, &stderr, took, "CPython");
    check_rules(&pyodide, &pyodide_stderr, pyodide_took, "pyodide");
    // Every figure and verdict is CPython's.
    for (project, line) in &lines {
        let other = &pyodide[project];
        for key in [
            "completeness",
            "executability",
            "consistency",
            "quality",
            "complexity",
            "lines",
            "tokens",
            "functions",
            "files",
            "unparsed",
            "gui",
            "stopped",
            "blocked",
            "error",
        ] {
            assert_eq!(
                line[key], other[key],
                "{project} {key}: CPython {line}, Pyodide {other}"
            );
        }
    }
}

fn check_rules(lines: &BTreeMap<String, Value>, stderr: &str, took: f64, runner: &str) {
    let score = |p: &str, k: &str| {
        lines[p][k]
            .as_f64()
            .unwrap_or_else(|| panic!("{p} {k}: {}", lines[p]))
    };
    // (project, completeness, executability)
    for (p, c, e) in [
        ("done", 1.0, 1.0),
        ("pass_line", 0.0, 1.0),
        ("password_line", 1.0, 1.0),
        ("traceback", 1.0, 0.0),
        ("still_running", 1.0, 1.0),
        ("gui", 1.0, 1.0),
        ("gui_raises", 1.0, 0.0),
        ("no_code", 1.0, 0.0),
        // CPython prints a syntax error in main.py with no traceback header.
        ("syntax_error", 1.0, 1.0),
        // "python3: can't open file": no traceback either.
        ("no_main", 1.0, 1.0),
        // Blocked on its full stdout until stopped: it never raised.
        ("fills_pipe", 1.0, 1.0),
        ("exit_text", 1.0, 1.0),
        ("stderr_bytes", 1.0, 0.0),
        ("err_a_big", 1.0, 1.0),
        ("err_b_big", 1.0, 1.0),
        ("err_c_trace", 1.0, 1.0),
        ("err_d_back", 1.0, 1.0),
        ("streams", 1.0, 1.0),
        ("streams_bad", 1.0, 0.0),
        ("warn_a", 1.0, 1.0),
        ("warn_b", 1.0, 1.0),
    ] {
        assert_eq!(
            score(p, "completeness"),
            c,
            "{p} completeness: {}",
            lines[p]
        );
        assert_eq!(
            score(p, "executability"),
            e,
            "{p} executability: {}",
            lines[p]
        );
        let want = c * e * score(p, "consistency");
        assert!(
            (score(p, "quality") - want).abs() < 1e-12,
            "{p}: quality is the product"
        );
        assert!((-1.0..=1.0).contains(&score(p, "consistency")), "{p}");
        assert!(
            lines[p]["runner"]
                .as_str()
                .is_some_and(|r| r.contains(runner)),
            "{p}: {}",
            lines[p]
        );
        assert_eq!(lines[p]["embedder"], "lexical-v1");
    }
    assert_eq!(lines["gui"]["gui"], serde_json::json!(["tkinter"]));
    assert_eq!(lines["done"]["gui"], serde_json::json!([]));
    for p in ["still_running", "gui", "fills_pipe"] {
        assert_eq!(lines[p]["stopped"], true, "{p}: {}", lines[p]);
    }
    for p in [
        "done",
        "traceback",
        "gui_raises",
        "exit_text",
        "err_b_big",
        "err_d_back",
    ] {
        assert_eq!(lines[p]["stopped"], false, "{p}: {}", lines[p]);
    }
    assert_eq!(lines["fills_pipe"]["blocked"], "stdout");
    assert_eq!(lines["still_running"]["blocked"], Value::Null);
    // The still-running programs were stopped at 3 s, not waited for.
    assert!(took < 90.0, "{took}");
    let err = |p: &str| lines[p]["error"].as_str().unwrap_or_default().to_string();
    assert!(
        err("not_utf8").contains("main.py is not UTF-8"),
        "{}",
        lines["not_utf8"]
    );
    assert!(
        err("no_requirement").contains("no .txt file"),
        "{}",
        lines["no_requirement"]
    );
    // Table 3, counted by hand: 1 per file and per function, if, `and`,
    // the comprehension's for and if, for: 2 + 2 + 1 + 1 + 2 + 1 + 1 (shout) = 10.
    let s = &lines["scale"];
    assert_eq!(s["files"], 2, "{s}");
    assert_eq!(s["functions"], 3, "{s}");
    assert_eq!(s["complexity"], 10, "{s}");
    assert_eq!(s["lines"], 10, "{s}");
    assert_eq!(s["unparsed"], 0, "{s}");
    // The means, Table 2 in %.
    assert!(stderr.contains("22 projects scored, 2 not"), "{stderr}");
    assert!(stderr.contains("Table 2 (%): completeness"), "{stderr}");
}
