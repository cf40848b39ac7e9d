//! ACT's view of the shown run, folded in its part of the `run_view` chunk
//! from the events up to the replay cursor (see `ui::fold`). Every ACT
//! panel reads this one fold.

use crate::engine::coordinators::act::view::ActView;
use crate::ui::fold::{self, Folded};
use crate::ui::state::AppState;
use leptos::prelude::*;
use std::cell::RefCell;

thread_local! {
    static VIEW: RefCell<Folded<ActView>> = RefCell::new(Folded::default());
}

/// Reads the ACT view at the replay cursor (tracks the events and the cursor).
pub fn read<R>(app: AppState, f: impl FnOnce(&ActView) -> R) -> R {
    fold::read(&VIEW, app, f)
}

/// Changes when anything the tabs show changes (not on every streamed
/// token): their HTML is rebuilt only then.
pub fn revision(v: &ActView) -> usize {
    v.agents
        .iter()
        .map(|a| {
            1 + a.tasks.len()
                + a.episodes.len()
                + a.knowledge.len()
                + a.retrievals.len()
                + usize::from(a.gone)
                + a.expertise.len()
                // A re-scoring changes importances in place.
                + 7919
                    * a.knowledge
                        .iter()
                        .map(|k| usize::from(k.importance))
                        .sum::<usize>()
        })
        .sum::<usize>()
        + v.meetings.iter().map(|m| 1 + m.lines.len()).sum::<usize>()
        + v.rounds
            .iter()
            .map(|r| 1 + usize::from(r.check.is_some()))
            .sum::<usize>()
        + usize::from(v.result.is_some())
        + usize::from(v.team_task.is_some())
        + usize::from(v.judge.is_some())
}

/// The references of the shown run's task (its options), for the output
/// tab's highlight; empty when the run has none.
pub fn references(app: AppState) -> Vec<String> {
    app.shown.with(|s| {
        s.as_ref()
            .and_then(|s| {
                serde_json::from_value::<crate::engine::coordinators::act::contract::ActOptions>(
                    s.config.options.clone(),
                )
                .ok()
            })
            .map(|o| {
                o.task
                    .parts
                    .into_iter()
                    .flat_map(|p| p.references)
                    .collect()
            })
            .unwrap_or_default()
    })
}
