//! An agent's memory, as its inspector shows it: the expertise it was
//! generated with, one collection per other agent or expert (episodes and
//! knowledge cards: summary, keywords, source, importance, the meeting it
//! came from), what each prompt was given (the top-c ids), and the repairs
//! its model's output needed.

use super::{excerpt, flags_html, importance_bar, keyword_pills};
use crate::engine::coordinators::act::contract::*;
use crate::engine::coordinators::act::view::{ActView, AgentItem};
use crate::engine::views::html::esc;
use std::fmt::Write;

pub fn meeting_name(j: u32) -> String {
    match j {
        MEETING_GENERATION => "agent generation".into(),
        MEETING_TEAM => "team meeting".into(),
        MEETING_BREAK => "break time".into(),
        j => format!("production round {}", j - MEETING_PRODUCTION + 1),
    }
}

/// One knowledge card (with where its information came from, when that
/// is not its speaker).
pub fn card(view: &ActView, k: &Knowledge, chosen: bool) -> String {
    let keywords = keyword_pills(&k.keywords, "");
    let speaker = view.name_of(&k.source);
    let origin = k.origin.trim();
    format!(
        "<li class=\"act-card{}\" id=\"act-k-{}\"><p>{}</p><div class=\"small act-kws\">{keywords}</div><p class=\"small muted\"><code>{}</code> · from {}{} · {} · {}</p>{}</li>",
        if chosen { " act-chosen" } else { "" },
        esc(&k.id),
        esc(&k.summary),
        esc(&k.id),
        esc(&speaker),
        if origin.is_empty() || origin.eq_ignore_ascii_case(&speaker) {
            String::new()
        } else {
            format!(" (source: {})", esc(origin))
        },
        meeting_name(k.meeting),
        importance_bar(k.importance),
        flags_html(&k.flags)
    )
}

/// The memory inspector of `agent`.
pub fn memory_html(view: &ActView, agent: &AgentItem) -> String {
    let mut h = format!(
        "<section class=\"act-memory\" data-agent=\"{}\"><h4><span class=\"tp-author\" style=\"--agent:{}\">{}</span> <span class=\"muted small\">{}</span></h4>",
        esc(&agent.id),
        view.marks.color(&agent.id),
        esc(&agent.name),
        esc(&agent.role)
    );
    let _ = write!(
        h,
        "<div class=\"small act-kws\"><strong>Expertise</strong> (fixed; given to every prompt): {}</div>{}",
        if agent.expertise.is_empty() {
            "<span class=\"muted\">none yet</span>".to_string()
        } else {
            keyword_pills(&agent.expertise, "act-expertise")
        },
        flags_html(&agent.expertise_flags)
    );
    let last_chosen: Vec<String> = agent
        .retrievals
        .last()
        .map(|(_, r)| r.ids.clone())
        .unwrap_or_default();
    let sources = sources_of(agent);
    if sources.is_empty() {
        h.push_str("<p class=\"muted small empty-note\">No episodes or knowledge yet: they are acquired after each meeting.</p>");
    }
    for s in &sources {
        collection_html(&mut h, view, agent, s, &last_chosen);
    }
    if !agent.retrievals.is_empty() {
        given_html(&mut h, view, agent);
    }
    h.push_str("</section>");
    h
}

/// The agents and experts an agent's memory is about, first-seen order
/// (episodes first, then knowledge).
fn sources_of(agent: &AgentItem) -> Vec<String> {
    crate::engine::coordinators::act::memory::sources_of(&agent.episodes, &agent.knowledge)
}

/// The collection about `s`: its episodes, then its knowledge cards (most
/// important first; those the last prompt was given marked).
fn collection_html(
    h: &mut String,
    view: &ActView,
    agent: &AgentItem,
    s: &str,
    last_chosen: &[String],
) {
    let episodes: Vec<&Episode> = agent.episodes.iter().filter(|e| e.about == s).collect();
    let mut knowledge: Vec<&Knowledge> = agent.knowledge.iter().filter(|k| k.source == s).collect();
    knowledge.sort_by(|a, b| b.importance.cmp(&a.importance).then(a.order.cmp(&b.order)));
    let _ = write!(
        h,
        "<details class=\"act-collection\" open><summary>About <strong>{}</strong> · {} episode{} · {} entr{}</summary>",
        esc(&view.name_of(s)),
        episodes.len(),
        if episodes.len() == 1 { "" } else { "s" },
        knowledge.len(),
        if knowledge.len() == 1 { "y" } else { "ies" }
    );
    if !episodes.is_empty() {
        h.push_str("<ul class=\"act-episodes small\">");
        for e in episodes {
            let _ = write!(
                h,
                "<li><span class=\"muted\">{}:</span> {} <span class=\"muted\">({} words)</span>{}</li>",
                meeting_name(e.meeting),
                esc(&e.text),
                e.text.split_whitespace().count(),
                flags_html(&e.flags)
            );
        }
        h.push_str("</ul>");
    }
    h.push_str("<ul class=\"act-cards\">");
    for k in knowledge {
        h.push_str(&card(view, k, last_chosen.contains(&k.id)));
    }
    h.push_str("</ul></details>");
}

/// What each prompt of the agent was given: the entries' ids (their
/// summaries on hover), and how many it held.
fn given_html(h: &mut String, view: &ActView, agent: &AgentItem) {
    let _ = write!(
        h,
        "<details class=\"act-given\"><summary>What each prompt was given ({} prompt{})</summary><table class=\"tp-table small\"><thead><tr><th scope=\"col\">step</th><th scope=\"col\">entries given (best first)</th><th scope=\"col\">held</th></tr></thead><tbody>",
        agent.retrievals.len(),
        if agent.retrievals.len() == 1 { "" } else { "s" }
    );
    for (seq, r) in &agent.retrievals {
        let ids: Vec<String> = r
            .ids
            .iter()
            .map(|id| {
                let title = view
                    .entry(id)
                    .map(|k| excerpt(&k.summary, 120))
                    .unwrap_or_default();
                format!("<code title=\"{}\">{}</code>", esc(&title), esc(id))
            })
            .collect();
        let _ = write!(
            h,
            "<tr data-seq=\"{seq}\"><td><code>{}</code></td><td>{}</td><td>{} ({})</td></tr>",
            esc(&r.step),
            if ids.is_empty() {
                "<span class=\"muted\">expertise only</span>".to_string()
            } else {
                ids.join(" ")
            },
            r.held,
            esc(&r.by)
        );
    }
    h.push_str("</tbody></table></details>");
}

/// Every agent's memory (the Memory tab), members first.
pub fn memories_html(view: &ActView) -> String {
    let mut agents: Vec<&AgentItem> = view.members().collect();
    agents.extend(view.experts());
    if agents.is_empty() {
        return "<p class=\"muted empty-note\">Each agent's expertise, episodes and knowledge appear here as an ACT run goes on.</p>".into();
    }
    agents.iter().map(|a| memory_html(view, a)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run::event::{LoggedEvent, RunEvent};
    use crate::engine::views::Fold;

    #[test]
    fn cards_and_episodes_are_escaped_grouped_by_source_and_marked_when_given() {
        let note = |store: &str, payload: serde_json::Value| LoggedEvent {
            seq: 0,
            t_ms: 0,
            event: RunEvent::NoteWritten {
                agent: "a1".into(),
                store: store.into(),
                key: None,
                payload,
            },
        };
        let events = vec![
            LoggedEvent {
                seq: 0,
                t_ms: 0,
                event: RunEvent::AgentAdded {
                    agent: "a1".into(),
                    role: ROLE_MEMBER.into(),
                    name: "Agent A".into(),
                    model: String::new(),
                },
            },
            note(
                STORE_EXPERTISE,
                serde_json::json!({"agent": "a1", "keywords": ["<tea>"]}),
            ),
            note(
                STORE_KNOWLEDGE,
                serde_json::json!({"id": "a1.k0", "owner": "a1", "source": "a2", "meeting": 1, "summary": "Oolong is <b>x</b>.", "keywords": ["oolong", "tea"], "importance": 8, "order": 0, "flags": ["importance 12 clamped to 10"]}),
            ),
            note(
                STORE_EPISODE,
                serde_json::json!({"id": "a1.e0", "owner": "a1", "about": "a2", "meeting": 1, "text": "B spoke of oolong."}),
            ),
            note(
                STORE_RETRIEVAL,
                serde_json::json!({"step": "act.production.opinion", "ids": ["a1.k0"], "held": 1, "by": "importance"}),
            ),
        ];
        let view = ActView::of(&events);
        let h = memories_html(&view);
        assert!(h.contains("&lt;tea&gt;") && h.contains("Oolong is &lt;b&gt;x&lt;/b&gt;."));
        assert!(!h.contains("<b>x</b>") && !h.contains("<tea>"));
        assert!(h.contains("act-card act-chosen"));
        assert!(h.contains("team meeting") && h.contains("clamped"));
        assert!(h.contains("B spoke of oolong."));
        assert!(memories_html(&ActView::default()).contains("empty-note"));
    }
}
