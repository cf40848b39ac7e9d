//! HttpChatModel over an in-memory transport: status mapping, Retry-After,
//! streamed and non-streamed bodies, cut streams, timeouts that abort the
//! request, and the CORS hint on network errors.
#![cfg(not(target_arch = "wasm32"))]

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use futures::StreamExt;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::model::factory::{build_model, Platform};
use roundtable::engine::model::providers::http::{
    Endpoint, HttpChatModel, HttpRequest, HttpResponse, HttpTransport, WireFormat,
};
use roundtable::engine::model::Call;
use roundtable::engine::model::{ChatModel, ChatRequest, Message, ModelError, StreamDelta};
use roundtable::engine::run::{CancelToken, ModelSpec};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

enum Reply {
    Http {
        status: u16,
        content_type: &'static str,
        retry_after: Option<&'static str>,
        chunks: Vec<Vec<u8>>,
        then_error: bool,
    },
    Network,
    Hang,
}

/// (url, headers, body) of each request sent.
type Sent = (String, Vec<(String, String)>, String);

#[derive(Default)]
struct FakeTransport {
    replies: RefCell<VecDeque<Reply>>,
    sent: RefCell<Vec<Sent>>,
    cancels: RefCell<Vec<CancelToken>>,
}

impl HttpTransport for FakeTransport {
    fn post(
        &self,
        req: HttpRequest,
        cancel: CancelToken,
    ) -> LocalBoxFuture<'static, Result<HttpResponse, ModelError>> {
        self.sent
            .borrow_mut()
            .push((req.url, req.headers, req.body));
        self.cancels.borrow_mut().push(cancel);
        let reply = self
            .replies
            .borrow_mut()
            .pop_front()
            .unwrap_or(Reply::Network);
        Box::pin(async move {
            match reply {
                Reply::Network => Err(ModelError::Network {
                    detail: "Failed to fetch".into(),
                    hint: None,
                }),
                Reply::Hang => futures::future::pending().await,
                Reply::Http {
                    status,
                    content_type,
                    retry_after,
                    chunks,
                    then_error,
                } => {
                    let mut items: Vec<Result<Vec<u8>, ModelError>> =
                        chunks.into_iter().map(Ok).collect();
                    if then_error {
                        items.push(Err(ModelError::Network {
                            detail: "network error".into(),
                            hint: None,
                        }));
                    }
                    Ok(HttpResponse {
                        status,
                        content_type: content_type.into(),
                        retry_after: retry_after.map(str::to_string),
                        body: futures::stream::iter(items).boxed_local(),
                    })
                }
            }
        })
    }
}

fn http(status: u16, content_type: &'static str, body: &str) -> Reply {
    Reply::Http {
        status,
        content_type,
        retry_after: None,
        chunks: vec![body.as_bytes().to_vec()],
        then_error: false,
    }
}

fn setup(format: WireFormat, replies: Vec<Reply>) -> (HttpChatModel, Rc<FakeTransport>) {
    let t = Rc::new(FakeTransport {
        replies: RefCell::new(replies.into()),
        ..FakeTransport::default()
    });
    let mut ep = Endpoint::new(format, "http://127.0.0.1:9/v1", "m", Some("sk-k".into()));
    ep.first_byte_timeout_ms = 5_000;
    ep.idle_timeout_ms = 3_000;
    ep.cors_hint = Some("Allow this page in the server's CORS settings.".into());
    (
        HttpChatModel::new(ep, t.clone(), Rc::new(FakeClock::new())),
        t,
    )
}

fn call(
    m: &HttpChatModel,
) -> (
    Result<roundtable::engine::model::ChatResponse, ModelError>,
    Vec<String>,
) {
    let req = ChatRequest::new(vec![Message::user("hi")]);
    let mut deltas = Vec::new();
    let mut sink = |d: StreamDelta| match d {
        StreamDelta::Text(t) => deltas.push(t),
    };
    let r = block_on(m.complete(Call::new(&req, &mut sink, &CancelToken::new())));
    (r, deltas)
}

#[test]
fn streamed_openai_answer_split_across_chunks() {
    let sse = "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n";
    let chunks: Vec<Vec<u8>> = sse.as_bytes().chunks(7).map(<[u8]>::to_vec).collect();
    let (m, t) = setup(
        WireFormat::OpenaiCompatible,
        vec![Reply::Http {
            status: 200,
            content_type: "text/event-stream; charset=utf-8",
            retry_after: None,
            chunks,
            then_error: false,
        }],
    );
    let (r, deltas) = call(&m);
    let r = r.expect("ok");
    assert_eq!(r.text, "Hello");
    assert_eq!(deltas, vec!["Hel", "lo"]);
    assert_eq!(r.usage.input_tokens, 3);
    let (url, headers, body) = t.sent.borrow()[0].clone();
    assert_eq!(url, "http://127.0.0.1:9/v1/chat/completions");
    assert!(headers.contains(&("authorization".into(), "Bearer sk-k".into())));
    assert!(!body.contains("sk-k"));
}

#[test]
fn json_body_is_the_non_streaming_fallback() {
    let body = r#"{"model":"m","choices":[{"message":{"content":"whole answer"},"finish_reason":"stop"}],"usage":{"prompt_tokens":2,"completion_tokens":2}}"#;
    let (m, _) = setup(
        WireFormat::OpenaiCompatible,
        vec![http(200, "application/json", body)],
    );
    let (r, deltas) = call(&m);
    assert_eq!(r.expect("ok").text, "whole answer");
    assert_eq!(deltas, vec!["whole answer"], "shown at once");
}

#[test]
fn statuses_become_typed_errors() {
    let (m, _) = setup(
        WireFormat::Anthropic,
        vec![
            Reply::Http { status: 429, content_type: "application/json", retry_after: Some("7"), chunks: vec![b"{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow\"}}".to_vec()], then_error: false },
            http(401, "application/json", r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#),
            http(503, "text/html", "<html>down</html>"),
            http(404, "application/json", r#"{"error":{"message":"model not found"}}"#),
        ],
    );
    assert!(matches!(
        call(&m).0,
        Err(ModelError::RateLimited {
            retry_after_ms: Some(7000),
            ..
        })
    ));
    let auth = call(&m).0.expect_err("auth");
    assert!(auth.user_message().contains("invalid x-api-key"));
    assert_eq!(call(&m).0.expect_err("5xx").kind(), "server");
    let e = call(&m).0.expect_err("404");
    assert!(
        e.user_message().contains("model not found")
            && e.user_message().contains("Check the model name")
    );
}

#[test]
fn a_connection_broken_mid_stream_is_a_clear_error() {
    let sse = "data: {\"choices\":[{\"delta\":{\"content\":\"partial\"}}]}\n\n";
    let (m, _) = setup(
        WireFormat::OpenaiCompatible,
        vec![Reply::Http {
            status: 200,
            content_type: "text/event-stream",
            retry_after: None,
            chunks: vec![sse.as_bytes().to_vec()],
            then_error: true,
        }],
    );
    let (r, deltas) = call(&m);
    assert_eq!(deltas, vec!["partial"]);
    let e = r.expect_err("cut");
    assert_eq!(e.kind(), "malformed");
    assert!(e.user_message().contains("connection broke"));
}

#[test]
fn no_answer_times_out_and_aborts_the_request() {
    let (m, t) = setup(WireFormat::OpenaiCompatible, vec![Reply::Hang]);
    let (r, _) = call(&m);
    assert_eq!(r, Err(ModelError::Timeout { after_ms: 5_000 }));
    assert!(
        t.cancels.borrow()[0].is_cancelled(),
        "the transport was told to abort"
    );
}

#[test]
fn network_errors_carry_the_cors_hint() {
    let (m, _) = setup(WireFormat::OpenaiCompatible, vec![Reply::Network]);
    let msg = call(&m).0.expect_err("network").user_message();
    assert!(
        msg.contains("Failed to fetch") && msg.contains("CORS settings"),
        "{msg}"
    );

    // The Ollama preset's hint names OLLAMA_ORIGINS.
    let t = Rc::new(FakeTransport::default());
    let platform = Platform {
        transport: t,
        clock: Rc::new(FakeClock::new()),
        demo_chunk_delay_ms: 0,
        demo_script: roundtable::engine::model::demo::no_script,
    };
    let spec = ModelSpec {
        provider: "ollama".into(),
        format: Some(WireFormat::OpenaiCompatible),
        base_url: "http://localhost:11434/v1".into(),
        model: "llama3.2".into(),
        sampling: Default::default(),
        file_sha256: None,
        max_tokens: None,
    };
    let model = build_model(&spec, None, &platform).expect("no key needed for Ollama");
    let req = ChatRequest::new(vec![Message::user("hi")]);
    let mut sink = |_d: StreamDelta| {};
    let msg = block_on(model.complete(Call::new(&req, &mut sink, &CancelToken::new())))
        .expect_err("network")
        .user_message();
    assert!(msg.contains("OLLAMA_ORIGINS"), "{msg}");
}

#[test]
fn cancelled_before_sending_sends_nothing() {
    let (m, t) = setup(WireFormat::OpenaiCompatible, vec![]);
    let cancel = CancelToken::new();
    cancel.cancel();
    let req = ChatRequest::new(vec![Message::user("hi")]);
    let mut sink = |_d: StreamDelta| {};
    assert_eq!(
        block_on(m.complete(Call::new(&req, &mut sink, &cancel))),
        Err(ModelError::Cancelled)
    );
    assert!(t.sent.borrow().is_empty());
}

/// A shaped request (MAEL's critique shape) and its answer's text.
fn call_shaped(
    m: &HttpChatModel,
) -> (
    Result<roundtable::engine::model::ChatResponse, ModelError>,
    String,
) {
    let shape = roundtable::engine::model::shape::ReplySchema::of::<
        roundtable::engine::coordinators::mael::contract::Critique,
    >("mael.critique");
    let req = ChatRequest::new(vec![Message::user("check it")]).with_schema(shape);
    let mut streamed = String::new();
    let mut sink = |d: StreamDelta| match d {
        StreamDelta::Text(t) => streamed.push_str(&t),
    };
    let r = block_on(m.complete(Call::new(&req, &mut sink, &CancelToken::new())));
    (r, streamed)
}

const OPENAI_JSON_ANSWER: &str = r#"{"model":"m","choices":[{"message":{"content":"{\"adequate\": true, \"feedback\": \"\"}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":2,"completion_tokens":2}}"#;

fn sent_json(t: &FakeTransport, i: usize) -> serde_json::Value {
    serde_json::from_str(&t.sent.borrow()[i].2).expect("a JSON body")
}

#[test]
fn a_shaped_request_carries_its_schema_strict_and_the_answer_says_so() {
    use roundtable::engine::model::shape::StructuredMode;
    let (m, t) = setup(
        WireFormat::OpenaiCompatible,
        vec![http(200, "application/json", OPENAI_JSON_ANSWER)],
    );
    let (r, _) = call_shaped(&m);
    assert_eq!(r.expect("ok").structured, Some(StructuredMode::Schema));
    let body = sent_json(&t, 0);
    let format = &body["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["name"], "mael_critique");
    assert_eq!(format["json_schema"]["strict"], true);
    let schema = &format["json_schema"]["schema"];
    assert_eq!(schema["properties"]["adequate"]["type"], "boolean");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        schema["required"],
        serde_json::json!(["adequate", "feedback"])
    );
}

#[test]
fn a_server_that_refuses_the_schema_is_asked_again_without_it_and_that_is_remembered() {
    use roundtable::engine::model::shape::StructuredMode;
    let refusal = r#"{"error":{"message":"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.","type":"invalid_request_error"}}"#;
    let (m, t) = setup(
        WireFormat::OpenaiCompatible,
        vec![
            http(400, "application/json", refusal),
            http(200, "application/json", OPENAI_JSON_ANSWER),
            http(200, "application/json", OPENAI_JSON_ANSWER),
        ],
    );
    let (r, _) = call_shaped(&m);
    let r = r.expect("answered in JSON mode");
    assert_eq!(r.structured, Some(StructuredMode::JsonMode), "flagged");
    assert_eq!(sent_json(&t, 0)["response_format"]["type"], "json_schema");
    assert_eq!(sent_json(&t, 1)["response_format"]["type"], "json_object");
    assert_eq!(m.structured_mode(), StructuredMode::JsonMode);
    // The next call goes straight to JSON mode: no refused request first.
    let (r, _) = call_shaped(&m);
    assert_eq!(r.expect("ok").structured, Some(StructuredMode::JsonMode));
    assert_eq!(t.sent.borrow().len(), 3);
    assert_eq!(sent_json(&t, 2)["response_format"]["type"], "json_object");
}

#[test]
fn other_bad_requests_are_not_taken_for_a_refused_schema() {
    let (m, t) = setup(
        WireFormat::OpenaiCompatible,
        vec![http(
            400,
            "application/json",
            r#"{"error":{"message":"messages: too long"}}"#,
        )],
    );
    let (r, _) = call_shaped(&m);
    assert!(matches!(r, Err(ModelError::BadRequest { .. })), "{r:?}");
    assert_eq!(t.sent.borrow().len(), 1, "not sent again");
}

#[test]
fn anthropic_is_held_to_the_shape_by_a_forced_tool_whose_input_is_the_reply() {
    use roundtable::engine::model::shape::StructuredMode;
    let answer = r#"{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"reply","input":{"adequate":false,"feedback":"step 2 is off"}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":9}}"#;
    let (m, t) = setup(
        WireFormat::Anthropic,
        vec![http(200, "application/json", answer)],
    );
    let (r, streamed) = call_shaped(&m);
    let r = r.expect("ok");
    assert_eq!(r.structured, Some(StructuredMode::Schema));
    assert!(r.tool_calls.is_empty(), "the shape tool is no tool call");
    let reply: serde_json::Value = serde_json::from_str(&r.text).expect("the reply is JSON");
    assert_eq!(reply["feedback"], "step 2 is off");
    assert_eq!(streamed, r.text, "and it is shown");
    let body = sent_json(&t, 0);
    assert_eq!(body["tool_choice"]["name"], "reply");
    assert_eq!(
        body["tools"][0]["input_schema"]["properties"]["adequate"]["type"],
        "boolean"
    );
}
