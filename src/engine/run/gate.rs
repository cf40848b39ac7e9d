//! The gate every LLM call waits at: run freely, pause, or let one call
//! through at a time (step). Also a small semaphore for the concurrency limit.

use crate::engine::base::cancel::CancelToken;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::{poll_fn, Future};
use std::rc::Rc;
use std::task::{Poll, Waker};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateMode {
    Run,
    Paused,
}

type Listener = Rc<dyn Fn(GateMode, &[String])>;

#[derive(Default)]
struct GateInner {
    paused: Cell<bool>,
    /// Calls allowed through while paused (Step adds one).
    steps: Cell<u32>,
    /// Agents whose calls are held, in arrival order.
    waiting: RefCell<Vec<String>>,
    wakers: RefCell<Vec<Waker>>,
    listeners: RefCell<Vec<Listener>>,
}

/// Shared by the run and the UI (cheap to clone).
#[derive(Clone, Default)]
pub struct Gate(Rc<GateInner>);

impl Gate {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn mode(&self) -> GateMode {
        if self.0.paused.get() {
            GateMode::Paused
        } else {
            GateMode::Run
        }
    }

    /// Calls currently held at the gate.
    pub fn waiting(&self) -> u32 {
        self.0.waiting.borrow().len() as u32
    }

    /// The agents whose calls are held, in arrival order.
    pub fn waiting_agents(&self) -> Vec<String> {
        self.0.waiting.borrow().clone()
    }

    pub fn pause(&self) {
        self.0.paused.set(true);
        self.0.steps.set(0);
        self.changed();
    }

    pub fn resume(&self) {
        self.0.paused.set(false);
        self.wake_all();
        self.changed();
    }

    /// While paused, lets exactly one call through (the one waiting, or the next).
    pub fn step(&self) {
        if self.0.paused.get() {
            self.0.steps.set(self.0.steps.get() + 1);
            self.wake_all();
        }
        self.changed();
    }

    /// Called with (mode, waiting agents) whenever either changes.
    pub fn on_change(&self, f: impl Fn(GateMode, &[String]) + 'static) {
        self.0.listeners.borrow_mut().push(Rc::new(f));
    }

    /// Waits until `agent`'s call may proceed; `false` if the run was cancelled.
    pub async fn pass(&self, cancel: &CancelToken, agent: &str) -> bool {
        if !self.0.paused.get() {
            return !cancel.is_cancelled();
        }
        let wake_on_cancel = self.clone();
        cancel.on_cancel(move || wake_on_cancel.wake_all());
        self.0.waiting.borrow_mut().push(agent.to_string());
        self.changed();
        let inner = self.0.clone();
        let passed = poll_fn(|cx| {
            if cancel.is_cancelled() {
                return Poll::Ready(false);
            }
            if !inner.paused.get() {
                return Poll::Ready(true);
            }
            let steps = inner.steps.get();
            if steps > 0 {
                inner.steps.set(steps - 1);
                return Poll::Ready(true);
            }
            inner.wakers.borrow_mut().push(cx.waker().clone());
            Poll::Pending
        })
        .await;
        {
            let mut w = self.0.waiting.borrow_mut();
            if let Some(p) = w.iter().position(|a| a == agent) {
                w.remove(p);
            }
        }
        self.changed();
        passed
    }

    fn wake_all(&self) {
        let wakers = std::mem::take(&mut *self.0.wakers.borrow_mut());
        for w in wakers {
            w.wake();
        }
    }

    fn changed(&self) {
        let listeners: Vec<_> = self.0.listeners.borrow().clone();
        let waiting = self.waiting_agents();
        for l in listeners {
            l(self.mode(), &waiting);
        }
    }
}

/// A single-threaded async semaphore bounding concurrent LLM calls.
pub struct Semaphore {
    permits: Cell<usize>,
    waiters: RefCell<VecDeque<Waker>>,
}

pub struct Permit<'a>(&'a Semaphore);

impl Semaphore {
    pub fn new(permits: usize) -> Self {
        Semaphore {
            permits: Cell::new(permits.max(1)),
            waiters: RefCell::new(VecDeque::new()),
        }
    }

    pub fn available(&self) -> usize {
        self.permits.get()
    }

    pub fn acquire(&self) -> impl Future<Output = Permit<'_>> + '_ {
        poll_fn(move |cx| {
            let n = self.permits.get();
            if n > 0 {
                self.permits.set(n - 1);
                Poll::Ready(Permit(self))
            } else {
                self.waiters.borrow_mut().push_back(cx.waker().clone());
                Poll::Pending
            }
        })
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        self.0.permits.set(self.0.permits.get() + 1);
        let next = self.0.waiters.borrow_mut().pop_front();
        if let Some(w) = next {
            w.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::task::noop_waker;
    use std::pin::pin;
    use std::task::Context;

    fn poll_once<F: Future>(f: std::pin::Pin<&mut F>) -> Poll<F::Output> {
        let w = noop_waker();
        f.poll(&mut Context::from_waker(&w))
    }

    /// A paused gate and a token not cancelled.
    fn paused() -> (Gate, CancelToken) {
        let g = Gate::new();
        g.pause();
        (g, CancelToken::new())
    }

    #[test]
    fn open_gate_passes_at_once() {
        let g = Gate::new();
        let c = CancelToken::new();
        assert!(futures::executor::block_on(g.pass(&c, "a")));
    }

    #[test]
    fn paused_gate_holds_until_step_then_holds_again() {
        let (g, c) = paused();
        let mut a = pin!(g.pass(&c, "a"));
        let mut b = pin!(g.pass(&c, "a"));
        assert!(poll_once(a.as_mut()).is_pending());
        assert!(poll_once(b.as_mut()).is_pending());
        assert_eq!(g.waiting(), 2);
        g.step();
        assert_eq!(poll_once(a.as_mut()), Poll::Ready(true));
        assert!(poll_once(b.as_mut()).is_pending(), "one step = one call");
        g.resume();
        assert_eq!(poll_once(b.as_mut()), Poll::Ready(true));
        assert_eq!(g.waiting(), 0);
    }

    #[test]
    fn cancel_releases_waiters_with_false() {
        let (g, c) = paused();
        let mut a = pin!(g.pass(&c, "a"));
        assert!(poll_once(a.as_mut()).is_pending());
        c.cancel();
        assert_eq!(poll_once(a.as_mut()), Poll::Ready(false));
    }

    #[test]
    fn semaphore_bounds_and_releases() {
        let s = Semaphore::new(2);
        let p1 = futures::executor::block_on(s.acquire());
        let _p2 = futures::executor::block_on(s.acquire());
        let mut third = pin!(s.acquire());
        assert!(poll_once(third.as_mut()).is_pending());
        drop(p1);
        let p3 = match poll_once(third.as_mut()) {
            Poll::Ready(p) => p,
            Poll::Pending => panic!("a released permit must wake the waiter"),
        };
        assert_eq!(s.available(), 0);
        drop(p3);
        assert_eq!(s.available(), 1);
    }
}
