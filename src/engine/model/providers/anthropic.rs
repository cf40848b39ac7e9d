//! Anthropic Messages wire format: request bodies (system prompt, tool_use
//! and tool_result blocks), SSE events, and one-shot responses.

use super::sse::SseEvent;
use super::text_at;
use crate::engine::model::error::ModelError;
use crate::engine::model::shape::StructuredMode;
use crate::engine::model::types::{ChatRequest, ChatResponse, Role, StreamDelta, ToolCall, Usage};
use serde_json::{json, Map, Value};

pub const API_VERSION: &str = "2023-06-01";
/// Anthropic requires max_tokens; used when the request does not set it.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// The tool a step's shape is forced through (Anthropic has no schema
/// mode: a tool whose input is the schema, and the model made to call it).
pub const SHAPE_TOOL: &str = "reply";

/// Whether a request to Anthropic in `mode` goes as the forced shape tool.
pub fn forces_shape(req: &ChatRequest, mode: StructuredMode) -> bool {
    mode == StructuredMode::Schema && req.params.schema.is_some() && req.tools.is_empty()
}

/// Builds the JSON body of `POST {base}/messages`. Consecutive messages of the
/// same role are merged, since the API requires alternating turns. A
/// step's shape goes as a forced tool ([`forces_shape`]), else as a line of
/// the system prompt.
pub fn request_body(req: &ChatRequest, model: &str, mode: StructuredMode) -> Value {
    let mut system: Vec<String> = Vec::new();
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for m in &req.messages {
        let (role, blocks) = match m.role {
            Role::System => {
                system.push(m.content.clone());
                continue;
            }
            Role::User => ("user", vec![json!({"type": "text", "text": m.content})]),
            Role::Tool => (
                "user",
                vec![json!({"type": "tool_result",
                            "tool_use_id": m.tool_call_id.clone().unwrap_or_default(),
                            "content": m.content})],
            ),
            Role::Assistant => {
                let mut b = Vec::new();
                if !m.content.is_empty() {
                    b.push(json!({"type": "text", "text": m.content}));
                }
                for c in &m.tool_calls {
                    let input = c
                        .parsed_arguments()
                        .map(Value::Object)
                        .unwrap_or_else(|_| json!({}));
                    b.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}));
                }
                if b.is_empty() {
                    b.push(json!({"type": "text", "text": ""}));
                }
                ("assistant", b)
            }
        };
        match turns.last_mut() {
            Some((r, existing)) if *r == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    let forced = forces_shape(req, mode);
    if req.params.json_mode && !forced {
        system.push("Answer with one JSON object and nothing else.".into());
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert(
        "max_tokens".into(),
        json!(req.params.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
    );
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
    }
    let messages: Vec<Value> = turns
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    body.insert("messages".into(), Value::Array(messages));
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let (true, Some(shape)) = (forced, &req.params.schema) {
        body.insert(
            "tools".into(),
            json!([{"name": SHAPE_TOOL, "description": "Give your reply in this shape.",
                    "input_schema": shape.schema}]),
        );
        body.insert(
            "tool_choice".into(),
            json!({"type": "tool", "name": SHAPE_TOOL}),
        );
    }
    if let Some(t) = req.params.temperature {
        body.insert("temperature".into(), json!(t));
    }
    body.insert("stream".into(), json!(req.params.stream));
    Value::Object(body)
}

enum Block {
    Text,
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
    Other,
}

/// Accumulates a streamed answer from Anthropic's SSE events.
#[derive(Default)]
pub struct AnthropicStream {
    text: String,
    blocks: Vec<(u64, Block)>,
    calls: Vec<ToolCall>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    stop_reason: Option<String>,
    model: Option<String>,
    stopped: bool,
}

impl AnthropicStream {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn on_event(
        &mut self,
        ev: &SseEvent,
        sink: &mut dyn FnMut(StreamDelta),
    ) -> Result<(), ModelError> {
        let v: Value = serde_json::from_str(&ev.data).map_err(|e| ModelError::Malformed {
            detail: format!("a stream event is not JSON: {e}"),
        })?;
        let kind = if ev.event.is_empty() {
            v.get("type").and_then(Value::as_str).unwrap_or("")
        } else {
            ev.event.as_str()
        };
        match kind {
            "message_start" => {
                let msg = v.get("message");
                if let Some(m) = msg.and_then(|m| m.get("model")).and_then(Value::as_str) {
                    self.model = Some(m.to_string());
                }
                if let Some(u) = msg.and_then(|m| m.get("usage")) {
                    self.merge_usage(u);
                }
            }
            "content_block_start" => {
                let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
                let cb = v.get("content_block").cloned().unwrap_or(Value::Null);
                let block = match cb.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = cb
                            .get("text")
                            .and_then(Value::as_str)
                            .filter(|t| !t.is_empty())
                        {
                            self.push_text(t, sink);
                        }
                        Block::Text
                    }
                    Some("tool_use") => Block::ToolUse {
                        id: str_field(&cb, "id"),
                        name: str_field(&cb, "name"),
                        json: String::new(),
                    },
                    _ => Block::Other,
                };
                self.blocks.push((index, block));
            }
            "content_block_delta" => {
                let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
                let delta = v.get("delta").cloned().unwrap_or(Value::Null);
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        let t = delta.get("text").and_then(Value::as_str).unwrap_or("");
                        self.push_text(t, sink);
                    }
                    Some("input_json_delta") => {
                        let part = delta
                            .get("partial_json")
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        if let Some((_, Block::ToolUse { json, .. })) =
                            self.blocks.iter_mut().find(|(i, _)| *i == index)
                        {
                            json.push_str(part);
                        }
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
                if let Some(pos) = self.blocks.iter().position(|(i, _)| *i == index) {
                    let (_, block) = self.blocks.remove(pos);
                    if let Block::ToolUse { id, name, json } = block {
                        self.calls.push(ToolCall {
                            id,
                            name,
                            arguments: if json.is_empty() { "{}".into() } else { json },
                        });
                    }
                }
            }
            "message_delta" => {
                if let Some(r) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(r.to_string());
                }
                if let Some(u) = v.get("usage") {
                    self.merge_usage(u);
                }
            }
            "message_stop" => self.stopped = true,
            "error" => return Err(error_event(&v)),
            _ => {} // ping and future event types
        }
        Ok(())
    }

    fn push_text(&mut self, t: &str, sink: &mut dyn FnMut(StreamDelta)) {
        if !t.is_empty() {
            self.text.push_str(t);
            sink(StreamDelta::Text(t.to_string()));
        }
    }

    fn merge_usage(&mut self, u: &Value) {
        if let Some(n) = u.get("input_tokens").and_then(Value::as_u64) {
            self.input_tokens = Some(n);
        }
        if let Some(n) = u.get("output_tokens").and_then(Value::as_u64) {
            self.output_tokens = Some(n);
        }
    }

    pub fn finish(self, request_chars: usize) -> Result<ChatResponse, ModelError> {
        if !self.stopped {
            return Err(ModelError::Malformed {
                detail: "the stream ended before message_stop".into(),
            });
        }
        let usage = match (self.input_tokens, self.output_tokens) {
            (Some(i), Some(o)) => Usage::counted(i, o),
            _ => Usage::estimate(request_chars, self.text.chars().count()),
        };
        Ok(ChatResponse {
            text: self.text,
            tool_calls: self.calls,
            usage,
            finish_reason: self.stop_reason,
            model: self.model,
            replayed: false,
            structured: None,
        })
    }
}

fn str_field(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

fn error_event(v: &Value) -> ModelError {
    let kind = v
        .pointer("/error/type")
        .and_then(Value::as_str)
        .unwrap_or("");
    let status = match kind {
        "authentication_error" => 401,
        "permission_error" => 403,
        "rate_limit_error" => 429,
        "overloaded_error" => 529,
        "invalid_request_error" => 400,
        "not_found_error" => 404,
        _ => 500,
    };
    ModelError::from_status(status, None, &v.to_string())
}

/// Parses a non-streaming Messages response body.
pub fn parse_response(body: &str, request_chars: usize) -> Result<ChatResponse, ModelError> {
    let v: Value = serde_json::from_str(body).map_err(|e| ModelError::Malformed {
        detail: format!("the response is not JSON: {e}"),
    })?;
    if v.get("type").and_then(Value::as_str) == Some("error") {
        return Err(error_event(&v));
    }
    let content =
        v.get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| ModelError::Malformed {
                detail: "no content in the response".into(),
            })?;
    let mut text = String::new();
    let mut calls = Vec::new();
    for b in content {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(b.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("tool_use") => calls.push(ToolCall {
                id: str_field(b, "id"),
                name: str_field(b, "name"),
                arguments: b
                    .get("input")
                    .map(Value::to_string)
                    .unwrap_or_else(|| "{}".into()),
            }),
            _ => {}
        }
    }
    let u = v.get("usage");
    let get = |k: &str| u.and_then(|u| u.get(k)).and_then(Value::as_u64);
    let usage = match (get("input_tokens"), get("output_tokens")) {
        (Some(i), Some(o)) => Usage::counted(i, o),
        _ => Usage::estimate(request_chars, text.chars().count()),
    };
    Ok(ChatResponse {
        text,
        tool_calls: calls,
        usage,
        finish_reason: text_at(&v, "stop_reason"),
        model: text_at(&v, "model"),
        replayed: false,
        structured: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::providers::sse::SseParser;
    use crate::engine::model::types::{Message, ToolSpec};

    fn sse(event: &str, data: Value) -> String {
        format!("event: {event}\ndata: {data}\n\n")
    }

    fn run(raw: &str) -> (Result<ChatResponse, ModelError>, String) {
        let mut p = SseParser::new();
        let mut acc = AnthropicStream::new();
        let mut streamed = String::new();
        let mut sink = |d: StreamDelta| match d {
            StreamDelta::Text(t) => streamed.push_str(&t),
        };
        for ev in p.feed(raw.as_bytes()) {
            if let Err(e) = acc.on_event(&ev, &mut sink) {
                return (Err(e), streamed);
            }
        }
        (acc.finish(0), streamed)
    }

    fn full_stream() -> String {
        [
            sse("message_start", json!({"type":"message_start","message":{"id":"m1","model":"claude-x","usage":{"input_tokens":25,"output_tokens":1}}})),
            sse("content_block_start", json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})),
            sse("ping", json!({"type":"ping"})),
            sse("content_block_delta", json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me "}})),
            sse("content_block_delta", json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"check."}})),
            sse("content_block_stop", json!({"type":"content_block_stop","index":0})),
            sse("content_block_start", json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"AttractionSearch","input":{}}})),
            sse("content_block_delta", json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}})),
            sse("content_block_delta", json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Aus"}})),
            sse("content_block_delta", json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"tin\"}"}})),
            sse("content_block_stop", json!({"type":"content_block_stop","index":1})),
            sse("message_delta", json!({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":42}})),
            sse("message_stop", json!({"type":"message_stop"})),
        ]
        .concat()
    }

    #[test]
    fn parses_text_tool_use_and_usage() {
        let (r, streamed) = run(&full_stream());
        let r = r.expect("ok");
        assert_eq!(streamed, "Let me check.");
        assert_eq!(r.text, "Let me check.");
        assert_eq!(r.tool_calls.len(), 1);
        assert_eq!(r.tool_calls[0].id, "toolu_1");
        assert_eq!(
            r.tool_calls[0].parsed_arguments().expect("json")["city"],
            "Austin"
        );
        assert_eq!(r.usage, Usage::counted(25, 42));
        assert_eq!(r.finish_reason.as_deref(), Some("tool_use"));
        assert_eq!(r.model.as_deref(), Some("claude-x"));
    }

    #[test]
    fn every_split_point_parses_the_same() {
        let raw = full_stream();
        let whole = run(&raw).0.expect("ok");
        let bytes = raw.as_bytes();
        for cut in (0..bytes.len()).step_by(7) {
            let mut p = SseParser::new();
            let mut acc = AnthropicStream::new();
            let mut sink = |_d: StreamDelta| {};
            for part in [&bytes[..cut], &bytes[cut..]] {
                for ev in p.feed(part) {
                    acc.on_event(&ev, &mut sink).expect("event");
                }
            }
            assert_eq!(acc.finish(0).expect("ok"), whole, "cut at {cut}");
        }
    }

    #[test]
    fn error_event_is_typed() {
        let raw = sse(
            "error",
            json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}),
        );
        assert_eq!(run(&raw).0.expect_err("err").kind(), "server");
        let raw = sse(
            "error",
            json!({"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}),
        );
        assert_eq!(run(&raw).0.expect_err("err").kind(), "rate_limited");
    }

    #[test]
    fn stream_without_message_stop_is_malformed() {
        let raw = full_stream();
        let cut = raw.find("event: message_delta").expect("present");
        assert_eq!(run(&raw[..cut]).0.expect_err("cut").kind(), "malformed");
    }

    #[test]
    fn request_body_merges_turns_and_lifts_system() {
        let req = ChatRequest::new(vec![
            Message::system("be brief"),
            Message::user("q"),
            Message::assistant_with_tools(
                "thinking",
                vec![ToolCall {
                    id: "t1".into(),
                    name: "T".into(),
                    arguments: "{\"a\":1}".into(),
                }],
            ),
            Message::tool_result("t1", "r1"),
            Message::user("and?"),
        ])
        .with_tools(vec![ToolSpec {
            name: "T".into(),
            description: "d".into(),
            parameters: json!({"type":"object"}),
        }]);
        let b = request_body(&req, "claude", StructuredMode::Schema);
        assert_eq!(b["system"], "be brief");
        assert_eq!(b["max_tokens"], DEFAULT_MAX_TOKENS);
        let msgs = b["messages"].as_array().expect("array");
        assert_eq!(msgs.len(), 3, "tool result and next user turn merged: {b}");
        assert_eq!(msgs[1]["content"][1]["type"], "tool_use");
        assert_eq!(msgs[1]["content"][1]["input"]["a"], 1);
        assert_eq!(msgs[2]["content"][0]["type"], "tool_result");
        assert_eq!(msgs[2]["content"][0]["tool_use_id"], "t1");
        assert_eq!(msgs[2]["content"][1]["text"], "and?");
        assert_eq!(b["tools"][0]["input_schema"]["type"], "object");
    }

    #[test]
    fn parses_one_shot_response() {
        let body = r#"{"type":"message","model":"c","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"N","input":{"x":2}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":4}}"#;
        let r = parse_response(body, 0).expect("ok");
        assert_eq!(r.text, "hi");
        assert_eq!(r.tool_calls[0].parsed_arguments().expect("obj")["x"], 2);
        assert_eq!(r.usage.input_tokens, 3);
        let err = r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
        assert_eq!(parse_response(err, 0).expect_err("auth").kind(), "auth");
    }
}
