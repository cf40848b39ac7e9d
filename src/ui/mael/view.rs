//! MAEL's view of the shown run, folded in its part of the `run_view`
//! chunk from the events up to the replay cursor (see `ui::fold`): the
//! team, the call tree, the retrievals, the experiences, the rewards.
//! Every MAEL panel reads this one fold.

use crate::engine::coordinators::mael::view::MaelView;
use crate::ui::fold::{self, Folded};
use crate::ui::state::AppState;
use std::cell::RefCell;

thread_local! {
    static VIEW: RefCell<Folded<MaelView>> = RefCell::new(Folded::default());
}

/// Reads the MAEL view at the replay cursor (tracks the events and the cursor).
pub fn read<R>(app: AppState, f: impl FnOnce(&MaelView) -> R) -> R {
    fold::read(&VIEW, app, f)
}

/// Changes whenever anything the call tree shows changes (not on every
/// streamed token): the tree's HTML is rebuilt only then.
pub fn tree_revision(v: &MaelView) -> usize {
    v.tasks
        .iter()
        .map(|t| {
            1 + usize::from(t.judgement.is_some())
                + usize::from(t.decomposition.is_some())
                + t.solutions.len()
                + t.critiques.len()
                + t.ratings.len()
                + t.rewards.len()
        })
        .sum::<usize>()
        + usize::from(v.result.is_some())
}
