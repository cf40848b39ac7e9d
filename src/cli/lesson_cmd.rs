//! `roundtable lesson questions|make`: the predict-next questions a run
//! offers, and a lesson file built from a spec (runs, notes pinned to
//! events, questions chosen by event: their choices and answers always
//! come from the run). The built-in lessons in `public/lessons/` are made
//! this way from `lessons/*.json` (see scripts/record-lessons.sh).

use roundtable::engine::coordinators::question_roles;
use roundtable::engine::lesson::{questions, Bundle, Lesson, Panel, QuestionKind, Step};
use roundtable::engine::run::RunDoc;
use serde::Deserialize;
use std::path::Path;

pub const USAGE: &str = "usage: roundtable lesson questions RUN.json [--from N]  |  roundtable lesson make SPEC.json --out FILE";

#[derive(Deserialize)]
struct Spec {
    #[serde(default)]
    id: String,
    title: String,
    #[serde(default)]
    summary: String,
    /// Run files, relative to the spec.
    runs: Vec<String>,
    steps: Vec<SpecStep>,
}

#[derive(Deserialize)]
struct SpecStep {
    #[serde(default)]
    run: usize,
    at: usize,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    highlight: Option<String>,
    /// The question's kind (`next_agent`, `handoff`, `verdict`, `retrieval`).
    #[serde(default)]
    question: Option<QuestionKind>,
    #[serde(default)]
    explain: Option<String>,
}

fn read_run(path: &Path) -> Result<RunDoc, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    RunDoc::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Lists the questions of a run from event `from` on.
pub fn list(run: &str, from: usize) -> Result<i32, String> {
    let doc = read_run(Path::new(run))?;
    let roles = question_roles(&doc.config.coordinator);
    for q in questions::from(&doc.events, &roles, 0, from, usize::MAX) {
        println!(
            "{:>5}  {:<10} {}  → {}",
            q.at,
            format!("{:?}", q.kind),
            q.prompt,
            q.choices[q.answer]
        );
    }
    Ok(0)
}

/// Builds the lesson `spec` describes and writes it to `out`.
pub fn make(spec_path: &str, out: &str) -> Result<i32, String> {
    let text =
        std::fs::read_to_string(spec_path).map_err(|e| format!("cannot read {spec_path}: {e}"))?;
    let spec: Spec =
        serde_json::from_str(&text).map_err(|e| format!("{spec_path}: not a lesson spec: {e}"))?;
    let dir = Path::new(spec_path).parent().unwrap_or(Path::new("."));
    let runs = spec
        .runs
        .iter()
        .map(|r| read_run(&dir.join(r)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut steps = Vec::new();
    for (n, s) in spec.steps.iter().enumerate() {
        let doc = runs
            .get(s.run)
            .ok_or_else(|| format!("step {}: no run {}", n + 1, s.run))?;
        let (events, roles) = (&doc.events, question_roles(&doc.config.coordinator));
        let step = match (&s.note, s.question) {
            (Some(text), None) => Step::Note {
                run: s.run,
                at: s.at,
                text: text.clone(),
                highlight: match &s.highlight {
                    Some(h) => Some(
                        Panel::parse(h)
                            .ok_or_else(|| format!("step {}: unknown panel \"{h}\"", n + 1))?,
                    ),
                    None => None,
                },
            },
            (None, Some(kind)) => {
                let mut q = questions::at(events, &roles, s.run, s.at)
                    .into_iter()
                    .find(|q| q.kind == kind)
                    .ok_or_else(|| {
                        format!(
                            "step {}: no {kind:?} question before event {} (run `roundtable lesson questions` to list them)",
                            n + 1,
                            s.at
                        )
                    })?;
                if let Some(e) = &s.explain {
                    q.explain = e.clone();
                }
                Step::Question(q)
            }
            _ => {
                return Err(format!(
                    "step {}: give either \"note\" or \"question\"",
                    n + 1
                ))
            }
        };
        steps.push(step);
    }
    let lesson = Lesson {
        id: spec.id,
        title: spec.title,
        summary: spec.summary,
        steps,
    };
    let bundle = Bundle::lesson(runs, lesson).sanitized();
    bundle.validate()?;
    crate::cli::save::write_whole(out, &bundle.to_json())?;
    eprintln!(
        "wrote {out}: {} steps, {} questions, {} KB",
        bundle.lesson.as_ref().map_or(0, |l| l.steps.len()),
        bundle.lesson.as_ref().map_or(0, |l| l.questions()),
        bundle.to_json().len() / 1024
    );
    Ok(0)
}
