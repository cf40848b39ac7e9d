//! The team as the run holds it: members (and, during break time, the
//! experts they create), each with its tasks and private store; the
//! team's complex task G; the leader. `Act` is what every step function
//! takes: the context, the options, the variant's features and this state.

use super::contract::*;
use super::memory::{self, Store};
use super::prompts::{self, Prompt, Speaker};
use crate::engine::domains::creative::ComplexTask;
use crate::engine::model::reply::Repair;
use crate::engine::model::shape::ReplySchema;
use crate::engine::model::{ChatRequest, Message};
use crate::engine::prompts::Prompts;
use crate::engine::run::{Audience, RunCtx, RunError};
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};

/// A member or an expert.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Agent {
    pub id: String,
    pub name: String,
    pub initial: AgentTask,
    pub current: AgentTask,
    pub store: Store,
}

impl Agent {
    pub fn new(id: &str, name: &str, task: AgentTask) -> Agent {
        Agent {
            id: id.into(),
            name: name.into(),
            initial: task.clone(),
            current: task,
            store: Store::default(),
        }
    }
}

/// What was said in a meeting, in order.
#[derive(Clone, Debug, Default)]
pub struct Meeting {
    pub index: u32,
    pub lines: Vec<(String, String)>,
}

pub struct Act<'a> {
    pub ctx: &'a RunCtx,
    pub task: ComplexTask,
    pub options: ActOptions,
    pub variant: Variant,
    pub features: Features,
    pub members: RefCell<Vec<Agent>>,
    pub experts: RefCell<Vec<Agent>>,
    pub leader: Cell<usize>,
    /// Complex tasks the team took on before this one (ACT+; 0 otherwise).
    pub trial: Cell<u32>,
    pub team_task: RefCell<TeamTask>,
    /// The run's prompt templates (the defaults with its edits).
    pub prompts: Prompts,
}

impl<'a> Act<'a> {
    /// The run's state; the references are dropped from the task (the
    /// steps never see them: only the evaluation, given the full task).
    pub fn new(
        ctx: &'a RunCtx,
        mut options: ActOptions,
        variant: Variant,
        prompts: Prompts,
    ) -> Act<'a> {
        options.task = options.task.brief();
        Act {
            ctx,
            task: options.task.clone(),
            features: variant.features(),
            options,
            variant,
            members: RefCell::new(Vec::new()),
            experts: RefCell::new(Vec::new()),
            leader: Cell::new(0),
            trial: Cell::new(0),
            team_task: RefCell::new(TeamTask::default()),
            prompts,
        }
    }

    pub fn limits(&self) -> &Limits {
        &self.options.limits
    }

    pub fn member_count(&self) -> usize {
        self.members.borrow().len()
    }

    pub fn member(&self, i: usize) -> Agent {
        self.members.borrow()[i].clone()
    }

    pub fn member_id(&self, i: usize) -> String {
        self.members.borrow()[i].id.clone()
    }

    pub fn leader_id(&self) -> String {
        self.member_id(self.leader.get())
    }

    /// The display name of an agent or expert id.
    pub fn name_of(&self, id: &str) -> String {
        self.members
            .borrow()
            .iter()
            .chain(self.experts.borrow().iter())
            .find(|a| a.id == id)
            .map(|a| a.name.clone())
            .unwrap_or_else(|| id.to_string())
    }

    /// G as prompts show it.
    pub fn team_task_text(&self) -> String {
        self.team_task.borrow().text()
    }

    /// Every member's name and task (initial, or current), in team order.
    pub fn tasks(&self, initial: bool) -> Vec<(String, AgentTask)> {
        self.members
            .borrow()
            .iter()
            .map(|a| {
                let t = if initial { &a.initial } else { &a.current };
                (a.name.clone(), t.clone())
            })
            .collect()
    }

    /// Every member's task, as the fuse, draft and check prompts show them.
    pub fn tasks_text(&self, initial: bool) -> String {
        prompts::task_list(&self.tasks(initial))
    }

    /// Agent `i` as a prompt for `step` shows it: its tasks and its
    /// knowledge block (expertise + top-c, recorded as a retrieval).
    pub fn speaker(&self, i: usize, step: &str) -> Speaker {
        let a = self.member(i);
        let knowledge = if self.features.knowledge {
            let chosen = a.store.select(self.limits().c, self.features.importance);
            self.ctx.note(
                &a.id,
                STORE_RETRIEVAL,
                Some(step),
                &RetrievalRecord {
                    step: step.into(),
                    ids: chosen.iter().map(|k| k.id.clone()).collect(),
                    held: a.store.knowledge.len(),
                    by: if self.features.importance {
                        "importance".into()
                    } else {
                        "recency".into()
                    },
                },
            );
            memory::render(&a.store.expertise, &chosen, self.features.keywords, &|s| {
                self.name_of(s)
            })
        } else {
            memory::render(&a.store.expertise, &[], false, &|s| s.to_string())
        };
        Speaker {
            name: a.name,
            expertise: a.store.expertise,
            initial: a.initial,
            current: a.current,
            knowledge,
        }
    }

    /// Member `i` asked at `step` with the prompt `make` writes from its
    /// view (its top-c block recorded as a retrieval): the reply, and that
    /// view.
    pub async fn ask_member(
        &self,
        i: usize,
        step: &str,
        make: impl FnOnce(&Speaker) -> Result<Prompt, RunError>,
    ) -> Result<(Said, Speaker), RunError> {
        let member = self.member_id(i);
        let s = self.speaker(i, step);
        let said = self.ask(&member, step, make(&s)?).await?;
        Ok((said, s))
    }

    /// One request of `agent` for `step`: the reply's text and its call.
    pub async fn ask(&self, agent: &str, step: &str, prompt: Prompt) -> Result<Said, RunError> {
        self.ask_narrowed(agent, step, prompt, |s| s).await
    }

    /// [`Act::ask`] with the step's shape narrowed for this request (e.g.
    /// names restricted to the speakers the prompt lists).
    pub async fn ask_narrowed(
        &self,
        agent: &str,
        step: &str,
        prompt: Prompt,
        narrow: impl FnOnce(ReplySchema) -> ReplySchema,
    ) -> Result<Said, RunError> {
        let mut req = request(step, prompt);
        req.params.schema = req.params.schema.map(narrow);
        // The run's limit on keywords is part of the shape: a list held to
        // it ends where the prompt says it does.
        if step == STEP_EXPERTISE {
            let max = self.limits().keywords;
            req.params.schema = req
                .params
                .schema
                .map(|s| s.with_max_items("expertise", max));
        }
        // So is the cap of a 1:1's question / answer pairs: a reflection
        // plans at most that many questions.
        if step == STEP_REFLECT {
            let max = self.limits().break_pairs.max(1);
            req.params.schema = req
                .params
                .schema
                .map(|s| s.with_max_items("questions", max));
        }
        let (call, response) = self.ctx.chat(agent, req).await?;
        Ok(Said {
            call,
            text: response.text,
        })
    }

    /// Like `ask`, and the reply is said in a meeting (to everyone, or to
    /// the listed agents).
    pub async fn say(
        &self,
        agent: &str,
        step: &str,
        prompt: Prompt,
        to: Audience,
    ) -> Result<Said, RunError> {
        let req = request(step, prompt);
        let (call, response) = self.ctx.chat(agent, req).await?;
        self.ctx.post(agent, to, &response.text, Some(call));
        Ok(Said {
            call,
            text: response.text,
        })
    }

    /// Records what the reply of `call` needed before it could be used
    /// (nothing when `repairs` is empty): one event per reply.
    pub fn repaired(&self, call: u32, repairs: &[Repair]) {
        self.ctx.repaired(call, repairs);
    }

    /// The lines of a meeting as prompts show them.
    pub fn transcript(&self, m: &Meeting) -> String {
        m.lines
            .iter()
            .map(|(who, text)| format!("{}: {}", self.name_of(who), text.trim()))
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// Records agent `i`'s task at `stage` (with what a repair did).
    pub fn note_task(&self, i: usize, stage: &str, flags: Vec<String>) {
        let a = self.member(i);
        self.ctx.note(
            &a.id,
            STORE_TASK,
            Some(stage),
            &TaskRecord {
                agent: a.id.clone(),
                stage: stage.into(),
                subject: a.current.subject.clone(),
                details: a.current.details.clone(),
                flags,
            },
        );
    }
}

/// A step's request: speech at temperature 0.7, replies read as JSON and
/// the judge at 0 (notes A17; the paper gives none).
pub fn request(step: &str, prompt: Prompt) -> ChatRequest {
    let mut req =
        ChatRequest::new(vec![Message::system(prompt.0), Message::user(prompt.1)]).with_step(step);
    let speech = [
        STEP_TEAM_OPINION,
        STEP_TEAM_ADVICE,
        STEP_ANSWER,
        STEP_PROD_OPINION,
        STEP_DRAFT,
        STEP_REASSERT,
        STEP_STANDARD,
        STEP_COT,
        STEP_SPP,
        STEP_SELF_FEEDBACK,
        STEP_SELF_REFINE,
    ];
    req.params.temperature = Some(if speech.contains(&step) { 0.7 } else { 0.0 });
    match reply_shape(step) {
        Some(shape) => req.with_schema(shape),
        None => req,
    }
}

/// A reply: its text and the call it answered (repairs are recorded
/// against that call).
#[derive(Clone, Debug, PartialEq)]
pub struct Said {
    pub call: u32,
    pub text: String,
}

/// Member ids and names: `a1` "Agent A", `a2` "Agent B", …
pub fn member_id(i: usize) -> (String, String) {
    let letter = (b'A' + (i % 26) as u8) as char;
    (format!("a{}", i + 1), format!("Agent {letter}"))
}
