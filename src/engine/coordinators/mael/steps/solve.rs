//! solve (and refine) and aggregate: free text, or a software task's files.

use super::super::contract::*;
use super::super::prompts;
use super::super::software::{self, Wrote};
use super::super::workflow::Workflow;
use super::{ask, mark_defaulted, Asked};
use crate::engine::domains::srdd::project::Project;
use crate::engine::run::{Audience, RunError};

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
    let mut context = prompts::earlier(&wf.earlier_stages(t));
    if wf.software.is_some() {
        context.push_str(&software::listing(&wf.ctx.files()));
    }
    let input = prompts::solve(&node.text, &context, previous);
    let asked = ask(wf, StepKind::Solve, agent, t, input).await?;
    let text = match wf.software.is_some() {
        true => write_files(wf, agent, &asked).text(),
        false => asked.reply.clone(),
    };
    let version = deliver(wf, t, agent, asked.step, SolutionKind::Solve, &text);
    measure(wf, agent, StepKind::Solve, t).await?;
    Ok(version)
}

/// A software step's files, written whole to the run's workspace
/// (`software::write_files`); its repairs recorded against its call, an
/// unreadable reply marked as the step's stated default.
fn write_files(wf: &Workflow<'_>, agent: usize, asked: &Asked) -> Wrote {
    let (wrote, repairs) =
        software::write_files(wf.ctx, wf.agent_id(agent), asked.call, &asked.reply);
    wf.ctx.repaired(asked.call, &repairs);
    mark_defaulted(wf, asked.step, &repairs);
    wrote
}

/// On a software task, the project measured after a step wrote files.
async fn measure(
    wf: &Workflow<'_>,
    agent: usize,
    kind: StepKind,
    t: usize,
) -> Result<(), RunError> {
    let Some(sw) = &wf.software else {
        return Ok(());
    };
    let task = wf.tasks.borrow()[t].id.clone();
    software::measure_iteration(
        wf.ctx,
        sw,
        (wf.agent_id(agent), kind, &task),
        &wf.options.task.prompt,
    )
    .await
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
    let context = match &wf.software {
        Some(_) => software::listing(&wf.ctx.files()),
        None => String::new(),
    };
    let input = prompts::aggregate(&node.text, &parts, &context);
    let asked = ask(wf, StepKind::Aggregate, agent, t, input).await?;
    let text = match wf.software.is_some() {
        true => {
            let wrote = write_files(wf, agent, &asked);
            // The merged solution is the project as it now is.
            let code = Project::of(&wf.ctx.files()).code();
            let changed: Vec<&str> = wrote.written.iter().map(|(p, _)| p.as_str()).collect();
            let said = match (changed.is_empty(), wrote.unread) {
                (_, true) => "(No file changed: the reply could not be read.)".to_string(),
                (true, false) => "(No file changed: the parts fit as they are.)".to_string(),
                (false, false) => format!("(Changed: {}.)", changed.join(", ")),
            };
            format!("{code}\n\n{said}{}", wrote.refused_note())
        }
        false => asked.reply.clone(),
    };
    let version = deliver(wf, t, agent, asked.step, SolutionKind::Aggregate, &text);
    measure(wf, agent, StepKind::Aggregate, t).await?;
    Ok(version)
}
