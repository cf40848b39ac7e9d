//! Roundtable: multi-agent LLM systems in the browser.
//!
//! - [`engine`]: pure Rust (runs, events, models, views, coordinators).
//! - `platform`: browser services (fetch, storage, keys). wasm32 only.
//! - `ui`: Leptos components. wasm32 only.

pub mod engine;

#[cfg(target_arch = "wasm32")]
pub mod platform;
#[cfg(target_arch = "wasm32")]
pub mod ui;
