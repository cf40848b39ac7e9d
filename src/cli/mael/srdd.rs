//! `roundtable srdd-score --projects DIR [--json] [embedding options]`:
//! every project folder under DIR (its subfolders, sorted, as ChatDev's
//! `eval_quality.py` takes them) scored by SRDD's official metric
//! (`engine::domains::srdd`: completeness, executability, consistency,
//! quality) and MAEL's Table 3 (`web/srdd/metrics.py`: complexity, lines,
//! tokens, functions, files). One line per project, `--json`:
//! `{"project", "completeness", "executability", "consistency", "quality",
//! "complexity", "lines", "tokens", "functions", "files", "runner",
//! "embedder", "unparsed", "gui", "stopped", "blocked"}` (`gui`: the
//! toolkits served headless; `stopped`: still running at 3 s; `blocked`:
//! "stdout" or "stderr" when it was stopped with that pipe full, else
//! null), or `{"project", "error"}`; then the means (Table 2 in %, Table
//! 3), on stderr with `--json`.
//!
//! As the script: the files are taken in `os.walk` order (a folder's own
//! entries in the order the file system lists them, then its folders'); the
//! requirement is the first `.txt` file's text; `python3 main.py` runs for
//! 3 s in the folder of the last file whose name holds `.py`, stdin closed,
//! its stdout and stderr not read until then, then it is stopped. Unlike
//! the script, it runs in a copy of the project in a temporary folder (a
//! program's files do not land in DIR), with GUI toolkits served headless
//! (`web/srdd/gui_standins.py`, as in the page: the result names them).
//! CPython (`python3`) runs it, or Pyodide in Node where there is no
//! python3 or `--runner pyodide` asks (`cli::projects`); the line says which.

use super::super::common::Common;
use super::super::flags::Flags;
use super::super::projects::Runner;
use futures::executor::block_on;
use roundtable::engine::base::cancel::CancelToken;
use roundtable::engine::domains::srdd::project::{File, Project};
use roundtable::engine::domains::srdd::run::{Files, ProjectRunner, Scale};
use roundtable::engine::domains::srdd::{cosine, executability, requirement_text, Quality};
use roundtable::engine::model::embed::Embedder;
use serde_json::json;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub const USAGE: &str = "\
  roundtable srdd-score --projects DIR [--json] [--runner cpython|pyodide]
                        [--embedding-model M [--embedding-url U]]";

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

/// The files walked (path and text, as a runner takes them), the project
/// as the script reads them, and its requirement (the first `.txt` file's
/// text, stripped).
type Walked = (Files, Project, String);

fn read_project(dir: &Path) -> Result<Walked, String> {
    let walked = walk(dir)?;
    let mut project = Project::default();
    let mut requirement = None;
    let mut files = Vec::new();
    for (rel, path) in &walked {
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
        // What a copy of the file holds for the run (a file that is not
        // text is given as far as it reads: .py files are UTF-8 by now).
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        files.push((rel.clone(), String::from_utf8_lossy(&bytes).into_owned()));
    }
    let requirement = requirement.ok_or_else(|| {
        "no .txt file holds the requirement (the official script reads the first one)".to_string()
    })?;
    Ok((files, project, requirement))
}

/// One project's line.
fn score(
    dir: &Path,
    embedder: &dyn Embedder,
    runner: &Runner,
) -> Result<(Quality, Scale, serde_json::Value), String> {
    let (files, project, requirement) = read_project(dir)?;
    let ran = match project.run_folder() {
        Some(folder) => Some(block_on(runner.run(files.clone(), folder.to_string()))?),
        None => None,
    };
    let texts = [
        requirement_text(&requirement).to_string(),
        project.code_for_consistency(),
    ];
    let vectors = block_on(embedder.embed(&texts, &CancelToken::new()))
        .map_err(|e| format!("the embedder failed: {}", e.user_message()))?;
    let consistency = match vectors.as_slice() {
        [a, b] => cosine(a, b),
        _ => return Err("the embedder did not give two vectors".into()),
    };
    let quality = Quality::new(
        project.completeness(),
        executability(ran.as_ref()),
        consistency,
    );
    let py: Files = project
        .files
        .iter()
        .map(|f| (f.path.clone(), f.text.clone()))
        .collect();
    let scale = block_on(runner.measure(py))?;
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
        "runner": runner.name(),
        "embedder": embedder.id().id,
        "gui": ran.as_ref().map(|r| r.gui.clone()).unwrap_or_default(),
        "stopped": ran.as_ref().is_some_and(|r| r.stopped),
        "blocked": ran.as_ref().and_then(|r| r.blocked.clone()),
    });
    Ok((quality, scale, line))
}

pub fn run(args: Vec<OsString>) -> Result<i32, String> {
    let f = Flags::parse("srdd-score", args)?;
    let root = f
        .text("projects")?
        .ok_or_else(|| format!("srdd-score needs --projects\n{USAGE}"))?;
    let json_out = f.switch("json")?;
    let choice = f.text("runner")?;
    let embedder = Common::read(&f)?.embedder()?;
    f.finish()?;
    let runner = Runner::pick(choice.as_deref())?;
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
    if scored.is_empty() {
        return format!(
            "no project scored ({failed} could not be) in {:.1} s: no Table 2 or 3",
            took.as_secs_f64()
        );
    }
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
