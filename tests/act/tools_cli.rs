//! The CLI's ACT runs with AgentVerse's tools (§4.3) on the demo model:
//! the notebook and the workspace, the web through a local SearXNG-speaking
//! server, `--dataset agentverse-tools` for one task and for a batch.

use super::cli::{roundtable, temp};

/// A run file's `completion_rate` score (the tool judge's), its whole event.
fn completion_rate(doc: &serde_json::Value) -> Option<serde_json::Value> {
    doc["events"].as_array()?.iter().find_map(|e| {
        e["event"]
            .get("score_computed")
            .filter(|s| s["name"] == "completion_rate")
            .cloned()
    })
}

/// A tool task (§4.3) on the demo: every AgentVerse tool asked for; the
/// shell and the web are listed as not offered, the notebook runs its cells
/// in CPython (in order, each seeing the kernel the cells before it left),
/// the file system writes the run's workspace, and each member submits.
#[test]
fn a_tool_task_writes_the_workspace_and_runs_the_notebook() {
    assert!(
        std::process::Command::new("python3")
            .arg("--version")
            .output()
            .is_ok(),
        "the notebook runs in CPython: python3 must be on the PATH"
    );
    let out = temp("tools.json");
    let path = out.to_string_lossy().to_string();
    let (code, _, err) = roundtable(&[
        "run",
        "--coordinator",
        "act",
        "--task",
        "Plan a small book club for four friends: pick a first book and a meeting schedule.",
        "--tools",
        "agentverse",
        "--quiet",
        "--out",
        &path,
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("run file")).expect("json");
    let events = doc["events"].as_array().expect("events");
    let of = |kind: &str| -> Vec<&serde_json::Value> {
        events.iter().filter_map(|e| e["event"].get(kind)).collect()
    };
    let instruct = of("llm_request")
        .into_iter()
        .find(|r| r["request"]["step"] == "act.production.instruct")
        .and_then(|r| r["request"]["messages"].as_array()?.last()?["content"].as_str())
        .expect("an instruct step")
        .to_string();
    assert!(
        instruct.contains("- shell_command_executor: not offered"),
        "{instruct}"
    );
    assert!(
        instruct.contains("- WebEnv_search_and_browse: not offered (no search endpoint"),
        "{instruct}"
    );
    // Its reply is held to the offered tools' arguments.
    let schema = of("llm_request")
        .into_iter()
        .find(|r| r["request"]["step"] == "act.production.instruct")
        .map(|r| r["request"]["params"]["schema"]["schema"].clone())
        .expect("a schema");
    assert!(schema.to_string().contains("\"filepath\""), "{schema}");
    let cells: Vec<&str> = of("tool_returned")
        .iter()
        .filter_map(|t| t["output"].as_str())
        .filter(|o| o.starts_with("cell_index: "))
        .collect();
    // One production round (the demo leader accepts the first draft): a
    // cell per member, one notebook for the run, each cell after the last.
    assert_eq!(cells.len(), 4, "{cells:?}");
    // Each cell is stopped at the runner's 3 s like any run: on a loaded
    // machine the interpreter's start can take that, and the member is told
    // so; the cells' order and the notebook's own outputs must hold.
    for (i, c) in cells.iter().enumerate() {
        assert!(
            c.starts_with(&format!("cell_index: {i}\n"))
                && (c.ends_with(" words")
                    || c.ends_with("(stopped after 3 s: the cell was still running)")),
            "{cells:?}"
        );
    }
    assert!(cells.iter().any(|c| c.ends_with(" words")), "{cells:?}");
    let files: Vec<&str> = of("file_written")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert!(files.contains(&"notes/agent-a.md"), "{files:?}");
    assert!(of("tool_returned").iter().any(|t| t["output"]
        .as_str()
        .is_some_and(|o| o.starts_with("submitted (finished)"))));
    assert!(events
        .last()
        .is_some_and(|e| e["event"].get("run_finished").is_some()));
}

/// The web tools through a search endpoint (a local server speaking
/// SearXNG's JSON API, never the internet): offered once it is set, the
/// demo searches on its task and reads the results.
#[test]
fn with_a_search_endpoint_the_web_tools_are_offered_and_searched() {
    let mock = crate::mock::start_mock();
    let out = temp("tools-web.json");
    let path = out.to_string_lossy().to_string();
    let (code, _, err) = roundtable(&[
        "run",
        "--coordinator",
        "act",
        "--task",
        "Find the top bestselling books this month for a book club.",
        "--tools",
        "WebEnv_search_and_browse,WebEnv_browse_website,FileSystemEnv_write_to_file",
        "--search-url",
        &mock.url,
        "--quiet",
        "--out",
        &path,
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("run file")).expect("json");
    let events = doc["events"].as_array().expect("events");
    let returned: Vec<&str> = events
        .iter()
        .filter_map(|e| e["event"].get("tool_returned")?["output"].as_str())
        .filter(|o| o.starts_with("Results for "))
        .collect();
    assert_eq!(returned.len(), 4, "a search per member: {returned:?}");
    assert!(
        returned[0].contains("1. Result 1 for ") && returned[0].contains("/pages/"),
        "{}",
        returned[0]
    );
    let searched: Vec<serde_json::Value> = crate::mock::requests(&mock)
        .into_iter()
        .filter(|r| r["path"] == "/search")
        .collect();
    assert_eq!(searched.len(), 4, "{searched:?}");
    assert!(searched.iter().all(|r| r["format"] == "json"));
    // Not offered without the endpoint: the listing says why.
    let (code, _, err) = roundtable(&[
        "run",
        "--coordinator",
        "act",
        "--task",
        "Find the top bestselling books this month for a book club.",
        "--tools",
        "WebEnv_search_and_browse,FileSystemEnv_write_to_file",
        "--quiet",
        "--out",
        &path,
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).expect("run file");
    assert!(text.contains("WebEnv_search_and_browse: not offered (no search endpoint"));
    assert!(
        !text.contains("\"tool\": \"WebEnv_search_and_browse\""),
        "never called"
    );
}

/// `--dataset agentverse-tools`: a task that needs the web is refused
/// before it starts without a search endpoint; one that does not runs with
/// every tool and the task's own team size.
#[test]
fn agentverse_tool_tasks_run_and_a_web_task_without_the_web_is_refused() {
    let file = temp("tool-tasks.jsonl");
    std::fs::write(
        &file,
        "{\"id\": \"bmi\", \"task\": \"I weigh 70kg and am 170cm tall. Calculate my BMI.\", \"agents\": 3}\n{\"id\": \"car\", \"task\": \"Compare the latest cars.\", \"agents\": 4}\n",
    )
    .expect("written");
    let data = file.to_string_lossy().to_string();
    let out = temp("tool-task.json");
    let path = out.to_string_lossy().to_string();
    let args = |idx: &'static str| {
        vec![
            "run".to_string(),
            "--coordinator".into(),
            "act".into(),
            "--dataset".into(),
            "agentverse-tools".into(),
            "--data".into(),
            data.clone(),
            "--task-idx".into(),
            idx.into(),
            "--quiet".into(),
            "--out".into(),
            path.clone(),
        ]
    };
    let run = |v: Vec<String>| {
        let a: Vec<&str> = v.iter().map(String::as_str).collect();
        roundtable(&a)
    };
    let (code, _, err) = run(args("1"));
    assert_ne!(code, 0);
    assert!(
        err.contains("The task \"car\" needs the web") && err.contains("--search-url"),
        "{err}"
    );
    let (code, _, err) = run(args("0"));
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("run file")).expect("json");
    let o = &doc["config"]["options"];
    assert_eq!(o["team_size"], 3, "AgentVerse's team size");
    assert_eq!(
        o["tools"].as_array().map(Vec::len),
        Some(10),
        "every tool asked for"
    );
    assert_eq!(o["task"]["id"], "agentverse:bmi");
    let text = doc.to_string();
    assert!(text.contains("cell_index: 0"), "the notebook ran");
    // Judged by the share of the question's sub-tasks the output completes.
    assert_eq!(o["judge"], true);
    let rate = completion_rate(&doc).expect("a completion rate");
    assert!(
        rate["value"]
            .as_f64()
            .is_some_and(|v| (0.0..=1.0).contains(&v)),
        "{rate}"
    );
    assert!(
        rate["detail"]["subtasks"].as_u64().is_some_and(|n| n >= 1),
        "{rate}"
    );
    // With a search endpoint the web task runs.
    let mock = crate::mock::start_mock();
    let mut with_web = args("1");
    with_web.extend(["--search-url".to_string(), mock.url.clone()]);
    let (code, _, err) = run(with_web);
    assert_eq!(code, 0, "{err}");
}

/// `act-batch --dataset agentverse-tools`: every task of the file with its
/// own team and every tool, the one that needs the web left out (named)
/// without a search endpoint; the table's "done%" is the mean of the
/// judge's completion rates, the same as the JSON's.
#[test]
fn a_batch_over_tool_tasks_reports_the_sub_tasks_done() {
    let file = temp("batch-tool-tasks.jsonl");
    std::fs::write(
        &file,
        "{\"id\": \"bmi\", \"task\": \"I weigh 70kg and am 170cm tall. Calculate my BMI.\", \"agents\": 3}\n{\"id\": \"car\", \"task\": \"Compare the latest cars.\", \"agents\": 4}\n{\"id\": \"sum\", \"task\": \"Add the numbers from 1 to 100 with code and explain the trick.\", \"agents\": 2, \"needs_web\": false}\n",
    )
    .expect("written");
    let data = file.to_string_lossy().to_string();
    let dir = temp("tool-batch");
    let _ = std::fs::remove_dir_all(&dir);
    let dir_s = dir.to_string_lossy().to_string();
    let batch = |extra: &[&str]| {
        let mut a = vec![
            "act-batch",
            "--dataset",
            "agentverse-tools",
            "--data",
            &data,
            "--variants",
            "act",
            "--quiet",
            "--out-dir",
            &dir_s,
        ];
        a.extend_from_slice(extra);
        roundtable(&a)
    };
    let (code, out, err) = batch(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("1 of 3 tasks left out, they need the web and no --search-url is given: car"),
        "{err}"
    );
    let header = out.lines().next().expect("header");
    let col = header
        .split_whitespace()
        .position(|c| c == "done%")
        .expect("done% column");
    let row: Vec<&str> = out
        .lines()
        .find(|l| l.starts_with("act "))
        .expect("row")
        .split_whitespace()
        .collect();
    assert_eq!(row[1], "2", "two runs: bmi and sum ({out})");
    let done: f64 = row[col].parse().expect("a figure");
    // The runs' own files: their teams, their tools, their rates.
    let mut rates = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("run files") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        let Some(o) = doc["config"].get("options") else {
            continue;
        };
        let team = match o["task"]["id"].as_str() {
            Some("agentverse:bmi") => 3,
            Some("agentverse:sum") => 2,
            other => panic!("an unexpected task {other:?}"),
        };
        assert_eq!(o["team_size"], team);
        assert_eq!(o["tools"].as_array().map(Vec::len), Some(10));
        let rate = completion_rate(&doc)
            .and_then(|r| r["value"].as_f64())
            .expect("a completion rate");
        rates.push(100.0 * rate);
    }
    assert_eq!(rates.len(), 2, "one file per run");
    let mean = rates.iter().sum::<f64>() / 2.0;
    assert!((done - mean).abs() < 0.006, "{done} vs {rates:?}");
    // With the web, all three; --trials 1 from --task-idx 1 is car alone.
    let mock = crate::mock::start_mock();
    let _ = std::fs::remove_dir_all(&dir);
    let (code, out, err) = batch(&[
        "--search-url",
        &mock.url,
        "--task-idx",
        "1",
        "--trials",
        "1",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("left out"), "{err}");
    let rep: serde_json::Value = serde_json::from_str(&out).expect("json report");
    assert_eq!(rep["rows"][0]["runs"], 1);
    assert!(rep["rows"][0]["completion"].as_f64().is_some(), "{rep}");
    assert!(crate::mock::requests(&mock)
        .iter()
        .any(|r| r["path"] == "/search"));
    // Only web tasks and no endpoint: refused, saying why.
    let (code, _, err) = batch(&["--task-idx", "1", "--trials", "1"]);
    assert_ne!(code, 0);
    assert!(err.contains("The task \"car\" needs the web"), "{err}");
}

/// The shared dataset's ten tasks, seven of them needing the web.
#[test]
fn shared_agentverse_tool_tasks_are_the_ten() {
    let base = std::env::var("ROUNDTABLE_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let path = base.join("datasets/agentverse_tools/tasks.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the shared dataset is missing: {} ({e})", path.display()));
    let tasks =
        roundtable::engine::domains::agentverse::tasks::parse(&text, "tasks.jsonl").expect("read");
    assert_eq!(tasks.len(), 10);
    assert_eq!(tasks.iter().filter(|t| t.needs_web).count(), 7);
    let ids: Vec<&str> = tasks
        .iter()
        .filter(|t| !t.needs_web)
        .map(|t| t.id.as_str())
        .collect();
    assert_eq!(ids, ["24point", "bmi", "sudoku"]);
}
