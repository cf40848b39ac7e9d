//! Helpers for the MAEL tests: a run of one task in a mode, on a memory,
//! with the demo model (or another), and reading its log.
#![allow(dead_code)]

use futures::executor::block_on;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::coordinators::mael::memory::Memory;
use roundtable::engine::coordinators::mael::setup::configure;
use roundtable::engine::coordinators::mael::topology::Team;
use roundtable::engine::coordinators::{self};
use roundtable::engine::domains::tasks::Task;
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::ChatModel;
use roundtable::engine::run::{
    LoggedEvent, ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent, RunStatus,
};
use serde::de::DeserializeOwned;
use std::rc::Rc;

pub fn demo() -> Rc<dyn ChatModel> {
    Rc::new(DemoModel::instant(Rc::new(FakeClock::new()), every_script))
}

/// Runs `task` in `mode` on `memory`; `tweak` adjusts the options.
pub fn run_with(
    task: &Task,
    mode: Mode,
    memory: Option<Rc<Memory>>,
    model: Rc<dyn ChatModel>,
    tweak: impl FnOnce(&mut MaelOptions),
) -> (RunStatus, Vec<LoggedEvent>) {
    run_attached(task, mode, model, tweak, |ctx| {
        if let Some(m) = memory {
            ctx.insert_resource(m);
        }
    })
}

/// As [`run_with`], `attach` giving the run its resources.
pub fn run_attached(
    task: &Task,
    mode: Mode,
    model: Rc<dyn ChatModel>,
    tweak: impl FnOnce(&mut MaelOptions),
    attach: impl FnOnce(&RunCtx),
) -> (RunStatus, Vec<LoggedEvent>) {
    let mut config = RunConfig::new(ID, "", ModelSpec::demo());
    configure(&mut config, task.clone(), mode);
    config.run_id = format!("run-{}-{}", mode.id(), task.id);
    let mut options: MaelOptions = serde_json::from_value(config.options.clone()).expect("options");
    tweak(&mut options);
    config.options = serde_json::to_value(&options).expect("json");
    let ctx = RunCtx::new(
        config,
        ModelRouter::single(model),
        Rc::new(FakeClock::new()),
    );
    attach(&ctx);
    let status = block_on(coordinators::execute(&ctx));
    (status, ctx.events())
}

pub fn run(task: &Task, mode: Mode, memory: Option<Rc<Memory>>) -> (RunStatus, Vec<LoggedEvent>) {
    run_with(task, mode, memory, demo(), |_| {})
}

/// The payloads of `store`, in order.
pub fn notes<T: DeserializeOwned>(events: &[LoggedEvent], store: &str) -> Vec<T> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::NoteWritten {
                store: s, payload, ..
            } if s == store => serde_json::from_value(payload.clone()).ok(),
            _ => None,
        })
        .collect()
}

pub fn result(events: &[LoggedEvent]) -> ResultRecord {
    notes::<ResultRecord>(events, STORE_RESULT)
        .pop()
        .unwrap_or_else(|| panic!("no result: {:?}", events.last()))
}

/// (agent, step tag) of every LLM request, in order.
pub fn requests(events: &[LoggedEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::LlmRequest { agent, request, .. } => {
                Some((agent.clone(), request.step.clone().unwrap_or_default()))
            }
            _ => None,
        })
        .collect()
}

pub fn team(edges: &[(usize, usize)], n: usize) -> Team {
    let mut t = Team::preset(
        roundtable::engine::coordinators::mael::topology::Preset::Chain,
        n,
    );
    t.edges = edges.to_vec();
    t
}
