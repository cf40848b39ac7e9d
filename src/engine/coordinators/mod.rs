//! Coordinators: plain async functions over a [`RunCtx`], one folder (or
//! file) each. This module is the registry: [`COORDINATORS`] for the lists
//! the UI and the CLI show, and the dispatch by id ([`run`], [`execute`],
//! [`every_script`]) for the CLI and the tests. The app never dispatches
//! here: each coordinator is started by its own lazily loaded part of the
//! UI with its own entry and demo script (`ui/coordinators.rs`), so the
//! code of one never pulls in another's.

pub mod act;
pub mod mael;
pub mod single;
pub mod travel;

use crate::engine::lesson::questions::Roles;
use crate::engine::model::demo::Reply;
use crate::engine::model::ChatRequest;
use crate::engine::run::{Outcome, RunCtx, RunError, RunStatus};
use futures::future::LocalBoxFuture;

pub struct CoordinatorInfo {
    pub id: &'static str,
    pub name: &'static str,
    /// The name alone, where room is short (the header's picker).
    pub short: &'static str,
    pub description: &'static str,
    /// A task to start from, shown in the empty task box.
    pub example_task: &'static str,
    /// What its runs offer to a lesson's predict-next questions.
    pub roles: Roles,
    /// How it is named in a sentence ("the travel planner's prompts…").
    pub called: &'static str,
    /// The longest single prompt its runs reach, in tokens, as measured on
    /// a small real model (0: it depends on the task). Said before a run on
    /// a model whose context is shorter (`model::fit`).
    pub peak_prompt_tokens: u32,
}

/// MAEL's longest prompt on a small model: a bound, not a measurement
/// like the others. Its aggregation reads every sub-solution: up to six
/// (two per free neighbour of the default star's hub) at the local model's
/// 512-token default answer, with the task and rules (~300 tokens).
/// SmolLM2-135M never gets there: it judges each task solvable at once;
/// its longest MAEL prompt measured 391 tokens (step mode, with a
/// retrieved experience; `tests/real_model.rs` prints it and checks it
/// against this bound).
const MAEL_PEAK_PROMPT_TOKENS: u32 = 6 * 512 + 300;

pub const COORDINATORS: &[CoordinatorInfo] = &[
    CoordinatorInfo {
        id: single::ID,
        name: "Single agent",
        short: "Single agent",
        description: "One agent answers the task in a single streamed reply.",
        example_task: single::EXAMPLE_TASK,
        roles: Roles::NONE,
        called: "the single agent",
        peak_prompt_tokens: 0,
    },
    CoordinatorInfo {
        id: travel::ID,
        name: "Travel planner (notebook + orchestrator)",
        short: "Travel planner",
        description: "Experts search the TravelPlanner sandbox privately and share findings in a notebook; an orchestrator picks who acts next; a compiler and a critic write the plan, scored by the TravelPlanner evaluator.",
        example_task: travel::EXAMPLE_TASK,
        roles: travel::contract::QUESTION_ROLES,
        called: "the travel planner",
        // SmolLM2-135M in the page: one prompt read 3,589 new tokens.
        peak_prompt_tokens: 3_600,
    },
    CoordinatorInfo {
        id: act::ID,
        name: "ACT (meetings, break time, knowledge)",
        short: "ACT",
        description: "A team splits a creative task, meets to fuse it, takes break time with experts it creates, remembers episodes and scored knowledge, and writes the deliverable in a production meeting; ACT+ carries the knowledge to the next task.",
        example_task: act::EXAMPLE_TASK,
        roles: act::contract::QUESTION_ROLES,
        called: "ACT",
        // SmolLM2-135M in the page: the leader's prompt reached 3,695
        // before the appendix-structured prompts (stop 33), which made the
        // longest leader prompt of the demo's runs 4.9% longer (7,554 →
        // 7,922 characters): 3,695 × 1.049 ≈ 3,875, not yet re-measured.
        peak_prompt_tokens: 3_900,
    },
    CoordinatorInfo {
        id: mael::ID,
        name: "MAEL (experience on a graph)",
        short: "MAEL",
        description: "Agents on a graph split the task, solve, critique and merge; every step is rewarded and stored as an experience that later tasks retrieve (none / task / step).",
        example_task: mael::EXAMPLE_TASK,
        roles: mael::contract::QUESTION_ROLES,
        called: "MAEL",
        peak_prompt_tokens: MAEL_PEAK_PROMPT_TOKENS,
    },
];

pub fn info(id: &str) -> Option<&'static CoordinatorInfo> {
    COORDINATORS.iter().find(|c| c.id == id)
}

/// What runs of coordinator `id` offer to questions (an unknown
/// coordinator's: the generic questions only).
pub fn question_roles(id: &str) -> Roles {
    info(id).map(|c| c.roles).unwrap_or_default()
}

/// Runs the coordinator named in the context's config.
pub fn run(ctx: &RunCtx) -> LocalBoxFuture<'_, Result<Outcome, RunError>> {
    match ctx.config().coordinator.as_str() {
        single::ID => single::entry(ctx),
        travel::ID => travel::entry(ctx),
        act::ID => act::entry(ctx),
        mael::ID => mael::entry(ctx),
        _ => unknown(ctx),
    }
}

/// A whole run of the coordinator named in the config (its first and last
/// events included): the CLI's and the tests' way to run any coordinator.
pub async fn execute(ctx: &RunCtx) -> RunStatus {
    crate::engine::run::execute(ctx, run).await
}

/// Every coordinator's demo script, by step tag prefix (the CLI and the tests).
pub fn every_script(req: &ChatRequest) -> Option<Reply> {
    single::demo_script(req)
        .or_else(|| travel::demo::answer(req))
        .or_else(|| mael::demo::answer(req))
        .or_else(|| act::demo::answer(req))
}

/// Every structured step's reply shape, by coordinator (the CLI's
/// `shapes`, the constrained-decoding bench, the tests).
pub fn every_shape() -> Vec<crate::engine::model::shape::ReplySchema> {
    use mael::contract::{StepKind, STEP_EVALUATE, STEP_QUALITY};
    let mut all = vec![
        travel::orchestrator::decision_schema(),
        travel::planning::plan_schema(),
        travel::planning::critic_schema(),
    ];
    all.extend(StepKind::ALL.iter().filter_map(|k| mael::read::schema(*k)));
    all.push(mael::read::rating_schema(STEP_EVALUATE));
    all.push(mael::read::rating_schema(STEP_QUALITY));
    all.extend(
        act::contract::STRUCTURED_STEPS
            .iter()
            .filter_map(|s| act::contract::reply_shape(s)),
    );
    all
}

/// A coordinator's prompt templates: its default file and what each
/// template is given (the CLI's `prompts` and `--prompts`; the page's
/// Prompts panel in the coordinator's own part, so the start page links
/// none of them).
pub fn prompt_templates(
    id: &str,
) -> Option<(
    &'static str,
    &'static [crate::engine::prompts::TemplateSpec],
)> {
    Some(match id {
        single::ID => (single::DEFAULTS, &single::TEMPLATES),
        travel::ID => (travel::prompts::DEFAULTS, &travel::prompts::TEMPLATES),
        act::ID => (act::prompts::DEFAULTS, &act::prompts::TEMPLATES),
        mael::ID => (mael::prompts::DEFAULTS, &mael::prompts::TEMPLATES),
        _ => return None,
    })
}

/// The text tool protocol's grammar with every tool the travel planner
/// offers (the solo agent's set): the largest a local model is held to.
pub fn text_tool_grammar() -> crate::engine::model::text_tools::CallGrammar {
    use crate::engine::domains::travel::tools::{parameter_names, TOOL_NAMES};
    crate::engine::model::text_tools::CallGrammar::new(
        TOOL_NAMES
            .iter()
            .map(|t| (*t, parameter_names(t).map_or(0, |n| n.len()))),
    )
}

/// The entry for a coordinator this build does not know: the run fails
/// with a message that lists the known ones.
pub fn unknown(ctx: &RunCtx) -> LocalBoxFuture<'_, Result<Outcome, RunError>> {
    let known: Vec<&str> = COORDINATORS.iter().map(|c| c.id).collect();
    let msg = format!(
        "Unknown coordinator \"{}\". Known coordinators: {}.",
        ctx.config().coordinator,
        known.join(", ")
    );
    Box::pin(async move { Err(RunError::new("config", msg)) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::demo::general;
    use crate::engine::model::Message;

    #[test]
    fn every_script_answers_each_coordinators_steps_and_no_others() {
        let ask = |step: &str| {
            every_script(&ChatRequest::new(vec![Message::user("What is 2 + 2?")]).with_step(step))
        };
        let req = ChatRequest::new(vec![Message::user("What is 2 + 2?")]).with_step(single::STEP);
        assert_eq!(
            ask(single::STEP).map(|r| r.text),
            Some(general::answer(&req))
        );
        assert!(ask(travel::contract::STEP_ORCHESTRATOR).is_some());
        assert_eq!(ask("elsewhere.step"), None);
        assert_eq!(
            single::demo_script(&req.clone().with_step("travel.critic")),
            None
        );
    }

    #[test]
    fn every_listed_coordinator_is_dispatched() {
        use crate::engine::base::clock::FakeClock;
        use crate::engine::model::demo::DemoModel;
        use crate::engine::run::{ModelRouter, ModelSpec, RunConfig};
        use std::rc::Rc;
        for c in COORDINATORS {
            let config = RunConfig::new(c.id, c.example_task, ModelSpec::demo());
            let clock = Rc::new(FakeClock::new());
            let model = Rc::new(DemoModel::instant(clock.clone(), every_script));
            let ctx = RunCtx::new(config, ModelRouter::single(model), clock);
            futures::executor::block_on(execute(&ctx));
            let failure = ctx.events().iter().find_map(|e| match &e.event {
                crate::engine::run::RunEvent::RunFailed { reason } => Some(reason.message.clone()),
                _ => None,
            });
            // A coordinator may refuse the example task's missing options,
            // but never as an unknown coordinator.
            assert!(
                !failure
                    .as_deref()
                    .unwrap_or("")
                    .contains("Unknown coordinator"),
                "{}: {failure:?}",
                c.id
            );
        }
        let ctx = RunCtx::new(
            RunConfig::new("nope", "x", ModelSpec::demo()),
            ModelRouter::single(Rc::new(DemoModel::instant(
                Rc::new(FakeClock::new()),
                every_script,
            ))),
            Rc::new(FakeClock::new()),
        );
        assert_eq!(
            futures::executor::block_on(execute(&ctx)),
            RunStatus::Failed
        );
    }
}
