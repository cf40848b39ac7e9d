//! Performance marks (`performance.mark`), read by the benchmarks to show
//! where the time to open the app or a shared run goes.

pub fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// Writes the time since navigation start (ms) into `<body attr=…>`, where
/// tests and benchmarks read it.
pub fn stamp_body(attr: &str) {
    let window = web_sys::window();
    let now = window
        .as_ref()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0);
    if let Some(body) = window.and_then(|w| w.document()).and_then(|d| d.body()) {
        let _ = body.set_attribute(attr, &format!("{now:.1}"));
    }
}
