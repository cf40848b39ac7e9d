//! ACT's contract: ids, step tags, variants, options, the layout of its
//! requests, the replies it reads, and the payloads of the events it
//! records. The coordinator, the demo model (which plays every role), the
//! views and the UI build on this file.
//!
//! The method (Nakatsuji et al.): a complex task is split into one task per
//! agent; each agent gets a few expertise keywords; a **team meeting**
//! (opinions, advice, a leader fuses the tasks into the team's complex
//! task G); after it every agent rewrites its task (**task exploration**)
//! and stores episodes and scored knowledge about the others (**knowledge
//! acquisition**); in **break time** each agent asks an expert it creates;
//! the **production meeting** writes the deliverable (opinions with the
//! top-c knowledge, the leader's draft and check, reassertion). **ACT+**
//! carries the knowledge over to the next complex task.

use crate::engine::domains::creative::ComplexTask;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const ID: &str = "act";

/// The team's name, in the prompts that name it (the paper's expertise and
/// task-exploration prompts call the team by its name; neither the paper
/// nor a task set gives one, so every ACT team here is called this).
pub const TEAM_NAME: &str = "Roundtable";

// Roles (a model can be bound to each).
pub const ROLE_MEMBER: &str = "member";
pub const ROLE_EXPERT: &str = "expert";
pub const ROLE_JUDGE: &str = "judge";
pub const ROLE_FACILITATOR: &str = "facilitator";
pub const ROLE_WRITER: &str = "writer";
/// The agent that splits a typed task into parts (no member exists yet).
pub const FACILITATOR: &str = "facilitator";
/// The LLM judge of the evaluation.
pub const JUDGE: &str = "judge";
/// The single model of the one-model baselines.
pub const WRITER: &str = "writer";

// Step tags (`ChatRequest::step`).
pub const STEP_DECOMPOSE: &str = "act.decompose";
pub const STEP_EXPERTISE: &str = "act.expertise";
pub const STEP_TEAM_OPINION: &str = "act.team.opinion";
pub const STEP_TEAM_ADVICE: &str = "act.team.advice";
pub const STEP_FUSE: &str = "act.team.fuse";
pub const STEP_EXPLORE: &str = "act.explore";
pub const STEP_ACQUIRE: &str = "act.acquire";
pub const STEP_REFLECT: &str = "act.break.reflect";
pub const STEP_FOLLOWUP: &str = "act.break.followup";
pub const STEP_ANSWER: &str = "act.break.answer";
pub const STEP_PROD_OPINION: &str = "act.production.opinion";
pub const STEP_INSTRUCT: &str = "act.production.instruct";
pub const STEP_DRAFT: &str = "act.production.draft";
pub const STEP_CHECK: &str = "act.production.check";
pub const STEP_REASSERT: &str = "act.production.reassert";
pub const STEP_RESCORE: &str = "act.plus.rescore";
pub const STEP_JUDGE: &str = "act.judge";
/// A tool task's judge (§4.3, App. B): the query's sub-tasks, each checked.
pub const STEP_TOOL_JUDGE: &str = "act.tool_judge";
pub const STEP_STANDARD: &str = "act.single.standard";
pub const STEP_COT: &str = "act.single.cot";
pub const STEP_SPP: &str = "act.single.spp";
pub const STEP_SELF_FEEDBACK: &str = "act.single.feedback";
pub const STEP_SELF_REFINE: &str = "act.single.refine";

// Phase ids (`phase_started.phase`).
pub const PHASE_DECOMPOSE: &str = "decompose";
pub const PHASE_GENERATION: &str = "agent_generation";
pub const PHASE_TEAM: &str = "team_meeting";
pub const PHASE_BREAK: &str = "break_time";
pub const PHASE_PRODUCTION: &str = "production_meeting";
pub const PHASE_EVALUATION: &str = "evaluation";

/// The variants: ACT, ACT+, the ablations of Table 6 / A.6, and the
/// one-model baselines of Table 7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    Act,
    ActPlus,
    NoKnowledge,
    NoTeamMeeting,
    NoKeywords,
    NoTaskExploration,
    NoBreakTime,
    NoImportance,
    Baseline,
    Standard,
    Cot,
    SelfRefine,
    Spp,
}

impl Variant {
    /// The paper's groups of variants, in its tables' order: ACT itself,
    /// Table 6's ablations (with the baseline), Table 7's one-model methods.
    pub const GROUPS: [(&'static str, &'static [Variant]); 3] = [
        ("ACT", &[Variant::Act, Variant::ActPlus]),
        (
            "Ablations (Table 6)",
            &[
                Variant::NoKnowledge,
                Variant::NoTeamMeeting,
                Variant::NoKeywords,
                Variant::NoTaskExploration,
                Variant::NoBreakTime,
                Variant::NoImportance,
                Variant::Baseline,
            ],
        ),
        (
            "One model (Table 7)",
            &[
                Variant::Standard,
                Variant::Cot,
                Variant::SelfRefine,
                Variant::Spp,
            ],
        ),
    ];

    /// Every variant, the groups' in order (a count that does not add up
    /// does not compile).
    pub const ALL: [Variant; 13] = {
        let mut out = [Variant::Act; 13];
        let (mut g, mut n) = (0, 0);
        while g < Variant::GROUPS.len() {
            let group = Variant::GROUPS[g].1;
            let mut i = 0;
            while i < group.len() {
                out[n] = group[i];
                n += 1;
                i += 1;
            }
            g += 1;
        }
        assert!(n == 13, "Variant::GROUPS must list the 13 variants");
        out
    };

    pub fn id(self) -> &'static str {
        match self {
            Variant::Act => "act",
            Variant::ActPlus => "act-plus",
            Variant::NoKnowledge => "no-knowledge",
            Variant::NoTeamMeeting => "no-team-meeting",
            Variant::NoKeywords => "no-keywords",
            Variant::NoTaskExploration => "no-task-exploration",
            Variant::NoBreakTime => "no-break-time",
            Variant::NoImportance => "no-importance",
            Variant::Baseline => "baseline",
            Variant::Standard => "standard",
            Variant::Cot => "cot",
            Variant::SelfRefine => "self-refine",
            Variant::Spp => "spp",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Variant::Act => "ACT",
            Variant::ActPlus => "ACT+ (knowledge carried over)",
            Variant::NoKnowledge => "ACT − knowledge",
            Variant::NoTeamMeeting => "ACT − team meeting",
            Variant::NoKeywords => "ACT − keywords",
            Variant::NoTaskExploration => "ACT − task exploration",
            Variant::NoBreakTime => "ACT − break time",
            Variant::NoImportance => "ACT − importance score",
            Variant::Baseline => "Baseline (all five removed)",
            Variant::Standard => "One model: standard prompt",
            Variant::Cot => "One model: chain of thought",
            Variant::SelfRefine => "One model: self-refine",
            Variant::Spp => "One model: solo-performance prompting",
        }
    }

    pub fn parse(s: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.id() == s)
    }

    pub fn ids() -> String {
        Variant::ALL.map(Variant::id).join(", ")
    }

    /// One model writes the deliverable alone (no team).
    pub fn is_single(self) -> bool {
        matches!(
            self,
            Variant::Standard | Variant::Cot | Variant::SelfRefine | Variant::Spp
        )
    }

    /// What the variant keeps of ACT's mechanisms.
    pub fn features(self) -> Features {
        let all = Features {
            team_meeting: true,
            break_time: true,
            exploration: true,
            knowledge: true,
            keywords: true,
            importance: true,
            carry_over: false,
        };
        match self {
            Variant::Act => all,
            Variant::ActPlus => Features {
                carry_over: true,
                ..all
            },
            Variant::NoKnowledge => Features {
                knowledge: false,
                ..all
            },
            Variant::NoTeamMeeting => Features {
                team_meeting: false,
                ..all
            },
            Variant::NoKeywords => Features {
                keywords: false,
                ..all
            },
            Variant::NoTaskExploration => Features {
                exploration: false,
                ..all
            },
            Variant::NoBreakTime => Features {
                break_time: false,
                ..all
            },
            Variant::NoImportance => Features {
                importance: false,
                ..all
            },
            _ => Features {
                team_meeting: false,
                break_time: false,
                exploration: false,
                knowledge: false,
                keywords: false,
                importance: false,
                carry_over: false,
            },
        }
    }
}

/// ACT's mechanisms a run uses (a variant switches some off).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Features {
    pub team_meeting: bool,
    pub break_time: bool,
    pub exploration: bool,
    /// Knowledge acquisition and the knowledge blocks (expertise stays).
    pub knowledge: bool,
    /// Acquired entries are shown with their keywords.
    pub keywords: bool,
    /// Top-c by importance (else the c most recent).
    pub importance: bool,
    /// ACT+: the stores carry over from the previous complex task.
    pub carry_over: bool,
}

/// The caps and loop limits (the paper's values by default, §4.1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// Knowledge entries given to a prompt (c).
    pub c: usize,
    /// Episodes per other speaker per meeting (M).
    pub episodes: usize,
    /// Words per episode (X).
    pub episode_words: usize,
    /// Knowledge entries per other speaker per meeting (N).
    pub entries: usize,
    /// Keywords per entry and expertise keywords (N_k).
    pub keywords: usize,
    /// Question / answer pairs in break time.
    pub break_pairs: usize,
    /// Production rounds (drafts) before the last draft is final, for a
    /// task without tools.
    pub production_rounds: usize,
    /// Production rounds for a tool task (one whose options name tools):
    /// the paper lets its tool runs go on for at most 10 iterations (§4.3;
    /// ACT_NOTES A12). Older options without it get 10.
    #[serde(default = "ten")]
    pub tool_rounds: usize,
}

fn ten() -> usize {
    TOOL_ROUNDS
}

/// The production rounds of a tool task unless the options say otherwise.
pub const TOOL_ROUNDS: usize = 10;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            c: 20,
            episodes: 4,
            episode_words: 40,
            entries: 4,
            keywords: 4,
            break_pairs: 3,
            production_rounds: 3,
            tool_rounds: TOOL_ROUNDS,
        }
    }
}

/// The run's options (`RunConfig::options`); the variant is the run's
/// variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActOptions {
    /// The complex task with its parts (empty parts: the team splits the
    /// run's task text itself). References are kept for scoring only.
    pub task: ComplexTask,
    /// Agents when the team splits the task itself (L).
    #[serde(default = "four")]
    pub team_size: usize,
    #[serde(default)]
    pub limits: Limits,
    /// Stem tokens in ROUGE (the library's default is no).
    #[serde(default)]
    pub stem: bool,
    /// Ask the LLM judge for the expected-component score (0–4).
    #[serde(default)]
    pub judge: bool,
    /// Tools the production meeting may call (none unless the task set
    /// defines some).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// ACT+: the knowledge bank the run reads and writes (by name; the
    /// platform provides it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank: Option<String>,
    /// The imported set the task was drawn from (its name where the run
    /// ran), so a setup panel showing the run can find it; the coordinator
    /// does not read it. None: a built-in or typed task, or an older run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_set: Option<String>,
}

fn four() -> usize {
    4
}

impl ActOptions {
    pub fn for_task(task: ComplexTask) -> ActOptions {
        ActOptions {
            team_size: if task.parts.is_empty() {
                4
            } else {
                task.parts.len()
            },
            task,
            limits: Limits::default(),
            stem: false,
            judge: false,
            tools: Vec::new(),
            bank: None,
            task_set: None,
        }
    }

    /// One of AgentVerse's tool tasks (or a built-in one): its question for
    /// the team to split, its team size, every tool, and the judge of its
    /// sub-tasks' completion (§4.3, App. B).
    pub fn for_tool_task(t: &crate::engine::domains::agentverse::tasks::ToolTask) -> ActOptions {
        let mut o = ActOptions::for_task(t.complex_task());
        o.team_size = t.agents;
        o.judge = true;
        o.tools = super::tools::registry::ALL
            .iter()
            .map(|s| s.to_string())
            .collect();
        o
    }

    /// A tool task: the production meeting may call tools (the options
    /// name some).
    pub fn is_tool_task(&self) -> bool {
        !self.tools.is_empty()
    }

    /// The production rounds this run may hold: `tool_rounds` for a tool
    /// task, `production_rounds` otherwise (at least one).
    pub fn production_rounds(&self) -> usize {
        let rounds = if self.is_tool_task() {
            self.limits.tool_rounds
        } else {
            self.limits.production_rounds
        };
        rounds.max(1)
    }
}

// ---------------------------------------------------------------- requests
//
// Every request's user message is a list of `# Heading` sections; which
// ones depends on the step (prompts.rs writes them, the demo model reads
// them with `section`):

pub const H_NAME: &str = "# You are";
pub const H_EXPERTISE: &str = "# Your expertise";
pub const H_INITIAL: &str = "# Your initial task";
pub const H_CURRENT: &str = "# Your current task";
pub const H_DETAILS: &str = "# Details";
pub const H_TEAM_TASK: &str = "# The team's complex task";
pub const H_KNOWLEDGE: &str = "# Your knowledge";
pub const H_OPINIONS: &str = "# Opinions";
pub const H_ADVICE: &str = "# Advice";
pub const H_TASKS: &str = "# Everyone's tasks";
pub const H_TRANSCRIPT: &str = "# Meeting transcript";
pub const H_SPEAKERS: &str = "# Speakers";
pub const H_CONVERSATION: &str = "# Conversation";
pub const H_DEEPEN: &str = "# Knowledge to deepen";
pub const H_ISSUES: &str = "# Issues";
pub const H_DRAFT: &str = "# Draft";
pub const H_DELIVERABLE: &str = "# Deliverable";
pub const H_ENTRIES: &str = "# Stored knowledge";
pub const H_COMPONENTS: &str = "# Expected components";
pub const H_OUTPUT: &str = "# Output";
pub const H_QUESTION: &str = "# The question";
pub const H_FEEDBACK: &str = "# Feedback";
pub const H_TOOLS: &str = "# Tools";
/// The instruct step's opinion (Table 26).
pub const H_OPINION: &str = "# Your opinion";
pub const H_EXAMPLE: &str = "# Worked example";

pub use crate::engine::model::reply::section;

// ---------------------------------------------------------------- replies

/// An agent's task T = {subject, details}: the subject is rewritten by task
/// exploration, the details never change.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentTask {
    /// Never empty: a task without a subject is no task (a model held to
    /// the shape cannot leave it out).
    #[schemars(length(min = 1, max = 400))]
    pub subject: String,
    #[serde(default)]
    #[schemars(length(max = 8), inner(length(max = 400)))]
    pub details: Vec<String>,
}

/// act.team.fuse: `{"subject": "...", "detail": "...", "description": "..."}`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TeamTask {
    #[schemars(length(max = 400))]
    pub subject: String,
    #[serde(default)]
    #[schemars(length(max = 800))]
    pub detail: String,
    #[serde(default)]
    #[schemars(length(max = 1200))]
    pub description: String,
}

impl TeamTask {
    /// The text prompts show for G.
    pub fn text(&self) -> String {
        let mut out = self.subject.trim().to_string();
        for part in [&self.detail, &self.description] {
            if !part.trim().is_empty() {
                out.push('\n');
                out.push_str(part.trim());
            }
        }
        out
    }
}

/// act.break.reflect: `{"deepen": "...", "questions": ["..."]}`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reflection {
    #[serde(default)]
    #[schemars(length(max = 800))]
    pub reflection: String,
    #[schemars(length(max = 400))]
    pub deepen: String,
    #[serde(default)]
    #[schemars(length(max = 8), inner(length(max = 400)))]
    pub questions: Vec<String>,
}

/// act.production.check: `{"ok": bool, "issues": ["..."]}`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Check {
    pub ok: bool,
    #[serde(default)]
    #[schemars(length(max = 8), inner(length(max = 400)))]
    pub issues: Vec<String>,
}

/// act.production.instruct (Table 26): `{"subtasks": [{"task": "...",
/// "tool": "...", "arguments": {...}}]}` — a sub-task small, specific,
/// executable and measurable, the tool it runs on (a tool field of our own,
/// A19), and the tool's arguments (each request holds them to the offered
/// tools' own schemas). `input` is what runs before the arguments had
/// their own field recorded.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolSubtask {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(max = 300))]
    pub task: String,
    #[schemars(length(max = 60))]
    pub tool: String,
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub arguments: serde_json::Value,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(max = 600))]
    pub input: String,
}

pub mod keyword;
mod records;
mod replies;
pub use records::*;
pub use replies::*;
