//! A model behind a fixed latency per call (a real timer), for the
//! benchmarks that measure concurrency.

use roundtable::engine::base::clock::Clock;
use roundtable::engine::model::ChatModel;
use roundtable::engine::model::{Call, Completion};
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
    fn complete<'a>(&'a self, call: Call<'a>) -> Completion<'a> {
        let Call { req, sink, cancel } = call;
        Box::pin(async move {
            self.clock.sleep(self.ms).await;
            self.inner.complete(Call::new(req, sink, cancel)).await
        })
    }
}
