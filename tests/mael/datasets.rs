//! The task sets in `../shared/datasets` read whole, and their metrics on
//! the reference answers. `shared_*` tests need that folder (`make test`
//! skips them loudly without it).

use roundtable::engine::domains::tasks::{parse_jsonl, Dataset, Gold};
use std::path::PathBuf;

fn dataset_dir(name: &str) -> PathBuf {
    let base = std::env::var("ROUNDTABLE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let dir = base.join("datasets").join(name);
    assert!(
        dir.is_dir(),
        "the shared dataset is missing: expected {} (set ROUNDTABLE_SHARED to the folder holding datasets/)",
        dir.display()
    );
    dir
}

fn read(name: &str, file: &str) -> String {
    std::fs::read_to_string(dataset_dir(name).join(file)).expect("readable")
}

#[test]
fn shared_gsm8k_reads_every_row_and_the_worked_answers_score_one() {
    for (file, rows) in [("test.jsonl", 1319), ("train_first300.jsonl", 300)] {
        let text = read("gsm8k", file);
        let tasks = parse_jsonl(Dataset::Gsm8k, &text, file).expect("parse");
        assert_eq!(tasks.len(), rows);
        for (line, t) in text.lines().zip(&tasks) {
            let v: serde_json::Value = serde_json::from_str(line).expect("json");
            assert_eq!(
                t.score(v["answer"].as_str().expect("answer")),
                1.0,
                "{}",
                t.id
            );
        }
    }
}

#[test]
fn shared_mmlu_sample_reads_every_row_with_its_letter() {
    let text = read("mmlu", "mmlu_sample.jsonl");
    let tasks = parse_jsonl(Dataset::Mmlu, &text, "mmlu_sample.jsonl").expect("parse");
    assert_eq!(tasks.len(), 100);
    let letters: Vec<&str> = tasks
        .iter()
        .filter_map(|t| match &t.gold {
            Gold::Letter(l) => Some(l.as_str()),
            _ => None,
        })
        .collect();
    for (l, n) in [("A", 29), ("B", 23), ("C", 19), ("D", 29)] {
        assert_eq!(letters.iter().filter(|x| **x == l).count(), n, "{l}");
    }
    assert_eq!(tasks[0].score("Answer: B"), 1.0);
    let dev = read("mmlu", "mmlu_dev.jsonl");
    assert!(parse_jsonl(Dataset::Mmlu, &dev, "dev").is_ok_and(|d| d.len() == 50));
    // With the dev file, each question has its subject's five dev examples
    // before it, with their answers (Hendrycks' 5-shot prompt); the
    // questions and their golds are the same.
    let five = parse_jsonl(Dataset::Mmlu, &format!("{dev}\n{text}"), "dev+sample").expect("parse");
    assert_eq!(five.len(), 100);
    for (a, b) in five.iter().zip(&tasks) {
        assert_eq!((&a.id, &a.gold), (&b.id, &b.gold));
        assert_eq!(a.prompt.matches("\nAnswer: ").count(), 5, "{}", a.id);
        assert!(a
            .prompt
            .ends_with(&b.prompt[b.prompt.find("\n\n").unwrap_or(0) + 2..]));
    }
}

#[test]
fn shared_commongen_reads_every_concept_set() {
    let text = read("commongen_hard", "commongen_hard.jsonl");
    let tasks = parse_jsonl(Dataset::Commongen, &text, "commongen_hard.jsonl").expect("parse");
    assert_eq!(tasks.len(), 200);
    for t in &tasks {
        let Gold::Concepts(c) = &t.gold else {
            panic!("{}", t.id)
        };
        assert!((20..=30).contains(&c.len()));
        assert_eq!(t.score(&c.join(" ")), 1.0);
    }
}
