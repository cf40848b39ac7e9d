//! The travel run's own views, folded in its part of the `run_view` chunk from the
//! shown run's events up to the replay cursor (see `ui::fold`): the
//! notebook, reflections, plans, evaluation and the hand-offs the notebook
//! tab lists. Every travel panel reads this one fold.

use crate::engine::coordinators::travel::view::TravelView;
use crate::engine::views::inspector::Handoffs;
use crate::ui::fold::{self, Folded};
use crate::ui::state::AppState;
use std::cell::RefCell;

thread_local! {
    static VIEW: RefCell<Folded<(TravelView, Handoffs)>> = RefCell::new(Folded::default());
}

/// Reads the travel view at the replay cursor (tracks the events and the cursor).
pub fn read<R>(app: AppState, f: impl FnOnce(&TravelView) -> R) -> R {
    fold::read(&VIEW, app, |(t, _)| f(t))
}

/// Reads the hand-offs at the replay cursor.
pub fn read_handoffs<R>(app: AppState, f: impl FnOnce(&Handoffs) -> R) -> R {
    fold::read(&VIEW, app, |(_, h)| f(h))
}
