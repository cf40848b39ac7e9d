//! IndexedDB databases written by every earlier schema version open with nothing lost.

#[allow(unused_imports)]
use super::*;
use crate::mael::pool_of;

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
    (
        4,
        &[
            "runs",
            "chunks",
            "travel_dbs",
            "travel_queries",
            "mael_pools",
            "mael_pool_chunks",
            "task_sets",
            "act_banks",
            "act_task_sets",
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
    use roundtable::engine::run::{LoggedEvent, ModelSpec, RunConfig, RunEvent};
    use roundtable::engine::views::record::{write_chunk_record, write_run_record, RunMeta};
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
            tasks: Vec::new(),
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
    use roundtable::engine::views::record::{read_chunk_record, read_run_record};
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
