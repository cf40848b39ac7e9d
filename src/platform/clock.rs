//! The browser clock: `performance.now()`, `Date.now()`, `setTimeout`.

use crate::engine::base::clock::Clock;
use futures::future::LocalBoxFuture;

#[derive(Default)]
pub struct BrowserClock;

impl Clock for BrowserClock {
    fn now_ms(&self) -> f64 {
        web_sys::window()
            .and_then(|w| w.performance())
            .map(|p| p.now())
            .unwrap_or_else(js_sys::Date::now)
    }
    fn epoch_ms(&self) -> f64 {
        js_sys::Date::now()
    }
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let ms = ms.min(u32::MAX as u64) as u32;
        Box::pin(gloo_timers::future::TimeoutFuture::new(ms))
    }
}
