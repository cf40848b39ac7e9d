//! Every coordinator on a real small model: SmolLM2-135M-Instruct (Q4_1,
//! the file `scripts/setup.sh --browser` fetches), run in-process by the
//! CLI (`--provider local --model-file`), with short answers and a token
//! cap. Each run must end with a terminal event (finished, or failed with
//! a reason a user can act on); its text must be the model's, its token
//! counts counted (not estimated), and the repaired replies the CLI reports
//! must be the ones its events record.
//!
//! `scripts/test.sh` runs these in a step of their own with
//! `ROUNDTABLE_REAL_MODEL` set (the main native step skips `real_model_`).
//! Without it they say loudly that they did not run.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The model file, or None (said loudly) when the variable is not set. A
/// variable naming a missing file is a failure, not a skip.
fn model() -> Option<PathBuf> {
    let Some(path) = std::env::var_os("ROUNDTABLE_REAL_MODEL") else {
        eprintln!(
            "\n!!! NOT RUN: set ROUNDTABLE_REAL_MODEL to the SmolLM2 GGUF file \
             (`bash scripts/setup.sh --model-path` prints where setup puts it); \
             `make test` does.\n"
        );
        return None;
    };
    let path = PathBuf::from(path);
    assert!(
        path.is_file(),
        "ROUNDTABLE_REAL_MODEL names {}, which is not a file: run scripts/setup.sh --browser",
        path.display()
    );
    Some(path)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rt-real-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch dir");
    dir
}

/// Runs the CLI with the model options added; returns stdout, after
/// printing the wall time (the closing notes' table reads it).
fn cli(model: &Path, what: &str, args: &[&str]) -> String {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_roundtable"))
        .args(args)
        .args(["--provider", "local", "--model-file"])
        .arg(model)
        .args(["--temperature", "0", "--max-tokens", "80", "--quiet"])
        .output()
        .expect("the CLI starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked"),
        "{what}: the CLI panicked:\n{stderr}"
    );
    // Exit 1 = a run failed (checked below, with its reason); 2 = bad usage.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{what}: exit {:?}\n{stderr}",
        out.status.code()
    );
    eprintln!(
        "[real model] {what}: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn events(run: &Value) -> Vec<(String, Value)> {
    run["events"]
        .as_array()
        .map(|evs| {
            evs.iter()
                .filter_map(|e| e["event"].as_object())
                .filter_map(|o| o.iter().next().map(|(k, v)| (k.clone(), v.clone())))
                .collect()
        })
        .unwrap_or_default()
}

/// What every real-model run must show; returns (calls, repaired replies).
fn check_run(what: &str, run: &Value, model_name: &str) -> (usize, usize) {
    let spec = &run["config"]["models"][0]["spec"];
    assert_eq!(spec["provider"], "local", "{what}: {spec}");
    assert_eq!(spec["model"], model_name, "{what}");
    let evs = events(run);
    let (last, body) = evs.last().expect("events");
    match last.as_str() {
        "run_finished" => {}
        "run_failed" => {
            let msg = body["reason"]["message"].as_str().unwrap_or_default();
            assert!(
                msg.len() > 20 && body["reason"]["kind"] != "internal",
                "{what}: failed without a reason a user can act on: {body}"
            );
        }
        other => panic!("{what}: the run ended with {other}, not a terminal event"),
    }
    let mut answered = BTreeSet::new();
    let mut calls = 0;
    for (kind, e) in &evs {
        if kind == "llm_response" {
            calls += 1;
            let r = &e["response"];
            assert_eq!(
                r["model"], model_name,
                "{what}: an answer not from the model"
            );
            assert_ne!(r["usage"]["estimated"], true, "{what}: estimated tokens");
            assert!(
                r["usage"]["input_tokens"].as_u64().unwrap_or(0) > 0,
                "{what}: no prompt tokens counted: {r}"
            );
            answered.insert(e["call"].as_u64().unwrap_or(u64::MAX));
        }
    }
    assert!(calls > 0, "{what}: the model was never called");
    let repaired: BTreeSet<u64> = evs
        .iter()
        .filter(|(k, _)| k == "reply_repaired")
        .map(|(_, e)| e["call"].as_u64().unwrap_or(u64::MAX))
        .collect();
    assert!(
        repaired.is_subset(&answered),
        "{what}: a repair names a call that never answered"
    );
    (calls, repaired.len())
}

/// Whether the run ended with `run_finished` (not a cap, not a failure).
fn finished(run: &Value) -> bool {
    events(run).last().is_some_and(|(k, _)| k == "run_finished")
}

fn name_of(model: &Path) -> String {
    model
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".gguf").to_string())
        .unwrap_or_default()
}

/// One `run`, its summary line (`--json`) checked against its run file.
fn one_run(model: &Path, what: &str, args: &[&str]) -> Value {
    let dir = scratch(what);
    let file = dir.join("run.json");
    let file_arg = file.to_string_lossy().into_owned();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--json", "--out", &file_arg]);
    let stdout = cli(model, what, &all);
    let summary: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{what}: the --json summary: {e}\n{stdout}"));
    let run = read_json(&file);
    let (calls, repaired) = check_run(what, &run, &name_of(model));
    assert_eq!(summary["replies"].as_u64(), Some(calls as u64), "{what}");
    assert_eq!(
        summary["repaired"].as_u64(),
        Some(repaired as u64),
        "{what}: the repaired replies reported are not the ones recorded"
    );
    let by_step: u64 = summary["repaired_by_step"]
        .as_object()
        .map(|m| m.values().filter_map(|c| c["repaired"].as_u64()).sum())
        .unwrap_or(0);
    assert_eq!(by_step, repaired as u64, "{what}: per step kind");
    eprintln!("[real model] {what}: {summary}");
    let _ = std::fs::remove_dir_all(&dir);
    run
}

#[test]
fn real_model_single_agent_answers_with_the_models_words() {
    let Some(model) = model() else { return };
    let run = one_run(
        &model,
        "single",
        &[
            "run",
            "--coordinator",
            "single",
            "--task",
            "What is the capital of France? Answer in one sentence.",
        ],
    );
    let answer = events(&run)
        .into_iter()
        .find(|(k, _)| k == "llm_response")
        .map(|(_, e)| {
            e["response"]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .unwrap_or_default();
    assert!(
        answer.contains("Paris"),
        "greedy SmolLM2 knows it: {answer}"
    );
    assert!(finished(&run), "the single agent's run finishes");
}

#[test]
fn real_model_travel_orchestrator_on_a_builtin_query() {
    let Some(model) = model() else { return };
    let run = one_run(
        &model,
        "travel",
        &[
            "run",
            "--coordinator",
            "travel",
            "--variant",
            "orchestrator",
            "--max-steps",
            "3",
            "--critic-rounds",
            "0",
            "--token-cap",
            "12000",
        ],
    );
    assert_eq!(
        run["config"]["options"]["tool_mode"], "text",
        "the local model reads tools as text"
    );
}

#[test]
fn real_model_act_on_a_builtin_task() {
    let Some(model) = model() else { return };
    one_run(
        &model,
        "act",
        &["run", "--coordinator", "act", "--token-cap", "7000"],
    );
}

#[test]
fn real_model_mael_solves_learns_and_is_evaluated() {
    let Some(model) = model() else { return };
    let name = name_of(&model);
    let solved = one_run(
        &model,
        "mael",
        &["run", "--coordinator", "mael", "--token-cap", "12000"],
    );
    assert!(
        finished(&solved),
        "a MAEL task on the real model runs to its end"
    );
    let dir = scratch("mael-learn");
    let pool = dir.join("pool.json").to_string_lossy().into_owned();
    let learned = dir.join("learn").to_string_lossy().into_owned();
    cli(
        &model,
        "mael-learn (2 tasks)",
        &[
            "mael-learn",
            "--dataset",
            "builtin",
            "--train",
            "2",
            "--out",
            &pool,
            "--out-dir",
            &learned,
            "--token-cap",
            "16000",
        ],
    );
    let evaluated = dir.join("eval").to_string_lossy().into_owned();
    let stdout = cli(
        &model,
        "mael-eval (none/task/step × 2 tasks)",
        &[
            "mael-eval",
            "--dataset",
            "builtin",
            "--test",
            "2",
            "--modes",
            "none,task,step",
            "--pool",
            &pool,
            "--out-dir",
            &evaluated,
            "--json",
            "--token-cap",
            "30000",
        ],
    );
    // Every learning and evaluation run passes the checks of a run.
    let mut runs = 0;
    let mut recorded = 0;
    for (d, evaluation) in [(&learned, false), (&evaluated, true)] {
        for entry in std::fs::read_dir(d).expect("the runs' folder").flatten() {
            let p = entry.path();
            if p.extension().is_some_and(|e| e == "json") {
                let run = read_json(&p);
                if run.get("events").is_some() {
                    let (_, repaired) = check_run(&p.display().to_string(), &run, &name);
                    runs += 1;
                    if evaluation {
                        recorded += repaired;
                    }
                }
            }
        }
    }
    assert!(
        runs >= 2 + 6,
        "2 learning runs and 3 modes × 2 tasks, got {runs}"
    );
    eprintln!("[real model] mael-eval: {stdout}");
    // The evaluation's lines (one per mode) report what its runs recorded.
    let modes: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("mode").is_some() && v.get("pool_tasks").is_none())
        .collect();
    assert_eq!(modes.len(), 3, "none, task, step: {stdout}");
    let reported: u64 = modes.iter().filter_map(|v| v["repaired"].as_u64()).sum();
    assert_eq!(
        reported, recorded as u64,
        "mael-eval's repaired replies are not the ones its runs recorded"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
