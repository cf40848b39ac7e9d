//! The seam for stored run resources (`platform::stored`): a pool opened
//! for runs saves only what is new since its last save, and a save that
//! fails leaves its mark where it was, so the next one writes it again.

use roundtable::platform::idb::StoreError;
use roundtable::platform::stored::{Keep, Stored};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen_test::*;

/// A resource whose saves fail as many times as asked, noting the mark
/// each save was asked to write from.
struct Flaky;

#[derive(Default)]
struct FlakyLive {
    items: Vec<u32>,
    failures: u32,
    asked_from: Vec<usize>,
}

impl Keep for Flaky {
    type Live = RefCell<FlakyLive>;
    type Mark = usize;

    fn mark(live: &Self::Live) -> usize {
        live.borrow().items.len()
    }

    fn write(
        _: &str,
        live: &Self::Live,
        saved: usize,
    ) -> futures::future::LocalBoxFuture<'static, Result<(), StoreError>> {
        let mut l = live.borrow_mut();
        l.asked_from.push(saved);
        let fail = l.failures > 0;
        l.failures = l.failures.saturating_sub(1);
        Box::pin(async move {
            match fail {
                true => Err(StoreError {
                    quota: true,
                    detail: "QuotaExceededError".into(),
                }),
                false => Ok(()),
            }
        })
    }
}

#[wasm_bindgen_test]
async fn a_failed_save_is_written_again_by_the_next() {
    let live = FlakyLive {
        items: vec![1, 2],
        failures: 1,
        ..FlakyLive::default()
    };
    let stored: Rc<Stored<Flaky>> = Stored::opened("flaky", RefCell::new(live), None);
    stored.live().borrow_mut().items.push(3);
    assert!(stored.save_new().await.is_err(), "the first save fails");
    stored.live().borrow_mut().items.push(4);
    stored.save_new().await.expect("saves");
    stored.live().borrow_mut().items.push(5);
    stored.save_new().await.expect("saves");
    // Opened with 2 stored; the failed save's entries are written again.
    assert_eq!(stored.live().borrow().asked_from, vec![2, 2, 4]);
}

/// A pool opened for runs writes only the chunks from the first that
/// changed: a chunk before it, lost behind the store's back, is not
/// written again (the pool then reads as damaged, which proves it), and a
/// whole save puts it back.
#[wasm_bindgen_test]
async fn a_stored_pool_saves_only_its_new_chunks() {
    use roundtable::engine::coordinators::mael::experience::Pool;
    use roundtable::engine::coordinators::mael::memory::Memory;
    use roundtable::engine::model::embed::{Embedder, LexicalEmbedder};
    use roundtable::platform::experience_store::{self, Pools, CHUNK};
    let name = "browser-test-stored-pool";
    let _ = experience_store::delete(name).await;
    let mut pool = Pool::new(LexicalEmbedder.id());
    for (e, v) in crate::mael::pool_of(CHUNK * 2 + 10, 0) {
        pool.push(e, v).expect("push");
    }
    experience_store::save(name, &pool, 0).await.expect("save");
    let loaded = experience_store::load(name, &LexicalEmbedder.id())
        .await
        .expect("load");
    let memory = Memory::new(name, loaded, Rc::new(LexicalEmbedder)).expect("memory");
    let stored: Rc<Stored<Pools>> = Stored::opened(name, memory, None);
    // Chunk 0 lost behind the store's back.
    {
        use rexie::TransactionMode;
        let db = roundtable::platform::idb::open(roundtable::platform::idb::DB_NAME)
            .await
            .expect("db");
        let tx = db
            .transaction(&["mael_pool_chunks"], TransactionMode::ReadWrite)
            .expect("tx");
        let key = js_sys::Array::of2(&name.into(), &wasm_bindgen::JsValue::from_f64(0.0));
        tx.store("mael_pool_chunks")
            .expect("store")
            .delete(key.into())
            .await
            .expect("delete");
        tx.done().await.expect("done");
    }
    for (e, v) in crate::mael::pool_of(5, CHUNK * 2 + 10) {
        stored.live().pool.borrow_mut().push(e, v).expect("push");
    }
    stored.save_new().await.expect("saves what is new");
    let e = experience_store::load(name, &LexicalEmbedder.id())
        .await
        .unwrap_err();
    assert!(e.contains("damaged"), "chunk 0 was not written again: {e}");
    // A whole save (from 0) writes every chunk.
    let whole = stored.live().pool.borrow().clone();
    experience_store::save(name, &whole, 0).await.expect("save");
    let back = experience_store::load(name, &LexicalEmbedder.id())
        .await
        .expect("load");
    assert_eq!(back.len(), CHUNK * 2 + 15);
    experience_store::delete(name).await.expect("delete");
}
