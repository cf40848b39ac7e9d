//! Browser-only code, tested in headless Chromium (wasm-bindgen-test):
//! key storage in localStorage, settings recovery, the fetch transport
//! against the mock LLM server (streaming, errors with CORS-exposed
//! headers, and a real abort), and IndexedDB databases written by every
//! earlier schema version opening with nothing lost (`idb`), MAEL's pools
//! and task sets (`mael`), ACT's knowledge banks and task sets (`act`),
//! the teacher's lessons (`lessons`), hostile replies (`hostile`).
#![cfg(target_arch = "wasm32")]

use roundtable::engine::model::providers::http::{Endpoint, HttpChatModel, WireFormat};
use roundtable::engine::model::Call;
use roundtable::engine::model::{ChatModel, ChatRequest, Message, ModelError, StreamDelta};
use roundtable::engine::run::CancelToken;
use roundtable::platform::clock::BrowserClock;
use roundtable::platform::fetch::FetchTransport;
use roundtable::platform::{keys, settings::Settings, storage};
use std::rc::Rc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Set by `make test`, which starts the mock server first.
fn mock_url() -> &'static str {
    match option_env!("ROUNDTABLE_MOCK_URL") {
        Some(url) => url,
        None => panic!(
            "ROUNDTABLE_MOCK_URL was not set at build time: run these tests with `make test`, which starts the mock LLM server"
        ),
    }
}

fn local_storage_dump() -> String {
    storage::keys()
        .into_iter()
        .map(|k| format!("{k}={}", storage::get(&k).unwrap_or_default()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[wasm_bindgen_test]
fn key_is_kept_in_memory_unless_remembered() {
    keys::forget_all();
    keys::set("openai", "sk-memory-only", false).expect("set");
    assert_eq!(keys::get("openai").as_deref(), Some("sk-memory-only"));
    assert!(!local_storage_dump().contains("sk-memory-only"));
    assert!(!keys::is_remembered("openai"));

    keys::set("openai", "sk-remembered", true).expect("set");
    assert!(local_storage_dump().contains("sk-remembered"));
    assert!(keys::is_remembered("openai"));

    // Unticking "remember" removes it from the device but keeps it in memory.
    keys::set("openai", "sk-remembered", false).expect("set");
    assert!(!local_storage_dump().contains("sk-remembered"));
    assert_eq!(keys::get("openai").as_deref(), Some("sk-remembered"));

    keys::set("anthropic", "sk-ant", true).expect("set");
    keys::forget_all();
    assert_eq!(keys::get("openai"), None);
    assert_eq!(keys::get("anthropic"), None);
    assert!(!local_storage_dump().contains("sk-"));
}

#[wasm_bindgen_test]
fn settings_survive_damaged_storage_and_hold_no_key() {
    storage::set("roundtable.settings.v1", "{not json").expect("set");
    assert_eq!(Settings::load(), Settings::default());
    storage::set(
        "roundtable.settings.v1",
        r#"{"provider":"groq","model":"llama","future_field":1}"#,
    )
    .expect("set");
    let s = Settings::load();
    assert_eq!((s.provider.as_str(), s.model.as_str()), ("groq", "llama"));
    assert_eq!(s.max_attempts, 4, "missing fields take defaults");
    storage::set(
        "roundtable.settings.v1",
        r#"{"provider":"no-such-provider"}"#,
    )
    .expect("set");
    assert_eq!(Settings::load().provider, "demo");
    keys::set("groq", "gsk-secret", false).expect("set");
    s.save().expect("save");
    assert!(!local_storage_dump().contains("gsk-secret"));
    storage::remove("roundtable.settings.v1");
}

#[wasm_bindgen_test]
fn edited_prompts_are_kept_and_only_the_users_reset_removes_them() {
    use roundtable::platform::prompt_edits::{self, Edits, KEY};
    storage::remove(KEY);
    let mut edits = Edits::new();
    edits.entry("travel".into()).or_default().insert(
        "travel.orchestrator.system".into(),
        "Prefer the cheapest options.".into(),
    );
    prompt_edits::save(&edits).expect("saved");
    assert_eq!(prompt_edits::load(), edits);
    // Paths that must not touch them: forgetting keys, saving settings.
    keys::set("openai", "sk-x", true).expect("set");
    keys::forget_all();
    Settings::default().save().expect("save");
    assert_eq!(
        prompt_edits::load(),
        edits,
        "untouched by keys and settings"
    );
    // A coordinator's edits reset: the others stay.
    edits
        .entry("act".into())
        .or_default()
        .insert("act.ask_again".into(), "Again.".into());
    prompt_edits::save(&edits).expect("saved");
    edits.remove("travel");
    prompt_edits::save(&edits).expect("saved");
    assert_eq!(prompt_edits::load().keys().collect::<Vec<_>>(), ["act"]);
    // A record that cannot be read is read as none, and left as it is.
    storage::set(KEY, "{damaged").expect("set");
    assert!(prompt_edits::load().is_empty());
    assert_eq!(storage::get(KEY).as_deref(), Some("{damaged"));
    // The user's last reset removes the record.
    prompt_edits::save(&Edits::new()).expect("saved");
    assert_eq!(storage::get(KEY), None);
    storage::remove("roundtable.settings.v1");
}

async fn script(steps: &str) {
    let reset = gloo_net::http::Request::post(&format!("{}/__reset", mock_url()))
        .send()
        .await;
    assert!(
        reset.is_ok(),
        "the mock server at {} must be running",
        mock_url()
    );
    gloo_net::http::Request::post(&format!("{}/__script", mock_url()))
        .header("content-type", "application/json")
        .body(format!(r#"{{"steps":{steps}}}"#))
        .expect("body")
        .send()
        .await
        .expect("script");
}

async fn mock_log() -> serde_json::Value {
    let r = gloo_net::http::Request::get(&format!("{}/__log", mock_url()))
        .send()
        .await
        .expect("log");
    r.json().await.expect("json")
}

fn model(format: WireFormat) -> HttpChatModel {
    let ep = Endpoint::new(
        format,
        &format!("{}/v1", mock_url()),
        "mock-model",
        Some("sk-wasm".into()),
    );
    HttpChatModel::new(ep, Rc::new(FetchTransport), Rc::new(BrowserClock))
}

fn request() -> ChatRequest {
    ChatRequest::new(vec![
        Message::system("be brief"),
        Message::user("hello from wasm"),
    ])
}

#[wasm_bindgen_test]
async fn fetch_streams_openai_and_anthropic_from_the_mock() {
    for format in [WireFormat::OpenaiCompatible, WireFormat::Anthropic] {
        script(r#"[{"text":"streamed over real fetch","chunkSize":4,"chunkDelayMs":5}]"#).await;
        let mut deltas = Vec::new();
        let mut sink = |d: StreamDelta| match d {
            StreamDelta::Text(t) => deltas.push(t),
        };
        let r = model(format)
            .complete(Call::new(&request(), &mut sink, &CancelToken::new()))
            .await
            .expect("answer");
        assert_eq!(r.text, "streamed over real fetch");
        assert!(
            deltas.len() >= 5,
            "{format:?}: arrived in chunks: {deltas:?}"
        );
        assert!(
            !r.usage.estimated && r.usage.input_tokens > 0,
            "{format:?}: provider usage"
        );
    }
}

#[wasm_bindgen_test]
async fn fetch_reports_rate_limit_with_retry_after_and_auth_errors() {
    script(r#"[{"status":429,"retryAfter":3},{"status":401}]"#).await;
    let m = model(WireFormat::OpenaiCompatible);
    let mut sink = |_d: StreamDelta| {};
    let e = m
        .complete(Call::new(&request(), &mut sink, &CancelToken::new()))
        .await
        .expect_err("429");
    assert!(
        matches!(
            e,
            ModelError::RateLimited {
                retry_after_ms: Some(3000),
                ..
            }
        ),
        "{e:?}"
    );
    let e = m
        .complete(Call::new(&request(), &mut sink, &CancelToken::new()))
        .await
        .expect_err("401");
    assert_eq!(e.kind(), "auth");
}

#[wasm_bindgen_test]
async fn cancel_aborts_the_fetch_and_the_server_sees_it() {
    script(r#"[{"text":"this is a long and slow answer that will be stopped","chunkSize":2,"chunkDelayMs":100}]"#).await;
    let m = model(WireFormat::OpenaiCompatible);
    let cancel = CancelToken::new();
    let c = cancel.clone();
    let mut seen = 0;
    let mut sink = |_d: StreamDelta| {
        seen += 1;
        if seen == 2 {
            c.cancel();
        }
    };
    let r = m.complete(Call::new(&request(), &mut sink, &cancel)).await;
    assert_eq!(r, Err(ModelError::Cancelled));
    // The mock records the connection closing before the answer ended.
    for _ in 0..50 {
        let log = mock_log().await;
        if log[0]["aborted"] == serde_json::Value::Bool(true) {
            return;
        }
        gloo_timers::future::TimeoutFuture::new(50).await;
    }
    panic!(
        "the mock server never saw the connection close: {}",
        mock_log().await
    );
}

mod act;
mod hostile;
mod idb;
mod lessons;
mod mael;
mod stored;
