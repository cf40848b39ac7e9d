//! The travel planner's run panels as HTML: the notebook and each agent's
//! inspector. Every name and text is escaped (they come from models and
//! tools). Clickable things carry `data-action` with `data-seq` (an event)
//! for the UI's delegated click handler.

use super::esc;
use crate::engine::coordinators::travel::contract::{Reflection, ORCHESTRATOR, PLAN};
use crate::engine::views::graph_svg::agent_color;
use crate::engine::views::travel::{
    args_text, CallState, LlmCallView, NotebookCard, ToolCallView, ToolTable, TravelView,
};
use std::fmt::Write;

pub const NOTEBOOK_EMPTY: &str = "The experts' tool results appear here, as the notebook fills.";

/// A tool table as an HTML table.
pub fn tool_table_html(t: &ToolTable) -> String {
    let mut h = String::from(
        "<div class=\"tp-table-wrap\"><table class=\"tp-table tp-tool-table\"><thead><tr>",
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
        agent_color(&e.author),
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

fn badge(class: &str, label: &str) -> String {
    format!("<span class=\"tp-badge tp-{class}\">{}</span>", esc(label))
}

fn tool_call_html(t: &ToolCallView) -> String {
    let (class, label, out) = match &t.result {
        None => ("pending", "pending", "…"),
        Some((true, o)) => ("ok", "ok", o.as_str()),
        Some((false, o)) => ("error", "error", o.as_str()),
    };
    format!(
        "<details class=\"tp-tool tp-tool-{class}\" data-seq=\"{}\"><summary><code>{}</code> {}{}</summary><pre>{}</pre></details>",
        t.seq,
        esc(&format!("{}[{}]", t.tool, args_text(&t.args))),
        badge(if class == "ok" { "pass" } else if class == "error" { "fail" } else { "na" }, label),
        t.call.map(|c| format!(" <span class=\"muted small\">call {c}</span>")).unwrap_or_default(),
        esc(out)
    )
}

fn llm_call_html(c: &LlmCallView) -> String {
    let state = match &c.state {
        CallState::Streaming => badge("na", "streaming"),
        CallState::Done => String::new(),
        CallState::Failed(_) => badge("fail", "failed"),
    };
    let mut h = format!(
        "<article class=\"tp-llm\" data-call=\"{}\" data-seq=\"{}\"><header class=\"tp-llm-head\"><span class=\"tp-key\">Call {}</span>{}{state}</header>",
        c.call,
        c.seq,
        c.call,
        c.step.as_deref().map(|s| format!(" <code class=\"small\">{}</code>", esc(s))).unwrap_or_default(),
    );
    let _ = write!(
        h,
        "<details class=\"tp-prompt\"><summary>Request (last user message)</summary><pre>{}</pre></details>",
        esc(&c.prompt)
    );
    if let CallState::Failed(msg) = &c.state {
        let _ = write!(h, "<p class=\"bad small\">{}</p>", esc(msg));
    }
    if !c.answer.is_empty() {
        let _ = write!(h, "<pre class=\"tp-answer\">{}</pre>", esc(&c.answer));
    }
    if !c.tool_calls.is_empty() {
        h.push_str("<ul class=\"tool-chips\">");
        for t in &c.tool_calls {
            let _ = write!(h, "<li class=\"chip\">{}</li>", esc(t));
        }
        h.push_str("</ul>");
    }
    h.push_str("</article>");
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

fn section(title: &str, count: usize, body: String) -> String {
    format!("<section class=\"tp-section\"><h4 class=\"tp-h\">{title} <span class=\"muted small\">({count})</span></h4>{body}</section>")
}

/// One agent's private activity: its reflections (orchestrator), tool
/// calls with results, and LLM calls.
pub fn inspector_html(view: &TravelView, agent: &str) -> String {
    let mut h = format!(
        "<div class=\"tp-inspector\" data-agent=\"{}\"><header class=\"tp-card-head\"><span class=\"tp-author\" style=\"--agent:{}\">{}</span></header>",
        esc(agent),
        agent_color(agent),
        esc(view.name_of(agent))
    );
    let reflections: Vec<_> = view.reflections_of(agent).collect();
    if agent == ORCHESTRATOR || !reflections.is_empty() {
        let body = if reflections.is_empty() {
            "<p class=\"tp-empty muted small\">No reflections yet.</p>".to_string()
        } else {
            reflections
                .iter()
                .map(|r| reflection_html(&r.reflection, r.seq, view))
                .collect()
        };
        h.push_str(&section("Reflections", reflections.len(), body));
    }
    let insp = view.inspector(agent);
    let tools = insp.map(|i| i.tool_calls.as_slice()).unwrap_or_default();
    let calls = insp.map(|i| i.llm_calls.as_slice()).unwrap_or_default();
    if !tools.is_empty() {
        h.push_str(&section(
            "Tool calls",
            tools.len(),
            tools.iter().map(tool_call_html).collect(),
        ));
    }
    if calls.is_empty() {
        h.push_str("<p class=\"tp-empty muted small\">No LLM calls yet.</p>");
    } else {
        h.push_str(&section(
            "LLM calls",
            calls.len(),
            calls.iter().map(llm_call_html).collect(),
        ));
    }
    h.push_str("</div>");
    h
}

/// The hand-offs in order: from → to, and why.
pub fn handoffs_html(view: &TravelView) -> String {
    if view.handoffs.is_empty() {
        return "<p class=\"tp-empty muted small\">No hand-offs yet.</p>".into();
    }
    let mut h = String::from("<ol class=\"tp-handoffs\">");
    for x in &view.handoffs {
        let _ = write!(
            h,
            "<li data-seq=\"{}\"><span class=\"tp-author\" style=\"--agent:{}\">{}</span> → <span class=\"tp-author\" style=\"--agent:{}\">{}</span> <span class=\"muted small\">{}</span></li>",
            x.seq,
            agent_color(&x.from),
            esc(view.name_of(&x.from)),
            agent_color(&x.to),
            esc(view.name_of(&x.to)),
            esc(&x.reason)
        );
    }
    h.push_str("</ol>");
    h
}
