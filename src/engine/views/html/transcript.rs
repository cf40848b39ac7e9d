//! One transcript entry as HTML.

use super::esc;
use super::graph::agent_color;
use super::markdown::to_safe_html;
use crate::engine::model::reply::Repair;
use crate::engine::run::Audience;
use crate::engine::views::transcript::{Entry, EntryKind, NoticeLevel, Transcript};

fn audience(t: &Transcript, to: &Option<Audience>) -> String {
    match to {
        None => "private (not posted)".into(),
        Some(Audience::Public) => "to everyone".into(),
        Some(Audience::To(list)) => format!("to {}", t.names_of(list)),
    }
}

pub fn entry_html(e: &Entry, t: &Transcript) -> String {
    match &e.kind {
        EntryKind::Message {
            from,
            to,
            text,
            streaming,
            tool_calls,
            call,
            repairs,
        } => {
            let name = t.name_of(from);
            let initial: String = name.chars().next().unwrap_or('?').to_uppercase().collect();
            let user = from == "user";
            let color = if user {
                "var(--muted)".to_string()
            } else {
                agent_color(from)
            };
            let mut h = format!(
                "<article class=\"msg{}{}\"{}><div class=\"avatar\" style=\"background:{color}\" aria-hidden=\"true\">{}</div><div class=\"msg-main\"><header class=\"msg-head\"><span class=\"msg-name\">{}</span><span class=\"muted small\">{}</span>",
                if *streaming { " streaming" } else { "" },
                if user { " from-user" } else { "" },
                call.map(|c| format!(" data-call=\"{c}\"")).unwrap_or_default(),
                esc(&initial),
                esc(name),
                if user { String::new() } else { esc(&audience(t, to)) },
            );
            if *streaming {
                h.push_str("<span class=\"typing\" aria-label=\"streaming\">●●●</span>");
            } else if let Some(c) = call {
                h.push_str(&format!("<button class=\"link-button small fork-btn\" data-action=\"fork\" data-call=\"{c}\" title=\"Continue the run from this LLM call, optionally editing it\">Fork here</button>"));
            }
            h.push_str("</header>");
            h.push_str(&repair_mark(repairs));
            if text.is_empty() && *streaming {
                h.push_str("<p class=\"muted small\">Waiting for the first tokens…</p>");
            } else {
                h.push_str(&format!("<div class=\"md\">{}</div>", to_safe_html(text)));
            }
            if !tool_calls.is_empty() {
                h.push_str("<ul class=\"tool-chips\">");
                for c in tool_calls {
                    h.push_str(&format!(
                        "<li class=\"chip\">{}</li>",
                        esc(&format!("{}({})", c.name, c.arguments))
                    ));
                }
                h.push_str("</ul>");
            }
            h.push_str("</div></article>");
            h
        }
        EntryKind::Tool {
            agent,
            tool,
            args,
            output,
            ..
        } => {
            let (state, out) = match output {
                None => ("pending", "…"),
                Some((true, o)) => ("ok", o.as_str()),
                Some((false, o)) => ("error", o.as_str()),
            };
            format!(
                "<details class=\"tool tool-{state}\"><summary><span class=\"muted small\">{}</span> <code>{}</code></summary><pre tabindex=\"0\">{}</pre></details>",
                esc(t.name_of(agent)),
                esc(&format!("{tool}({args})")),
                esc(out)
            )
        }
        EntryKind::Handoff { from, to, reason } => format!(
            "<div class=\"handoff\">{} → {} <span class=\"muted small\">{}</span></div>",
            esc(t.name_of(from)),
            esc(t.name_of(to)),
            esc(reason)
        ),
        EntryKind::Phase { label } => {
            format!("<div class=\"phase\"><span>{}</span></div>", esc(label))
        }
        EntryKind::Notice { level, text } => {
            let class = match level {
                NoticeLevel::Info => "info",
                NoticeLevel::Warning => "warning",
                NoticeLevel::Error => "error",
                NoticeLevel::Success => "success",
            };
            format!("<div class=\"notice {class}\"><p>{}</p></div>", esc(text))
        }
    }
}

/// The mark on a reply its step had to repair: a summary a keyboard and a
/// screen reader reach (a `<details>`), opening to what was wrong and what
/// was done.
pub fn repair_mark(repairs: &[Repair]) -> String {
    if repairs.is_empty() {
        return String::new();
    }
    let mut labels: Vec<&str> = Vec::new();
    for r in repairs {
        if !labels.contains(&r.kind.label()) {
            labels.push(r.kind.label());
        }
    }
    let mut h = format!(
        "<details class=\"repair-mark\"><summary><span class=\"repair-badge\">Reply repaired</span> <span class=\"muted small\">{}</span></summary><ul>",
        esc(&labels.join(", "))
    );
    for r in repairs {
        h.push_str(&format!("<li>{}</li>", esc(&r.detail)));
    }
    h.push_str("</ul></details>");
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::ToolCall;

    fn entry(kind: EntryKind) -> Entry {
        Entry {
            id: 0,
            version: 0,
            kind,
        }
    }

    #[test]
    fn names_and_tool_text_are_escaped_and_model_text_is_safe_markdown() {
        let mut t = Transcript::default();
        t.names.insert("a".into(), "<b>Agent</b>".into());
        let msg = entry(EntryKind::Message {
            from: "a".into(),
            to: Some(Audience::To(vec!["user".into()])),
            text: "**hi** <script>alert(1)</script>".into(),
            call: Some(3),
            streaming: false,
            tool_calls: vec![ToolCall {
                id: "1".into(),
                name: "T".into(),
                arguments: "{\"x\":\"<img>\"}".into(),
            }],
            repairs: vec![],
        });
        let h = entry_html(&msg, &t);
        assert!(
            h.contains("&lt;b&gt;Agent&lt;/b&gt;") && !h.contains("<b>Agent"),
            "{h}"
        );
        assert!(
            h.contains("<strong>hi</strong>")
                && h.contains("&lt;script&gt;")
                && !h.contains("<script"),
            "{h}"
        );
        assert!(h.contains("data-action=\"fork\" data-call=\"3\""));
        assert!(h.contains("&lt;img&gt;") && !h.contains("<img"));
        let tool = entry(EntryKind::Tool {
            id: "x".into(),
            agent: "a".into(),
            tool: "T".into(),
            args: serde_json::json!({"q": "</pre><script>"}),
            output: Some((true, "<iframe>".into())),
        });
        let h = entry_html(&tool, &t);
        assert!(
            !h.contains("<script") && !h.contains("<iframe") && h.contains("tool-ok"),
            "{h}"
        );
    }

    #[test]
    fn streaming_entries_have_no_fork_button() {
        let msg = entry(EntryKind::Message {
            from: "a".into(),
            to: None,
            text: String::new(),
            call: Some(1),
            streaming: true,
            tool_calls: vec![],
            repairs: vec![],
        });
        let h = entry_html(&msg, &Transcript::default());
        assert!(h.contains("Waiting for the first tokens") && !h.contains("fork"));
        assert!(!h.contains("repair"), "{h}");
    }

    #[test]
    fn a_repaired_reply_carries_a_reachable_mark_saying_what_was_done() {
        use crate::engine::model::reply::RepairKind;
        let msg = entry(EntryKind::Message {
            from: "a".into(),
            to: None,
            text: "{\"score\": 7,".into(),
            call: Some(2),
            streaming: false,
            tool_calls: vec![],
            repairs: vec![
                Repair::new(RepairKind::Closed, "the JSON was cut off <b>: closed it"),
                Repair::new(RepairKind::Default, "no score: used 0"),
            ],
        });
        let h = entry_html(&msg, &Transcript::default());
        assert!(
            h.contains("<details class=\"repair-mark\"><summary>"),
            "{h}"
        );
        assert!(h.contains("cut-off JSON closed, default used"), "{h}");
        assert!(
            h.contains("closed it") && h.contains("&lt;b&gt;") && !h.contains("<b>"),
            "{h}"
        );
    }
}
