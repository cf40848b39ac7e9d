//! One travel run's plan and metrics as CSV: a demo-model run of the
//! orchestrator on built-in query 1, with a failing check placed on a day
//! and model text that looks like a spreadsheet formula.

use crate::common::*;
use roundtable::engine::coordinators::travel::contract::{ToolMode, Variant};
use roundtable::engine::coordinators::travel::report::run_export::{metrics_csv, plan_csv};

#[test]
fn plan_and_metrics_export_as_csv_with_failures_on_their_days() {
    let (_, events) = run(Variant::Orchestrator, query(1), ToolMode::Native);
    let mut e = evaluation(&events);
    let plan = e.plan.clone().expect("a plan");
    let clean = plan_csv(&plan, Some(&e)).expect("plan csv");
    let lines: Vec<&str> = clean.lines().collect();
    assert_eq!(lines.len(), 4, "header + 3 days:\n{clean}");
    assert!(lines[0].starts_with("Day,Current city,Transportation"));
    assert!(lines[0].ends_with(",Failed checks"));
    assert!(lines[1..].iter().all(|l| l.ends_with(',')), "nothing fails");
    // A failing check that names day 2 is listed on day 2 only.
    e.commonsense[0].pass = Some(false);
    e.commonsense[0].cells = vec![(1, "lunch".into())];
    let name = e.commonsense[0].name.clone();
    let marked = plan_csv(&plan, Some(&e)).expect("plan csv");
    let rows: Vec<&str> = marked.lines().collect();
    assert!(rows[2].ends_with(&name), "{marked}");
    assert!(!rows[1].contains(&name) && !rows[3].contains(&name));
    // Model text that looks like a formula is defused.
    let mut hostile = plan.clone();
    hostile[0]["breakfast"] = serde_json::json!("=HYPERLINK(\"http://x\")");
    assert!(plan_csv(&hostile, None)
        .expect("csv")
        .contains("\"'=HYPERLINK"));
    assert!(plan_csv(&serde_json::json!("not a plan"), None).is_err());
    // Metrics: every check once, with its verdict, and the pass rules.
    let m = metrics_csv(&e);
    assert!(m.starts_with("group,key,name,value,message\n"));
    let checks = e.commonsense.len() + e.hard.len();
    let verdict_lines = m
        .lines()
        .filter(|l| l.starts_with("commonsense,") || l.starts_with("hard,"))
        .count();
    assert_eq!(verdict_lines, checks);
    assert!(m.contains(&format!("commonsense,{},{name},fail", e.commonsense[0].key)));
    assert!(m.contains("run,final_pass,Final pass,"));
}
