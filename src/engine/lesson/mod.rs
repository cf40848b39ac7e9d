//! Lessons and comparisons as documents. A [`Bundle`] is one to four runs,
//! optionally with a [`Lesson`]: the teacher's notes pinned to events and
//! predict-next questions whose choices come from the runs' own events
//! ([`questions`]). A bundle is what a comparison or a lesson exports as a
//! file and carries in its share link (`share::bundle`). Everything read
//! from outside (a file, a link, IndexedDB) goes through
//! [`Bundle::from_json`] / [`Bundle::validate`]: every anchor, answer and
//! length is checked, with a message that says what is wrong.

pub mod questions;
mod score;

pub use score::{Answered, Progress};

use crate::engine::run::RunDoc;
use serde::{Deserialize, Serialize};

/// The file format of a lesson (runs + steps).
pub const FORMAT_LESSON: &str = "roundtable.lesson";
/// The file format of a comparison (runs, no steps).
pub const FORMAT_COMPARISON: &str = "roundtable.comparison";
pub const BUNDLE_VERSION: u32 = 1;
/// Runs a comparison shows side by side.
pub const MAX_RUNS: usize = 4;
pub const MAX_STEPS: usize = 200;
/// Longest note, question or title text kept (characters).
pub const MAX_TEXT: usize = 4000;
pub const MAX_CHOICES: usize = 6;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bundle {
    pub format: String,
    pub version: u32,
    #[serde(default)]
    pub title: String,
    pub runs: Vec<RunDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lesson: Option<Lesson>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Lesson {
    /// Stable id (built-in lessons' names; saved lessons' keys).
    #[serde(default)]
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub summary: String,
    pub steps: Vec<Step>,
}

/// A panel of the run page a note can point at (highlighted while the
/// note is shown).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Panel {
    Graph,
    Transcript,
    Tabs,
    Usage,
    Replay,
    /// How the runs' prompts differ (a comparison's), or what the run was
    /// told (one run's line under its setup).
    Prompts,
}

impl Panel {
    pub const ALL: [Panel; 6] = [
        Panel::Graph,
        Panel::Transcript,
        Panel::Tabs,
        Panel::Usage,
        Panel::Replay,
        Panel::Prompts,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Panel::Graph => "graph",
            Panel::Transcript => "transcript",
            Panel::Tabs => "tabs",
            Panel::Usage => "usage",
            Panel::Replay => "replay",
            Panel::Prompts => "prompts",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Panel::Graph => "the agent graph",
            Panel::Transcript => "the transcript",
            Panel::Tabs => "the coordinator's tabs (notebook, memory, …)",
            Panel::Usage => "usage and cost",
            Panel::Replay => "the replay timeline",
            Panel::Prompts => "the prompts (how the runs were told differently)",
        }
    }

    pub fn parse(s: &str) -> Option<Panel> {
        Panel::ALL.into_iter().find(|p| p.id() == s)
    }
}

/// What a predict-next question asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// Which agent makes the next model call.
    NextAgent,
    /// Whom an agent hands control to (the orchestrator's pick).
    Handoff,
    /// Whether the critic accepts the plan.
    Verdict,
    /// Which past experience a step retrieves.
    Retrieval,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub kind: QuestionKind,
    /// The run (index in the bundle) and the event the replay stops before.
    #[serde(default)]
    pub run: usize,
    pub at: usize,
    /// Events shown once answered (the answer is on screen by then).
    pub reveal: usize,
    pub prompt: String,
    pub choices: Vec<String>,
    pub answer: usize,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub explain: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Step {
    Note {
        #[serde(default)]
        run: usize,
        at: usize,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        highlight: Option<Panel>,
    },
    Question(Question),
}

impl Step {
    /// The run and the number of its events shown when the step opens.
    pub fn anchor(&self) -> (usize, usize) {
        match self {
            Step::Note { run, at, .. } => (*run, *at),
            Step::Question(q) => (q.run, q.at),
        }
    }

    pub fn question(&self) -> Option<&Question> {
        match self {
            Step::Question(q) => Some(q),
            Step::Note { .. } => None,
        }
    }

    /// A line naming the step (the editor's list, the progress bar).
    pub fn headline(&self) -> String {
        let text = match self {
            Step::Note { text, .. } => text,
            Step::Question(q) => &q.prompt,
        };
        let first = text.lines().next().unwrap_or("").trim();
        let mut s: String = first.chars().take(80).collect();
        if first.chars().count() > 80 {
            s.push('…');
        }
        s
    }
}

impl Lesson {
    pub fn questions(&self) -> usize {
        self.steps.iter().filter(|s| s.question().is_some()).count()
    }
}

fn too_long(what: &str, text: &str) -> Result<(), String> {
    if text.chars().count() > MAX_TEXT {
        return Err(format!(
            "{what} is longer than {MAX_TEXT} characters; shorten it."
        ));
    }
    Ok(())
}

impl Bundle {
    /// A comparison of `runs` (2 to 4).
    pub fn comparison(title: &str, runs: Vec<RunDoc>) -> Bundle {
        Bundle {
            format: FORMAT_COMPARISON.into(),
            version: BUNDLE_VERSION,
            title: title.into(),
            runs,
            lesson: None,
        }
    }

    /// A lesson on `runs` (one run, or a comparison).
    pub fn lesson(runs: Vec<RunDoc>, lesson: Lesson) -> Bundle {
        Bundle {
            format: FORMAT_LESSON.into(),
            version: BUNDLE_VERSION,
            title: lesson.title.clone(),
            runs,
            lesson: Some(lesson),
        }
    }

    pub fn is_lesson(&self) -> bool {
        self.lesson.is_some()
    }

    /// The runs' secrets are already out (a RunDoc never holds a key);
    /// this drops what a file must not carry: nothing beyond the configs'
    /// own sanitising.
    pub fn sanitized(mut self) -> Bundle {
        for r in &mut self.runs {
            r.config = r.config.sanitized();
        }
        self
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn to_json_pretty(&self) -> String {
        crate::engine::run::json::pretty(&self.to_json())
    }

    /// Reads a lesson or comparison file, with a clear message for
    /// anything wrong.
    pub fn from_json(text: &str) -> Result<Bundle, String> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            format!("This is not a Roundtable lesson or comparison: it is not valid JSON ({e}).")
        })?;
        Bundle::from_tree(v)
    }

    pub fn from_tree(v: serde_json::Value) -> Result<Bundle, String> {
        Bundle::check_format(&v)?;
        let bundle: Bundle = crate::engine::run::json::from_tree(&v)
            .map_err(|e| format!("The lesson or comparison is damaged: {e}."))?;
        bundle.validate()?;
        Ok(bundle)
    }

    /// A bundle from its parts (a link's): the rest as a tree and the runs
    /// already read.
    pub fn with_runs(mut meta: serde_json::Value, runs: Vec<RunDoc>) -> Result<Bundle, String> {
        Bundle::check_format(&meta)?;
        if let Some(m) = meta.as_object_mut() {
            m.insert("runs".into(), serde_json::Value::Array(Vec::new()));
        }
        let mut bundle: Bundle = crate::engine::run::json::from_tree(&meta)
            .map_err(|e| format!("The lesson or comparison is damaged: {e}."))?;
        bundle.runs = runs;
        bundle.validate()?;
        Ok(bundle)
    }

    fn check_format(v: &serde_json::Value) -> Result<(), String> {
        let format = v.get("format").and_then(|f| f.as_str()).unwrap_or("");
        if format != FORMAT_LESSON && format != FORMAT_COMPARISON {
            return Err(format!(
                "This is not a Roundtable lesson or comparison (expected \"format\": \"{FORMAT_LESSON}\" or \"{FORMAT_COMPARISON}\")."
            ));
        }
        let version = v.get("version").and_then(|n| n.as_u64()).unwrap_or(0);
        if version == 0 || version > BUNDLE_VERSION as u64 {
            return Err(format!(
                "This file was saved with lesson format version {version}; this version of Roundtable reads version {BUNDLE_VERSION}. Update Roundtable to open it."
            ));
        }
        Ok(())
    }

    /// Every check a reader needs: run count, each run, each step's anchor,
    /// reveal, choices and answer, text lengths.
    pub fn validate(&self) -> Result<(), String> {
        if self.runs.is_empty() {
            return Err("It holds no run.".into());
        }
        if self.runs.len() > MAX_RUNS {
            return Err(format!(
                "It holds {} runs; a comparison shows at most {MAX_RUNS}.",
                self.runs.len()
            ));
        }
        if self.lesson.is_none() && self.runs.len() < 2 {
            return Err("A comparison needs at least two runs.".into());
        }
        too_long("The title", &self.title)?;
        for (i, r) in self.runs.iter().enumerate() {
            r.validate().map_err(|e| format!("Run {}: {e}", i + 1))?;
        }
        let Some(lesson) = &self.lesson else {
            return Ok(());
        };
        too_long("The lesson's title", &lesson.title)?;
        too_long("The lesson's summary", &lesson.summary)?;
        if lesson.steps.len() > MAX_STEPS {
            return Err(format!(
                "The lesson has {} steps; at most {MAX_STEPS}.",
                lesson.steps.len()
            ));
        }
        for (n, step) in lesson.steps.iter().enumerate() {
            let (run, at) = step.anchor();
            let where_ = format!("Step {}", n + 1);
            let Some(doc) = self.runs.get(run) else {
                return Err(format!(
                    "{where_} points at run {} but the lesson has {}.",
                    run + 1,
                    self.runs.len()
                ));
            };
            let len = doc.events.len();
            if at > len {
                return Err(format!(
                    "{where_} is pinned to event {at} but its run has {len} events."
                ));
            }
            match step {
                Step::Note { text, .. } => too_long(&where_, text)?,
                Step::Question(q) => {
                    too_long(&where_, &q.prompt)?;
                    too_long(&where_, &q.explain)?;
                    if q.reveal < q.at || q.reveal > len {
                        return Err(format!(
                            "{where_} reveals its answer at event {} (outside {}–{len}).",
                            q.reveal, q.at
                        ));
                    }
                    if q.choices.len() < 2 || q.choices.len() > MAX_CHOICES {
                        return Err(format!(
                            "{where_} has {} choices; a question has 2 to {MAX_CHOICES}.",
                            q.choices.len()
                        ));
                    }
                    if q.answer >= q.choices.len() {
                        return Err(format!(
                            "{where_}'s answer is choice {} of {}.",
                            q.answer + 1,
                            q.choices.len()
                        ));
                    }
                    for c in &q.choices {
                        too_long(&where_, c)?;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
