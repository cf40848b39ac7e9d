//! Replies as real models write them: every reply ACT reads as JSON goes
//! through the lenient reader, and every reply that needed a repair (or
//! could not be read) is recorded once, as a `reply_repaired` event of
//! its call. The demo team writes exactly what is asked: none. The
//! regression tests each pin one repair (another JSON shape, a preamble
//! taken as a task, a follow-up with neither field, one uncapped keyword).
//!
//! The demo team's runs are in `demo`; the regressions in `shapes`
//! (another JSON shape, a follow-up with neither field), `explored` (the
//! task an exploration reply gives) and `caps` (a 100 KB key, keywords
//! without commas); hostile replies at every step in `hostile`. The
//! helpers here run the scripted team with one step's replies replaced
//! and read the repairs recorded for a step's calls.

mod caps;
mod demo;
mod explored;
mod hostile;
mod shapes;

use super::common::*;
use super::repaired_log::repaired;
use super::run_scan::answered;
use roundtable::engine::coordinators::act::contract::Variant;
use roundtable::engine::model::reply::Repair;
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::ChatRequest;
use roundtable::engine::run::LoggedEvent;
use std::collections::HashMap;

/// Each call's step and reply text.
fn calls(events: &[LoggedEvent]) -> HashMap<u32, (String, String)> {
    answered(events)
        .into_iter()
        .map(|a| (a.call, (a.step().to_string(), a.reply().to_string())))
        .collect()
}

/// The repairs recorded for the calls of `step` in a scripted run.
fn repairs_of(r: &Run, step: &str) -> Vec<Repair> {
    let calls = calls(&r.events);
    repaired(&r.events)
        .into_iter()
        .filter(|(c, _)| calls.get(c).is_some_and(|(s, _)| s == step))
        .flat_map(|(_, r)| r)
        .collect()
}

/// How many `reply_repaired` events of a scripted run name a call of
/// `step`.
fn repaired_replies(r: &Run, step: &str) -> usize {
    repaired(&r.events)
        .iter()
        .filter(|(c, _)| calls(&r.events)[c].0 == step)
        .count()
}

/// The scripted team, except that `step`'s requests are answered by
/// `reply`.
fn answering(
    step: &'static str,
    reply: impl Fn(&ChatRequest) -> String + 'static,
) -> ScriptedModel {
    model(move |req| (req.step.as_deref() == Some(step)).then(|| reply(req)))
}

/// ACT on the four-part task by the scripted team, except that `step`'s
/// requests are answered by `reply`.
fn run_answering(step: &'static str, reply: impl Fn(&ChatRequest) -> String + 'static) -> Run {
    run(Variant::Act, answering(step, reply))
}
