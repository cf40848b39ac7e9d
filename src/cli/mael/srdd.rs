//! `roundtable srdd-score --projects DIR [--json] [embedding options]`:
//! every project folder under DIR (its subfolders, sorted, as ChatDev's
//! `eval_quality.py` takes them) scored by SRDD's official metric
//! (`engine::domains::srdd`: completeness, executability, consistency,
//! quality) and MAEL's Table 3 (`web/srdd/metrics.py`: complexity, lines,
//! tokens, functions, files). One line per project, `--json`:
//! `{"project", "completeness", "executability", "consistency", "quality",
//! "complexity", "lines", "tokens", "functions", "files", "runner",
//! "embedder", "gui"}`, or `{"project", "error"}`; then the means (Table 2
//! in %, Table 3), on stderr with `--json`.
//!
//! As the script: the files are taken in `os.walk` order (a folder's own
//! entries in the order the file system lists them, then its folders'); the
//! requirement is the first `.txt` file's text; `python3 main.py` runs for
//! 3 s in the folder of the last file whose name holds `.py`, stdin closed,
//! its stdout and stderr not read until then, then it is stopped. Unlike
//! the script, it runs in a copy of the project in a temporary folder (a
//! program's files do not land in DIR), with GUI toolkits served headless
//! (`web/srdd/gui_standins.py`, as in the page: the result names them).
//! CPython (`python3`) runs it; the line says which.

use super::super::common::Common;
use super::super::flags::Flags;
use roundtable::engine::base::cancel::CancelToken;
use roundtable::engine::domains::srdd::project::{File, Project};
use roundtable::engine::domains::srdd::{
    cosine, executability, requirement_text, Quality, RUN_SECONDS,
};
use roundtable::engine::model::embed::Embedder;
use serde::Deserialize;
use serde_json::json;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const USAGE: &str = "\
  roundtable srdd-score --projects DIR [--json] [--embedding-model M [--embedding-url U]]";

const GUI_STANDINS: &str = include_str!("../../../web/srdd/gui_standins.py");
const METRICS: &str = include_str!("../../../web/srdd/metrics.py");

/// Table 3's figures of a project (`metrics.py`).
#[derive(Debug, Default, Deserialize)]
struct Scale {
    complexity: u64,
    lines: u64,
    tokens: u64,
    functions: u64,
    files: u64,
    unparsed: u64,
}

/// A project's files in `os.walk` order (top-down; symlinked folders are
/// listed, not entered), paths relative to `root`.
fn walk(root: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    fn visit(dir: &Path, rel: &str, out: &mut Vec<(String, PathBuf)>) -> Result<(), String> {
        let entries =
            std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let mut folders = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let at = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if path.is_dir() {
                let linked = entry.file_type().map(|t| t.is_symlink()).unwrap_or(true);
                if !linked {
                    folders.push((at, path));
                }
            } else {
                out.push((at, path));
            }
        }
        for (at, path) in folders {
            visit(&path, &at, out)?;
        }
        Ok(())
    }
    let mut out = Vec::new();
    visit(root, "", &mut out)?;
    Ok(out)
}

/// The files walked, the project as the script reads them, and its
/// requirement (the first `.txt` file's text, stripped).
type Walked = (Vec<(String, PathBuf)>, Project, String);

fn read_project(dir: &Path) -> Result<Walked, String> {
    let files = walk(dir)?;
    let mut project = Project::default();
    let mut requirement = None;
    for (rel, path) in &files {
        let read = || {
            let bytes =
                std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            String::from_utf8(bytes).map_err(|_| {
                format!("{rel} is not UTF-8 text (the official script stops on such a file)")
            })
        };
        let text = if rel.ends_with(".py") {
            read()?
        } else {
            String::new()
        };
        if requirement.is_none() && rel.ends_with(".txt") {
            requirement = Some(read()?.trim().to_string());
        }
        project.files.push(File::new(rel, &text));
    }
    let requirement = requirement.ok_or_else(|| {
        "no .txt file holds the requirement (the official script reads the first one)".to_string()
    })?;
    Ok((files, project, requirement))
}

/// A temporary folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, String> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "roundtable-srdd-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Copies a project's walked files under `to`.
fn copy_project(files: &[(String, PathBuf)], to: &Path) -> Result<(), String> {
    for (rel, from) in files {
        let dest = to.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot make {}: {e}", parent.display()))?;
        }
        std::fs::copy(from, &dest).map_err(|e| format!("cannot copy {rel}: {e}"))?;
    }
    Ok(())
}

/// What a run of `python3 main.py` left: its stderr, and the GUI
/// toolkits served headless.
struct Ran {
    stderr: Vec<u8>,
    gui: Vec<String>,
}

/// Runs `python3 main.py` in `folder` for [`RUN_SECONDS`], then stops its
/// process group; stderr is read once it has ended.
fn run_main(folder: &Path, scratch: &Path) -> Result<Ran, String> {
    let gui_dir = scratch.join("gui");
    std::fs::create_dir_all(&gui_dir).map_err(|e| format!("cannot make the GUI folder: {e}"))?;
    std::fs::write(gui_dir.join("sitecustomize.py"), GUI_STANDINS)
        .map_err(|e| format!("cannot write the GUI stand-ins: {e}"))?;
    let mark = scratch.join("gui-mark");
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
        .map_err(|e| {
            format!("cannot start python3 ({e}): srdd-score runs projects with CPython")
        })?;
    let started = Instant::now();
    let limit = Duration::from_secs(RUN_SECONDS);
    while started.elapsed() < limit {
        if child.try_wait().ok().flatten().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if child.try_wait().ok().flatten().is_none() {
        let group = child.id() as libc::pid_t;
        // SAFETY: killpg sends a signal to the group this process made.
        unsafe { libc::killpg(group, libc::SIGTERM) };
        let grace = Instant::now();
        while child.try_wait().ok().flatten().is_none() && grace.elapsed() < Duration::from_secs(1)
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: as above.
        unsafe { libc::killpg(group, libc::SIGKILL) };
        let _ = child.wait();
    }
    drop(child.stdout.take());
    let mut stderr = Vec::new();
    if let Some(mut pipe) = child.stderr.take() {
        // A process that left the group could hold the pipe open: read in a
        // thread, and take what came within a second.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            let _ = tx.send(buf);
        });
        stderr = rx.recv_timeout(Duration::from_secs(1)).unwrap_or_default();
    }
    let mut gui: Vec<String> = Vec::new();
    for toolkit in std::fs::read_to_string(&mark).unwrap_or_default().lines() {
        if !gui.iter().any(|t| t == toolkit) {
            gui.push(toolkit.to_string());
        }
    }
    Ok(Ran { stderr, gui })
}

/// Table 3's figures, from `metrics.py` in CPython.
fn scale(project: &Project, scratch: &Path) -> Result<Scale, String> {
    let script = scratch.join("metrics.py");
    std::fs::write(&script, METRICS).map_err(|e| format!("cannot write metrics.py: {e}"))?;
    let files: Vec<_> = project
        .files
        .iter()
        .map(|f| json!({"path": f.path, "text": f.text}))
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

/// CPython's version, as the result names the runner.
fn runner() -> Result<String, String> {
    let out = Command::new("python3")
        .arg("--version")
        .output()
        .map_err(|e| format!("srdd-score runs projects with CPython, and python3 cannot be started ({e}): install Python 3"))?;
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Ok(format!("python3 ({})", v.replace("Python", "CPython")))
}

/// One project's line.
fn score(
    dir: &Path,
    embedder: &dyn Embedder,
    runner: &str,
) -> Result<(Quality, Scale, serde_json::Value), String> {
    let (files, project, requirement) = read_project(dir)?;
    let scratch = Scratch::new()?;
    let copy = scratch.0.join("project");
    copy_project(&files, &copy)?;
    let ran = match project.run_folder() {
        Some(folder) => Some(run_main(&copy.join(folder), &scratch.0)?),
        None => None,
    };
    let texts = [
        requirement_text(&requirement).to_string(),
        project.code_for_consistency(),
    ];
    let vectors = futures::executor::block_on(embedder.embed(&texts, &CancelToken::new()))
        .map_err(|e| format!("the embedder failed: {}", e.user_message()))?;
    let consistency = match vectors.as_slice() {
        [a, b] => cosine(a, b),
        _ => return Err("the embedder did not give two vectors".into()),
    };
    let quality = Quality::new(
        project.completeness(),
        executability(ran.as_ref().map(|r| r.stderr.as_slice())),
        consistency,
    );
    let scale = scale(&project, &scratch.0)?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let line = json!({
        "project": name,
        "completeness": quality.completeness,
        "executability": quality.executability,
        "consistency": quality.consistency,
        "quality": quality.quality,
        "complexity": scale.complexity,
        "lines": scale.lines,
        "tokens": scale.tokens,
        "functions": scale.functions,
        "files": scale.files,
        "unparsed": scale.unparsed,
        "runner": runner,
        "embedder": embedder.id().id,
        "gui": ran.map(|r| r.gui).unwrap_or_default(),
    });
    Ok((quality, scale, line))
}

pub fn run(args: Vec<OsString>) -> Result<i32, String> {
    let f = Flags::parse("srdd-score", args)?;
    let root = f
        .text("projects")?
        .ok_or_else(|| format!("srdd-score needs --projects\n{USAGE}"))?;
    let json_out = f.switch("json")?;
    let embedder = Common::read(&f)?.embedder()?;
    f.finish()?;
    let runner = runner()?;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .map_err(|e| format!("cannot read {root}: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    if dirs.is_empty() {
        return Err(format!("{root} holds no project folder"));
    }
    let mut out = std::io::stdout().lock();
    let (mut scored, mut failed) = (Vec::new(), 0);
    let started = Instant::now();
    for dir in &dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let line = match score(dir, embedder.as_ref(), &runner) {
            Ok((q, s, line)) => {
                scored.push((q, s));
                if json_out {
                    line.to_string()
                } else {
                    format!(
                        "{name}  completeness {} executability {} consistency {:.4} quality {:.4}  complexity {} lines {} tokens {} functions {} files {}",
                        q.completeness, q.executability, q.consistency, q.quality,
                        line["complexity"], line["lines"], line["tokens"], line["functions"], line["files"]
                    )
                }
            }
            Err(e) => {
                failed += 1;
                if json_out {
                    json!({"project": name, "error": e}).to_string()
                } else {
                    format!("{name}  not scored: {e}")
                }
            }
        };
        writeln!(out, "{line}")
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write the scores: {e}"))?;
    }
    let summary = summary(&scored, failed, started.elapsed(), &embedder.id().label());
    if json_out {
        eprintln!("{summary}");
    } else {
        println!("{summary}");
    }
    Ok(if failed > 0 { 1 } else { 0 })
}

/// The means: Table 2 in %, Table 3 as they are.
fn summary(scored: &[(Quality, Scale)], failed: usize, took: Duration, embedder: &str) -> String {
    let n = scored.len().max(1) as f64;
    let mean = |f: &dyn Fn(&(Quality, Scale)) -> f64| scored.iter().map(f).sum::<f64>() / n;
    format!(
        "{} projects scored{} in {:.1} s ({:.2} s each); consistency by the {embedder}\n\
         Table 2 (%): completeness {:.2} executability {:.2} consistency {:.2} quality {:.2}\n\
         Table 3 (means): complexity {:.1} lines {:.1} tokens {:.1} functions {:.1} files {:.1}",
        scored.len(),
        if failed > 0 {
            format!(", {failed} not")
        } else {
            String::new()
        },
        took.as_secs_f64(),
        took.as_secs_f64() / (scored.len() + failed).max(1) as f64,
        100.0 * mean(&|s| s.0.completeness),
        100.0 * mean(&|s| s.0.executability),
        100.0 * mean(&|s| s.0.consistency),
        100.0 * mean(&|s| s.0.quality),
        mean(&|s| s.1.complexity as f64),
        mean(&|s| s.1.lines as f64),
        mean(&|s| s.1.tokens as f64),
        mean(&|s| s.1.functions as f64),
        mean(&|s| s.1.files as f64),
    )
}
