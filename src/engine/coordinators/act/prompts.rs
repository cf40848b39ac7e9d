//! ACT's prompts, written for Roundtable after the structure of the
//! paper's appendix (Tables 21–27) and its method section for the steps it
//! gives no prompt for. The texts are templates in `act.prompts` (a run may
//! edit them); each function here renders one step's system message and
//! user message. A user message is a list of `# Heading` sections
//! (contract) and ends with one instruction paragraph (steps on lines of
//! their own, no blank line: the demo model reads its numbers there).

use super::contract::*;
use crate::engine::domains::creative::ComplexTask;
use crate::engine::prompts::{vars, Prompts, TemplateSpec, Value, Var};
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

const WHO: Var = Var::required("who", "who is speaking: the act.speaker block");
const TEAM_TASK: Var = Var::required("team_task", "the team's complex task");
const TASKS: Var = Var::required(
    "tasks",
    "every member's task, \"- Name: subject\" and its details",
);

const fn req(name: &'static str, about: &'static str) -> Var {
    Var::required(name, about)
}
const fn opt(name: &'static str, about: &'static str) -> Var {
    Var::optional(name, about)
}
const fn spec(name: &'static str, about: &'static str, vars: &'static [Var]) -> TemplateSpec {
    TemplateSpec::new(name, about, vars)
}

/// Every template of ACT, with the variables its step gives.
pub static TEMPLATES: [TemplateSpec; 36] = [
    spec(
        "act.speaker",
        "Who is speaking: the block every member's request starts with",
        &[
            req("name", "the member's name"),
            req("initial", "its initial task (subject, then details)"),
            opt("current", "its current task's subject"),
            opt("knowledge", "its expertise and top-c knowledge entries"),
        ],
    ),
    spec(
        "act.member.system",
        "The system prompt of every member's step",
        &[],
    ),
    spec(
        "act.decompose.system",
        "Splitting the task before the team meets",
        &[],
    ),
    spec(
        "act.decompose.user",
        "The task to split, one task per member (JSON)",
        &[
            req("task", "the complex task"),
            req("agents", "how many members").number(),
        ],
    ),
    spec("act.expertise.system", "Agent generation (Table 21)", &[]),
    spec(
        "act.expertise.user",
        "A member's expertise keywords from its task (JSON)",
        &[
            req("name", "the member's name"),
            opt("team", "the team's name"),
            req("task", "its initial task"),
            opt("max", "the most keywords").number(),
        ],
    ),
    spec(
        "act.team.opinion.user",
        "A member's opinion in the team meeting",
        &[WHO, req("draft", "the team's task so far")],
    ),
    spec(
        "act.team.advice.user",
        "A member's advice after hearing every opinion",
        &[
            WHO,
            req("draft", "the team's task so far"),
            req("opinions", "the opinions"),
        ],
    ),
    spec(
        "act.team.fuse.system",
        "The leader who fuses the tasks (Table 22)",
        &[],
    ),
    spec(
        "act.team.fuse.user",
        "The fusion of every member's task into the team's complex task (JSON)",
        &[
            WHO,
            req("opinions", "the opinions"),
            opt("advice", "the advice"),
            TASKS,
            opt("names", "the members' names, \"A, B and C\""),
        ],
    ),
    spec(
        "act.explore.user",
        "Task exploration after a meeting (Table 23, JSON)",
        &[
            WHO,
            opt("team", "the team's name"),
            TEAM_TASK,
            opt(
                "deliverable",
                "what the team delivers (a proposal, a story, …)",
            ),
            req("transcript", "the meeting's transcript"),
        ],
    ),
    spec(
        "act.acquire.system",
        "Knowledge acquisition (Table 24)",
        &[],
    ),
    spec(
        "act.acquire.user",
        "Episodes and knowledge from a meeting, by speaker (JSON)",
        &[
            WHO,
            req("speakers", "the speakers to take notes on"),
            req("transcript", "the meeting's transcript"),
            opt("episodes", "the most episodes per speaker").number(),
            opt("episode_words", "the most words per episode").number(),
            opt("entries", "the most knowledge entries per speaker").number(),
        ],
    ),
    spec(
        "act.break.reflect.user",
        "The reflection before break time: what to deepen, the questions to ask (JSON)",
        &[
            WHO,
            TEAM_TASK,
            req("transcript", "the team meeting's transcript"),
            opt("cap", "the most question / answer pairs of a 1:1").number(),
        ],
    ),
    spec(
        "act.break.followup.user",
        "A member's turn after an expert's answer: a deeper question, or done (JSON)",
        &[
            WHO,
            opt("deepen", "the knowledge to deepen"),
            req("conversation", "the 1:1 so far"),
            opt("left", "how many questions the cap still allows").number(),
        ],
    ),
    spec(
        "act.break.answer.system",
        "The expert consulted in break time",
        &[],
    ),
    spec(
        "act.break.answer.user",
        "The expert's answer to the last question",
        &[
            opt("name", "the expert's name"),
            opt("expertise", "its expertise keywords"),
            opt(
                "task",
                "its task: the knowledge to deepen, and the member's questions",
            ),
            req("conversation", "the 1:1 so far"),
        ],
    ),
    spec(
        "act.production.opinion.user",
        "A member's opinion in the production meeting (Table 25)",
        &[WHO, TEAM_TASK, req("deliverable", "what the team delivers")],
    ),
    spec(
        "act.production.instruct.user",
        "A member's tool sub-tasks (eq. 9, JSON)",
        &[
            WHO,
            req("tools", "the tools it may use"),
            req("opinion", "its opinion"),
        ],
    ),
    spec(
        "act.production.draft.system",
        "The leader who writes the deliverable",
        &[],
    ),
    spec(
        "act.production.draft.user",
        "The leader's draft from the opinions (a revision also sees the last draft and its issues)",
        &[
            WHO,
            TEAM_TASK,
            TASKS,
            req("deliverable", "what the team delivers"),
            req("opinions", "the members' opinions"),
            opt(
                "revising",
                "true for a revision, which sees the last draft and its issues",
            )
            .flag(),
            opt("draft", "the last draft, when revising"),
            opt("issues", "its issues, when revising"),
            opt(
                "proposal",
                "true when the deliverable is a proposal (the paper's framework)",
            )
            .flag(),
            opt("word_limit", "the task's word limit, if any").number(),
        ],
    ),
    spec(
        "act.production.check.system",
        "The leader who checks the draft",
        &[],
    ),
    spec(
        "act.production.check.user",
        "The leader's check of the draft (JSON)",
        &[WHO, TEAM_TASK, TASKS, req("draft", "the draft")],
    ),
    spec(
        "act.production.reassert.user",
        "A member's opinion restated after the leader's issues",
        &[
            WHO,
            TEAM_TASK,
            req("opinion", "its earlier opinion"),
            req("draft", "the draft"),
            req("issues", "the leader's issues"),
        ],
    ),
    spec(
        "act.plus.rescore.system",
        "ACT+'s re-scoring of stored knowledge",
        &[],
    ),
    spec(
        "act.plus.rescore.user",
        "The stored entries to score again for the new task (JSON)",
        &[
            WHO,
            req("entries", "the entries shown, one line each").number(),
            opt("shown", "how many are shown").number(),
            opt("held", "how many the member holds").number(),
            opt("batch", "how many re-scoring prompts came before this one").number(),
        ],
    ),
    spec(
        "act.judge.system",
        "The LLM judge of the deliverable (Table 27)",
        &[],
    ),
    spec(
        "act.judge.user",
        "The expected components and the output to count them in (JSON)",
        &[
            req("components", "the expected components, numbered"),
            req("output", "the deliverable"),
            opt("n", "how many components").number(),
        ],
    ),
    spec(
        "act.single.system",
        "The one-model baselines (standard, CoT, SPP, Self-Refine)",
        &[],
    ),
    spec(
        "act.single.standard.user",
        "The standard baseline's request",
        &[req("task", "the task")],
    ),
    spec(
        "act.single.cot.user",
        "The chain-of-thought baseline's request",
        &[req("task", "the task")],
    ),
    spec(
        "act.single.spp.user",
        "The solo-performance-prompting baseline's request",
        &[req("task", "the task")],
    ),
    spec("act.single.feedback.system", "Self-Refine's reviewer", &[]),
    spec(
        "act.single.feedback.user",
        "Self-Refine's feedback on a draft",
        &[req("task", "the task"), req("draft", "the draft")],
    ),
    spec(
        "act.single.refine.user",
        "Self-Refine's rewrite from the feedback",
        &[
            req("task", "the task"),
            req("draft", "the draft"),
            req("feedback", "the feedback"),
        ],
    ),
    spec(
        "act.ask_again",
        "Added to a request whose JSON reply could not be read, asked once more",
        &[],
    ),
];

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

pub fn instruct(
    p: &Prompts,
    s: &Speaker,
    opinion: &str,
    tools: &[String],
) -> Result<Prompt, RunError> {
    prompt(
        p,
        MEMBER,
        "act.production.instruct.user",
        vars! { who => who(p, s)?, tools => tools.join(", "), opinion },
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
