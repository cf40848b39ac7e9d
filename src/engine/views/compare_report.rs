//! A comparison as a report: the Markdown a teacher pastes into notes and
//! the SVG chart of its figures, from the runs alone (the same figures the
//! comparison page shows: `compare::figures`, `by_key`,
//! `first_divergence`).

use super::compare::{by_key, figures, first_divergence, RunFigures};
use super::html::{esc, standalone_svg_attrs};
use super::repairs::RepairCount;
use crate::engine::model::pricing::PriceTable;
use crate::engine::run::{RunConfig, RunDoc};
use std::fmt::Write;

/// "A", "B", … for run `i`.
pub fn letter(i: usize) -> char {
    (b'A' + (i as u8).min(25)) as char
}

/// How a run is named in a comparison: coordinator, variant, model.
pub fn run_label(config: &RunConfig) -> String {
    let mut s = config.coordinator.clone();
    if let Some(v) = &config.variant {
        let _ = write!(s, " · {v}");
    }
    let _ = write!(s, " · {}", config.model_label());
    s
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn tokens(t: &crate::engine::views::usage::Tally) -> u64 {
    t.input_tokens + t.output_tokens
}

/// Every metric name of the runs, first-seen order.
pub fn metric_names(figs: &[RunFigures]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for f in figs {
        for (n, _) in &f.metrics {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    names
}

pub fn metric(f: &RunFigures, name: &str) -> Option<f64> {
    f.metrics.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
}

/// Formats a metric value (rates as 0–1 stay as they are, 3 decimals).
pub fn fmt_value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e12 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// The Markdown report of a comparison.
pub fn markdown(title: &str, runs: &[RunDoc], prices: &PriceTable) -> String {
    let figs: Vec<RunFigures> = runs.iter().map(|r| figures(&r.events, prices)).collect();
    let refs: Vec<&RunFigures> = figs.iter().collect();
    let mut m = String::new();
    let heading = if title.trim().is_empty() {
        "Comparison"
    } else {
        title.trim()
    };
    let _ = writeln!(m, "# {}\n", md_cell(heading));
    if let Some(first) = runs.first() {
        let _ = writeln!(m, "Task: {}\n", md_cell(&first.config.task));
    }
    md_runs(&mut m, runs, &figs);
    md_metrics(&mut m, runs.len(), &figs);
    for (agents, heading) in [(true, "Per agent"), (false, "Per phase")] {
        md_tallies(&mut m, runs.len(), &refs, agents, heading);
    }
    if runs.len() > 1 {
        md_divergence(&mut m, runs);
    }
    m
}

/// The runs' table: each run's outcome, calls, tokens, cost and repairs.
fn md_runs(m: &mut String, runs: &[RunDoc], figs: &[RunFigures]) {
    m.push_str(
        "## Runs\n\n| | run | outcome | calls | tokens | cost (USD) | replies repaired |\n|---|---|---|---|---|---|---|\n",
    );
    for (i, (r, f)) in runs.iter().zip(figs).enumerate() {
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} | {:.4}{} | {} |",
            letter(i),
            md_cell(&run_label(&r.config)),
            f.outcome,
            f.usage.total.calls,
            tokens(&f.usage.total),
            f.cost_usd,
            if f.cost_partial {
                " (some calls unpriced)"
            } else {
                ""
            },
            RepairCount::label_of(f.repairs)
        );
    }
}

/// The metrics' table (when the runs have metrics): each run's value and
/// the last run's difference from the first's.
fn md_metrics(m: &mut String, runs: usize, figs: &[RunFigures]) {
    let names = metric_names(figs);
    if names.is_empty() {
        return;
    }
    m.push_str("\n## Metrics\n\n| metric |");
    for i in 0..runs {
        let _ = write!(m, " {} |", letter(i));
    }
    m.push_str(" difference (last − A) |\n|---|");
    for _ in 0..=runs {
        m.push_str("---|");
    }
    m.push('\n');
    for n in &names {
        let _ = write!(m, "| {} |", md_cell(n));
        for f in figs {
            let _ = write!(
                m,
                " {} |",
                metric(f, n).map(fmt_value).unwrap_or("—".into())
            );
        }
        let diff = match (
            figs.first().and_then(|f| metric(f, n)),
            figs.last().and_then(|f| metric(f, n)),
        ) {
            (Some(a), Some(b)) if runs > 1 => format!("{:+.3}", b - a),
            _ => "—".into(),
        };
        let _ = writeln!(m, " {diff} |");
    }
}

/// Calls and tokens per agent (`agents`) or per phase, one column per run
/// (when there are any).
fn md_tallies(m: &mut String, runs: usize, refs: &[&RunFigures], agents: bool, heading: &str) {
    let rows = by_key(refs, agents);
    if rows.is_empty() {
        return;
    }
    let _ = write!(m, "\n## {heading} (calls / tokens)\n\n| |");
    for i in 0..runs {
        let _ = write!(m, " {} |", letter(i));
    }
    m.push_str("\n|---|");
    for _ in 0..runs {
        m.push_str("---|");
    }
    m.push('\n');
    for (key, tallies) in rows {
        let _ = write!(m, "| {} |", md_cell(&key));
        for t in tallies {
            match t {
                Some(t) => {
                    let _ = write!(m, " {} / {} |", t.calls, tokens(&t));
                }
                None => m.push_str(" — |"),
            }
        }
        m.push('\n');
    }
}

/// Where each run first differs from run A.
fn md_divergence(m: &mut String, runs: &[RunDoc]) {
    m.push_str("\n## Where the runs first diverge\n\n");
    for (i, r) in runs.iter().enumerate().skip(1) {
        let line = match first_divergence(&runs[0].events, &r.events) {
            Some(d) => format!(
                "- A vs {}: at model call {} ({}): {}",
                letter(i),
                d.call + 1,
                d.what,
                md_cell(&d.detail)
            ),
            None => format!("- A vs {}: the same calls with the same answers", letter(i)),
        };
        let _ = writeln!(m, "{line}");
    }
}

/// Colours of the runs in a standalone chart (the page uses CSS classes
/// `cmp-series-N`).
const COLORS: [&str; 4] = ["#3e63dd", "#e5484d", "#30a46c", "#ad7f00"];

/// A grouped bar chart: one group per metric (then calls and tokens), one
/// bar per run, each group scaled to its own largest value.
pub fn metric_svg(runs: &[RunDoc], prices: &PriceTable, standalone: bool) -> String {
    let figs: Vec<RunFigures> = runs.iter().map(|r| figures(&r.events, prices)).collect();
    let mut groups: Vec<(String, Vec<f64>)> = metric_names(&figs)
        .into_iter()
        .map(|n| {
            let vals = figs.iter().map(|f| metric(f, &n).unwrap_or(0.0)).collect();
            (n, vals)
        })
        .collect();
    groups.push((
        "model calls".into(),
        figs.iter().map(|f| f.usage.total.calls as f64).collect(),
    ));
    groups.push((
        "tokens".into(),
        figs.iter().map(|f| tokens(&f.usage.total) as f64).collect(),
    ));
    let n = runs.len().max(1);
    let bar = 16.0;
    let group_w = (bar * n as f64 + 30.0).max(104.0);
    let (left, top, plot_h) = (16.0, 40.0, 120.0);
    let width = left * 2.0 + group_w * groups.len() as f64;
    let height = top + plot_h + 44.0;
    let mut s = format!(
        "<svg class=\"cmp-chart\" viewBox=\"0 0 {width:.0} {height:.0}\" role=\"img\" aria-label=\"The runs' figures side by side\"{}>",
        standalone_svg_attrs(
            standalone,
            format_args!("{width:.0}"),
            format_args!("{height:.0}")
        )
    );
    if standalone {
        s.push_str("<style>text{font-family:system-ui,sans-serif;font-size:10px;fill:#1c2024}.cmp-axis{fill:#555}");
        for (i, c) in COLORS.iter().enumerate() {
            let _ = write!(s, ".cmp-series-{i}{{fill:{c}}}");
        }
        s.push_str("</style><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>");
    }
    for (i, r) in runs.iter().enumerate() {
        let x = left + i as f64 * 150.0;
        let _ = write!(
            s,
            "<rect class=\"cmp-series-{}\" x=\"{x:.1}\" y=\"8\" width=\"10\" height=\"10\" rx=\"2\"/><text x=\"{:.1}\" y=\"17\">{} · {}</text>",
            i % COLORS.len(),
            x + 14.0,
            letter(i),
            esc(&r.config.variant.clone().unwrap_or_else(|| r.config.coordinator.clone()))
        );
    }
    for (g, (name, vals)) in groups.iter().enumerate() {
        let max = vals.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-9);
        let gx = left + g as f64 * group_w + (group_w - bar * n as f64) / 2.0;
        for (i, v) in vals.iter().enumerate() {
            let h = (plot_h * v.abs() / max).max(1.0);
            let x = gx + i as f64 * bar;
            let y = top + plot_h - h;
            let _ = write!(
                s,
                "<rect class=\"cmp-series-{}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{h:.1}\"><title>{}: {}</title></rect><text class=\"cmp-axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"8\">{}</text>",
                i % COLORS.len(),
                bar - 3.0,
                letter(i),
                fmt_value(*v),
                x + (bar - 3.0) / 2.0,
                y - 3.0,
                esc(&short_value(*v))
            );
        }
        let _ = write!(
            s,
            "<text class=\"cmp-axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            gx + bar * n as f64 / 2.0,
            top + plot_h + 16.0,
            esc(&truncate(name, 17))
        );
    }
    s.push_str("</svg>");
    s
}

fn short_value(v: f64) -> String {
    if v.abs() >= 10_000.0 {
        format!("{:.0}k", v / 1000.0)
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() > n {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{ChatRequest, ChatResponse, Message, Usage};
    use crate::engine::run::{LoggedEvent, ModelSpec, RunEvent};

    fn run(variant: &str, agents: &[&str], pass: f64) -> RunDoc {
        let mut c = RunConfig::new("travel", "a | trip", ModelSpec::demo());
        c.variant = Some(variant.into());
        let mut ev = Vec::new();
        for (i, a) in agents.iter().enumerate() {
            ev.push(RunEvent::LlmRequest {
                call: i as u32,
                agent: (*a).into(),
                model: "demo".into(),
                request: ChatRequest::new(vec![Message::user("go")]),
            });
            ev.push(RunEvent::LlmResponse {
                call: i as u32,
                response: ChatResponse {
                    text: "ok".into(),
                    usage: Usage::counted(10, 5),
                    ..ChatResponse::default()
                },
                latency_ms: 1,
                retries: 0,
            });
        }
        ev.push(RunEvent::ScoreComputed {
            name: "final_pass".into(),
            value: pass,
            agent: None,
            detail: serde_json::Value::Null,
        });
        ev.push(RunEvent::RunFinished { output: None });
        let events = ev
            .into_iter()
            .enumerate()
            .map(|(i, event)| LoggedEvent {
                seq: i as u64,
                t_ms: 0,
                event,
            })
            .collect();
        RunDoc::new(c, events)
    }

    #[test]
    fn the_report_has_the_metric_difference_usage_and_divergence() {
        let a = run("fixed", &["hotel", "compiler"], 0.0);
        let b = run("orchestrator", &["orchestrator", "hotel", "compiler"], 1.0);
        let md = markdown("A | B", &[a, b], &PriceTable::default());
        assert!(md.starts_with("# A \\| B\n"), "{md}");
        assert!(md.contains("Task: a \\| trip"));
        assert!(md.contains("| final_pass | 0 | 1 | +1.000 |"), "{md}");
        assert!(md.contains("| orchestrator | — | 1 / 15 |"), "{md}");
        assert!(md.contains("| hotel | 1 / 15 | 1 / 15 |"), "{md}");
        assert!(
            md.contains("- A vs B: at model call 1 (agent): hotel vs orchestrator"),
            "{md}"
        );
        assert!(md.contains("| A | travel · fixed · "), "{md}");
    }

    #[test]
    fn the_chart_has_a_bar_per_run_per_figure_and_escapes_labels() {
        let a = run("<fixed>", &["hotel"], 0.0);
        let b = run("orchestrator", &["orchestrator", "hotel"], 1.0);
        let svg = metric_svg(&[a, b], &PriceTable::default(), true);
        assert!(svg.starts_with("<svg class=\"cmp-chart\""));
        assert!(svg.contains("xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.contains("&lt;fixed&gt;") && !svg.contains("<fixed>"));
        // final_pass, model calls, tokens: 3 groups × 2 runs (+ 2 legend swatches).
        assert_eq!(svg.matches("<rect class=\"cmp-series-").count(), 3 * 2 + 2);
        assert!(svg.contains("<title>B: 2</title>"), "B made 2 calls");
    }
}
