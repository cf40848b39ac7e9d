//! An evaluation against the official evaluator's verdicts, as a parity
//! case records them (`eval_cases_public.jsonl` in the shared TravelPlanner
//! data: `query_idx`, `plan`, `official.commonsense` / `official.hard`).
//! The native parity test and the in-browser benchmark both compare
//! through here, verdict by verdict.

use super::{Check, PlanEvaluation, Verdict};
use crate::engine::domains::travel::{Plan, Query};
use serde_json::Value;

/// The query and plan of one case.
pub fn case_input(case: &Value, queries: &[Query]) -> Result<(Query, Plan), String> {
    let idx = case["query_idx"]
        .as_u64()
        .ok_or("a case without query_idx")?;
    let query = queries
        .iter()
        .find(|q| u64::from(q.idx) == idx)
        .ok_or_else(|| format!("case for unknown query {idx}"))?;
    Ok((query.clone(), Plan::from_json(&case["plan"])?))
}

/// Verdicts as the official evaluator writes them: `{check: [passed, message]}`, or null.
pub fn verdicts_json(list: Option<&[(Check, Verdict)]>) -> Value {
    match list {
        None => Value::Null,
        Some(l) => Value::Object(
            l.iter()
                .map(|(c, v)| (c.key().to_string(), v.to_json()))
                .collect(),
        ),
    }
}

/// How many verdicts were compared, and each that differs.
#[derive(Debug, Default)]
pub struct Comparison {
    pub compared: usize,
    pub mismatches: Vec<String>,
}

/// Compares `ours` with the case's official verdicts, check by check.
pub fn compare_with_official(case: &Value, ours: &PlanEvaluation) -> Comparison {
    let mut out = Comparison::default();
    let name = format!("{} ({})", case["case_id"], case["mutation"]);
    for (part, got) in [
        ("commonsense", verdicts_json(ours.commonsense.as_deref())),
        ("hard", verdicts_json(ours.hard.as_deref())),
    ] {
        let want = &case["official"][part];
        match (want, &got) {
            (Value::Object(w), Value::Object(g)) => {
                if w.len() != g.len() {
                    out.mismatches.push(format!(
                        "{name} {part}: official has {} checks, ours {}",
                        w.len(),
                        g.len()
                    ));
                }
                for (k, wv) in w {
                    out.compared += 1;
                    if g.get(k) != Some(wv) {
                        out.mismatches.push(format!(
                            "{name} {k}: official {wv}, ours {}",
                            g.get(k).unwrap_or(&Value::Null)
                        ));
                    }
                }
            }
            (w, g) if w == g => out.compared += 1,
            (w, g) => out
                .mismatches
                .push(format!("{name} {part}: official {w}, ours {g}")),
        }
    }
    out
}
