//! Chat models: the provider-neutral trait, its types and errors, the wire
//! formats of real providers, the offline demo model and the replay model.

pub mod demo;
pub mod embed;
pub mod error;
pub mod factory;
pub mod fit;
pub mod local;
pub mod pricing;
pub mod providers;
pub mod reply;
pub mod retry;
pub mod scripted;
pub mod shape;
pub mod spec;
pub mod suggested;
pub mod text_tools;
pub mod types;
/// The messages between the page and the in-page model's worker, and the
/// sampler settings both sides read: one file, the worker crate's
/// `protocol.rs` (serde only), compiled here for the browser build;
/// natively the worker crate is a dependency (the CLI's local model).
#[cfg(target_arch = "wasm32")]
#[path = "../../../crates/llm-worker/src/protocol.rs"]
pub mod worker_protocol;
#[cfg(not(target_arch = "wasm32"))]
pub use llm_worker::protocol as worker_protocol;

pub use error::ModelError;
pub use types::*;

use crate::engine::base::cancel::CancelToken;
use futures::future::LocalBoxFuture;

/// Where a model's text deltas go while it streams.
pub type DeltaSink<'a> = &'a mut dyn FnMut(StreamDelta);

/// One call's inputs: the request, where its deltas go, and the token that
/// stops it.
pub struct Call<'a> {
    pub req: &'a ChatRequest,
    pub sink: DeltaSink<'a>,
    pub cancel: &'a CancelToken,
}

impl<'a> Call<'a> {
    pub fn new(req: &'a ChatRequest, sink: DeltaSink<'a>, cancel: &'a CancelToken) -> Call<'a> {
        Call { req, sink, cancel }
    }
}

/// What a call gives back, when it has answered.
pub type Completion<'a> = LocalBoxFuture<'a, Result<ChatResponse, ModelError>>;

/// A chat model. One call = one request; retries and events are the
/// engine's job (`RunCtx::chat`), not the model's.
pub trait ChatModel {
    /// The model name recorded in events and used for prices.
    fn name(&self) -> String;
    /// Whether the model reports real token usage (false = estimates).
    fn reports_usage(&self) -> bool {
        true
    }
    fn complete<'a>(&'a self, call: Call<'a>) -> Completion<'a>;
}
