//! The travel planner's run panels as HTML: the notebook and the
//! orchestrator's reflections (a section of its inspector). Every name and
//! text is escaped (they come from models and tools). Clickable things
//! carry `data-action` with `data-seq` (an event) for the UI's delegated
//! click handler.

use crate::engine::coordinators::travel::contract::{Reflection, ORCHESTRATOR, PLAN};
use crate::engine::coordinators::travel::view::{NotebookCard, TravelView};
use crate::engine::domains::travel::table_read::ToolTable;
use crate::engine::views::html::esc;
use crate::engine::views::html::inspector::section;
use std::fmt::Write;

pub const NOTEBOOK_EMPTY: &str = "The experts' tool results appear here, as the notebook fills.";

/// A tool table as an HTML table.
pub fn tool_table_html(t: &ToolTable) -> String {
    let mut h = String::from(
        "<div class=\"tp-table-wrap\" tabindex=\"0\"><table class=\"tp-table tp-tool-table\"><thead><tr>",
    );
    for c in &t.header {
        let _ = write!(h, "<th scope=\"col\">{}</th>", esc(c));
    }
    h.push_str("</tr></thead><tbody>");
    for row in &t.rows {
        h.push_str("<tr>");
        for c in row {
            let _ = write!(h, "<td>{}</td>", esc(c));
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table></div>");
    h
}

fn source_button(seq: u64) -> String {
    format!("<button type=\"button\" class=\"link-button small tp-source\" data-action=\"show-event\" data-seq=\"{seq}\" title=\"Show the tool call in the Events tab\">source</button>")
}

fn note_card(card: &NotebookCard, view: &TravelView) -> String {
    let e = &card.entry;
    let call = format!("{}[{}]", e.tool, e.args.join(", "));
    let mut h = format!(
        "<li class=\"tp-card tp-note{}\" data-key=\"{}\" data-author=\"{}\" data-seq=\"{}\"><header class=\"tp-card-head\"><span class=\"tp-key\">{}</span> · <span class=\"tp-author\" style=\"--agent:{}\">{}</span> · <code class=\"tp-call\">{}</code>",
        if e.ok { "" } else { " tp-note-error" },
        esc(&card.key),
        esc(&e.author),
        card.seq,
        esc(&card.key),
        view.marks.color(&e.author),
        esc(view.name_of(&e.author)),
        esc(&call),
    );
    if let Some(t) = &card.table {
        let n = t.rows.len();
        let _ = write!(
            h,
            " <span class=\"muted small tp-count\">{n} row{}</span>",
            if n == 1 { "" } else { "s" }
        );
    }
    if let Some(seq) = card.source_seq {
        h.push_str(&source_button(seq));
    }
    h.push_str("</header>");
    match &card.table {
        Some(t) => h.push_str(&tool_table_html(t)),
        None => {
            let _ = write!(h, "<pre class=\"tp-raw\">{}</pre>", esc(&e.content));
        }
    }
    h.push_str("</li>");
    h
}

/// The notebook: one card per entry, newest last.
pub fn notebook_html(view: &TravelView) -> String {
    if view.notebook.is_empty() {
        return format!("<p class=\"tp-empty muted\">{NOTEBOOK_EMPTY}</p>");
    }
    let mut h = String::from("<ol class=\"tp-notebook\">");
    for card in &view.notebook {
        h.push_str(&note_card(card, view));
    }
    h.push_str("</ol>");
    h
}

fn dash(s: &str) -> String {
    if s.trim().is_empty() {
        "—".into()
    } else {
        esc(s)
    }
}

/// One orchestrator reflection: done / missing / conflicts / next / instruction.
pub fn reflection_html(r: &Reflection, seq: u64, view: &TravelView) -> String {
    let d = &r.decision;
    let next = if d.next.trim() == PLAN {
        "plan".to_string()
    } else {
        view.name_of(d.next.trim()).to_string()
    };
    let mut h = format!(
        "<article class=\"tp-reflection\" data-seq=\"{seq}\"><header class=\"tp-llm-head\"><span class=\"tp-key\">Step {}</span> → <strong>{}</strong></header><dl class=\"tp-dl\">",
        r.step,
        esc(&next)
    );
    for (label, value) in [
        ("Done", &d.done),
        ("Missing", &d.missing),
        ("Conflicts", &d.conflicts),
        ("Next", &d.next),
        ("Instruction", &d.instruction),
    ] {
        let _ = write!(h, "<dt>{label}</dt><dd>{}</dd>", dash(value));
    }
    h.push_str("</dl>");
    if let Some(f) = &r.fallback {
        let _ = write!(h, "<p class=\"tp-fallback small\">Fallback: {}</p>", esc(f));
    }
    h.push_str("</article>");
    h
}

/// The orchestrator's reflections, for its inspector: one article per
/// step, or a note that there are none yet.
pub fn reflections_html(view: &TravelView, agent: &str) -> String {
    let reflections: Vec<_> = view.reflections_of(agent).collect();
    if agent != ORCHESTRATOR && reflections.is_empty() {
        return String::new();
    }
    let body = if reflections.is_empty() {
        "<p class=\"tp-empty muted small\">No reflections yet.</p>".to_string()
    } else {
        reflections
            .iter()
            .map(|r| reflection_html(&r.reflection, r.seq, view))
            .collect()
    };
    section("Reflections", reflections.len(), body)
}
