//! The worker's side in Chromium, inside a dedicated worker (where OPFS sync
//! access handles and FileReaderSync exist): a generated model goes in as a
//! Blob, is checked, copied into OPFS and hashed, listed, loaded from OPFS
//! through the sync handle, and streams; a cancel stops it before the next
//! token; bad files leave nothing stored.
#![cfg(target_arch = "wasm32")]

use candle_core::quantized::GgmlDType;
use llm_worker::protocol::{ChatTurn, FromWorker, GenParams, StoredModel, ToWorker};
use llm_worker::tiny::{random_model, scripted_model, Shape};
use llm_worker::worker::{cancel, handle, new_state, store, Shared};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

fn blob(bytes: &[u8]) -> web_sys::Blob {
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&array);
    web_sys::Blob::new_with_u8_array_sequence(&parts).expect("blob")
}

/// A worker state whose answers are collected.
fn worker() -> (Shared, Rc<RefCell<Vec<FromWorker>>>) {
    let got = Rc::new(RefCell::new(Vec::new()));
    let sink = got.clone();
    (
        new_state(Rc::new(move |m: &FromWorker| {
            sink.borrow_mut().push(m.clone())
        })),
        got,
    )
}

fn last(got: &Rc<RefCell<Vec<FromWorker>>>) -> FromWorker {
    got.borrow().last().cloned().expect("an answer")
}

async fn clear_store() {
    for m in store::list().await.expect("lists") {
        store::delete(&m.info.sha256).await.expect("deletes");
    }
}

async fn import(
    state: &Shared,
    got: &Rc<RefCell<Vec<FromWorker>>>,
    bytes: &[u8],
    name: &str,
) -> Result<StoredModel, String> {
    handle(
        state,
        ToWorker::Import {
            id: 1,
            file_name: name.into(),
        },
        Some(blob(bytes)),
    )
    .await;
    match last(got) {
        FromWorker::Imported { model, .. } => Ok(model),
        FromWorker::Error { message, .. } => Err(message),
        other => panic!("unexpected {other:?}"),
    }
}

/// Asks for an answer of at most `max` tokens from model `sha256`.
async fn generate(state: &Shared, id: u32, sha256: &str, max: u32) {
    let params = GenParams {
        max_tokens: Some(max),
        ..Default::default()
    };
    let msg = ToWorker::Generate {
        id,
        sha256: sha256.into(),
        turns: turns(),
        params,
    };
    handle(state, msg, None).await;
}

/// The text of every delta answered so far.
fn streamed(got: &Rc<RefCell<Vec<FromWorker>>>) -> String {
    got.borrow()
        .iter()
        .filter_map(|m| match m {
            FromWorker::Delta { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn turns() -> Vec<ChatTurn> {
    vec![ChatTurn {
        role: "user".into(),
        content: "Hello world, plan the tool answer.".into(),
    }]
}

#[wasm_bindgen_test]
async fn a_model_goes_into_opfs_loads_from_it_and_streams() {
    clear_store().await;
    let (state, got) = worker();
    let reply = "Hello from the tiny model.";
    let bytes = scripted_model("Tiny scripted", reply).expect("writes");
    let model = import(&state, &got, &bytes, "tiny.gguf")
        .await
        .expect("imports");
    // Progress while copying, ending at the file's size; the SHA-256 of the bytes.
    let copied: Vec<(u64, u64)> = got
        .borrow()
        .iter()
        .filter_map(|m| match m {
            FromWorker::Progress {
                stage, done, total, ..
            } if stage == "copying" => Some((*done, *total)),
            _ => None,
        })
        .collect();
    assert_eq!(
        copied.last(),
        Some(&(bytes.len() as u64, bytes.len() as u64))
    );
    use sha2::Digest;
    let sha: String = sha2::Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(model.info.sha256, sha);
    assert_eq!(
        (model.info.name.as_str(), model.storage.as_str()),
        ("Tiny scripted", "opfs")
    );
    // The same file again is stored once.
    import(&state, &got, &bytes, "copy.gguf")
        .await
        .expect("imports");
    assert_eq!(store::list().await.expect("lists").len(), 1);

    handle(
        &state,
        ToWorker::Load {
            id: 2,
            sha256: sha.clone(),
        },
        None,
    )
    .await;
    assert!(
        matches!(last(&got), FromWorker::Loaded { id: 2, .. }),
        "{:?}",
        last(&got)
    );
    got.borrow_mut().clear();
    generate(&state, 3, &sha, 32).await;
    let text = streamed(&got);
    assert_eq!(text, reply);
    match last(&got) {
        FromWorker::Done {
            output_tokens,
            finish,
            prompt_tokens,
            ..
        } => {
            assert_eq!((output_tokens, finish.as_str()), (6, "stop"));
            assert!(prompt_tokens > 10);
        }
        other => panic!("unexpected {other:?}"),
    }
    // Another request loads another model: a generation still answers
    // from the model it names.
    let other = random_model(&Shape::tiny("llama"), GgmlDType::Q8_0, 3).expect("writes");
    let other = import(&state, &got, &other, "other.gguf")
        .await
        .expect("imports");
    handle(
        &state,
        ToWorker::Load {
            id: 9,
            sha256: other.info.sha256.clone(),
        },
        None,
    )
    .await;
    got.borrow_mut().clear();
    generate(&state, 10, &sha, 32).await;
    let again = streamed(&got);
    assert_eq!(again, reply);
    handle(
        &state,
        ToWorker::Delete {
            id: 11,
            sha256: other.info.sha256,
        },
        None,
    )
    .await;
    handle(&state, ToWorker::Delete { id: 4, sha256: sha }, None).await;
    assert!(store::list().await.expect("lists").is_empty());
}

#[wasm_bindgen_test]
async fn a_cancel_stops_generation_before_the_next_token() {
    clear_store().await;
    let got = Rc::new(RefCell::new(Vec::new()));
    let state_cell: Rc<RefCell<Option<Shared>>> = Rc::new(RefCell::new(None));
    let (sink, cell) = (got.clone(), state_cell.clone());
    // The "page" cancels as soon as the third token arrives.
    let state = new_state(Rc::new(move |m: &FromWorker| {
        sink.borrow_mut().push(m.clone());
        let deltas = sink
            .borrow()
            .iter()
            .filter(|m| matches!(m, FromWorker::Delta { .. }))
            .count();
        if deltas == 3 {
            if let Some(s) = cell.borrow().as_ref() {
                cancel(s, 7);
            }
        }
    }));
    *state_cell.borrow_mut() = Some(state.clone());
    let bytes = random_model(&Shape::tiny("llama"), GgmlDType::Q8_0, 9).expect("writes");
    let model = import(&state, &got, &bytes, "random.gguf")
        .await
        .expect("imports");
    handle(
        &state,
        ToWorker::Load {
            id: 2,
            sha256: model.info.sha256.clone(),
        },
        None,
    )
    .await;
    got.borrow_mut().clear();
    generate(&state, 7, &model.info.sha256, 200).await;
    match last(&got) {
        FromWorker::Done {
            finish,
            output_tokens,
            ..
        } => {
            assert_eq!(finish, "cancelled");
            let deltas = got
                .borrow()
                .iter()
                .filter(|m| matches!(m, FromWorker::Delta { .. }))
                .count();
            assert_eq!(deltas, 3, "no token after the cancel");
            assert!((3..200).contains(&output_tokens), "{output_tokens}");
        }
        other => panic!("unexpected {other:?}"),
    }
    // The next request is answered normally.
    generate(&state, 8, &model.info.sha256, 5).await;
    assert!(
        matches!(last(&got), FromWorker::Done { id: 8, ref finish, .. } if finish != "cancelled")
    );
    clear_store().await;
}

#[wasm_bindgen_test]
async fn bad_files_leave_nothing_stored() {
    clear_store().await;
    let (state, got) = worker();
    let good = random_model(&Shape::tiny("llama"), GgmlDType::Q8_0, 1).expect("writes");
    let e = import(&state, &got, b"GGUF\x03\x00\x00\x00\x05\x00", "bad.gguf")
        .await
        .unwrap_err();
    assert!(e.contains("damaged or incomplete"), "{e}");
    let e = import(&state, &got, &good[..good.len() - 1000], "cut.gguf")
        .await
        .unwrap_err();
    assert!(e.contains("incomplete"), "{e}");
    let e = import(
        &state,
        &got,
        b"<html>a web page saved as .gguf</html>",
        "page.gguf",
    )
    .await
    .unwrap_err();
    assert!(e.contains("not a GGUF model file"), "{e}");
    assert!(store::list().await.expect("lists").is_empty());
    // Loading a model that is not stored says what to do.
    handle(
        &state,
        ToWorker::Load {
            id: 3,
            sha256: "0".repeat(64),
        },
        None,
    )
    .await;
    assert!(
        matches!(last(&got), FromWorker::Error { ref message, .. } if message.contains("add its file again"))
    );
}

#[wasm_bindgen_test]
async fn where_opfs_is_missing_models_go_to_indexeddb() {
    use llm_worker::engine::Engine;
    use llm_worker::worker::store_idb;
    for m in store_idb::list().await.expect("lists") {
        store_idb::delete(&m.info.sha256).await.expect("deletes");
    }
    let reply = "Hello from the tiny model.";
    let bytes = scripted_model("Tiny scripted", reply).expect("writes");
    let e = store_idb::import(
        blob(&bytes[..bytes.len() / 2]),
        "cut.gguf",
        1.0,
        &|_, _, _| {},
    )
    .await
    .unwrap_err();
    assert!(e.contains("incomplete"), "{e}");
    assert!(
        store_idb::list().await.expect("lists").is_empty(),
        "nothing stored half-way"
    );
    let model = store_idb::import(blob(&bytes), "tiny.gguf", 2.0, &|_, _, _| {})
        .await
        .expect("imports");
    assert_eq!(model.storage, "indexeddb");
    // The store lists it with the OPFS models, and loads it like them.
    assert!(store::list()
        .await
        .expect("lists")
        .iter()
        .any(|m| m.info.sha256 == model.info.sha256));
    let (mut reader, size) = store::open(&model.info.sha256).await.expect("opens");
    assert_eq!(size, bytes.len() as u64);
    let mut engine = Engine::load(&mut reader, size).expect("loads");
    let mut text = String::new();
    let params = GenParams {
        max_tokens: Some(32),
        ..Default::default()
    };
    engine
        .generate(&turns(), &params, &mut |d| text.push_str(d))
        .expect("generates");
    assert_eq!(text, reply);
    store::delete(&model.info.sha256).await.expect("deletes");
    assert!(store_idb::list().await.expect("lists").is_empty());
}
