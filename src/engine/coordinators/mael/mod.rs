//! MAEL, cross-task experiential learning on a multi-agent graph (Li,
//! Qian et al.). Agents sit on an undirected graph; the root (highest
//! closeness) handles the task: judge → solve, or decompose → the
//! neighbours handle the parts → critique rounds → aggregate (§2.1). After
//! the forward pass, the backward pass rewards every decision step and
//! stores it as an experience in its agent's pool (§2.2); later runs
//! retrieve experiences as worked examples, by task or at every step
//! (§2.3). The variants are the modes: none (MAEL-ØExp), task, step.
//!
//! Modules: the graph (`topology`), the workflow and its steps
//! (`workflow`, `steps`, `prompts`), reading the replies (`read`), the
//! pool and retrieval (`experience`, `memory`), the backward pass
//! (`rewards`), software tasks whose solution is the run's files (SRDD,
//! `software`); everything
//! that crosses this folder is in `contract`; the demo model's team in
//! `demo`.

pub mod contract;
pub mod demo;
pub mod experience;
pub mod html;
pub mod learn;
pub mod memory;
pub mod projection;
pub mod prompts;
pub mod quality;
pub mod read;
pub mod rewards;
pub mod setup;
pub mod software;
mod steps;
pub mod topology;
pub mod view;
pub mod workflow;

use crate::engine::domains::tasks::{humaneval, Gold, Task};
use crate::engine::prompts::Prompts;
use crate::engine::run::{Outcome, RunCtx, RunError, RunEvent};
use contract::*;
use memory::Recall;
use topology::Team;
use workflow::Workflow;

pub use contract::ID;

pub const EXAMPLE_TASK: &str =
    "A built-in shopping problem: the team splits the order and adds it up (pick a task in the MAEL panel).";

/// MAEL as a [`crate::engine::run::CoordinatorFn`].
pub fn entry(ctx: &RunCtx) -> futures::future::LocalBoxFuture<'_, Result<Outcome, RunError>> {
    Box::pin(run(ctx))
}

/// A run: the forward pass from the root, the final answer scored by the
/// task's metric, then (when learning) the backward pass.
pub async fn run(ctx: &RunCtx) -> Result<Outcome, RunError> {
    let setup::Setup {
        options,
        mode,
        memory,
    } = setup::prepare(ctx)?;
    let team = &options.team;
    let root = team.root();
    let judged = matches!(options.task.gold, Gold::Concepts(_));
    add_team(ctx, team, root, options.learn, judged);
    let software = matches!(options.task.gold, Gold::Software { .. })
        .then(|| software::Software::new(ctx, memory.embedder.clone()));
    if software
        .as_ref()
        .is_some_and(|sw| sw.runner_name().is_none())
    {
        return Err(RunError::new(
            "no_python",
            "SRDD's projects are run in Python (to critique and to score them), and this run has no Python runner.",
        ));
    }
    let recall = Recall::new(memory, mode, options.scoring, options.top_k);
    let prompts = prompts::of_run(&ctx.config().prompts)?;
    let mut wf = Workflow::new(ctx, &options, team, (recall, prompts));
    wf.software = software;

    let t0 = forward(&wf, &options).await?;
    let answer = match &wf.software {
        // The project is the run's files (the metric's code book).
        Some(_) => crate::engine::domains::srdd::project::Project::of(&ctx.files()).code(),
        None => wf.task(t0).versions.last().cloned().unwrap_or_default(),
    };
    let (score, parts) = score(&wf, &options, t0, &answer).await?;
    let learned = match options.learn {
        true => backward(&wf, score).await?,
        false => 0,
    };
    let result = ResultRecord {
        task_id: options.task.id.clone(),
        dataset: options.task.dataset.id().into(),
        answer,
        score,
        gold: options.task.gold_text(),
        rounds: wf.rounds.get(),
        steps: wf.steps.borrow().len() as u32,
        mode,
        learned,
        parts,
        scored_by: wf.software.as_ref().map(|sw| {
            format!(
                "{}; consistency by the {}",
                sw.runner_name().unwrap_or_default(),
                sw.embedder_label()
            )
        }),
    };
    ctx.note(&team.agents[root].id, STORE_RESULT, None, &result);
    Ok(Outcome {
        output: Some(summary(&result)),
    })
}

/// The forward pass from the root (its trace chosen first): the root
/// task's id.
async fn forward(wf: &Workflow<'_>, options: &MaelOptions) -> Result<usize, RunError> {
    let (ctx, team) = (wf.ctx, &options.team);
    let root = team.root();
    let pass = async {
        let t0 = wf.add_task(None, &options.task.prompt, root);
        let root_input = prompts::judge(&options.task.prompt);
        wf.recall
            .choose_trace(ctx, &team.agents[root].id, &root_input)
            .await?;
        wf.handle(t0, root, Vec::new()).await?;
        Ok::<_, RunError>(t0)
    };
    ctx.phase(
        "forward",
        "Forward pass: judge, decompose, solve, critique, aggregate",
        pass,
    )
    .await
}

/// The final answer scored by the task's metric, recorded (a HumanEval
/// run's verdict noted, what was read from the reply flagged on it): the
/// score and its parts.
async fn score(
    wf: &Workflow<'_>,
    options: &MaelOptions,
    t0: usize,
    answer: &str,
) -> Result<(f64, Vec<(String, f64)>), RunError> {
    let ctx = wf.ctx;
    let root_id = &options.team.agents[options.team.root()].id;
    let (score, checked, parts) = match &wf.software {
        Some(sw) => {
            let (q, parts) = software::score(ctx, sw, &options.task.prompt).await?;
            (q, None, parts)
        }
        None => score_answer(ctx, &wf.prompts, &options.task, answer).await?,
    };
    let mut detail = serde_json::json!({"metric": options.task.dataset.metric()});
    if let Some(sw) = &wf.software {
        detail["runner"] = sw.runner_name().unwrap_or_default().into();
        detail["embedder"] = sw.embedder_label().into();
    }
    for (name, v) in &parts {
        detail[name] = (*v).into();
    }
    if let Some(c) = &checked {
        detail["result"] = c.verdict.result.clone().into();
        ctx.note(root_id, STORE_PROGRAM, None, c);
        // Flagged on the reply the completion was read from.
        if let Some(call) = wf.final_call(t0) {
            ctx.repaired(call, &c.reading_repairs());
        }
    }
    ctx.emit(RunEvent::ScoreComputed {
        name: "score".into(),
        value: score,
        agent: None,
        detail,
    });
    Ok((score, parts))
}

/// The backward pass: every step rated against the score, the rewarded
/// ones into their agents' pools; how many were learned.
async fn backward(wf: &Workflow<'_>, score: f64) -> Result<usize, RunError> {
    let pass = async {
        let ratings = rewards::rate(wf, score).await?;
        rewards::learn(wf, &ratings).await
    };
    wf.ctx
        .phase(
            "backward",
            "Backward pass: rewards, experiences into the pools",
            pass,
        )
        .await
}

/// What scoring an answer found: the score, a HumanEval answer's run,
/// a CommonGen-Hard answer's parts.
type Scored = (f64, Option<humaneval::Checked>, Vec<(String, f64)>);

/// The final answer's score by the task's metric: a CommonGen-Hard
/// answer's composite (`quality`), a HumanEval answer's by running its
/// tests (the platform's [`humaneval::Runner`]), with what was read from
/// the answer and the verdict.
async fn score_answer(
    ctx: &RunCtx,
    prompts: &Prompts,
    task: &Task,
    answer: &str,
) -> Result<Scored, RunError> {
    if let Some(q) = quality::judge(ctx, prompts, task, answer).await? {
        return Ok((q.composite, None, q.parts()));
    }
    if !matches!(task.gold, Gold::Program { .. }) {
        return Ok((task.score(answer), None, Vec::new()));
    }
    let runner = ctx.resource::<humaneval::Runner>().ok_or_else(|| {
        RunError::new(
            "no_python",
            "HumanEval is scored by running the problem's tests in Python, and this run has no Python runner.",
        )
    })?;
    match humaneval::check(task, answer, runner.0.as_ref()).await {
        Some(Ok(c)) => Ok((c.score(), Some(c), Vec::new())),
        Some(Err(e)) => Err(RunError::new(
            "python",
            format!("The tests could not be run: {e}"),
        )),
        None => Ok((task.score(answer), None, Vec::new())),
    }
}

/// The team's agents (each its own role, so a model can be bound to it),
/// the evaluator when the run learns, and the graph as the views need it.
fn add_team(ctx: &RunCtx, team: &Team, root: usize, learn: bool, judged: bool) {
    for a in &team.agents {
        ctx.add_agent(&a.id, &a.id, &a.name);
    }
    if learn {
        ctx.add_agent(EVALUATOR, EVALUATOR, "Evaluator");
    }
    if judged {
        ctx.add_agent(JUDGE, JUDGE, "Judge");
    }
    ctx.note(
        &team.agents[root].id,
        STORE_TEAM,
        None,
        &TeamRecord {
            team: team.clone(),
            root,
            closeness: (0..team.len()).map(|i| team.closeness(i)).collect(),
        },
    );
}

fn summary(r: &ResultRecord) -> String {
    format!(
        "Score {:.2} ({}), gold {}; {} steps, {} critique round{}, {} experience{} learned.",
        r.score,
        r.dataset,
        r.gold,
        r.steps,
        r.rounds,
        if r.rounds == 1 { "" } else { "s" },
        r.learned,
        if r.learned == 1 { "" } else { "s" }
    )
}
