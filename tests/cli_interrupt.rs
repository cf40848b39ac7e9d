//! A CLI run or batch cut off by a signal keeps what it did: the run file
//! is written as the calls end (a process killed outright leaves it), a
//! SIGTERM ends the run like the page's Stop with the file marked
//! interrupted, `run --continue` finishes it from there, and a stopped
//! batch is finished by `--resume`. Against the mock LLM server.
#![cfg(unix)]

#[path = "support/mock.rs"]
mod mock;

use mock::{cli, on_mock, requests, script, start_mock, strs, tmp};
use roundtable::engine::run::{RunDoc, RunEvent, RunStatus};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const KEY: &str = "sk-interrupt-secret";

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_roundtable"))
        .args(args)
        .env("ROUNDTABLE_API_KEY", KEY)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the CLI")
}

/// Waits (up to 60 s) until `ready` holds.
fn wait_for<T>(what: &str, mut ready: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(x) = ready() {
            return x;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "waited 60 s for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn read(path: &str) -> Option<RunDoc> {
    RunDoc::from_json(&std::fs::read_to_string(path).ok()?).ok()
}

fn answered(doc: &RunDoc) -> usize {
    doc.events
        .iter()
        .filter(|e| matches!(e.event, RunEvent::LlmResponse { .. }))
        .count()
}

fn sigterm(child: &mut Child) -> (i32, String) {
    // SAFETY: a signal to our own child process.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(sent, 0, "kill");
    let status = wait_for("the CLI to end after SIGTERM", || {
        child.try_wait().expect("wait")
    });
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().expect("stderr"), &mut stderr)
        .expect("stderr");
    (status.code().unwrap_or(-1), stderr)
}

#[test]
fn a_sigtermed_run_leaves_an_interrupted_file_that_continue_finishes() {
    let mock = start_mock();
    // The first call is answered, the second hangs until the run stops.
    script(&mock, r#"[{"text":"hello"},{"hangMs":60000}]"#);
    let out = tmp("interrupted.json");
    let _ = std::fs::remove_file(&out);
    let mut child = spawn(&strs(&on_mock(
        &mock,
        &["run", "--coordinator", "travel", "--out", &out],
    )));
    // Before any signal the file holds the answered call: a process killed
    // outright (SIGKILL, a power cut) keeps it.
    let kept = wait_for("the run file with an answered call", || {
        read(&out).filter(|d| answered(d) == 1)
    });
    assert_eq!(kept.status(), RunStatus::Running);
    let (code, stderr) = sigterm(&mut child);
    assert_eq!(code, 143, "{stderr}");
    assert!(
        stderr.contains("--continue"),
        "says how to finish: {stderr}"
    );
    let text = std::fs::read_to_string(&out).expect("run file");
    assert!(!text.contains(KEY), "the key is never written");
    let doc = RunDoc::from_json(&text).expect("a run file");
    assert_eq!(doc.status(), RunStatus::Cancelled);
    assert!(
        matches!(
            &doc.events.last().expect("events").event,
            RunEvent::RunCancelled { interrupted: Some(s) } if s == "SIGTERM"
        ),
        "marked interrupted"
    );
    assert_eq!(answered(&doc), 1, "the answered call is kept");
    let asked = doc
        .events
        .iter()
        .filter(|e| matches!(e.event, RunEvent::LlmRequest { .. }))
        .count();
    assert_eq!(asked, 2, "and the call under way is recorded as asked");

    // Continue: no model named, so the run's own (its provider, the key
    // from the environment); the answered call comes from the file.
    script(&mock, "[]");
    let next = tmp("continued.json");
    let (code, _, stderr) = cli(&["run", "--continue", &out, "--out", &next], Some(KEY));
    assert_eq!(code, 0, "{stderr}");
    let done = read(&next).expect("the continued run's file");
    assert_eq!(done.status(), RunStatus::Finished, "{stderr}");
    let parent = done.config.parent.clone().expect("names its parent");
    assert_eq!(parent.run_id, doc.config.run_id);
    assert_eq!(parent.fork_call, 1);
    assert_eq!(done.config.task, doc.config.task);
    assert_eq!(done.config.options, doc.config.options);
    let replies: Vec<bool> = done
        .events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::LlmResponse { response, .. } => Some(response.replayed),
            _ => None,
        })
        .collect();
    assert_eq!(replies.first(), Some(&true), "call 0 from the file");
    assert!(replies[1..].iter().all(|r| !r), "the rest live");
    assert_eq!(
        requests(&mock).len(),
        replies.len() - 1,
        "the server is asked for every call but the one the file answered"
    );

    // A finished run has nothing to continue; a damaged file says so.
    let (code, _, stderr) = cli(&["run", "--continue", &next], Some(KEY));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("nothing to continue"), "{stderr}");
    let damaged = tmp("damaged.json");
    std::fs::write(&damaged, &text[..text.len() / 2]).expect("write");
    let (code, _, stderr) = cli(&["run", "--continue", &damaged], Some(KEY));
    assert_ne!(code, 0);
    assert!(stderr.contains("not valid JSON"), "{stderr}");

    // An ACT+ run is refused by its paper's row (its bank has moved on).
    let mut plus = doc.clone();
    plus.config.coordinator = "act".into();
    plus.config.variant = Some("act-plus".into());
    let plus_file = tmp("act-plus.json");
    std::fs::write(&plus_file, plus.to_json()).expect("write");
    let (code, _, stderr) = cli(&["run", "--continue", &plus_file], Some(KEY));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("ACT+ run cannot be continued"), "{stderr}");
    plus.config.variant = Some("no-keywords".into());
    std::fs::write(&plus_file, plus.to_json()).expect("write");
    let (_, _, stderr) = cli(&["run", "--continue", &plus_file], Some(KEY));
    assert!(!stderr.contains("cannot be continued"), "{stderr}");
}

#[test]
fn a_sigtermed_batch_keeps_its_finished_runs_and_resume_finishes_it() {
    let mock = start_mock();
    // The first query's run is answered; the second's hangs.
    script(&mock, r#"[{"text":"A plan."},{"hangMs":60000}]"#);
    let dir = tmp("batch-interrupted");
    let _ = std::fs::remove_dir_all(&dir);
    let args = on_mock(
        &mock,
        &[
            "travel-batch",
            "--variants",
            "single",
            "--concurrency",
            "1",
            "--out-dir",
            &dir,
        ],
    );
    let mut child = spawn(&strs(&args));
    let first = wait_for("the first run's file", || {
        let entry = std::fs::read_dir(&dir).ok()?.next()?.ok()?;
        let path = entry.path().to_string_lossy().into_owned();
        read(&path).map(|_| path)
    });
    wait_for("the second run's call", || {
        (requests(&mock).len() >= 2).then_some(())
    });
    let (code, stderr) = sigterm(&mut child);
    assert_eq!(code, 143, "{stderr}");
    assert!(stderr.contains("--resume"), "says how to finish: {stderr}");
    assert_eq!(read(&first).expect("kept").status(), RunStatus::Finished);
    let files = std::fs::read_dir(&dir).expect("dir").count();

    script(&mock, "[]");
    let mut resumed = args.clone();
    resumed.push("--resume".into());
    let (code, _, stderr) = cli(&strs(&resumed), Some(KEY));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("taken from --out-dir"),
        "the finished run is taken as it is: {stderr}"
    );
    let after = std::fs::read_dir(&dir).expect("dir").count();
    assert!(after >= files.max(2), "{after} files");
    for entry in std::fs::read_dir(&dir).expect("dir") {
        let path = entry.expect("entry").path();
        let doc = read(&path.to_string_lossy()).expect("every file reads");
        assert_eq!(doc.status(), RunStatus::Finished, "{}", path.display());
    }
}
