//! OpenAI chat-completions wire format: request bodies, SSE stream chunks
//! (text and tool-call deltas, usage), and one-shot responses.

use super::sse::SseEvent;
use super::text_at;
use crate::engine::model::error::{error_detail, ModelError};
use crate::engine::model::shape::StructuredMode;
use crate::engine::model::types::{ChatRequest, ChatResponse, Role, StreamDelta, ToolCall, Usage};
use serde_json::{json, Map, Value};

/// Builds the JSON body of `POST {base}/chat/completions`; a step's shape
/// goes as `response_format` in `mode` (its schema, strict; JSON mode; or
/// nothing).
pub fn request_body(
    req: &ChatRequest,
    model: &str,
    stream_usage: bool,
    mode: StructuredMode,
) -> Value {
    let messages: Vec<Value> = req
        .messages
        .iter()
        .map(|m| {
            let role = match m.role {
                Role::System => "system",
                Role::User => "user",
                Role::Assistant => "assistant",
                Role::Tool => "tool",
            };
            let mut o = Map::new();
            o.insert("role".into(), json!(role));
            if m.role == Role::Assistant && !m.tool_calls.is_empty() && m.content.is_empty() {
                o.insert("content".into(), Value::Null);
            } else {
                o.insert("content".into(), json!(m.content));
            }
            if !m.tool_calls.is_empty() {
                let calls: Vec<Value> = m
                    .tool_calls
                    .iter()
                    .map(|c| {
                        json!({"id": c.id, "type": "function",
                               "function": {"name": c.name, "arguments": c.arguments}})
                    })
                    .collect();
                o.insert("tool_calls".into(), Value::Array(calls));
            }
            if let Some(id) = &m.tool_call_id {
                o.insert("tool_call_id".into(), json!(id));
            }
            Value::Object(o)
        })
        .collect();
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(req.params.stream));
    if req.params.stream && stream_usage {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters}})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(t) = req.params.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(n) = req.params.max_tokens {
        body.insert("max_tokens".into(), json!(n));
    }
    match (&req.params.schema, mode) {
        (Some(shape), StructuredMode::Schema) => {
            let name: String = (shape.name.chars())
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .take(64)
                .collect();
            body.insert(
                "response_format".into(),
                json!({"type": "json_schema", "json_schema": {
                    "name": name, "schema": shape.strict(), "strict": true}}),
            );
        }
        (_, StructuredMode::Schema | StructuredMode::JsonMode) if req.params.json_mode => {
            body.insert("response_format".into(), json!({"type": "json_object"}));
        }
        _ => {}
    }
    Value::Object(body)
}

#[derive(Default)]
struct PartialCall {
    index: Option<u64>,
    id: String,
    name: String,
    arguments: String,
}

/// Accumulates a streamed answer from its SSE events.
#[derive(Default)]
pub struct OpenAiStream {
    text: String,
    calls: Vec<PartialCall>,
    usage: Option<Usage>,
    finish_reason: Option<String>,
    model: Option<String>,
    done: bool,
}

impl OpenAiStream {
    pub fn new() -> Self {
        Self::default()
    }

    /// Handles one SSE event; text deltas go to `sink`.
    pub fn on_event(
        &mut self,
        ev: &SseEvent,
        sink: &mut dyn FnMut(StreamDelta),
    ) -> Result<(), ModelError> {
        let data = ev.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let v: Value = serde_json::from_str(data).map_err(|e| ModelError::Malformed {
            detail: format!("a stream chunk is not JSON: {e}"),
        })?;
        if v.get("error").is_some() {
            return Err(stream_error(&v));
        }
        if let Some(m) = v.get("model").and_then(Value::as_str) {
            self.model = Some(m.to_string());
        }
        if let Some(u) = v.get("usage").filter(|u| !u.is_null()) {
            self.usage = Some(parse_usage(u));
        }
        let choices = v.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            if let Some(r) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(r.to_string());
            }
            let Some(delta) = choice.get("delta") else {
                continue;
            };
            if let Some(t) = delta.get("content").and_then(Value::as_str) {
                if !t.is_empty() {
                    self.text.push_str(t);
                    sink(StreamDelta::Text(t.to_string()));
                }
            }
            self.tool_call_deltas(delta);
        }
        Ok(())
    }

    /// Merges every fragment of `holder`'s `tool_calls` array, in order.
    fn tool_call_deltas(&mut self, holder: &Value) {
        let calls = holder.get("tool_calls").and_then(Value::as_array);
        for tc in calls.into_iter().flatten() {
            self.tool_call_delta(tc);
        }
    }

    /// Merges one streamed tool-call fragment. Fragments are matched by
    /// `index`; providers that omit it are matched by `id`, else appended.
    fn tool_call_delta(&mut self, tc: &Value) {
        let index = tc.get("index").and_then(Value::as_u64);
        let id = tc.get("id").and_then(Value::as_str).unwrap_or("");
        let f = tc.get("function");
        let name = f
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let args = f.and_then(|f| f.get("arguments")).and_then(|a| match a {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        });
        let pos = match index {
            Some(i) => self.calls.iter().position(|c| c.index == Some(i)),
            None if !id.is_empty() => self.calls.iter().position(|c| c.id == id),
            None => self.calls.len().checked_sub(1).filter(|_| name.is_empty()),
        };
        let call = match pos {
            Some(p) => &mut self.calls[p],
            None => {
                self.calls.push(PartialCall {
                    index,
                    ..PartialCall::default()
                });
                let last = self.calls.len() - 1;
                &mut self.calls[last]
            }
        };
        if !id.is_empty() {
            call.id = id.to_string();
        }
        if !name.is_empty() {
            call.name.push_str(name);
        }
        if let Some(a) = args {
            call.arguments.push_str(&a);
        }
    }

    /// Ends the stream. `clean_end` is false when the connection closed in
    /// the middle of an event.
    pub fn finish(self, request_chars: usize, clean_end: bool) -> Result<ChatResponse, ModelError> {
        if !self.done && (self.finish_reason.is_none() || !clean_end) {
            return Err(ModelError::Malformed {
                detail: "the stream ended before the answer was complete".into(),
            });
        }
        let usage = self
            .usage
            .unwrap_or_else(|| Usage::estimate(request_chars, self.text.chars().count()));
        Ok(ChatResponse {
            text: self.text,
            tool_calls: finish_calls(self.calls),
            usage,
            finish_reason: self.finish_reason,
            model: self.model,
            replayed: false,
            structured: None,
        })
    }
}

fn finish_calls(calls: Vec<PartialCall>) -> Vec<ToolCall> {
    calls
        .into_iter()
        .enumerate()
        .filter(|(_, c)| !c.name.is_empty())
        .map(|(i, c)| ToolCall {
            id: if c.id.is_empty() {
                format!("call_{i}")
            } else {
                c.id
            },
            name: c.name,
            arguments: c.arguments,
        })
        .collect()
}

fn parse_usage(u: &Value) -> Usage {
    let get = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    Usage::counted(get("prompt_tokens"), get("completion_tokens"))
}

fn stream_error(v: &Value) -> ModelError {
    let status = v
        .pointer("/error/code")
        .and_then(|c| {
            c.as_u64()
                .or_else(|| c.as_str().and_then(|s| s.parse().ok()))
        })
        .filter(|c| (400..600).contains(c))
        .unwrap_or(500) as u16;
    ModelError::from_status(status, None, &v.to_string())
}

/// Parses a non-streaming chat-completions response body.
pub fn parse_response(body: &str, request_chars: usize) -> Result<ChatResponse, ModelError> {
    let v: Value = serde_json::from_str(body).map_err(|e| ModelError::Malformed {
        detail: format!("the response is not JSON: {e}"),
    })?;
    if v.get("error").is_some() {
        return Err(stream_error(&v));
    }
    let choice = v
        .pointer("/choices/0")
        .ok_or_else(|| ModelError::Malformed {
            detail: format!("no choices in the response: {}", error_detail(body)),
        })?;
    let msg = choice.get("message").cloned().unwrap_or(Value::Null);
    let text = msg
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let mut acc = OpenAiStream::new();
    acc.tool_call_deltas(&msg);
    let usage = v
        .get("usage")
        .filter(|u| !u.is_null())
        .map(parse_usage)
        .unwrap_or_else(|| Usage::estimate(request_chars, text.chars().count()));
    Ok(ChatResponse {
        text,
        tool_calls: finish_calls(acc.calls),
        usage,
        finish_reason: text_at(choice, "finish_reason"),
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

    fn run_stream(raw: &str) -> (Result<ChatResponse, ModelError>, Vec<String>) {
        let mut p = SseParser::new();
        let mut acc = OpenAiStream::new();
        let mut deltas = Vec::new();
        let mut sink = |d: StreamDelta| match d {
            StreamDelta::Text(t) => deltas.push(t),
        };
        for ev in p.feed(raw.as_bytes()).into_iter().chain(p.finish()) {
            if let Err(e) = acc.on_event(&ev, &mut sink) {
                return (Err(e), deltas);
            }
        }
        (acc.finish(10, !p.has_partial()), deltas)
    }

    #[test]
    fn streams_text_and_usage() {
        let raw = "data: {\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n\
                   data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n\
                   data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":2}}\n\n\
                   data: [DONE]\n\n";
        let (r, deltas) = run_stream(raw);
        let r = r.expect("ok");
        assert_eq!(deltas, vec!["Hel", "lo"]);
        assert_eq!(r.text, "Hello");
        assert_eq!(r.usage, Usage::counted(12, 2));
        assert_eq!(r.model.as_deref(), Some("gpt-x"));
        assert_eq!(r.finish_reason.as_deref(), Some("stop"));
    }

    #[test]
    fn accumulates_tool_call_deltas_by_index() {
        let raw = "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"FlightSearch\",\"arguments\":\"\"}}]}}]}\n\n\
                   data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"function\":{\"name\":\"CitySearch\",\"arguments\":\"{\\\"st\"}}]}}]}\n\n\
                   data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"origin\\\":\"}}]}}]}\n\n\
                   data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"Dallas\\\"}\"}}]}}]}\n\n\
                   data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"ate\\\":\\\"Texas\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n\
                   data: [DONE]\n\n";
        let (r, _) = run_stream(raw);
        let r = r.expect("ok");
        assert_eq!(r.tool_calls.len(), 2);
        assert_eq!(r.tool_calls[0].id, "call_a");
        assert_eq!(r.tool_calls[0].name, "FlightSearch");
        assert_eq!(r.tool_calls[0].arguments, "{\"origin\":\"Dallas\"}");
        assert_eq!(r.tool_calls[1].name, "CitySearch");
        assert_eq!(
            r.tool_calls[1].parsed_arguments().expect("json")["state"],
            "Texas"
        );
        assert!(r.usage.estimated, "no usage in stream -> estimated");
    }

    #[test]
    fn tool_calls_without_index_match_by_id() {
        let raw = "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"x1\",\"function\":{\"name\":\"A\",\"arguments\":\"{}\"}},{\"id\":\"x2\",\"function\":{\"name\":\"B\",\"arguments\":\"{\\\"k\\\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n";
        let (r, _) = run_stream(raw);
        let r = r.expect("finish_reason without [DONE] is a clean end");
        assert_eq!(
            r.tool_calls
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>(),
            ["A", "B"]
        );
    }

    #[test]
    fn cut_stream_is_malformed() {
        let raw = "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"choi";
        let (r, deltas) = run_stream(raw);
        assert_eq!(deltas, vec!["Hel"]);
        assert_eq!(r.expect_err("cut").kind(), "malformed");
    }

    #[test]
    fn error_in_stream_is_typed() {
        let raw = "data: {\"error\":{\"message\":\"overloaded\",\"code\":503}}\n\n";
        assert_eq!(run_stream(raw).0.expect_err("err").kind(), "server");
    }

    #[test]
    fn request_body_shape() {
        let mut req = ChatRequest::new(vec![
            Message::system("sys"),
            Message::user("hi"),
            Message::assistant_with_tools(
                "",
                vec![ToolCall {
                    id: "c1".into(),
                    name: "T".into(),
                    arguments: "{}".into(),
                }],
            ),
            Message::tool_result("c1", "result"),
        ])
        .with_tools(vec![ToolSpec {
            name: "T".into(),
            description: "d".into(),
            parameters: json!({"type":"object"}),
        }]);
        req.params.json_mode = true;
        req.params.temperature = Some(0.5);
        let b = request_body(&req, "m", true, StructuredMode::Schema);
        assert_eq!(b["stream"], true);
        assert_eq!(b["stream_options"]["include_usage"], true);
        assert_eq!(b["messages"][2]["content"], Value::Null);
        assert_eq!(b["messages"][2]["tool_calls"][0]["function"]["name"], "T");
        assert_eq!(b["messages"][3]["tool_call_id"], "c1");
        assert_eq!(b["tools"][0]["type"], "function");
        assert_eq!(b["response_format"]["type"], "json_object");
        assert!(b.get("step").is_none());
        req.params.stream = false;
        assert!(request_body(&req, "m", true, StructuredMode::Schema)
            .get("stream_options")
            .is_none());
    }

    #[test]
    fn parses_one_shot_response() {
        let body = r#"{"model":"m","choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"T","arguments":"{\"a\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":7}}"#;
        let r = parse_response(body, 0).expect("ok");
        assert_eq!(r.text, "");
        assert_eq!(r.tool_calls[0].name, "T");
        assert_eq!(r.usage.output_tokens, 7);
        assert_eq!(
            parse_response("nope", 0).expect_err("bad").kind(),
            "malformed"
        );
        assert_eq!(
            parse_response("{}", 0).expect_err("bad").kind(),
            "malformed"
        );
    }
}
