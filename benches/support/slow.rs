//! A model behind a fixed latency per call (a real timer), for the
//! benchmarks that measure concurrency.

use futures::future::LocalBoxFuture;
use roundtable::engine::model::{ChatModel, ChatRequest, ChatResponse, DeltaSink, ModelError};
use roundtable::engine::run::clock::Clock;
use roundtable::engine::run::CancelToken;
use std::rc::Rc;

pub struct Slow {
    pub inner: Rc<dyn ChatModel>,
    pub clock: Rc<dyn Clock>,
    pub ms: u64,
}

impl ChatModel for Slow {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn complete<'a>(
        &'a self,
        req: &'a ChatRequest,
        sink: DeltaSink<'a>,
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<ChatResponse, ModelError>> {
        Box::pin(async move {
            self.clock.sleep(self.ms).await;
            self.inner.complete(req, sink, cancel).await
        })
    }
}
