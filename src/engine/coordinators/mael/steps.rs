//! The decision steps, one function each, as the paper names them:
//! judge, decompose, solve (and refine), critique, aggregate. Each builds
//! its input from the task tree, appends the retrieved experience (when
//! the mode retrieves), asks the agent's model, reads the reply
//! defensively (a reply that cannot be read is recorded with what was
//! done instead, never a crash) and records the step.

use super::contract::*;
use super::prompts;
use super::workflow::{Step, Workflow};
use crate::engine::model::reply::json_object;
use crate::engine::model::{ChatRequest, Message};
use crate::engine::run::{Audience, RunError};

/// The most subtasks one decomposition may hand out, per free neighbour.
const SUBTASKS_PER_NEIGHBOUR: usize = 2;

/// Asks agent `agent` for step `kind` on task `t` with `input` (plus a
/// retrieved example), records the step; returns its index and the reply.
async fn ask(
    wf: &Workflow<'_>,
    kind: StepKind,
    agent: usize,
    t: usize,
    input: String,
) -> Result<(usize, String), RunError> {
    let agent_id = wf.agent_id(agent).to_string();
    let task_id = wf.tasks.borrow()[t].id.clone();
    let example = wf
        .recall
        .for_step(wf.ctx, &agent_id, kind, &task_id, &input)
        .await?;
    let content = match &example {
        Some(e) => format!("{input}{e}"),
        None => input.clone(),
    };
    let req = ChatRequest::new(vec![
        Message::system(prompts::system(kind)),
        Message::user(content),
    ])
    .with_step(kind.tag());
    let (_, response) = wf.ctx.chat(&agent_id, req).await?;
    let mut steps = wf.steps.borrow_mut();
    steps.push(Step {
        kind,
        agent,
        task: t,
        input,
        output: response.text.clone(),
        wrote: None,
        checked: None,
        refined: None,
    });
    Ok((steps.len() - 1, response.text))
}

/// The judgement when the agent is not asked.
pub fn forced_judgement(wf: &Workflow<'_>, t: usize, agent: usize, why: &str) {
    let task = wf.tasks.borrow()[t].id.clone();
    wf.ctx.note(
        wf.agent_id(agent),
        STORE_JUDGEMENT,
        Some(&task),
        &JudgementRecord {
            task: task.clone(),
            solvable: true,
            reason: String::new(),
            note: Some(why.into()),
        },
    );
}

/// judge: can the agent solve the task alone?
pub async fn judge(wf: &Workflow<'_>, t: usize, agent: usize) -> Result<bool, RunError> {
    let node = wf.task(t);
    let input = prompts::judge(&node.text);
    let (_, reply) = ask(wf, StepKind::Judge, agent, t, input).await?;
    let (judgement, note) = match json_object::<Judgement>(&reply) {
        Some(j) => (j, None),
        None => {
            let lower = reply.to_lowercase();
            let solvable = !(lower.contains("false")
                || lower.contains("split")
                || lower.contains("decompose"));
            (
                Judgement {
                    solvable,
                    reason: reply.trim().chars().take(200).collect(),
                },
                Some(format!(
                    "the reply was not a JSON judgement; read it as {}",
                    if solvable {
                        "solvable alone"
                    } else {
                        "to be split"
                    }
                )),
            )
        }
    };
    wf.ctx.note(
        wf.agent_id(agent),
        STORE_JUDGEMENT,
        Some(&node.id),
        &JudgementRecord {
            task: node.id.clone(),
            solvable: judgement.solvable,
            reason: judgement.reason.clone(),
            note,
        },
    );
    Ok(judgement.solvable)
}

/// The subtasks in a decomposition reply: its JSON list, else its list lines.
fn subtasks_in(reply: &str) -> (Vec<String>, Option<String>) {
    if let Some(d) = json_object::<Decomposition>(reply) {
        return (d.subtasks, None);
    }
    let lines: Vec<String> = reply
        .lines()
        .map(str::trim)
        .filter_map(|l| {
            let l = l
                .strip_prefix("- ")
                .or_else(|| l.strip_prefix("* "))
                .or_else(|| {
                    let digits = l.chars().take_while(char::is_ascii_digit).count();
                    (digits > 0).then(|| l[digits..].trim_start_matches(['.', ')']).trim())
                })?;
            (!l.is_empty()).then(|| l.to_string())
        })
        .collect();
    let note = if lines.is_empty() {
        "the reply held no subtasks; the agent solves the task itself".to_string()
    } else {
        "the reply was not JSON; its list lines were taken as the subtasks".to_string()
    };
    (lines, Some(note))
}

/// decompose: split the task and hand the parts to the free neighbours
/// (round-robin). Returns the subtasks (none: the agent solves alone).
pub async fn decompose(
    wf: &Workflow<'_>,
    t: usize,
    agent: usize,
    free: &[usize],
) -> Result<Vec<usize>, RunError> {
    let node = wf.task(t);
    let neighbours: Vec<(String, String)> = free
        .iter()
        .map(|&n| (wf.agent_id(n).to_string(), wf.team.agents[n].name.clone()))
        .collect();
    let input = prompts::decompose(&node.text, &neighbours);
    let (_, reply) = ask(wf, StepKind::Decompose, agent, t, input).await?;
    let (mut texts, mut note) = subtasks_in(&reply);
    texts.retain(|s| !s.trim().is_empty());
    let cap = free.len() * SUBTASKS_PER_NEIGHBOUR;
    if texts.len() > cap {
        texts.truncate(cap);
        note = Some(format!(
            "only the first {cap} subtasks were kept (two per free neighbour)"
        ));
    }
    let subtasks: Vec<usize> = texts
        .iter()
        .enumerate()
        .map(|(i, text)| wf.add_task(Some(t), text, free[i % free.len()]))
        .collect();
    let ids: Vec<String> = subtasks
        .iter()
        .map(|&s| wf.tasks.borrow()[s].id.clone())
        .collect();
    wf.ctx.note(
        wf.agent_id(agent),
        STORE_DECOMPOSITION,
        Some(&node.id),
        &DecompositionRecord {
            task: node.id.clone(),
            subtasks: ids.clone(),
            note,
        },
    );
    if !subtasks.is_empty() {
        let to: Vec<String> = subtasks
            .iter()
            .map(|&s| wf.agent_id(wf.tasks.borrow()[s].solver).to_string())
            .collect();
        let listing: String = ids
            .iter()
            .zip(&texts)
            .map(|(id, text)| format!("- **{id}**: {text}\n"))
            .collect();
        wf.ctx.post(
            wf.agent_id(agent),
            Audience::To(to),
            &format!("I split {} into:\n{listing}", node.id),
            None,
        );
    }
    Ok(subtasks)
}

/// Records a new solution version of task `t` and returns it to its assigner.
fn deliver(
    wf: &Workflow<'_>,
    t: usize,
    agent: usize,
    step: usize,
    kind: SolutionKind,
    text: &str,
) -> u32 {
    let version = {
        let mut tasks = wf.tasks.borrow_mut();
        tasks[t].versions.push(text.trim().to_string());
        if kind == SolutionKind::Solve {
            tasks[t].alone = tasks[t].children.is_empty();
        }
        (tasks[t].versions.len() - 1) as u32
    };
    wf.steps.borrow_mut()[step].wrote = Some(version);
    let id = wf.tasks.borrow()[t].id.clone();
    let me = wf.agent_id(agent).to_string();
    let assigner = wf.assigner(t);
    wf.ctx.note(
        &me,
        STORE_SOLUTION,
        Some(&format!("{id} v{version}")),
        &SolutionRecord {
            task: id.clone(),
            version,
            kind,
            text: text.trim().to_string(),
        },
    );
    wf.ctx
        .post(&me, Audience::To(vec![assigner.clone()]), text.trim(), None);
    if assigner != USER {
        wf.ctx.handoff(&me, &assigner, &format!("solution of {id}"));
    }
    version
}

/// solve: the agent answers the task itself; with `feedback`, it refines
/// its last solution. Returns the version written.
pub async fn solve(
    wf: &Workflow<'_>,
    t: usize,
    agent: usize,
    feedback: Option<&str>,
) -> Result<u32, RunError> {
    let node = wf.task(t);
    let previous = feedback.and_then(|f| node.versions.last().map(|v| (v.as_str(), f)));
    let input = prompts::solve(&node.text, previous);
    let (step, reply) = ask(wf, StepKind::Solve, agent, t, input).await?;
    Ok(deliver(wf, t, agent, step, SolutionKind::Solve, &reply))
}

/// critique: the critic checks the last solution of subtask `t`. Returns
/// the step and its verdict.
pub async fn critique(
    wf: &Workflow<'_>,
    t: usize,
    critic: usize,
    round: u32,
) -> Result<(usize, Critique), RunError> {
    let node = wf.task(t);
    let version = node.versions.len().saturating_sub(1) as u32;
    let solution = node.versions.last().cloned().unwrap_or_default();
    let input = prompts::critique(&node.text, &solution);
    let (step, reply) = ask(wf, StepKind::Critique, critic, t, input).await?;
    let (review, note) = match json_object::<Critique>(&reply) {
        Some(c) => (c, None),
        None => {
            let lower = reply.to_lowercase();
            let adequate = lower.contains("adequate")
                && !lower.contains("inadequate")
                && !lower.contains("not adequate");
            (
                Critique {
                    adequate,
                    feedback: if adequate {
                        String::new()
                    } else {
                        reply.trim().to_string()
                    },
                },
                Some("the reply was not a JSON critique; read from its words".to_string()),
            )
        }
    };
    wf.steps.borrow_mut()[step].checked = Some(version);
    let me = wf.agent_id(critic).to_string();
    let solver = wf.agent_id(node.solver).to_string();
    wf.ctx.note(
        &me,
        STORE_CRITIQUE,
        Some(&format!("{} r{round}", node.id)),
        &CritiqueRecord {
            task: node.id.clone(),
            round,
            version,
            adequate: review.adequate,
            feedback: review.feedback.clone(),
            note,
        },
    );
    if !review.adequate {
        let text = format!("{} needs another look: {}", node.id, review.feedback.trim());
        wf.ctx
            .post(&me, Audience::To(vec![solver.clone()]), &text, None);
        wf.ctx.handoff(&me, &solver, &format!("refine {}", node.id));
    }
    Ok((step, review))
}

/// aggregate: the agent merges its subtasks' last solutions into the
/// solution of task `t`. Returns the version written.
pub async fn aggregate(wf: &Workflow<'_>, t: usize, agent: usize) -> Result<u32, RunError> {
    let node = wf.task(t);
    let parts: Vec<(String, String)> = {
        let tasks = wf.tasks.borrow();
        node.children
            .iter()
            .map(|&c| {
                (
                    tasks[c].text.clone(),
                    tasks[c].versions.last().cloned().unwrap_or_default(),
                )
            })
            .collect()
    };
    let input = prompts::aggregate(&node.text, &parts);
    let (step, reply) = ask(wf, StepKind::Aggregate, agent, t, input).await?;
    Ok(deliver(wf, t, agent, step, SolutionKind::Aggregate, &reply))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtasks_are_read_from_json_or_list_lines() {
        assert_eq!(
            subtasks_in("```json\n{\"subtasks\": [\"a\", \"b\"]}\n```"),
            (vec!["a".to_string(), "b".to_string()], None)
        );
        let (l, note) = subtasks_in("Plan:\n1. cost of pens\n2) cost of mugs\n- tax\nthanks");
        assert_eq!(l, vec!["cost of pens", "cost of mugs", "tax"]);
        assert!(note.is_some_and(|n| n.contains("not JSON")));
        let (none, note) = subtasks_in("I cannot split this.");
        assert!(none.is_empty() && note.is_some_and(|n| n.contains("no subtasks")));
    }
}
