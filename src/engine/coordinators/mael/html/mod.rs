//! MAEL's views as HTML and SVG (escaped text only; pure functions, tested
//! natively): the call tree, the retrieval inspector and the experiences a
//! run stored, the team graph, the pool inspector, and the evaluation's
//! tables and charts.

pub mod memory;
pub mod pool;
pub mod report;
pub mod team;
pub mod tree;

/// A reward or score in [0, 1] as a coloured badge.
pub fn reward_badge(r: f64) -> String {
    let class = if r >= 0.75 {
        "pass"
    } else if r >= 0.45 {
        "na"
    } else {
        "fail"
    };
    format!("<span class=\"tp-badge tp-{class} ml-reward\" title=\"reward\">{r:.2}</span>")
}
