//! MAEL's view, folded from the log: the team (graph, root, closeness),
//! the call tree (every task with its solver, judgement, decomposition,
//! solution versions, critique rounds, ratings and step rewards), the
//! retrievals (what each step was shown, and the runners-up), the
//! experiences the backward pass stored, and the result. Payloads are
//! parsed with serde and skipped when they do not parse (runs may be old or
//! shared): nothing here panics on a payload.

use super::contract::*;
use super::experience::Experience;
use crate::engine::run::event::{LoggedEvent, RunEvent};
use crate::engine::views::html::agents::AgentMarks;
use crate::engine::views::{parse_object, Fold};
use serde_json::Value;

/// A task of the tree with everything recorded about it.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskItem {
    pub seq: u64,
    pub record: TaskRecord,
    pub judgement: Option<JudgementRecord>,
    pub decomposition: Option<DecompositionRecord>,
    /// (seq, solution), in version order.
    pub solutions: Vec<(u64, SolutionRecord)>,
    /// (seq, critique), in round order.
    pub critiques: Vec<(u64, CritiqueRecord)>,
    pub ratings: Vec<RatingRecord>,
    /// (step, reward) of the experiences stored for this task.
    pub rewards: Vec<(StepKind, f64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RetrievalItem {
    pub seq: u64,
    pub agent: String,
    pub record: RetrievalRecord,
}

/// The last thing that moved on the graph, for the team panel's highlight.
#[derive(Clone, Debug, PartialEq)]
pub enum Motion {
    /// A task or a solution handed along an edge.
    Handoff {
        from: String,
        to: String,
        what: String,
    },
    /// A reward arrived for an agent's step (the backward pass).
    Reward {
        agent: String,
        step: String,
        value: f64,
    },
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct MaelView {
    pub team: Option<TeamRecord>,
    pub mode: Option<Mode>,
    pub tasks: Vec<TaskItem>,
    pub retrievals: Vec<RetrievalItem>,
    pub experiences: Vec<(u64, Experience)>,
    pub result: Option<ResultRecord>,
    /// A HumanEval answer: the completion read from it and the verdict.
    pub program: Option<crate::engine::domains::tasks::humaneval::Checked>,
    /// SRDD: the project measured after each step that wrote files.
    pub iterations: Vec<IterationRecord>,
    /// The phase under way (`forward`, `backward`), none once ended.
    pub phase: Option<String>,
    pub motion: Option<(u64, Motion)>,
    /// Every reward of the backward pass, in order (seq, a `Motion::Reward`):
    /// the team panel plays them one after another.
    pub rewards: Vec<(u64, Motion)>,
    /// Every agent in the order it joined (the team, then the evaluator):
    /// its colour and initials.
    pub marks: AgentMarks,
}

impl MaelView {
    pub fn task(&self, id: &str) -> Option<&TaskItem> {
        self.tasks.iter().find(|t| t.record.id == id)
    }

    fn task_mut(&mut self, id: &str) -> Option<&mut TaskItem> {
        self.tasks.iter_mut().find(|t| t.record.id == id)
    }

    /// The tasks directly below `id`, in order.
    pub fn children<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a TaskItem> {
        self.tasks
            .iter()
            .filter(move |t| t.record.parent.as_deref() == Some(id))
    }

    /// The retrievals of one agent.
    pub fn retrievals_of<'a>(&'a self, agent: &'a str) -> impl Iterator<Item = &'a RetrievalItem> {
        self.retrievals.iter().filter(move |r| r.agent == agent)
    }

    /// An agent's display name from the team.
    pub fn name_of<'a>(&'a self, id: &'a str) -> &'a str {
        self.team
            .as_ref()
            .and_then(|t| t.team.agents.iter().find(|a| a.id == id))
            .map(|a| a.name.as_str())
            .unwrap_or(id)
    }

    // Out of line (see `views::Fold`): the payloads' parsers would make
    // `apply` one giant wasm function.
    #[inline(never)]
    fn note(&mut self, seq: u64, agent: &str, store: &str, payload: &Value) {
        match store {
            STORE_TEAM => self.team = parse_object(payload).or(self.team.take()),
            STORE_TASK => {
                if let Some(record) = parse_object::<TaskRecord>(payload) {
                    self.tasks.push(TaskItem {
                        seq,
                        record,
                        judgement: None,
                        decomposition: None,
                        solutions: Vec::new(),
                        critiques: Vec::new(),
                        ratings: Vec::new(),
                        rewards: Vec::new(),
                    });
                }
            }
            STORE_JUDGEMENT => {
                if let Some(j) = parse_object::<JudgementRecord>(payload) {
                    if let Some(t) = self.task_mut(&j.task) {
                        t.judgement = Some(j);
                    }
                }
            }
            STORE_ITERATION => {
                if let Some(i) = parse_object::<IterationRecord>(payload) {
                    self.iterations.push(i);
                }
            }
            STORE_DECOMPOSITION => {
                if let Some(d) = parse_object::<DecompositionRecord>(payload) {
                    if let Some(t) = self.task_mut(&d.task) {
                        t.decomposition = Some(d);
                    }
                }
            }
            STORE_SOLUTION => {
                if let Some(s) = parse_object::<SolutionRecord>(payload) {
                    if let Some(t) = self.task_mut(&s.task) {
                        t.solutions.push((seq, s));
                    }
                }
            }
            STORE_CRITIQUE => {
                if let Some(c) = parse_object::<CritiqueRecord>(payload) {
                    if let Some(t) = self.task_mut(&c.task) {
                        t.critiques.push((seq, c));
                    }
                }
            }
            STORE_RATING => {
                if let Some(r) = parse_object::<RatingRecord>(payload) {
                    if let Some(t) = self.task_mut(&r.task) {
                        t.ratings.push(r);
                    }
                }
            }
            STORE_RETRIEVAL => {
                if let Some(record) = parse_object::<RetrievalRecord>(payload) {
                    self.mode = Some(record.mode);
                    self.retrievals.push(RetrievalItem {
                        seq,
                        agent: agent.to_string(),
                        record,
                    });
                }
            }
            STORE_EXPERIENCE => {
                if let Some(e) = parse_object::<Experience>(payload) {
                    self.experiences.push((seq, e));
                }
            }
            STORE_PROGRAM => self.program = parse_object(payload),
            STORE_RESULT => {
                if let Some(r) = parse_object::<ResultRecord>(payload) {
                    self.mode = Some(r.mode);
                    self.result = Some(r);
                }
            }
            _ => {}
        }
    }
}

impl Fold for MaelView {
    fn apply(&mut self, ev: &LoggedEvent) {
        match &ev.event {
            RunEvent::RunStarted { config } => {
                self.mode = config.variant.as_deref().and_then(Mode::parse);
            }
            RunEvent::AgentAdded { agent, name, .. } => self.marks.add(agent, name),
            RunEvent::PhaseStarted { phase, .. } => self.phase = Some(phase.clone()),
            RunEvent::PhaseEnded { .. } => self.phase = None,
            RunEvent::Handoff { from, to, reason } => {
                self.motion = Some((
                    ev.seq,
                    Motion::Handoff {
                        from: from.clone(),
                        to: to.clone(),
                        what: reason.clone(),
                    },
                ));
            }
            RunEvent::ScoreComputed {
                name,
                value,
                agent: Some(agent),
                detail,
            } if name == "reward" => {
                let step = detail
                    .get("step")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let task = detail
                    .get("task")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if let (Some(t), Some(kind)) = (
                    self.tasks.iter_mut().find(|t| t.record.id == task),
                    StepKind::parse(step),
                ) {
                    t.rewards.push((kind, *value));
                }
                let motion = Motion::Reward {
                    agent: agent.clone(),
                    step: step.to_string(),
                    value: *value,
                };
                self.rewards.push((ev.seq, motion.clone()));
                self.motion = Some((ev.seq, motion));
            }
            RunEvent::NoteWritten {
                agent,
                store,
                payload,
                ..
            } => self.note(ev.seq, agent, store, payload),
            _ => {}
        }
    }
}
