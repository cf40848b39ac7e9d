//! Browser-only code, tested in headless Chromium (wasm-bindgen-test):
//! key storage in localStorage, settings recovery, the fetch transport
//! against the mock LLM server (streaming, errors with CORS-exposed
//! headers, and a real abort), and IndexedDB databases written by every
//! earlier schema version opening with nothing lost.
#![cfg(target_arch = "wasm32")]

use roundtable::engine::model::providers::http::{Endpoint, HttpChatModel, WireFormat};
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
            .complete(&request(), &mut sink, &CancelToken::new())
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
        .complete(&request(), &mut sink, &CancelToken::new())
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
        .complete(&request(), &mut sink, &CancelToken::new())
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
    let r = m.complete(&request(), &mut sink, &cancel).await;
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

// ---------------------------------------------------------------- IndexedDB

/// The stores each earlier schema version had, written the way that
/// version's code wrote them (JSON text values, string keys; chunks keyed
/// [run id, n]). A new version adds its row here.
const EARLIER_VERSIONS: &[(u32, &[&str])] = &[
    (1, &["runs", "chunks"]),
    (2, &["runs", "chunks", "travel_dbs", "travel_queries"]),
];

fn key_of(store: &str, n: usize) -> wasm_bindgen::JsValue {
    use wasm_bindgen::JsValue;
    if store == "chunks" {
        js_sys::Array::of2(&JsValue::from_str("run-1"), &JsValue::from_f64(n as f64)).into()
    } else {
        JsValue::from_str(&format!("{store}-{n}"))
    }
}

/// A record as the store's owner writes it.
fn record_of(store: &str, n: usize) -> String {
    use roundtable::engine::run::record::{write_chunk_record, write_run_record, RunMeta};
    use roundtable::engine::run::{LoggedEvent, ModelSpec, RunConfig, RunEvent};
    let config = RunConfig::new("single", &format!("task {n}"), ModelSpec::demo());
    let events = vec![LoggedEvent {
        seq: 0,
        t_ms: 0,
        event: RunEvent::RunStarted {
            config: config.clone(),
        },
    }];
    match store {
        "runs" => write_run_record(
            &RunMeta::of(&config, &events, &Default::default(), 1.0),
            &config,
        ),
        "chunks" => write_chunk_record(&events),
        _ => format!("{{\"v\":1,\"name\":\"{store}-{n}\",\"jsonl\":\"{{}}\"}}"),
    }
}

async fn write_as_version(name: &str, version: u32, stores: &[&str]) {
    use rexie::{ObjectStore, Rexie, TransactionMode};
    Rexie::delete(name).await.expect("delete");
    let mut b = Rexie::builder(name).version(version);
    for s in stores {
        b = b.add_object_store(ObjectStore::new(s));
    }
    let db = b.build().await.expect("open the old schema");
    for s in stores {
        let tx = db
            .transaction(&[*s], TransactionMode::ReadWrite)
            .expect("tx");
        let store = tx.store(s).expect("store");
        for n in 0..3 {
            let value = wasm_bindgen::JsValue::from_str(&record_of(s, n));
            store.put(&value, Some(&key_of(s, n))).await.expect("put");
        }
        tx.done().await.expect("commit");
    }
    db.close();
}

#[wasm_bindgen_test]
async fn indexeddb_written_by_every_earlier_version_opens_with_nothing_lost() {
    use rexie::TransactionMode;
    use roundtable::platform::idb;
    let all: Vec<&str> = idb::store_names().collect();
    assert!(
        idb::version() >= EARLIER_VERSIONS.last().map(|v| v.0).unwrap_or(1),
        "the schema's version never goes down"
    );
    for (version, stores) in EARLIER_VERSIONS {
        for s in *stores {
            assert!(
                all.contains(s),
                "store {s} of version {version} is no longer declared: opening would delete it"
            );
        }
        let name = format!("rt-migration-v{version}");
        write_as_version(&name, *version, stores).await;
        let db = idb::open(&name).await.expect("opens with today's schema");
        assert_eq!(db.version().expect("version"), idb::version());
        let mut names = db.store_names();
        names.sort();
        let mut want = all.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        want.sort();
        assert_eq!(names, want, "every declared store exists after the upgrade");
        for s in *stores {
            let tx = db
                .transaction(&[*s], TransactionMode::ReadOnly)
                .expect("tx");
            let store = tx.store(s).expect("store");
            for n in 0..3 {
                let v = store.get(key_of(s, n)).await.expect("get");
                assert_eq!(
                    v.and_then(|v| v.as_string()),
                    Some(record_of(s, n)),
                    "{s} record {n} written by version {version} survives"
                );
            }
        }
        db.close();
    }
    // The records read back through their owners' readers.
    use roundtable::engine::run::record::{read_chunk_record, read_run_record};
    assert!(read_run_record(&record_of("runs", 0)).is_ok());
    assert!(read_chunk_record(&record_of("chunks", 0)).is_ok());
}

// ---------------------------------------------------------------- MAEL

/// The SIMD dot product of the browser build (`embed::dot`) agrees with a
/// plain sum, for lengths that are and are not multiples of its lanes.
#[wasm_bindgen_test]
fn simd_dot_product_matches_a_plain_sum() {
    use roundtable::engine::model::embed::dot;
    use roundtable::engine::model::retry::SplitMix;
    let mut rng = SplitMix::new(3);
    for n in [0usize, 1, 7, 8, 15, 16, 17, 33, 384, 385, 1536] {
        let a: Vec<f32> = (0..n).map(|_| rng.unit() as f32 - 0.5).collect();
        let b: Vec<f32> = (0..n).map(|_| rng.unit() as f32 - 0.5).collect();
        let plain: f64 = a.iter().zip(&b).map(|(x, y)| *x as f64 * *y as f64).sum();
        let got = dot(&a, &b) as f64;
        assert!((got - plain).abs() < 1e-4, "n = {n}: {got} vs {plain}");
    }
    // Slices of different lengths: the common prefix.
    assert_eq!(dot(&[1.0, 2.0, 3.0], &[1.0, 1.0]), 3.0);
}

fn pool_of(
    n: usize,
    from: usize,
) -> Vec<(
    roundtable::engine::coordinators::mael::experience::Experience,
    Vec<f32>,
)> {
    use roundtable::engine::coordinators::mael::contract::StepKind;
    use roundtable::engine::coordinators::mael::experience::Experience;
    use roundtable::engine::model::embed::LexicalEmbedder;
    (from..from + n)
        .map(|i| {
            let input = format!("# Task\nFind the cost of {i} kites at ${} each.", i % 17);
            (
                Experience {
                    id: format!("x{i}"),
                    agent: format!("a{}", 1 + i % 4),
                    step: StepKind::ALL[i % 5],
                    task_id: format!("builtin:train:{}@run", i / 9),
                    output: format!("Answer: {i}"),
                    reward: (i % 11) as f64 / 10.0,
                    dataset: "builtin".into(),
                    depth: (i % 2) as u32,
                    input: input.clone(),
                },
                LexicalEmbedder.vector(&input),
            )
        })
        .collect()
}

fn same_pool(
    a: &roundtable::engine::coordinators::mael::experience::Pool,
    b: &roundtable::engine::coordinators::mael::experience::Pool,
) {
    assert_eq!(a.embedder, b.embedder);
    assert_eq!(a.entries, b.entries);
    assert_eq!(a.packed().len(), b.packed().len());
    for (x, y) in a.packed().iter().zip(b.packed()) {
        assert!((x - y).abs() < 1e-6, "{x} vs {y}");
    }
}

/// A pool saved to IndexedDB (entries as JSON, vectors as Float32Array in
/// chunks) loads back as it was; saving after more entries writes only the
/// chunks from the first changed one and loses nothing; a damaged chunk is
/// an error naming the pool; deleting removes it and its chunks.
#[wasm_bindgen_test]
async fn experience_pools_persist_in_indexeddb() {
    use roundtable::engine::coordinators::mael::experience::Pool;
    use roundtable::engine::model::embed::{Embedder, LexicalEmbedder};
    use roundtable::platform::experience_store::{self, CHUNK};
    let name = "browser-test-pool";
    let _ = experience_store::delete(name).await;
    let mut pool = Pool::new(LexicalEmbedder.id());
    for (e, v) in pool_of(CHUNK * 2 + 100, 0) {
        pool.push(e, v).expect("push");
    }
    experience_store::save(name, &pool, 0).await.expect("save");
    let back = experience_store::load(name, &LexicalEmbedder.id())
        .await
        .expect("load");
    same_pool(&back, &pool);
    // Append: the last, partly filled chunk and the new ones are written.
    let saved = pool.len();
    for (e, v) in pool_of(CHUNK + 7, saved) {
        pool.push(e, v).expect("push");
    }
    experience_store::save(name, &pool, saved)
        .await
        .expect("save again");
    let back = experience_store::load(name, &LexicalEmbedder.id())
        .await
        .expect("load again");
    same_pool(&back, &pool);
    let meta = experience_store::list()
        .await
        .expect("list")
        .into_iter()
        .find(|m| m.name == name)
        .expect("listed");
    assert_eq!(
        (meta.count, meta.chunks as usize),
        (pool.len(), pool.len().div_ceil(CHUNK))
    );
    // A damaged chunk: vectors that do not match the entries.
    {
        use rexie::TransactionMode;
        let db = roundtable::platform::idb::open(roundtable::platform::idb::DB_NAME)
            .await
            .expect("db");
        let tx = db
            .transaction(&["mael_pool_chunks"], TransactionMode::ReadWrite)
            .expect("tx");
        let obj = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&obj, &"entries".into(), &"[]".into());
        let _ = js_sys::Reflect::set(
            &obj,
            &"vectors".into(),
            &js_sys::Float32Array::new_with_length(3),
        );
        let key = js_sys::Array::of2(&name.into(), &wasm_bindgen::JsValue::from_f64(1.0));
        tx.store("mael_pool_chunks")
            .expect("store")
            .put(&obj, Some(&key))
            .await
            .expect("put");
        tx.done().await.expect("commit");
        db.close();
    }
    let err = experience_store::load(name, &LexicalEmbedder.id())
        .await
        .expect_err("damaged");
    assert!(err.contains(name) && err.contains("damaged"), "{err}");
    experience_store::delete(name).await.expect("delete");
    assert!(!experience_store::list()
        .await
        .expect("list")
        .iter()
        .any(|m| m.name == name));
    let empty = experience_store::load(name, &LexicalEmbedder.id())
        .await
        .expect("no pool: empty");
    assert!(empty.is_empty());
}

/// An imported task set is checked before it is kept: a file with a bad
/// line is refused (naming the line) and nothing is stored.
#[wasm_bindgen_test]
async fn imported_task_sets_are_checked_before_they_are_kept() {
    use roundtable::engine::domains::tasks::Dataset;
    use roundtable::platform::task_sets;
    let good =
        "{\"question\": \"Two apples and three more?\", \"answer\": \"2 + 3 = 5\\n#### 5\"}\n";
    let bad = format!("{good}{{\"question\": \"no answer\"}}\n");
    let before = task_sets::list().await;
    let err = task_sets::save("bad.jsonl", Dataset::Gsm8k, &bad)
        .await
        .expect_err("refused");
    assert!(err.contains("line 2"), "{err}");
    assert_eq!(task_sets::list().await, before, "nothing stored");
    assert_eq!(
        task_sets::save("good.jsonl", Dataset::Gsm8k, good).await,
        Ok(1)
    );
    assert!(task_sets::list()
        .await
        .contains(&("good.jsonl".to_string(), Dataset::Gsm8k)));
    let tasks = task_sets::load("good.jsonl").await.expect("load");
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0].score("so 5"), 1.0);
    task_sets::delete("good.jsonl").await.expect("delete");
    assert!(task_sets::load("good.jsonl").await.is_err());
}
