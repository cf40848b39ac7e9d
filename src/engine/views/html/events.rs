//! One row of the Events tab: summary line, expandable to the raw JSON.

use super::esc;
use crate::engine::run::{json, LoggedEvent};
use crate::engine::views::events::summarize;

pub fn event_row(e: &LoggedEvent) -> String {
    let kind = e.event.kind();
    format!(
        "<details><summary><span class=\"ev-seq\">{}</span><span class=\"ev-time\">{:.2}s</span><span class=\"ev-kind\">{kind}</span><span class=\"ev-summary\">{}</span></summary><pre tabindex=\"0\">{}</pre></details>",
        e.seq,
        e.t_ms as f64 / 1000.0,
        esc(&summarize(&e.event)),
        esc(&json::pretty(&json::to_text(e)))
    )
}
