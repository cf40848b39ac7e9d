//! Where a comparison stands: pinning it at one run's event (for the
//! lesson player, the lesson editor and a live class), and whether the
//! lesson compares several runs. Below the pages that use it.

use crate::engine::run::{LoggedEvent, RunDoc};
use crate::engine::views::compare;
use crate::ui::state::AppState;
use leptos::prelude::*;

/// Whether the lesson has several runs (the editor is on the Compare page).
pub(super) fn is_multi(app: AppState) -> bool {
    app.lesson
        .with(|l| l.as_ref().is_some_and(|l| l.bundle.runs.len() > 1))
}

/// Each run's events.
pub(super) fn events_of(runs: &[RunDoc]) -> Vec<&[LoggedEvent]> {
    runs.iter().map(|r| &r.events[..]).collect()
}

/// For the lesson player: put the comparison at run `run`'s event `at`,
/// the other runs at the same point of the same phase.
pub fn pin(app: AppState, run: usize, at: usize) {
    let pos = app.compare.with_untracked(|runs| {
        let align = compare::align(&events_of(runs));
        let Some(spans) = align.spans.get(run) else {
            return runs.iter().map(|r| r.events.len()).collect();
        };
        let found = spans.iter().enumerate().find_map(|(p, s)| {
            let s = s.as_ref()?;
            (at >= s.start && at < s.end.max(s.start + 1)).then(|| {
                let f = (at - s.start) as f64 / (s.end - s.start).max(1) as f64;
                (p, f)
            })
        });
        let mut pos = match found {
            Some((p, f)) => align.cursor(p, f),
            None => runs.iter().map(|r| r.events.len()).collect(),
        };
        if let Some(x) = pos.get_mut(run) {
            *x = at;
        }
        pos
    });
    app.compare_pos.set(pos);
}
