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

use super::contract::*;
use super::prompts;
use super::read::{self, Subtask};
use super::software::{self, Wrote};
use super::workflow::{Step, Workflow};
use crate::engine::domains::srdd::project::Project;
use crate::engine::model::reply::{Repair, RepairKind, Unreadable};
use crate::engine::model::shape::ReplySchema;
use crate::engine::model::{ChatRequest, Message};
use crate::engine::prompts::Prompts;
use crate::engine::run::{Audience, RunCtx, RunError};

/// The most subtasks one decomposition may hand out, per free neighbour.
const SUBTASKS_PER_NEIGHBOUR: usize = 2;

/// A step asked: its index, the call, the reply, and the request (for a
/// second ask).
struct Asked {
    step: usize,
    call: u32,
    reply: String,
    req: ChatRequest,
}

/// Asks agent `agent` for step `kind` on task `t` with `input` (plus a
/// retrieved example), records the step.
async fn ask(
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
async fn ask_narrowed(
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

/// What the tree shows of a reading: the details of the repairs that
/// changed what the reply says (a mapping, a default, a second ask), if
/// any.
fn note_of(repairs: &[Repair]) -> Option<String> {
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
fn mark_defaulted(wf: &Workflow<'_>, step: usize, repairs: &[Repair]) {
    if let Some(r) = repairs.iter().find(|r| r.kind == RepairKind::Default) {
        wf.steps.borrow_mut()[step].defaulted = Some(r.detail.clone());
    }
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
