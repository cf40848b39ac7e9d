//! ACT's views as HTML and SVG (escaped text only; pure functions, tested
//! natively): the meeting room, the meetings, every agent's memory, the
//! task evolution, the production rounds and the deliverable with its
//! scores, and the batch report's tables and chart.

pub mod meetings;
pub mod memory;
pub mod output;
pub mod report;
pub mod room;
pub mod tasks;

/// An importance 0–10 as a small bar.
pub fn importance_bar(v: u8) -> String {
    format!(
        "<span class=\"act-imp\" title=\"importance {v} of 10\"><span style=\"width:{}%\"></span></span><span class=\"small act-imp-n\">{v}</span>",
        u32::from(v.min(10)) * 10
    )
}

/// Up to `n` characters of `s`, with an ellipsis when cut.
pub fn excerpt(s: &str, n: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= n {
        return s.to_string();
    }
    format!("{}…", s.chars().take(n).collect::<String>())
}

/// The flags a repair left, as a warning line (empty when none).
pub fn flags_html(flags: &[String]) -> String {
    if flags.is_empty() {
        return String::new();
    }
    let items: Vec<String> = flags
        .iter()
        .map(|f| crate::engine::views::html::esc(f))
        .collect();
    format!(
        "<p class=\"small act-flags\" title=\"repaired model output\">⚑ {}</p>",
        items.join("; ")
    )
}
