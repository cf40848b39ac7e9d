//! `roundtable travel-eval`: evaluates TravelPlanner plans against queries
//! with the official checks, per plan and in aggregate.

use lexopt::prelude::*;
use roundtable::engine::domains::travel::{
    aggregate, evaluate, parse_queries_jsonl, plan_field, Check, DataError, NotDelivered, Plan,
    PlanEvaluation, Query, Summary, TravelDb,
};
use serde_json::Value;
use std::io::Write;
use std::path::Path;

#[derive(Debug, Default, PartialEq)]
pub struct TravelEvalArgs {
    pub db: String,
    pub queries: String,
    pub plans: String,
    pub json: bool,
}

fn text(p: &mut lexopt::Parser) -> Result<String, String> {
    p.value()
        .map_err(|e| e.to_string())?
        .string()
        .map_err(|e| e.to_string())
}

pub fn parse_args(p: &mut lexopt::Parser) -> Result<TravelEvalArgs, String> {
    let mut a = TravelEvalArgs::default();
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Long("db") => a.db = text(p)?,
            Long("queries") => a.queries = text(p)?,
            Long("plans") => a.plans = text(p)?,
            Long("json") => a.json = true,
            other => return Err(other.unexpected().to_string()),
        }
    }
    for (value, flag) in [
        (&a.db, "--db"),
        (&a.queries, "--queries"),
        (&a.plans, "--plans"),
    ] {
        if value.is_empty() {
            return Err(format!("travel-eval needs {flag}"));
        }
    }
    Ok(a)
}

/// One line of the plans file.
struct Submission {
    id: Value,
    query: usize,
    plan: Result<Plan, NotDelivered>,
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

fn load_db(arg: &str) -> Result<TravelDb, String> {
    if arg == "builtin" {
        return Ok(TravelDb::builtin());
    }
    TravelDb::from_dir(Path::new(arg)).map_err(|e| e.to_string())
}

fn load_queries(arg: &str) -> Result<Vec<Query>, String> {
    if arg == "builtin" {
        return Ok(roundtable::engine::domains::travel::builtin::builtin_queries());
    }
    parse_queries_jsonl(&read(arg)?, arg).map_err(|e| e.to_string())
}

fn submission(v: &Value, queries: &[Query]) -> Result<Submission, String> {
    let Value::Object(o) = v else {
        return Err("each line must be a JSON object".into());
    };
    let idx_value = o
        .get("idx")
        .or_else(|| o.get("query_idx"))
        .ok_or("the line names no query: add \"idx\" or \"query_idx\"")?;
    let idx = idx_value
        .as_u64()
        .ok_or_else(|| format!("\"idx\"/\"query_idx\" must be a whole number, got {idx_value}"))?;
    let query = queries
        .iter()
        .position(|q| u64::from(q.idx) == idx)
        .ok_or_else(|| format!("query {idx} is not in the queries file"))?;
    let plan = o.get("plan").ok_or("the line has no \"plan\"")?;
    Ok(Submission {
        id: o
            .get("case_id")
            .cloned()
            .unwrap_or_else(|| idx_value.clone()),
        query,
        plan: plan_field(plan),
    })
}

fn read_submissions(path: &str, queries: &[Query]) -> Result<Vec<Submission>, String> {
    let mut out = Vec::new();
    for (i, line) in read(path)?.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |m: String| DataError::at(path, i + 1, m).to_string();
        let v: Value =
            serde_json::from_str(line).map_err(|e| at(format!("not valid JSON: {e}")))?;
        out.push(submission(&v, queries).map_err(at)?);
    }
    Ok(out)
}

fn evaluate_submission(db: &TravelDb, q: &Query, s: &Submission) -> PlanEvaluation {
    match &s.plan {
        Ok(plan) => evaluate(db, q, plan),
        Err(e) => PlanEvaluation::not_delivered(e.reason.clone()),
    }
}

pub fn run(a: TravelEvalArgs) -> Result<i32, String> {
    let db = load_db(&a.db)?;
    let queries = load_queries(&a.queries)?;
    let subs = read_submissions(&a.plans, &queries)?;
    let evals: Vec<PlanEvaluation> = subs
        .iter()
        .map(|s| evaluate_submission(&db, &queries[s.query], s))
        .collect();
    let items: Vec<(&Query, &PlanEvaluation)> =
        subs.iter().map(|s| &queries[s.query]).zip(&evals).collect();
    let summary = aggregate(&items);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = if a.json {
        write_json(&mut out, &subs, &evals, &summary)
    } else {
        write_table(&mut out, &subs, &queries, &evals)
            .and_then(|_| write_summary(&mut out, &summary))
    };
    match written.and_then(|_| out.flush()) {
        Ok(()) => Ok(0),
        // A closed pipe (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(0),
        Err(e) => Err(format!("cannot write the output: {e}")),
    }
}

fn write_json(
    out: &mut impl Write,
    subs: &[Submission],
    evals: &[PlanEvaluation],
    summary: &Summary,
) -> std::io::Result<()> {
    for (s, e) in subs.iter().zip(evals) {
        writeln!(
            out,
            "{{\"id\": {}, \"commonsense\": {}, \"hard\": {}}}",
            s.id,
            e.commonsense_json(),
            e.hard_json()
        )?;
    }
    writeln!(
        out,
        "{}",
        serde_json::json!({ "summary": summary.to_json() })
    )
}

fn id_text(v: &Value) -> String {
    v.as_str()
        .map(str::to_string)
        .unwrap_or_else(|| v.to_string())
}

fn failures(e: &PlanEvaluation) -> String {
    if let Some(reason) = &e.not_delivered {
        return format!("not delivered: {reason}");
    }
    let failed: Vec<String> = Check::COMMONSENSE
        .into_iter()
        .chain(Check::HARD)
        .filter_map(|c| {
            let v = e.verdict(c)?;
            (v.pass == Some(false)).then(|| match &v.message {
                Some(m) => format!("{}: {m}", c.display_name()),
                None => c.display_name().to_string(),
            })
        })
        .collect();
    failed.join("; ")
}

fn tally(list: Option<&[(Check, roundtable::engine::domains::travel::Verdict)]>) -> String {
    match list {
        None => "-".into(),
        Some(l) => {
            let applicable = l.iter().filter(|(_, v)| v.pass.is_some()).count();
            let passed = l.iter().filter(|(_, v)| v.pass == Some(true)).count();
            format!("{passed}/{applicable}")
        }
    }
}

fn write_table(
    out: &mut impl Write,
    subs: &[Submission],
    queries: &[Query],
    evals: &[PlanEvaluation],
) -> std::io::Result<()> {
    let idw = subs
        .iter()
        .map(|s| id_text(&s.id).len())
        .max()
        .unwrap_or(2)
        .max(2);
    writeln!(
        out,
        "{:<idw$}  {:>5}  {:<6}  {:>11}  {:>4}  {:<5}  failed checks",
        "id", "query", "level", "commonsense", "hard", "final"
    )?;
    for (s, e) in subs.iter().zip(evals) {
        let q = &queries[s.query];
        writeln!(
            out,
            "{:<idw$}  {:>5}  {:<6}  {:>11}  {:>4}  {:<5}  {}",
            id_text(&s.id),
            q.idx,
            q.level.as_str(),
            tally(e.commonsense.as_deref()),
            tally(e.hard.as_deref()),
            if e.final_pass() { "pass" } else { "fail" },
            failures(e)
        )?;
    }
    Ok(())
}

fn write_summary(out: &mut impl Write, s: &Summary) -> std::io::Result<()> {
    // "{label}:" padded to 40 columns, then the rate as a percentage.
    let rate = |label: &str, x: f64| format!("{:<40}{:.2}%", format!("{label}:"), x * 100.0);
    let lines = [
        format!("plans: {}   delivered: {}", s.plans, s.delivered),
        rate("Delivery Rate", s.delivery_rate()),
        format!(
            "{} ({}/{})",
            rate(
                "Commonsense Constraint Micro Pass Rate",
                s.commonsense_micro()
            ),
            s.commonsense_passed,
            s.commonsense_total
        ),
        rate(
            "Commonsense Constraint Macro Pass Rate",
            s.commonsense_macro(),
        ),
        format!(
            "{} ({}/{})",
            rate("Hard Constraint Micro Pass Rate", s.hard_micro()),
            s.hard_passed,
            s.hard_total
        ),
        rate("Hard Constraint Macro Pass Rate", s.hard_macro()),
        rate("Final Pass Rate", s.final_rate()),
        format!("denominators: {}", s.denominators.describe()),
    ];
    writeln!(out)?;
    for line in lines {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// `travel-eval ARGS`.
pub fn command(args: Vec<std::ffi::OsString>) -> Result<i32, String> {
    let mut p = lexopt::Parser::from_args(args);
    run(parse_args(&mut p)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &[&str]) -> Result<TravelEvalArgs, String> {
        let mut p = lexopt::Parser::from_args(s.iter().map(std::ffi::OsString::from));
        parse_args(&mut p)
    }

    #[test]
    fn parses_flags_and_names_the_missing_one() {
        let a = parse(&["--db", "d", "--queries", "q", "--plans", "p", "--json"]).unwrap();
        assert_eq!((a.db.as_str(), a.json), ("d", true));
        assert!(parse(&["--db", "d", "--plans", "p"])
            .unwrap_err()
            .contains("--queries"));
        assert!(parse(&["--nope"]).is_err());
    }

    #[test]
    fn submission_lines_are_checked() {
        let qs = roundtable::engine::domains::travel::builtin::builtin_queries();
        let ok = submission(
            &serde_json::json!({"query_idx": 1, "plan": [], "case_id": "c"}),
            &qs,
        )
        .unwrap();
        assert_eq!(ok.id, serde_json::json!("c"));
        assert!(ok.plan.is_err());
        let e = |v: Value| submission(&v, &qs).err().unwrap_or_default();
        assert!(e(serde_json::json!({"plan": []})).contains("\"idx\""));
        assert!(e(serde_json::json!({"idx": 99, "plan": []})).contains("query 99"));
        assert!(e(serde_json::json!({"idx": 1})).contains("\"plan\""));
        assert!(e(serde_json::json!([1])).contains("JSON object"));
    }
}
