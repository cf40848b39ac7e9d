//! The task-solving workflow (§2.1) and what the forward pass keeps for
//! the backward one: the task tree with every solution version, and every
//! decision step with its input and output.
//!
//! An agent handed a task judges it; if it can solve it alone (or must:
//! the depth limit, no free neighbour) it solves it; else it decomposes it
//! among its free neighbours (not on the current call path; round-robin
//! when there are more subtasks than neighbours), they handle their
//! subtasks recursively — modules: different agents concurrently, one
//! agent's subtasks one after another; a pipeline: one stage after
//! another, each seeing the results before it — it critiques what they return (sibling
//! critiques concurrently; inadequate solutions go back for refinement,
//! until all are adequate or the round limit), and aggregates them.

use super::contract::*;
use super::memory::Recall;
use super::software::Software;
use super::steps;
use super::topology::Team;
use crate::engine::prompts::Prompts;
use crate::engine::run::{RunCtx, RunError};
use futures::future::{join_all, LocalBoxFuture};
use std::cell::{Cell, RefCell};

/// A (sub)task in the tree.
#[derive(Clone, Debug)]
pub struct TaskNode {
    /// `t0`, `t0.1`, `t0.1.2`, …
    pub id: String,
    pub parent: Option<usize>,
    pub text: String,
    pub depth: u32,
    pub solver: usize,
    pub children: Vec<usize>,
    /// Every solution, in order; the last is what the assigner has.
    pub versions: Vec<String>,
    /// Solved by its solver alone (else aggregated from subtasks).
    pub alone: bool,
    /// How its subtasks relate, once it is decomposed.
    pub split: Split,
}

/// One decision step of the forward pass.
#[derive(Clone, Debug)]
pub struct Step {
    pub kind: StepKind,
    pub agent: usize,
    pub task: usize,
    /// The input as built from the task (without a retrieved example).
    pub input: String,
    pub output: String,
    /// Solve / aggregate: the version it wrote.
    pub wrote: Option<u32>,
    /// Critique: the version it checked, and the version the refinement
    /// it asked for wrote (none when it found the solution adequate).
    pub checked: Option<u32>,
    pub refined: Option<u32>,
    /// Set when the reply could not be read and the step took its stated
    /// default (a `Default` repair): what was recorded. `output` is then
    /// the unreadable reply, no example of the step, so the backward pass
    /// never stores it.
    pub defaulted: Option<String>,
    /// The model call that answered it.
    pub call: Option<u32>,
}

/// One run's workflow: its options, its memory, and its record.
pub struct Workflow<'a> {
    pub ctx: &'a RunCtx,
    pub options: &'a MaelOptions,
    pub team: &'a Team,
    pub recall: Recall,
    /// The run's prompt templates (the defaults with its edits).
    pub prompts: Prompts,
    pub tasks: RefCell<Vec<TaskNode>>,
    pub steps: RefCell<Vec<Step>>,
    /// The most critique rounds any agent ran.
    pub rounds: Cell<u32>,
    /// A software task's runner and measures (SRDD): the solution is the
    /// run's files.
    pub software: Option<Software>,
}

impl<'a> Workflow<'a> {
    pub fn new(
        ctx: &'a RunCtx,
        options: &'a MaelOptions,
        team: &'a Team,
        (recall, prompts): (Recall, Prompts),
    ) -> Self {
        Workflow {
            ctx,
            options,
            team,
            recall,
            prompts,
            tasks: RefCell::new(Vec::new()),
            steps: RefCell::new(Vec::new()),
            rounds: Cell::new(0),
            software: None,
        }
    }

    /// The solutions of the pipeline stages before `t`, (text, solution)
    /// each, when `t` is a stage of a pipeline (else none).
    pub fn earlier_stages(&self, t: usize) -> Vec<(String, String)> {
        let tasks = self.tasks.borrow();
        let Some(p) = tasks[t].parent else {
            return Vec::new();
        };
        if tasks[p].split != Split::Pipeline {
            return Vec::new();
        }
        tasks[p]
            .children
            .iter()
            .take_while(|&&c| c != t)
            .map(|&c| {
                (
                    tasks[c].text.clone(),
                    tasks[c].versions.last().cloned().unwrap_or_default(),
                )
            })
            .collect()
    }

    pub fn agent_id(&self, i: usize) -> &str {
        &self.team.agents[i].id
    }

    pub fn task(&self, t: usize) -> TaskNode {
        self.tasks.borrow()[t].clone()
    }

    /// The agent the task came from (the user for the root).
    /// The call whose reply is task `t`'s last solution version.
    pub fn final_call(&self, t: usize) -> Option<u32> {
        let last = self.tasks.borrow()[t].versions.len().checked_sub(1)? as u32;
        let steps = self.steps.borrow();
        steps
            .iter()
            .rev()
            .find(|s| s.task == t && s.wrote == Some(last))
            .and_then(|s| s.call)
    }

    pub fn assigner(&self, t: usize) -> String {
        let tasks = self.tasks.borrow();
        match tasks[t].parent {
            Some(p) => self.agent_id(tasks[p].solver).to_string(),
            None => USER.into(),
        }
    }

    /// The text of the task `t` is part of.
    pub fn parent_text(&self, t: usize) -> Option<String> {
        let tasks = self.tasks.borrow();
        tasks[t].parent.map(|p| tasks[p].text.clone())
    }

    /// Adds a task for `solver`, handed over by its parent's solver (or the user).
    pub fn add_task(&self, parent: Option<usize>, text: &str, solver: usize) -> usize {
        let (id, depth) = {
            let tasks = self.tasks.borrow();
            match parent {
                Some(p) => (
                    format!("{}.{}", tasks[p].id, tasks[p].children.len() + 1),
                    tasks[p].depth + 1,
                ),
                None => ("t0".to_string(), 0),
            }
        };
        let t = {
            let mut tasks = self.tasks.borrow_mut();
            tasks.push(TaskNode {
                id: id.clone(),
                parent,
                text: text.trim().to_string(),
                depth,
                solver,
                children: Vec::new(),
                versions: Vec::new(),
                alone: false,
                split: Split::Modules,
            });
            let t = tasks.len() - 1;
            if let Some(p) = parent {
                tasks[p].children.push(t);
            }
            t
        };
        let assigner = self.assigner(t);
        let solver_id = self.agent_id(solver).to_string();
        self.ctx.note(
            &assigner,
            STORE_TASK,
            Some(&id),
            &TaskRecord {
                id: id.clone(),
                parent: parent.map(|p| self.tasks.borrow()[p].id.clone()),
                assigner: assigner.clone(),
                solver: solver_id.clone(),
                text: text.trim().to_string(),
                depth,
            },
        );
        if parent.is_some() {
            self.ctx
                .handoff(&assigner, &solver_id, &format!("subtask {id}"));
        }
        t
    }

    /// Agent `agent`'s neighbours that are not on the call path.
    pub fn free_neighbours(&self, agent: usize, path: &[usize]) -> Vec<usize> {
        self.team
            .neighbours(agent)
            .into_iter()
            .filter(|n| !path.contains(n) && *n != agent)
            .collect()
    }

    /// `agent` handles task `t`, reached along `path` (the agents above it).
    /// Returns when the task's solution (its last version) is ready.
    pub fn handle(
        &self,
        t: usize,
        agent: usize,
        path: Vec<usize>,
    ) -> LocalBoxFuture<'_, Result<(), RunError>> {
        Box::pin(async move {
            let free = self.free_neighbours(agent, &path);
            let depth = self.tasks.borrow()[t].depth;
            let forced = if depth >= self.options.max_depth {
                Some("the decomposition depth limit is reached, so it solves the task itself")
            } else if free.is_empty() {
                Some("it has no free neighbour to hand parts to, so it solves the task itself")
            } else {
                None
            };
            let alone = match forced {
                Some(why) => {
                    steps::forced_judgement(self, t, agent, why);
                    true
                }
                None => steps::judge(self, t, agent).await?,
            };
            if alone {
                return steps::solve(self, t, agent, None).await.map(|_| ());
            }
            let subtasks = steps::decompose(self, t, agent, &free).await?;
            if subtasks.is_empty() {
                return steps::solve(self, t, agent, None).await.map(|_| ());
            }
            let mut below = path;
            below.push(agent);
            let split = self.tasks.borrow()[t].split;
            self.delegate(&subtasks, &below, split).await?;
            self.critique_rounds(agent, &subtasks).await?;
            steps::aggregate(self, t, agent).await.map(|_| ())
        })
    }

    /// Every subtask to its solver. Modules: agents work concurrently, each
    /// on its own subtasks one after another. A pipeline: one stage after
    /// another, in order, whoever solves it.
    async fn delegate(
        &self,
        subtasks: &[usize],
        path: &[usize],
        split: Split,
    ) -> Result<(), RunError> {
        if split == Split::Pipeline {
            for &t in subtasks {
                let solver = self.tasks.borrow()[t].solver;
                self.handle(t, solver, path.to_vec()).await?;
            }
            return Ok(());
        }
        let by_solver = group_by_solver(&self.tasks.borrow(), subtasks);
        let work = by_solver.into_iter().map(|(solver, mine)| {
            let path = path.to_vec();
            async move {
                for t in mine {
                    self.handle(t, solver, path.clone()).await?;
                }
                Ok::<(), RunError>(())
            }
        });
        join_all(work).await.into_iter().collect()
    }

    /// `critic` checks every returned sub-solution (concurrently); the
    /// inadequate go back to their solvers with the feedback, until all
    /// are adequate or `max_rounds` rounds have run.
    async fn critique_rounds(&self, critic: usize, subtasks: &[usize]) -> Result<(), RunError> {
        let mut pending: Vec<usize> = subtasks.to_vec();
        for round in 1..=self.options.max_rounds {
            if pending.is_empty() {
                break;
            }
            self.rounds.set(self.rounds.get().max(round));
            let verdicts = join_all(
                pending
                    .iter()
                    .map(|&t| steps::critique(self, t, critic, round)),
            )
            .await;
            let mut inadequate: Vec<(usize, usize, String)> = Vec::new();
            for (&t, verdict) in pending.iter().zip(verdicts) {
                let (step, review) = verdict?;
                if !review.adequate {
                    inadequate.push((t, step, review.feedback));
                }
            }
            if inadequate.is_empty() {
                break;
            }
            let by_solver = group_by_solver(
                &self.tasks.borrow(),
                &inadequate.iter().map(|x| x.0).collect::<Vec<_>>(),
            );
            let refine = by_solver.into_iter().map(|(solver, mine)| {
                let inadequate = &inadequate;
                async move {
                    for t in mine {
                        let Some((_, step, feedback)) = inadequate.iter().find(|x| x.0 == t) else {
                            continue;
                        };
                        let version = steps::solve(self, t, solver, Some(feedback)).await?;
                        self.steps.borrow_mut()[*step].refined = Some(version);
                    }
                    Ok::<(), RunError>(())
                }
            });
            join_all(refine)
                .await
                .into_iter()
                .collect::<Result<(), RunError>>()?;
            pending = inadequate.into_iter().map(|x| x.0).collect();
        }
        Ok(())
    }
}

/// Tasks grouped by their solver, solvers in order of first appearance.
fn group_by_solver(tasks: &[TaskNode], subtasks: &[usize]) -> Vec<(usize, Vec<usize>)> {
    let mut out: Vec<(usize, Vec<usize>)> = Vec::new();
    for &t in subtasks {
        let s = tasks[t].solver;
        match out.iter_mut().find(|(x, _)| *x == s) {
            Some((_, v)) => v.push(t),
            None => out.push((s, vec![t])),
        }
    }
    out
}
