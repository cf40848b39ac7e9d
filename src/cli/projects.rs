//! The CLI's Python for generated projects (SRDD): CPython (`python3`) in
//! a temporary folder, as ChatDev's `eval_quality.py` runs a project, or,
//! where there is no python3 (or `--runner pyodide` asks), Pyodide in Node
//! (`web/srdd/node-run.mjs`: the page's own project code, `project.mjs`).
//! Both give a [`Ran`] and a [`Scale`], which the metric reads alike; the
//! result names the runner.

use futures::future::LocalBoxFuture;
use roundtable::engine::domains::srdd::run::{Files, ProjectRunner, Ran, Scale};
use roundtable::engine::domains::srdd::RUN_SECONDS;
use serde_json::json;
use std::cell::RefCell;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const GUI_STANDINS: &str = include_str!("../../web/srdd/gui_standins.py");
const METRICS: &str = include_str!("../../web/srdd/metrics.py");

/// Which Python runs projects (`--runner`).
pub enum Runner {
    CPython { version: String },
    Pyodide(NodeProjects),
}

impl Runner {
    /// `--runner cpython|pyodide`, or CPython when python3 starts, else Pyodide.
    pub fn pick(choice: Option<&str>) -> Result<Runner, String> {
        let cpython = || {
            let out = Command::new("python3").arg("--version").output().ok()?;
            let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
            out.status.success().then(|| Runner::CPython {
                version: v.replace("Python", "CPython"),
            })
        };
        match choice {
            Some("cpython") => cpython().ok_or_else(|| {
                "--runner cpython: python3 cannot be started (install Python 3, or use --runner pyodide)".to_string()
            }),
            Some("pyodide") => Ok(Runner::Pyodide(NodeProjects::default())),
            Some(other) => Err(format!("--runner is cpython or pyodide, not {other:?}")),
            None => Ok(cpython().unwrap_or_else(|| Runner::Pyodide(NodeProjects::default()))),
        }
    }
}

/// The Python a run's projects (MAEL's SRDD) or notebook cells (ACT's
/// tools) run in, as a run resource.
pub fn resource() -> Result<std::rc::Rc<roundtable::engine::domains::srdd::run::Runner>, String> {
    let runner = Runner::pick(None)?;
    Ok(std::rc::Rc::new(
        roundtable::engine::domains::srdd::run::Runner(std::rc::Rc::new(runner)),
    ))
}

impl ProjectRunner for Runner {
    fn name(&self) -> String {
        match self {
            Runner::CPython { version } => format!("python3 ({version})"),
            Runner::Pyodide(_) => "pyodide (in Node)".into(),
        }
    }

    fn run(&self, files: Files, folder: String) -> LocalBoxFuture<'_, Result<Ran, String>> {
        Box::pin(async move {
            match self {
                Runner::CPython { .. } => {
                    let scratch = Scratch::new()?;
                    let copy = scratch.0.join("project");
                    write_files(&files, &copy)?;
                    run_main(&copy.join(folder), &scratch.0)
                }
                Runner::Pyodide(node) => node
                    .ask(files, Some(folder))?
                    .1
                    .ok_or_else(|| "the Pyodide runner did not run main.py".to_string()),
            }
        })
    }

    fn measure(&self, files: Files) -> LocalBoxFuture<'_, Result<Scale, String>> {
        Box::pin(async move {
            match self {
                Runner::CPython { .. } => measure_cpython(&files),
                Runner::Pyodide(node) => Ok(node.ask(files, None)?.0),
            }
        })
    }
}

/// A temporary folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, String> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        // A new folder, never one left by an earlier process (a name is
        // tried again if it exists).
        let mut last = String::new();
        for _ in 0..16 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let dir = std::env::temp_dir().join(format!(
                "roundtable-srdd-{}-{}-{nanos:08x}",
                std::process::id(),
                N.fetch_add(1, Ordering::SeqCst)
            ));
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(Scratch(dir)),
                Err(e) => last = format!("cannot make {}: {e}", dir.display()),
            }
        }
        Err(last)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write_files(files: &Files, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("cannot make {}: {e}", to.display()))?;
    for (rel, text) in files {
        let dest = to.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot make {}: {e}", parent.display()))?;
        }
        std::fs::write(&dest, text).map_err(|e| format!("cannot write {rel}: {e}"))?;
    }
    Ok(())
}

/// Runs `python3 main.py` in `folder` for [`RUN_SECONDS`], then stops its
/// process group; stderr is read once it has ended.
fn run_main(folder: &Path, scratch: &Path) -> Result<Ran, String> {
    let gui_dir = scratch.join("gui");
    std::fs::create_dir_all(&gui_dir).map_err(|e| format!("cannot make the GUI folder: {e}"))?;
    std::fs::write(gui_dir.join("sitecustomize.py"), GUI_STANDINS)
        .map_err(|e| format!("cannot write the GUI stand-ins: {e}"))?;
    let mark = scratch.join("gui-mark");
    std::fs::create_dir_all(folder).map_err(|e| format!("cannot make the run folder: {e}"))?;
    let mut child = Command::new("python3")
        .arg("main.py")
        .current_dir(folder)
        .env("PYTHONPATH", &gui_dir)
        .env("ROUNDTABLE_GUI_MARK", &mark)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start python3 ({e}): try --runner pyodide"))?;
    let started = Instant::now();
    let limit = Duration::from_secs(RUN_SECONDS);
    while started.elapsed() < limit {
        if child.try_wait().ok().flatten().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let stopped = child.try_wait().ok().flatten().is_none();
    let group = child.id() as libc::pid_t;
    if stopped {
        // SAFETY: killpg sends a signal to the group this process made.
        unsafe { libc::killpg(group, libc::SIGTERM) };
        let grace = Instant::now();
        while child.try_wait().ok().flatten().is_none() && grace.elapsed() < Duration::from_secs(1)
        {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    // The group whole (main.py, if it ignored SIGTERM, and what it started
    // and left running: it would hold the pipes open and outlive the
    // scoring), then main.py reaped.
    // SAFETY: as above (a group already gone is ESRCH, ignored).
    unsafe { libc::killpg(group, libc::SIGKILL) };
    let _ = child.wait();
    // Read only now, as the script reads them (a program that filled a
    // pipe was blocked on it); a process that left the group may hold a
    // pipe open: what came within a second is taken.
    let stdout = read_for(child.stdout.take(), Duration::from_secs(1));
    let stderr = read_for(child.stderr.take(), Duration::from_secs(1));
    let mut gui: Vec<String> = Vec::new();
    for toolkit in std::fs::read_to_string(&mark).unwrap_or_default().lines() {
        if !gui.iter().any(|t| t == toolkit) {
            gui.push(toolkit.to_string());
        }
    }
    Ok(Ran::from_bytes(&stdout, &stderr, stopped, gui))
}

/// What a pipe gives within `limit` (its end, or what came by then).
fn read_for(pipe: Option<impl Read + Send + 'static>, limit: Duration) -> Vec<u8> {
    let Some(mut pipe) = pipe else {
        return Vec::new();
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        while let Ok(n) = pipe.read(&mut chunk) {
            if n == 0 || tx.send(chunk[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + limit;
    let mut out = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(chunk) => out.extend_from_slice(&chunk),
            Err(_) => break,
        }
    }
    out
}

/// Table 3's figures, from `metrics.py` in CPython.
fn measure_cpython(files: &Files) -> Result<Scale, String> {
    let scratch = Scratch::new()?;
    let script = scratch.0.join("metrics.py");
    std::fs::write(&script, METRICS).map_err(|e| format!("cannot write metrics.py: {e}"))?;
    let files: Vec<_> = files
        .iter()
        .map(|(path, text)| json!({"path": path, "text": text}))
        .collect();
    let mut child = Command::new("python3")
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start python3 ({e})"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(json!({ "files": files }).to_string().as_bytes())
            .map_err(|e| format!("cannot give metrics.py the files: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("metrics.py did not end: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "metrics.py failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("metrics.py wrote no figures ({e})"))
}

/// The script, beside the sources the binary was built from.
fn node_script() -> String {
    std::env::var("ROUNDTABLE_PROJECT_RUNNER").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/web/srdd/node-run.mjs").to_string()
    })
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// `node web/srdd/node-run.mjs`, started on the first project: one line
/// `{"files", "folder"}` in, `{"scale", "ran"}` out.
#[derive(Default)]
pub struct NodeProjects {
    process: RefCell<Option<Process>>,
}

impl NodeProjects {
    fn start() -> Result<Process, String> {
        let (child, stdin, stdout) = super::python::spawn_node(
            &node_script(),
            &[],
            ("the project runner", "with no python3, projects run in Pyodide through Node; run `make setup` or install Python 3"),
        )?;
        Ok(Process {
            child,
            stdin,
            stdout,
        })
    }

    /// Table 3's figures, and the run when `folder` is given.
    fn ask(&self, files: Files, folder: Option<String>) -> Result<(Scale, Option<Ran>), String> {
        let mut slot = self.process.borrow_mut();
        if slot.is_none() {
            *slot = Some(Self::start()?);
        }
        let p = slot.as_mut().ok_or("no runner")?;
        let files: Vec<_> = files
            .iter()
            .map(|(path, text)| json!({"path": path, "text": text}))
            .collect();
        let line = json!({ "files": files, "folder": folder }).to_string();
        let sent = p
            .stdin
            .write_all(line.as_bytes())
            .and_then(|()| p.stdin.write_all(b"\n"))
            .and_then(|()| p.stdin.flush());
        let mut answer = String::new();
        let read = sent.map(|()| p.stdout.read_line(&mut answer));
        if !matches!(read, Ok(Ok(n)) if n > 0) {
            *slot = None;
            return Err("the Pyodide project runner stopped (see its message above)".into());
        }
        let v: serde_json::Value = serde_json::from_str(answer.trim())
            .map_err(|e| format!("the project runner wrote a line that is not JSON ({e})"))?;
        if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
            return Err(format!("the project runner refused the project: {e}"));
        }
        let scale: Scale = serde_json::from_value(v["scale"].clone())
            .map_err(|e| format!("the project runner's figures are not readable ({e})"))?;
        let ran: Option<Ran> = serde_json::from_value(v["ran"].clone())
            .map_err(|e| format!("the project runner's run is not readable ({e})"))?;
        Ok((scale, ran))
    }
}

impl Drop for NodeProjects {
    fn drop(&mut self) {
        if let Some(p) = self.process.get_mut().take() {
            let Process {
                mut child, stdin, ..
            } = p;
            drop(stdin);
            let _ = child.wait();
        }
    }
}
