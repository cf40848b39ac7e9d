//! The payloads of the events MAEL records (`contract`'s third part).

use super::super::topology::Team;
use super::{Mode, Split, StepKind};
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------- events
//
// NoteWritten stores and their payloads (a viewer rebuilds the call tree,
// the rounds, the retrievals and the pool's growth from these):
//   "team"        agent = root         TeamRecord          (once, first)
//   "task"        agent = assigner     TaskRecord          (key = task id)
//   "judgement"   agent = solver       JudgementRecord
//   "decomposition" agent = solver     DecompositionRecord
//   "solution"    agent = solver       SolutionRecord      (every version)
//   "critique"    agent = critic       CritiqueRecord
//   "retrieval"   agent = the step's   RetrievalRecord
//   "rating"      agent = evaluator    RatingRecord        (backward pass)
//   "experience"  agent = its owner    Experience          (backward pass)
//   "unlearned"   agent = its owner    UnlearnedRecord     (a step not stored:
//                                      its reward was not measured, or it
//                                      took its stated default)
//   "iteration"   agent = the writer   IterationRecord     (SRDD: the project
//                                      measured after each step that wrote files)
//   "result"      agent = root         ResultRecord        (last)
// ScoreComputed: "reward" per experience (agent, detail {id, step, task}),
// "score" (the metric of the final answer).
// Handoffs: assigner → solver ("subtask t1.2"), solver → assigner
// ("solution of t1.2"), critic → solver ("refine t1.2").

pub const STORE_TEAM: &str = "team";
pub const STORE_TASK: &str = "task";
pub const STORE_JUDGEMENT: &str = "judgement";
pub const STORE_DECOMPOSITION: &str = "decomposition";
pub const STORE_SOLUTION: &str = "solution";
pub const STORE_CRITIQUE: &str = "critique";
pub const STORE_RETRIEVAL: &str = "retrieval";

/// A lesson's questions on these runs: which experience a step retrieves.
pub const QUESTION_ROLES: crate::engine::lesson::questions::Roles =
    crate::engine::lesson::questions::Roles::retrievals(STORE_RETRIEVAL);
pub const STORE_RATING: &str = "rating";
pub const STORE_EXPERIENCE: &str = "experience";
pub const STORE_UNLEARNED: &str = "unlearned";
pub const STORE_RESULT: &str = "result";
/// SRDD: the project's quality after a step that wrote files (Fig. 4).
pub const STORE_ITERATION: &str = "iteration";
/// A CommonGen-Hard answer's composite and its parts (`quality::Quality`).
pub const STORE_QUALITY: &str = "quality";
/// A HumanEval answer run: the completion read from it (with its repairs)
/// and the harness's verdict (`humaneval::Checked`).
pub const STORE_PROGRAM: &str = "program";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TeamRecord {
    pub team: Team,
    pub root: usize,
    /// Closeness centrality per agent, in team order.
    pub closeness: Vec<f64>,
}

/// A (sub)task handed to an agent. Ids: the root task is `t0`; its
/// subtasks `t0.1`, `t0.2`, …
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    pub assigner: String,
    pub solver: String,
    pub text: String,
    pub depth: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgementRecord {
    pub task: String,
    pub solvable: bool,
    pub reason: String,
    /// Set when the agent did not ask (depth limit, no free neighbour) or
    /// its answer could not be read, saying why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecompositionRecord {
    pub task: String,
    /// Modules (at the same time) or a pipeline (in order); older runs'
    /// records have none: modules.
    #[serde(default)]
    pub mode: Split,
    /// The subtask ids, in order.
    pub subtasks: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolutionKind {
    /// Solved alone (version 0), or refined after a critique (1, 2, …).
    Solve,
    /// Merged from sub-solutions.
    Aggregate,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolutionRecord {
    pub task: String,
    pub version: u32,
    pub kind: SolutionKind,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CritiqueRecord {
    /// The subtask whose solution was checked.
    pub task: String,
    /// 1-based round.
    pub round: u32,
    /// The solution version checked.
    pub version: u32,
    pub adequate: bool,
    pub feedback: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// An experience as a retrieval returned it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RetrievedRecord {
    pub id: String,
    pub similarity: f64,
    pub reward: f64,
    pub score: f64,
    /// Appended to the step's input (the others are runners-up).
    pub used: bool,
    pub input: String,
    pub output: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RetrievalRecord {
    pub task: String,
    pub step: StepKind,
    pub mode: Mode,
    /// Candidates considered (the agent's entries of this step kind, or the
    /// trace's in task mode).
    pub candidates: usize,
    /// Best first.
    pub hits: Vec<RetrievedRecord>,
    /// Task mode: the past task whose trace this run follows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingRecord {
    pub task: String,
    pub version: u32,
    /// In [0, 1]; none when the evaluator's reply gave no score it could
    /// read (not measured: the reason says so).
    pub score: Option<f64>,
    /// `metric` (the final answer against the gold) or `evaluator`.
    pub by: String,
    #[serde(default)]
    pub reason: String,
}

/// A step the backward pass did not store: its reward was not measured
/// (it needs a rating that could not be read, or it wrote nothing), and an
/// unmeasured reward never enters a pool; or its reply could not be read
/// and it took its stated default, and such a reply is no example.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnlearnedRecord {
    /// The id its experience would have had.
    pub id: String,
    pub step: StepKind,
    pub task: String,
    pub reason: String,
}

/// The project measured after step `n` wrote files (SRDD's metric: Fig. 4's
/// quality per iteration).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IterationRecord {
    /// 1 for the first step that wrote files, then 2, …
    pub n: u32,
    pub step: StepKind,
    pub task: String,
    pub completeness: f64,
    pub executability: f64,
    pub consistency: f64,
    pub quality: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultRecord {
    pub task_id: String,
    pub dataset: String,
    pub answer: String,
    /// The dataset's metric in [0, 1].
    pub score: f64,
    pub gold: String,
    /// Critique rounds run (the most any agent ran).
    pub rounds: u32,
    /// Decision steps taken.
    pub steps: u32,
    pub mode: Mode,
    /// Experiences added to the pool by the backward pass.
    pub learned: usize,
    /// CommonGen-Hard: the composite's parts (coverage, then each judged
    /// criterion read), by name; the score is their mean. SRDD: Table 2's
    /// four (the score is `quality`) and Table 3's five.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<(String, f64)>,
    /// SRDD: the Python that ran the project and the embedder of its
    /// consistency, as a reader is told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scored_by: Option<String>,
}
