//! Chat models: the provider-neutral trait, its types and errors, the wire
//! formats of real providers, the offline demo model and the replay model.

pub mod demo;
pub mod embed;
pub mod error;
pub mod factory;
pub mod fork;
pub mod pricing;
pub mod providers;
pub mod replay;
pub mod reply;
pub mod retry;
pub mod scripted;
pub mod text_tools;
pub mod types;

pub use error::ModelError;
pub use types::*;

use crate::engine::run::cancel::CancelToken;
use futures::future::LocalBoxFuture;

/// Where a model's text deltas go while it streams.
pub type DeltaSink<'a> = &'a mut dyn FnMut(StreamDelta);

/// A chat model. One call = one request; retries and events are the
/// engine's job ([`crate::engine::run::ctx::RunCtx::chat`]), not the model's.
pub trait ChatModel {
    /// The model name recorded in events and used for prices.
    fn name(&self) -> String;
    /// Whether the model reports real token usage (false = estimates).
    fn reports_usage(&self) -> bool {
        true
    }
    fn complete<'a>(
        &'a self,
        req: &'a ChatRequest,
        sink: DeltaSink<'a>,
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<ChatResponse, ModelError>>;
}
