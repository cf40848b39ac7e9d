//! `roundtable travel-eval` end to end: the built binary on the built-in
//! world, on bad input, and (tests named `shared_*`) on the public parity
//! cases and the 45 gold plans of the shared fixtures.

use roundtable::engine::domains::travel::builtin::builtin_queries;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn travelplanner_dir() -> PathBuf {
    let base = std::env::var("ROUNDTABLE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let dir = base.join("travelplanner");
    assert!(
        dir.join("eval_cases_public.jsonl").is_file() && dir.join("database").is_dir(),
        "the shared TravelPlanner data is missing: expected {} (set ROUNDTABLE_SHARED to the folder holding travelplanner/)",
        dir.display()
    );
    dir
}

fn temp_file(name: &str, content: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("roundtable-travel-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, content).expect("write temp file");
    path
}

fn travel_eval(db: &str, queries: &str, plans: &Path, json: bool) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_roundtable"));
    cmd.args(["travel-eval", "--db", db, "--queries", queries, "--plans"])
        .arg(plans);
    if json {
        cmd.arg("--json");
    }
    let out = cmd.output().expect("run roundtable");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[test]
fn builtin_reference_plans_pass_through_the_cli() {
    let lines: Vec<String> = builtin_queries()
        .iter()
        .map(|q| {
            let plan = q.annotated_plan.as_ref().expect("plan").to_json();
            json!({"idx": q.idx, "plan": plan}).to_string()
        })
        .collect();
    let plans = temp_file("builtin_plans.jsonl", &lines.join("\n"));
    let (code, out, err) = travel_eval("builtin", "builtin", &plans, true);
    assert_eq!(code, 0, "{err}");
    let rows = json_lines(&out);
    assert_eq!(rows.len(), 13);
    assert_eq!(rows[0]["id"], json!(1));
    let summary = &rows[12]["summary"];
    assert_eq!(summary["final_pass_rate"], json!(1.0));
    assert_eq!(summary["denominators"]["source"], json!("computed"));
    let (code, table, _) = travel_eval("builtin", "builtin", &plans, false);
    assert_eq!(code, 0);
    assert!(
        table.contains("Final Pass Rate:                        100.00%"),
        "{table}"
    );
}

#[test]
fn llm_text_plans_and_empty_plans() {
    let q = &builtin_queries()[0];
    let plan = q.annotated_plan.as_ref().expect("plan").to_json();
    let prose = format!("Here is your plan:\n```json\n{plan}\n```\nHave a nice trip!");
    let text = [
        json!({"idx": 1, "case_id": "prose", "plan": prose}).to_string(),
        json!({"query_idx": 1, "case_id": "empty", "plan": []}).to_string(),
    ]
    .join("\n");
    let plans = temp_file("text_plans.jsonl", &text);
    let (code, out, err) = travel_eval("builtin", "builtin", &plans, true);
    assert_eq!(code, 0, "{err}");
    let rows = json_lines(&out);
    assert_eq!(rows[0]["id"], json!("prose"));
    assert_eq!(rows[0]["commonsense"]["is_not_absent"], json!([true, null]));
    assert_eq!(rows[1]["commonsense"], Value::Null);
    assert_eq!(rows[2]["summary"]["delivered"], json!(1));
    let (_, table, _) = travel_eval("builtin", "builtin", &plans, false);
    assert!(
        table.contains("not delivered: the plan is an empty list"),
        "{table}"
    );
}

#[test]
fn bad_lines_name_file_and_line_and_fail() {
    let plans = temp_file(
        "bad_plans.jsonl",
        "{\"idx\": 1, \"plan\": []}\n\n{not json\n",
    );
    let (code, _, err) = travel_eval("builtin", "builtin", &plans, true);
    assert_ne!(code, 0);
    assert!(
        err.contains("bad_plans.jsonl line 3: not valid JSON"),
        "{err}"
    );
    let plans = temp_file("unknown_query.jsonl", "{\"idx\": 77, \"plan\": []}\n");
    let (code, _, err) = travel_eval("builtin", "builtin", &plans, false);
    assert_ne!(code, 0);
    assert!(
        err.contains("line 1: query 77 is not in the queries file"),
        "{err}"
    );
    let (code, _, err) = travel_eval("/nonexistent/db", "builtin", &plans, false);
    assert_ne!(code, 0);
    assert!(err.contains("/nonexistent/db"), "{err}");
}

#[test]
fn shared_cli_matches_recorded_verdicts_on_public_cases() {
    let dir = travelplanner_dir();
    let cases: Vec<Value> = std::fs::read_to_string(dir.join("eval_cases_public.jsonl"))
        .expect("cases")
        .lines()
        .map(|l| serde_json::from_str(l).expect("case"))
        .collect();
    let (code, out, err) = travel_eval(
        &dir.join("database").to_string_lossy(),
        &dir.join("train_queries.jsonl").to_string_lossy(),
        &dir.join("eval_cases_public.jsonl"),
        true,
    );
    assert_eq!(code, 0, "{err}");
    let rows = json_lines(&out);
    assert_eq!(rows.len(), cases.len() + 1);
    for (row, case) in rows.iter().zip(&cases) {
        assert_eq!(row["id"], case["case_id"]);
        assert_eq!(
            row["commonsense"], case["official"]["commonsense"],
            "{}",
            case["case_id"]
        );
        assert_eq!(row["hard"], case["official"]["hard"], "{}", case["case_id"]);
    }
    assert_eq!(rows[cases.len()]["summary"]["plans"], json!(225));
}

#[test]
fn shared_cli_uses_eval_py_denominators_for_the_train_split() {
    let dir = travelplanner_dir();
    let queries = std::fs::read_to_string(dir.join("train_queries.jsonl")).expect("queries");
    let lines: Vec<String> = queries
        .lines()
        .map(|l| {
            let q: Value = serde_json::from_str(l).expect("query");
            json!({"idx": q["idx"], "plan": q["annotated_plan"]}).to_string()
        })
        .collect();
    let plans = temp_file("gold.jsonl", &lines.join("\n"));
    let (code, out, err) = travel_eval(
        &dir.join("database").to_string_lossy(),
        &dir.join("train_queries.jsonl").to_string_lossy(),
        &plans,
        true,
    );
    assert_eq!(code, 0, "{err}");
    let rows = json_lines(&out);
    let s = &rows[45]["summary"];
    assert_eq!(s["denominators"]["source"], json!("official_split"));
    assert_eq!(s["denominators"]["commonsense"], json!(360));
    assert_eq!(s["denominators"]["hard"], json!(105));
    for key in [
        "delivery_rate",
        "commonsense_micro_pass_rate",
        "commonsense_macro_pass_rate",
        "hard_micro_pass_rate",
        "hard_macro_pass_rate",
        "final_pass_rate",
    ] {
        assert_eq!(s[key], json!(1.0), "{key}");
    }
}
