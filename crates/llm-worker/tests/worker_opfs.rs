//! The worker's side in Chromium, inside a dedicated worker (where OPFS sync
//! access handles and FileReaderSync exist): a generated model goes in as a
//! Blob, is checked, copied into OPFS and hashed, listed, loaded from OPFS
//! through the sync handle, and streams; a cancel stops it before the next
//! token; bad files leave nothing stored.
#![cfg(target_arch = "wasm32")]

use candle_core::quantized::GgmlDType;
use llm_worker::host::{cancel, handle, new_state, store, Shared};
use llm_worker::protocol::{ChatTurn, FromWorker, GenParams, StoredModel, ToWorker};
use llm_worker::tiny::{random_model, scripted_model, Shape};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
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
    let listing = store::list().await.expect("lists");
    for m in listing.models {
        store::delete(&m.info.sha256).await.expect("deletes");
    }
    for l in listing.leftovers {
        store::delete_leftover(&l.file_id).await.expect("deletes");
    }
}

/// The names in the store's OPFS directory, sorted.
async fn stored_names() -> Vec<String> {
    let dir = store::dir().await.expect("opens");
    let iter = dir.keys();
    let mut out = Vec::new();
    loop {
        let next = JsFuture::from(iter.next().expect("iterates"))
            .await
            .expect("iterates");
        if js_sys::Reflect::get(&next, &"done".into())
            .expect("done")
            .as_bool()
            .unwrap_or(true)
        {
            break;
        }
        out.push(
            js_sys::Reflect::get(&next, &"value".into())
                .expect("value")
                .as_string()
                .expect("a name"),
        );
    }
    out.sort();
    out
}

/// Writes `bytes` as `name` in the store's directory, as another tab would.
async fn write_raw(name: &str, bytes: &[u8]) {
    let dir = store::dir().await.expect("opens");
    let opts = web_sys::FileSystemGetFileOptions::new();
    opts.set_create(true);
    let h: web_sys::FileSystemFileHandle =
        JsFuture::from(dir.get_file_handle_with_options(name, &opts))
            .await
            .expect("creates")
            .unchecked_into();
    let sync: web_sys::FileSystemSyncAccessHandle = JsFuture::from(h.create_sync_access_handle())
        .await
        .expect("locks")
        .unchecked_into();
    sync.truncate_with_u32(0).expect("truncates");
    sync.write_with_u8_array(bytes).expect("writes");
    sync.flush().expect("flushes");
    sync.close();
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
    assert_eq!(store::list().await.expect("lists").models.len(), 1);

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
    assert!(store::list().await.expect("lists").models.is_empty());
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
    assert!(store::list().await.expect("lists").models.is_empty());
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
    use llm_worker::generate::engine::Engine;
    use llm_worker::host::store_idb;
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
        .models
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

/// Issue 49's vanished model: listing (which every load, delete and Settings
/// does, in every tab and helper worker) used to remove a model whose record
/// it read while another tab was writing it, and a model file whose record
/// was missing. Now nothing but the user's Delete removes a file: the rest
/// is listed as a leftover, and a copy in progress (its lock held) is left
/// alone.
#[wasm_bindgen_test]
async fn listing_never_removes_a_file_and_leftovers_are_the_users_to_delete_or_restore() {
    use llm_worker::host::locks;
    clear_store().await;
    let (state, got) = worker();
    let bytes = scripted_model("Tiny scripted", "Hello.").expect("writes");
    let model = import(&state, &got, &bytes, "tiny.gguf")
        .await
        .expect("imports");
    let id = model.file_id.clone();
    let kept = vec![format!("{id}.gguf"), format!("{id}.json")];
    assert_eq!(stored_names().await, kept);

    // Another tab's copy in progress: a file and an empty record, its lock
    // held. Listed as nothing, removed by nothing.
    let copy_lock = locks::hold(&locks::copy_lock("mcopying"))
        .await
        .expect("locks");
    write_raw("mcopying.gguf", &bytes[..100]).await;
    write_raw("mcopying.json", b"").await;
    let listing = store::list().await.expect("lists");
    assert_eq!(listing.models, vec![model.clone()]);
    assert!(listing.leftovers.is_empty(), "{:?}", listing.leftovers);
    // Its lock released (the tab closed mid-copy): a leftover, still there.
    copy_lock.release().await;
    let listing = store::list().await.expect("lists");
    let kinds: Vec<(&str, &str, u64)> = listing
        .leftovers
        .iter()
        .map(|l| (l.file_id.as_str(), l.kind.as_str(), l.bytes))
        .collect();
    assert_eq!(kinds, vec![("mcopying", "damaged", 100)]);
    assert!(stored_names().await.contains(&"mcopying.json".to_string()));

    // The kept model's record damaged (an older version, a crash): its file
    // stays; the model is a leftover that Restore makes whole again.
    write_raw(&format!("{id}.json"), b"{\"info\": 3").await;
    let listing = store::list().await.expect("lists");
    assert!(listing.models.is_empty());
    let damaged = listing
        .leftovers
        .iter()
        .find(|l| l.file_id == id)
        .expect("listed");
    assert_eq!(
        (damaged.kind.as_str(), damaged.bytes),
        ("damaged", bytes.len() as u64)
    );
    assert!(stored_names().await.contains(&format!("{id}.gguf")));
    // A model file loses its record: a leftover too, never removed.
    write_raw("morphan.gguf", &bytes).await;
    handle(
        &state,
        ToWorker::RestoreLeftover {
            id: 20,
            file_id: id.clone(),
            known_names: [(model.info.sha256.clone(), "tiny.gguf".to_string())].into(),
        },
        None,
    )
    .await;
    let restored = match last(&got) {
        FromWorker::Imported { model, .. } => model,
        other => panic!("unexpected {other:?}"),
    };
    // The same model, file and name (the page knew the name by its hash).
    assert_eq!(
        (
            restored.info.sha256.as_str(),
            restored.file_id.as_str(),
            restored.file_name.as_str()
        ),
        (model.info.sha256.as_str(), id.as_str(), "tiny.gguf")
    );
    // The orphan is the same file: restoring it says so and keeps it.
    let e = store::restore_leftover("morphan", &Default::default(), 1.0, &|_, _, _| {})
        .await
        .unwrap_err();
    assert!(e.contains("second copy"), "{e}");
    // A cut-off copy cannot be restored: it says to delete it.
    let e = store::restore_leftover("mcopying", &Default::default(), 1.0, &|_, _, _| {})
        .await
        .unwrap_err();
    assert!(e.contains("Delete this file"), "{e}");
    // A usable model is not a leftover: deleting it as one is refused.
    assert!(store::delete_leftover(&id).await.is_err());
    // The user deletes the leftovers: only they go.
    for l in ["mcopying", "morphan"] {
        handle(
            &state,
            ToWorker::DeleteLeftover {
                id: 21,
                file_id: l.into(),
            },
            None,
        )
        .await;
        assert!(
            matches!(last(&got), FromWorker::Deleted { id: 21 }),
            "{:?}",
            last(&got)
        );
    }
    assert_eq!(stored_names().await, kept);
    let listing = store::list().await.expect("lists");
    assert_eq!(listing.models.len(), 1);
    assert!(listing.leftovers.is_empty());

    // A model open elsewhere (a sync handle held, as a loading tab does):
    // Delete removes nothing and says why.
    let (reader, _) = store::open(&model.info.sha256).await.expect("opens");
    let e = store::delete(&model.info.sha256).await.unwrap_err();
    assert!(e.contains("another tab"), "{e}");
    assert_eq!(stored_names().await, kept);
    drop(reader);
    store::delete(&model.info.sha256).await.expect("deletes");
    assert!(stored_names().await.is_empty());
}
