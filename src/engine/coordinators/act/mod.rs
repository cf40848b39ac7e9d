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
//!
//! **Readings of the paper.** `ACT_NOTES.md` (in `../shared/papers`) lists 22 places where the paper is
//! unclear, each with a proposed decision; the coordinator follows them:
//! ROUGE recall against each part's references, best per part, averaged (A1);
//! one leader per trial from the run's seed, never an expert (A2); G₀ = every
//! initial task side by side (A3; also the G of "− team meeting" and the
//! baseline); opinions then advice, each concurrently (A4); the leader fuses
//! with its own knowledge block (A5); top-c over all of an agent's entries by
//! importance, ties the later trial (ACT+), then the later meeting, then
//! insertion order, expertise always given and not counted (A6); exploration
//! and acquisition from the same snapshot, concurrently (A7); one acquisition
//! request per meeting about every other speaker, names matched
//! case-insensitively, self and unknown speakers dropped and flagged (A8);
//! the caps and repairs of A9, with one repair retry for a reply that is not
//! JSON; break time as a conversation: the member asks, the expert answers,
//! and after each answer the member asks a further question (`{"question":
//! …}`) or says it is done (`{"done": true}`; other shapes read and flagged),
//! at most 3 question / answer pairs, every turn posted to the pair and heard
//! by the acquisition after it; one expert per member whose task is the
//! knowledge to deepen and who sees only its task, expertise and the 1:1
//! (A10); the production opinion writes the solution and the contribution
//! first (A11); the word limit counted in code, 3 rounds (10 for a tool task:
//! one whose options name tools; `Limits::tool_rounds`), the last draft final
//! and marked not accepted (A12); no acquisition after production (A13); ACT+
//! by the best keyword similarity, one-to-one, expertise generated again,
//! importances re-scored (A14–A16) with a prompt bounded however large the
//! bank: the 40 entries top-c ranks first (`RESCORE_ENTRIES`), one line of at
//! most 240 characters each (`RESCORE_ENTRIES_CHARS` = 9,640 for the
//! entries); the entries not shown keep their scores; temperature 0.7 for
//! speech, 0 for replies read as JSON (A17); Trivia parts are the questions,
//! the deliverable a story without a word limit (A18); a `tool` field per
//! tool sub-task (A19); the ablations as A20 reads them (− knowledge keeps
//! the expertise); the judge's components are each part's references joined
//! by " | " (A21 says "; ", which a reference may itself contain; a "|"
//! inside a reference becomes "/", and the prompt names the separator).
//!
//! Where this build decides what the notes leave open: a bank whose team
//! holds N agents used for a task of M ≠ N parts is refused: the run fails
//! with a config error naming both numbers, before any member is generated or
//! assigned, and the bank is left as it was (a new or empty bank starts a new
//! team); entries a re-scoring reply misses keep their score (flagged); the
//! built-in set can draw a trial's tasks from different communities
//! (`--mixed-communities`, `builtin::Draw::Mixed`, fixed per trial), as the
//! paper's ablations mixed them; the one-model baselines run as the
//! `production_meeting` phase, so Table 14's shares compare like with like; a
//! free task is split by a `facilitator` agent (P-a) and is not scored.

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
pub mod prompts;
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
    let prompts = prompts::of_run(&ctx.config().prompts)?;
    let act = Act::new(ctx, options, variant, prompts);
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
