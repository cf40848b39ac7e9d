//! Roundtable's in-browser model: GGUF files run in a Web Worker of their
//! own. Four layers, each importing only those below it (the table in
//! ARCHITECTURE.md, checked by the app's `tests/layers.rs`):
//!
//! - `protocol`: the messages between the page and the worker, and the
//!   values they carry (the app compiles this same file);
//! - `gguf`: reading a model file: its header (`inspect`), tokenizer, chat
//!   template and digest;
//! - `model`: computing: the transformer, its attention, the quantised
//!   kernels, the maths functions and the split over several workers;
//! - `generate`: writing an answer one step at a time: the engine, its
//!   sampler and loop check;
//! - `host` (wasm32 only): the worker itself: its message loop, the model
//!   store, the helper workers.
//!
//! The generated test models (`tiny`) are behind the `fixtures` feature.

pub mod generate;
pub mod gguf;
pub mod model;
pub mod protocol;

#[cfg(feature = "fixtures")]
pub mod tiny;

#[cfg(target_arch = "wasm32")]
pub mod host;
