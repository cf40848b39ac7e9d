//! The CLI's ACT commands with the demo model (runs with tools: tools_cli.rs): a run of a built-in trial,
//! ACT+ writing and reading its bank, a batch with the paper's tables, and
//! bad input (an imported set, a bank file) refused with a clear message.

pub(crate) fn roundtable(args: &[&str]) -> (i32, String, String) {
    crate::mock::cli(args, None)
}

pub(crate) fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("roundtable-act-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// `run --coordinator act --variant act-plus` on trial `idx` with `bank`.
fn act_plus<'a>(idx: &'a str, bank: &'a str) -> Vec<&'a str> {
    vec![
        "run",
        "--coordinator",
        "act",
        "--variant",
        "act-plus",
        "--task-idx",
        idx,
        "--bank",
        bank,
        "--quiet",
    ]
}

#[test]
fn a_built_in_trial_runs_and_its_file_holds_the_result() {
    let out = temp("run.json");
    let path = out.to_string_lossy().to_string();
    let (code, _, err) = roundtable(&[
        "run",
        "--coordinator",
        "act",
        "--dataset",
        "builtin",
        "--task-idx",
        "2",
        "--quiet",
        "--out",
        &path,
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).expect("run file");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["config"]["coordinator"], "act");
    assert!(text.contains("\"store\": \"result\""));
    assert!(text.contains("\"phase\": \"break_time\""));
}

#[test]
fn act_plus_writes_its_bank_and_the_next_run_takes_it_over() {
    let bank = temp("bank.json");
    let path = bank.to_string_lossy().to_string();
    let _ = std::fs::remove_file(&bank);
    for idx in ["0", "5"] {
        let (code, _, err) = roundtable(&act_plus(idx, &path));
        assert_eq!(code, 0, "{err}");
    }
    let data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&bank).expect("bank")).expect("json");
    assert_eq!(data["format"], "roundtable-act-bank");
    assert_eq!(data["trials"], 2);
    std::fs::write(&bank, "{\"format\": \"something else\"}").expect("write");
    let (code, _, err) = roundtable(&[
        "run",
        "--coordinator",
        "act",
        "--variant",
        "act-plus",
        "--bank",
        &path,
        "--quiet",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("not an ACT knowledge bank"), "{err}");
    let (code, _, err) = roundtable(&["run", "--coordinator", "act", "--bank", &path]);
    assert_eq!(code, 2);
    assert!(err.contains("--bank goes with --variant act-plus"), "{err}");
}

#[test]
fn a_batch_prints_the_papers_tables_as_text_and_a_bad_set_is_refused() {
    // Its JSON tables: tests/act/batch.rs.
    let (code, out, _) = roundtable(&[
        "act-batch",
        "--variants",
        "baseline",
        "--trials",
        "1",
        "--quiet",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("ROUGE-L") && out.contains("tokens per phase"),
        "{out}"
    );
    // The column, and the breakdown by step kind: the demo repairs nothing.
    let row = out
        .lines()
        .find(|l| l.starts_with("baseline "))
        .expect("row");
    assert!(row.contains(" 0 of "), "{out}");
    assert!(out.contains("\nReplies repaired by step kind "), "{out}");

    let bad = temp("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"subject\": \"s\", \"solutions\": [\"r\"]}\n{\"subject\": \"t\"}\n",
    )
    .expect("write");
    let path = bad.to_string_lossy().to_string();
    let (code, _, err) = roundtable(&["run", "--coordinator", "act", "--dataset", &path]);
    assert_eq!(code, 2);
    assert!(err.contains("line 2: not a task"), "{err}");
    let (code, _, err) = roundtable(&["run", "--coordinator", "act", "--variant", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown ACT variant \"nope\""), "{err}");
}

#[test]
fn act_plus_assigns_tasks_by_provider_embeddings_and_keeps_the_key_out_of_files() {
    let mock = super::mock::start_mock();
    let url = format!("{}/v1", mock.url);
    let bank = temp("http-bank.json");
    let bank_path = bank.to_string_lossy().to_string();
    let _ = std::fs::remove_file(&bank);
    let out = temp("http-run.json");
    let out_path = out.to_string_lossy().to_string();
    for idx in ["0", "5"] {
        let mut args = act_plus(idx, &bank_path);
        args.extend([
            "--embedding-model",
            "mock-embed",
            "--embedding-url",
            &url,
            "--out",
            &out_path,
        ]);
        let (code, _, err) = super::mock::cli(&args, Some("sk-act-secret"));
        assert_eq!(code, 0, "{err}");
    }
    let run = std::fs::read_to_string(&out).expect("run file");
    assert!(
        run.contains("\"store\": \"assignment\""),
        "the second task was assigned"
    );
    assert!(
        run.contains("custom:mock-embed (16 dims)"),
        "the embedder is named"
    );
    for file in [&run, &std::fs::read_to_string(&bank).expect("bank")] {
        assert!(!file.contains("sk-act-secret"));
    }
    let log = super::mock::requests(&mock);
    let embeds: Vec<&serde_json::Value> = log
        .iter()
        .filter(|l| l["path"] == "/v1/embeddings")
        .collect();
    assert!(
        embeds.len() >= 3,
        "probes, then tasks and keywords ({})",
        embeds.len()
    );
    assert!(embeds
        .iter()
        .all(|l| l["headers"]["authorization"] == "Bearer sk-act-secret"));
}

#[test]
fn a_token_cap_stops_a_run_cleanly_and_a_batch_cap_is_shared() {
    let out = temp("capped.json");
    let path = out.to_string_lossy().to_string();
    let (code, _, _) = roundtable(&[
        "run",
        "--coordinator",
        "act",
        "--task-idx",
        "1",
        "--token-cap",
        "8000",
        "--quiet",
        "--out",
        &path,
    ]);
    assert_eq!(code, 1, "a stopped run is not a success");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("run file")).expect("json");
    assert_eq!(doc["config"]["spend_cap"]["tokens"], 8000);
    let events = doc["events"].as_array().expect("events");
    let last = &events[events.len() - 1]["event"];
    assert_eq!(last["run_failed"]["reason"]["kind"], "spend_cap", "{last}");
    assert!(last["run_failed"]["reason"]["message"]
        .as_str()
        .unwrap_or("")
        .contains("token cap of 8000"));
    let requests = events
        .iter()
        .filter(|e| e["event"].get("llm_request").is_some())
        .count();
    let responses = events
        .iter()
        .filter(|e| e["event"].get("llm_response").is_some())
        .count();
    let used: u64 = events
        .iter()
        .filter_map(|e| e["event"]["llm_response"]["response"]["usage"].as_object())
        .map(|u| u["input_tokens"].as_u64().unwrap_or(0) + u["output_tokens"].as_u64().unwrap_or(0))
        .sum();
    // The cap stops calls by their estimate: what they then really used may
    // differ a little, never by a whole call's worth.
    assert!(used <= 8000 + 800, "{used} tokens used");
    assert_eq!(requests, responses, "stopped before a call, not during one");
    // A batch cap: the first runs finish, the later ones stop.
    let (code, json, err) = roundtable(&[
        "act-batch",
        "--variants",
        "baseline",
        "--trials",
        "4",
        "--token-cap",
        "12000",
        "--json",
        "--quiet",
    ]);
    assert_eq!(code, 1, "{err}");
    let rep: serde_json::Value = serde_json::from_str(&json).expect("json");
    let scored = rep["rows"][0]["scored"].as_u64().unwrap_or(0);
    assert!(
        (1..4).contains(&scored),
        "some runs finished before the cap ({scored})"
    );
}

#[test]
fn mixed_communities_draw_each_members_task_from_another_community() {
    use roundtable::engine::domains::creative::builtin;
    let out = temp("mixed.json");
    let path = out.to_string_lossy().to_string();
    let (code, _, err) = roundtable(&[
        "run",
        "--coordinator",
        "act",
        "--variant",
        "baseline",
        "--task-idx",
        "3",
        "--mixed-communities",
        "--quiet",
        "--out",
        &path,
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("run file")).expect("json");
    let task = &doc["config"]["options"]["task"];
    assert_eq!(task["id"], "builtin-mixed-3");
    let items = builtin::items();
    let mut communities: Vec<String> = task["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .map(|p| {
            items
                .iter()
                .find(|i| p["subject"] == i.subject.as_str())
                .map(|i| i.community.clone())
                .expect("a built-in item")
        })
        .collect();
    assert_eq!(communities.len(), 4);
    communities.sort();
    communities.dedup();
    assert_eq!(communities.len(), 4, "four communities");
    // The same draw as the engine's, which the page can use too.
    let drawn = builtin::draw(3, &builtin::Draw::Mixed, 4);
    assert_eq!(
        task["text"].as_str(),
        Some(drawn.text.as_str()),
        "fixed per trial"
    );
    // Refused with a community, with another set, or with a typed task.
    for (args, says) in [
        (
            vec!["--mixed-communities", "--community", "tea"],
            "not both",
        ),
        (
            vec!["--mixed-communities", "--dataset", "trivia"],
            "goes with the built-in set",
        ),
        (
            vec!["--mixed-communities", "--task", "Design a cafe."],
            "not both",
        ),
    ] {
        let mut all = vec!["run", "--coordinator", "act", "--quiet"];
        all.extend(args);
        let (code, _, err) = roundtable(&all);
        assert_eq!(code, 2, "{all:?}");
        assert!(err.contains(says), "{all:?}: {err}");
    }
}
