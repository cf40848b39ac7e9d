//! A travel plan as a day-by-day table coloured by the evaluator's
//! verdicts, and a run's metrics (every check with the paper's names).

use crate::engine::coordinators::travel::contract::{PlanRecord, RunEvaluation, VerdictRecord};
use crate::engine::domains::travel::{Check, Field, Plan};
use crate::engine::model::pricing::format_usd;
use crate::engine::views::html::esc;
use serde_json::Value;
use std::fmt::Write;

/// The column headings, in `Field::ALL` order.
pub const PLAN_COLUMNS: [&str; 8] = [
    "Day",
    "Current city",
    "Transportation",
    "Breakfast",
    "Attraction",
    "Lunch",
    "Dinner",
    "Accommodation",
];

fn all_verdicts(e: &RunEvaluation) -> impl Iterator<Item = &VerdictRecord> {
    e.commonsense.iter().chain(e.hard.iter())
}

fn concerns(v: &VerdictRecord, day: usize, field: Field) -> bool {
    v.cells.iter().any(|(d, f)| *d == day && f == field.key())
}

fn verdict_line(v: &VerdictRecord) -> String {
    format!("{}: {}", v.name, v.message.as_deref().unwrap_or("failed"))
}

/// A plan (a JSON list of day objects) as a table. With the evaluation of
/// this plan, every cell gets `cell-fail` (a failing verdict lists it, its
/// messages in `title`) or `cell-pass`; without one (critic rounds, or a
/// plan that was not the evaluated one) cells are plain. Verdicts that fail
/// without naming a cell (budget, day count) are listed under the table.
pub fn plan_html(plan: &Value, evaluation: Option<&RunEvaluation>) -> String {
    let parsed = match Plan::from_json(plan) {
        Ok(p) if !p.is_empty() => p,
        Ok(_) => return "<p class=\"tp-empty muted\">The plan is empty.</p>".into(),
        Err(e) => {
            return format!(
                "<p class=\"bad small\">This plan cannot be shown as a table: {}</p><pre class=\"tp-raw\">{}</pre>",
                esc(&e),
                esc(&serde_json::to_string_pretty(plan).unwrap_or_default())
            )
        }
    };
    let failing: Vec<&VerdictRecord> = evaluation
        .map(|e| all_verdicts(e).filter(|v| v.pass == Some(false)).collect())
        .unwrap_or_default();
    let mut h = format!(
        "<div class=\"tp-table-wrap\" tabindex=\"0\"><table class=\"tp-table tp-plan{}\" aria-label=\"Plan\"><thead><tr>",
        if evaluation.is_some() {
            " tp-evaluated"
        } else {
            ""
        }
    );
    for c in PLAN_COLUMNS {
        let _ = write!(h, "<th scope=\"col\">{c}</th>");
    }
    h.push_str("</tr></thead><tbody>");
    for (i, day) in parsed.days.iter().enumerate() {
        let _ = write!(h, "<tr data-day=\"{i}\">");
        for f in Field::ALL {
            let text = day.get(f).map(|c| c.display()).unwrap_or_default();
            let here: Vec<&&VerdictRecord> = failing.iter().filter(|v| concerns(v, i, f)).collect();
            let mut class = match (evaluation.is_some(), here.is_empty()) {
                (false, _) => String::new(),
                (true, true) => "cell-pass".to_string(),
                (true, false) => "cell-fail".to_string(),
            };
            if !day.has(f) {
                class.push_str(if class.is_empty() {
                    "cell-absent"
                } else {
                    " cell-absent"
                });
            }
            let title = here
                .iter()
                .map(|v| verdict_line(v))
                .collect::<Vec<_>>()
                .join("\n");
            let tag = if f == Field::Days {
                "th scope=\"row\""
            } else {
                "td"
            };
            let _ = write!(
                h,
                "<{tag} data-field=\"{}\"{}{}>{}</{}>",
                f.key(),
                if class.is_empty() {
                    String::new()
                } else {
                    format!(" class=\"{class}\"")
                },
                if title.is_empty() {
                    String::new()
                } else {
                    format!(" title=\"{}\"", esc(&title))
                },
                esc(&text),
                if f == Field::Days { "th" } else { "td" }
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table></div>");
    let days = parsed.days.len();
    let loose: Vec<&&VerdictRecord> = failing
        .iter()
        .filter(|v| v.cells.is_empty() || v.cells.iter().all(|(d, _)| *d >= days))
        .collect();
    if !loose.is_empty() {
        h.push_str("<ul class=\"tp-plan-issues\">");
        for v in loose {
            let _ = write!(
                h,
                "<li><span class=\"tp-badge tp-fail\">{}</span> {}</li>",
                esc(&v.name),
                esc(v.message.as_deref().unwrap_or("failed"))
            );
        }
        h.push_str("</ul>");
    }
    h
}

/// A compiler round's record: its plan (plain: critic rounds are not
/// evaluated), or why it is not a plan.
pub fn plan_record_html(r: &PlanRecord) -> String {
    let head = if r.round == 0 {
        "First plan".to_string()
    } else {
        format!("After critic round {}", r.round)
    };
    let body = match (&r.plan, &r.not_delivered) {
        (Some(p), _) => plan_html(p, None),
        (None, reason) => format!(
            "<p class=\"bad small\">Not a plan: {}</p>",
            esc(reason.as_deref().unwrap_or("unreadable"))
        ),
    };
    format!("<section class=\"tp-section tp-round\" data-round=\"{}\"><h4 class=\"tp-h\">{head}</h4>{body}</section>", r.round)
}

/// The evaluated plan with its verdicts, or why none was delivered.
pub fn evaluated_plan_html(e: &RunEvaluation) -> String {
    match (&e.plan, e.delivered) {
        (Some(p), true) => plan_html(p, Some(e)),
        (Some(p), false) => plan_html(p, None),
        (None, _) => format!(
            "<p class=\"bad\">No plan delivered: {}</p>",
            esc(e.not_delivered.as_deref().unwrap_or("unknown reason"))
        ),
    }
}

/// A pass / fail / n.a. badge.
pub fn verdict_badge(pass: Option<bool>) -> &'static str {
    match pass {
        Some(true) => "<span class=\"tp-badge tp-pass\">pass</span>",
        Some(false) => "<span class=\"tp-badge tp-fail\">fail</span>",
        None => "<span class=\"tp-badge tp-na\">n.a.</span>",
    }
}

fn checks_table(
    caption: &str,
    records: &[VerdictRecord],
    canonical: &[Check],
    skipped: &str,
) -> String {
    let mut h = format!("<table class=\"tp-table tp-checks\"><caption>{caption}</caption><tbody>");
    if records.is_empty() {
        for c in canonical {
            let _ = write!(
                h,
                "<tr class=\"tp-check-skipped\" data-check=\"{}\"><th scope=\"row\">{}</th><td><span class=\"tp-badge tp-na\">not run</span></td><td class=\"muted small\">{}</td></tr>",
                c.key(),
                c.display_name(),
                esc(skipped)
            );
        }
    }
    for v in records {
        let class = match v.pass {
            Some(true) => "tp-check-pass",
            Some(false) => "tp-check-fail",
            None => "tp-check-na",
        };
        let _ = write!(
            h,
            "<tr class=\"{class}\" data-check=\"{}\"><th scope=\"row\">{}</th><td>{}</td><td class=\"small\">{}</td></tr>",
            esc(&v.key),
            esc(&v.name),
            verdict_badge(v.pass),
            esc(v.message.as_deref().unwrap_or(""))
        );
    }
    h.push_str("</tbody></table>");
    h
}

fn headline(label: &str, ok: bool) -> String {
    format!(
        "<div class=\"tp-stat\"><dt>{label}</dt><dd>{}</dd></div>",
        verdict_badge(Some(ok))
    )
}

fn expert_label(id: &str) -> String {
    let mut c = id.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Everything the evaluator found: delivery, the 8 commonsense and 5 hard
/// checks, the pass rules, revisits, hallucinated entities, cost vs budget.
pub fn metrics_html(e: &RunEvaluation, budget: Option<f64>) -> String {
    let mut h = String::from("<div class=\"tp-metrics\"><dl class=\"tp-stats\">");
    h.push_str(&headline("Delivered", e.delivered));
    h.push_str(&headline("Commonsense", e.commonsense_pass));
    h.push_str(&headline("Hard", e.hard_pass));
    h.push_str(&headline("Final pass", e.final_pass));
    h.push_str("</dl>");
    if !e.delivered {
        let _ = write!(
            h,
            "<p class=\"bad small\">No plan delivered: {}</p>",
            esc(e.not_delivered.as_deref().unwrap_or("unknown reason"))
        );
    }
    let (cs_skip, hard_skip) = if e.delivered {
        ("", "Skipped: the plan failed Within Sandbox or Complete Information (eval.py runs the hard checks only when both pass).")
    } else {
        ("No plan was delivered.", "No plan was delivered.")
    };
    h.push_str(&checks_table(
        "Commonsense constraints",
        &e.commonsense,
        &Check::COMMONSENSE,
        cs_skip,
    ));
    h.push_str(&checks_table(
        "Hard constraints",
        &e.hard,
        &Check::HARD,
        hard_skip,
    ));
    if let Some(total) = e.total_cost {
        cost_html(&mut h, total, budget);
    }
    h.push_str("<table class=\"tp-table tp-revisit-counts\"><caption>Revisits</caption><tbody>");
    for (expert, n) in &e.revisits {
        let _ = write!(
            h,
            "<tr><th scope=\"row\">{}</th><td>{n}</td></tr>",
            esc(&expert_label(expert))
        );
    }
    h.push_str("</tbody></table>");
    hallucinations_html(&mut h, e);
    let _ = write!(
        h,
        "</section><p class=\"muted small\">{} steps · query {} ({})</p></div>",
        e.steps,
        e.query_idx,
        esc(&e.level)
    );
    h
}

/// The plan's total cost, and whether it is within the budget (when there
/// is one).
fn cost_html(h: &mut String, total: f64, budget: Option<f64>) {
    let vs = match budget {
        Some(b) => format!(
            " of a {} budget {}",
            format_usd(b),
            if total <= b {
                "<span class=\"tp-badge tp-pass\">within</span>"
            } else {
                "<span class=\"tp-badge tp-fail\">over</span>"
            }
        ),
        None => String::new(),
    };
    let _ = write!(
        h,
        "<p class=\"tp-cost\">Total cost {}{vs}</p>",
        format_usd(total)
    );
}

/// The hallucinations section's heading and its entities by category (in
/// first-seen order); its closing tag comes with the footer.
fn hallucinations_html(h: &mut String, e: &RunEvaluation) {
    let _ = write!(h, "<section class=\"tp-section\"><h4 class=\"tp-h\">Hallucinated entities <span class=\"muted small\">({})</span></h4>", e.hallucinations.len());
    if e.hallucinations.is_empty() {
        h.push_str(
            "<p class=\"muted small\">None: every entity in the plan is in the sandbox.</p>",
        );
        return;
    }
    let mut cats: Vec<&str> = Vec::new();
    for x in &e.hallucinations {
        if !cats.contains(&x.category.as_str()) {
            cats.push(&x.category);
        }
    }
    h.push_str("<dl class=\"tp-dl tp-hallucinations\">");
    for c in cats {
        let items: Vec<String> = e
            .hallucinations
            .iter()
            .filter(|x| x.category == c)
            .map(|x| match x.day {
                Some(d) => format!("{} (day {})", esc(&x.entity), d.saturating_add(1)),
                None => esc(&x.entity),
            })
            .collect();
        let _ = write!(
            h,
            "<dt>{} ({})</dt><dd>{}</dd>",
            esc(&expert_label(c)),
            items.len(),
            items.join("; ")
        );
    }
    h.push_str("</dl>");
}
