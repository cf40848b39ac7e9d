//! ACT's prompts, written for Roundtable after the structure of the
//! paper's appendix (Tables 21–27) and its method section for the steps it
//! gives no prompt for. The texts are templates in `act.prompts` (a run may
//! edit them); each function here renders one step's system message and
//! user message. A user message is a list of `# Heading` sections
//! (contract) and ends with one instruction paragraph (steps on lines of
//! their own, no blank line: the demo model reads its numbers there).

use super::contract::*;
use crate::engine::domains::creative::ComplexTask;
use crate::engine::prompts::{vars, Prompts, Value};
use crate::engine::run::RunError;

/// The default templates (`roundtable prompts --coordinator act`).
pub const DEFAULTS: &str = include_str!("act.prompts");

/// Who is speaking, as a prompt shows them.
pub struct Speaker {
    pub name: String,
    pub expertise: Vec<String>,
    pub initial: AgentTask,
    pub current: AgentTask,
    /// The knowledge block (expertise + top-c), or None when the variant
    /// gives no knowledge beyond the expertise.
    pub knowledge: String,
}

fn task_text(t: &AgentTask) -> String {
    if t.details.is_empty() {
        t.subject.clone()
    } else {
        format!("{}\n{}", t.subject, t.details.join("\n"))
    }
}

pub type Prompt = (String, String);

mod templates;
pub use templates::TEMPLATES;

/// The templates of a run: the defaults with its edits.
pub fn of_run(edits: &std::collections::BTreeMap<String, String>) -> Result<Prompts, RunError> {
    Ok(Prompts::new(DEFAULTS, &TEMPLATES, edits)?)
}

fn render(p: &Prompts, name: &str, v: Value) -> Result<String, RunError> {
    Ok(p.render(name, v)?)
}

/// A step's system message (`<step>.system`, or the members' shared one)
/// and user message (`<step>.user`).
fn prompt(p: &Prompts, system: &str, user: &str, v: Value) -> Result<Prompt, RunError> {
    Ok((render(p, system, vars! {})?, render(p, user, v)?))
}

const MEMBER: &str = "act.member.system";

fn who(p: &Prompts, s: &Speaker) -> Result<String, RunError> {
    render(
        p,
        "act.speaker",
        vars! {
            name => s.name,
            initial => task_text(&s.initial),
            current => s.current.subject,
            knowledge => s.knowledge,
        },
    )
}

pub fn decompose(p: &Prompts, task: &str, agents: usize) -> Result<Prompt, RunError> {
    prompt(
        p,
        "act.decompose.system",
        "act.decompose.user",
        vars! { task, agents },
    )
}

/// Agent generation (Table 21): the agent, the team it belongs to (by its
/// name) and its task; up to `max` expertise keywords.
pub fn expertise(
    p: &Prompts,
    name: &str,
    team: &str,
    task: &AgentTask,
    max: usize,
) -> Result<Prompt, RunError> {
    prompt(
        p,
        "act.expertise.system",
        "act.expertise.user",
        vars! { name, team, task => task_text(task), max },
    )
}

pub fn team_opinion(p: &Prompts, s: &Speaker, draft: &str) -> Result<Prompt, RunError> {
    prompt(
        p,
        MEMBER,
        "act.team.opinion.user",
        vars! { who => who(p, s)?, draft },
    )
}

pub fn team_advice(
    p: &Prompts,
    s: &Speaker,
    draft: &str,
    opinions: &str,
) -> Result<Prompt, RunError> {
    prompt(
        p,
        MEMBER,
        "act.team.advice.user",
        vars! { who => who(p, s)?, draft, opinions },
    )
}

/// The leader's fusion (Table 22): the opinions, its knowledge, the advice,
/// then every member's task; G's subject is every member's subject with
/// what connects them, its detail every member's details likewise, and a
/// description that integrates both.
pub fn fuse(
    p: &Prompts,
    s: &Speaker,
    tasks: &[(String, AgentTask)],
    opinions: &str,
    advice: &str,
) -> Result<Prompt, RunError> {
    let names: Vec<&str> = tasks.iter().map(|(n, _)| n.as_str()).collect();
    prompt(
        p,
        "act.team.fuse.system",
        "act.team.fuse.user",
        vars! {
            who => who(p, s)?,
            opinions,
            advice,
            tasks => task_list(tasks),
            names => and_list(&names),
        },
    )
}

/// Members' tasks as the fuse, draft and check prompts show them: "- Name:
/// subject", then each detail indented on a line of its own.
pub fn task_list(tasks: &[(String, AgentTask)]) -> String {
    tasks
        .iter()
        .map(|(name, t)| {
            let mut s = format!("- {name}: {}", t.subject);
            for d in &t.details {
                s.push_str(&format!("\n  {d}"));
            }
            s
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// "A", "A and B", "A, B and C".
fn and_list(items: &[&str]) -> String {
    match items {
        [] => "every member".into(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Task exploration (Table 23): benefits and a persona, daily-life scenes,
/// the specified task, the meeting's issues, an insight from outside the
/// agent's specialty, and the task reflected in the deliverable.
pub fn explore(
    p: &Prompts,
    s: &Speaker,
    team: &str,
    team_task: &str,
    deliverable: &str,
    transcript: &str,
) -> Result<Prompt, RunError> {
    prompt(
        p,
        MEMBER,
        "act.explore.user",
        vars! { who => who(p, s)?, team, team_task, deliverable, transcript },
    )
}

/// Knowledge acquisition (Table 24): a worked example, then episodes, at
/// least one brief summary per episode, keywords, the source apart from
/// the speaker, and importance judged from the agent's expertise.
pub fn acquire(
    p: &Prompts,
    s: &Speaker,
    speakers: &[String],
    transcript: &str,
    limits: &Limits,
) -> Result<Prompt, RunError> {
    prompt(
        p,
        "act.acquire.system",
        "act.acquire.user",
        vars! {
            who => who(p, s)?,
            speakers => speakers.join(", "),
            transcript,
            episodes => limits.episodes,
            episode_words => limits.episode_words,
            entries => limits.entries,
        },
    )
}

/// The member's reflection before break time (§3.5 (1)): what it lacks,
/// one topic to deepen, and the questions it will put to the expert (at
/// most `cap`, the pairs a 1:1 allows: they are asked in order, then
/// deeper ones while the cap allows).
pub fn reflect(
    p: &Prompts,
    s: &Speaker,
    team_task: &str,
    transcript: &str,
    cap: usize,
) -> Result<Prompt, RunError> {
    prompt(
        p,
        MEMBER,
        "act.break.reflect.user",
        vars! { who => who(p, s)?, team_task, transcript, cap },
    )
}

/// The member's turn after an answer in break time: one more, deeper
/// question, or done. `left` is how many questions the cap still allows
/// (at least one: the turn is not asked when none is left).
pub fn followup(
    p: &Prompts,
    s: &Speaker,
    deepen: &str,
    conversation: &str,
    left: usize,
) -> Result<Prompt, RunError> {
    prompt(
        p,
        MEMBER,
        "act.break.followup.user",
        vars! { who => who(p, s)?, deepen, conversation, left },
    )
}

pub fn answer(
    p: &Prompts,
    name: &str,
    expertise: &[String],
    task: &AgentTask,
    conversation: &str,
) -> Result<Prompt, RunError> {
    prompt(
        p,
        "act.break.answer.system",
        "act.break.answer.user",
        vars! { name, expertise => expertise.join(", "), task => task_text(task), conversation },
    )
}

/// A production-meeting opinion (Table 25): solution, contribution,
/// elements for the deliverable, and how they fit it with coherence and
/// synergy.
pub fn production_opinion(
    p: &Prompts,
    s: &Speaker,
    team_task: &str,
    deliverable: &str,
) -> Result<Prompt, RunError> {
    prompt(
        p,
        MEMBER,
        "act.production.opinion.user",
        vars! { who => who(p, s)?, team_task, deliverable },
    )
}

pub fn instruct(p: &Prompts, s: &Speaker, opinion: &str, tools: &str) -> Result<Prompt, RunError> {
    prompt(
        p,
        MEMBER,
        "act.production.instruct.user",
        vars! { who => who(p, s)?, tools, opinion },
    )
}

/// The leader's draft of the deliverable from the opinions (a revision also
/// sees the last draft and its issues); a proposal is laid out in the
/// paper's proposal framework.
pub fn draft(
    p: &Prompts,
    s: &Speaker,
    task: &ComplexTask,
    (team_task, tasks): (&str, &str),
    opinions: &str,
    issues: Option<(&str, &str)>,
) -> Result<Prompt, RunError> {
    let revising = issues.is_some();
    let (draft, issues) = issues.unwrap_or(("", ""));
    prompt(
        p,
        "act.production.draft.system",
        "act.production.draft.user",
        vars! {
            who => who(p, s)?,
            team_task,
            tasks,
            deliverable => task.deliverable,
            opinions,
            revising,
            draft,
            issues,
            proposal => task.deliverable.to_lowercase().contains("proposal"),
            word_limit => task.word_limit,
        },
    )
}

pub fn check(
    p: &Prompts,
    s: &Speaker,
    team_task: &str,
    tasks: &str,
    draft: &str,
) -> Result<Prompt, RunError> {
    prompt(
        p,
        "act.production.check.system",
        "act.production.check.user",
        vars! { who => who(p, s)?, team_task, tasks, draft },
    )
}

pub fn reassert(
    p: &Prompts,
    s: &Speaker,
    team_task: &str,
    opinion: &str,
    (draft, issues): (&str, &str),
) -> Result<Prompt, RunError> {
    prompt(
        p,
        MEMBER,
        "act.production.reassert.user",
        vars! { who => who(p, s)?, team_task, opinion, draft, issues },
    )
}

/// ACT+'s re-scoring: the `shown` entries (of the `held` the agent
/// keeps) scored again for the new task; `batch` counts the prompts
/// before this one (entries already re-scored are not shown again).
pub fn rescore(
    p: &Prompts,
    s: &Speaker,
    entries: &str,
    (shown, held): (usize, usize),
    batch: usize,
) -> Result<Prompt, RunError> {
    prompt(
        p,
        "act.plus.rescore.system",
        "act.plus.rescore.user",
        vars! { who => who(p, s)?, entries, shown, held, batch },
    )
}

pub fn judge(p: &Prompts, output: &str, components: &[String]) -> Result<Prompt, RunError> {
    let list: Vec<String> = components
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{}. {c}", i + 1))
        .collect();
    prompt(
        p,
        "act.judge.system",
        "act.judge.user",
        vars! { components => list.join("\n"), output, n => components.len() },
    )
}

/// A tool task's judge: the question and the output.
pub fn tool_judge(p: &Prompts, question: &str, output: &str) -> Result<Prompt, RunError> {
    prompt(
        p,
        "act.tool_judge.system",
        "act.tool_judge.user",
        vars! { question, output },
    )
}

pub fn single(p: &Prompts, step: &str, task: &ComplexTask) -> Result<Prompt, RunError> {
    let user = match step {
        STEP_COT => "act.single.cot.user",
        STEP_SPP => "act.single.spp.user",
        _ => "act.single.standard.user",
    };
    prompt(p, "act.single.system", user, vars! { task => task.text })
}

pub fn self_feedback(p: &Prompts, task: &ComplexTask, draft: &str) -> Result<Prompt, RunError> {
    prompt(
        p,
        "act.single.feedback.system",
        "act.single.feedback.user",
        vars! { task => task.text, draft },
    )
}

pub fn self_refine(
    p: &Prompts,
    task: &ComplexTask,
    draft: &str,
    feedback: &str,
) -> Result<Prompt, RunError> {
    prompt(
        p,
        "act.single.system",
        "act.single.refine.user",
        vars! { task => task.text, draft, feedback },
    )
}

/// The prompt again, asking for the JSON only (a step's one retry).
pub fn again(p: &Prompts, prompt: &Prompt) -> Result<Prompt, RunError> {
    let ask = render(p, "act.ask_again", vars! {})?;
    Ok((prompt.0.clone(), format!("{}\n\n{ask}", prompt.1)))
}

#[cfg(test)]
mod tests;
