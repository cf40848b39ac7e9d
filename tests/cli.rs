//! The native CLI end to end: the demo model, and the OpenAI-compatible and
//! Anthropic providers over real HTTP against the mock LLM server (Node).
#![cfg(not(target_arch = "wasm32"))]

#[path = "support/mock.rs"]
mod mock;

use mock::{cli, script, start_mock, tmp};
use roundtable::engine::run::{RunDoc, RunEvent, RunStatus};

#[test]
fn demo_run_writes_a_run_file() {
    let out = tmp("demo.json");
    let (code, _, stderr) = cli(
        &[
            "run",
            "--coordinator",
            "single",
            "--model",
            "demo",
            "--task",
            "What is 7 * 6?",
            "--out",
            &out,
        ],
        None,
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("run finished"),
        "progress on stderr: {stderr}"
    );
    let doc =
        RunDoc::from_json(&std::fs::read_to_string(&out).expect("file")).expect("valid run file");
    assert_eq!(doc.status(), RunStatus::Finished);
    assert_eq!(doc.config.coordinator, "single");
    let answer = doc.events.iter().find_map(|e| match &e.event {
        RunEvent::LlmResponse { response, .. } => Some(response.text.clone()),
        _ => None,
    });
    assert!(answer.unwrap_or_default().contains("**42**"));
}

#[test]
fn providers_over_http_and_the_key_stays_out_of_the_file() {
    let mock = start_mock();
    for (provider, path) in [
        ("openai-compatible", "/v1/chat/completions"),
        ("anthropic", "/v1/messages"),
    ] {
        script(
            &mock,
            r#"[{"text":"Hello from the mock over HTTP.","chunkSize":5}]"#,
        );
        let out = tmp(&format!("{provider}.json"));
        let base = format!("{}/v1", mock.url);
        let (code, _, stderr) = cli(
            &[
                "run",
                "--coordinator",
                "single",
                "--provider",
                provider,
                "--base-url",
                &base,
                "--model",
                "mock-model",
                "--task",
                "hi",
                "--out",
                &out,
            ],
            Some("sk-cli-secret"),
        );
        assert_eq!(code, 0, "{provider}: {stderr}");
        let text = std::fs::read_to_string(&out).expect("file");
        assert!(
            !text.contains("sk-cli-secret"),
            "the key must never be written"
        );
        let doc = RunDoc::from_json(&text).expect("valid");
        let response = doc.events.iter().find_map(|e| match &e.event {
            RunEvent::LlmResponse { response, .. } => Some(response.clone()),
            _ => None,
        });
        let response = response.expect("a response");
        assert_eq!(response.text, "Hello from the mock over HTTP.");
        assert!(
            !response.usage.estimated,
            "{provider}: usage from the provider"
        );
        let deltas = doc
            .events
            .iter()
            .filter(|e| e.event.kind() == "llm_delta")
            .count();
        assert!(deltas >= 3, "{provider}: streamed ({deltas} deltas)");
        let body = ureq::get(&format!("{}/__log", mock.url))
            .call()
            .expect("log")
            .body_mut()
            .read_to_string()
            .expect("body");
        let log: serde_json::Value = serde_json::from_str(&body).expect("json");
        assert_eq!(log[0]["path"], path);
    }
}

#[test]
fn provider_errors_give_clear_messages_and_exit_codes() {
    let mock = start_mock();
    script(&mock, r#"[{"status":401}]"#);
    let base = format!("{}/v1", mock.url);
    let args = [
        "run",
        "--coordinator",
        "single",
        "--provider",
        "openai-compatible",
        "--base-url",
        &base,
        "--model",
        "m",
        "--task",
        "x",
        "--retries",
        "2",
    ];
    let (code, _, stderr) = cli(&args, Some("bad"));
    assert_eq!(code, 1);
    assert!(stderr.contains("Check the API key"), "{stderr}");

    script(
        &mock,
        r#"[{"status":429,"retryAfter":0},{"text":"ok now"}]"#,
    );
    let (code, stdout, stderr) = cli(&args, Some("k"));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("attempt 1 failed (rate_limited)"),
        "{stderr}"
    );
    assert_eq!(stdout.trim(), "ok now");

    let (code, _, stderr) = cli(
        &[
            "run",
            "--coordinator",
            "single",
            "--provider",
            "openai",
            "--model",
            "gpt-4o-mini",
            "--task",
            "x",
        ],
        None,
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("needs an API key"), "{stderr}");
    let (code, _, stderr) = cli(&["run", "--coordinator", "nope", "--task", "x"], None);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown coordinator"), "{stderr}");
}

#[test]
fn sampler_flags_are_checked_and_go_with_the_local_model_only() {
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "--coordinator", "single", "--task", "x"];
        args.extend_from_slice(extra);
        let (code, _, stderr) = cli(&args, None);
        (code, stderr)
    };
    // Out of range or not a number: the flag is named, before any file is read.
    for (flags, said) in [
        (
            &["--top-p", "1.5"][..],
            "--top-p must be between 0 and 1, got 1.5",
        ),
        (&["--min-p", "-0.1"][..], "--min-p must be between 0 and 1"),
        (
            &["--repeat-penalty", "0"][..],
            "--repeat-penalty must be above 0",
        ),
        (
            &["--repeat-last-n", "99999"][..],
            "--repeat-last-n must be at most 4096",
        ),
        (
            &["--sampler-top-k", "-1"][..],
            "--sampler-top-k needs a whole number",
        ),
        (&["--top-p", "lots"][..], "--top-p needs a number"),
    ] {
        let mut args = flags.to_vec();
        args.extend([
            "--provider",
            "local",
            "--model-file",
            "/nonexistent/model.gguf",
        ]);
        let (code, stderr) = run(&args);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(said), "{flags:?}: {stderr}");
    }
    // In range, they still need the local model.
    let (code, stderr) = run(&["--repeat-penalty", "1.1"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains(
            "--repeat-penalty sets the local model's sampler: it goes with --provider local"
        ),
        "{stderr}"
    );
    // MAEL's own --top-k (retrieved examples) is not the sampler's.
    let (code, stderr) = run(&["--coordinator", "mael", "--top-k", "2", "--retries", "1"]);
    assert!(!stderr.contains("sampler"), "{code}: {stderr}");
    // And with the local model, the file is what is missing.
    let (code, stderr) = run(&[
        "--repeat-penalty",
        "1.1",
        "--sampler-top-k",
        "20",
        "--provider",
        "local",
        "--model-file",
        "/nonexistent/model.gguf",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot open the model file"), "{stderr}");
}

#[test]
fn threads_go_with_the_local_model_and_are_at_least_one() {
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "--coordinator", "single", "--task", "x"];
        args.extend_from_slice(extra);
        cli(&args, None)
    };
    let local = [
        "--provider",
        "local",
        "--model-file",
        "/nonexistent/model.gguf",
    ];
    let (code, _, stderr) = run(&[&["--threads", "0"][..], &local].concat());
    assert_eq!(code, 2);
    assert!(stderr.contains("--threads must be at least 1"), "{stderr}");
    let (code, _, stderr) = run(&["--threads", "2"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--threads goes with --provider local"),
        "{stderr}"
    );
    // A count in range: what is missing is the file.
    let (code, _, stderr) = run(&[&["--threads", "2"][..], &local].concat());
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot open the model file"), "{stderr}");
}

#[test]
fn shapes_lists_each_steps_shape_and_what_a_local_model_is_held_to() {
    let (code, out, err) = cli(&["shapes"], None);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let step = |name: &str| {
        lines
            .iter()
            .find(|l| l["step"] == name)
            .unwrap_or_else(|| panic!("{name} listed"))
    };
    // A provider gets one object; a verdict that must agree with its
    // findings is held by its two cases.
    for name in ["travel.critic", "act.production.check", "mael.critique"] {
        assert_eq!(step(name)["schema"]["type"], "object", "{name}");
        assert_eq!(
            step(name)["held"]["anyOf"].as_array().map(Vec::len),
            Some(2),
            "{name}"
        );
    }
    assert!(step("act.plus.rescore")["held"].is_null());
    let (code, out, _) = cli(&["shapes", "--largest"], None);
    assert_eq!(code, 0);
    assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok());
    // The text protocol's grammar names every travel tool.
    let (code, out, _) = cli(&["shapes", "--grammar"], None);
    assert_eq!(code, 0);
    assert!(out.starts_with("start: REPLY\n"), "{out}");
    for tool in ["FlightSearch", "AccommodationSearch", "CitySearch"] {
        assert!(out.contains(&format!("{tool}\\[")), "{tool}: {out}");
    }
}
