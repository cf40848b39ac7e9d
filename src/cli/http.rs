//! The native HTTP transport (ureq on a worker thread per request, the body
//! streamed back through a channel as it arrives).

use futures::channel::{mpsc, oneshot};
use futures::future::LocalBoxFuture;
use futures::StreamExt;
use roundtable::engine::model::providers::http::{HttpRequest, HttpResponse, HttpTransport};
use roundtable::engine::model::ModelError;
use roundtable::engine::run::CancelToken;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub struct UreqTransport {
    agent: ureq::Agent,
}

impl Default for UreqTransport {
    fn default() -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        UreqTransport { agent }
    }
}

struct Head {
    status: u16,
    content_type: String,
    retry_after: Option<String>,
}

fn network(e: impl std::fmt::Display) -> ModelError {
    ModelError::Network {
        detail: e.to_string(),
        hint: None,
    }
}

impl HttpTransport for UreqTransport {
    fn post(
        &self,
        req: HttpRequest,
        cancel: CancelToken,
    ) -> LocalBoxFuture<'static, Result<HttpResponse, ModelError>> {
        let agent = self.agent.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        cancel.on_cancel(move || s.store(true, Ordering::SeqCst));
        let (head_tx, head_rx) = oneshot::channel::<Result<Head, ModelError>>();
        let (body_tx, body_rx) = mpsc::unbounded::<Result<Vec<u8>, ModelError>>();
        std::thread::spawn(move || {
            let mut builder = agent.post(&req.url);
            for (k, v) in &req.headers {
                builder = builder.header(k, v);
            }
            let resp = match builder.send(req.body.as_str()) {
                Ok(r) => r,
                Err(e) => {
                    let _ = head_tx.send(Err(network(e)));
                    return;
                }
            };
            let header = |name: &str| {
                resp.headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            };
            let head = Head {
                status: resp.status().as_u16(),
                content_type: header("content-type").unwrap_or_default(),
                retry_after: header("retry-after"),
            };
            if head_tx.send(Ok(head)).is_err() {
                return;
            }
            let mut reader = resp.into_body().into_reader();
            let mut buf = vec![0u8; 8192];
            loop {
                if stop.load(Ordering::SeqCst) {
                    let _ = body_tx.unbounded_send(Err(ModelError::Cancelled));
                    return;
                }
                match reader.read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => {
                        if body_tx.unbounded_send(Ok(buf[..n].to_vec())).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = body_tx.unbounded_send(Err(network(e)));
                        return;
                    }
                }
            }
        });
        Box::pin(async move {
            let head = match head_rx.await {
                Ok(h) => h?,
                Err(_) => return Err(network("the request thread stopped")),
            };
            if cancel.is_cancelled() {
                return Err(ModelError::Cancelled);
            }
            Ok(HttpResponse {
                status: head.status,
                content_type: head.content_type,
                retry_after: head.retry_after,
                body: body_rx.boxed_local(),
            })
        })
    }
}
