//! MAEL's contract: ids, step tags, options, the layout of its requests,
//! the replies it reads, and the payloads of the events it records. The
//! coordinator, the demo model (which plays every role), the views and
//! the UI build on this file.
//!
//! Roles (Li et al.): agents sit on an undirected graph; starting at the
//! root (highest closeness), an agent handed a task **judges** whether it
//! can solve it alone, else **decomposes** it and hands the subtasks to
//! its free neighbours, **critiques** what they return (refinement rounds)
//! and **aggregates** their solutions; an agent that solves alone
//! **solves**. Every such decision step gets a reward after the run (the
//! backward pass) and becomes an experience in its agent's pool; later
//! steps retrieve by `α·similarity + (1−α)·reward`.

use super::topology::Team;
use crate::engine::domains::tasks::Task;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const ID: &str = "mael";
/// Rates sub-solutions in the backward pass (not on the graph).
pub const EVALUATOR: &str = "evaluator";
/// Who hands the root its task.
pub const USER: &str = "user";
/// Judges a CommonGen-Hard answer's quality (not on the graph).
pub const JUDGE: &str = "judge";

// Step tags (`ChatRequest::step`).
pub const STEP_JUDGE: &str = "mael.judge";
pub const STEP_DECOMPOSE: &str = "mael.decompose";
pub const STEP_SOLVE: &str = "mael.solve";
pub const STEP_CRITIQUE: &str = "mael.critique";
pub const STEP_AGGREGATE: &str = "mael.aggregate";
pub const STEP_EVALUATE: &str = "mael.evaluate";
/// One criterion of CommonGen-Hard's composite, judged (`quality.rs`).
pub const STEP_QUALITY: &str = "mael.quality";

/// The decision steps that become experiences.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    Judge,
    Decompose,
    Solve,
    Critique,
    Aggregate,
}

impl StepKind {
    pub const ALL: [StepKind; 5] = [
        StepKind::Judge,
        StepKind::Decompose,
        StepKind::Solve,
        StepKind::Critique,
        StepKind::Aggregate,
    ];

    pub fn id(self) -> &'static str {
        match self {
            StepKind::Judge => "judge",
            StepKind::Decompose => "decompose",
            StepKind::Solve => "solve",
            StepKind::Critique => "critique",
            StepKind::Aggregate => "aggregate",
        }
    }

    pub fn tag(self) -> &'static str {
        match self {
            StepKind::Judge => STEP_JUDGE,
            StepKind::Decompose => STEP_DECOMPOSE,
            StepKind::Solve => STEP_SOLVE,
            StepKind::Critique => STEP_CRITIQUE,
            StepKind::Aggregate => STEP_AGGREGATE,
        }
    }

    pub fn parse(s: &str) -> Option<StepKind> {
        StepKind::ALL.into_iter().find(|k| k.id() == s)
    }
}

/// How experiences are used (the variants: MAEL-ØExp, MAEL-Task, MAEL-Step).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Never read the pool.
    None,
    /// One past task's trace, chosen from the root task, for every step.
    Task,
    /// The best entry at every step, independently.
    Step,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::None, Mode::Task, Mode::Step];

    pub fn id(self) -> &'static str {
        match self {
            Mode::None => "none",
            Mode::Task => "task",
            Mode::Step => "step",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Mode::None => "No experience (MAEL-ØExp)",
            Mode::Task => "Task-wise retrieval (MAEL-Task)",
            Mode::Step => "Step-wise retrieval (MAEL-Step)",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.id() == s)
    }

    pub fn ids() -> String {
        Mode::ALL.map(Mode::id).join(", ")
    }
}

/// Table 4: use a part of the score as is (high) or flipped (low).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Polarity {
    High,
    Low,
}

/// The retrieval score: `α·sim + (1−α)·r`, each part possibly flipped.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scoring {
    #[serde(default = "half")]
    pub alpha: f64,
    #[serde(default = "high")]
    pub reward: Polarity,
    #[serde(default = "high")]
    pub similarity: Polarity,
}

impl Default for Scoring {
    fn default() -> Self {
        Scoring {
            alpha: 0.5,
            reward: Polarity::High,
            similarity: Polarity::High,
        }
    }
}

fn half() -> f64 {
    0.5
}
fn high() -> Polarity {
    Polarity::High
}

/// Where a sub-solution's reward comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RewardSource {
    /// The evaluator role rates it (0–10 → [0, 1]); the final answer is
    /// scored by the task's metric.
    Evaluator,
    /// Every step gets the final answer's metric.
    Final,
}

/// The run's options (`RunConfig::options`); the mode is the run's variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaelOptions {
    pub team: Team,
    pub task: Task,
    #[serde(default)]
    pub scoring: Scoring,
    /// Experiences retrieved per step.
    #[serde(default = "one")]
    pub top_k: usize,
    /// Refinement rounds after the first critique.
    pub max_rounds: u32,
    /// How deep tasks may be split (the root is depth 0).
    pub max_depth: u32,
    /// Run the backward pass: rewards, experiences into the pool.
    #[serde(default = "yes")]
    pub learn: bool,
    #[serde(default = "evaluator")]
    pub reward_source: RewardSource,
    /// The pool the run reads and writes (by name; the platform provides it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// The sampling temperature of MAEL's requests when the agent's model
    /// spec sets none: the paper's ([`TEMPERATURE`]) for a new run; none
    /// in older runs (their requests set none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
}

/// The paper's sampling temperature (Li et al., §3).
pub const TEMPERATURE: f32 = 0.2;

fn one() -> usize {
    1
}
fn yes() -> bool {
    true
}
fn evaluator() -> RewardSource {
    RewardSource::Evaluator
}

impl MaelOptions {
    /// The paper's settings for `task`'s dataset on the default team, at
    /// the paper's temperature.
    pub fn for_task(task: Task) -> MaelOptions {
        let (max_rounds, max_depth) = task.dataset.defaults();
        MaelOptions {
            team: Team::default_team(),
            task,
            scoring: Scoring::default(),
            top_k: 1,
            max_rounds,
            max_depth,
            learn: true,
            reward_source: RewardSource::Evaluator,
            pool: None,
            temperature: Some(TEMPERATURE),
        }
    }
}

// ---------------------------------------------------------------- requests
//
// Every decision request's user message starts with
//
//   # Task
//   <the (sub)task>
//
// (a subtask is written to stand on its own: the decomposer repeats what it
// needs). Decompose adds `# Neighbours` (one line per free neighbour: `- <id>: <name>`);
// a refinement adds `# Your previous solution` and `# Feedback`; critique
// adds `# Solution to check`; aggregate adds `# Sub-solutions` with one
// `## Subtask <i>: <text>` section each. A pipeline stage's solve adds
// `# Results of the earlier stages` (one `## Stage <i>: <text>` each). On a
// software task (SRDD), solve and aggregate add `# The project's files` (the
// workspace now, each file under its path and a fence) and reply with
// files ([`ProjectReply`]); a critique adds `# Running main.py` (the
// verdict, stdout and stderr of the project run as the metric runs it).
// A retrieved experience comes last:
//
//   # Example from your experience (reward 0.83)
//   ## Input
//   <the earlier step's input>
//   ## Your output then
//   <its output>
//
// The evaluator gets `# Task` (with `# Part of`, the task it came from)
// and `# Solution to rate`.

pub const TASK_HEADING: &str = "# Task";
pub const PARENT_HEADING: &str = "# Part of";
pub const NEIGHBOURS_HEADING: &str = "# Neighbours";
pub const PREVIOUS_HEADING: &str = "# Your previous solution";
pub const FEEDBACK_HEADING: &str = "# Feedback";
pub const CHECK_HEADING: &str = "# Solution to check";
pub const SUBSOLUTIONS_HEADING: &str = "# Sub-solutions";
/// A pipeline stage's input: the solutions of the stages before it.
pub const EARLIER_HEADING: &str = "# Results of the earlier stages";
/// A software task's input: the project's files as they are now.
pub const FILES_HEADING: &str = "# The project's files";
/// A software critique's input: what running `main.py` gave.
pub const RUN_HEADING: &str = "# Running main.py";
pub const RATE_HEADING: &str = "# Solution to rate";
pub const QUALITY_HEADING: &str = "# Criterion:";
pub const CONCEPTS_HEADING: &str = "# Concepts";
pub const TEXT_HEADING: &str = "# Text to judge";
pub const EXAMPLE_HEADING: &str = "# Example from your experience";
pub const EXAMPLE_INPUT: &str = "## Input";
pub const EXAMPLE_OUTPUT: &str = "## Your output then";

pub use crate::engine::model::reply::section;

/// Lines of an example, quoted with `> `.
pub fn quote(text: &str) -> String {
    text.lines()
        .map(|l| format!("> {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The example appended to a request, if any: its input, its output and
/// the reward shown with it.
pub fn example_of(text: &str) -> Option<(String, String, f64)> {
    let start = text.find(EXAMPLE_HEADING)?;
    let rest = &text[start + EXAMPLE_HEADING.len()..];
    let reward = rest
        .split("(reward ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .and_then(|r| r.trim().parse::<f64>().ok())
        .unwrap_or(0.0);
    let unquote = |block: &str| {
        block
            .lines()
            .filter_map(|l| l.strip_prefix("> ").or_else(|| (l == ">").then_some("")))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let input_at = rest.find(EXAMPLE_INPUT)?;
    let output_at = rest.find(EXAMPLE_OUTPUT)?;
    let input = unquote(&rest[input_at + EXAMPLE_INPUT.len()..output_at]);
    let output = unquote(&rest[output_at + EXAMPLE_OUTPUT.len()..]);
    Some((input, output, reward))
}

/// The request without its example (what a step's experience stores).
pub fn without_example(text: &str) -> &str {
    match text.find(&format!("\n{EXAMPLE_HEADING}")) {
        Some(i) => &text[..i],
        None => text,
    }
}

// ---------------------------------------------------------------- replies
//
// The shape of each structured step's reply: its JSON Schema is made from
// these types (`read/` declares each step's beside its reader).

/// judge: `{"solvable": bool, "reason": "..."}`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Judgement {
    pub solvable: bool,
    /// One sentence.
    #[serde(default)]
    #[schemars(length(max = 300))]
    pub reason: String,
}

/// How a decomposition's subtasks relate (§2.1: by "functional module or
/// pipeline"). The decomposer says which.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    // (Plain comments: documented variants would make the schema a oneOf.)
    // Independent parts, worked on at the same time.
    #[default]
    Modules,
    // Stages in order: each subtask starts when the one before it is
    // solved, and sees the results of the ones before it.
    Pipeline,
}

impl Split {
    pub fn id(self) -> &'static str {
        match self {
            Split::Modules => "modules",
            Split::Pipeline => "pipeline",
        }
    }
}

/// decompose: `{"mode": "modules" | "pipeline", "subtasks": [{"task":
/// "...", "agent": "<neighbour id>"}]}`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Decomposition {
    /// Independent modules, or a pipeline of stages in order.
    pub mode: Split,
    /// At most a node's neighbours (each request narrows it to the free
    /// ones and the step's cap).
    #[schemars(length(min = 1, max = 8))]
    pub subtasks: Vec<SubtaskChoice>,
}

/// One subtask of a decomposition and the neighbour it goes to (the
/// neighbours narrowed per request to the free ones).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SubtaskChoice {
    #[schemars(length(max = 600))]
    pub task: String,
    /// A neighbour's id.
    #[schemars(length(max = 64))]
    pub agent: String,
}

/// A software step's reply (solve, aggregate on an SRDD task): the files
/// it writes, whole (`{"files": [{"path": "main.py", "content": "..."}]}`).
/// An aggregation may write none, when the parts already fit. Bounded so a
/// model held to it here has room for it (about 20 K tokens): five files of
/// 200-odd lines a step; a project grows over its steps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProjectReply {
    #[schemars(length(max = 5))]
    pub files: Vec<FileWrite>,
}

/// One file written whole.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FileWrite {
    /// Relative, "/" between folders (`main.py`, `game/board.py`).
    #[schemars(length(min = 1, max = 120))]
    pub path: String,
    #[schemars(length(max = 8000))]
    pub content: String,
}

/// critique: `{"adequate": bool, "feedback": "..."}`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Critique {
    pub adequate: bool,
    /// What is wrong and how to fix it; empty when adequate.
    #[serde(default)]
    #[schemars(length(max = 600))]
    pub feedback: String,
}

/// evaluate and quality: `{"score": 0..10, "reason": "..."}` (a whole
/// number: a model held to it cannot write a score whose scale is unclear,
/// such as 0.8).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Rating {
    #[schemars(range(min = 0, max = 10))]
    pub score: u8,
    /// One sentence.
    #[serde(default)]
    #[schemars(length(max = 300))]
    pub reason: String,
}

mod records;
pub use records::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_read_up_to_the_next_heading() {
        let example = super::super::prompts::example(
            &format!("{TASK_HEADING}\nold task\n\n{FEEDBACK_HEADING}\nold feedback"),
            "Answer: 3",
            0.9,
        );
        let text = format!(
            "{TASK_HEADING}\nBuy pens.\nTwo lines.\n\n{FEEDBACK_HEADING}\nMind the offer.\n{example}"
        );
        assert_eq!(section(&text, TASK_HEADING), Some("Buy pens.\nTwo lines."));
        assert_eq!(section(&text, FEEDBACK_HEADING), Some("Mind the offer."));
        assert_eq!(section(&text, CHECK_HEADING), None);
        // The example's own headings stay inside it.
        let (input, output, reward) = example_of(&text).expect("example");
        assert_eq!(
            input,
            format!("{TASK_HEADING}\nold task\n\n{FEEDBACK_HEADING}\nold feedback")
        );
        assert_eq!((output.as_str(), reward), ("Answer: 3", 0.9));
        assert!(section(&text, EXAMPLE_HEADING).is_some_and(|s| s.contains("> # Task")));
        assert!(without_example(&text).ends_with("Mind the offer.\n"));
        assert_eq!(example_of("no example"), None);
        assert_eq!(Mode::parse("step"), Some(Mode::Step));
        assert_eq!(StepKind::parse("critique"), Some(StepKind::Critique));
        let o: MaelOptions = serde_json::from_value(serde_json::json!({
            "team": Team::default_team(),
            "task": {"dataset": "builtin", "id": "x", "prompt": "p", "gold": {"number": 3.0}},
            "max_rounds": 2, "max_depth": 1
        }))
        .expect("defaults fill the rest");
        assert_eq!((o.top_k, o.learn, o.scoring.alpha), (1, true, 0.5));
    }
}
