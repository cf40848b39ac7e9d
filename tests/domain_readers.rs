//! Property tests of every reader of the task sets (GSM8K, MMLU,
//! CommonGen-Hard, and the JSONL files of each set): on arbitrary Unicode
//! mixed with the markers the readers look for, on empty text, on a
//! 200 KB text and on 100 000-deep `[[[[` / `{{{{` nesting, 3 000 cases
//! each, they never panic, give the same output for the same input, and
//! keep their invariants (an MMLU letter is A–D, a GSM8K number is finite,
//! CommonGen coverage is in [0, 1] and agrees with the missing concepts).
//! The generator is a small xorshift, so a failure names its case number
//! and reproduces.

use roundtable::engine::domains::tasks::{
    builtin, commongen, gsm8k, humaneval, mmlu, parse_file, parse_jsonl, Dataset, Gold, Task,
};
use serde_json::{json, Value};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

const CASES: usize = 3_000;

/// xorshift64*: deterministic, no crate.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> Self {
        XorShift(seed.max(1))
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// What the readers look for, and what tends to break text code.
const PIECES: &[&str] = &[
    "####",
    "#### ",
    "Answer:",
    "answer:",
    "ANSWER IS",
    "the answer is",
    "Final answer:",
    "**Answer:**",
    "the correct option is",
    "\\boxed{",
    "Sentences:",
    "Final sentence:",
    "Concepts:",
    "Keywords used:",
    "(C)",
    "C)",
    "A",
    "B",
    "C",
    "D",
    "a",
    "dog",
    "dogs",
    "frisbee",
    "catches",
    "running",
    "parties",
    "1,200",
    "$3.50",
    "-7",
    "1e308",
    "99999999999999999999999",
    "\n",
    "\n\n",
    "\r\n",
    " ",
    "\t",
    ",",
    ".",
    ":",
    ";",
    "-",
    "*",
    "**",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "\"",
    "é",
    "e\u{301}",
    "İ",
    "ß",
    "ẞ",
    "ﬁ",
    "😀",
    "\u{301}",
    "\u{202E}",
    "\u{0}",
    "\u{FEFF}",
    "丸",
    "x₂",
    "ed",
    "ing",
    "er",
    "ies",
    "Σ",
];

const FULL_WIDTH_DIGITS: &str = "０１２３４５６７８９";

/// One piece of arbitrary text.
fn piece(rng: &mut XorShift) -> String {
    match rng.below(8) {
        0..=2 => rng.pick(PIECES).to_string(),
        3 => char::from(b'0' + rng.below(10) as u8).to_string(),
        4 => {
            let letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
            letters
                .chars()
                .nth(rng.below(letters.len()))
                .unwrap_or('x')
                .to_string()
        }
        5 => FULL_WIDTH_DIGITS
            .chars()
            .nth(rng.below(10))
            .unwrap_or('０')
            .to_string(),
        6 => {
            let punct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
            punct
                .chars()
                .nth(rng.below(punct.len()))
                .unwrap_or('.')
                .to_string()
        }
        _ => char::from_u32(rng.below(0x11_0000) as u32)
            .unwrap_or('\u{FFFD}')
            .to_string(),
    }
}

fn text(rng: &mut XorShift, max_pieces: usize) -> String {
    let n = rng.below(max_pieces + 1);
    (0..n).map(|_| piece(rng)).collect()
}

/// 200 KB of mixed text.
fn big_text(seed: u64) -> String {
    let mut rng = XorShift::new(seed);
    let mut s = String::new();
    while s.len() < 200_000 {
        s.push_str(&piece(&mut rng));
    }
    s
}

/// The inputs every reader gets: the edge cases first, then `CASES`
/// random texts.
fn inputs(seed: u64) -> Vec<String> {
    let mut out = vec![
        String::new(),
        " ".into(),
        "\n\n\n".into(),
        "[".repeat(100_000),
        "{".repeat(100_000),
        "[{".repeat(50_000) + &"}]".repeat(50_000),
        format!("{{\"question\": {}1", "[".repeat(100_000)),
        big_text(seed),
        "answer ".repeat(30_000),
        "Answer: ".to_string() + &" ".repeat(200_000) + "C",
        "the answer is clearly ".repeat(10_000),
        "sentence:".repeat(25_000),
        "dog, frisbee, catch\n".repeat(10_000),
        "İ".repeat(100_000) + " answer: 5 #### 6",
        "#### ".repeat(40_000),
        "1,".repeat(100_000),
    ];
    let mut rng = XorShift::new(seed);
    out.extend((0..CASES).map(|_| text(&mut rng, 48)));
    out
}

/// A short, escaped view of an input for a failure message.
fn show(input: &str) -> String {
    let head: String = input.chars().take(120).collect();
    format!("{head:?} ({} bytes)", input.len())
}

/// Runs `reader` twice on every input: it must not panic and must give
/// the same output both times.
fn check<T: PartialEq + std::fmt::Debug>(name: &str, seed: u64, reader: impl Fn(&str) -> T) {
    for (i, input) in inputs(seed).iter().enumerate() {
        let first = catch_unwind(AssertUnwindSafe(|| reader(input)));
        let Ok(first) = first else {
            panic!("{name} panicked on case {i}: {}", show(input));
        };
        let again = reader(input);
        assert!(
            first == again,
            "{name} is not deterministic on case {i}: {}",
            show(input)
        );
    }
}

/// A concept list for case `i`: common words, words of the text itself
/// (so some are found), and odd ones.
fn concepts(input: &str, i: usize) -> Vec<String> {
    let mut c: Vec<String> = ["dog", "frisbee", "catch", "party", "run"]
        .iter()
        .take(1 + i % 5)
        .map(|s| s.to_string())
        .collect();
    c.extend(
        input
            .split_whitespace()
            .step_by(3)
            .take(3)
            .map(str::to_string),
    );
    if i % 7 == 0 {
        c.extend(["İ".to_string(), "ß".to_string(), String::new()]);
    }
    c
}

#[test]
fn gsm8k_final_number_never_panics_and_is_finite() {
    let found = Cell::new(0);
    check("gsm8k::final_number", 11, |t| {
        let x = gsm8k::final_number(t);
        if let Some(x) = x {
            assert!(x.is_finite(), "{} read as {x}", show(t));
            found.set(found.get() + 1);
        }
        x.map(f64::to_bits)
    });
    // The generator reaches the readers' paths, not only their None.
    assert!(found.get() > CASES / 4, "{}", found.get());
}

#[test]
fn gsm8k_format_number_never_panics() {
    let mut rng = XorShift::new(12);
    let specials = [
        f64::NAN,
        f64::INFINITY,
        -0.0,
        f64::MAX,
        f64::MIN,
        1e300,
        0.5,
    ];
    let xs = specials
        .into_iter()
        .chain((0..CASES).map(|_| f64::from_bits(rng.next())));
    for x in xs {
        assert_eq!(gsm8k::format_number(x), gsm8k::format_number(x));
    }
}

#[test]
fn mmlu_answer_letter_is_none_or_a_to_d() {
    let found = Cell::new(0);
    check("mmlu::answer_letter", 21, |t| {
        let l = mmlu::answer_letter(t);
        if let Some(l) = &l {
            assert!(
                mmlu::LETTERS.contains(&l.as_str()),
                "{} read as {l:?}",
                show(t)
            );
            found.set(found.get() + 1);
        }
        l
    });
    assert!(found.get() > CASES / 20, "{}", found.get());
}

#[test]
fn commongen_coverage_is_within_0_and_1_and_agrees_with_missing() {
    let inputs = inputs(31);
    let mut partial = 0;
    for (i, input) in inputs.iter().enumerate() {
        let c = concepts(input, i);
        let run = || {
            let cov = commongen::coverage(&c, input);
            let missing = commongen::missing(&c, input);
            let fin = commongen::final_sentences(&c, input);
            (cov.to_bits(), missing, fin)
        };
        let Ok(first) = catch_unwind(AssertUnwindSafe(run)) else {
            panic!("commongen panicked on case {i}: {}", show(input));
        };
        assert_eq!(
            first,
            run(),
            "not deterministic on case {i}: {}",
            show(input)
        );
        let (cov, missing, fin) = first;
        let cov = f64::from_bits(cov);
        assert!((0.0..=1.0).contains(&cov), "{cov} on {}", show(input));
        partial += usize::from(cov > 0.0 && cov < 1.0);
        let expect = (c.len() - missing.len()) as f64 / c.len() as f64;
        assert!(
            (cov - expect).abs() < 1e-12,
            "coverage {cov} vs missing {missing:?} on {}",
            show(input)
        );
        assert!(missing.iter().all(|m| c.contains(m)));
        assert!(fin.len() <= input.len(), "{}", show(input));
        assert_eq!(commongen::coverage(&[], input), 0.0);
    }
    assert!(partial > CASES / 20, "{partial}");
}

#[test]
fn commongen_base_forms_never_panic() {
    // Each input whole, with an inflection added, and word by word (as
    // the metric calls it).
    check("commongen::base_forms", 41, |t| {
        let words = t.split(|c: char| !c.is_alphanumeric()).take(2_000);
        let suffixed = ["ed", "ing", "er", "es"].map(|s| format!("{t}{s}"));
        let all = std::iter::once(t)
            .chain(suffixed.iter().map(String::as_str))
            .chain(words);
        all.map(|w| {
            let forms = commongen::base_forms(w);
            assert_eq!(forms.first(), Some(&w.to_lowercase()));
            forms
        })
        .collect::<Vec<_>>()
    });
}

/// A row with every field a set's reader looks at, each holding `t`.
fn row(t: &str, i: usize) -> Value {
    let answer = match i % 4 {
        0 => Value::String(t.into()),
        1 => Value::String(format!("{t}\n#### {i}")),
        2 => Value::String(mmlu::LETTERS[i % 4].into()),
        _ => json!(i as f64 / 3.0),
    };
    json!({
        "id": t,
        "subject": t,
        "question": t,
        "prompt": t,
        "choices": [t, t, t, t],
        "answer": answer,
        "concepts": [t, "dog", t],
    })
}

#[test]
fn task_readers_never_panic_and_give_well_formed_golds() {
    for (i, input) in inputs(51).iter().enumerate() {
        let v = row(input, i);
        let parsed: Option<Value> = serde_json::from_str(input).ok();
        let run = || {
            let mut golds = Vec::new();
            for v in std::iter::once(&v).chain(parsed.as_ref()) {
                golds.push(gsm8k::task(v, i).map(|t| t.gold));
                golds.push(mmlu::task(v, i, std::slice::from_ref(v)).map(|t| t.gold));
                golds.push(commongen::task(v, i).map(|t| t.gold));
                golds.push(builtin::task_from_json(v, i).map(|t| t.gold));
                golds.push(humaneval::task(v, i).map(|t| t.gold));
            }
            // SRDD's CSV: the input as a row's description, and as a file.
            let csv = format!(
                "Name,Description,Category\nApp_{i},\"{}\",Tool\n{input}",
                input.replace('"', "\"\"")
            );
            for text in [csv.as_str(), input.as_str()] {
                match parse_file(Dataset::Srdd, text, "f.csv") {
                    Ok(tasks) => golds.extend(tasks.into_iter().map(|t| Ok(t.gold))),
                    Err(e) => golds.push(Err(e)),
                }
            }
            golds
        };
        let Ok(golds) = catch_unwind(AssertUnwindSafe(run)) else {
            panic!("a task reader panicked on case {i}: {}", show(input));
        };
        assert_eq!(golds, run(), "not deterministic on case {i}");
        for gold in golds.into_iter().flatten() {
            match gold {
                Gold::Number(x) => assert!(x.is_finite(), "{x} on {}", show(input)),
                Gold::Letter(l) => assert!(mmlu::LETTERS.contains(&l.as_str())),
                Gold::Concepts(c) => {
                    assert!(!c.is_empty() && c.iter().all(|c| !c.is_empty()))
                }
                Gold::Software { name, .. } => assert!(!name.trim().is_empty(), "{}", show(input)),
                Gold::Program { entry_point, .. } => assert!(
                    entry_point
                        .chars()
                        .all(|c| c == '_' || c.is_ascii_alphanumeric()),
                    "{entry_point}"
                ),
            }
        }
    }
}

#[test]
fn parse_jsonl_never_panics_on_arbitrary_lines() {
    let inputs = inputs(61);
    for (i, input) in inputs.iter().enumerate() {
        // The text as it is, and as lines of rows holding it.
        let rows = format!(
            "{}\n{}\n\n{}",
            row(input, i),
            row(input, i + 1),
            row(input, i + 2)
        );
        for text in [input.as_str(), rows.as_str()] {
            for d in Dataset::ALL {
                let run = || parse_jsonl(d, text, "f.jsonl");
                let Ok(got) = catch_unwind(AssertUnwindSafe(run)) else {
                    panic!("parse_jsonl({d:?}) panicked on case {i}: {}", show(text));
                };
                assert_eq!(got, run(), "not deterministic on case {i}");
                match got {
                    Ok(tasks) => {
                        assert!(!tasks.is_empty());
                        assert!(tasks.iter().all(|t| t.dataset == d));
                    }
                    Err(e) => assert!(e.starts_with("f.jsonl"), "{e}"),
                }
            }
        }
    }
}

#[test]
fn builtin_parse_items_never_panics() {
    check("builtin::parse_items", 71, |t| {
        builtin::parse_items(t)
            .iter()
            .map(|it| it.text())
            .collect::<Vec<_>>()
    });
}

#[test]
fn scores_of_every_gold_shape_are_within_0_and_1() {
    let task = |gold| Task {
        dataset: Dataset::Gsm8k,
        id: "x".into(),
        prompt: "p".into(),
        gold,
    };
    let tasks = [
        task(Gold::Number(12.0)),
        task(Gold::Number(-0.5)),
        task(Gold::Letter("C".into())),
        task(Gold::Concepts(vec!["dog".into(), "run".into()])),
    ];
    check("Task::score", 81, |t| {
        tasks
            .iter()
            .map(|task| {
                let s = task.score(t);
                assert!((0.0..=1.0).contains(&s), "{s} on {}", show(t));
                s.to_bits()
            })
            .collect::<Vec<_>>()
    });
}

#[test]
fn the_humaneval_completion_reader_never_panics() {
    check("humaneval::completion", 83, |t| {
        let read = humaneval::completion("def f(x):\n    \"\"\"Doc.\"\"\"\n", "f", t);
        read.map(|r| (r.value, r.repairs.len())).map_err(|e| e.0)
    });
}

#[test]
fn readers_agree_with_the_scores_on_known_replies() {
    // Not random: one reply per shape, so a broken generator cannot hide
    // a reader that always says None.
    assert_eq!(gsm8k::final_number("So 3 + 4 = 7.\n#### 7"), Some(7.0));
    assert_eq!(
        mmlu::answer_letter("A careful reading.\nFinal answer: C").as_deref(),
        Some("C")
    );
    let c: Vec<String> = vec!["dog".into(), "frisbee".into()];
    assert_eq!(
        commongen::coverage(&c, "Concepts: dog, frisbee\n\nThe dog sat."),
        0.5
    );
}
