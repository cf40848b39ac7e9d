//! Roundtable: multi-agent LLM systems in the browser.
//!
//! - [`engine`]: pure Rust (runs, events, models, views, coordinators).
//! - `platform`: browser services (fetch, storage, keys). wasm32 only.
//! - `ui`: Leptos components. wasm32 only, with the `app` feature (the app
//!   binary; see Cargo.toml).

pub mod engine;

#[cfg(target_arch = "wasm32")]
pub mod platform;
#[cfg(all(target_arch = "wasm32", feature = "app"))]
pub mod ui;
