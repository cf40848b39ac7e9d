//! The payloads of the events an ACT run records (what a viewer folds the
//! meetings, every agent's memory, the task evolution and the production
//! rounds from), with the store names they are written under.

use super::{AgentTask, TeamTask, ToolSubtask, Variant};
use serde::{Deserialize, Serialize};

//
// NoteWritten stores and their payloads (a viewer rebuilds the meetings,
// every agent's memory, the task evolution and the production rounds from
// these and the posted messages):
//   "parts"        agent = facilitator  PartsRecord       (decompose, once)
//   "expertise"    agent = owner        ExpertiseRecord   (generation; experts too)
//   "task"         agent = owner        TaskRecord        (initial, after each update)
//   "complex_task" agent = leader       ComplexTaskRecord (G₀ at generation, G after fusion)
//   "leader"       agent = leader       LeaderRecord
//   "episode"      agent = owner        Episode
//   "knowledge"    agent = owner        Knowledge
//   "acquisition"  agent = owner        AcquisitionRecord (per update: counts and flags)
//   "retrieval"    agent = owner        RetrievalRecord   (just before the request it feeds)
//   "break"        agent = member       BreakRecord       (expert, what to deepen, pairs)
//   "rescore"      agent = owner        RescoreRecord     (ACT+)
//   "assignment"   agent = owner        AssignmentRecord  (ACT+)
//   "draft"        agent = leader       DraftRecord       (every round)
//   "check"        agent = leader       CheckRecord       (every round)
//   "tool_plan"    agent = member       ToolPlanRecord    (tools mode)
//   "judge"        agent = judge        JudgeRecord
//   "result"       agent = leader       ResultRecord      (last)
// MessagePosted: meetings are Public; break time is To([member, expert]).
// ScoreComputed: rouge1 / rouge2 / rougeL (recall, detail {precision,
// fmeasure}), trivia_recall, judge_score, words.

pub const STORE_PARTS: &str = "parts";
pub const STORE_EXPERTISE: &str = "expertise";
pub const STORE_TASK: &str = "task";
pub const STORE_COMPLEX_TASK: &str = "complex_task";
pub const STORE_LEADER: &str = "leader";
pub const STORE_EPISODE: &str = "episode";
pub const STORE_KNOWLEDGE: &str = "knowledge";
pub const STORE_ACQUISITION: &str = "acquisition";
pub const STORE_RETRIEVAL: &str = "retrieval";

/// A lesson's questions on these runs: which entries a retrieval returns.
pub const QUESTION_ROLES: crate::engine::lesson::questions::Roles =
    crate::engine::lesson::questions::Roles::retrievals(STORE_RETRIEVAL);
pub const STORE_BREAK: &str = "break";
pub const STORE_RESCORE: &str = "rescore";
pub const STORE_ASSIGNMENT: &str = "assignment";
pub const STORE_DRAFT: &str = "draft";
pub const STORE_CHECK: &str = "check";
pub const STORE_TOOL_PLAN: &str = "tool_plan";
pub const STORE_JUDGE: &str = "judge";
pub const STORE_RESULT: &str = "result";

/// Meeting indices (j): 0 agent generation, 1 team meeting, 2 break time,
/// 3… production rounds.
pub const MEETING_GENERATION: u32 = 0;
pub const MEETING_TEAM: u32 = 1;
pub const MEETING_BREAK: u32 = 2;
pub const MEETING_PRODUCTION: u32 = 3;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartsRecord {
    /// The parts, without references.
    pub parts: Vec<AgentTask>,
    /// `task set` (given by the set) or `decomposed` (by the facilitator).
    pub by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExpertiseRecord {
    pub agent: String,
    pub keywords: Vec<String>,
    /// What the repair did, if the reply overshot or could not be read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

/// An agent's task T = {subject, details} at a point of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    pub agent: String,
    /// `initial`, `after_team_meeting`, `after_break_time`, `reassigned`.
    pub stage: String,
    pub subject: String,
    pub details: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ComplexTaskRecord {
    /// `draft` (G₀, the concatenation) or `fused`.
    pub stage: String,
    pub task: TeamTask,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaderRecord {
    pub leader: String,
    pub seed: u64,
}

/// An episode E: what a speaker did and how, in ≤ X words, as the owner
/// stored it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Episode {
    pub id: String,
    pub owner: String,
    /// The agent (or expert) it is about.
    pub about: String,
    pub meeting: u32,
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

/// A knowledge entry: a brief summary with keywords, the speaker it was
/// heard from (`source`, the collection it is filed in), where its
/// information came from (`origin`) and the owner's importance score (0–10).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Knowledge {
    pub id: String,
    pub owner: String,
    pub source: String,
    /// The source's name when the entry was stored (an expert of an
    /// earlier task has left the team).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source_name: String,
    /// Where the information came from, as the reply's `"source"` named it:
    /// the speaker, or someone the speaker passed it on from. Empty when
    /// none was named (replies and banks from before it was asked for).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub origin: String,
    pub meeting: u32,
    /// The complex task (trial) it was acquired in: 0 for a team's first,
    /// n for ACT+'s (n+1)th on one bank. Entries of banks from before it
    /// was kept read as 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub trial: u32,
    pub summary: String,
    pub keywords: Vec<String>,
    pub importance: u8,
    /// Insertion order in the owner's store (the last tie-break).
    pub order: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AcquisitionRecord {
    pub meeting: u32,
    pub episodes: usize,
    pub entries: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

/// The knowledge a prompt was given: the ids, best first (expertise is
/// always given too).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RetrievalRecord {
    pub step: String,
    pub ids: Vec<String>,
    /// Entries the agent held.
    pub held: usize,
    /// `importance` or `recency` (− importance).
    pub by: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BreakRecord {
    pub member: String,
    pub expert: String,
    pub deepen: String,
    pub pairs: usize,
    /// How many of the pairs asked the questions the reflection planned
    /// (the rest were follow-ups); 0 in runs recorded before.
    #[serde(default)]
    pub planned: usize,
    /// `no further questions`, `no question could be read` (a follow-up
    /// with neither a question nor "done", flagged) or `cap`.
    pub ended: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RescoreRecord {
    /// The entries the prompt showed, with their scores after it (the
    /// others keep theirs).
    pub scores: Vec<(String, u8)>,
    /// Entries the agent held (0 in records from before it was kept).
    #[serde(default)]
    pub held: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Which prompt of the agent's re-scoring this was (from 1; 0 in
    /// records from before re-scoring went in batches).
    #[serde(default)]
    pub batch: usize,
    /// Set on the last batch: entries that kept an old score and ranked
    /// ahead of the c-th fresh one, with the score they were put to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lowered: Vec<(String, u8)>,
    /// Set on the last batch: why re-scoring stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AssignmentRecord {
    pub agent: String,
    /// The part's index in the new complex task.
    pub part: usize,
    pub similarity: f64,
    /// The embedder that compared keywords with tasks (its label).
    #[serde(default)]
    pub embedder: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DraftRecord {
    pub round: u32,
    pub text: String,
    pub words: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckRecord {
    pub round: u32,
    pub ok: bool,
    pub issues: Vec<String>,
    /// The word limit was checked in code, and broken.
    #[serde(default)]
    pub over_limit: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolPlanRecord {
    pub subtasks: Vec<ToolSubtask>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

/// A tool task's judgement: the sub-tasks, those done, and the rate (none
/// when the reply could not be read: not measured).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolJudgeRecord {
    pub subtasks: Vec<super::SubtaskCheck>,
    pub rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The store of a tool task's judgement.
pub const STORE_TOOL_JUDGE: &str = "tool_judge";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeRecord {
    /// 0…parts; None when the reply held no score (a parse failure).
    pub score: Option<u32>,
    pub reply: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultRecord {
    pub task_id: String,
    pub set: String,
    pub variant: Variant,
    pub output: String,
    pub words: usize,
    /// The last draft passed the leader's check.
    pub accepted: bool,
    pub rounds: u32,
    pub scores: crate::engine::domains::creative::score::Scores,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<u32>,
}
