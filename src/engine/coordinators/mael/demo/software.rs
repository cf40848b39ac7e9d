//! The demo team on a software task (SRDD, the built-in requirements or
//! an imported one): it writes a small real program from the requirement's
//! own words — a core module with one method per feature the description
//! names, each computing something on sample data, and a `main.py` that
//! runs them all and prints what they did.
//!
//! It splits the work as a pipeline (the core first, then `main.py`, which
//! reads the core's methods from the earlier stage's result), and it has
//! one systematic slip, the one MAEL's Fig. 5 shows: its first `main.py`
//! leaves a `pass` where the features should be called (completeness 0),
//! unless the request tells it better — the critic's feedback (its critic
//! reads the code and the run, and always sees a placeholder), or a
//! rewarded worked example of a complete `main.py`. So without experience a
//! project needs a refinement round, and with a good pool it does not.

use super::super::contract::*;
use crate::engine::domains::srdd::project::{File, Project};

/// The software a task is about: its name and description (the task as the
/// dataset states it, or a subtask the demo wrote, which repeats them).
pub fn software_of(task: &str) -> Option<(String, String)> {
    let rest = task.split("the software ").nth(1)?;
    let (name, after) = rest.split_once([':', ' '])?;
    let description = match after.trim_start().strip_prefix('(') {
        // A stage: "(<description>): <what to write>".
        Some(inside) => inside
            .split_once("): ")
            .or_else(|| inside.rsplit_once(')'))
            .map_or(inside, |(d, _)| d),
        None => after,
    };
    let name = name.trim_end_matches([':', ',', '.']);
    (!name.is_empty()).then(|| (name.to_string(), description.trim().to_string()))
}

/// The root task (the dataset's "Develop the software …"), not a stage.
fn is_whole(task: &str) -> bool {
    task.trim_start().starts_with("Develop the software ")
}

/// `Bill_Splitter` → `bill_splitter`.
fn module_of(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let s = s.trim_matches('_').to_string();
    match s.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => s,
        _ => format!("app_{s}"),
    }
}

/// `Bill_Splitter` → `BillSplitter`.
fn class_of(name: &str) -> String {
    let c: String = module_of(name)
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|f| f.to_ascii_uppercase().to_string() + cs.as_str())
                .unwrap_or_default()
        })
        .collect();
    if c.is_empty() {
        "App".into()
    } else {
        c
    }
}

const SKIP: [&str; 20] = [
    "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "its", "it", "is",
    "that", "each", "every", "as", "by", "from",
];

/// Python's keywords a method may not be named.
const KEYWORDS: [&str; 12] = [
    "and", "as", "class", "def", "del", "for", "from", "if", "import", "in", "is", "with",
];

/// Verbs a requirement's clauses start with: a feature begins at one.
const VERBS: [&str; 32] = [
    "adds",
    "allows",
    "calculates",
    "compares",
    "computes",
    "converts",
    "counts",
    "creates",
    "displays",
    "features",
    "finds",
    "generates",
    "helps",
    "includes",
    "keeps",
    "lets",
    "lists",
    "manages",
    "offers",
    "prints",
    "provides",
    "records",
    "saves",
    "scores",
    "shows",
    "sorts",
    "splits",
    "stores",
    "supports",
    "tracks",
    "warns",
    "writes",
];

/// The features the description names (its clauses: a sentence, cut again
/// before each verb of [`VERBS`]), at most four.
fn features(description: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for sentence in description.split(['.', ';']) {
        let mut clause: Vec<&str> = Vec::new();
        let mut flush = |clause: &mut Vec<&str>| {
            let text = clause.join(" ");
            let text = text.trim().trim_end_matches([',', ' ']);
            let text = text
                .strip_suffix(" and")
                .unwrap_or(text)
                .trim_end_matches(',');
            if text.split_whitespace().count() >= 2 {
                out.push(
                    text.split_whitespace()
                        .take(12)
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
            clause.clear();
        };
        for word in sentence.split_whitespace() {
            let bare = word
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            if !clause.is_empty() && VERBS.contains(&bare.as_str()) {
                flush(&mut clause);
            }
            clause.push(word);
        }
        flush(&mut clause);
    }
    out.truncate(4);
    if out.is_empty() {
        out.push("shows what the program does".into());
    }
    out
}

/// A method's name from its feature: its first three plain words.
fn method_of(feature: &str, i: usize) -> String {
    let words: Vec<String> = feature
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_ascii_lowercase)
        .filter(|w| !w.is_empty() && !SKIP.contains(&w.as_str()))
        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
        .take(3)
        .collect();
    let name = words.join("_");
    if name.is_empty() || KEYWORDS.contains(&name.as_str()) {
        format!("feature_{}", i + 1)
    } else {
        name
    }
}

/// What a method computes on the items, by its place (so the program does
/// a few different things).
fn body(i: usize) -> &'static str {
    match i % 4 {
        0 => "        total = sum(value for _, value in self.items)\n        return f\"{len(self.items)} items, {total:.2f} in all\"",
        1 => "        mean = sum(value for _, value in self.items) / max(len(self.items), 1)\n        return f\"{mean:.2f} on average\"",
        2 => "        name, value = max(self.items, key=lambda item: item[1])\n        return f\"the largest is {name} ({value:.2f})\"",
        _ => "        names = sorted(name for name, _ in self.items)\n        return \"in order: \" + \", \".join(names)",
    }
}

/// The core module of `name`.
fn module_code(name: &str, description: &str) -> String {
    let mut code = format!(
        "\"\"\"{name}: {description}\n\nThe core of the program: one method per feature.\n\"\"\"\n\n\nclass {}:\n    \"\"\"Keeps the program's items and runs its features on them.\"\"\"\n\n    def __init__(self, items):\n        self.items = list(items)\n",
        class_of(name)
    );
    let mut seen: Vec<String> = Vec::new();
    for (i, f) in features(description).iter().enumerate() {
        let mut m = method_of(f, i);
        if seen.contains(&m) {
            m = format!("{m}_{}", i + 1);
        }
        seen.push(m.clone());
        code.push_str(&format!(
            "\n    def {m}(self):\n        \"\"\"{}.\"\"\"\n{}\n",
            f.replace('"', "'"),
            body(i)
        ));
    }
    code
}

/// The methods of the core class as the earlier stage's result or the
/// project's files show them (`def name(self):`), else as the description
/// gives them.
fn methods_in(input: &str, description: &str) -> Vec<String> {
    let shown = section(input, EARLIER_HEADING).or_else(|| section(input, FILES_HEADING));
    let found: Vec<String> = shown
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().strip_prefix("def ")?.strip_suffix("(self):"))
        .map(str::to_string)
        .collect();
    if !found.is_empty() {
        return found;
    }
    features(description)
        .iter()
        .enumerate()
        .map(|(i, f)| method_of(f, i))
        .collect()
}

/// `main.py`: complete, or (the slip) with a `pass` where the features
/// should run.
fn main_code(name: &str, methods: &[String], complete: bool) -> String {
    let head = format!(
        "\"\"\"{name}: runs every feature on sample data and prints what each did.\"\"\"\n\nfrom {} import {}\n\nSAMPLE = [(\"Ada\", 12.5), (\"Ben\", 30.0), (\"Cy\", 7.25), (\"Dee\", 18.0)]\n\n\ndef main():\n    app = {}(SAMPLE)\n    print(\"{name}\")\n",
        module_of(name),
        class_of(name),
        class_of(name)
    );
    let calls = if complete {
        let list: Vec<String> = methods.iter().map(|m| format!("app.{m}")).collect();
        format!(
            "    for number, feature in enumerate([{}], start=1):\n        print(f\"{{number}}. {{feature.__doc__}} -> {{feature()}}\")\n",
            list.join(", ")
        )
    } else {
        "    # The features are called here once the core is settled.\n    pass\n".to_string()
    };
    format!("{head}{calls}\n\nif __name__ == \"__main__\":\n    main()\n")
}

/// Whether code has a line the metric calls unfinished.
fn unfinished(code: &str) -> bool {
    Project {
        files: vec![File::new("x.py", code)],
    }
    .completeness()
        == 0.0
}

/// The file a stage asks for: its first `name.py` in backticks.
fn target(task: &str) -> Option<String> {
    task.split('`')
        .skip(1)
        .step_by(2)
        .find(|s| s.ends_with(".py") && !s.contains(' '))
        .map(str::to_string)
}

fn files_json(files: &[(String, String)]) -> String {
    let files: Vec<serde_json::Value> = files
        .iter()
        .map(|(p, c)| serde_json::json!({"path": p, "content": c}))
        .collect();
    serde_json::json!({ "files": files }).to_string()
}

pub fn judge(task: &str) -> String {
    let (solvable, reason) = match is_whole(task) {
        true => (
            false,
            "A program has parts: its core, then the entry point that runs it.",
        ),
        false => (true, "One file to write."),
    };
    serde_json::json!({"solvable": solvable, "reason": reason}).to_string()
}

pub fn decompose(task: &str, neighbours: &[String]) -> Option<String> {
    let (name, description) = software_of(task)?;
    let module = module_of(&name);
    let stages = [
        format!("Stage 1: write `{module}.py`, the core of the software {name} ({description}): a class {} with one method per feature, each computing its result on a list of (name, value) items and returning it as text.", class_of(&name)),
        format!("Stage 2: write `main.py` for the software {name} ({description}): it imports {} from `{module}.py`, runs every feature on sample data and prints each result; it takes no input.", class_of(&name)),
    ];
    let subtasks: Vec<serde_json::Value> = stages
        .iter()
        .enumerate()
        .map(|(i, t)| match neighbours.get(i % neighbours.len().max(1)) {
            Some(agent) => serde_json::json!({"task": t, "agent": agent}),
            None => serde_json::json!({ "task": t }),
        })
        .collect();
    Some(serde_json::json!({"mode": "pipeline", "subtasks": subtasks}).to_string())
}

/// Whether the solver writes a complete `main.py` this time: told so by
/// feedback, or shown a rewarded example of one.
fn careful(input: &str) -> bool {
    if let Some(f) = section(input, FEEDBACK_HEADING) {
        let f = f.to_lowercase();
        if f.contains("placeholder") || f.contains("pass") {
            return true;
        }
    }
    example_of(input).is_some_and(|(ex_input, ex_output, reward)| {
        let ex_task = section(&ex_input, TASK_HEADING).unwrap_or_default();
        reward >= 0.5
            && target(ex_task).as_deref() == Some("main.py")
            && ex_output.contains("def main")
            && !unfinished(&ex_output)
    })
}

pub fn solve(input: &str, task: &str) -> Option<String> {
    let (name, description) = software_of(task)?;
    let module = format!("{}.py", module_of(&name));
    let files = match target(task) {
        Some(t) if t == "main.py" => {
            let methods = methods_in(input, &description);
            vec![(
                "main.py".to_string(),
                main_code(&name, &methods, careful(input)),
            )]
        }
        Some(t) => vec![(t, module_code(&name, &description))],
        // Asked for the whole program at once: both files.
        None => vec![
            (module, module_code(&name, &description)),
            (
                "main.py".to_string(),
                main_code(&name, &methods_in("", &description), careful(input)),
            ),
        ],
    };
    Some(files_json(&files))
}

pub fn critique(input: &str, task: &str) -> Option<String> {
    software_of(task)?;
    let code = section(input, CHECK_HEADING).unwrap_or_default();
    let run = section(input, RUN_HEADING).unwrap_or_default();
    let verdict = |adequate: bool, feedback: String| {
        serde_json::json!({"adequate": adequate, "feedback": feedback}).to_string()
    };
    if run.contains("Verdict: not executable") {
        let last = run
            .lines()
            .rev()
            .find(|l| l.contains("Error") || l.contains("error"))
            .unwrap_or("an error")
            .trim();
        return Some(verdict(
            false,
            format!("The program fails when it runs ({last}); fix the error."),
        ));
    }
    if unfinished(code) {
        return Some(verdict(
            false,
            "A placeholder (`pass`) is left where the features should run: call each feature of the core and print what it returns.".into(),
        ));
    }
    Some(verdict(true, String::new()))
}

pub fn aggregate(input: &str, task: &str) -> Option<String> {
    let (name, description) = software_of(task)?;
    let files = section(input, FILES_HEADING).unwrap_or_default();
    let joined =
        files.contains("main.py\n") && files.contains(&format!("from {} import", module_of(&name)));
    if joined {
        return Some(files_json(&[]));
    }
    let methods = methods_in(input, &description);
    Some(files_json(&[(
        "main.py".to_string(),
        main_code(&name, &methods, true),
    )]))
}

pub fn evaluate(input: &str, task: &str) -> Option<String> {
    software_of(task)?;
    let solution = section(input, RATE_HEADING).unwrap_or_default();
    let (score, reason) = if solution.starts_with("(No file") {
        (1, "Nothing was written.")
    } else if unfinished(solution) {
        (3, "A placeholder is left where code belongs.")
    } else {
        (9, "The code is complete for its part.")
    };
    Some(serde_json::json!({"score": score, "reason": reason}).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_software_is_read_from_the_task_and_from_a_stage() {
        let (n, d) =
            software_of("Develop the software Bill_Splitter: Splits a bill.").expect("task");
        assert_eq!(
            (n.as_str(), d.as_str()),
            ("Bill_Splitter", "Splits a bill.")
        );
        let stage = "Stage 2: write `main.py` for the software Bill_Splitter (Splits a bill, adds a tip.): it imports a list of (name, value) items";
        let (n, d) = software_of(stage).expect("stage");
        assert_eq!(
            (n.as_str(), d.as_str()),
            ("Bill_Splitter", "Splits a bill, adds a tip.")
        );
        assert_eq!(target(stage).as_deref(), Some("main.py"));
        assert_eq!(software_of("Find the cost of 3 pens."), None);
        assert_eq!(class_of("Bill_Splitter"), "BillSplitter");
        assert_eq!(module_of("3D-Maze"), "app_3d_maze");
        assert_eq!(
            features("Converts lengths, weights and temperatures between units and prints a table. Keeps a log."),
            ["Converts lengths, weights and temperatures between units", "prints a table", "Keeps a log"]
        );
    }

    #[test]
    fn the_first_main_leaves_a_placeholder_unless_told_or_shown() {
        let methods = vec!["splits_bill".to_string()];
        assert!(unfinished(&main_code("X", &methods, false)));
        assert!(!unfinished(&main_code("X", &methods, true)));
        let task = "Stage 2: write `main.py` for the software X (Does a thing.): it";
        let plain = format!("{TASK_HEADING}\n{task}\n");
        assert!(!careful(&plain));
        let told = format!("{plain}\n{FEEDBACK_HEADING}\nA placeholder (`pass`) is left.\n");
        assert!(careful(&told));
        let good = files_json(&[("main.py".into(), main_code("Y", &methods, true))]);
        let shown = format!(
            "{plain}{}",
            super::super::super::prompts::example(&plain, &good, 0.9)
        );
        assert!(careful(&shown));
        let low = format!(
            "{plain}{}",
            super::super::super::prompts::example(&plain, &good, 0.2)
        );
        assert!(!careful(&low), "a poorly rewarded example is not followed");
    }
}
