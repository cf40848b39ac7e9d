//! The paper's temperature: MAEL samples at 0.2 unless the run sets its
//! own, and a run recorded before asks as it did.

use super::{calls, run_three_lines, three_line_task};
use crate::common::*;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::domains::tasks::builtin::{tasks, Split};
use roundtable::engine::run::{LoggedEvent, RunEvent, RunStatus};
use std::rc::Rc;

#[test]
fn mael_samples_at_the_papers_temperature_unless_the_run_sets_one() {
    let temperatures = |events: &[LoggedEvent]| -> Vec<Option<f32>> {
        calls(events)
            .into_iter()
            .map(|c| c.2.params.temperature)
            .collect()
    };
    let started = |events: &[LoggedEvent]| {
        events
            .iter()
            .find_map(|e| match &e.event {
                RunEvent::RunStarted { config } => Some(config.clone()),
                _ => None,
            })
            .expect("started")
    };
    // A new run (the options every caller starts from): 0.2 in the run
    // file, and in every request (the demo's spec sets none).
    let (status, events) = run_three_lines(demo(), |_| {});
    assert_eq!(status, RunStatus::Finished);
    let config = started(&events);
    assert_eq!(config.options["temperature"].as_f64(), Some(0.2f32 as f64));
    assert!(config
        .models
        .iter()
        .all(|b| b.spec.sampling.temperature.is_none()));
    let t = temperatures(&events);
    assert!(!t.is_empty() && t.iter().all(|t| *t == Some(0.2)), "{t:?}");

    // The run's own temperature wins, in every request.
    let task = three_line_task();
    let mut config =
        roundtable::engine::run::RunConfig::new(ID, "", roundtable::engine::run::ModelSpec::demo());
    roundtable::engine::coordinators::mael::setup::configure(&mut config, task, Mode::None);
    config.models[0].spec.sampling.temperature = Some(0.7);
    let go = |config: roundtable::engine::run::RunConfig| {
        let ctx = roundtable::engine::run::RunCtx::new(
            config,
            roundtable::engine::run::ModelRouter::single(demo()),
            Rc::new(FakeClock::new()),
        );
        let status = futures::executor::block_on(roundtable::engine::coordinators::execute(&ctx));
        assert_eq!(status, RunStatus::Finished);
        ctx.events()
    };
    let t = temperatures(&go(config.clone()));
    assert!(!t.is_empty() && t.iter().all(|t| *t == Some(0.7)), "{t:?}");

    // A run recorded before (options without a temperature) asks as it
    // did, so it replays and forks call for call.
    config.models[0].spec.sampling.temperature = None;
    if let Some(o) = config.options.as_object_mut() {
        o.remove("temperature");
    }
    let t = temperatures(&go(config));
    assert!(!t.is_empty() && t.iter().all(Option::is_none), "{t:?}");

    // The learning phase's runs say it in their files too.
    let base =
        roundtable::engine::run::RunConfig::new(ID, "", roundtable::engine::run::ModelSpec::demo());
    let jobs = roundtable::engine::coordinators::mael::learn::learning_jobs(
        &base,
        &tasks(Split::Train)[..2],
        Mode::Step,
        |t| MaelOptions::for_task(t.clone()),
    );
    assert!(jobs
        .iter()
        .all(|j| j.config.options["temperature"].as_f64() == Some(0.2f32 as f64)));
}
