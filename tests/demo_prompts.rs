//! What the agents are told, pinned: every coordinator and variant runs on
//! the offline demo model through the CLI, and each request (its step, its
//! messages, its tools, what it asks in return) and each answer is hashed
//! in order. The hashes must equal the recorded ones in
//! `tests/fixtures/demo_prompts.json`: a prompt that changes by one byte
//! fails here, naming the run and the first request that differs. When a
//! prompt changes on purpose, record them again with
//! `ROUNDTABLE_BLESS=1 cargo test --test demo_prompts` and review the diff.
#![cfg(not(target_arch = "wasm32"))]

use roundtable::engine::run::{RunDoc, RunEvent};
use std::collections::BTreeMap;
use std::process::Command;

const FIXTURE: &str = "tests/fixtures/demo_prompts.json";

/// The runs: (name, CLI arguments).
fn runs() -> Vec<(String, Vec<String>)> {
    let mut out = vec![(
        "single".to_string(),
        vec![
            "--coordinator",
            "single",
            "--task",
            roundtable::engine::coordinators::single::EXAMPLE_TASK,
        ],
    )];
    for variant in ["single", "fixed", "fixed-notebook", "orchestrator"] {
        for mode in ["native", "text"] {
            out.push((
                format!("travel {variant} {mode}"),
                vec![
                    "--coordinator",
                    "travel",
                    "--variant",
                    variant,
                    "--tool-mode",
                    mode,
                ],
            ));
        }
    }
    for variant in [
        "act",
        "no-knowledge",
        "no-team-meeting",
        "no-keywords",
        "no-task-exploration",
        "no-break-time",
        "no-importance",
        "baseline",
        "standard",
        "cot",
        "self-refine",
        "spp",
    ] {
        out.push((
            format!("act {variant}"),
            vec!["--coordinator", "act", "--variant", variant, "--judge"],
        ));
    }
    for mode in ["none", "task", "step"] {
        out.push((
            format!("mael {mode}"),
            vec!["--coordinator", "mael", "--mode", mode],
        ));
    }
    // A tool task (§4.3): Table 26's instruct step and AgentVerse's tools.
    out.push((
        "act tools".to_string(),
        vec![
            "--coordinator",
            "act",
            "--task",
            "Plan a small book club for four friends: pick a first book and a meeting schedule.",
            "--tools",
            "agentverse",
        ],
    ));
    // Software (SRDD): files as the solution, the critic shown the run.
    out.push((
        "mael srdd".to_string(),
        vec![
            "--coordinator",
            "mael",
            "--dataset",
            "srdd",
            "--mode",
            "none",
        ],
    ));
    out.into_iter()
        .map(|(n, a)| (n, a.into_iter().map(str::to_string).collect()))
        .collect()
}

/// A short hash of a value's JSON.
fn hash(v: &serde_json::Value) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, v.to_string().as_bytes());
    d.as_ref()[..6].iter().map(|b| format!("{b:02x}")).collect()
}

/// Each call of a demo run by its step: its request's hash and its
/// answer's, sorted (concurrent calls may come in any order).
fn trace(args: &[String], dir: &std::path::Path) -> BTreeMap<String, Vec<String>> {
    let file = dir.join("run.json");
    let out = Command::new(env!("CARGO_BIN_EXE_roundtable"))
        .arg("run")
        .args(args)
        .arg("--out")
        .arg(&file)
        .arg("--quiet")
        .output()
        .expect("the CLI starts");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc =
        RunDoc::from_json(&std::fs::read_to_string(&file).expect("the run file")).expect("a run");
    let mut asked: BTreeMap<u32, (String, String)> = BTreeMap::new();
    let mut by_step: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in &doc.events {
        match &e.event {
            RunEvent::LlmRequest { call, request, .. } => {
                let what = serde_json::json!({
                    "messages": request.messages,
                    "tools": request.tools,
                    "params": request.params,
                });
                let step = request.step.clone().unwrap_or_else(|| "-".into());
                asked.insert(*call, (step, hash(&what)));
            }
            RunEvent::LlmResponse { call, response, .. } => {
                if let Some((step, h)) = asked.remove(call) {
                    let answer = hash(&serde_json::json!(response.text));
                    by_step
                        .entry(step)
                        .or_default()
                        .push(format!("{h} {answer}"));
                }
            }
            _ => {}
        }
    }
    for v in by_step.values_mut() {
        v.sort();
    }
    by_step
}

#[test]
fn every_prompt_of_every_demo_run_is_the_recorded_one() {
    let dir = std::env::temp_dir().join(format!("rt-demo-prompts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch dir");
    let mut now: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (name, args) in runs() {
        now.insert(name.clone(), trace(&args, &dir));
    }
    // ACT+: a second task on the bank the first one wrote.
    let bank = dir.join("bank.json").to_string_lossy().into_owned();
    let plus = |idx: &str| -> Vec<String> {
        [
            "--coordinator",
            "act",
            "--variant",
            "act-plus",
            "--bank",
            &bank,
            "--task-idx",
            idx,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    now.insert("act act-plus 0".into(), trace(&plus("0"), &dir));
    now.insert("act act-plus 1".into(), trace(&plus("1"), &dir));
    // MAEL with a pool two learning runs filled: its steps show examples.
    let pool = dir.join("pool.json").to_string_lossy().into_owned();
    let learned = Command::new(env!("CARGO_BIN_EXE_roundtable"))
        .args([
            "mael-learn",
            "--dataset",
            "builtin",
            "--train",
            "2",
            "--out",
            &pool,
        ])
        .output()
        .expect("the CLI starts");
    assert!(
        learned.status.success(),
        "{}",
        String::from_utf8_lossy(&learned.stderr)
    );
    for mode in ["task", "step"] {
        let args: Vec<String> = [
            "--coordinator",
            "mael",
            "--mode",
            mode,
            "--pool",
            &pool,
            "--no-learn",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        now.insert(format!("mael {mode} with a pool"), trace(&args, &dir));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    if std::env::var_os("ROUNDTABLE_BLESS").is_some() {
        let text = serde_json::to_string_pretty(&now).expect("JSON");
        std::fs::write(&path, text + "\n").expect("written");
        eprintln!("recorded {} runs in {FIXTURE}", now.len());
        return;
    }
    let recorded: BTreeMap<String, BTreeMap<String, Vec<String>>> = serde_json::from_str(
        &std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{FIXTURE}: {e} (ROUNDTABLE_BLESS=1 records it)")),
    )
    .expect("the fixture's JSON");
    assert_eq!(
        recorded.keys().collect::<Vec<_>>(),
        now.keys().collect::<Vec<_>>(),
        "the runs recorded"
    );
    for (name, steps) in &now {
        let old = &recorded[name];
        assert_eq!(
            old.keys().collect::<Vec<_>>(),
            steps.keys().collect::<Vec<_>>(),
            "{name}: the steps asked"
        );
        for (step, calls) in steps {
            assert_eq!(
                calls, &old[step],
                "{name}: {step}: its requests or answers (hash pairs) changed; if on purpose, \
                 ROUNDTABLE_BLESS=1 records them again"
            );
        }
    }
}
