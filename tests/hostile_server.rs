//! A hostile server: the mock LLM server (real HTTP, the OpenAI wire
//! format, streamed) answers every request with what weak models write —
//! empty text, chatter, cut-off and wrong-shape JSON, odd Unicode, markup,
//! 100 KB replies, calls to tools that do not exist. Every coordinator and
//! every batch command of the CLI runs on it to its end: no panic, a
//! terminal event in every run file, and the repaired replies reported
//! equal to those recorded.
#![cfg(not(target_arch = "wasm32"))]

#[path = "support/mock.rs"]
mod mock;

#[path = "support/run_scan.rs"]
mod run_scan;

use mock::{cli, script, start_mock, Mock};
use serde_json::{json, Value};
use std::path::Path;

/// What the server says, in turn (the queue is long enough for a batch).
fn hostile_steps(n: usize) -> String {
    let big = "All of this is fine and well considered. ".repeat(2_600);
    let replies: Vec<Value> = vec![
        json!({"text": ""}),
        json!({"text": "Sure! Here's my answer:"}),
        json!({"text": "{\"next\": \"hotel\", \"reason\": \"the hotels"}),
        json!({"text": "```json\n{\"result\": [{\"subject\": \"x\", \"episodes\": [], \"knowledge\": []}]}\n```"}),
        json!({"text": "{\"adequate\": \"false\", \"score\": \"9/10\", \"solvable\": \"no\"}"}),
        json!({"text": "ｓｃｏｒｅ：９/１０ 👩‍👩‍👧 \u{202E}ǝnɹʇ \u{0}ß\u{0130}{\"İİ answer: €5"}),
        json!({"text": "<script>alert(1)</script><img src=x onerror=alert(2)> **Answer: 7**"}),
        json!({"text": big}),
        json!({"toolCalls": [{"name": "Teleport", "arguments": "{\"to\": \"Mars\""}]}),
        json!({"toolCalls": [{"name": "FlightSearch", "arguments": "not json at all"}]}),
        json!({"text": "Answer: 7"}),
    ];
    let steps: Vec<Value> = (0..n)
        .map(|i| {
            let mut s = replies[i % replies.len()].clone();
            s["chunkDelayMs"] = json!(0);
            s["chunkSize"] = json!(4096);
            s
        })
        .collect();
    serde_json::to_string(&steps).unwrap_or_default()
}

fn model_args(mock: &Mock) -> Vec<String> {
    [
        "--provider",
        "openai-compatible",
        "--base-url",
        &format!("{}/v1", mock.url),
        "--model",
        "weak-model",
        "--retries",
        "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn dir(name: &str) -> String {
    let d = std::env::temp_dir().join(format!("rt-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a scratch dir");
    d.to_string_lossy().into_owned()
}

/// Runs the CLI on the hostile server: it must not panic nor fail on
/// usage; returns stdout.
fn run(mock: &Mock, what: &str, args: &[&str]) -> String {
    script(mock, &hostile_steps(3000));
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.extend(model_args(mock));
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = cli(&refs, Some("sk-test"));
    assert!(!stderr.contains("panicked"), "{what} panicked:\n{stderr}");
    assert!(matches!(code, 0 | 1), "{what}: exit {code}\n{stderr}");
    stdout
}

/// Every run file in `dir` ends with a terminal event; returns the
/// repaired replies they record (distinct calls, summed over runs).
fn check_runs(what: &str, dir: &str) -> usize {
    let mut runs = 0;
    let mut repaired = 0;
    // Every file a batch writes to its --out-dir is a whole run file.
    for p in run_scan::files(Path::new(dir)) {
        let doc = run_scan::read_run(what, &p);
        runs += 1;
        assert!(
            doc.events.last().is_some_and(|e| e.event.is_terminal()),
            "{what}: {} has no terminal event",
            p.display()
        );
        assert!(
            run_scan::unanswered_repairs(&doc.events).is_empty(),
            "{what}: {} flags a reply to a call that never answered",
            p.display()
        );
        repaired += run_scan::repaired_calls(&doc.events).len();
    }
    assert!(runs > 0, "{what}: no run files in {dir}");
    repaired
}

#[test]
fn every_coordinator_runs_to_its_end_on_a_hostile_server() {
    let mock = start_mock();
    for (id, extra) in [
        ("single", vec!["--task", "What is 6 * 7?"]),
        (
            "travel",
            vec!["--variant", "orchestrator", "--max-steps", "6"],
        ),
        ("travel", vec!["--variant", "single", "--max-steps", "6"]),
        ("act", vec![]),
        ("mael", vec!["--critic-rounds", "1"]),
    ] {
        let d = dir(id);
        let file = format!("{d}/run.json");
        let mut args = vec!["run", "--coordinator", id, "--json", "--out", &file];
        args.extend(extra);
        let stdout = run(&mock, id, &args);
        let summary: Value = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("{id}: the summary line: {e}: {stdout}"));
        let recorded = check_runs(id, &d);
        // Each flagged reply counted once: repaired, or unreadable.
        let flagged = summary["repaired"]
            .as_u64()
            .zip(summary["unreadable"].as_u64());
        assert_eq!(flagged.map(|(r, u)| r + u), Some(recorded as u64), "{id}");
        if id != "single" {
            assert!(
                recorded > 0,
                "{id}: hostile replies were repaired: {summary}"
            );
        }
    }
}

#[test]
fn every_batch_command_runs_to_its_end_on_a_hostile_server() {
    let mock = start_mock();
    let travel = dir("travel-batch");
    run(
        &mock,
        "travel-batch",
        &[
            "travel-batch",
            "--variants",
            "single,orchestrator",
            "--max-steps",
            "4",
            "--out-dir",
            &travel,
            "--json",
        ],
    );
    check_runs("travel-batch", &travel);
    let act = dir("act-batch");
    let stdout = run(
        &mock,
        "act-batch",
        &[
            "act-batch",
            "--variants",
            "act,baseline",
            "--trials",
            "1",
            "--out-dir",
            &act,
            "--json",
        ],
    );
    let recorded = check_runs("act-batch", &act);
    let table: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("act-batch --json: {e}: {stdout}"));
    let reported: u64 = table["rows"]
        .as_array()
        .map(|rows| {
            let flagged = |r: &Value| Some(r["repaired"].as_u64()? + r["unreadable"].as_u64()?);
            rows.iter().filter_map(flagged).sum()
        })
        .unwrap_or(0);
    assert_eq!(reported, recorded as u64, "act-batch: {stdout}");
    let learn = dir("mael-learn");
    let pool = format!("{learn}/pool.json");
    let runs = format!("{learn}/runs");
    run(
        &mock,
        "mael-learn",
        &[
            "mael-learn",
            "--dataset",
            "builtin",
            "--train",
            "2",
            "--out",
            &pool,
            "--out-dir",
            &runs,
        ],
    );
    check_runs("mael-learn", &runs);
    let eval = dir("mael-eval");
    run(
        &mock,
        "mael-eval",
        &[
            "mael-eval",
            "--dataset",
            "builtin",
            "--test",
            "2",
            "--modes",
            "none,step",
            "--pool",
            &pool,
            "--out-dir",
            &eval,
            "--json",
        ],
    );
    check_runs("mael-eval", &eval);
}
