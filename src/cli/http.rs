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

/// The CLI's GET for the web tools (ureq on a thread of its own, so the
/// run's other calls go on): the body as text, or why not.
pub struct UreqGet {
    agent: ureq::Agent,
}

impl Default for UreqGet {
    fn default() -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(std::time::Duration::from_secs(30)))
            .build()
            .into();
        UreqGet { agent }
    }
}

/// The most of a page read (bytes).
const PAGE_BYTES: u64 = 2 * 1024 * 1024;

impl roundtable::engine::domains::agentverse::web::WebGet for UreqGet {
    fn get(&self, url: &str) -> LocalBoxFuture<'_, Result<String, String>> {
        let (tx, rx) = oneshot::channel();
        let agent = self.agent.clone();
        let url = url.to_string();
        std::thread::spawn(move || {
            let got = (|| {
                let mut resp = agent
                    .get(&url)
                    .call()
                    .map_err(|e| format!("cannot get {url}: {e}"))?;
                let status = resp.status().as_u16();
                let mut body = Vec::new();
                resp.body_mut()
                    .as_reader()
                    .take(PAGE_BYTES)
                    .read_to_end(&mut body)
                    .map_err(|e| format!("cannot read {url}: {e}"))?;
                if !(200..300).contains(&status) {
                    return Err(format!("{url} answered HTTP {status}"));
                }
                Ok(String::from_utf8_lossy(&body).into_owned())
            })();
            let _ = tx.send(got);
        });
        Box::pin(async move {
            rx.await
                .unwrap_or_else(|_| Err("the request's thread ended".into()))
        })
    }
}
