//! MAEL in the browser: SIMD retrieval maths, experience pools and imported task sets in IndexedDB.

#[allow(unused_imports)]
use super::*;

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

pub(crate) fn pool_of(
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
/// an error naming the pool, and so is a lost chunk (not a smaller pool);
/// the tasks it learned from are kept; deleting removes it and its chunks.
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
    let task = roundtable::engine::domains::tasks::builtin::tasks(
        roundtable::engine::domains::tasks::builtin::Split::Train,
    )
    .remove(3);
    pool.note_learned(&task);
    experience_store::save(name, &pool, saved)
        .await
        .expect("save again");
    let back = experience_store::load(name, &LexicalEmbedder.id())
        .await
        .expect("load again");
    same_pool(&back, &pool);
    assert_eq!(back.learned, pool.learned);
    assert!(back.has_learned(&task));
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
    // A lost chunk: the pool is damaged, not smaller.
    {
        use rexie::TransactionMode;
        let db = roundtable::platform::idb::open(roundtable::platform::idb::DB_NAME)
            .await
            .expect("db");
        let tx = db
            .transaction(&["mael_pool_chunks"], TransactionMode::ReadWrite)
            .expect("tx");
        let key = js_sys::Array::of2(&name.into(), &wasm_bindgen::JsValue::from_f64(3.0));
        tx.store("mael_pool_chunks")
            .expect("store")
            .delete(key.into())
            .await
            .expect("delete");
        tx.done().await.expect("commit");
        db.close();
    }
    let err = experience_store::load(name, &LexicalEmbedder.id())
        .await
        .expect_err("a chunk lost");
    assert!(
        err.contains(name) && err.contains("3 of its 4 chunks"),
        "{err}"
    );
    experience_store::save(name, &pool, 0)
        .await
        .expect("saved whole");
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
    assert!(
        err.contains(name) && err.contains("vectors and entries do not match"),
        "{err}"
    );
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

/// A pool's lock (Web Locks) is held by one holder at a time: a second
/// asker is refused at once (not queued), and dropping the guard frees it.
#[wasm_bindgen_test]
async fn one_learner_at_a_time_holds_a_pools_lock() {
    use roundtable::platform::locks::{pool_lock, try_lock};
    let name = pool_lock("browser-test-lock");
    let first = try_lock(&name).await.expect("free: taken");
    assert!(try_lock(&name).await.is_none(), "held: refused");
    let other = try_lock(&pool_lock("another pool")).await;
    assert!(other.is_some(), "another pool's lock is free");
    drop(first);
    // The release resolves a promise: the lock is free a moment later.
    let mut again = None;
    for _ in 0..50 {
        again = try_lock(&name).await;
        if again.is_some() {
            break;
        }
        gloo_timers::future::TimeoutFuture::new(10).await;
    }
    assert!(again.is_some(), "released on drop");
}
