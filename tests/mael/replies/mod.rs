//! Real models' replies: what each step reads from a reply that is not
//! the JSON it asked for, that every repaired or unreadable reply is
//! recorded once against its call, that an unreadable reply is never
//! taken as an answer (a critique is asked again, then not adequate; a
//! judgement defaults to solving alone; a rating is asked again, then not
//! measured and kept out of the pool), and the paper's temperature.
//!
//! Payloads are read as JSON values where the shape changed, so these
//! tests also run against older code (to see them fail there).
//!
//! One file per step read: `critique`, `judge`, `decompose`, `score`;
//! what stays out of the pool (`pool`), odd replies and the demo's clean
//! ones (`odd`), and the paper's temperature (`temperature`). The helpers
//! here build the demo model with one step's replies replaced, run it on a
//! built-in task, and read the repairs recorded for a step's calls.

mod critique;
mod decompose;
mod judge;
mod odd;
mod pool;
mod quality;
mod score;
mod temperature;

use crate::common::*;
use crate::repaired_log::repaired;
use crate::run_scan::answered;
use crate::step_counts::StepCounts;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::coordinators::mael::memory::Memory;
use roundtable::engine::domains::tasks::builtin::{tasks, Split};
use roundtable::engine::domains::tasks::Task;
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::reply::{Repair, RepairKind};
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::{ChatModel, ChatRequest, ChatResponse};
use roundtable::engine::run::{LoggedEvent, RunStatus};
use serde_json::Value;
use std::rc::Rc;

/// The demo model, except that `step`'s replies come from `reply(n)`
/// (n = how many `step` requests came before).
fn demo_but(step: &'static str, reply: impl Fn(usize) -> String + 'static) -> Rc<dyn ChatModel> {
    let demo = DemoModel::instant(Rc::new(FakeClock::new()), every_script);
    let counts = StepCounts::default();
    Rc::new(
        ScriptedModel::new("demo-but").otherwise(move |req: &ChatRequest| {
            if req.step.as_deref() == Some(step) {
                let n = counts.next(step);
                return ChatResponse {
                    text: reply(n),
                    ..ChatResponse::default()
                };
            }
            demo.answer(req)
        }),
    )
}

fn kinds(repairs: &[Repair]) -> Vec<RepairKind> {
    repairs.iter().map(|r| r.kind.clone()).collect()
}

/// Every answered call: (call, step tag, request, reply).
fn calls(events: &[LoggedEvent]) -> Vec<(u32, String, ChatRequest, String)> {
    answered(events)
        .into_iter()
        .filter_map(|a| {
            let request = a.request?.clone();
            Some((a.call, a.step().to_string(), request, a.reply().to_string()))
        })
        .collect()
}

/// The repairs recorded for each call of `step`, in call order (empty:
/// none recorded).
fn repairs_of(events: &[LoggedEvent], step: &str) -> Vec<Vec<RepairKind>> {
    let rep = repaired(events);
    calls(events)
        .iter()
        .filter(|c| c.1 == step)
        .map(|c| {
            rep.iter()
                .filter(|(call, _)| *call == c.0)
                .flat_map(|(_, r)| kinds(r))
                .collect()
        })
        .collect()
}

fn three_line_task() -> Task {
    tasks(Split::Train)
        .into_iter()
        .find(|t| t.prompt.matches("\n- ").count() >= 3)
        .expect("a built-in task of three lines or more")
}

/// Runs the three-line task in mode none, with no memory, on `model`;
/// `tweak` adjusts the options.
fn run_three_lines(
    model: Rc<dyn ChatModel>,
    tweak: impl FnOnce(&mut MaelOptions),
) -> (RunStatus, Vec<LoggedEvent>) {
    run_with(&three_line_task(), Mode::None, None, model, tweak)
}

/// As [`run_three_lines`], learning into a fresh pool: also the memory.
fn run_three_lines_learning(
    model: Rc<dyn ChatModel>,
    tweak: impl FnOnce(&mut MaelOptions),
) -> (RunStatus, Vec<LoggedEvent>, Rc<Memory>) {
    let memory = Rc::new(Memory::lexical("test"));
    let (status, events) = run_with(
        &three_line_task(),
        Mode::None,
        Some(memory.clone()),
        model,
        tweak,
    );
    (status, events, memory)
}

/// The evaluator's ratings of sub-solutions: their `score` as recorded
/// (a number, or null when not rated).
fn evaluator_scores(events: &[LoggedEvent]) -> Vec<Value> {
    notes::<Value>(events, STORE_RATING)
        .into_iter()
        .filter(|r| r["by"] == "evaluator")
        .map(|r| r["score"].clone())
        .collect()
}
