//! ACT, agents that meet, take breaks with experts and remember (Nakatsuji
//! et al.). The complex task is split into one task per agent; agents are
//! generated with expertise keywords; a team meeting fuses their tasks
//! into the team's complex task G; after it each agent explores its task
//! and acquires episodes and scored knowledge about the others; in break
//! time each asks an expert it creates, and updates again; the production
//! meeting writes the deliverable with each agent's top-c knowledge, under
//! the leader's check. ACT+ carries the knowledge to the next task. The
//! variants switch mechanisms off (Table 6) or use one model (Table 7).
//!
//! Modules, in the order a run uses them: `generation` (decompose,
//! expertise), `team_meeting` (opinions, advice, fuse), `update` (task
//! exploration, knowledge acquisition), `break_time`, `production` (with
//! `tools`), `evaluate`; `plus` (the bank of ACT+), `single` (one-model
//! baselines); `memory` (stores, top-c); `team` (the run's state and its
//! requests); `reading` (how replies are read and repaired); everything
//! that crosses this folder is in `contract`; the demo model's team in
//! `demo`.

pub mod batch;
pub mod break_time;
pub mod contract;
pub mod demo;
pub mod evaluate;
pub mod generation;
pub mod html;
pub mod memory;
pub mod plus;
pub mod production;
mod prompts;
mod reading;
pub mod report;
pub mod setup;
pub mod single;
pub mod team;
pub mod team_meeting;
pub mod tools;
pub mod update;
pub mod view;

use crate::engine::domains::creative::ComplexTask;
use crate::engine::model::retry::SplitMix;
use crate::engine::run::{Outcome, RunCtx, RunError};
use contract::*;
use plus::{Bank, BankData};
use std::rc::Rc;
use team::{Act, Meeting};

pub use contract::ID;

pub const EXAMPLE_TASK: &str =
    "Design a neighbourhood tea house that also works as a small co-working space.";

/// ACT as a [`crate::engine::run::CoordinatorFn`].
pub fn entry(ctx: &RunCtx) -> futures::future::LocalBoxFuture<'_, Result<Outcome, RunError>> {
    Box::pin(run(ctx))
}

/// A run: decompose → generate agents → team meeting → break time →
/// production meeting → evaluation, each step as the variant keeps it.
pub async fn run(ctx: &RunCtx) -> Result<Outcome, RunError> {
    let (options, variant) = setup::prepare(ctx)?;
    let full = options.task.clone();
    let act = Act::new(ctx, options, variant);
    if variant.is_single() {
        let write = single::write(&act);
        let output = ctx
            .phase(PHASE_PRODUCTION, "One model writes the deliverable", write)
            .await?;
        return finish(&act, &full, output, true, 1, WRITER).await;
    }

    let tasks = ctx
        .phase(
            PHASE_DECOMPOSE,
            "Decompose the complex task into one task per agent",
            generation::decompose(&act),
        )
        .await?;
    let bank = act.features.carry_over.then(|| {
        ctx.resource::<Bank>()
            .unwrap_or_else(|| Rc::new(Bank::lexical(BankData::empty("run"))))
    });
    ctx.phase(
        PHASE_GENERATION,
        "Generate the agents and their expertise",
        generate(&act, bank.as_deref(), tasks),
    )
    .await?;

    let all: Vec<usize> = (0..act.member_count()).collect();
    let mut meeting = Meeting {
        index: MEETING_TEAM,
        lines: Vec::new(),
    };
    if act.features.team_meeting {
        let team = async {
            let meeting = team_meeting::team_meeting(&act).await?;
            update::after_meeting(&act, &meeting, &all, "after_team_meeting").await?;
            Ok::<_, RunError>(meeting)
        };
        meeting = ctx
            .phase(
                PHASE_TEAM,
                "Team meeting: opinions, advice, the leader fuses the tasks",
                team,
            )
            .await?;
    }
    if act.features.break_time {
        ctx.phase(
            PHASE_BREAK,
            "Break time: each agent asks an expert it creates",
            break_time::break_time(&act, &meeting),
        )
        .await?;
    }
    let made = ctx
        .phase(
            PHASE_PRODUCTION,
            "Production meeting: opinions, the leader's draft and check",
            production::production_meeting(&act),
        )
        .await?;
    if let Some(b) = &bank {
        plus::store_back(&act, b);
    }
    let leader = act.leader_id();
    finish(
        &act,
        &full,
        made.output,
        made.accepted,
        made.rounds,
        &leader,
    )
    .await
}

/// The generation step: the team taken over from the bank (ACT+) or
/// generated, its leader, and the draft of the team's task G₀.
async fn generate(
    act: &Act<'_>,
    bank: Option<&Bank>,
    tasks: Vec<AgentTask>,
) -> Result<(), RunError> {
    let carried = match bank {
        Some(b) => plus::take_over(act, b, &tasks).await?,
        None => false,
    };
    if !carried {
        generation::generate_agents(act, tasks).await?;
    }
    choose_leader(act);
    let g0 = generation::draft_team_task(act);
    *act.team_task.borrow_mut() = g0.clone();
    act.ctx.note(
        &act.leader_id(),
        STORE_COMPLEX_TASK,
        Some("draft"),
        &ComplexTaskRecord {
            stage: "draft".into(),
            task: g0,
            flags: Vec::new(),
        },
    );
    Ok(())
}

/// A member chosen uniformly by the run's seed; it fuses G and leads the
/// production meeting. Experts are never leaders.
fn choose_leader(act: &Act<'_>) {
    let n = act.member_count().max(1);
    let seed = act.ctx.config().seed;
    let leader = (SplitMix::new(seed ^ 0xAC7_1EAD).next_u64() % n as u64) as usize;
    act.leader.set(leader);
    let id = act.leader_id();
    act.ctx.note(
        &id,
        STORE_LEADER,
        None,
        &LeaderRecord {
            leader: id.clone(),
            seed,
        },
    );
}

async fn finish(
    act: &Act<'_>,
    full: &ComplexTask,
    output: String,
    accepted: bool,
    rounds: u32,
    author: &str,
) -> Result<Outcome, RunError> {
    let (scores, judge) = act
        .ctx
        .phase(
            PHASE_EVALUATION,
            "Evaluation: the deliverable against the references",
            evaluate::evaluate(act, full, &output),
        )
        .await?;
    let result = ResultRecord {
        task_id: full.id.clone(),
        set: full.set.id().into(),
        variant: act.variant,
        output: output.clone(),
        words: scores.words,
        accepted,
        rounds,
        scores,
        judge,
    };
    act.ctx.note(author, STORE_RESULT, None, &result);
    Ok(Outcome {
        output: Some(output),
    })
}
