//! `roundtable humaneval-score --problems HumanEval.jsonl --samples S.jsonl
//! [--json]`: every sample (the official format, `{"task_id",
//! "completion"}`, several per task allowed) run against its problem's
//! tests with the official harness's semantics (`humaneval`), in Pyodide
//! through Node (`cli::python`). One line per sample, in input order:
//! `{"task_id", "passed", "result"}` with `--json`, else a readable line;
//! then pass@k for each k that every scored problem has samples for (on
//! stderr with `--json`, so stdout stays one line per sample). A bad line
//! or an unknown task is an error naming it, before anything runs.

use super::super::flags::Flags;
use super::super::python::NodePython;
use roundtable::engine::domains::tasks::humaneval::{pass_at_k, program};
use roundtable::engine::domains::tasks::{parse_jsonl, Dataset, Gold};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Write;

pub const USAGE: &str = "\
  roundtable humaneval-score --problems HumanEval.jsonl --samples S.jsonl [--json]";

/// The samples file: (task id, completion), in order.
fn samples(text: &str, file: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |why: String| format!("{file} line {}: {why}", i + 1);
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| at(format!("not valid JSON ({e})")))?;
        let text = |k: &str| {
            v.get(k)
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| at(format!("no \"{k}\" string")))
        };
        out.push((text("task_id")?, text("completion")?));
    }
    if out.is_empty() {
        return Err(format!("{file} holds no samples"));
    }
    Ok(out)
}

pub fn run(args: Vec<OsString>) -> Result<i32, String> {
    let f = Flags::parse("humaneval-score", args)?;
    let problems = f
        .text("problems")?
        .ok_or_else(|| format!("humaneval-score needs --problems\n{USAGE}"))?;
    let samples_file = f
        .text("samples")?
        .ok_or_else(|| format!("humaneval-score needs --samples\n{USAGE}"))?;
    let json = f.switch("json")?;
    f.finish()?;
    let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("cannot read {p}: {e}"));
    let tasks = parse_jsonl(Dataset::Humaneval, &read(&problems)?, &problems)?;
    let by_id: BTreeMap<&str, &Gold> = tasks.iter().map(|t| (t.id.as_str(), &t.gold)).collect();
    let samples = samples(&read(&samples_file)?, &samples_file)?;
    let mut programs = Vec::with_capacity(samples.len());
    for (n, (id, completion)) in samples.iter().enumerate() {
        let Some(Gold::Program {
            code,
            test,
            entry_point,
        }) = by_id.get(id.as_str())
        else {
            return Err(format!(
                "{samples_file}: sample {} is for \"{id}\", which {problems} does not have",
                n + 1
            ));
        };
        programs.push(program(code, completion, test, entry_point));
    }
    // (samples, passed) per task, in task order.
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut out = std::io::stdout().lock();
    let runner = NodePython::default();
    let started = std::time::Instant::now();
    let mut failed_write = None;
    runner.check_all(programs, |i, v| {
        let id = samples[i].0.as_str();
        let c = counts.entry(id).or_default();
        c.0 += 1;
        c.1 += v.passed as usize;
        let line = if json {
            serde_json::json!({"task_id": id, "passed": v.passed, "result": v.result}).to_string()
        } else {
            format!("{id}  {}", v.result)
        };
        if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
            failed_write.get_or_insert(e);
        }
    })?;
    if let Some(e) = failed_write {
        return Err(format!("cannot write the verdicts: {e}"));
    }
    let fewest = counts.values().map(|c| c.0).min().unwrap_or(0);
    let mut summary = format!(
        "{} samples of {} problems in {:.1} s:",
        samples.len(),
        counts.len(),
        started.elapsed().as_secs_f64()
    );
    for k in [1, 10, 100].into_iter().filter(|&k| k <= fewest) {
        let mean = counts
            .values()
            .map(|&(n, c)| pass_at_k(n, c, k))
            .sum::<f64>()
            / counts.len() as f64;
        summary.push_str(&format!(" pass@{k} {:.4}", mean));
    }
    if json {
        eprintln!("{summary}");
    } else {
        println!("{summary}");
    }
    Ok(0)
}
