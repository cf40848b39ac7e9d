//! One transcript entry as HTML.

use super::agents::AgentMarks;
use super::esc;
use super::markdown::to_safe_html;
use crate::engine::model::reply::Repair;
use crate::engine::model::shape::StructuredMode;
use crate::engine::run::Audience;
use crate::engine::views::transcript::{Cut, Entry, EntryKind, NoticeLevel, Transcript};

fn audience(t: &Transcript, to: &Option<Audience>) -> String {
    match to {
        None => "private (not posted)".into(),
        Some(Audience::Public) => "to everyone".into(),
        Some(Audience::To(list)) => format!("to {}", t.names_of(list)),
    }
}

/// One entry, its avatar marked from the transcript's names alone (sorted
/// by id); the run page passes the graph's marks to
/// [`entry_html_with`], so that avatars and graph nodes agree.
pub fn entry_html(e: &Entry, t: &Transcript) -> String {
    let mut names: Vec<(&str, &str)> = t
        .names
        .iter()
        .map(|(i, n)| (i.as_str(), n.as_str()))
        .collect();
    names.sort_unstable();
    entry_html_with(e, t, &AgentMarks::of(names))
}

/// One entry; its avatar has the agent's colour and initials in `marks`.
pub fn entry_html_with(e: &Entry, t: &Transcript, marks: &AgentMarks) -> String {
    match &e.kind {
        EntryKind::Message {
            from,
            to,
            text,
            streaming,
            tool_calls,
            call,
            repairs,
            cut,
            structured,
        } => {
            let name = t.name_of(from);
            let initial = marks.initial(from, name);
            let user = from == "user";
            let color = if user {
                "var(--muted)"
            } else {
                marks.color(from)
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
            if let Some(mode) = structured {
                h.push_str(&shape_mark(*mode));
            }
            h.push_str("</header>");
            h.push_str(&repair_mark(repairs));
            if text.is_empty() && *streaming {
                h.push_str("<p class=\"muted small\">Waiting for the first tokens…</p>");
            } else {
                h.push_str(&format!("<div class=\"md\">{}</div>", to_safe_html(text)));
            }
            h.push_str(&finish_mark(
                *cut,
                Sampled {
                    temperature: call.and_then(|c| t.temperature_of(c)),
                    repeat_penalty: t.repeat_penalty,
                },
            ));
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

/// How a reply was held to its step's shape: "held to schema", "provider's
/// JSON mode" or "read leniently" (the model was asked by the prompt alone).
pub fn shape_mark(mode: StructuredMode) -> String {
    let (class, title) = match mode {
        StructuredMode::Schema => (
            "held",
            "The model could only write a reply of the step's shape (its JSON Schema).",
        ),
        StructuredMode::JsonMode => (
            "json",
            "The provider made the reply a JSON object; its fields were checked when it was read.",
        ),
        StructuredMode::Grammar => (
            "held",
            "The model could only write its tool calls whole, of its own tools (the text protocol's grammar).",
        ),
        StructuredMode::Prompt => (
            "lenient",
            "The model was asked for the shape by the prompt alone; the reply was read leniently.",
        ),
    };
    format!(
        "<span class=\"shape-mark {class}\" title=\"{title}\">{}</span>",
        mode.label()
    )
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
    // An unreadable reply's mark is the one "Show the flagged replies" opens.
    // Its badge names it apart: nothing was repaired when the step could
    // not read the reply.
    let (unreadable, badge) = if repairs.iter().any(|r| r.kind.unreadable()) {
        (" data-unreadable=\"true\"", "Reply unreadable")
    } else {
        ("", "Reply repaired")
    };
    let mut h = format!(
        "<details class=\"repair-mark\"{unreadable}><summary><span class=\"repair-badge\">{badge}</span> <span class=\"muted small\">{}</span></summary><ul>",
        esc(&labels.join(", "))
    );
    for r in repairs {
        h.push_str(&format!("<li>{}</li>", esc(&r.detail)));
    }
    h.push_str("</ul></details>");
    h
}

/// How a call sampled: what a loop's mark advises on (only what was not
/// tried already).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sampled {
    pub temperature: Option<f32>,
    pub repeat_penalty: Option<f32>,
}

impl Sampled {
    /// What may make loops rarer, given what this call sampled with.
    fn loop_advice(&self) -> String {
        let hot = self.temperature.is_some_and(|t| t > 0.0);
        let penalised = self.repeat_penalty.is_some_and(|p| p > 1.0);
        let t = self.temperature.unwrap_or(0.0);
        match (hot, penalised) {
            (false, false) => "A repeat penalty above 1 (Settings, e.g. 1.1) or a temperature above 0 (e.g. 0.7) makes loops rarer.".into(),
            (true, false) => format!("It looped at temperature {t}: a repeat penalty above 1 (Settings, e.g. 1.1) makes loops rarer."),
            (false, true) => format!("It looped with a repeat penalty of {}: a temperature above 0 (e.g. 0.7) makes loops rarer.", self.repeat_penalty.unwrap_or(1.0)),
            (true, true) => format!("It looped at temperature {t} with a repeat penalty of {}: a larger model loops less.", self.repeat_penalty.unwrap_or(1.0)),
        }
    }
}

/// The mark on a reply the model did not end itself, after its text: a
/// summary a keyboard and a screen reader reach (a `<details>`, as the
/// repair mark), opening to what happened. Text only, escaped.
pub fn finish_mark(cut: Option<Cut>, sampled: Sampled) -> String {
    let (class, label, detail) = match cut {
        None => return String::new(),
        Some(Cut::Length { tokens, estimated }) => (
            "length",
            format!(
                "cut off at {}{tokens} tokens",
                if estimated { "about " } else { "" }
            ),
            "The reply reached its longest answer (the step's limit, or Longest answer in Settings), or the model's context ran out: what the model would have written next is missing.".to_string(),
        ),
        Some(Cut::Repeat) => (
            "repeat",
            "stopped: it kept repeating itself".to_string(),
            format!(
                "The model wrote the same passage three times in a row, so it was stopped there; what it wrote is kept. {}",
                sampled.loop_advice()
            ),
        ),
        Some(Cut::Stopped) => (
            "stopped",
            "cut short: you stopped the run".to_string(),
            "The run was stopped while the model was answering: the reply ends where it was cut, and no step read it. Fork here runs this call again.".to_string(),
        ),
    };
    format!(
        "<details class=\"finish-mark {class}\"><summary><span class=\"finish-badge\">{}</span></summary><p class=\"muted small\">{}</p></details>",
        esc(&label),
        esc(&detail)
    )
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
            cut: None,
            structured: None,
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
            cut: None,
            structured: None,
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
            cut: None,
            structured: None,
        });
        let h = entry_html(&msg, &Transcript::default());
        // A default used: the reply was unreadable, and its mark says so.
        assert!(
            h.contains("<details class=\"repair-mark\" data-unreadable=\"true\"><summary>"),
            "{h}"
        );
        assert!(h.contains("cut-off JSON closed, default used"), "{h}");
        assert!(
            h.contains(">Reply unreadable</span>") && !h.contains("Reply repaired"),
            "{h}"
        );
        let fenced = repair_mark(&[Repair::new(RepairKind::Fence, "fence stripped")]);
        assert!(fenced.contains(">Reply repaired</span>"), "{fenced}");
        assert!(
            fenced.starts_with("<details class=\"repair-mark\"><summary>"),
            "a harmless repair is not marked unreadable: {fenced}"
        );
        assert!(
            h.contains("closed it") && h.contains("&lt;b&gt;") && !h.contains("<b>"),
            "{h}"
        );
    }

    #[test]
    fn a_shaped_reply_says_how_it_was_held() {
        for (mode, label) in [
            (StructuredMode::Schema, ">held to schema<"),
            (StructuredMode::JsonMode, ">provider&#39;s JSON mode<"),
            (StructuredMode::Prompt, ">read leniently<"),
            (StructuredMode::Grammar, ">held to the tool grammar<"),
        ] {
            let msg = entry(EntryKind::Message {
                from: "a".into(),
                to: None,
                text: "{}".into(),
                call: Some(1),
                streaming: false,
                tool_calls: vec![],
                repairs: vec![],
                cut: None,
                structured: Some(mode),
            });
            let h = entry_html(&msg, &Transcript::default());
            assert!(
                h.contains("class=\"shape-mark") && h.contains(label)
                    || h.contains(&label.replace("&#39;", "'")),
                "{h}"
            );
        }
        // A reply whose step asked no shape carries no mark.
        assert!(!reply(None).contains("shape-mark"));
    }

    fn reply(cut: Option<Cut>) -> String {
        let msg = entry(EntryKind::Message {
            from: "a".into(),
            to: None,
            text: "The plan is to go north.".into(),
            call: Some(4),
            streaming: false,
            tool_calls: vec![],
            repairs: vec![],
            cut,
            structured: None,
        });
        entry_html(&msg, &Transcript::default())
    }

    /// A reply cut at its length limit of `tokens`.
    fn reply_cut_at(tokens: u64, estimated: bool) -> String {
        reply(Some(Cut::Length { tokens, estimated }))
    }

    #[test]
    fn a_reply_cut_at_its_limit_carries_a_reachable_mark_with_its_token_count() {
        let h = reply_cut_at(48, false);
        assert!(
            h.contains("<details class=\"finish-mark length\"><summary><span class=\"finish-badge\">cut off at 48 tokens</span></summary>"),
            "{h}"
        );
        assert!(h.contains("longest answer"), "{h}");
        // After the text.
        assert!(h.find("go north").unwrap_or(usize::MAX) < h.find("finish-mark").unwrap_or(0));
        let estimated = reply_cut_at(12, true);
        assert!(
            estimated.contains(">cut off at about 12 tokens<"),
            "{estimated}"
        );
        assert!(!reply(None).contains("finish-mark"));
    }

    #[test]
    fn a_reply_stopped_for_looping_says_it_kept_repeating_itself() {
        let h = reply(Some(Cut::Repeat));
        assert!(
            h.contains("<details class=\"finish-mark repeat\"><summary><span class=\"finish-badge\">stopped: it kept repeating itself</span></summary>"),
            "{h}"
        );
        assert!(h.contains("repeat penalty"), "{h}");
        assert!(!h.contains("cut off"), "{h}");
        // Text only: the mark's words are escaped like everything else.
        assert!(
            finish_mark(Some(Cut::Repeat), Sampled::default())
                .matches('<')
                .count()
                == 8
        );
    }
}
