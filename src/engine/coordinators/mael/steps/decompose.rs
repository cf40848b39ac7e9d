//! decompose: the task split into subtasks, each handed to a free neighbour.

use super::super::contract::*;
use super::super::prompts;
use super::super::read::{self, Subtask};
use super::super::workflow::Workflow;
use super::{ask_narrowed, mark_defaulted, note_of};
use crate::engine::model::reply::{Repair, RepairKind};
use crate::engine::model::shape::ReplySchema;
use crate::engine::run::{Audience, RunError};

/// The most subtasks one decomposition may hand out, per free neighbour.
const SUBTASKS_PER_NEIGHBOUR: usize = 2;

/// The solver of each subtask: the free neighbour it names (its id or its
/// name, any case), else the next free neighbour round robin; with the
/// repair's detail when any went round robin.
fn assign(wf: &Workflow<'_>, subs: &[Subtask], free: &[usize]) -> (Vec<usize>, Option<String>) {
    let mut next = 0;
    let mut fallback = Vec::new();
    let solvers = (subs.iter().enumerate())
        .map(|(i, s)| {
            let named = s.agent.as_deref().and_then(|a| {
                free.iter().copied().find(|&n| {
                    wf.agent_id(n).eq_ignore_ascii_case(a)
                        || wf.team.agents[n].name.eq_ignore_ascii_case(a)
                })
            });
            named.unwrap_or_else(|| {
                let n = free[next % free.len()];
                next += 1;
                let why = match &s.agent {
                    None => "named no neighbour".to_string(),
                    Some(a) => format!("named \"{a}\", not a free neighbour"),
                };
                fallback.push(format!(
                    "subtask {} {why} and went to {}",
                    i + 1,
                    wf.agent_id(n)
                ));
                n
            })
        })
        .collect();
    let free_ids: Vec<&str> = free.iter().map(|&n| wf.agent_id(n)).collect();
    let detail = (!fallback.is_empty()).then(|| {
        format!(
            "{} (round robin over the free neighbours {})",
            fallback.join("; "),
            free_ids.join(", ")
        )
    });
    (solvers, detail)
}

/// decompose: split the task and hand each part to the free neighbour the
/// reply names for it (by id or name); a part that names none, or names an
/// agent that is not a free neighbour (itself, one on the call path, a
/// stranger), goes round robin to the free neighbours, flagged. Returns
/// the subtasks (none: the agent solves alone, as it does when the reply
/// cannot be read).
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
    // Held to the shape, a decomposition names only free neighbours and
    // gives no more subtasks than the step keeps.
    let ids: Vec<String> = neighbours.iter().map(|(id, _)| id.clone()).collect();
    let cap = free.len() * SUBTASKS_PER_NEIGHBOUR;
    let to_free = |s: ReplySchema| {
        s.with_items("subtasks", 1, cap.max(1))
            .with_enum("/properties/subtasks/items/properties/agent", &ids)
    };
    let asked = ask_narrowed(wf, StepKind::Decompose, agent, t, input, to_free).await?;
    let (split, mut texts, mut repairs) = match read::subtasks(&asked.reply) {
        Ok(r) => (r.value.0, r.value.1, r.repairs),
        Err(why) => (
            Split::Modules,
            Vec::new(),
            vec![Repair::new(
                RepairKind::Default,
                format!("the decomposition could not be read ({why}); the default was used: no subtasks, the agent solves the task itself"),
            )],
        ),
    };
    // What is done to the list read is a repair of the reply too, recorded
    // with the rest (once per reply): empty items dropped, the list cut.
    let given = texts.len();
    texts.retain(|s| !s.text.trim().is_empty());
    let blank = given - texts.len();
    let dropped = (blank > 0).then(|| {
        let detail = format!(
            "{blank} empty subtask{} dropped",
            if blank == 1 { " was" } else { "s were" }
        );
        repairs.push(Repair::new(RepairKind::Other, detail.clone()));
        detail
    });
    if texts.len() > cap {
        repairs.push(Repair::new(
            RepairKind::Clamped,
            format!(
                "the reply gave {} subtasks; only the first {cap} were kept (two per free neighbour)",
                texts.len()
            ),
        ));
        texts.truncate(cap);
    }
    let (solvers, unassigned) = assign(wf, &texts, free);
    if let Some(detail) = &unassigned {
        repairs.push(Repair::new(RepairKind::Shape, detail.clone()));
    }
    wf.ctx.repaired(asked.call, &repairs);
    mark_defaulted(wf, asked.step, &repairs);
    let mut note = match (note_of(&repairs), dropped) {
        (Some(n), Some(d)) => Some(format!("{d}; {n}")),
        (n, d) => n.or(d),
    };
    if texts.is_empty() && note.is_none() {
        note = Some("the reply held no subtasks; the agent solves the task itself".into());
    }
    wf.tasks.borrow_mut()[t].split = split;
    let subtasks: Vec<usize> = texts
        .iter()
        .zip(&solvers)
        .map(|(s, &solver)| wf.add_task(Some(t), &s.text, solver))
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
            mode: split,
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
            .map(|(id, s)| format!("- **{id}**: {}\n", s.text))
            .collect();
        let how = match split {
            Split::Modules => "independent modules",
            Split::Pipeline => "a pipeline, stage by stage in this order",
        };
        wf.ctx.post(
            wf.agent_id(agent),
            Audience::To(to),
            &format!("I split {} into {how}:\n{listing}", node.id),
            None,
        );
    }
    Ok(subtasks)
}
