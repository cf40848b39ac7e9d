//! MAEL's commands end to end: a learning phase into a pool file, the
//! evaluation per mode (JSON lines), a run that writes the pool back,
//! `pool rank` and `pool merge`, bad pool files, and provider embeddings
//! over real HTTP against the mock server.

use crate::mock::{cli, requests, start_mock, tmp};
use roundtable::engine::coordinators::mael::experience::Pool;
use serde_json::Value;

pub fn lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn read_pool(path: &str) -> Pool {
    Pool::from_json(&std::fs::read_to_string(path).expect("pool file")).expect("a valid pool")
}

#[test]
fn learn_then_evaluate_then_rank_and_merge() {
    let pool = tmp("mael-pool.json");
    let _ = std::fs::remove_file(&pool);
    let (code, out, err) = cli(
        &["mael-learn", "--train", "12", "--out", &pool, "--quiet"],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("learned 12 tasks"), "{out}");
    // The demo's replies need no repair; the breakdown by step kind follows.
    assert!(out.contains("\nreplies repaired: 0 of "), "{out}");
    assert!(out.contains("\nReplies repaired by step kind  "), "{out}");
    assert!(out.contains("\nmael.critique "), "{out}");
    let p = read_pool(&pool);
    assert!(p.len() > 50 && p.traces().len() == 12);
    // Resumable: a second call learns only what is missing.
    let (code, out, _) = cli(
        &["mael-learn", "--train", "14", "--out", &pool, "--quiet"],
        None,
    );
    assert_eq!(code, 0);
    assert!(out.contains("learned 2 tasks"), "{out}");
    assert_eq!(read_pool(&pool).traces().len(), 14);

    let (code, out, err) = cli(
        &[
            "mael-eval",
            "--pool",
            &pool,
            "--test",
            "6",
            "--sizes",
            "none",
            "--json",
            "--quiet",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let rows = lines(&out);
    // Each row lists the test tasks it scored.
    let test_ids: Vec<String> = (0..6).map(|i| format!("builtin:test:{i}")).collect();
    for r in &rows {
        assert_eq!(r["tasks"], serde_json::json!(test_ids), "{r}");
    }
    assert_eq!(
        rows.iter()
            .map(|r| r["mode"].as_str().unwrap_or(""))
            .collect::<Vec<_>>(),
        ["none", "task", "step"]
    );
    for r in &rows {
        for key in ["score", "completion_tokens", "rounds"] {
            assert!(r[key].as_f64().is_some(), "{r}");
        }
        assert!((0.0..=1.0).contains(&r["score"].as_f64().unwrap_or(-1.0)));
        // Replies repaired: none of the demo's, in all and per step kind.
        let replies = r["replies"].as_u64().unwrap_or(0);
        assert!(replies > 0 && r["repaired"] == 0, "{r}");
        let steps = r["repaired_by_step"].as_object().expect("by step");
        let sum: u64 = steps.values().filter_map(|c| c["replies"].as_u64()).sum();
        assert_eq!(sum, replies, "{r}");
        assert!(steps.values().all(|c| c["repaired"] == 0), "{r}");
        // The built-in tasks have no composite score: no empty "parts".
        assert!(r.get("parts").is_none(), "{r}");
    }

    // The pool-size sweep (Fig. 3) in step mode: an empty pool is no
    // experience at all (the none row's score), the learned pool beats it.
    let (code, out, err) = cli(
        &[
            "mael-eval",
            "--pool",
            &pool,
            "--test",
            "6",
            "--modes",
            "none,step",
            "--sizes",
            "0,14",
            "--json",
            "--quiet",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let rows = lines(&out);
    assert_eq!(rows.len(), 4, "two modes, two pool sizes, JSON only: {out}");
    let none = rows[0]["score"].as_f64().unwrap_or(-1.0);
    let sweep: Vec<(u64, f64)> = rows[2..]
        .iter()
        .map(|r| {
            assert_eq!(r["mode"], "step", "{r}");
            (
                r["pool_tasks"].as_u64().unwrap_or(99),
                r["score"].as_f64().unwrap_or(-1.0),
            )
        })
        .collect();
    assert_eq!(sweep[0], (0, none));
    assert_eq!(sweep[1].0, 14);
    assert!(sweep[1].1 > sweep[0].1, "{sweep:?}");

    // A run that learns writes the pool back.
    let before = read_pool(&pool).len();
    let (code, out, err) = cli(
        &[
            "run",
            "--coordinator",
            "mael",
            "--task-idx",
            "2",
            "--pool",
            &pool,
            "--quiet",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Score"), "{out}");
    assert!(read_pool(&pool).len() > before);

    // pool rank: an entry's own vector ranks it first, similarity 1.
    let p = read_pool(&pool);
    let i = p
        .entries
        .iter()
        .position(|e| e.step.id() == "solve")
        .expect("a solve entry");
    let q = tmp("q.json");
    std::fs::write(&q, serde_json::to_string(p.vector(i)).expect("json")).expect("write");
    let e = &p.entries[i];
    let (code, out, err) = cli(
        &[
            "pool",
            "rank",
            "--pool",
            &pool,
            "--agent",
            &e.agent,
            "--step",
            "solve",
            "--query-embedding",
            &q,
            "--alpha",
            "1",
            "--k",
            "3",
            "--json",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let hits = lines(&out);
    assert_eq!(hits.len(), 3);
    assert!((hits[0]["similarity"].as_f64().unwrap_or(0.0) - 1.0).abs() < 1e-5);
    assert!(hits
        .windows(2)
        .all(|w| w[0]["score"].as_f64() >= w[1]["score"].as_f64()));
    let (code, _, err) = cli(
        &[
            "pool",
            "rank",
            "--pool",
            &pool,
            "--agent",
            "a2",
            "--step",
            "sing",
            "--query-embedding",
            &q,
        ],
        None,
    );
    assert_eq!(code, 2);
    assert!(err.contains("unknown --step"), "{err}");

    // pool merge: the union, by id.
    let other = tmp("mael-pool-b.json");
    let _ = std::fs::remove_file(&other);
    let (code, out, err) = cli(
        &[
            "mael-learn",
            "--train",
            "2",
            "--split",
            "test",
            "--out",
            &other,
            "--json",
            "--quiet",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    // --json: one line, with the replies repaired.
    let learned = lines(&out);
    assert_eq!(learned.len(), 1, "{out}");
    let l = &learned[0];
    assert_eq!(
        (l["row"].as_str(), l["learned"].as_u64()),
        (Some("learning"), Some(2)),
        "{l}"
    );
    assert!(
        l["replies"].as_u64().unwrap_or(0) > 0 && l["repaired"] == 0,
        "{l}"
    );
    assert!(
        l["repaired_by_step"]["mael.solve"]["replies"]
            .as_u64()
            .unwrap_or(0)
            > 0,
        "{l}"
    );
    let merged = tmp("mael-merged.json");
    let (code, out, err) = cli(&["pool", "merge", &pool, &other, "--out", &merged], None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        read_pool(&merged).len(),
        read_pool(&pool).len() + read_pool(&other).len(),
        "{out}"
    );
    // A pool file is written whole or not at all: when the new one cannot
    // be written, the old one is left as it was.
    let kept = tmp("mael-kept.json");
    std::fs::write(&kept, "the old pool").expect("write");
    let _ = std::fs::remove_dir_all(format!("{kept}.writing"));
    std::fs::create_dir(format!("{kept}.writing")).expect("a directory in the way");
    let (code, _, err) = cli(&["pool", "merge", &pool, &other, "--out", &kept], None);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot write"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&kept).expect("kept"),
        "the old pool"
    );
}

/// Learning and evaluation never share a task: a data file splits into its
/// even (training) and odd (test) tasks, the pool records what it learned
/// by content, and an evaluation on its training tasks is refused, even
/// from another file where they sit elsewhere. The default evaluation is
/// the paper's: 30 test tasks and Fig. 3's sweep in task-wise retrieval.
#[test]
fn evaluation_refuses_the_pools_training_tasks() {
    let data = tmp("mael-split.jsonl");
    let rows: Vec<String> = (0..8)
        .map(|i| {
            format!(
                "{{\"question\": \"What is {i} plus {i}?\", \"answer\": \"#### {}\"}}",
                2 * i
            )
        })
        .collect();
    std::fs::write(&data, rows.join("\n")).expect("write");
    let pool = tmp("mael-split-pool.json");
    let _ = std::fs::remove_file(&pool);
    let set = ["--dataset", "gsm8k", "--data", data.as_str()];
    let (code, _, err) = cli(
        &[
            &["mael-learn", "--train", "3", "--out", &pool, "--quiet"],
            &set[..],
        ]
        .concat(),
        None,
    );
    assert_eq!(code, 0, "{err}");
    let learned: Vec<String> = read_pool(&pool).learned.into_iter().map(|l| l.id).collect();
    assert_eq!(learned, ["gsm8k:0", "gsm8k:2", "gsm8k:4"]);
    let eval = |extra: &[&str], file: &str| {
        let base = ["mael-eval", "--pool", &pool, "--json", "--quiet"];
        let set = ["--dataset", "gsm8k", "--data", file];
        cli(&[&base[..], &set[..], extra].concat(), None)
    };
    // The test split: the odd tasks; the sweep by default, in task-wise
    // retrieval when that mode is asked.
    let (code, out, err) = eval(&["--modes", "none", "--sizes", "none"], &data);
    assert_eq!(code, 0, "{err}");
    let row = &lines(&out)[0];
    assert_eq!(
        row["tasks"],
        serde_json::json!(["gsm8k:1", "gsm8k:3", "gsm8k:5", "gsm8k:7"]),
        "{row}"
    );
    let (code, out, err) = eval(&["--modes", "none,task", "--test", "1"], &data);
    assert_eq!(code, 0, "{err}");
    let sweep: Vec<(u64, String)> = lines(&out)
        .iter()
        .filter_map(|l| Some((l["pool_tasks"].as_u64()?, l["mode"].as_str()?.to_string())))
        .collect();
    let task = || "task".to_string();
    assert_eq!(
        sweep,
        [(0, task()), (10, task()), (20, task()), (30, task())]
    );
    // Its training split: refused, naming the tasks.
    let (code, _, err) = eval(&["--modes", "none", "--split", "train"], &data);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("learned from 3 of these 4 test tasks (gsm8k:0, gsm8k:2, gsm8k:4)")
            && err.contains("recall, not learning"),
        "{err}"
    );
    // The same questions in another file, elsewhere in it: still refused.
    let moved = tmp("mael-split-moved.jsonl");
    std::fs::write(&moved, [&rows[5], &rows[2]].map(|r| r.as_str()).join("\n")).expect("write");
    let (code, _, err) = eval(&["--modes", "none", "--split", "all"], &moved);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("learned from 1 of these 2 test tasks (gsm8k:1)"),
        "{err}"
    );
    // The built-in split's default sizes: 30 test tasks.
    let (code, out, err) = cli(
        &[
            "mael-eval",
            "--pool",
            &pool,
            "--modes",
            "none",
            "--sizes",
            "none",
            "--json",
            "--quiet",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        lines(&out)[0]["tasks"].as_array().map(Vec::len),
        Some(30),
        "{out}"
    );
}

#[test]
fn bad_pool_files_are_refused_and_left_alone() {
    let bad = tmp("bad-pool.json");
    let text = r#"{"format":"roundtable.experience-pool","version":1,"embedder":{"id":"lexical-v1","dims":384},"experiences":[{"id":"x","agent":"a1","step":"solve","task_id":"t","input":"i","output":"o","reward":7,"embedding":[]}]}"#;
    std::fs::write(&bad, text).expect("write");
    let (code, _, err) = cli(
        &["run", "--coordinator", "mael", "--pool", &bad, "--quiet"],
        None,
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("reward 7") && err.contains("Nothing was stored"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&bad).expect("still there"), text);
    let (code, _, err) = cli(
        &[
            "run",
            "--coordinator",
            "mael",
            "--task",
            "free text",
            "--quiet",
        ],
        None,
    );
    assert_eq!(code, 2);
    assert!(err.contains("--task-idx"), "{err}");
    let (code, _, err) = cli(
        &[
            "run",
            "--coordinator",
            "mael",
            "--team",
            "star:0",
            "--quiet",
        ],
        None,
    );
    assert_eq!(code, 2);
    assert!(err.contains("1 to 16"), "{err}");
}

#[test]
fn provider_embeddings_over_http_and_pools_of_another_embedder_are_refused() {
    let mock = start_mock();
    let pool = tmp("mael-http-pool.json");
    let _ = std::fs::remove_file(&pool);
    let url = format!("{}/v1", mock.url);
    let (code, out, err) = cli(
        &[
            "mael-learn",
            "--train",
            "2",
            "--embedding-model",
            "mock-embed",
            "--embedding-url",
            &url,
            "--out",
            &pool,
            "--quiet",
        ],
        Some("sk-embed-secret"),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("learned 2 tasks"));
    let p = read_pool(&pool);
    assert_eq!(
        (p.embedder.id.as_str(), p.embedder.dims),
        ("custom:mock-embed", 16)
    );
    let log = requests(&mock);
    let embeds: Vec<&Value> = log
        .iter()
        .filter(|l| l["path"] == "/v1/embeddings")
        .collect();
    assert!(embeds.len() >= 2, "a probe, then the steps' inputs");
    assert!(embeds
        .iter()
        .all(|l| l["headers"]["authorization"] == "Bearer sk-embed-secret"));
    assert!(
        embeds
            .iter()
            .any(|l| l["body"]["input"].as_array().is_some_and(|a| a.len() > 1)),
        "batched"
    );
    assert!(!std::fs::read_to_string(&pool)
        .expect("pool")
        .contains("sk-embed-secret"));
    // The lexical embedder cannot read these vectors.
    let (code, _, err) = cli(
        &["mael-eval", "--pool", &pool, "--test", "1", "--quiet"],
        None,
    );
    assert_eq!(code, 2);
    assert!(err.contains("Re-embed"), "{err}");
}
