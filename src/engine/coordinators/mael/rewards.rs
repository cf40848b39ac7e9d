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
//! refinement brought, Δ ∈ [−1, 1] mapped to (Δ + 1) / 2 (0.5 when it
//! found the solution adequate).

use super::contract::*;
use super::experience::Experience;
use super::prompts;
use super::workflow::{Step, TaskNode, Workflow};
use crate::engine::model::reply::json_object;
use crate::engine::model::{ChatRequest, Message};
use crate::engine::run::{RunError, RunEvent};
use futures::future::join_all;
use std::collections::HashMap;

/// R of every solution version: (task, version) → reward.
pub type Ratings = HashMap<(usize, u32), f64>;

/// A rating reply's score in [0, 1]; None when it holds none.
pub fn read_rating(reply: &str) -> Option<f64> {
    let raw = json_object::<Rating>(reply).map(|r| r.score).or_else(|| {
        reply
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .find_map(|w| w.trim_end_matches('.').parse::<f64>().ok())
    })?;
    raw.is_finite().then(|| (raw / 10.0).clamp(0.0, 1.0))
}

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
                        final_score,
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
    let replies = join_all(asks.iter().map(|(t, _, text)| async move {
        let node = &tasks_ref[*t];
        let parent = node.parent.map(|p| tasks_ref[p].text.as_str());
        let req = ChatRequest::new(vec![
            Message::system(prompts::EVALUATOR_SYSTEM),
            Message::user(prompts::evaluate(&node.text, parent, text)),
        ])
        .with_step(STEP_EVALUATE);
        wf.ctx.chat(EVALUATOR, req).await.map(|(_, r)| r.text)
    }))
    .await;
    for ((t, v, _), reply) in asks.into_iter().zip(replies) {
        let reply = reply?;
        let (score, reason) = match read_rating(&reply) {
            Some(s) => (
                s,
                json_object::<Rating>(&reply)
                    .map(|r| r.reason)
                    .unwrap_or_default(),
            ),
            None => (0.5, "the rating could not be read; 0.5 used".to_string()),
        };
        ratings.insert((t, v), score);
        record(wf, &tasks[t], v, score, "evaluator", &reason);
    }
    Ok(ratings)
}

fn record(wf: &Workflow<'_>, node: &TaskNode, version: u32, score: f64, by: &str, reason: &str) {
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

/// A step's reward, by the paper's formula for its kind.
pub fn step_reward(step: &Step, tasks: &[TaskNode], ratings: &Ratings) -> f64 {
    let r = |t: usize, v: u32| ratings.get(&(t, v)).copied().unwrap_or(0.0);
    let last = |t: usize| tasks[t].versions.len().saturating_sub(1) as u32;
    let mean_of_children = |t: usize| {
        let c = &tasks[t].children;
        if c.is_empty() {
            r(t, last(t))
        } else {
            c.iter().map(|&c| r(c, last(c))).sum::<f64>() / c.len() as f64
        }
    };
    match step.kind {
        StepKind::Solve | StepKind::Aggregate => step.wrote.map_or(0.0, |v| r(step.task, v)),
        StepKind::Judge if tasks[step.task].alone => r(step.task, last(step.task)),
        StepKind::Judge | StepKind::Decompose => mean_of_children(step.task),
        StepKind::Critique => match (step.checked, step.refined) {
            (Some(before), Some(after)) => {
                let delta = r(step.task, after) - r(step.task, before);
                (delta.clamp(-1.0, 1.0) + 1.0) / 2.0
            }
            _ => 0.5,
        },
    }
}

/// The experiences of the run's steps with their rewards, recorded as
/// events and added to the pool. Returns how many were added.
pub async fn learn(wf: &Workflow<'_>, ratings: &Ratings) -> Result<usize, RunError> {
    let steps: Vec<Step> = wf.steps.borrow().clone();
    let tasks: Vec<TaskNode> = wf.tasks.borrow().clone();
    let inputs: Vec<String> = steps.iter().map(|s| s.input.clone()).collect();
    let vectors = wf.recall.vectors(wf.ctx, &inputs).await?;
    let run = &wf.ctx.config().run_id;
    let task_id = format!("{}@{}", wf.options.task.id, run);
    let mut added = 0;
    for (n, (step, vector)) in steps.iter().zip(vectors).enumerate() {
        let reward = step_reward(step, &tasks, ratings);
        let exp = Experience {
            id: format!("{run}/{n}"),
            agent: wf.agent_id(step.agent).to_string(),
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
        let reward = |s: Step| step_reward(&s, &tasks, &ratings);
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
        // critique: (Δ + 1) / 2 for the refinement it asked for, 0.5 when adequate.
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
            0.5
        );
        let worse: Ratings = [((1, 0), 0.9), ((1, 1), 0.3)].into();
        let s = Step {
            checked: Some(0),
            refined: Some(1),
            ..step(StepKind::Critique, 1)
        };
        assert!((step_reward(&s, &tasks, &worse) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn ratings_are_read_from_json_or_the_first_number() {
        assert_eq!(read_rating("{\"score\": 7, \"reason\": \"ok\"}"), Some(0.7));
        assert_eq!(read_rating("Score: 9/10."), Some(0.9));
        assert_eq!(read_rating("I'd say 12"), Some(1.0));
        assert_eq!(read_rating("great"), None);
    }
}
