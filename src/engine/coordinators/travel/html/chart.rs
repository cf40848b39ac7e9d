//! The batch's rates as a grouped bar chart (SVG): one group of bars per
//! rate, one bar per run group. On the page the colours come from the
//! app's CSS variables (`tp-series-N` classes in style/travel.css);
//! `standalone` embeds its own styles and background for a file. Every
//! label is escaped.

use crate::engine::coordinators::travel::report::comparison::{
    batch_groups, rate_rows, BatchEntry,
};
use crate::engine::views::html::{esc, standalone_svg_attrs};
use std::fmt::Write;

pub const CHART_W: f64 = 640.0;
pub const CHART_H: f64 = 320.0;
const LEFT: f64 = 44.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 46.0;
/// Colours cycle after this many series.
pub const SERIES: usize = 8;
const STANDALONE_COLORS: [&str; SERIES] = [
    "#5b5bd6", "#30a46c", "#f5a524", "#8e4ec6", "#d93d42", "#218358", "#ab6400", "#60646c",
];
const SHORT: [(&str, &str); 6] = [
    ("Delivery", ""),
    ("Commonsense", "micro"),
    ("Commonsense", "macro"),
    ("Hard", "micro"),
    ("Hard", "macro"),
    ("Final", "pass"),
];

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() > n {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    } else {
        s.to_string()
    }
}

fn standalone_style() -> String {
    let mut s = String::from("text{font-family:system-ui,sans-serif;fill:#1c2024}.tp-axis{font-size:10px;fill:#60646c}.tp-grid{stroke:#dfe3e8}.tp-label{font-size:11px;text-anchor:middle}.tp-legend{font-size:11px}.tp-value{font-size:9px;text-anchor:middle;fill:#60646c}");
    for (i, c) in STANDALONE_COLORS.iter().enumerate() {
        let _ = write!(s, ".tp-series-{i}{{fill:{c}}}");
    }
    s
}

/// The chart of the six rates per group.
pub fn batch_chart_svg(runs: &[BatchEntry], standalone: bool) -> String {
    let groups = batch_groups(runs);
    // Legend across the top, wrapped into rows that fit the width.
    let mut legend = String::new();
    let (mut lx, mut ly) = (LEFT, 10.0);
    for (i, g) in groups.iter().enumerate() {
        let label = truncate(&g.group, 40);
        let width = 24.0 + label.chars().count() as f64 * 6.8;
        if lx > LEFT && lx + width > CHART_W - RIGHT {
            lx = LEFT;
            ly += 16.0;
        }
        let _ = write!(
            legend,
            "<g class=\"tp-legend-item\"><rect class=\"tp-series-{}\" x=\"{lx:.1}\" y=\"{ly:.1}\" width=\"10\" height=\"10\" rx=\"2\"/><text class=\"tp-legend\" x=\"{:.1}\" y=\"{:.1}\">{}</text></g>",
            i % SERIES,
            lx + 14.0,
            ly + 9.0,
            esc(&label)
        );
        lx += width;
    }
    let top = TOP + (ly - 10.0);
    let height = CHART_H + (ly - 10.0);
    let mut s = format!(
        "<svg class=\"tp-chart\" viewBox=\"0 0 {CHART_W} {height}\" role=\"img\" aria-label=\"Pass rates per group\"{}>",
        standalone_svg_attrs(standalone, CHART_W, height)
    );
    if standalone {
        let _ = write!(
            s,
            "<style>{}</style><rect width=\"{CHART_W}\" height=\"{height}\" fill=\"#fff\"/>",
            standalone_style()
        );
    }
    let plot_h = CHART_H - TOP - BOTTOM;
    let plot_w = CHART_W - LEFT - RIGHT;
    let y_of = |r: f64| top + plot_h * (1.0 - r.clamp(0.0, 1.0));
    for tick in 0..=4 {
        let r = tick as f64 / 4.0;
        let y = y_of(r);
        let _ = write!(
            s,
            "<line class=\"tp-grid\" x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/><text class=\"tp-axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}%</text>",
            CHART_W - RIGHT,
            LEFT - 6.0,
            y + 3.0,
            tick * 25
        );
    }
    s.push_str(&legend);
    let slot = plot_w / 6.0;
    let n = groups.len().max(1) as f64;
    let bar = (slot * 0.8 / n).min(36.0);
    let show_values = groups.len() <= 4;
    for (m, (line1, line2)) in SHORT.iter().enumerate() {
        let x0 = LEFT + slot * m as f64 + (slot - bar * n) / 2.0;
        for (i, g) in groups.iter().enumerate() {
            let (name, rate) = rate_rows(&g.summary)[m];
            let (x, y) = (x0 + bar * i as f64, y_of(rate));
            let _ = write!(
                s,
                "<rect class=\"tp-bar tp-series-{}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\"><title>{}</title></rect>",
                i % SERIES,
                (bar - 2.0).max(1.0),
                top + plot_h - y,
                esc(&format!("{} — {name}: {:.2}%", g.group, rate * 100.0))
            );
            if show_values {
                let _ = write!(
                    s,
                    "<text class=\"tp-value\" x=\"{:.1}\" y=\"{:.1}\">{:.0}</text>",
                    x + bar / 2.0 - 1.0,
                    y - 3.0,
                    rate * 100.0
                );
            }
        }
        let cx = LEFT + slot * (m as f64 + 0.5);
        let _ = write!(
            s,
            "<text class=\"tp-label\" x=\"{cx:.1}\" y=\"{:.1}\">{line1}<tspan x=\"{cx:.1}\" dy=\"13\">{line2}</tspan></text>",
            top + plot_h + 16.0
        );
    }
    s.push_str("</svg>");
    s
}
