//! AgentVerse's PythonNotebook on real CPython: the program the notebook
//! writes is run as the workspace runner runs a project (`python3 main.py`
//! in its folder of a copy of the files), and what it printed is read back:
//! a cell sees the names the cells before it made, its error is its output
//! (the traceback, as a notebook shows it), what it writes to stderr is in
//! its output, a kernel reset forgets the cells before it, and it reads the
//! files the agents wrote. Then the same cells in Pyodide through Node
//! (`web/srdd/node-run.mjs`, the page's project code): the same outputs.
#![cfg(unix)]

use roundtable::engine::domains::agentverse::notebook::{read_call, Call, Notebook, EXECUTE};
use roundtable::engine::domains::srdd::run::{Files, Ran};
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdout, Command, Stdio};

/// Runs `main.py` of `folder` in a fresh copy of `files`, as the CLI's
/// CPython runner does (stdin closed), and reads it as a run.
fn cpython(files: &Files, folder: &str, n: usize) -> Ran {
    let root = std::env::temp_dir().join(format!("rt-notebook-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().expect("a folder")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    let out = Command::new("python3")
        .arg("main.py")
        .current_dir(root.join(folder))
        .stdin(Stdio::null())
        .output()
        .expect("python3 runs");
    let _ = std::fs::remove_dir_all(&root);
    Ran::from_bytes(&out.stdout, &out.stderr, false, vec![])
}

/// Pyodide in Node: one process, a JSON line per run.
struct Pyodide {
    child: Child,
    out: BufReader<ChildStdout>,
}

impl Pyodide {
    fn start() -> Pyodide {
        let mut child = Command::new("node")
            .arg("web/srdd/node-run.mjs")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node starts");
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        Pyodide { child, out }
    }

    fn run(&mut self, files: &Files, folder: &str) -> Ran {
        let files: Vec<serde_json::Value> = files
            .iter()
            .map(|(p, t)| json!({"path": p, "text": t}))
            .collect();
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{}", json!({"files": files, "folder": folder})).expect("written");
        stdin.flush().expect("flushed");
        let mut got = String::new();
        self.out.read_line(&mut got).expect("a line");
        let v: serde_json::Value = serde_json::from_str(&got).expect("JSON");
        serde_json::from_value(v["ran"].clone()).unwrap_or_else(|e| panic!("{e}: {got}"))
    }
}

impl Drop for Pyodide {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

type Runner<'a> = dyn FnMut(&Files, &str) -> Ran + 'a;

/// Executes `args` as the agent's call; what it is told.
fn execute(nb: &mut Notebook, ws: &Files, args: serde_json::Value, run: &mut Runner) -> String {
    let Ok(Call::Execute {
        code,
        cell_index,
        reset,
    }) = read_call(EXECUTE, &args)
    else {
        panic!("{args}");
    };
    let k = nb.place(&code, cell_index, reset).expect("placed");
    let (files, folder) = nb.program(k, ws.clone());
    let ran = run(&files, &folder);
    nb.record(k, &ran)
}

/// The cells, each checked; what the agent was told, in order, and the
/// notebook printed.
fn cells(run: &mut Runner) -> Vec<String> {
    let ws: Files = vec![("data/numbers.txt".into(), "3\n4\n5\n".into())];
    let mut nb = Notebook::default();
    let mut told = Vec::new();
    let mut say = |nb: &mut Notebook, args: serde_json::Value| {
        let said = execute(nb, &ws, args, run);
        told.push(said.clone());
        said
    };
    assert_eq!(
        say(&mut nb, json!({"code": "a = 20\nprint('set')"})),
        "cell_index: 0\nset"
    );
    assert_eq!(
        say(&mut nb, json!({"code": "print(a + 4)"})),
        "cell_index: 1\n24",
        "the earlier cell's names are there; its output is not repeated"
    );
    // The workspace's files, from its top folder.
    assert_eq!(
        say(
            &mut nb,
            json!({"code": "print(sum(int(x) for x in open('data/numbers.txt')))"})
        ),
        "cell_index: 2\n12"
    );
    // An error is the cell's output; stderr too.
    let said = say(
        &mut nb,
        json!({"code": "import sys\nsys.stderr.write('careful\\n')\n1 / 0"}),
    );
    assert!(
        said.starts_with("cell_index: 3\ncareful\nTraceback (most recent call last):"),
        "{said}"
    );
    assert!(
        said.contains("ZeroDivisionError: division by zero"),
        "{said}"
    );
    // Overwrite the failing cell; later cells see the fix.
    assert_eq!(
        say(&mut nb, json!({"code": "b = a * 2", "cell_index": -1})),
        "cell_index: 3\n(no output)"
    );
    assert_eq!(
        say(&mut nb, json!({"code": "print(b)"})),
        "cell_index: 4\n40"
    );
    // A reset forgets what came before it.
    assert_eq!(
        say(
            &mut nb,
            json!({"code": "print('a' in dir())", "reset": true})
        ),
        "cell_index: 5\nFalse"
    );
    let printed = nb.print();
    assert!(
        printed.contains("In[4]:\nprint(b)\nOut[4]:\n40"),
        "{printed}"
    );
    told.push(printed);
    told
}

#[test]
fn cells_keep_their_kernel_state_and_show_their_errors_in_cpython_and_pyodide() {
    assert!(
        Command::new("python3").arg("--version").output().is_ok(),
        "the notebook test runs CPython: python3 must be on the PATH"
    );
    let mut n = 0;
    let cpython_told = cells(&mut |files: &Files, folder: &str| {
        n += 1;
        cpython(files, folder, n)
    });
    let mut pyodide = Pyodide::start();
    let pyodide_told = cells(&mut |files: &Files, folder: &str| pyodide.run(files, folder));
    assert_eq!(
        pyodide_told, cpython_told,
        "Pyodide's notebook is CPython's"
    );
}
