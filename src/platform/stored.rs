//! One seam for what a run fills and keeps in the browser: a MAEL pool
//! (`experience_store`), an ACT+ knowledge bank (`act_store`). A
//! [`Stored`] holds what the runs read and change, the claim that keeps
//! other writers out for as long as it lives (another tab's Web Lock, or
//! this tab's claim), and what its last save wrote: [`Stored::save_new`]
//! writes only what changed since, and moves that mark only once the save
//! has committed (a failed save is written again by the next one).

use super::idb::StoreError;
use futures::future::LocalBoxFuture;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// A kind of stored resource: how to tell what is saved, and how to save
/// what changed.
pub trait Keep: 'static {
    /// What the runs read and change (a pool's memory, a bank).
    type Live: 'static;
    /// What a save has written (a pool's entry count; nothing for a bank,
    /// which is written whole).
    type Mark: Copy + 'static;
    /// What a save of `live` now writes up to.
    fn mark(live: &Self::Live) -> Self::Mark;
    /// Builds the write of what changed in `live` since `saved` while it
    /// borrows `live` (never across an await), then writes it as `name`.
    fn write(
        name: &str,
        live: &Self::Live,
        saved: Self::Mark,
    ) -> LocalBoxFuture<'static, Result<(), StoreError>>;
}

/// A stored resource opened for runs.
pub struct Stored<K: Keep> {
    name: String,
    live: Rc<K::Live>,
    saved: Cell<K::Mark>,
    claim: RefCell<Option<Box<dyn Any>>>,
}

impl<K: Keep> Stored<K> {
    /// `live` as loaded (so nothing in it is new), holding `claim` (a lock
    /// guard, or nothing) until [`Stored::release`] or the handle's end.
    pub fn opened(name: &str, live: K::Live, claim: Option<Box<dyn Any>>) -> Rc<Self> {
        let saved = Cell::new(K::mark(&live));
        Rc::new(Stored {
            name: name.to_string(),
            live: Rc::new(live),
            saved,
            claim: RefCell::new(claim),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the runs are given (their context's resource).
    pub fn live(&self) -> Rc<K::Live> {
        self.live.clone()
    }

    /// Writes what changed since the last save.
    pub async fn save_new(&self) -> Result<(), StoreError> {
        let now = K::mark(&self.live);
        K::write(&self.name, &self.live, self.saved.get()).await?;
        self.saved.set(now);
        Ok(())
    }

    /// Lets other writers in (the claim goes).
    pub fn release(&self) {
        self.claim.borrow_mut().take();
    }
}
