//! Performance marks (`performance.mark`), read by the benchmarks to show
//! where the time to open the app or a shared run goes.

pub fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}
