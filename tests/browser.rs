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
/// version's code wrote them (JSON text values under string keys; History's
/// chunks keyed [run id, n]; MAEL's pool chunks keyed [pool, n], objects of
/// entries as JSON text and vectors as a Float32Array). A new version adds
/// its row here.
const EARLIER_VERSIONS: &[(u32, &[&str])] = &[
    (1, &["runs", "chunks"]),
    (2, &["runs", "chunks", "travel_dbs", "travel_queries"]),
    (
        3,
        &[
            "runs",
            "chunks",
            "travel_dbs",
            "travel_queries",
            "mael_pools",
            "mael_pool_chunks",
            "task_sets",
        ],
    ),
];

fn key_of(store: &str, n: usize) -> wasm_bindgen::JsValue {
    use wasm_bindgen::JsValue;
    match store {
        "chunks" => {
            js_sys::Array::of2(&JsValue::from_str("run-1"), &JsValue::from_f64(n as f64)).into()
        }
        "mael_pool_chunks" => {
            js_sys::Array::of2(&JsValue::from_str("pool-1"), &JsValue::from_f64(n as f64)).into()
        }
        _ => JsValue::from_str(&format!("{store}-{n}")),
    }
}

/// A record as the store's owner writes it (for MAEL's pool chunks, the
/// chunk's entries).
fn record_of(store: &str, n: usize) -> String {
    use roundtable::engine::domains::tasks::Dataset;
    use roundtable::engine::model::embed::{Embedder, LexicalEmbedder};
    use roundtable::engine::run::record::{write_chunk_record, write_run_record, RunMeta};
    use roundtable::engine::run::{LoggedEvent, ModelSpec, RunConfig, RunEvent};
    use roundtable::platform::experience_store::PoolMeta;
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
        "mael_pools" => serde_json::to_string(&PoolMeta {
            v: 1,
            name: format!("{store}-{n}"),
            embedder: LexicalEmbedder.id(),
            count: 1,
            chunks: 1,
            updated_ms: 1.0,
        })
        .expect("meta"),
        "mael_pool_chunks" => {
            let entries: Vec<_> = pool_of(1, n).into_iter().map(|(e, _)| e).collect();
            serde_json::to_string(&entries).expect("entries")
        }
        "task_sets" => serde_json::json!({
            "v": 1,
            "name": format!("{store}-{n}"),
            "dataset": Dataset::Gsm8k,
            "jsonl": format!("{{\"question\": \"{n} + 1?\", \"answer\": \"#### {}\"}}", n + 1),
        })
        .to_string(),
        _ => format!("{{\"v\":1,\"name\":\"{store}-{n}\",\"jsonl\":\"{{}}\"}}"),
    }
}

/// The value as the store's owner writes it.
fn value_of(store: &str, n: usize) -> wasm_bindgen::JsValue {
    use wasm_bindgen::JsValue;
    let text = JsValue::from_str(&record_of(store, n));
    if store != "mael_pool_chunks" {
        return text;
    }
    let obj = js_sys::Object::new();
    let vectors: Vec<f32> = pool_of(1, n).into_iter().flat_map(|(_, v)| v).collect();
    let _ = js_sys::Reflect::set(&obj, &"entries".into(), &text);
    let _ = js_sys::Reflect::set(
        &obj,
        &"vectors".into(),
        &js_sys::Float32Array::from(&vectors[..]),
    );
    obj.into()
}

/// Whether `v`, read back, is what [`value_of`] wrote.
fn is_value_of(store: &str, n: usize, v: Option<wasm_bindgen::JsValue>) -> bool {
    use wasm_bindgen::JsCast;
    let Some(v) = v else { return false };
    if store != "mael_pool_chunks" {
        return v.as_string() == Some(record_of(store, n));
    }
    let entries = js_sys::Reflect::get(&v, &"entries".into())
        .ok()
        .and_then(|e| e.as_string());
    let vectors = js_sys::Reflect::get(&v, &"vectors".into())
        .ok()
        .filter(|v| v.is_instance_of::<js_sys::Float32Array>())
        .map(|v| js_sys::Float32Array::from(v).to_vec());
    let want: Vec<f32> = pool_of(1, n).into_iter().flat_map(|(_, v)| v).collect();
    entries == Some(record_of(store, n)) && vectors == Some(want)
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
            store
                .put(&value_of(s, n), Some(&key_of(s, n)))
                .await
                .expect("put");
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
                assert!(
                    is_value_of(s, n, v),
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
    use roundtable::engine::coordinators::mael::experience::Experience;
    use roundtable::engine::domains::tasks::{parse_jsonl, Dataset};
    use roundtable::platform::experience_store::PoolMeta;
    assert!(serde_json::from_str::<PoolMeta>(&record_of("mael_pools", 0)).is_ok());
    assert!(serde_json::from_str::<Vec<Experience>>(&record_of("mael_pool_chunks", 0)).is_ok());
    let set: serde_json::Value = serde_json::from_str(&record_of("task_sets", 0)).expect("set");
    assert!(parse_jsonl(Dataset::Gsm8k, set["jsonl"].as_str().expect("jsonl"), "t").is_ok());
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

// ---------------------------------------------------------------- ACT

/// A bank of `agents` agents, agent i holding i + 1 knowledge entries and
/// one episode about each other agent.
fn act_bank(
    name: &str,
    agents: usize,
    trials: u32,
) -> roundtable::engine::coordinators::act::plus::BankData {
    use roundtable::engine::coordinators::act::contract::{AgentTask, Episode, Knowledge};
    use roundtable::engine::coordinators::act::plus::BankData;
    use roundtable::engine::coordinators::act::team::Agent;
    let mut bank = BankData::empty(name);
    bank.trials = trials;
    for i in 0..agents {
        let id = format!("m{}", i + 1);
        let mut a = Agent::new(
            &id,
            &format!("Member {}", i + 1),
            AgentTask {
                subject: format!("part {i}"),
                details: vec![format!("detail {i}")],
            },
        );
        a.store.expertise = vec![format!("skill{i}"), "design".into()];
        for k in 0..=i {
            a.store.knowledge.push(Knowledge {
                id: format!("{id}-k{k}"),
                owner: id.clone(),
                source: format!("m{}", (i + 1) % agents + 1),
                source_name: String::new(),
                meeting: k as u32,
                summary: format!("Topic {k} is a thing. Agent {i} learnt it."),
                keywords: vec![format!("topic{k}"), "thing".into()],
                importance: (3 + k as u8) % 11,
                order: k as u32,
                flags: vec![],
            });
        }
        for j in (0..agents).filter(|&j| j != i) {
            a.store.episodes.push(Episode {
                id: format!("{id}-e{j}"),
                owner: id.clone(),
                about: format!("m{}", j + 1),
                meeting: 1,
                text: format!("m{} proposed a plan.", j + 1),
                flags: vec![],
            });
        }
        bank.agents.push(a);
    }
    bank
}

/// An ACT+ knowledge bank saved to IndexedDB is listed with its counts,
/// loads back equal, exports as a bank file (holding no API key) that
/// imports back equal under another name, and is gone once deleted.
#[wasm_bindgen_test]
async fn act_banks_persist_export_and_import_in_indexeddb() {
    use roundtable::engine::coordinators::act::plus::BankData;
    use roundtable::platform::act_store::{self, BankMeta};
    let name = "browser-test-act-bank";
    let copy = "browser-test-act-bank-copy";
    let _ = act_store::delete_bank(name).await;
    let _ = act_store::delete_bank(copy).await;
    let bank = act_bank(name, 3, 2);
    act_store::save_bank(name, &bank).await.expect("save");
    let listed = act_store::list_banks().await.expect("list");
    assert!(
        listed.contains(&BankMeta {
            name: name.into(),
            trials: 2,
            agents: 3,
            entries: 1 + 2 + 3,
            episodes: 3 * 2,
        }),
        "{listed:?}"
    );
    assert_eq!(
        act_store::load_bank(name).await.expect("load"),
        Some(bank.clone())
    );
    // Saving again replaces it.
    let mut more = bank.clone();
    more.trials = 3;
    act_store::save_bank(name, &more).await.expect("save again");
    assert_eq!(act_store::load_bank(name).await, Ok(Some(more.clone())));

    keys::set("openai", "sk-act-export-secret", false).expect("set");
    let text = act_store::export_bank(name).await.expect("export");
    keys::forget_all();
    assert!(
        !text.contains("sk-act-export-secret"),
        "no key in an export"
    );
    assert_eq!(BankData::from_json(&text), Ok(more.clone()));
    let meta = act_store::import_bank(copy, &text).await.expect("import");
    assert_eq!(
        meta,
        BankMeta {
            name: copy.into(),
            trials: 3,
            agents: 3,
            entries: 6,
            episodes: 6,
        }
    );
    let back = act_store::load_bank(copy)
        .await
        .expect("load copy")
        .expect("stored");
    assert_eq!(back.name, copy, "the imported bank takes its new name");
    assert_eq!(
        BankData {
            name: name.into(),
            ..back
        },
        more
    );

    act_store::delete_bank(name).await.expect("delete");
    act_store::delete_bank(copy).await.expect("delete copy");
    let listed = act_store::list_banks().await.expect("list");
    assert!(!listed.iter().any(|m| m.name == name || m.name == copy));
    assert_eq!(act_store::load_bank(name).await, Ok(None));
    let err = act_store::export_bank(name).await.expect_err("gone");
    assert!(
        err.contains("no knowledge bank") && err.contains(name),
        "{err}"
    );
}

/// A damaged stored bank, or one a newer version wrote, is an error that
/// names it and says what to do; the list leaves it out.
#[wasm_bindgen_test]
async fn damaged_or_newer_act_banks_are_clear_errors() {
    use roundtable::platform::{act_store, idb};
    let good = act_bank("x", 2, 1);
    let mut bad_owner = good.clone();
    bad_owner.agents[1].store.knowledge[0].owner = "m1".into();
    let mut newer_bank = serde_json::to_value(&good).expect("bank");
    newer_bank["version"] = 2.into();
    let record = |v: u32, bank: serde_json::Value| {
        serde_json::json!({"v": v, "name": "n", "bank": bank}).to_string()
    };
    let cases: Vec<(&str, String, &[&str])> = vec![
        (
            "browser-test-act-not-json",
            "{not json".into(),
            &["damaged", "delete it"],
        ),
        (
            "browser-test-act-no-version",
            "{\"name\": \"n\"}".into(),
            &["damaged", "delete it"],
        ),
        (
            "browser-test-act-no-bank",
            "{\"v\": 1, \"name\": \"n\"}".into(),
            &["damaged", "holds no bank"],
        ),
        (
            "browser-test-act-bad-owner",
            record(1, serde_json::to_value(&bad_owner).expect("bank")),
            &["damaged", "owner", "delete it"],
        ),
        (
            "browser-test-act-newer-record",
            record(2, serde_json::to_value(&good).expect("bank")),
            &["newer version", "record version 2", "update Roundtable"],
        ),
        (
            "browser-test-act-newer-bank",
            record(1, newer_bank),
            &["newer version", "bank version 2", "update Roundtable"],
        ),
    ];
    for (name, text, want) in &cases {
        idb::put_text("act_banks", name, text).await.expect("put");
        let err = act_store::load_bank(name).await.expect_err(name);
        assert!(err.contains(name), "{err}");
        for w in *want {
            assert!(err.contains(w), "{name}: {err} should say {w}");
        }
        assert_eq!(act_store::export_bank(name).await, Err(err));
    }
    let listed = act_store::list_banks().await.expect("list still reads");
    assert!(
        !listed.iter().any(|m| cases.iter().any(|c| c.0 == m.name)),
        "{listed:?}"
    );
    for (name, _, _) in &cases {
        act_store::delete_bank(name).await.expect("delete");
    }
}

/// A file that is not a knowledge bank is refused on import, and nothing
/// is stored.
#[wasm_bindgen_test]
async fn importing_a_non_bank_file_stores_nothing() {
    use roundtable::platform::act_store;
    let name = "browser-test-act-refused";
    let _ = act_store::delete_bank(name).await;
    let pool = r#"{"format":"roundtable.experience-pool","version":1,"embedder":{"id":"lexical-v1","dims":384},"experiences":[]}"#;
    let err = act_store::import_bank(name, pool)
        .await
        .expect_err("a pool is not a bank");
    assert!(err.contains("not an ACT knowledge bank"), "{err}");
    let err = act_store::import_bank(name, "subject,details\n")
        .await
        .expect_err("not JSON");
    assert!(err.contains("not JSON"), "{err}");
    let mut future = serde_json::to_value(act_bank(name, 1, 0)).expect("bank");
    future["version"] = 7.into();
    let err = act_store::import_bank(name, &future.to_string())
        .await
        .expect_err("newer bank");
    assert!(err.contains("version"), "{err}");
    assert_eq!(act_store::load_bank(name).await, Ok(None), "nothing stored");
    assert!(!act_store::list_banks()
        .await
        .expect("list")
        .iter()
        .any(|m| m.name == name));
}

/// Creative task sets are checked before they are kept (a bad line is
/// refused, naming it, and nothing is stored); community items and a
/// Trivia Creative Writing file read back as they were; delete removes
/// them.
#[wasm_bindgen_test]
async fn act_task_sets_are_checked_before_they_are_kept() {
    use roundtable::engine::domains::creative::{parse_items, trial, trivia, CreativeSet};
    use roundtable::platform::act_store::{self, ActSet, SetKind};
    let items_name = "browser-test-act-items.jsonl";
    let trivia_name = "browser-test-act-trivia.jsonl";
    let _ = act_store::delete_set(items_name).await;
    let _ = act_store::delete_set(trivia_name).await;
    let before = act_store::list_sets().await;

    let good_items = "{\"subject\": \"A garden app\", \"details\": [\"for renters\"], \"solutions\": [\"Shared plots booked by the hour.\"]}\n\n{\"subject\": \"A bike repair kit\", \"solutions\": [\"A folding stand.\"]}\n{\"community\": \"c\", \"subject\": \"A library of tools\", \"details\": [], \"solutions\": [\"Lend drills.\", \"Lend ladders.\"]}\n";
    let bad_items = format!("{good_items}{{\"subject\": \"no solutions\"}}\n");
    let err = act_store::save_set(items_name, SetKind::Items, &bad_items)
        .await
        .expect_err("refused");
    assert!(err.contains("line 5") && err.contains(items_name), "{err}");
    let row = r#"{"topic": "Mario", "questions": ["Who wrote Exile?", "In which year?"], "answers": [["Taylor Swift", "Swift"], ["1912"]]}"#;
    let bad_trivia = format!("{row}\n{{\"topic\": \"x\", \"questions\": [\"q\"]}}\n");
    let err = act_store::save_set(trivia_name, SetKind::Trivia, &bad_trivia)
        .await
        .expect_err("refused");
    assert!(err.contains("line 2") && err.contains(trivia_name), "{err}");
    // Items are not trivia rows.
    let err = act_store::save_set(trivia_name, SetKind::Trivia, good_items)
        .await
        .expect_err("refused");
    assert!(err.contains("line 1"), "{err}");
    assert_eq!(act_store::list_sets().await, before, "nothing stored");
    assert!(act_store::load_set(items_name).await.is_err());

    assert_eq!(
        act_store::save_set(items_name, SetKind::Items, good_items).await,
        Ok(3)
    );
    let trivia_text = format!("{row}\n{}\n", row.replace("Mario", "Luigi"));
    assert_eq!(
        act_store::save_set(trivia_name, SetKind::Trivia, &trivia_text).await,
        Ok(2)
    );
    let listed = act_store::list_sets().await;
    assert!(listed.contains(&(items_name.to_string(), SetKind::Items)));
    assert!(listed.contains(&(trivia_name.to_string(), SetKind::Trivia)));

    let items = act_store::load_set(items_name).await.expect("load items");
    assert_eq!(items.kind(), SetKind::Items);
    let want = parse_items(good_items, items_name).expect("parse");
    assert_eq!(items, ActSet::Items(want.clone()));
    let ActSet::Items(items) = items else {
        unreachable!()
    };
    assert_eq!(
        trial(&items, CreativeSet::Imported, 1, 2),
        trial(&want, CreativeSet::Imported, 1, 2)
    );
    let tasks = act_store::load_set(trivia_name).await.expect("load trivia");
    assert_eq!(
        tasks,
        ActSet::Trivia(trivia::parse(&trivia_text, trivia_name).expect("parse"))
    );
    assert_eq!(tasks.len(), 2);
    let ActSet::Trivia(tasks) = tasks else {
        unreachable!()
    };
    assert_eq!(tasks[1].parts.len(), 2);
    assert!(tasks[1].text.contains("Luigi"));

    // A set stored by a newer version.
    let newer = "browser-test-act-newer-set";
    roundtable::platform::idb::put_text(
        "act_task_sets",
        newer,
        r#"{"v": 2, "name": "n", "kind": "poems", "jsonl": ""}"#,
    )
    .await
    .expect("put");
    let err = act_store::load_set(newer).await.expect_err("newer");
    assert!(
        err.contains(newer) && err.contains("newer version"),
        "{err}"
    );
    assert!(!act_store::list_sets().await.iter().any(|(n, _)| n == newer));
    act_store::delete_set(newer).await.expect("delete");

    act_store::delete_set(items_name).await.expect("delete");
    act_store::delete_set(trivia_name).await.expect("delete");
    assert_eq!(act_store::list_sets().await, before);
    let err = act_store::load_set(items_name).await.expect_err("gone");
    assert!(err.contains("not in this browser"), "{err}");
}
