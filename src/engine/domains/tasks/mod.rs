//! Task sets with a gold answer and a metric, the benchmarks MAEL is
//! measured on: GSM8K (the final number), MMLU (the letter),
//! CommonGen-Hard (concept coverage), HumanEval (its tests), SRDD (the
//! project the run's files make, `domains::srdd`) and the built-in sets
//! written for Roundtable (shopping problems; small software requirements). A [`Task`] is what a run carries in its options: the
//! prompt the agents see, and the gold answer only the metric reads.
//!
//! ```text
//! JSONL ──► parse_jsonl(dataset) ──► [Task] ──► run ──► answer text ──► score(task, answer) ∈ [0, 1]
//! ```

pub mod builtin;
pub mod commongen;
pub mod gsm8k;
pub mod humaneval;
pub mod mmlu;

use serde::{Deserialize, Serialize};

/// The task sets Roundtable knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dataset {
    Builtin,
    Gsm8k,
    Mmlu,
    Commongen,
    Humaneval,
    /// ChatDev's software requirements (a CSV): the run's files are the
    /// project SRDD's metric scores.
    Srdd,
}

impl Dataset {
    pub const ALL: [Dataset; 6] = [
        Dataset::Builtin,
        Dataset::Gsm8k,
        Dataset::Mmlu,
        Dataset::Commongen,
        Dataset::Humaneval,
        Dataset::Srdd,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Dataset::Builtin => "builtin",
            Dataset::Gsm8k => "gsm8k",
            Dataset::Mmlu => "mmlu",
            Dataset::Commongen => "commongen",
            Dataset::Humaneval => "humaneval",
            Dataset::Srdd => "srdd",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Dataset::Builtin => "Built-in shopping problems",
            Dataset::Gsm8k => "GSM8K (grade-school math)",
            Dataset::Mmlu => "MMLU (multiple choice)",
            Dataset::Commongen => "CommonGen-Hard (concepts to text)",
            Dataset::Humaneval => "HumanEval (Python functions)",
            Dataset::Srdd => "SRDD (software projects, CSV)",
        }
    }

    /// What the score means.
    pub fn metric(self) -> &'static str {
        match self {
            Dataset::Builtin | Dataset::Gsm8k => "accuracy on the final number",
            Dataset::Mmlu => "accuracy on the letter",
            Dataset::Commongen => "concept coverage (English inflection rules, not spaCy lemmas)",
            Dataset::Humaneval => "pass@1 (the problem's tests run in Python)",
            Dataset::Srdd => {
                "quality = completeness × executability × consistency (ChatDev's SRDD script)"
            }
        }
    }

    /// The paper's settings: refinement rounds and decomposition depth
    /// (2 and 1 for the QA sets, 3 and 2 for generation).
    pub fn defaults(self) -> (u32, u32) {
        match self {
            Dataset::Commongen | Dataset::Srdd => (3, 2),
            _ => (2, 1),
        }
    }

    pub fn parse(s: &str) -> Option<Dataset> {
        Dataset::ALL.into_iter().find(|d| d.id() == s)
    }
}

/// The gold answer, in the shape its metric reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gold {
    Number(f64),
    Letter(String),
    /// Every concept must appear (CommonGen); there is no reference text.
    Concepts(Vec<String>),
    /// HumanEval: the function's prompt, the tests and the name they call;
    /// scored by running them (`humaneval::check`), never by [`Task::score`].
    Program {
        code: String,
        test: String,
        entry_point: String,
    },
    /// SRDD: the project the run's files make, scored by the dataset's
    /// metric (`srdd`); the requirement is the task's prompt.
    Software {
        name: String,
        category: String,
    },
}

/// One task of a set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub dataset: Dataset,
    /// Unique within its set (`gsm8k:12`, `builtin:test:3`).
    pub id: String,
    /// What the agents are asked (never holds the gold answer).
    pub prompt: String,
    pub gold: Gold,
}

impl Task {
    /// The metric of the task's set on an answer, in [0, 1].
    pub fn score(&self, answer: &str) -> f64 {
        match &self.gold {
            Gold::Number(n) => gsm8k::final_number(answer).map_or(0.0, |x| {
                if (x - n).abs() < 1e-6 {
                    1.0
                } else {
                    0.0
                }
            }),
            Gold::Letter(l) => {
                if mmlu::answer_letter(answer).as_deref() == Some(l.as_str()) {
                    1.0
                } else {
                    0.0
                }
            }
            Gold::Concepts(c) => commongen::coverage(c, answer),
            // Need a Python runner: callers use humaneval::check (or
            // SRDD's metric on the run's files) first.
            Gold::Program { .. } | Gold::Software { .. } => 0.0,
        }
    }

    /// What the task is, independent of its file and position: a hash of
    /// its set and its prompt (a pool records the keys of the tasks it
    /// learned, so an evaluation can refuse tasks it trained on, whatever
    /// file they came from).
    pub fn key(&self) -> String {
        let h = crate::engine::model::embed::fnv1a(&[self.dataset.id(), &self.prompt]);
        format!("{h:016x}")
    }

    /// The gold answer as a user reads it.
    pub fn gold_text(&self) -> String {
        match &self.gold {
            Gold::Number(n) => gsm8k::format_number(*n),
            Gold::Letter(l) => l.clone(),
            Gold::Concepts(c) => format!("all of: {}", c.join(", ")),
            Gold::Program { entry_point, .. } => format!("the tests of {entry_point} pass"),
            Gold::Software { .. } => {
                "a complete project that runs and fits the requirement".to_string()
            }
        }
    }
}

/// One split of a data set that comes as one file (CommonGen-Hard,
/// MMLU's sample, HumanEval, an imported set): its tasks counted from 0
/// in file order, the even ones are the training split, the odd ones the
/// test split. Deterministic, needs no seed, and both splits sample the
/// whole file (MMLU's rows are grouped by subject: halves would not).
pub fn split_file(tasks: Vec<Task>, split: builtin::Split) -> Vec<Task> {
    let keep = match split {
        builtin::Split::Train => 0,
        builtin::Split::Test => 1,
    };
    tasks
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == keep)
        .map(|(_, t)| t)
        .collect()
}

/// `v[key]` as a string, else the error `no "key"`.
fn str_field<'a>(v: &'a serde_json::Value, key: &str) -> Result<&'a str, String> {
    v.get(key)
        .and_then(serde_json::Value::as_str)
        .ok_or(format!("no \"{key}\""))
}

/// `v[key]` as a string that is not blank, else the error `no "key"`.
fn text_field<'a>(v: &'a serde_json::Value, key: &str) -> Result<&'a str, String> {
    match str_field(v, key)? {
        s if s.trim().is_empty() => Err(format!("no \"{key}\"")),
        s => Ok(s),
    }
}

/// A row's id: `{prefix}:{id}` from its `"id"`, else `{prefix}:{n}`.
fn row_id(v: &serde_json::Value, prefix: &str, n: usize) -> String {
    v.get("id")
        .and_then(serde_json::Value::as_str)
        .map(|s| format!("{prefix}:{s}"))
        .unwrap_or_else(|| format!("{prefix}:{n}"))
}

/// A file of a set's tasks: SRDD's CSV, else JSONL ([`parse_jsonl`]).
pub fn parse_file(dataset: Dataset, text: &str, file: &str) -> Result<Vec<Task>, String> {
    match dataset {
        Dataset::Srdd => Ok(srdd_tasks(&crate::engine::domains::srdd::parse_csv(
            text, file,
        )?)),
        _ => parse_jsonl(dataset, text, file),
    }
}

/// SRDD's requirements as tasks (`srdd:<Name>`; the prompt is the task as
/// the dataset states it).
pub fn srdd_tasks(reqs: &[crate::engine::domains::srdd::Requirement]) -> Vec<Task> {
    reqs.iter()
        .map(|r| Task {
            dataset: Dataset::Srdd,
            id: format!("srdd:{}", r.name),
            prompt: r.task(),
            gold: Gold::Software {
                name: r.name.clone(),
                category: r.category.clone(),
            },
        })
        .collect()
}

/// Roundtable's own software requirements as tasks: a split (the even
/// ones train, the odd ones test, as a file is split), or all.
pub fn srdd_builtin(split: Option<builtin::Split>) -> Vec<Task> {
    let all = srdd_tasks(&crate::engine::domains::srdd::builtin::requirements());
    match split {
        Some(s) => split_file(all, s),
        None => all,
    }
}

/// A JSONL file of a set's rows as tasks; errors name the line. Empty
/// lines are skipped; a file with no task is an error. For MMLU, rows of
/// the dev split (an id with `/dev/`, as in `mmlu_dev.jsonl`) are the
/// few-shot examples of the other rows of their subject (Hendrycks' 5-shot
/// prompt), not tasks: give the dev file and the questions together (a
/// file of dev rows only is read as questions).
pub fn parse_jsonl(dataset: Dataset, text: &str, file: &str) -> Result<Vec<Task>, String> {
    let rows = super::jsonl_rows(text, file).collect::<Result<Vec<_>, _>>()?;
    let is_dev = |v: &serde_json::Value| {
        dataset == Dataset::Mmlu
            && v.get("id")
                .and_then(serde_json::Value::as_str)
                .is_some_and(|id| id.contains("/dev/"))
    };
    let shots: Vec<serde_json::Value> = if rows.iter().all(|(_, v)| is_dev(v)) {
        Vec::new()
    } else {
        rows.iter()
            .filter(|(_, v)| is_dev(v))
            .map(|(_, v)| v.clone())
            .collect()
    };
    let mut out = Vec::new();
    for (line, v) in &rows {
        if !shots.is_empty() && is_dev(v) {
            continue;
        }
        let task = match dataset {
            Dataset::Gsm8k => gsm8k::task(v, out.len()),
            Dataset::Mmlu => mmlu::task(v, out.len(), &shots),
            Dataset::Commongen => commongen::task(v, out.len()),
            Dataset::Humaneval => humaneval::task(v, out.len()),
            Dataset::Builtin => builtin::task_from_json(v, out.len()),
            Dataset::Srdd => Err("SRDD comes as a CSV file (Name,Description,Category)".into()),
        }
        .map_err(|e| format!("{file} line {line}: {e}"))?;
        out.push(task);
    }
    if out.is_empty() {
        return Err(format!("{file} holds no tasks"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_gold_shape_is_scored_by_its_metric() {
        let t = |gold| Task {
            dataset: Dataset::Gsm8k,
            id: "x".into(),
            prompt: "p".into(),
            gold,
        };
        assert_eq!(
            t(Gold::Number(1200.0)).score("So the total is $1,200."),
            1.0
        );
        assert_eq!(t(Gold::Number(1200.0)).score("#### 120"), 0.0);
        assert_eq!(t(Gold::Letter("C".into())).score("Answer: C"), 1.0);
        assert_eq!(t(Gold::Letter("C".into())).score("Answer: B"), 0.0);
        let c = t(Gold::Concepts(vec!["dog".into(), "jump".into()]));
        assert_eq!(c.score("The dogs jumped."), 1.0);
        assert_eq!(c.score("A dog sat."), 0.5);
        assert!(parse_jsonl(Dataset::Gsm8k, "\n\n", "f").is_err());
        // A line that is not JSON is reported with its number before any
        // row is read as a task; a row missing its answer, with its own.
        let err = parse_jsonl(Dataset::Gsm8k, "{\"question\": \"q\"}\nnot json", "f.jsonl")
            .expect_err("bad");
        assert!(err.starts_with("f.jsonl line 2: not valid JSON"), "{err}");
        let err = parse_jsonl(
            Dataset::Gsm8k,
            "{\"question\": \"q\", \"answer\": \"#### 4\"}\n{\"question\": \"q\"}",
            "f.jsonl",
        )
        .expect_err("bad");
        assert!(err.starts_with("f.jsonl line 2: "), "{err}");
        assert!(!err.contains("JSON"), "{err}");
    }

    #[test]
    fn a_file_splits_into_disjoint_halves_that_sample_all_of_it() {
        let text: String = (0..7)
            .map(|i| format!("{{\"question\": \"q{i}\", \"answer\": \"#### {i}\"}}\n"))
            .collect();
        let all = parse_jsonl(Dataset::Gsm8k, &text, "f").expect("parse");
        let train = split_file(all.clone(), builtin::Split::Train);
        let test = split_file(all.clone(), builtin::Split::Test);
        let prompts = |v: &[Task]| {
            v.iter()
                .map(|t| t.prompt.lines().next().unwrap_or("").to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(prompts(&train), ["q0", "q2", "q4", "q6"]);
        assert_eq!(prompts(&test), ["q1", "q3", "q5"]);
        // A task's key is its content's, not its position's.
        let moved =
            parse_jsonl(Dataset::Gsm8k, text.lines().nth(3).unwrap_or(""), "g").expect("parse");
        assert_eq!(moved[0].id, "gsm8k:0");
        assert_eq!(moved[0].key(), all[3].key());
        assert_ne!(all[0].key(), all[3].key());
        let mmlu = Task {
            dataset: Dataset::Mmlu,
            ..all[3].clone()
        };
        assert_ne!(mmlu.key(), all[3].key(), "the set is part of the key");
    }

    #[test]
    fn mmlu_dev_rows_are_the_few_shot_examples_of_their_subject() {
        let row = |id: &str, subject: &str, q: &str, a: &str| {
            format!("{{\"id\": \"{id}\", \"subject\": \"{subject}\", \"question\": \"{q}\", \"choices\": [\"w\", \"x\", \"y\", \"z\"], \"answer\": \"{a}\"}}\n")
        };
        let text = [
            row("law/dev/0", "law", "Dev law?", "C"),
            row("art/dev/0", "art", "Dev art?", "D"),
            row("law/test/0", "law", "Test law?", "A"),
            row("art/test/0", "art", "Test art?", "B"),
        ]
        .concat();
        let tasks = parse_jsonl(Dataset::Mmlu, &text, "f").expect("parse");
        assert_eq!(tasks.len(), 2, "dev rows are not tasks");
        assert!(tasks[0]
            .prompt
            .contains("Dev law?\nA. w\nB. x\nC. y\nD. z\nAnswer: C"));
        assert!(
            !tasks[0].prompt.contains("Dev art?"),
            "only its own subject's"
        );
        assert!(tasks[1].prompt.contains("Dev art?") && tasks[1].prompt.contains("Test art?"));
        assert_eq!(tasks[0].gold, Gold::Letter("A".into()));
        // A file of dev rows only: they are the questions.
        let dev_only = parse_jsonl(
            Dataset::Mmlu,
            &text.lines().take(2).collect::<Vec<_>>().join("\n"),
            "d",
        )
        .expect("parse");
        assert_eq!(dev_only.len(), 2);
        assert!(!dev_only[0].prompt.contains("Answer: C\n"));
    }
}
