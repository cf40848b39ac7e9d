//! The batch report as HTML: the paper's table (ROUGE-L / ROUGE-1 recall,
//! words, judge, trivia recall, sub-tasks done, accepted drafts, tokens,
//! replies repaired
//! per variant), the token share per phase, the replies repaired per step
//! kind (folded away), and a bar chart of ROUGE-L (or trivia recall) per
//! variant as SVG.

use crate::engine::coordinators::act::contract::Variant;
use crate::engine::coordinators::act::report::Report;
use crate::engine::run::batch::prompt_sets::split_group_name;
use crate::engine::views::html::esc;
use crate::engine::views::html::repairs::{by_step_details_html, count_cell};
use std::fmt::Write;

fn cell(x: Option<f64>) -> String {
    x.map_or_else(
        || "<span class=\"muted\">—</span>".into(),
        |v| format!("{v:.2}"),
    )
}

/// A row's variant as the paper names it, with the prompts it was told.
fn label(row: &str) -> String {
    let (id, prompts) = split_group_name(row);
    let name = Variant::parse(id).map_or(id, |v| v.label());
    format!("{name}{prompts}")
}

pub fn table_html(r: &Report) -> String {
    let mut h = String::from("<table class=\"tp-table act-report\"><thead><tr><th scope=\"col\">variant</th><th scope=\"col\">runs</th><th scope=\"col\">ROUGE-L</th><th scope=\"col\">ROUGE-1</th><th scope=\"col\">words</th><th scope=\"col\">judge</th><th scope=\"col\">trivia %</th><th scope=\"col\">sub-tasks done %</th><th scope=\"col\">accepted</th><th scope=\"col\">tokens</th><th scope=\"col\">replies repaired</th></tr></thead><tbody>");
    for row in &r.rows {
        let _ = write!(
            h,
            "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}{}</td><td>{}</td><td>{}{}</td><td>{}/{}</td><td>{}</td>{}</tr>",
            esc(&label(&row.variant)),
            row.runs,
            cell(row.rouge_l),
            cell(row.rouge1),
            cell(row.words),
            cell(row.judge),
            if row.judge_failures > 0 { format!(" <span class=\"small muted\">({} unreadable)</span>", row.judge_failures) } else { String::new() },
            cell(row.trivia),
            cell(row.completion),
            if row.completion_unmeasured > 0 { format!(" <span class=\"small muted\">({} unreadable)</span>", row.completion_unmeasured) } else { String::new() },
            row.accepted,
            row.scored,
            row.tokens,
            count_cell(&row.repairs)
        );
    }
    h.push_str("</tbody></table>");
    let _ = write!(
        h,
        "<pre class=\"small act-shares\">{}</pre>",
        esc(&r.share_table())
    );
    h
}

/// The replies repaired per step kind (rows) and variant (columns), in a
/// `<details>` for under the table; empty when no run got a reply.
pub fn repairs_html(r: &Report) -> String {
    let names: Vec<String> = r.rows.iter().map(|row| label(&row.variant)).collect();
    let columns: Vec<(&str, &crate::engine::views::repairs::RepairSum)> = names
        .iter()
        .zip(&r.rows)
        .map(|(n, row)| (n.as_str(), &row.repairs))
        .collect();
    by_step_details_html(&columns)
}

/// Bars of ROUGE-L recall (or trivia recall when there is no ROUGE, or
/// the sub-tasks done when neither).
pub fn chart_svg(r: &Report) -> String {
    let values: Vec<(String, f64)> = r
        .rows
        .iter()
        .filter_map(|row| {
            (row.rouge_l.or(row.trivia).or(row.completion)).map(|v| (label(&row.variant), v))
        })
        .collect();
    if values.is_empty() {
        return String::new();
    }
    let max = values.iter().map(|v| v.1).fold(1.0f64, f64::max);
    let (w, bar) = (520.0, 22.0);
    let h = 16.0 + values.len() as f64 * (bar + 8.0);
    let mut s = format!("<svg class=\"act-chart\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"Score per variant\" xmlns=\"http://www.w3.org/2000/svg\">");
    for (i, (name, v)) in values.iter().enumerate() {
        let y = 8.0 + i as f64 * (bar + 8.0);
        let len = (w - 260.0) * v / max;
        let _ = write!(
            s,
            "<text x=\"200\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"12\">{}</text><rect x=\"208\" y=\"{y:.1}\" width=\"{len:.1}\" height=\"{bar}\" rx=\"3\" fill=\"#4f7cc9\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\">{v:.2}</text>",
            y + 15.0,
            esc(name),
            212.0 + len,
            y + 15.0
        );
    }
    s.push_str("</svg>");
    s
}
