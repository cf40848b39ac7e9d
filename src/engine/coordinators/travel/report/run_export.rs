//! One travel run's tables as CSV: the evaluated plan (one row per day,
//! with the checks that fail on each day) and its metrics (every check with
//! its verdict and message, then the run's figures). Text goes through
//! `export::csv_field` (plans and messages come from models).

use crate::engine::coordinators::travel::contract::{RunEvaluation, VerdictRecord};
use crate::engine::coordinators::travel::html::plan::PLAN_COLUMNS;
use crate::engine::domains::travel::{Field, Plan};
use crate::engine::views::export::csv_field;
use serde_json::Value;

/// The plan day by day; `evaluation` adds a column naming the checks that
/// fail on each day. An unreadable plan is an error that says why.
pub fn plan_csv(plan: &Value, evaluation: Option<&RunEvaluation>) -> Result<String, String> {
    let parsed = Plan::from_json(plan)?;
    let mut out = PLAN_COLUMNS.join(",");
    if evaluation.is_some() {
        out.push_str(",Failed checks");
    }
    out.push('\n');
    for (i, day) in parsed.days.iter().enumerate() {
        let mut row: Vec<String> = Field::ALL
            .iter()
            .map(|f| csv_field(&day.get(*f).map(|c| c.display()).unwrap_or_default()))
            .collect();
        if let Some(e) = evaluation {
            let failing: Vec<&str> = e
                .commonsense
                .iter()
                .chain(&e.hard)
                .filter(|v| v.pass == Some(false) && v.cells.iter().any(|(d, _)| *d == i))
                .map(|v| v.name.as_str())
                .collect();
            row.push(csv_field(&failing.join("; ")));
        }
        out.push_str(&row.join(","));
        out.push('\n');
    }
    Ok(out)
}

fn verdict_rows(out: &mut String, group: &str, records: &[VerdictRecord]) {
    for v in records {
        let verdict = match v.pass {
            Some(true) => "pass",
            Some(false) => "fail",
            None => "n/a",
        };
        out.push_str(&format!(
            "{group},{},{},{verdict},{}\n",
            csv_field(&v.key),
            csv_field(&v.name),
            csv_field(v.message.as_deref().unwrap_or(""))
        ));
    }
}

/// Every check with its verdict, then delivery, the pass rules, cost,
/// revisits and hallucinated entities.
pub fn metrics_csv(e: &RunEvaluation) -> String {
    let mut out = String::from("group,key,name,value,message\n");
    let yes = |b: bool| if b { "pass" } else { "fail" };
    out.push_str(&format!(
        "run,delivered,Delivered,{},{}\n",
        yes(e.delivered),
        csv_field(e.not_delivered.as_deref().unwrap_or(""))
    ));
    verdict_rows(&mut out, "commonsense", &e.commonsense);
    verdict_rows(&mut out, "hard", &e.hard);
    for (key, name, ok) in [
        ("commonsense_pass", "Commonsense pass", e.commonsense_pass),
        ("hard_pass", "Hard pass", e.hard_pass),
        ("final_pass", "Final pass", e.final_pass),
    ] {
        out.push_str(&format!("run,{key},{name},{},\n", yes(ok)));
    }
    if let Some(c) = e.total_cost {
        out.push_str(&format!("run,total_cost,Total cost,{c},\n"));
    }
    for (expert, n) in &e.revisits {
        out.push_str(&format!(
            "revisits,{},{},{n},\n",
            csv_field(expert),
            csv_field(expert)
        ));
    }
    out.push_str(&format!(
        "run,hallucinations,Hallucinated entities,{},{}\n",
        e.hallucinations.len(),
        csv_field(
            &e.hallucinations
                .iter()
                .map(|h| format!("{}: {}", h.category, h.entity))
                .collect::<Vec<_>>()
                .join("; ")
        )
    ));
    out
}
