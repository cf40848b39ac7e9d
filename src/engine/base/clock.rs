//! Time for the engine: the browser and the native CLI supply real clocks;
//! tests use [`FakeClock`], which records sleeps and returns at once.

use futures::future::LocalBoxFuture;
use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

pub trait Clock {
    /// Milliseconds since an arbitrary origin (monotonic).
    fn now_ms(&self) -> f64;
    /// Wall-clock milliseconds since the Unix epoch (for run dates).
    fn epoch_ms(&self) -> f64;
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()>;
}

/// Races `fut` against a sleep; `None` when the time ran out first.
pub async fn timeout<T>(clock: &dyn Clock, ms: u64, fut: impl Future<Output = T>) -> Option<T> {
    let sleep = clock.sleep(ms);
    futures::pin_mut!(fut);
    match futures::future::select(fut, sleep).await {
        futures::future::Either::Left((v, _)) => Some(v),
        futures::future::Either::Right(_) => None,
    }
}

/// A clock for tests: `sleep` advances virtual time and records the request.
#[derive(Clone, Default)]
pub struct FakeClock {
    state: Rc<RefCell<(f64, Vec<u64>)>>,
}

impl FakeClock {
    pub fn new() -> Self {
        Self::default()
    }
    /// Every sleep asked for so far, in order.
    pub fn sleeps(&self) -> Vec<u64> {
        self.state.borrow().1.clone()
    }
}

impl Clock for FakeClock {
    fn now_ms(&self) -> f64 {
        self.state.borrow().0
    }
    fn epoch_ms(&self) -> f64 {
        1_700_000_000_000.0 + self.now_ms()
    }
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let mut s = self.state.borrow_mut();
        s.0 += ms as f64;
        s.1.push(ms);
        Box::pin(async {})
    }
}

/// The native clock: `Instant` plus a timer thread (futures-timer).
#[cfg(not(target_arch = "wasm32"))]
pub struct SystemClock {
    origin: std::time::Instant,
}

#[cfg(not(target_arch = "wasm32"))]
impl Default for SystemClock {
    fn default() -> Self {
        SystemClock {
            origin: std::time::Instant::now(),
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Clock for SystemClock {
    fn now_ms(&self) -> f64 {
        self.origin.elapsed().as_secs_f64() * 1000.0
    }
    fn epoch_ms(&self) -> f64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0)
    }
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        if ms == 0 {
            return Box::pin(async {});
        }
        Box::pin(futures_timer::Delay::new(std::time::Duration::from_millis(
            ms,
        )))
    }
}
