//! critique: is a solution adequate, and if not, what to fix.

use super::super::contract::*;
use super::super::prompts;
use super::super::read;
use super::super::workflow::Workflow;
use super::{ask, ask_again, mark_defaulted, note_of};
use crate::engine::model::reply::{Repair, RepairKind};
use crate::engine::run::{Audience, RunError};

/// The JSON a critique reply must be, for the reminder of a second ask.
const CRITIQUE_JSON: &str = "{\"adequate\": true, \"feedback\": \"\"} or {\"adequate\": false, \"feedback\": \"<what is wrong and how to fix it>\"}";

/// critique: the critic checks the last solution of subtask `t`. Returns
/// the step and its verdict. An unreadable reply is asked again once; a
/// second one takes the default: not adequate.
pub async fn critique(
    wf: &Workflow<'_>,
    t: usize,
    critic: usize,
    round: u32,
) -> Result<(usize, Critique), RunError> {
    let node = wf.task(t);
    let version = node.versions.len().saturating_sub(1) as u32;
    let solution = node.versions.last().cloned().unwrap_or_default();
    let run = match &wf.software {
        Some(sw) => sw.run_section(&wf.ctx.files()).await,
        None => String::new(),
    };
    let input = prompts::critique(&node.text, &solution, &run);
    let asked = ask(wf, StepKind::Critique, critic, t, input).await?;
    let step = asked.step;
    let me = wf.agent_id(critic).to_string();
    let (review, repairs) = match read::critique(&asked.reply) {
        Ok(r) => {
            wf.ctx.repaired(asked.call, &r.repairs);
            (r.value, r.repairs)
        }
        Err(why) => {
            let (call, reply) = ask_again(
                (wf.ctx, &wf.prompts),
                &me,
                &asked.req,
                asked.call,
                &why,
                CRITIQUE_JSON,
            )
            .await?;
            wf.steps.borrow_mut()[step].output = reply.clone();
            let read = match read::critique(&reply) {
                Ok(r) => (r.value, r.repairs),
                Err(again) => (
                    Critique {
                        adequate: false,
                        feedback: prompts::unread_feedback(&wf.prompts)?,
                    },
                    vec![Repair::new(
                        RepairKind::Default,
                        format!("the critique could not be read after asking again ({again}); the default was used: not adequate, the solver checks its solution again"),
                    )],
                ),
            };
            wf.ctx.repaired(call, &read.1);
            mark_defaulted(wf, step, &read.1);
            let mut seen = vec![Repair::new(
                RepairKind::AskedAgain,
                format!(
                    "the first reply could not be read ({why}); the critic was asked once more"
                ),
            )];
            seen.extend(read.1);
            (read.0, seen)
        }
    };
    wf.steps.borrow_mut()[step].checked = Some(version);
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
            note: note_of(&repairs),
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
