//! A batch of travel runs as the paper's tables: the rates (Tables 1, 2, 4),
//! revisits and failed constraints per expert area (Table 3), hallucinated
//! entities. One column (or row, for Table 3) per group.

use crate::engine::coordinators::travel::report::comparison::{
    batch_groups, rate_rows, Area, BatchEntry, GroupStats, ERROR_CATEGORIES,
};
use crate::engine::model::pricing::format_usd;
use crate::engine::views::html::esc;
use std::fmt::Write;

fn pct(r: f64) -> String {
    format!("{:.2}", r * 100.0)
}

fn head(groups: &[GroupStats], first: &str) -> String {
    let mut h = format!("<thead><tr><th scope=\"col\">{first}</th>");
    for g in groups {
        let _ = write!(h, "<th scope=\"col\">{}</th>", esc(&g.group));
    }
    h.push_str("</tr></thead>");
    h
}

/// A `tp-extra` row of a figure not every run knows: shown when some group
/// has it, "—" for a group without.
fn extra_row(
    h: &mut String,
    groups: &[GroupStats],
    label: &str,
    value: impl Fn(&GroupStats) -> Option<String>,
) {
    if !groups.iter().any(|g| value(g).is_some()) {
        return;
    }
    let _ = write!(h, "<tr class=\"tp-extra\"><th scope=\"row\">{label}</th>");
    for g in groups {
        let _ = write!(h, "<td>{}</td>", value(g).unwrap_or_else(|| "—".into()));
    }
    h.push_str("</tr>");
}

const EMPTY: &str = "<p class=\"tp-empty muted\">No evaluated runs yet.</p>";

/// Delivery Rate, Commonsense Pass Rate (Micro / Macro), Hard Constraint
/// Pass Rate (Micro / Macro), Final Pass Rate, in %, one column per group;
/// the best value of a row is marked `tp-best`. The replies each group's
/// steps had to repair ("N of M"), mean cost and tokens when known, and
/// where the denominators came from.
pub fn batch_table_html(runs: &[BatchEntry]) -> String {
    let groups = batch_groups(runs);
    if groups.is_empty() {
        return EMPTY.into();
    }
    let mut h = format!(
        "<div class=\"tp-table-wrap\" tabindex=\"0\"><table class=\"tp-table tp-batch\">{}<tbody>",
        head(&groups, "Metric (%)")
    );
    h.push_str("<tr class=\"tp-runs\"><th scope=\"row\">Runs</th>");
    for g in &groups {
        let _ = write!(h, "<td>{}</td>", g.runs);
    }
    h.push_str("</tr>");
    for row in 0..6 {
        let values: Vec<f64> = groups
            .iter()
            .map(|g| rate_rows(&g.summary)[row].1)
            .collect();
        let best = values.iter().cloned().fold(f64::MIN, f64::max);
        let _ = write!(
            h,
            "<tr><th scope=\"row\">{}</th>",
            rate_rows(&groups[0].summary)[row].0
        );
        for v in &values {
            let mark = groups.len() > 1 && *v == best && best > 0.0;
            let _ = write!(
                h,
                "<td{}>{}</td>",
                if mark { " class=\"tp-best\"" } else { "" },
                pct(*v)
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("<tr class=\"tp-extra tp-repaired\"><th scope=\"row\" title=\"replies the steps had to repair (or could not read), of replies received\">Replies repaired</th>");
    for g in &groups {
        let _ = write!(
            h,
            "<td{}>{}</td>",
            if g.repairs.repaired > 0 {
                " class=\"repaired-count\""
            } else {
                ""
            },
            esc(&g.repairs.label())
        );
    }
    h.push_str("</tr>");
    extra_row(&mut h, &groups, "Mean cost per run", |g| {
        g.mean_cost_usd.map(format_usd)
    });
    extra_row(&mut h, &groups, "Mean tokens per run", |g| {
        g.mean_tokens.map(|t| format!("{t:.0}"))
    });
    h.push_str("</tbody></table></div><ul class=\"tp-notes muted small\">");
    for g in &groups {
        let s = &g.summary;
        let _ = write!(
            h,
            "<li>{}: {} plans, {} commonsense and {} hard constraints ({})</li>",
            esc(&g.group),
            s.plans_total,
            s.commonsense_total,
            s.hard_total,
            esc(&s.denominators.describe())
        );
    }
    h.push_str("</ul>");
    h
}

/// Table 3: average revisits per task per expert, and the percentage of
/// failed constraints in each expert's area (Appendix A's mapping, shown
/// under the table).
pub fn revisits_table_html(runs: &[BatchEntry]) -> String {
    let groups = batch_groups(runs);
    if groups.is_empty() {
        return EMPTY.into();
    }
    let mut h = String::from("<div class=\"tp-table-wrap\" tabindex=\"0\"><table class=\"tp-table tp-revisits\"><thead><tr><th scope=\"col\"></th>");
    for a in Area::ALL {
        let _ = write!(h, "<th scope=\"col\">{}</th>", a.label());
    }
    h.push_str("</tr></thead><tbody><tr class=\"tp-subhead\"><th scope=\"rowgroup\" colspan=\"5\">Average # of revisits per task</th></tr>");
    for g in &groups {
        let _ = write!(h, "<tr><th scope=\"row\">{}</th>", esc(&g.group));
        for a in Area::ALL {
            let v = g
                .revisits
                .iter()
                .find(|(e, _)| e == a.expert())
                .map_or(0.0, |(_, v)| *v);
            let _ = write!(h, "<td>{v:.2}</td>");
        }
        h.push_str("</tr>");
    }
    h.push_str("<tr class=\"tp-subhead\"><th scope=\"rowgroup\" colspan=\"5\">Constraints failed (%)</th></tr>");
    for g in &groups {
        let _ = write!(h, "<tr><th scope=\"row\">{}</th>", esc(&g.group));
        for (_, t) in &g.areas {
            let _ = write!(
                h,
                "<td title=\"{} of {} evaluated\">{}</td>",
                t.failed,
                t.evaluated,
                t.percent()
                    .map(|p| format!("{p:.2}"))
                    .unwrap_or_else(|| "—".into())
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table></div><details class=\"tp-mapping small\"><summary>Constraint areas (the paper's Appendix A)</summary><table class=\"tp-table\"><thead><tr><th scope=\"col\">Validation category</th><th scope=\"col\">Area</th><th scope=\"col\">Check</th></tr></thead><tbody>");
    for c in ERROR_CATEGORIES {
        let scope = c.fields.map(|f| {
            format!(
                " ({} cells)",
                f.iter().map(|x| x.key()).collect::<Vec<_>>().join("/")
            )
        });
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td><code>{}</code>{}</td></tr>",
            c.name,
            c.area.label(),
            c.check.key(),
            scope.unwrap_or_default()
        );
    }
    h.push_str("</tbody></table><p class=\"muted\">A constraint counts when it was evaluated (a delivered plan; hard constraints only when eval.py ran them, and only the ones the query has). The hard transportation constraint is in no category.</p></details>");
    h
}

/// Hallucinated entities per category, one column per group: the total and
/// the mean per run.
pub fn hallucination_table_html(runs: &[BatchEntry]) -> String {
    let groups = batch_groups(runs);
    if groups.is_empty() {
        return EMPTY.into();
    }
    let mut cats: Vec<String> = Vec::new();
    for g in &groups {
        for (c, _) in &g.hallucinations {
            if !cats.contains(c) {
                cats.push(c.clone());
            }
        }
    }
    let mut h = format!(
        "<div class=\"tp-table-wrap\" tabindex=\"0\"><table class=\"tp-table tp-hallucination-table\">{}<tbody>",
        head(&groups, "Hallucinated")
    );
    for c in &cats {
        let mut label = c.clone();
        if let Some(first) = label.get(0..1) {
            label = format!("{}{}", first.to_uppercase(), &label[1..]);
        }
        let _ = write!(h, "<tr><th scope=\"row\">{}</th>", esc(&label));
        for g in &groups {
            let n = g
                .hallucinations
                .iter()
                .find(|(x, _)| x == c)
                .map_or(0, |(_, n)| *n);
            let _ = write!(
                h,
                "<td>{n} <span class=\"muted small\">({:.2}/run)</span></td>",
                n as f64 / g.runs.max(1) as f64
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table></div>");
    h
}
