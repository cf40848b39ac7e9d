//! ROUGE parity with Google's `rouge-score` 0.1.2 (nltk 3.10.4's Porter
//! stemmer) on the reference cases in `../shared/rouge`, through the
//! library and through `roundtable rouge --cases … --json`. `shared_*`
//! tests need that folder (`make test` skips them loudly without it); the
//! last test needs nothing.

use roundtable::engine::domains::rouge::{score, Score, Scores};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

const TOLERANCE: f64 = 1e-9;

fn cases_file() -> PathBuf {
    let base = std::env::var("ROUNDTABLE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let dir = base.join("rouge");
    assert!(
        dir.is_dir(),
        "the shared ROUGE cases are missing: expected {} (set ROUNDTABLE_SHARED to the folder holding rouge/)",
        dir.display()
    );
    dir.join("rouge_cases_public.jsonl")
}

fn read_cases() -> (String, Vec<Value>) {
    let path = cases_file();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let cases = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON case"))
        .collect();
    (text, cases)
}

fn expected(case: &Value) -> Scores {
    serde_json::from_value(case["scores"].clone()).expect("the case's scores")
}

/// Every differing value of `got` against `want`, named.
fn differences(id: &str, got: &Scores, want: &Scores) -> Vec<String> {
    let kinds: [(&str, &Score, &Score); 4] = [
        ("rouge1", &got.rouge1, &want.rouge1),
        ("rouge2", &got.rouge2, &want.rouge2),
        ("rougeL", &got.rouge_l, &want.rouge_l),
        ("rougeLsum", &got.rouge_lsum, &want.rouge_lsum),
    ];
    let mut out = Vec::new();
    for (kind, g, w) in kinds {
        for (what, a, b) in [
            ("precision", g.precision, w.precision),
            ("recall", g.recall, w.recall),
            ("fmeasure", g.fmeasure, w.fmeasure),
        ] {
            if (a - b).abs() > TOLERANCE {
                out.push(format!("{id} {kind}.{what}: got {a}, want {b}"));
            }
        }
    }
    out
}

#[test]
fn shared_rouge_parity_on_every_case() {
    let (text, cases) = read_cases();
    assert_eq!(cases.len(), text.lines().count());
    assert_eq!(cases.len(), 216);
    let mut failures = Vec::new();
    let mut matched = 0;
    for case in &cases {
        let id = case["case_id"].as_str().expect("case_id");
        let got = score(
            case["target"].as_str().expect("target"),
            case["prediction"].as_str().expect("prediction"),
            case["use_stemmer"].as_bool().unwrap_or(false),
        );
        let diff = differences(id, &got, &expected(case));
        if diff.is_empty() {
            matched += 1;
        }
        failures.extend(diff);
    }
    println!("ROUGE parity: {matched}/{} cases to 1e-9", cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn shared_rouge_cli_prints_every_case() {
    let path = cases_file();
    let (_, cases) = read_cases();
    let out = Command::new(env!("CARGO_BIN_EXE_roundtable"))
        .args(["rouge", "--cases"])
        .arg(&path)
        .arg("--json")
        .output()
        .expect("the CLI runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), cases.len());
    let mut failures = Vec::new();
    for (line, case) in lines.iter().zip(&cases) {
        assert_eq!(line["case_id"], case["case_id"]);
        let id = case["case_id"].as_str().expect("case_id");
        let got: Scores = serde_json::from_value(line["scores"].clone()).expect("scores");
        failures.extend(differences(id, &got, &expected(case)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rouge_cli_names_a_bad_line_and_exits_2() {
    let path = std::env::temp_dir().join(format!("roundtable-rouge-{}.jsonl", std::process::id()));
    std::fs::write(
        &path,
        "{\"case_id\": \"ok\", \"target\": \"a b\", \"prediction\": \"a\"}\n{\"target\": 3}\n",
    )
    .expect("write the cases");
    let out = Command::new(env!("CARGO_BIN_EXE_roundtable"))
        .args(["rouge", "--cases"])
        .arg(&path)
        .output()
        .expect("the CLI runs");
    let _ = std::fs::remove_file(&path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
