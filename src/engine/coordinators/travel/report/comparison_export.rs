//! A batch of travel runs as files: one CSV row per run, a CSV of the
//! aggregate rates per group, and JSON holding both. Text fields go through
//! `export::csv_field` (quoting, and spreadsheet formulas defused: group
//! names and reasons can come from users and models).

use super::comparison::{
    batch_groups, rate_rows, Area, BatchEntry, ERROR_CATEGORIES, NO_EVALUATION,
};
use crate::engine::coordinators::travel::contract::{RunEvaluation, VerdictRecord, EXPERTS};
use crate::engine::views::export::csv_field;
use serde_json::{json, Value};

fn passed(v: &[VerdictRecord]) -> usize {
    v.iter().filter(|x| x.pass == Some(true)).count()
}

fn evaluated(v: &[VerdictRecord]) -> usize {
    v.iter().filter(|x| x.pass.is_some()).count()
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x}")).unwrap_or_default()
}

fn revisits_of(e: &RunEvaluation, expert: &str) -> u32 {
    e.revisits
        .iter()
        .filter(|(x, _)| x == expert)
        .map(|(_, c)| *c)
        .sum()
}

/// One row per run (a run without an evaluation has its columns empty,
/// `delivered` false, and the reason in `not_delivered`).
pub fn batch_csv(runs: &[BatchEntry]) -> String {
    let mut out = String::from(
        "group,variant,query_idx,level,delivered,commonsense_passed,commonsense_evaluated,hard_passed,hard_evaluated,commonsense_pass,hard_pass,final_pass",
    );
    for e in EXPERTS {
        out.push_str(&format!(",revisits_{e}"));
    }
    out.push_str(
        ",hallucinations,total_cost,budget,cost_usd,tokens,steps,replies,repaired,not_delivered\n",
    );
    for r in runs {
        let mut row = vec![csv_field(&r.group)];
        match &r.evaluation {
            Some(e) => {
                row.extend([
                    e.variant.id().to_string(),
                    e.query_idx.to_string(),
                    csv_field(&e.level),
                    e.delivered.to_string(),
                    passed(&e.commonsense).to_string(),
                    evaluated(&e.commonsense).to_string(),
                    passed(&e.hard).to_string(),
                    evaluated(&e.hard).to_string(),
                    e.commonsense_pass.to_string(),
                    e.hard_pass.to_string(),
                    e.final_pass.to_string(),
                ]);
                row.extend(EXPERTS.iter().map(|x| revisits_of(e, x).to_string()));
                row.extend([e.hallucinations.len().to_string(), opt(e.total_cost)]);
            }
            None => {
                row.extend([
                    String::new(),
                    r.query.idx.to_string(),
                    csv_field(r.query.level.as_str()),
                    "false".into(),
                ]);
                row.extend(std::iter::repeat_n(String::new(), 7 + EXPERTS.len() + 2));
            }
        }
        let reason = match &r.evaluation {
            Some(e) => e.not_delivered.clone().unwrap_or_default(),
            None => NO_EVALUATION.to_string(),
        };
        row.extend([
            opt(Some(r.query.budget)),
            opt(r.cost_usd),
            r.tokens.map(|t| t.to_string()).unwrap_or_default(),
            r.evaluation
                .as_ref()
                .map(|e| e.steps.to_string())
                .unwrap_or_default(),
            r.repairs.replies.to_string(),
            r.repairs.repaired.to_string(),
            csv_field(&reason),
        ]);
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// One row per group: runs, the six rates (%), revisits and failed
/// constraints per area, replies and repaired replies.
pub fn batch_summary_csv(runs: &[BatchEntry]) -> String {
    let groups = batch_groups(runs);
    let mut out = String::from("group,runs");
    if let Some(g) = groups.first() {
        for (label, _) in rate_rows(&g.summary) {
            out.push(',');
            out.push_str(&csv_field(label));
        }
    }
    for e in EXPERTS {
        out.push_str(&format!(",avg_revisits_{e}"));
    }
    for a in Area::ALL {
        out.push_str(&format!(",failed_pct_{}", a.expert()));
    }
    out.push_str(",replies,repaired,unreadable\n");
    for g in &groups {
        let mut row = vec![csv_field(&g.group), g.runs.to_string()];
        row.extend(
            rate_rows(&g.summary)
                .iter()
                .map(|(_, r)| format!("{:.2}", r * 100.0)),
        );
        row.extend(g.revisits.iter().map(|(_, v)| format!("{v:.2}")));
        row.extend(
            g.areas
                .iter()
                .map(|(_, t)| t.percent().map(|p| format!("{p:.2}")).unwrap_or_default()),
        );
        row.extend([
            g.repairs.replies.to_string(),
            g.repairs.repaired.to_string(),
            g.repairs.unreadable.to_string(),
        ]);
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// The groups' aggregates (eval.py's summary per group, revisits, areas,
/// hallucinations, mean cost, replies and repaired replies) and every
/// run's evaluation, replies and repaired replies.
pub fn batch_json(runs: &[BatchEntry]) -> Value {
    let groups: Vec<Value> = batch_groups(runs)
        .iter()
        .map(|g| {
            json!({
                "group": g.group,
                "runs": g.runs,
                "summary": g.summary.to_json(),
                "avg_revisits": g.revisits.iter().map(|(e, v)| (e.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
                "failed_constraints": g.areas.iter().map(|(a, t)| (a.expert().to_string(), json!({
                    "failed": t.failed, "evaluated": t.evaluated, "percent": t.percent()
                }))).collect::<serde_json::Map<_, _>>(),
                "hallucinations": g.hallucinations.iter().map(|(c, n)| (c.clone(), json!(n))).collect::<serde_json::Map<_, _>>(),
                "mean_cost_usd": g.mean_cost_usd,
                "mean_tokens": g.mean_tokens,
                "replies": g.repairs.replies,
                "repaired": g.repairs.repaired,
            })
        })
        .collect();
    let per_run: Vec<Value> = runs
        .iter()
        .map(|r| {
            json!({
                "group": r.group,
                "query_idx": r.query.idx,
                "budget": r.query.budget,
                "cost_usd": r.cost_usd,
                "tokens": r.tokens,
                "replies": r.repairs.replies,
                "repaired": r.repairs.repaired,
                "evaluation": r.evaluation.as_ref().and_then(|e| serde_json::to_value(e).ok()),
            })
        })
        .collect();
    let mapping: Vec<Value> = ERROR_CATEGORIES
        .iter()
        .map(|c| {
            json!({
                "category": c.name,
                "area": c.area.label(),
                "check": c.check.key(),
                "fields": c.fields.map(|f| f.iter().map(|x| x.key()).collect::<Vec<_>>()),
            })
        })
        .collect();
    json!({ "groups": groups, "runs": per_run, "error_categories": mapping })
}
