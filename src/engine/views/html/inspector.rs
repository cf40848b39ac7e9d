//! The inspector as HTML: what one agent did, from the generic
//! [`InspectorView`] (every coordinator's runs). A coordinator adds its own
//! sections (e.g. the travel orchestrator's reflections) next to it. Every
//! name and text is escaped: they come from models and tools.

use super::esc;
use crate::engine::views::inspector::{
    args_text, CallState, HandoffItem, Handoffs, InspectorView, LlmCallView, ToolCallView,
};
use std::fmt::Write;

/// A small coloured label (`pass`, `fail`, `na`).
pub fn badge(class: &str, label: &str) -> String {
    format!("<span class=\"tp-badge tp-{class}\">{}</span>", esc(label))
}

/// A titled section with a count.
pub fn section(title: &str, count: usize, body: String) -> String {
    format!("<section class=\"tp-section\"><h4 class=\"tp-h\">{title} <span class=\"muted small\">({count})</span></h4>{body}</section>")
}

fn tool_call_html(t: &ToolCallView) -> String {
    let (class, label, out) = match &t.result {
        None => ("pending", "pending", "…"),
        Some((true, o)) => ("ok", "ok", o.as_str()),
        Some((false, o)) => ("error", "error", o.as_str()),
    };
    format!(
        "<details class=\"tp-tool tp-tool-{class}\" data-seq=\"{}\"><summary><code>{}</code> {}{}</summary><pre tabindex=\"0\">{}</pre></details>",
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
    if let Some(system) = &c.system {
        let _ = write!(
            h,
            "<details class=\"tp-prompt\"><summary>System prompt</summary><pre tabindex=\"0\">{}</pre></details>",
            esc(system)
        );
    }
    let _ = write!(
        h,
        "<details class=\"tp-prompt\"><summary>Request (last user message)</summary><pre tabindex=\"0\">{}</pre></details>",
        esc(&c.prompt)
    );
    if let Some(schema) = &c.schema {
        let _ = write!(
            h,
            "<details class=\"tp-prompt\"><summary>Reply shape asked for (JSON Schema)</summary><pre tabindex=\"0\">{}</pre></details>",
            esc(schema)
        );
    }
    if let Some(grammar) = &c.grammar {
        let _ = write!(
            h,
            "<details class=\"tp-prompt\"><summary>Reply grammar asked for (tool calls whole or none)</summary><pre tabindex=\"0\">{}</pre></details>",
            esc(grammar)
        );
    }
    if let CallState::Failed(msg) = &c.state {
        let _ = write!(h, "<p class=\"bad small\">{}</p>", esc(msg));
    }
    if !c.answer.is_empty() {
        let _ = write!(
            h,
            "<pre class=\"tp-answer\" tabindex=\"0\">{}</pre>",
            esc(&c.answer)
        );
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

/// One agent's private activity, headed by its name: its tool calls with
/// results, the hand-offs it gave or received, and its LLM calls.
pub fn inspector_html(view: &InspectorView, agent: &str) -> String {
    format!(
        "<div class=\"tp-inspector\" data-agent=\"{}\">{}{}</div>",
        esc(agent),
        agent_head_html(view, agent),
        activity_html(view, agent)
    )
}

/// The agent's name in its colour.
pub fn agent_head_html(view: &InspectorView, agent: &str) -> String {
    format!(
        "<header class=\"tp-card-head\"><span class=\"tp-author\" style=\"--agent:{}\">{}</span></header>",
        view.handoffs.marks.color(agent),
        esc(view.name_of(agent))
    )
}

/// The agent's tool calls, hand-offs and LLM calls.
pub fn activity_html(view: &InspectorView, agent: &str) -> String {
    let mut h = String::new();
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
    let handoffs: Vec<_> = view.handoffs_of(agent).collect();
    if !handoffs.is_empty() {
        h.push_str(&section(
            "Hand-offs",
            handoffs.len(),
            handoff_list(&view.handoffs, handoffs.into_iter()),
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
    h
}

/// The hand-offs in order: from → to, and why.
pub fn handoffs_html(view: &Handoffs) -> String {
    if view.items.is_empty() {
        return "<p class=\"tp-empty muted small\">No hand-offs yet.</p>".into();
    }
    handoff_list(view, view.items.iter())
}

fn handoff_list<'a>(view: &Handoffs, items: impl Iterator<Item = &'a HandoffItem>) -> String {
    let mut h = String::from("<ol class=\"tp-handoffs\">");
    for x in items {
        let _ = write!(
            h,
            "<li data-seq=\"{}\"><span class=\"tp-author\" style=\"--agent:{}\">{}</span> → <span class=\"tp-author\" style=\"--agent:{}\">{}</span> <span class=\"muted small\">{}</span></li>",
            x.seq,
            view.marks.color(&x.from),
            esc(view.name_of(&x.from)),
            view.marks.color(&x.to),
            esc(view.name_of(&x.to)),
            esc(&x.reason)
        );
    }
    h.push_str("</ol>");
    h
}
