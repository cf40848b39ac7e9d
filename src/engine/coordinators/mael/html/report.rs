//! An evaluation in the paper's shapes: the score per mode (Table 1),
//! completion tokens and critique rounds per mode (Fig. 2), the pool-size
//! sweep (Fig. 3), as HTML tables, SVG charts and CSV / JSON; and the
//! replies each mode's steps had to repair, in all and per step kind.

use crate::engine::coordinators::mael::learn::{ModeSummary, QualityCurve, Relative, Row};
use crate::engine::coordinators::mael::software::SCALE_PARTS;
use crate::engine::views::export::csv_field;
use crate::engine::views::html::esc;
use crate::engine::views::html::repairs::{by_step_details_html, count_cell};
use crate::engine::views::repairs::RepairSum;
use std::fmt::Write;

pub fn table_html(rows: &[Row], metric: &str) -> String {
    if rows.is_empty() {
        return "<p class=\"muted empty-note\">The table fills in as the evaluation runs.</p>"
            .into();
    }
    let mut h = format!(
        "<table class=\"tp-table ml-report\"><caption class=\"small muted\">score = {}</caption><thead><tr><th scope=\"col\">mode</th><th scope=\"col\">score %</th><th scope=\"col\">completion tokens</th><th scope=\"col\">critique rounds</th><th scope=\"col\">tasks</th><th scope=\"col\">replies repaired</th></tr></thead><tbody>",
        esc(metric)
    );
    let best = rows
        .iter()
        .map(|r| r.summary.score)
        .fold(f64::MIN, f64::max);
    for r in rows {
        let s = &r.summary;
        let _ = write!(
            h,
            "<tr><th scope=\"row\">{}</th><td>{}{:.1}{}</td><td>{:.0}</td><td>{:.2}</td><td>{}</td>{}</tr>",
            esc(&r.label),
            if s.score == best { "<strong>" } else { "" },
            s.score * 100.0,
            if s.score == best { "</strong>" } else { "" },
            s.completion_tokens,
            s.rounds,
            s.tasks,
            count_cell(&s.repairs)
        );
    }
    h.push_str("</tbody></table>");
    h
}

/// The replies repaired per step kind (rows) and row (columns), in a
/// `<details>` for under the table; empty when no run got a reply.
pub fn repairs_html(rows: &[Row]) -> String {
    let columns: Vec<(&str, &RepairSum)> = rows
        .iter()
        .map(|r| (r.label.as_str(), &r.summary.repairs))
        .collect();
    by_step_details_html(&columns)
}

/// CommonGen-Hard's composite, part by part (%), one row per evaluation
/// row; empty when no row has parts.
pub fn parts_html(rows: &[Row]) -> String {
    let Some(first) = rows
        .iter()
        .find(|r| !r.summary.parts.is_empty() && !is_software(r))
    else {
        return String::new();
    };
    let names: Vec<&str> = first
        .summary
        .parts
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    let mut s = String::from(
        "<table class=\"ml-report ml-parts\"><caption>The composite's parts (%): coverage computed, the rest judged</caption><thead><tr><th>row</th>",
    );
    for n in &names {
        let _ = write!(s, "<th>{}</th>", esc(n));
    }
    s.push_str("<th>composite</th></tr></thead><tbody>");
    for r in rows {
        let _ = write!(s, "<tr><th>{}</th>", esc(&r.label));
        for n in &names {
            match r.summary.parts.iter().find(|(m, _)| m == n) {
                Some((_, v)) => {
                    let _ = write!(s, "<td class=\"num\">{:.1}</td>", v * 100.0);
                }
                None => s.push_str("<td class=\"num muted\">–</td>"),
            }
        }
        let _ = write!(
            s,
            "<td class=\"num\">{:.1}</td></tr>",
            r.summary.score * 100.0
        );
    }
    s.push_str("</tbody></table>");
    s
}

/// An SRDD row: its parts are Table 2's and Table 3's.
fn is_software(r: &Row) -> bool {
    r.summary.parts.iter().any(|(n, _)| n == SCALE_PARTS[0])
}

fn part(r: &Row, name: &str) -> Option<f64> {
    r.summary
        .parts
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| *v)
}

/// SRDD's Table 2 (quality, %) and Table 3 (scale and complexity, means
/// per project), one row per evaluation row; empty when no row is SRDD's.
pub fn srdd_html(rows: &[Row]) -> String {
    let rows: Vec<&Row> = rows.iter().filter(|r| is_software(r)).collect();
    if rows.is_empty() {
        return String::new();
    }
    let table = |caption: &str, names: &[&str], scale: f64, digits: usize| {
        let mut s = format!(
            "<table class=\"ml-report ml-parts\"><caption>{}</caption><thead><tr><th>row</th>",
            esc(caption)
        );
        for n in names {
            let _ = write!(s, "<th>{}</th>", esc(n));
        }
        s.push_str("</tr></thead><tbody>");
        for r in &rows {
            let _ = write!(s, "<tr><th>{}</th>", esc(&r.label));
            for n in names {
                match part(r, n) {
                    Some(v) => {
                        let _ = write!(s, "<td class=\"num\">{:.digits$}</td>", v * scale);
                    }
                    None => s.push_str("<td class=\"num muted\">–</td>"),
                }
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table>");
        s
    };
    table(
        "Table 2 · SRDD quality (%): completeness × executability × consistency",
        &["completeness", "executability", "consistency", "quality"],
        100.0,
        2,
    ) + &table(
        "Table 3 · scale and complexity (means per project)",
        &SCALE_PARTS,
        1.0,
        1,
    )
}

/// Fig. 2 as ratios: each row's completion tokens and rounds relative to
/// no experience; empty without a no-experience row.
pub fn relative_html(rel: &[Relative]) -> String {
    if !rel.iter().any(|r| r.completion_tokens.is_some()) {
        return String::new();
    }
    let f = |x: Option<f64>| x.map_or("–".to_string(), |x| format!("{x:.2}"));
    let mut s = String::from("<table class=\"ml-report ml-parts\"><caption>Fig. 2 · relative to no experience (MAEL-ØExp = 1.00)</caption><thead><tr><th>row</th><th>completion tokens</th><th>rounds</th></tr></thead><tbody>");
    for r in rel {
        let _ = write!(
            s,
            "<tr><th>{}</th><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            esc(&r.label),
            f(r.completion_tokens),
            f(r.rounds)
        );
    }
    s.push_str("</tbody></table>");
    s
}

/// Fig. 4: one small chart per case, the project's quality after each
/// step that wrote files, a line per row.
pub fn curves_svg(curves: &[QualityCurve], standalone: bool) -> Vec<(String, String)> {
    let mut tasks: Vec<&str> = Vec::new();
    for c in curves {
        if !tasks.contains(&c.task_id.as_str()) {
            tasks.push(&c.task_id);
        }
    }
    let labels: Vec<&str> = {
        let mut v: Vec<&str> = Vec::new();
        for c in curves {
            if !v.contains(&c.label.as_str()) {
                v.push(&c.label);
            }
        }
        v
    };
    tasks
        .iter()
        .map(|task| {
            let mine: Vec<&QualityCurve> = curves.iter().filter(|c| c.task_id == *task).collect();
            let most = mine.iter().map(|c| c.quality.len()).max().unwrap_or(1).max(2);
            let x = |i: usize| 40.0 + 220.0 * i as f64 / (most - 1) as f64;
            let y = |q: f64| 140.0 - 110.0 * q.clamp(0.0, 1.0);
            let mut s = format!(
                "<svg {}class=\"ml-chart ml-curves\" viewBox=\"0 0 300 {}\" role=\"img\" aria-label=\"Quality per iteration of {}\">",
                if standalone { "xmlns=\"http://www.w3.org/2000/svg\" " } else { "" },
                170 + 14 * labels.len(),
                esc(task)
            );
            let _ = write!(
                s,
                "<text class=\"ml-axis\" x=\"10\" y=\"16\">{}: quality % per iteration</text><line class=\"ml-grid\" x1=\"40\" y1=\"140\" x2=\"260\" y2=\"140\"/><text class=\"ml-axis\" x=\"10\" y=\"144\">0</text><text class=\"ml-axis\" x=\"4\" y=\"34\">100</text>",
                esc(task)
            );
            for c in &mine {
                let k = labels.iter().position(|l| *l == c.label).unwrap_or(0);
                let points: Vec<String> = (c.quality.iter().enumerate())
                    .map(|(i, q)| format!("{:.1},{:.1}", x(i), y(*q)))
                    .collect();
                let _ = write!(
                    s,
                    "<polyline class=\"ml-line ml-line-{k}\" points=\"{}\"/>",
                    points.join(" ")
                );
                for (i, q) in c.quality.iter().enumerate() {
                    let _ = write!(
                        s,
                        "<circle class=\"ml-dot ml-line-{k}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\"><title>{} · iteration {}: {:.1}%</title></circle>",
                        x(i),
                        y(*q),
                        esc(&c.label),
                        i + 1,
                        q * 100.0
                    );
                }
            }
            for i in 0..most {
                let _ = write!(s, "<text class=\"ml-axis\" x=\"{:.1}\" y=\"156\">{}</text>", x(i) - 3.0, i + 1);
            }
            for (k, l) in labels.iter().enumerate() {
                let yy = 172 + 14 * k;
                let _ = write!(
                    s,
                    "<line class=\"ml-line ml-line-{k}\" x1=\"40\" y1=\"{}\" x2=\"60\" y2=\"{}\"/><text class=\"ml-axis\" x=\"66\" y=\"{}\">{}</text>",
                    yy - 4,
                    yy - 4,
                    yy,
                    esc(l)
                );
            }
            s.push_str("</svg>");
            (task.to_string(), s)
        })
        .collect()
}

/// Bars of one figure per row (`pick`), scaled to its largest value.
pub fn bars_svg(
    rows: &[Row],
    title: &str,
    pick: fn(&ModeSummary) -> f64,
    unit: &str,
    standalone: bool,
) -> String {
    let max = rows
        .iter()
        .map(|r| pick(&r.summary))
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let w = 60 + rows.len() * 90;
    let mut s = format!(
        "<svg {}class=\"ml-chart\" viewBox=\"0 0 {w} 180\" role=\"img\" aria-label=\"{}\">",
        if standalone {
            "xmlns=\"http://www.w3.org/2000/svg\" "
        } else {
            ""
        },
        esc(title)
    );
    if standalone {
        s.push_str("<style>text{font:12px sans-serif;fill:#333}.ml-bar{fill:#4f6bd8}</style>");
    }
    let _ = write!(
        s,
        "<text class=\"ml-axis\" x=\"10\" y=\"16\">{}</text>",
        esc(title)
    );
    for (i, r) in rows.iter().enumerate() {
        let v = pick(&r.summary);
        let hgt = 120.0 * v / max;
        let x = 40 + i * 90;
        let _ = write!(
            s,
            "<rect class=\"ml-bar\" x=\"{x}\" y=\"{:.1}\" width=\"56\" height=\"{hgt:.1}\"/><text class=\"ml-value\" x=\"{}\" y=\"{:.1}\">{}{unit}</text><text class=\"ml-axis\" x=\"{}\" y=\"172\">{}</text>",
            150.0 - hgt,
            x + 4,
            145.0 - hgt,
            if unit == "%" { format!("{:.0}", v) } else { format!("{v:.1}") },
            x,
            esc(&r.label)
        );
    }
    s.push_str("</svg>");
    s
}

/// The pool-size sweep: (tasks learned, score) as a line.
pub fn sweep_svg(points: &[(usize, f64)], standalone: bool) -> String {
    if points.is_empty() {
        return String::new();
    }
    let maxx = points.iter().map(|p| p.0).max().unwrap_or(1).max(1) as f64;
    let x = |n: usize| 40.0 + 240.0 * n as f64 / maxx;
    let y = |s: f64| 150.0 - 120.0 * s;
    let mut s = format!(
        "<svg {}class=\"ml-chart\" viewBox=\"0 0 300 180\" role=\"img\" aria-label=\"Score by pool size\">",
        if standalone { "xmlns=\"http://www.w3.org/2000/svg\" " } else { "" }
    );
    if standalone {
        s.push_str("<style>text{font:12px sans-serif;fill:#333}polyline{fill:none;stroke:#4f6bd8;stroke-width:2}</style>");
    }
    s.push_str("<text class=\"ml-axis\" x=\"10\" y=\"16\">score % by tasks learned</text><polyline class=\"ml-line\" points=\"");
    for (n, sc) in points {
        let _ = write!(s, "{:.1},{:.1} ", x(*n), y(*sc));
    }
    s.push_str("\"/>");
    for (n, sc) in points {
        let _ = write!(
            s,
            "<circle class=\"ml-dot\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\"/><text class=\"ml-value\" x=\"{:.1}\" y=\"{:.1}\">{:.0}</text><text class=\"ml-axis\" x=\"{:.1}\" y=\"172\">{n}</text>",
            x(*n),
            y(*sc),
            x(*n) - 6.0,
            y(*sc) - 6.0,
            sc * 100.0,
            x(*n) - 4.0
        );
    }
    s.push_str("</svg>");
    s
}

pub fn csv(rows: &[Row], sweep: &[(usize, f64)]) -> String {
    let mut out =
        String::from("mode,score,completion_tokens,rounds,tasks,replies,repaired,unreadable\n");
    for r in rows {
        let s = &r.summary;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{}",
            csv_field(&r.label),
            s.score,
            s.completion_tokens,
            s.rounds,
            s.tasks,
            s.repairs.total.replies,
            s.repairs.total.repaired,
            s.repairs.total.unreadable
        );
    }
    if !sweep.is_empty() {
        out.push_str("\npool_tasks,score\n");
        for (n, s) in sweep {
            let _ = writeln!(out, "{n},{s}");
        }
    }
    out
}

/// The evaluation as JSON: each row (with its parts: CommonGen-Hard's
/// composite, SRDD's Tables 2 and 3; and Fig. 2's ratios to no
/// experience), the sweep, and Fig. 4's curves.
pub fn json(rows: &[Row], sweep: &[(usize, f64)], curves: &[QualityCurve]) -> serde_json::Value {
    let relative = crate::engine::coordinators::mael::learn::relative_to_none(rows);
    serde_json::json!({
        "modes": rows.iter().zip(&relative).map(|(r, rel)| serde_json::json!({
            "label": r.label, "mode": r.summary.mode.id(), "score": r.summary.score,
            "completion_tokens": r.summary.completion_tokens, "rounds": r.summary.rounds, "tasks": r.summary.tasks,
            "replies": r.summary.repairs.total.replies, "repaired": r.summary.repairs.total.repaired,
            "unreadable": r.summary.repairs.total.unreadable,
            "repaired_by_step": r.summary.repairs.by_step,
            "parts": r.summary.parts.iter().map(|(n, v)| (n.clone(), serde_json::Value::from(*v))).collect::<serde_json::Map<_, _>>(),
            "relative_to_none": {"completion_tokens": rel.completion_tokens, "rounds": rel.rounds},
        })).collect::<Vec<_>>(),
        "sweep": sweep.iter().map(|(n, s)| serde_json::json!({"pool_tasks": n, "score": s})).collect::<Vec<_>>(),
        "quality_per_iteration": curves,
    })
}
