//! Cooperative cancellation shared by a run, its model calls and the UI.
//! Single-threaded (`Rc`): the browser and the native executor both poll
//! futures on one thread.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

type Callback = Box<dyn FnOnce()>;

#[derive(Default)]
struct Inner {
    cancelled: Cell<bool>,
    callbacks: RefCell<Vec<Callback>>,
    wakers: RefCell<Vec<Waker>>,
}

/// A cancellation flag with callbacks (e.g. `AbortController.abort`) and a
/// future that resolves on cancellation.
#[derive(Clone, Default)]
pub struct CancelToken(Rc<Inner>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.get()
    }

    /// Cancels: runs the registered callbacks once and wakes waiters.
    pub fn cancel(&self) {
        if self.0.cancelled.replace(true) {
            return;
        }
        let callbacks = std::mem::take(&mut *self.0.callbacks.borrow_mut());
        for cb in callbacks {
            cb();
        }
        for w in std::mem::take(&mut *self.0.wakers.borrow_mut()) {
            w.wake();
        }
    }

    /// Registers a callback run on cancellation (immediately if already cancelled).
    pub fn on_cancel(&self, f: impl FnOnce() + 'static) {
        if self.is_cancelled() {
            f();
        } else {
            self.0.callbacks.borrow_mut().push(Box::new(f));
        }
    }

    /// A token cancelled when this one is, and cancellable on its own.
    pub fn child(&self) -> CancelToken {
        let child = CancelToken::new();
        let c = child.clone();
        self.on_cancel(move || c.cancel());
        child
    }

    /// Resolves once cancelled.
    pub fn cancelled(&self) -> Cancelled {
        Cancelled(self.clone())
    }
}

pub struct Cancelled(CancelToken);

impl Future for Cancelled {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0.is_cancelled() {
            Poll::Ready(())
        } else {
            self.0 .0.wakers.borrow_mut().push(cx.waker().clone());
            Poll::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_runs_callbacks_once_and_propagates_to_children() {
        let t = CancelToken::new();
        let hits = Rc::new(Cell::new(0));
        let h = hits.clone();
        t.on_cancel(move || h.set(h.get() + 1));
        let child = t.child();
        assert!(!child.is_cancelled());
        t.cancel();
        t.cancel();
        assert_eq!(hits.get(), 1);
        assert!(child.is_cancelled());
        let h = hits.clone();
        t.on_cancel(move || h.set(h.get() + 10));
        assert_eq!(hits.get(), 11, "late callback runs immediately");
        futures::executor::block_on(t.cancelled());
    }

    #[test]
    fn child_cancel_does_not_cancel_parent() {
        let t = CancelToken::new();
        t.child().cancel();
        assert!(!t.is_cancelled());
    }
}
