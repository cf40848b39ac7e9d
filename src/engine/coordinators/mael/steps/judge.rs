//! judge: can the agent solve the task alone?

use super::super::contract::*;
use super::super::prompts;
use super::super::read;
use super::super::workflow::Workflow;
use super::{ask, mark_defaulted, note_of};
use crate::engine::model::reply::{Repair, RepairKind};
use crate::engine::run::RunError;

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

/// judge: can the agent solve the task alone? An unreadable judgement
/// takes the default: solvable alone.
pub async fn judge(wf: &Workflow<'_>, t: usize, agent: usize) -> Result<bool, RunError> {
    let node = wf.task(t);
    let input = prompts::judge(&node.text);
    let asked = ask(wf, StepKind::Judge, agent, t, input).await?;
    let (judgement, repairs) = match read::judgement(&asked.reply) {
        Ok(r) => (r.value, r.repairs),
        Err(why) => (
            Judgement {
                solvable: true,
                reason: String::new(),
            },
            vec![Repair::new(
                RepairKind::Default,
                format!("the judgement could not be read ({why}); the default was used: solvable alone, the agent solves the task itself"),
            )],
        ),
    };
    wf.ctx.repaired(asked.call, &repairs);
    mark_defaulted(wf, asked.step, &repairs);
    wf.ctx.note(
        wf.agent_id(agent),
        STORE_JUDGEMENT,
        Some(&node.id),
        &JudgementRecord {
            task: node.id.clone(),
            solvable: judgement.solvable,
            reason: judgement.reason.clone(),
            note: note_of(&repairs),
        },
    );
    Ok(judgement.solvable)
}
