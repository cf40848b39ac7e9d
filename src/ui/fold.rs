//! Views folded inside the part that shows them (a coordinator's tabs, the
//! inspector), not in the core module: the app folds only the generic
//! `RunView` as events arrive. Such a view ([`Folded`], kept in a
//! thread-local of its part) is brought up to the shown events at the
//! replay cursor when it is read: incrementally while a run grows, from the
//! start when another run is shown or the cursor goes back.

use super::state::AppState;
use crate::engine::views::Fold;
pub use crate::engine::views::Folded;
use leptos::prelude::*;
use std::cell::RefCell;
use std::thread::LocalKey;

/// Reads the view kept in `slot`, folded up to the replay cursor of the
/// shown run. Tracks the events and the cursor: a memo that reads it runs
/// again when either changes.
pub fn read<V: Fold + 'static, R>(
    slot: &'static LocalKey<RefCell<Folded<V>>>,
    app: AppState,
    f: impl FnOnce(&V) -> R,
) -> R {
    let position = app.position();
    let serial = app.run_serial();
    app.events.with(|events| {
        slot.with(|s| {
            let mut s = s.borrow_mut();
            f(s.sync(serial, &events[..position.min(events.len())]))
        })
    })
}
