//! The real-model suite's harness: the model file (or a loud skip), the
//! CLI run with the model's options, and the checks every run passes (a
//! terminal event, the model's own text and counted tokens, the replies
//! repaired as the summary reports them, held steps in their shapes).

use super::run_scan;
use roundtable::engine::coordinators;
use roundtable::engine::model::reply::RepairKind;
use roundtable::engine::model::shape::StructuredMode;
use roundtable::engine::run::{RunDoc, RunEvent};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The model file, or None (said loudly) when the variable is not set. A
/// variable naming a missing file is a failure, not a skip.
pub(crate) fn model() -> Option<PathBuf> {
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

pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rt-real-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch dir");
    dir
}

/// Runs the CLI with the model options added; returns stdout, after
/// printing the wall time (the closing notes' table reads it).
pub(crate) fn cli(model: &Path, what: &str, args: &[&str]) -> String {
    cli_capped(model, what, args, "80")
}

/// [`cli`] with replies of at most `max_tokens` tokens.
pub(crate) fn cli_capped(model: &Path, what: &str, args: &[&str], max_tokens: &str) -> String {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_roundtable"))
        .args(args)
        .args(["--provider", "local", "--model-file"])
        .arg(model)
        .args(["--temperature", "0", "--max-tokens", max_tokens, "--quiet"])
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

pub(crate) fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What every real-model run must show; returns (calls, repaired replies).
/// What one run's log shows: its answered calls, its repaired replies and
/// its longest prompt (tokens the model read), checked against what the
/// coordinator declares for the fit note (`CoordinatorInfo::peak_prompt_tokens`).
pub(crate) fn check_run(what: &str, run: &RunDoc, model_name: &str) -> (usize, usize) {
    let spec = run.config.models.first().map(|m| &m.spec);
    assert_eq!(
        spec.map(|s| s.provider.as_str()),
        Some("local"),
        "{what}: {spec:?}"
    );
    assert_eq!(spec.map(|s| s.model.as_str()), Some(model_name), "{what}");
    match run.events.last().map(|e| &e.event) {
        Some(RunEvent::RunFinished { .. }) => {}
        Some(RunEvent::RunFailed { reason }) => {
            assert!(
                reason.message.len() > 20 && reason.kind != "internal",
                "{what}: failed without a reason a user can act on: {reason:?}"
            );
        }
        other => panic!("{what}: the run ended with {other:?}, not a terminal event"),
    }
    let answered = run_scan::answered(&run.events);
    for a in &answered {
        let r = a.response;
        assert_eq!(
            r.model.as_deref(),
            Some(model_name),
            "{what}: an answer not from the model"
        );
        assert!(!r.usage.estimated, "{what}: estimated tokens");
        assert!(
            r.usage.input_tokens > 0,
            "{what}: no prompt tokens counted: {r:?}"
        );
    }
    let calls = answered.len();
    assert!(calls > 0, "{what}: the model was never called");
    let longest = answered
        .iter()
        .map(|a| a.response.usage.input_tokens)
        .max()
        .unwrap_or(0);
    let declared = coordinators::info(&run.config.coordinator).map_or(0, |c| c.peak_prompt_tokens);
    eprintln!("[real model] {what}: longest prompt {longest} tokens (declared peak {declared})");
    if declared > 0 {
        assert!(
            longest <= u64::from(declared),
            "{what}: a prompt of {longest} tokens, longer than the {declared} the fit note assumes"
        );
    }
    assert!(
        run_scan::unanswered_repairs(&run.events).is_empty(),
        "{what}: a repair names a call that never answered"
    );
    held_to_shape(what, run, &answered);
    (calls, run_scan::repaired_calls(&run.events).len())
}

/// Every structured step's reply was held to its schema by constrained
/// decoding: it says so, and its step read it with nothing unreadable
/// (asked again or defaulted) and no shape repaired (a reply cut at the
/// answer's cap may still be closed).
pub(crate) fn held_to_shape(what: &str, run: &RunDoc, answered: &[run_scan::Answered<'_>]) {
    let mut shaped = 0;
    let mut cut_off = 0;
    let mut grammar = 0;
    for a in answered {
        // A text-protocol step is held to its grammar: its tool calls are
        // whole calls of the agent's own tools, or none.
        if let Some(req) = a.request.filter(|r| r.params.grammar.is_some()) {
            grammar += 1;
            assert_eq!(
                a.response.structured,
                Some(StructuredMode::Grammar),
                "{what}: call {} ({:?}) was not held to its grammar",
                a.call,
                req.step
            );
            let cut = a.response.finish_reason.as_deref() == Some("length");
            for e in &run.events {
                if let RunEvent::ReplyRepaired { call, repairs } = &e.event {
                    for r in repairs.iter().filter(|_| *call == a.call && !cut) {
                        // A tool error here is a call that is not whole,
                        // of a tool the agent lacks, or after its last round.
                        assert!(
                            r.kind != RepairKind::ToolError,
                            "{what}: call {call} ({:?}), held to its grammar, wrote a call that is not whole: {r:?}: {:?}",
                            req.step,
                            a.response.text
                        );
                    }
                }
            }
            continue;
        }
        let Some(req) = a.request.filter(|r| r.params.schema.is_some()) else {
            assert_eq!(
                a.response.structured, None,
                "{what}: call {} has no shape",
                a.call
            );
            continue;
        };
        shaped += 1;
        assert_eq!(
            a.response.structured,
            Some(StructuredMode::Schema),
            "{what}: call {} ({:?}) was not held to its schema",
            a.call,
            req.step
        );
        // A held reply has room for the whole of its shape, whatever
        // `--max-tokens` says: the token cap never cuts it.
        assert_ne!(
            a.response.finish_reason.as_deref(),
            Some("length"),
            "{what}: call {} ({:?}), held to its schema, was cut by the token cap ({:?} tokens): {:?}",
            a.call,
            req.step,
            req.params.max_tokens,
            a.response.text
        );
        // A 135M model repeats itself: a held reply that loops has the list
        // or object of the loop closed and ends whole (`repeat` says it
        // looped), so it is read like any other.
        if a.response.finish_reason.as_deref() == Some("repeat") {
            cut_off += 1;
            assert!(
                serde_json::from_str::<serde_json::Value>(&a.response.text).is_ok(),
                "{what}: call {} looped and was not wrapped up whole: {:?}",
                a.call,
                a.response.text
            );
        }
        for e in &run.events {
            if let RunEvent::ReplyRepaired { call, repairs } = &e.event {
                for r in repairs.iter().filter(|_| *call == a.call) {
                    assert!(
                        !matches!(
                            r.kind,
                            RepairKind::Shape | RepairKind::Default | RepairKind::AskedAgain
                        ),
                        "{what}: call {call} ({:?}), held to its schema, still needed {r:?}: {:?}",
                        req.step,
                        a.response.text
                    );
                }
            }
        }
    }
    eprintln!(
        "[real model] {what}: {shaped} replies held to their schema ({cut_off} looped, wrapped up whole), {grammar} to the tool grammar"
    );
}

/// Whether the run ended with `run_finished` (not a cap, not a failure).
pub(crate) fn finished(run: &RunDoc) -> bool {
    matches!(
        run.events.last().map(|e| &e.event),
        Some(RunEvent::RunFinished { .. })
    )
}

pub(crate) fn name_of(model: &Path) -> String {
    model
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".gguf").to_string())
        .unwrap_or_default()
}

/// One `run`, its summary line (`--json`) checked against its run file.
pub(crate) fn one_run(model: &Path, what: &str, args: &[&str]) -> RunDoc {
    one_run_capped(model, what, args, "80")
}

/// [`one_run`] with replies of at most `max_tokens` tokens.
pub(crate) fn one_run_capped(model: &Path, what: &str, args: &[&str], max_tokens: &str) -> RunDoc {
    let dir = scratch(what);
    let file = dir.join("run.json");
    let file_arg = file.to_string_lossy().into_owned();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--json", "--out", &file_arg]);
    let stdout = cli_capped(model, what, &all, max_tokens);
    let summary: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{what}: the --json summary: {e}\n{stdout}"));
    let run = run_scan::read_run(what, &file);
    let (calls, repaired) = check_run(what, &run, &name_of(model));
    assert_eq!(summary["replies"].as_u64(), Some(calls as u64), "{what}");
    // Every flagged reply is counted once: repaired, or unreadable when its
    // step could not read it (a default used, or asked again).
    let unreadable = run_scan::unreadable_calls(&run.events).len() as u64;
    assert_eq!(
        summary["unreadable"].as_u64(),
        Some(unreadable),
        "{what}: the unreadable replies reported are not the ones recorded"
    );
    assert_eq!(
        summary["repaired"].as_u64(),
        Some(repaired as u64 - unreadable),
        "{what}: the repaired replies reported are not the ones recorded"
    );
    let by_step: u64 = summary["repaired_by_step"]
        .as_object()
        .map(|m| {
            m.values()
                .filter_map(|c| Some(c["repaired"].as_u64()? + c["unreadable"].as_u64()?))
                .sum()
        })
        .unwrap_or(0);
    assert_eq!(by_step, repaired as u64, "{what}: per step kind");
    eprintln!("[real model] {what}: {summary}");
    let _ = std::fs::remove_dir_all(&dir);
    run
}
