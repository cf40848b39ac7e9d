//! The decision steps, one function each, as the paper names them:
//! judge, decompose, solve (and refine), critique, aggregate. Each builds
//! its input from the task tree, appends the retrieved experience (when
//! the mode retrieves), asks the agent's model (at the options'
//! temperature, the paper's 0.2, unless the run's model spec sets one),
//! reads the reply with the engine's reader (`read`) and records the step.
//!
//! Every reply that needed a repair, or could not be read, is recorded
//! against its call (`ReplyRepaired`, once per reply); an unreadable reply
//! is never taken as an answer. Per step:
//! - judge: the JSON, else the last explicit verdict in its text (a
//!   `Shape` repair); else the stated default, **solvable alone** (the
//!   agent solves the task itself: the cheaper path, and the one the
//!   workflow takes when it does not ask), flagged `Default`.
//! - decompose: the JSON (or a bare list), else the reply's list lines (a
//!   `Shape` repair); else the stated default, **no subtasks** (the agent
//!   solves the task itself), flagged `Default`.
//! - critique: the JSON (a yes/no given as text is mapped); else it asks
//!   once more with a reminder of the JSON expected (`AskedAgain` on the
//!   first call); a second unreadable reply takes the stated default,
//!   **not adequate** (the solver refines within the round limit; an
//!   unchecked solution is never passed as adequate), flagged `Default`
//!   on the second call.
//! - solve, aggregate: free text, taken as written. On a software task
//!   (SRDD) they write files instead (`{"files": [...]}`, else fenced
//!   blocks under their names, a `Shape` repair), each written whole to
//!   the run's workspace; a file the workspace refuses is flagged
//!   (`Other`) and named in the solution; an unreadable reply writes
//!   nothing, flagged `Default`. After each, the project is measured
//!   (`software::measure_iteration`).
//! - a pipeline stage's solve sees the solutions of the stages before it;
//!   a software critique sees what running the project gave.
//!
//! A decomposition's list is then trimmed: empty items dropped (an
//! `Other` repair), and cut to two subtasks per free neighbour (a
//! `Clamped` repair), both recorded with the reply's other repairs. A step
//! that took its stated default is marked (`Step::defaulted`): its output
//! is the unreadable reply, which the backward pass never stores.

mod critique;
mod decompose;
mod judge;
mod solve;

pub use critique::critique;
pub use decompose::decompose;
pub use judge::{forced_judgement, judge};
pub use solve::{aggregate, solve};

use super::contract::*;
use super::prompts;
use super::read;
use super::workflow::{Step, Workflow};
use crate::engine::model::reply::{Repair, RepairKind, Unreadable};
use crate::engine::model::shape::ReplySchema;
use crate::engine::model::{ChatRequest, Message};
use crate::engine::prompts::Prompts;
use crate::engine::run::{RunCtx, RunError};

/// A step asked: its index, the call, the reply, and the request (for a
/// second ask).
pub(super) struct Asked {
    step: usize,
    call: u32,
    reply: String,
    req: ChatRequest,
}

/// Asks agent `agent` for step `kind` on task `t` with `input` (plus a
/// retrieved example), records the step.
pub(super) async fn ask(
    wf: &Workflow<'_>,
    kind: StepKind,
    agent: usize,
    t: usize,
    input: String,
) -> Result<Asked, RunError> {
    ask_narrowed(wf, kind, agent, t, input, |s| s).await
}

/// [`ask`] with the step's shape narrowed for this request (e.g. the
/// neighbours a decomposition may name).
pub(super) async fn ask_narrowed(
    wf: &Workflow<'_>,
    kind: StepKind,
    agent: usize,
    t: usize,
    input: String,
    narrow: impl FnOnce(ReplySchema) -> ReplySchema,
) -> Result<Asked, RunError> {
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
    let software = wf.software.is_some() && matches!(kind, StepKind::Solve | StepKind::Aggregate);
    let system = match software {
        true => prompts::software_system(&wf.prompts, kind)?,
        false => prompts::system(&wf.prompts, kind)?,
    };
    let mut req = ChatRequest::new(vec![Message::system(system), Message::user(content)])
        .with_step(kind.tag());
    let shape = match software {
        true => Some(read::project_schema(kind)),
        false => read::schema(kind),
    };
    if let Some(shape) = shape {
        req = req.with_schema(narrow(shape));
    }
    let (call, response) = wf.ctx.chat(&agent_id, req.clone()).await?;
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
        defaulted: None,
        call: Some(call),
    });
    Ok(Asked {
        step: steps.len() - 1,
        call,
        reply: response.text,
        req,
    })
}

/// The reply of `call` could not be read (`why`): flags it `AskedAgain`
/// and asks `agent` the same request once more, with a short reminder of
/// the JSON `expected`. Returns the second call and its reply.
pub async fn ask_again(
    (ctx, p): (&RunCtx, &Prompts),
    agent: &str,
    req: &ChatRequest,
    call: u32,
    why: &Unreadable,
    expected: &str,
) -> Result<(u32, String), RunError> {
    ctx.repaired(
        call,
        &[Repair::new(
            RepairKind::AskedAgain,
            format!("the reply could not be read ({why}); the step asked once more"),
        )],
    );
    let mut again = req.clone();
    if let Some(last) = again.messages.last_mut() {
        last.content
            .push_str(&prompts::ask_again(p, &why.to_string(), expected)?);
    }
    let (call, response) = ctx.chat(agent, again).await?;
    Ok((call, response.text))
}

/// What the tree shows of a reading: the details of the repairs that
/// changed what the reply says (a mapping, a default, a second ask), if
/// any.
pub(super) fn note_of(repairs: &[Repair]) -> Option<String> {
    let said: Vec<&str> = repairs
        .iter()
        .filter(|r| {
            matches!(
                r.kind,
                RepairKind::Shape
                    | RepairKind::Clamped
                    | RepairKind::Default
                    | RepairKind::AskedAgain
            )
        })
        .map(|r| r.detail.as_str())
        .collect();
    (!said.is_empty()).then(|| said.join("; "))
}

/// Marks step `step` as having taken its stated default when `repairs`
/// (of its reply) hold a `Default`: its output is then the unreadable
/// reply, which the backward pass must not store as an example.
pub(super) fn mark_defaulted(wf: &Workflow<'_>, step: usize, repairs: &[Repair]) {
    if let Some(r) = repairs.iter().find(|r| r.kind == RepairKind::Default) {
        wf.steps.borrow_mut()[step].defaulted = Some(r.detail.clone());
    }
}
