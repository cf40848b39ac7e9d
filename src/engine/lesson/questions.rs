//! Predict-next questions generated from a run's own events. Each asks
//! about one event before the replay shows it: which agent makes the next
//! model call, whom an agent hands control to (a choosing role picks who
//! acts next), whether a critic role accepts the plan, which experience a
//! step retrieves. The choices are the run's own agents or candidates, the
//! answer is what the run did, and `reveal` is the number of events after
//! which the answer is on screen. Generic: only the events every
//! coordinator emits are read (plus a retrieval note's hits); which roles
//! choose and criticise, and which store records retrievals, come from
//! the coordinator's row ([`Roles`]).

use super::{Question, QuestionKind};
use crate::engine::run::event::{LoggedEvent, RunEvent};
use std::collections::HashSet;

/// What a coordinator's runs offer to questions: the roles that pick who
/// acts next, the roles that accept or send back a plan, and the store its
/// retrievals are recorded in.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Roles {
    pub choosers: &'static [&'static str],
    pub critics: &'static [&'static str],
    pub retrieval_store: Option<&'static str>,
}

impl Roles {
    /// Runs with no questions of their own (the single agent).
    pub const NONE: Roles = Roles {
        choosers: &[],
        critics: &[],
        retrieval_store: None,
    };

    /// Runs whose only question of their own is which entries a retrieval
    /// (recorded in `store`) returns.
    pub const fn retrievals(store: &'static str) -> Roles {
        Roles {
            retrieval_store: Some(store),
            ..Roles::NONE
        }
    }
}

/// Choices offered for "which agent" questions (the answer and up to
/// three others).
const AGENT_CHOICES: usize = 4;

struct Agents {
    /// (id, role, display name) in the order added.
    list: Vec<(String, String, String)>,
}

impl Agents {
    fn before(events: &[LoggedEvent], i: usize) -> Agents {
        let list = events[..i.min(events.len())]
            .iter()
            .filter_map(|e| match &e.event {
                RunEvent::AgentAdded {
                    agent, role, name, ..
                } => Some((agent.clone(), role.clone(), name.clone())),
                _ => None,
            })
            .collect();
        Agents { list }
    }

    fn name<'a>(&'a self, id: &'a str) -> &'a str {
        self.list
            .iter()
            .find(|(a, _, _)| a == id)
            .map(|(_, _, n)| n.as_str())
            .filter(|n| !n.is_empty())
            .unwrap_or(id)
    }

    fn role(&self, id: &str) -> &str {
        self.list
            .iter()
            .find(|(a, _, _)| a == id)
            .map(|(_, r, _)| r.as_str())
            .unwrap_or("")
    }

    /// The answer and up to three other agents (not `exclude`), the others
    /// those most recently active before `i`, then in the order added;
    /// shown in the order added. None when there is no other agent.
    fn choices(
        &self,
        events: &[LoggedEvent],
        i: usize,
        answer: &str,
        exclude: &str,
    ) -> Option<(Vec<String>, usize)> {
        let mut picked: Vec<&str> = vec![answer];
        let recent = events[..i].iter().rev().filter_map(|e| match &e.event {
            RunEvent::LlmRequest { agent, .. } => Some(agent.as_str()),
            RunEvent::Handoff { to, .. } => Some(to.as_str()),
            _ => None,
        });
        let known = |a: &str| self.list.iter().any(|(id, _, _)| id == a);
        for a in recent.chain(self.list.iter().map(|(a, _, _)| a.as_str())) {
            if picked.len() == AGENT_CHOICES {
                break;
            }
            if a != exclude && known(a) && !picked.contains(&a) {
                picked.push(a);
            }
        }
        if picked.len() < 2 {
            return None;
        }
        let order = |a: &str| self.list.iter().position(|(id, _, _)| id == a);
        picked.sort_by_key(|a| order(a).unwrap_or(usize::MAX));
        let answer_at = picked.iter().position(|a| *a == answer)?;
        let names = picked.iter().map(|a| self.name(a).to_string()).collect();
        Some((names, answer_at))
    }
}

/// Every question that can stop the replay before event `i` of run `run`,
/// whose coordinator's runs offer `roles`.
pub fn at(events: &[LoggedEvent], roles: &Roles, run: usize, i: usize) -> Vec<Question> {
    let Some(e) = events.get(i) else {
        return Vec::new();
    };
    let agents = Agents::before(events, i);
    let mut out = Vec::new();
    match &e.event {
        RunEvent::LlmRequest { agent, call, .. } => {
            if let Some((choices, answer)) = agents.choices(events, i, agent, "") {
                out.push(Question {
                    kind: QuestionKind::NextAgent,
                    run,
                    at: i,
                    reveal: i + 1,
                    prompt: "Which agent makes the next model call?".into(),
                    choices,
                    answer,
                    explain: format!("{} asks the model next.", agents.name(agent)),
                });
            }
            if roles.critics.contains(&agents.role(agent)) {
                out.extend(verdict(events, run, i, agent, *call, &agents));
            }
        }
        RunEvent::Handoff { from, to, reason } => {
            if let Some((choices, answer)) = agents.choices(events, i, to, from) {
                let who = agents.name(from);
                let prompt = if roles.choosers.contains(&agents.role(from)) {
                    format!("Which agent does the {who} pick to act next?")
                } else {
                    format!("Whom does {who} hand over to next?")
                };
                let why = if reason.trim().is_empty() {
                    String::new()
                } else {
                    format!(" ({})", reason.trim())
                };
                out.push(Question {
                    kind: QuestionKind::Handoff,
                    run,
                    at: i,
                    reveal: i + 1,
                    prompt,
                    choices,
                    answer,
                    explain: format!("{who} hands over to {}{why}.", agents.name(to)),
                });
            }
        }
        RunEvent::NoteWritten {
            agent,
            store,
            payload,
            ..
        } if roles.retrieval_store == Some(store.as_str()) => {
            out.extend(retrieval(run, i, agents.name(agent), payload))
        }
        _ => {}
    }
    out
}

/// The questions at or after event `from`, up to `limit` (the editor's
/// "questions you can ask here").
pub fn from(
    events: &[LoggedEvent],
    roles: &Roles,
    run: usize,
    from: usize,
    limit: usize,
) -> Vec<Question> {
    (from..events.len())
        .flat_map(|i| at(events, roles, run, i))
        .take(limit)
        .collect()
}

/// Will the critic accept? Asked before its call; the answer is whether it
/// hands the plan back before the next model call.
fn verdict(
    events: &[LoggedEvent],
    run: usize,
    i: usize,
    critic: &str,
    call: u32,
    agents: &Agents,
) -> Option<Question> {
    let mut answered = false;
    let mut sent_back = None;
    let mut end = None;
    for (k, e) in events.iter().enumerate().skip(i + 1) {
        match &e.event {
            RunEvent::LlmResponse { call: c, .. } if *c == call => answered = true,
            RunEvent::LlmFailed { call: c, .. } if *c == call => return None,
            RunEvent::MessagePosted { from, .. } if answered && from == critic => end = Some(k + 1),
            RunEvent::Handoff { from, .. } if answered && from == critic => {
                sent_back = Some(k + 1);
                break;
            }
            RunEvent::LlmRequest { .. } | RunEvent::PhaseStarted { .. } if answered => break,
            RunEvent::RunFinished { .. } | RunEvent::RunFailed { .. } => break,
            _ => {}
        }
    }
    if !answered {
        return None;
    }
    let who = agents.name(critic);
    Some(Question {
        kind: QuestionKind::Verdict,
        run,
        at: i,
        reveal: sent_back.or(end).unwrap_or(i + 1).min(events.len()),
        prompt: format!("Will the {who} accept the plan as it stands?"),
        choices: vec![
            "Yes: it approves the plan".into(),
            "No: it sends the plan back with problems".into(),
        ],
        answer: usize::from(sent_back.is_some()),
        explain: if sent_back.is_some() {
            format!("The {who} found problems and sent the plan back to be fixed.")
        } else {
            format!("The {who} approved the plan.")
        },
    })
}

/// Which experience will be retrieved? The hits the retrieval recorded
/// (the used one and its runners-up) are the choices.
fn retrieval(run: usize, i: usize, agent: &str, payload: &serde_json::Value) -> Option<Question> {
    let hits = payload.get("hits")?.as_array()?;
    let mut seen: HashSet<String> = HashSet::new();
    let mut choices = Vec::new();
    let mut answer = None;
    for h in hits.iter().take(AGENT_CHOICES) {
        let input = h.get("input").and_then(|v| v.as_str()).unwrap_or("");
        let reward = h.get("reward").and_then(|v| v.as_f64()).unwrap_or(0.0);
        // Leading Markdown headings ("# Task") say nothing about the entry.
        let body: Vec<&str> = input
            .lines()
            .skip_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
            .collect();
        let mut text: String = body
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if text.chars().count() > 90 {
            text = text.chars().take(90).collect::<String>() + "…";
        }
        let label = format!("“{text}” (reward {reward:.2})");
        if !seen.insert(label.clone()) {
            continue;
        }
        if answer.is_none() && h.get("used").and_then(|v| v.as_bool()) == Some(true) {
            answer = Some(choices.len());
        }
        choices.push(label);
    }
    let answer = answer?;
    if choices.len() < 2 {
        return None;
    }
    // The pool ranks best first; show the choices in a stable order that
    // does not give the answer away (by label).
    let right = choices[answer].clone();
    choices.sort();
    let answer = choices.iter().position(|c| *c == right)?;
    let step = payload
        .get("step")
        .and_then(|v| v.as_str())
        .unwrap_or("next");
    Some(Question {
        kind: QuestionKind::Retrieval,
        run,
        at: i,
        reveal: i + 1,
        prompt: format!("Which past experience will {agent} retrieve for its {step} step?"),
        choices,
        answer,
        explain: "The pool ranks by α·similarity + (1−α)·reward: the retrieved entry had the best mix of the two.".into(),
    })
}
