//! A provider's embeddings over an [`HttpTransport`]: the OpenAI-compatible
//! `POST {base}/embeddings` (`{"model", "input": [...]}` →
//! `{"data": [{"index", "embedding"}]}`), which OpenAI, Ollama, LM Studio,
//! vLLM and llama.cpp serve. Texts go in batches; retryable errors are
//! retried with the chat calls' policy; the key rules are the chat's (the
//! key lives in the [`Endpoint`] only).

use super::http::{Endpoint, HttpRequest, HttpTransport};
use crate::engine::base::cancel::CancelToken;
use crate::engine::base::clock::Clock;
use crate::engine::model::embed::{normalize, Embedder, EmbedderId, Embedding};
use crate::engine::model::error::{parse_retry_after, ModelError};
use crate::engine::model::retry::{RetryPolicy, SplitMix};
use futures::StreamExt;
use serde::Deserialize;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// Texts per request.
pub const BATCH: usize = 64;

pub struct HttpEmbedder {
    /// `<provider>:<model>`: names the vectors' source (no URL, no key).
    label: String,
    pub endpoint: Endpoint,
    transport: Rc<dyn HttpTransport>,
    clock: Rc<dyn Clock>,
    retry: RetryPolicy,
    rng: RefCell<SplitMix>,
    /// Learned from the first answer ([`HttpEmbedder::probe`]).
    dims: Cell<usize>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

#[derive(Deserialize)]
struct Answer {
    data: Vec<Item>,
}

/// The vectors of an embeddings answer, in input order.
pub fn parse_answer(body: &str, expected: usize) -> Result<Vec<Vec<f32>>, ModelError> {
    let bad = |detail: String| ModelError::Malformed { detail };
    let answer: Answer = serde_json::from_str(body).map_err(|e| {
        bad(format!(
            "the embeddings answer is not the expected JSON ({e})"
        ))
    })?;
    if answer.data.len() != expected {
        return Err(bad(format!(
            "the embeddings answer has {} vectors for {expected} texts",
            answer.data.len()
        )));
    }
    let mut out: Vec<Option<Vec<f32>>> = vec![None; expected];
    for (i, item) in answer.data.into_iter().enumerate() {
        let at = item.index.unwrap_or(i);
        if at >= expected || out[at].is_some() {
            return Err(bad(format!(
                "the embeddings answer repeats or skips index {at}"
            )));
        }
        if item.embedding.is_empty() || item.embedding.iter().any(|x| !x.is_finite()) {
            return Err(bad(format!("vector {at} is empty or not finite")));
        }
        let mut v = item.embedding;
        normalize(&mut v);
        out[at] = Some(v);
    }
    Ok(out.into_iter().flatten().collect())
}

impl HttpEmbedder {
    /// `provider` is the provider's id (`openai`, `ollama`, …).
    pub fn new(
        provider: &str,
        endpoint: Endpoint,
        transport: Rc<dyn HttpTransport>,
        clock: Rc<dyn Clock>,
    ) -> Self {
        HttpEmbedder {
            label: format!("{provider}:{}", endpoint.model),
            endpoint,
            transport,
            clock,
            retry: RetryPolicy::default(),
            rng: RefCell::new(SplitMix::new(0xE3BE)),
            dims: Cell::new(0),
        }
    }

    pub fn url(&self) -> String {
        format!("{}/embeddings", self.endpoint.base_url)
    }

    /// Embeds a short text once to learn the vectors' length (a pool
    /// records it; vectors of another length are never compared).
    pub async fn probe(&self, cancel: &CancelToken) -> Result<EmbedderId, ModelError> {
        self.embed_batch(&["probe".to_string()], cancel).await?;
        Ok(self.id())
    }

    async fn post_once(
        &self,
        texts: &[String],
        cancel: &CancelToken,
    ) -> Result<String, ModelError> {
        let body = serde_json::json!({"model": self.endpoint.model, "input": texts});
        let req = HttpRequest {
            url: self.url(),
            headers: self.endpoint.headers(),
            body: body.to_string(),
        };
        let mut resp = self.transport.post(req, cancel.clone()).await?;
        let mut buf = Vec::new();
        while let Some(chunk) = resp.body.next().await {
            buf.extend_from_slice(&chunk?);
        }
        let text = String::from_utf8_lossy(&buf).into_owned();
        if !(200..300).contains(&resp.status) {
            let retry = resp.retry_after.as_deref().and_then(parse_retry_after);
            return Err(ModelError::from_status(resp.status, retry, &text));
        }
        Ok(text)
    }

    async fn embed_batch(
        &self,
        texts: &[String],
        cancel: &CancelToken,
    ) -> Result<Vec<Vec<f32>>, ModelError> {
        let mut attempt = 1;
        loop {
            let result = match self.post_once(texts, cancel).await {
                Ok(body) => parse_answer(&body, texts.len()),
                Err(e) => Err(e),
            };
            let error = match result {
                Ok(vs) => {
                    let d = vs.first().map_or(0, Vec::len);
                    if vs.iter().any(|v| v.len() != d) {
                        return Err(ModelError::Malformed {
                            detail: "the embeddings answer mixes vector lengths".into(),
                        });
                    }
                    if self.dims.get() == 0 {
                        self.dims.set(d);
                    } else if self.dims.get() != d {
                        return Err(ModelError::Malformed {
                            detail: format!(
                                "the model now returns {d}-number vectors, not {}",
                                self.dims.get()
                            ),
                        });
                    }
                    return Ok(vs);
                }
                Err(_) if cancel.is_cancelled() => return Err(ModelError::Cancelled),
                Err(e) => e,
            };
            let unit = self.rng.borrow_mut().unit();
            match self.retry.delay_ms(attempt, &error, unit) {
                Some(wait) => {
                    let sleep = self.clock.sleep(wait);
                    let cancelled = cancel.cancelled();
                    futures::pin_mut!(sleep);
                    futures::future::select(sleep, cancelled).await;
                    if cancel.is_cancelled() {
                        return Err(ModelError::Cancelled);
                    }
                    attempt += 1;
                }
                None => return Err(error),
            }
        }
    }
}

impl Embedder for HttpEmbedder {
    fn id(&self) -> EmbedderId {
        EmbedderId {
            id: self.label.clone(),
            dims: self.dims.get(),
        }
    }

    fn embed<'a>(&'a self, texts: &'a [String], cancel: &'a CancelToken) -> Embedding<'a> {
        Box::pin(async move {
            let mut out = Vec::with_capacity(texts.len());
            for batch in texts.chunks(BATCH) {
                out.extend(self.embed_batch(batch, cancel).await?);
            }
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_in_index_order_and_checked() {
        let body = r#"{"data": [{"index": 1, "embedding": [0, 2]}, {"index": 0, "embedding": [3, 4]}], "usage": {}}"#;
        let vs = parse_answer(body, 2).expect("vectors");
        assert_eq!(vs[0], vec![0.6, 0.8]);
        assert_eq!(vs[1], vec![0.0, 1.0]);
        assert!(parse_answer(body, 3).is_err());
        assert!(parse_answer(r#"{"data": [{"index": 0, "embedding": []}]}"#, 1).is_err());
        assert!(parse_answer(
            r#"{"data": [{"index": 0, "embedding": [1]}, {"index": 0, "embedding": [1]}]}"#,
            2
        )
        .is_err());
        assert!(parse_answer("not json", 1).is_err());
    }
}
