//! The backward pass (§2.2): every decision step of the forward pass gets
//! a reward, and goes as an experience (its input, its output, its reward)
//! into its agent's pool.
//!
//! R(solution) is the task's metric for the final answer (against the
//! gold answer) and the evaluator's rating (0–10 → [0, 1]) for a
//! sub-solution, or the final answer's metric for every step when the run
//! says so. Then: solve and aggregate get R of what they wrote; judge gets
//! R of its task's solution when it solved alone, else the mean R of its
//! subtasks, as decompose does; critique gets the change of quality its
//! refinement brought, Δ ∈ [−1, 1] mapped to (Δ + 1) / 2, and when it
//! found the solution adequate (no refinement), R of the solution it
//! approved: approving a good solution earns as much as it is good,
//! approving a bad one costs (the paper names only the refinement case; a
//! flat 0.5 would rank a wrong approval above a harmful refinement).
//!
//! A rating is read by `read::rating` (JSON, else the last explicit score
//! in the text; out of 0–10 clamped). A reply that holds none is asked
//! again once (`AskedAgain` on the first call); if the second cannot be
//! read either, the solution is **not rated** (`Default` on the second
//! call, the rating recorded with no score). A reward that needs a rating
//! that was not read is not measured, and an unmeasured reward never
//! enters the pool: that step's experience is not stored (an `unlearned`
//! note says which and why). So every reward in a pool is a measurement,
//! and retrieval's `α·similarity + (1−α)·reward` compares like with like
//! (an invented 0.5 would pull an unrated step up or down the ranking).
//! A solve or aggregate that wrote no version has no reward either (never
//! an invented 0).
//!
//! A step whose reply could not be read and that took its stated default
//! (`Step::defaulted`) is not stored either, whatever its reward: its
//! output is the unreadable reply, and retrieval would serve it as a
//! worked example. It gets an `unlearned` note too.

use super::contract::*;
use super::experience::Experience;
use super::prompts;
use super::read;
use super::steps::ask_again;
use super::workflow::{Step, TaskNode, Workflow};
use crate::engine::model::reply::{Repair, RepairKind};
use crate::engine::model::{ChatRequest, Message};
use crate::engine::run::{RunError, RunEvent};
use futures::future::join_all;
use std::collections::HashMap;

/// R of every solution version that was rated: (task, version) → reward.
/// A version the evaluator's reply gave no score for is absent.
pub type Ratings = HashMap<(usize, u32), f64>;

/// The JSON a rating reply must be, for the reminder of a second ask.
const RATING_JSON: &str = "{\"score\": <0-10>, \"reason\": \"one sentence\"}";

/// Rates every solution version the rewards need. The root's final
/// answer is scored by the metric (`final_score`).
pub async fn rate(wf: &Workflow<'_>, final_score: f64) -> Result<Ratings, RunError> {
    let tasks: Vec<TaskNode> = wf.tasks.borrow().clone();
    let mut ratings = Ratings::new();
    let mut asks = Vec::new();
    for (t, node) in tasks.iter().enumerate() {
        for (v, text) in node.versions.iter().enumerate() {
            let v = v as u32;
            let is_final_root = node.parent.is_none() && v as usize + 1 == node.versions.len();
            if is_final_root || wf.options.reward_source == RewardSource::Final {
                ratings.insert((t, v), final_score);
                if is_final_root {
                    record(
                        wf,
                        node,
                        v,
                        Some(final_score),
                        "metric",
                        "the task's metric against the gold answer",
                    );
                }
                continue;
            }
            asks.push((t, v, text.clone()));
        }
    }
    let tasks_ref = &tasks;
    let rated = join_all(asks.iter().map(|(t, _, text)| async move {
        let node = &tasks_ref[*t];
        let parent = node.parent.map(|p| tasks_ref[p].text.as_str());
        let req = ChatRequest::new(vec![
            Message::system(prompts::evaluator_system(&wf.prompts)?),
            Message::user(prompts::evaluate(&node.text, parent, text)),
        ])
        .with_step(STEP_EVALUATE)
        .with_schema(super::read::rating_schema(STEP_EVALUATE));
        evaluate(wf, req).await
    }))
    .await;
    for ((t, v, _), rating) in asks.into_iter().zip(rated) {
        match rating? {
            Ok((score, reason)) => {
                ratings.insert((t, v), score);
                record(wf, &tasks[t], v, Some(score), "evaluator", &reason);
            }
            Err(why) => record(wf, &tasks[t], v, None, "evaluator", &why),
        }
    }
    Ok(ratings)
}

/// One rating by the evaluator: its score and reason, or (when neither
/// its reply nor the one to a second ask could be read) why not.
async fn evaluate(
    wf: &Workflow<'_>,
    req: ChatRequest,
) -> Result<Result<(f64, String), String>, RunError> {
    let (call, response) = wf.ctx.chat(EVALUATOR, req.clone()).await?;
    let why = match read::rating(&response.text) {
        Ok(r) => {
            wf.ctx.repaired(call, &r.repairs);
            return Ok(Ok(r.value));
        }
        Err(why) => why,
    };
    let (call, reply) = ask_again(
        (wf.ctx, &wf.prompts),
        EVALUATOR,
        &req,
        call,
        &why,
        RATING_JSON,
    )
    .await?;
    match read::rating(&reply) {
        Ok(r) => {
            wf.ctx.repaired(call, &r.repairs);
            Ok(Ok(r.value))
        }
        Err(again) => {
            let why = format!("the rating could not be read, even when asked again ({again}): not rated, so the steps whose reward needs it are not stored");
            wf.ctx
                .repaired(call, &[Repair::new(RepairKind::Default, why.clone())]);
            Ok(Err(why))
        }
    }
}

fn record(
    wf: &Workflow<'_>,
    node: &TaskNode,
    version: u32,
    score: Option<f64>,
    by: &str,
    reason: &str,
) {
    let agent = if by == "metric" { USER } else { EVALUATOR };
    wf.ctx.note(
        agent,
        STORE_RATING,
        Some(&format!("{} v{version}", node.id)),
        &RatingRecord {
            task: node.id.clone(),
            version,
            score,
            by: by.into(),
            reason: reason.into(),
        },
    );
}

/// Why a step's reward was not measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unmeasured {
    /// It needs the rating of solution (task, version), which was not read.
    Unrated(usize, u32),
    /// A solve or aggregate that wrote no version: nothing to reward.
    NothingWritten,
}

/// A step's reward, by the paper's formula for its kind; or why it is not
/// measured (a rating it needs was not read, or it wrote nothing).
pub fn step_reward(step: &Step, tasks: &[TaskNode], ratings: &Ratings) -> Result<f64, Unmeasured> {
    let r = |t: usize, v: u32| {
        ratings
            .get(&(t, v))
            .copied()
            .ok_or(Unmeasured::Unrated(t, v))
    };
    let last = |t: usize| tasks[t].versions.len().saturating_sub(1) as u32;
    let mean_of_children = |t: usize| {
        let c = &tasks[t].children;
        if c.is_empty() {
            r(t, last(t))
        } else {
            let mut sum = 0.0;
            for &c in c {
                sum += r(c, last(c))?;
            }
            Ok(sum / c.len() as f64)
        }
    };
    match step.kind {
        StepKind::Solve | StepKind::Aggregate => match step.wrote {
            Some(v) => r(step.task, v),
            None => Err(Unmeasured::NothingWritten),
        },
        StepKind::Judge if tasks[step.task].alone => r(step.task, last(step.task)),
        StepKind::Judge | StepKind::Decompose => mean_of_children(step.task),
        StepKind::Critique => match (step.checked, step.refined) {
            (Some(before), Some(after)) => {
                let delta = r(step.task, after)? - r(step.task, before)?;
                Ok((delta.clamp(-1.0, 1.0) + 1.0) / 2.0)
            }
            // Adequate: the approved solution's own R.
            (Some(approved), None) => r(step.task, approved),
            (None, _) => Err(Unmeasured::NothingWritten),
        },
    }
}

/// Why step `step` is not stored, if it is not: it took its stated
/// default, or its reward was not measured. Else its reward.
fn storable(step: &Step, tasks: &[TaskNode], ratings: &Ratings) -> Result<f64, String> {
    if let Some(why) = &step.defaulted {
        return Err(format!(
            "its reply could not be read and the step took its stated default ({why}): the reply is no example of the step, so it is not stored"
        ));
    }
    step_reward(step, tasks, ratings).map_err(|e| match e {
        Unmeasured::Unrated(t, v) => format!(
            "its reward needs the rating of {} v{v}, which could not be read: it was not measured, so the step is not stored",
            tasks[t].id
        ),
        Unmeasured::NothingWritten => {
            "it wrote no solution, so it has no reward: it was not measured, so the step is not stored".into()
        }
    })
}

/// The experiences of the run's steps with their rewards, recorded as
/// events and added to the pool; a step that took its stated default, or
/// whose reward is not measured, is not stored (an `unlearned` note says
/// why). Returns how many were added.
pub async fn learn(wf: &Workflow<'_>, ratings: &Ratings) -> Result<usize, RunError> {
    let steps: Vec<Step> = wf.steps.borrow().clone();
    let tasks: Vec<TaskNode> = wf.tasks.borrow().clone();
    let run = &wf.ctx.config().run_id;
    let task_id = format!("{}@{}", wf.options.task.id, run);
    let mut measured = Vec::new();
    for (n, step) in steps.iter().enumerate() {
        let id = format!("{run}/{n}");
        let agent = wf.agent_id(step.agent).to_string();
        match storable(step, &tasks, ratings) {
            Ok(reward) => measured.push((id, agent, step, reward)),
            Err(reason) => {
                let task = tasks[step.task].id.clone();
                wf.ctx.note(
                    &agent,
                    STORE_UNLEARNED,
                    Some(&id),
                    &UnlearnedRecord {
                        id: id.clone(),
                        step: step.kind,
                        task,
                        reason,
                    },
                );
            }
        }
    }
    let inputs: Vec<String> = measured.iter().map(|m| m.2.input.clone()).collect();
    let vectors = wf.recall.vectors(wf.ctx, &inputs).await?;
    let mut added = 0;
    for ((id, agent, step, reward), vector) in measured.into_iter().zip(vectors) {
        let exp = Experience {
            id,
            agent,
            step: step.kind,
            task_id: task_id.clone(),
            input: step.input.clone(),
            output: step.output.clone(),
            reward,
            dataset: wf.options.task.dataset.id().into(),
            depth: tasks[step.task].depth,
        };
        wf.ctx
            .note(&exp.agent, STORE_EXPERIENCE, Some(&exp.id), &exp);
        wf.ctx.emit(RunEvent::ScoreComputed {
            name: "reward".into(),
            value: reward,
            agent: Some(exp.agent.clone()),
            detail: serde_json::json!({"id": exp.id, "step": step.kind.id(), "task": tasks[step.task].id}),
        });
        let pushed = wf.recall.memory.pool.borrow_mut().push(exp, vector);
        if pushed.is_ok() {
            added += 1;
        }
    }
    // The task is a training task now, whatever was stored of it.
    (wf.recall.memory.pool.borrow_mut()).note_learned(&wf.options.task);
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(parent: Option<usize>, children: Vec<usize>, versions: usize, alone: bool) -> TaskNode {
        TaskNode {
            id: "t".into(),
            parent,
            text: "x".into(),
            depth: parent.map_or(0, |_| 1),
            solver: 0,
            children,
            versions: vec!["s".into(); versions],
            alone,
            split: Split::Modules,
        }
    }

    fn step(kind: StepKind, task: usize) -> Step {
        Step {
            kind,
            agent: 0,
            task,
            input: String::new(),
            output: String::new(),
            wrote: None,
            checked: None,
            refined: None,
            defaulted: None,
            call: None,
        }
    }

    /// A root split in two subtasks: t1 refined once (0.3 → 0.9), t2 right
    /// at once (0.8); the aggregate scored 1 by the metric.
    fn trace() -> (Vec<TaskNode>, Ratings) {
        let tasks = vec![
            node(None, vec![1, 2], 1, false),
            node(Some(0), vec![], 2, true),
            node(Some(0), vec![], 1, true),
        ];
        let ratings: Ratings = [((0, 0), 1.0), ((1, 0), 0.3), ((1, 1), 0.9), ((2, 0), 0.8)].into();
        (tasks, ratings)
    }

    #[test]
    fn each_step_kind_gets_the_papers_reward() {
        let (tasks, ratings) = trace();
        let reward = |s: Step| step_reward(&s, &tasks, &ratings).expect("measured");
        // solve: R of the solution it wrote.
        assert_eq!(
            reward(Step {
                wrote: Some(0),
                ..step(StepKind::Solve, 1)
            }),
            0.3
        );
        assert_eq!(
            reward(Step {
                wrote: Some(1),
                ..step(StepKind::Solve, 1)
            }),
            0.9
        );
        // aggregate: R of the merged solution.
        assert_eq!(
            reward(Step {
                wrote: Some(0),
                ..step(StepKind::Aggregate, 0)
            }),
            1.0
        );
        // decompose and judge (split): the mean of the subtasks' final R.
        assert!((reward(step(StepKind::Decompose, 0)) - (0.9 + 0.8) / 2.0).abs() < 1e-12);
        assert!((reward(step(StepKind::Judge, 0)) - 0.85).abs() < 1e-12);
        // judge (alone): R of its own final solution.
        assert_eq!(reward(step(StepKind::Judge, 1)), 0.9);
        // critique: (Δ + 1) / 2 for the refinement it asked for; when it
        // approved, the approved solution's R (a wrong approval costs).
        let refined = Step {
            checked: Some(0),
            refined: Some(1),
            ..step(StepKind::Critique, 1)
        };
        assert!((reward(refined) - (0.6 + 1.0) / 2.0).abs() < 1e-12);
        assert_eq!(
            reward(Step {
                checked: Some(0),
                ..step(StepKind::Critique, 2)
            }),
            0.8
        );
        let approved_bad = Step {
            checked: Some(0),
            ..step(StepKind::Critique, 1)
        };
        assert_eq!(reward(approved_bad.clone()), 0.3, "approving 0.3 earns 0.3");
        let harmful = Step {
            checked: Some(0),
            refined: Some(1),
            ..step(StepKind::Critique, 1)
        };
        let worse_after: Ratings = [((1, 0), 0.5), ((1, 1), 0.2)].into();
        assert!(
            step_reward(&approved_bad, &tasks, &ratings).expect("measured")
                < step_reward(&harmful, &tasks, &worse_after).expect("measured"),
            "a wrong approval ranks below a refinement that lost a little"
        );
        let worse: Ratings = [((1, 0), 0.9), ((1, 1), 0.3)].into();
        let s = Step {
            checked: Some(0),
            refined: Some(1),
            ..step(StepKind::Critique, 1)
        };
        assert!((step_reward(&s, &tasks, &worse).expect("measured") - 0.2).abs() < 1e-12);
    }

    #[test]
    fn a_reward_that_needs_an_unread_rating_is_not_measured() {
        // t1 v1 (the refinement) was not rated: everything that needs it
        // says so; what does not need it is still measured.
        let (tasks, mut ratings) = trace();
        ratings.remove(&(1, 1));
        let reward = |s: Step| step_reward(&s, &tasks, &ratings);
        let unrated = Unmeasured::Unrated(1, 1);
        assert_eq!(
            reward(Step {
                wrote: Some(1),
                ..step(StepKind::Solve, 1)
            }),
            Err(unrated)
        );
        assert_eq!(reward(step(StepKind::Decompose, 0)), Err(unrated));
        assert_eq!(reward(step(StepKind::Judge, 0)), Err(unrated));
        assert_eq!(reward(step(StepKind::Judge, 1)), Err(unrated));
        let refined = Step {
            checked: Some(0),
            refined: Some(1),
            ..step(StepKind::Critique, 1)
        };
        assert_eq!(reward(refined), Err(unrated));
        assert_eq!(
            reward(Step {
                wrote: Some(0),
                ..step(StepKind::Solve, 1)
            }),
            Ok(0.3)
        );
        assert_eq!(
            reward(Step {
                wrote: Some(0),
                ..step(StepKind::Aggregate, 0)
            }),
            Ok(1.0)
        );
    }

    #[test]
    fn a_solve_or_aggregate_that_wrote_nothing_is_not_measured() {
        // The old formula invented a reward of 0 for it.
        let (tasks, ratings) = trace();
        for kind in [StepKind::Solve, StepKind::Aggregate] {
            assert_eq!(
                step_reward(&step(kind, 1), &tasks, &ratings),
                Err(Unmeasured::NothingWritten),
                "{kind:?}"
            );
            let why = storable(&step(kind, 1), &tasks, &ratings).expect_err("not stored");
            assert!(why.contains("wrote no solution"), "{why}");
        }
    }

    #[test]
    fn a_step_that_took_its_default_is_not_stored_whatever_its_reward() {
        let (tasks, ratings) = trace();
        let judged = step(StepKind::Judge, 1);
        assert_eq!(storable(&judged, &tasks, &ratings), Ok(0.9));
        let defaulted = Step {
            defaulted: Some("the judgement could not be read".into()),
            ..judged
        };
        // Its reward is measured, but the step is not stored.
        assert_eq!(step_reward(&defaulted, &tasks, &ratings), Ok(0.9));
        let why = storable(&defaulted, &tasks, &ratings).expect_err("not stored");
        assert!(
            why.contains("could not be read") && why.contains("default"),
            "{why}"
        );
    }
}
