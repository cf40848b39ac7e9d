//! The state of a travel run as the paper defines it: the goal G, the
//! public conversation c and the notebook N, plus the bookkeeping the
//! metrics need (who has spoken, revisits, steps), and how a variant's
//! algorithm stops early (the step limit, [`Halt`]).

use super::contract::*;
use crate::engine::domains::travel::{NotDelivered, Plan, Query};
use crate::engine::model::{Message, ModelError};
use crate::engine::prompts::Prompts;
use crate::engine::run::RunError;
use std::collections::BTreeMap;
use std::rc::Rc;

/// What a variant delivers: a plan, or why there is none.
pub type Delivery = Result<Plan, NotDelivered>;

/// Every agent turn counts a step; a run that reaches `max_steps` stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepLimit {
    pub max_steps: u32,
}

impl StepLimit {
    /// A run stopped by the limit delivers no plan.
    pub fn not_delivered(self) -> NotDelivered {
        NotDelivered {
            reason: format!(
                "the step limit ({}) was reached before a plan was written",
                self.max_steps
            ),
        }
    }
}

/// Why a variant's algorithm stopped before its end: the step limit (the
/// run still ends normally, without a plan) or the run itself failed.
#[derive(Debug)]
pub enum Halt {
    StepLimit(StepLimit),
    Run(RunError),
}

impl From<StepLimit> for Halt {
    fn from(l: StepLimit) -> Self {
        Halt::StepLimit(l)
    }
}

impl From<RunError> for Halt {
    fn from(e: RunError) -> Self {
        Halt::Run(e)
    }
}

impl From<ModelError> for Halt {
    fn from(e: ModelError) -> Self {
        Halt::Run(e.into())
    }
}

impl Halt {
    /// The step limit ends the run without a plan; a failure fails it.
    pub fn into_delivery(self) -> Result<Delivery, RunError> {
        match self {
            Halt::StepLimit(l) => Ok(Err(l.not_delivered())),
            Halt::Run(e) => Err(e),
        }
    }

    /// For a loop that may stop at the step limit and keep what it has.
    pub fn ignore_step_limit(self) -> Result<(), Halt> {
        match self {
            Halt::StepLimit(_) => Ok(()),
            other => Err(other),
        }
    }
}

pub struct World {
    pub query: Query,
    pub facts: TripFacts,
    /// c: (agent id, display name, text), in order.
    pub posts: Vec<(String, String, String)>,
    /// N: every expert tool return, in order; `None` in the variants
    /// without a notebook (tool results stay private to their caller).
    pub notebook: Option<Vec<NotebookEntry>>,
    /// Experts that have taken a turn.
    pub spoken: Vec<String>,
    pub revisits: BTreeMap<String, u32>,
    pub steps: u32,
    pub max_steps: u32,
    /// The run's prompt templates (the defaults with its edits).
    pub prompts: Rc<Prompts>,
}

pub fn display_name(agent: &str) -> &'static str {
    match agent {
        TRANSPORTATION => "Transportation expert",
        HOTEL => "Hotel expert",
        RESTAURANT => "Restaurant expert",
        ATTRACTION => "Attraction expert",
        ORCHESTRATOR => "Orchestrator",
        SUMMARIZER => "Plan summarizer",
        COMPILER => "Plan compiler",
        CRITIC => "Plan critic",
        SOLO => "Planner agent",
        _ => "Agent",
    }
}

impl World {
    pub fn new(query: Query, max_steps: u32, variant: Variant, prompts: Rc<Prompts>) -> Self {
        let lc = &query.local_constraint;
        let facts = TripFacts {
            org: query.org.clone(),
            dest: query.dest.clone(),
            days: query.days,
            visiting_city_number: query.visiting_city_number,
            dates: query.date.clone(),
            people_number: query.people_number,
            budget: query.budget,
            house_rule: lc.house_rule.clone(),
            cuisine: lc.cuisine.clone(),
            room_type: lc.room_type.clone(),
            transportation: lc.transportation.clone(),
        };
        World {
            query,
            facts,
            posts: Vec::new(),
            notebook: variant.keeps_notebook().then(Vec::new),
            spoken: Vec::new(),
            revisits: BTreeMap::new(),
            steps: 0,
            max_steps,
            prompts,
        }
    }

    /// G with its structured facts: the start of every request.
    pub fn goal_block(&self) -> String {
        format!(
            "{GOAL_HEADING}\n{}\n\n{FACTS_HEADING}\n```json\n{}\n```\n",
            self.query.query.trim(),
            serde_json::to_string_pretty(&self.facts).unwrap_or_default()
        )
    }

    pub fn conversation(&self) -> String {
        format_conversation(&self.posts)
    }

    /// A step's messages: its system prompt, then `head` (the goal block or
    /// the planning brief), the conversation and the step's turn.
    pub fn messages(&self, system: impl Into<String>, head: &str, turn: &str) -> Vec<Message> {
        vec![
            Message::system(system),
            Message::user(format!("{head}\n{}\n{turn}", self.conversation())),
        ]
    }

    pub fn post(&mut self, agent: &str, text: &str) {
        self.posts.push((
            agent.to_string(),
            display_name(agent).to_string(),
            text.to_string(),
        ));
    }

    /// Counts a step, or stops the run at the step limit.
    pub fn take_step(&mut self) -> Result<(), StepLimit> {
        if self.steps >= self.max_steps {
            return Err(StepLimit {
                max_steps: self.max_steps,
            });
        }
        self.steps += 1;
        Ok(())
    }

    /// Records that an expert takes a turn; a second or later turn is a revisit.
    pub fn expert_turn_starts(&mut self, expert: &str) {
        if self.spoken.iter().any(|e| e == expert) {
            *self.revisits.entry(expert.to_string()).or_insert(0) += 1;
        } else {
            self.spoken.push(expert.to_string());
        }
    }

    /// The notebook as the summarizer shows it to the compiler; None in the
    /// variants without one.
    pub fn notebook_section(&self) -> Option<String> {
        let notebook = self.notebook.as_ref()?;
        let mut s = format!("{NOTEBOOK_HEADING}\n");
        if notebook.is_empty() {
            s.push_str("(empty)\n");
        }
        for (i, e) in notebook.iter().enumerate() {
            s.push_str(&format!(
                "## N{} · {} · {}[{}]\n{}\n\n",
                i + 1,
                display_name(&e.author),
                e.tool,
                e.args.join(", "),
                e.content.trim()
            ));
        }
        Some(s)
    }
}
