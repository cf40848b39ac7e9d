//! The replay timeline as SVG text: phase bands, one lane per agent with
//! its LLM calls as spans (a tooltip names each), and marks for its
//! messages, hand-offs and tool calls. Drawn on a `width` × (bands + lanes)
//! box that the page stretches to its width.

use super::agents::AgentMarks;
use super::esc;
use crate::engine::views::timeline::Timeline;
use std::fmt::Write;

pub const LANE_H: f64 = 14.0;
pub const BAND_H: f64 = 4.0;

/// The drawing's height for `t`.
pub fn timeline_height(t: &Timeline) -> f64 {
    BAND_H + t.lanes.len() as f64 * LANE_H + 4.0
}

/// The timeline's `<svg>`, `width` user units wide.
pub fn timeline_svg(t: &Timeline, width: f64) -> String {
    let d = t.duration_ms.max(1) as f64;
    let x = |ms: u64| ms as f64 / d * width;
    let h = timeline_height(t);
    let lanes_h = t.lanes.len() as f64 * LANE_H;
    let mut s = format!(
        "<svg viewBox=\"0 0 {width} {h}\" preserveAspectRatio=\"none\" style=\"height:{h}px\">"
    );
    for (i, b) in t.bands.iter().enumerate() {
        let x0 = x(b.start_ms);
        let w = (x(b.end_ms) - x0).max(2.0);
        let _ = write!(
            s,
            "<g class=\"band band-{}\"><rect x=\"{x0:.1}\" y=\"0\" width=\"{w:.1}\" height=\"{}\"/></g>",
            i % 4,
            BAND_H + lanes_h
        );
    }
    let marks = AgentMarks::of(t.lanes.iter().map(|l| (l.agent.as_str(), l.name.as_str())));
    for (i, l) in t.lanes.iter().enumerate() {
        let y = BAND_H + i as f64 * LANE_H;
        let color = marks.color(&l.agent);
        let name = esc(&l.name);
        let _ = write!(s, "<g class=\"lane\"><title>{name}</title>");
        for c in &l.calls {
            let x0 = x(c.start_ms);
            let w = (x(c.end_ms) - x0).max(3.0);
            let class = if c.failed { "call failed" } else { "call" };
            let _ = write!(
                s,
                "<rect class=\"{class}\" x=\"{x0:.1}\" y=\"{}\" width=\"{w:.1}\" height=\"{}\" rx=\"2\" style=\"fill:{}\"><title>{name}: call {}</title></rect>",
                y + 3.0,
                LANE_H - 6.0,
                esc(color),
                c.call + 1
            );
        }
        for m in &l.marks {
            let _ = write!(
                s,
                "<circle class=\"mark\" cx=\"{:.1}\" cy=\"{}\" r=\"2.2\"/>",
                x(*m),
                y + LANE_H / 2.0
            );
        }
        s.push_str("</g>");
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::views::timeline::{Band, Lane, Span};

    #[test]
    fn draws_bands_lanes_calls_and_marks_with_names_escaped() {
        let t = Timeline {
            duration_ms: 1000,
            bands: vec![Band {
                label: "plan".into(),
                start_ms: 0,
                end_ms: 500,
            }],
            lanes: vec![Lane {
                agent: "a".into(),
                name: "<b>Ann</b>".into(),
                calls: vec![Span {
                    call: 0,
                    start_ms: 100,
                    end_ms: 600,
                    failed: true,
                    event: 3,
                }],
                marks: vec![700],
            }],
            call_starts: vec![3],
        };
        let svg = timeline_svg(&t, 1000.0);
        assert!(svg.starts_with("<svg viewBox=\"0 0 1000 22\""), "{svg}");
        assert!(svg.contains("<rect x=\"0.0\" y=\"0\" width=\"500.0\" height=\"18\"/>"));
        assert!(svg.contains("class=\"call failed\" x=\"100.0\" y=\"7\" width=\"500.0\""));
        assert!(svg.contains("&lt;b&gt;Ann&lt;/b&gt;: call 1"));
        assert!(!svg.contains("<b>"));
        assert!(svg.contains("<circle class=\"mark\" cx=\"700.0\" cy=\"11\""));
        assert_eq!(timeline_height(&t), 22.0);
    }
}
