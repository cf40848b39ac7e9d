//! A chat model that talks to a real provider over an [`HttpTransport`].

use super::sse::SseParser;
use super::{anthropic, openai};
use crate::engine::base::cancel::CancelToken;
use crate::engine::base::clock::{timeout, Clock};
use crate::engine::model::error::{parse_retry_after, ModelError};
use crate::engine::model::shape::StructuredMode;
use crate::engine::model::types::{ChatRequest, ChatResponse};
use crate::engine::model::{Call, Completion};
use crate::engine::model::{ChatModel, DeltaSink};
use futures::future::LocalBoxFuture;
use futures::stream::LocalBoxStream;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use std::rc::Rc;

pub struct HttpRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

pub struct HttpResponse {
    pub status: u16,
    pub content_type: String,
    pub retry_after: Option<String>,
    /// The body as it arrives. Errors are `Network`/`Cancelled`/`Malformed`.
    pub body: LocalBoxStream<'static, Result<Vec<u8>, ModelError>>,
}

/// Sends a POST and streams the answer back. Implementations must abort the
/// request when `cancel` fires and then yield `ModelError::Cancelled`.
pub trait HttpTransport {
    fn post(
        &self,
        req: HttpRequest,
        cancel: CancelToken,
    ) -> LocalBoxFuture<'static, Result<HttpResponse, ModelError>>;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WireFormat {
    OpenaiCompatible,
    Anthropic,
}

/// Everything needed to call one model of one provider. The key is held
/// here only; it is never part of a `RunConfig` or an event.
#[derive(Clone)]
pub struct Endpoint {
    pub format: WireFormat,
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    /// Send `stream_options.include_usage` (OpenAI-compatible only).
    pub stream_usage: bool,
    /// Shown with network errors (e.g. how to allow CORS in Ollama).
    pub cors_hint: Option<String>,
    /// How a step's reply shape is first asked for (the preset's).
    pub structured: StructuredMode,
    pub first_byte_timeout_ms: u64,
    pub idle_timeout_ms: u64,
}

impl Endpoint {
    pub fn new(format: WireFormat, base_url: &str, model: &str, api_key: Option<String>) -> Self {
        Endpoint {
            format,
            base_url: base_url.trim().trim_end_matches('/').to_string(),
            model: model.trim().to_string(),
            api_key: api_key.filter(|k| !k.trim().is_empty()),
            stream_usage: true,
            cors_hint: None,
            first_byte_timeout_ms: 120_000,
            idle_timeout_ms: 60_000,
            structured: StructuredMode::Schema,
        }
    }

    pub fn url(&self) -> String {
        match self.format {
            WireFormat::OpenaiCompatible => format!("{}/chat/completions", self.base_url),
            WireFormat::Anthropic => format!("{}/messages", self.base_url),
        }
    }

    pub fn headers(&self) -> Vec<(String, String)> {
        let mut h = vec![("content-type".to_string(), "application/json".to_string())];
        match self.format {
            WireFormat::OpenaiCompatible => {
                if let Some(k) = &self.api_key {
                    h.push(("authorization".into(), format!("Bearer {}", k.trim())));
                }
            }
            WireFormat::Anthropic => {
                if let Some(k) = &self.api_key {
                    h.push(("x-api-key".into(), k.trim().to_string()));
                }
                h.push(("anthropic-version".into(), anthropic::API_VERSION.into()));
                h.push((
                    "anthropic-dangerous-direct-browser-access".into(),
                    "true".into(),
                ));
            }
        }
        h
    }

    pub fn body(&self, req: &ChatRequest, mode: StructuredMode) -> serde_json::Value {
        match self.format {
            WireFormat::OpenaiCompatible => {
                openai::request_body(req, &self.model, self.stream_usage, mode)
            }
            WireFormat::Anthropic => anthropic::request_body(req, &self.model, mode),
        }
    }

    /// Which server and model a refused mode is remembered for.
    fn server_key(&self) -> String {
        format!("{:?} {} {}", self.format, self.base_url, self.model)
    }

    /// The mode below `mode` this server may still take.
    fn step_down(&self, mode: StructuredMode) -> StructuredMode {
        match (mode, self.format) {
            (StructuredMode::Schema, WireFormat::OpenaiCompatible) => StructuredMode::JsonMode,
            _ => StructuredMode::Prompt,
        }
    }
}

thread_local! {
    /// The structured mode each server (base URL and model) was stepped
    /// down to, for the page's or the process's lifetime: later runs on it
    /// do not ask in a mode it refused.
    static REFUSED: std::cell::RefCell<std::collections::HashMap<String, StructuredMode>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Whether a refused request was refused for its structured-output field
/// (`response_format`, its schema, or the forced tool), so that asking
/// without it may succeed.
fn refuses_structure(e: &ModelError) -> bool {
    let ModelError::BadRequest { detail, .. } = e else {
        return false;
    };
    let d = detail.to_lowercase();
    [
        "response_format",
        "json_schema",
        "schema",
        "tool_choice",
        "structured",
        "json mode",
        "json_object",
    ]
    .iter()
    .any(|k| d.contains(k))
}

pub struct HttpChatModel {
    pub endpoint: Endpoint,
    transport: Rc<dyn HttpTransport>,
    clock: Rc<dyn Clock>,
    /// The structured mode this server takes: the preset's, until it
    /// refuses one (then the one it took, for the rest of the run).
    mode: std::cell::Cell<StructuredMode>,
}

const MAX_ERROR_BODY: usize = 64 * 1024;

impl HttpChatModel {
    pub fn new(endpoint: Endpoint, transport: Rc<dyn HttpTransport>, clock: Rc<dyn Clock>) -> Self {
        let known = REFUSED.with(|r| r.borrow().get(&endpoint.server_key()).copied());
        let mode =
            std::cell::Cell::new(known.map_or(endpoint.structured, |m| m.min(endpoint.structured)));
        HttpChatModel {
            endpoint,
            transport,
            clock,
            mode,
        }
    }

    /// The structured mode the server now takes.
    pub fn structured_mode(&self) -> StructuredMode {
        self.mode.get()
    }

    /// One call; a request with a shape that the server refuses for its
    /// structured-output field is sent again a mode lower (remembered).
    /// The answer says which mode held it.
    async fn call(
        &self,
        req: &ChatRequest,
        sink: DeltaSink<'_>,
        cancel: &CancelToken,
    ) -> Result<ChatResponse, ModelError> {
        let shaped = req.params.json_mode || req.params.schema.is_some();
        loop {
            let mode = self.mode.get();
            match self.call_in(req, sink, cancel, mode).await {
                Err(e) if shaped && mode != StructuredMode::Prompt && refuses_structure(&e) => {
                    let lower = self.endpoint.step_down(mode);
                    self.mode.set(lower);
                    REFUSED.with(|r| r.borrow_mut().insert(self.endpoint.server_key(), lower));
                }
                Ok(mut r) => {
                    // Anthropic's forced shape tool: its input is the reply.
                    if self.endpoint.format == WireFormat::Anthropic
                        && anthropic::forces_shape(req, mode)
                    {
                        let tool = r
                            .tool_calls
                            .iter()
                            .position(|c| c.name == anthropic::SHAPE_TOOL);
                        if let Some(i) = tool {
                            let c = r.tool_calls.remove(i);
                            sink(crate::engine::model::StreamDelta::Text(c.arguments.clone()));
                            r.text.push_str(&c.arguments);
                        }
                    }
                    if shaped {
                        r.structured = Some(match mode {
                            StructuredMode::Schema if req.params.schema.is_none() => {
                                StructuredMode::JsonMode
                            }
                            StructuredMode::Schema
                                if self.endpoint.format == WireFormat::Anthropic
                                    && !anthropic::forces_shape(req, mode) =>
                            {
                                StructuredMode::Prompt
                            }
                            StructuredMode::JsonMode
                                if self.endpoint.format == WireFormat::Anthropic =>
                            {
                                StructuredMode::Prompt
                            }
                            m => m,
                        });
                    }
                    return Ok(r);
                }
                Err(e) => return Err(e),
            }
        }
    }

    async fn call_in(
        &self,
        req: &ChatRequest,
        sink: DeltaSink<'_>,
        cancel: &CancelToken,
        mode: StructuredMode,
    ) -> Result<ChatResponse, ModelError> {
        let ep = &self.endpoint;
        let http = HttpRequest {
            url: ep.url(),
            headers: ep.headers(),
            body: ep.body(req, mode).to_string(),
        };
        // A child token aborts the request on timeout without cancelling the run.
        let call_cancel = cancel.child();
        let sent = self.transport.post(http, call_cancel.clone());
        let mut resp = match timeout(&*self.clock, ep.first_byte_timeout_ms, sent).await {
            Some(r) => r.map_err(|e| self.annotate(e))?,
            None => {
                call_cancel.cancel();
                return Err(ModelError::Timeout {
                    after_ms: ep.first_byte_timeout_ms,
                });
            }
        };
        if !(200..300).contains(&resp.status) {
            let body = self
                .read_all(&mut resp, &call_cancel, MAX_ERROR_BODY)
                .await?;
            let retry = resp.retry_after.as_deref().and_then(parse_retry_after);
            return Err(ModelError::from_status(resp.status, retry, &body));
        }
        let chars = req.content_chars();
        let is_sse = resp.content_type.contains("text/event-stream");
        if !is_sse {
            // Non-streaming answer (asked for, or the server ignored `stream`).
            let body = self.read_all(&mut resp, &call_cancel, usize::MAX).await?;
            let parsed = match ep.format {
                WireFormat::OpenaiCompatible => openai::parse_response(&body, chars),
                WireFormat::Anthropic => anthropic::parse_response(&body, chars),
            }?;
            if !parsed.text.is_empty() {
                sink(crate::engine::model::StreamDelta::Text(parsed.text.clone()));
            }
            return Ok(parsed);
        }
        let mut parser = SseParser::new();
        let mut oa = openai::OpenAiStream::new();
        let mut an = anthropic::AnthropicStream::new();
        loop {
            let next = timeout(&*self.clock, ep.idle_timeout_ms, resp.body.next()).await;
            let chunk = match next {
                None => {
                    call_cancel.cancel();
                    return Err(ModelError::Timeout {
                        after_ms: ep.idle_timeout_ms,
                    });
                }
                Some(None) => break,
                Some(Some(Err(e))) => {
                    return Err(match e {
                        ModelError::Network { .. } => ModelError::Malformed {
                            detail: "the connection broke while the answer was streaming".into(),
                        },
                        other => other,
                    })
                }
                Some(Some(Ok(bytes))) => bytes,
            };
            for ev in parser.feed(&chunk) {
                match ep.format {
                    WireFormat::OpenaiCompatible => oa.on_event(&ev, sink)?,
                    WireFormat::Anthropic => an.on_event(&ev, sink)?,
                }
            }
        }
        let clean = !parser.has_partial();
        for ev in parser.finish() {
            match ep.format {
                WireFormat::OpenaiCompatible => oa.on_event(&ev, sink)?,
                WireFormat::Anthropic => an.on_event(&ev, sink)?,
            }
        }
        match ep.format {
            WireFormat::OpenaiCompatible => oa.finish(chars, clean),
            WireFormat::Anthropic => an.finish(chars),
        }
    }

    async fn read_all(
        &self,
        resp: &mut HttpResponse,
        cancel: &CancelToken,
        limit: usize,
    ) -> Result<String, ModelError> {
        let mut buf = Vec::new();
        loop {
            match timeout(
                &*self.clock,
                self.endpoint.idle_timeout_ms,
                resp.body.next(),
            )
            .await
            {
                None => {
                    cancel.cancel();
                    return Err(ModelError::Timeout {
                        after_ms: self.endpoint.idle_timeout_ms,
                    });
                }
                Some(None) => break,
                Some(Some(chunk)) => buf.extend_from_slice(&chunk?),
            }
            if buf.len() >= limit {
                buf.truncate(limit);
                break;
            }
        }
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    fn annotate(&self, e: ModelError) -> ModelError {
        match e {
            ModelError::Network { detail, hint: None } => ModelError::Network {
                detail,
                hint: self.endpoint.cors_hint.clone(),
            },
            other => other,
        }
    }
}

impl ChatModel for HttpChatModel {
    fn name(&self) -> String {
        self.endpoint.model.clone()
    }

    fn complete<'a>(&'a self, call: Call<'a>) -> Completion<'a> {
        let Call { req, sink, cancel } = call;
        Box::pin(async move {
            if cancel.is_cancelled() {
                return Err(ModelError::Cancelled);
            }
            // A Stop ends the call at once, whatever the transport is
            // waiting for (the native one cannot abort a read under way).
            let call = std::pin::pin!(self.call(req, sink, cancel));
            let stop = std::pin::pin!(cancel.cancelled());
            let r = match futures::future::select(call, stop).await {
                futures::future::Either::Left((r, _)) => r,
                futures::future::Either::Right(_) => Err(ModelError::Cancelled),
            };
            if cancel.is_cancelled() {
                Err(ModelError::Cancelled)
            } else {
                r
            }
        })
    }
}

/// Removes credentials embedded in a URL (`https://user:pass@host` and
/// key-like query parameters) so it can be recorded or shared.
pub fn redact_url(url: &str) -> String {
    let (scheme, rest) = match url.find("://") {
        Some(p) => (&url[..p + 3], &url[p + 3..]),
        None => ("", url),
    };
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(host_end);
    let authority = match authority.rfind('@') {
        Some(p) => &authority[p + 1..],
        None => authority,
    };
    let tail = match tail.find('?') {
        Some(q) => {
            let (path, query) = tail.split_at(q);
            let kept: Vec<&str> = query[1..]
                .split('&')
                .filter(|kv| {
                    let k = kv.split('=').next().unwrap_or("").to_ascii_lowercase();
                    !(k.contains("key")
                        || k.contains("token")
                        || k.contains("secret")
                        || k == "auth")
                })
                .collect();
            if kept.is_empty() {
                path.to_string()
            } else {
                format!("{path}?{}", kept.join("&"))
            }
        }
        None => tail.to_string(),
    };
    format!("{scheme}{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_credentials_in_urls() {
        assert_eq!(redact_url("https://u:p@h.io/v1"), "https://h.io/v1");
        assert_eq!(
            redact_url("http://localhost:11434/v1"),
            "http://localhost:11434/v1"
        );
        assert_eq!(
            redact_url("https://h/v1?api_key=sk-1&x=2&token=t"),
            "https://h/v1?x=2"
        );
        assert_eq!(redact_url("https://h/v1?key=abc"), "https://h/v1");
    }

    #[test]
    fn headers_per_format() {
        let oa = Endpoint::new(
            WireFormat::OpenaiCompatible,
            "http://x/v1/",
            "m",
            Some("sk".into()),
        );
        assert_eq!(oa.url(), "http://x/v1/chat/completions");
        assert!(oa
            .headers()
            .contains(&("authorization".into(), "Bearer sk".into())));
        let an = Endpoint::new(WireFormat::Anthropic, "http://x/v1", "m", Some("k".into()));
        let h = an.headers();
        assert_eq!(an.url(), "http://x/v1/messages");
        assert!(h.contains(&("x-api-key".into(), "k".into())));
        assert!(h.contains(&(
            "anthropic-dangerous-direct-browser-access".into(),
            "true".into()
        )));
        assert!(h.iter().any(|(k, _)| k == "anthropic-version"));
        let none = Endpoint::new(
            WireFormat::OpenaiCompatible,
            "http://x",
            "m",
            Some("  ".into()),
        );
        assert!(!none.headers().iter().any(|(k, _)| k == "authorization"));
    }
}
