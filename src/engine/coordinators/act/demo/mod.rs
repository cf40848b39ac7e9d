//! The demo model's ACT team: a **scripted stand-in** for an LLM that plays
//! every ACT role offline and deterministically (facilitator, members,
//! leader, the experts of break time, the judge, the one-model writer),
//! each from its own request only. It never sees a task set, reference
//! solutions or trivia answers: it reads the `# Heading` sections of the
//! request it is given and nothing else.
//!
//! What it knows is a small built-in [`glossary`] of the five fields of the
//! built-in set. A member only recognises the *names* of the terms its own
//! task's words call for; the expert it creates in break time knows the
//! definition and a practical tip, and says them. Knowledge acquisition
//! stores what was said (with importance from how well the entry's
//! keywords match the agent's task), and the production opinions weave the
//! top entries into the deliverable. So on the built-in set ACT's output
//! holds expert knowledge the baseline's lacks, and the inspector shows
//! where each sentence came from: the score follows from that, it is not
//! built in.
//!
//! Modules: [`request`] (reading a request's sections), [`text`] (words
//! and sentences), [`glossary`]; by phase: `meeting` (decompose,
//! expertise, the team meeting), `learning` (exploration, acquisition),
//! `break_talk` (reflect, follow up, the expert), `writing` (the
//! production meeting), `solo` (one-model baselines, ACT+ re-scoring, the
//! judge).

mod break_talk;
pub mod glossary;
mod learning;
mod meeting;
pub mod request;
mod solo;
pub mod text;
mod writing;

#[cfg(test)]
mod tests;

use super::contract::*;
use crate::engine::model::demo::Reply;
use crate::engine::model::ChatRequest;
use request::{first_line, knowledge, sec, Entry};
use text::{content_words, words};

/// The reply for an ACT step (`act.*`), or None for another step.
pub fn answer(req: &ChatRequest) -> Option<Reply> {
    let step = req.step.as_deref()?;
    if !step.starts_with("act.") {
        return None;
    }
    let text = req.last_user().unwrap_or_default();
    let reply = match step {
        STEP_DECOMPOSE => meeting::decompose(text),
        STEP_EXPERTISE => meeting::expertise(text),
        STEP_TEAM_OPINION => meeting::team_opinion(text),
        STEP_TEAM_ADVICE => meeting::advice(text),
        STEP_FUSE => meeting::fuse(text),
        STEP_EXPLORE => learning::explore(text),
        STEP_ACQUIRE => learning::acquire(text),
        STEP_REFLECT => break_talk::reflect(text),
        STEP_FOLLOWUP => break_talk::followup(text),
        STEP_ANSWER => break_talk::expert_answer(text),
        STEP_PROD_OPINION => writing::production_opinion(text),
        STEP_INSTRUCT => writing::instruct(text),
        STEP_DRAFT => writing::draft(text),
        STEP_CHECK => writing::check(text),
        STEP_REASSERT => writing::reassert(text),
        STEP_RESCORE => solo::rescore(text),
        STEP_JUDGE => solo::judge(text),
        STEP_TOOL_JUDGE => solo::tool_judge(text),
        STEP_STANDARD | STEP_COT | STEP_SPP => solo::single(step, text),
        STEP_SELF_FEEDBACK => solo::self_feedback(text),
        STEP_SELF_REFINE => solo::self_refine(text),
        _ => format!(
            "(Offline demo model: a scripted stand-in; it has no script for the ACT step \"{step}\".)"
        ),
    };
    Some(Reply::text(reply))
}

/// A name as `# You are` gives it ("Agent A, in the team" → "Agent A").
pub(crate) fn name_of(line: &str) -> String {
    line.split_once(", in ")
        .map_or(line, |(n, _)| n)
        .trim()
        .to_string()
}

/// The speaking agent as its request shows it (the `who` sections).
#[derive(Clone, Debug, Default)]
pub(crate) struct Me {
    pub name: String,
    /// The initial task's subject and details.
    pub subject: String,
    pub details: Vec<String>,
    /// The current (explored) subject.
    pub current: String,
    pub expertise: Vec<String>,
    /// Acquired entries, best first.
    pub entries: Vec<Entry>,
}

impl Me {
    /// The agent from its request's `who` sections (missing ones empty).
    pub fn read(text: &str) -> Me {
        let initial = sec(text, H_INITIAL);
        let mut lines = initial.lines().map(str::trim).filter(|l| !l.is_empty());
        let subject = lines.next().unwrap_or("").to_string();
        let details = lines.map(str::to_string).collect();
        let current = match first_line(sec(text, H_CURRENT)) {
            "" => subject.clone(),
            c => c.to_string(),
        };
        let (expertise, entries) = knowledge(sec(text, H_KNOWLEDGE));
        Me {
            name: name_of(first_line(sec(text, H_NAME))),
            subject,
            details,
            current,
            expertise,
            entries,
        }
    }

    /// The current subject without what exploration added to it.
    pub fn base_subject(&self) -> &str {
        self.current
            .split_once(", using ")
            .map_or(self.current.as_str(), |(b, _)| b)
    }

    /// All words of the agent's task (initial with details, and current).
    pub fn task_words(&self) -> Vec<String> {
        words(&format!(
            "{} {} {}",
            self.subject,
            self.details.join(" "),
            self.current
        ))
    }

    /// The content words of its subject (what it is about).
    pub fn keywords(&self) -> Vec<String> {
        let mut k = content_words(&self.subject);
        if k.is_empty() {
            k = content_words(&self.current);
        }
        k
    }

    /// Whether an acquired entry already defines the term.
    pub fn holds(&self, t: &glossary::Term) -> bool {
        let opening: Vec<String> = words(t.definition).into_iter().take(5).collect();
        let opening = opening.join(" ");
        self.entries
            .iter()
            .any(|e| text::normalise(&e.summary).contains(&opening))
    }
}
