//! What a live class is shown, as the teacher's page describes it and the
//! students' pages read it back (the relay forwards it unread): a run,
//! whose events follow in the class's log as the teacher's run makes
//! them; a lesson; or a comparison. A student's page treats all of it as
//! untrusted: `Shown::read` and `read_events` say what is wrong.
//!
//! The class's step means, by what is shown: for a run, how many of its
//! events the teacher's replay shows ([`FOLLOW`]: all, as they come); for
//! a lesson, the lesson's step; for a comparison, every run's position
//! ([`pack`]).

use super::protocol;
use crate::engine::lesson::{Bundle, Step};
use crate::engine::run::event::LoggedEvent;
use crate::engine::run::json;
use crate::engine::run::RunConfig;
use serde_json::{json, Value};

/// A run's step when the teacher follows it to its last event.
pub const FOLLOW: u64 = u64::MAX;

#[derive(Clone, Debug, PartialEq)]
pub enum Shown {
    /// A run (its events are the class's log).
    Run(RunConfig),
    /// A lesson (its runs inside; the step is the lesson's).
    Lesson(Bundle),
    /// Two to four runs side by side.
    Compare(Bundle),
}

impl Shown {
    /// The frame's `show`. A run's config carries no key (configs never
    /// do; `sanitized` drops what a shared run must not carry).
    pub fn to_value(&self) -> Value {
        match self {
            Shown::Run(config) => {
                json!({"kind": "run", "config": json::to_tree(&config.sanitized()).unwrap_or(Value::Null)})
            }
            Shown::Lesson(b) => {
                json!({"kind": "lesson", "bundle": json::to_tree(&b.clone().sanitized()).unwrap_or(Value::Null)})
            }
            Shown::Compare(b) => {
                json!({"kind": "compare", "bundle": json::to_tree(&b.clone().sanitized()).unwrap_or(Value::Null)})
            }
        }
    }

    /// Reads what the teacher's page sent (`Ok(None)`: nothing shown yet).
    pub fn read(v: &Value) -> Result<Option<Shown>, String> {
        if v.is_null() {
            return Ok(None);
        }
        let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
        let damaged = |e: String| format!("What the teacher shows could not be read: {e}");
        match kind {
            "run" => {
                let config: RunConfig = json::from_tree(v.get("config").unwrap_or(&Value::Null))
                    .map_err(|e| damaged(format!("the run's setup is damaged ({e})")))?;
                Ok(Some(Shown::Run(config)))
            }
            "lesson" | "compare" => {
                let bundle = Bundle::from_tree(v.get("bundle").cloned().unwrap_or(Value::Null))
                    .map_err(damaged)?;
                match (kind, bundle.is_lesson()) {
                    ("lesson", true) => Ok(Some(Shown::Lesson(bundle))),
                    ("compare", false) => Ok(Some(Shown::Compare(bundle))),
                    _ => Err(damaged(format!("it says {kind:?} but holds something else"))),
                }
            }
            other => Err(damaged(format!(
                "{other:?} is not something this version shows (a run, a lesson or a comparison); reload the page for the newest version"
            ))),
        }
    }

    /// What the student's page calls it.
    pub fn label(&self) -> &'static str {
        match self {
            Shown::Run(_) => "a run",
            Shown::Lesson(_) => "a lesson",
            Shown::Compare(_) => "a comparison",
        }
    }
}

/// The class's log read as run events (the first at index `from`): every
/// event must be one, with increasing sequence numbers after `last_seq`.
pub fn read_events(
    values: &[Value],
    from: u64,
    last_seq: Option<u64>,
) -> Result<Vec<LoggedEvent>, String> {
    let mut last = last_seq;
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let at = from + i as u64;
            let e: LoggedEvent = json::from_tree(v)
                .map_err(|err| format!("event {at} of the class's run is damaged ({err})"))?;
            if last.is_some_and(|l| e.seq <= l) {
                return Err(format!(
                    "event {at} of the class's run is out of order (sequence {} after {})",
                    e.seq,
                    last.unwrap_or(0)
                ));
            }
            last = Some(e.seq);
            Ok(e)
        })
        .collect()
}

/// The id a lesson's step has as a class question.
pub fn question_id(step: usize) -> String {
    format!("step-{step}")
}

/// The step a class question's id names.
pub fn step_of(id: &str) -> Option<usize> {
    id.strip_prefix("step-")?.parse().ok()
}

/// A lesson step's question as the class is asked it, with its answer and
/// explanation (for the reveal); `None` for a note or a step past the end.
pub fn lesson_question(
    bundle: &Bundle,
    step: usize,
) -> Option<(protocol::Question, usize, String)> {
    let q = bundle.lesson.as_ref()?.steps.get(step)?.question()?;
    Some((
        protocol::Question {
            id: question_id(step),
            prompt: q.prompt.clone(),
            choices: q.choices.clone(),
        },
        q.answer,
        q.explain.clone(),
    ))
}

/// Where a lesson's replay stands at `step` (run, events shown): at the
/// step's event, or at the question's reveal once revealed.
pub fn lesson_target(bundle: &Bundle, step: usize, revealed: bool) -> Option<(usize, usize)> {
    Some(match bundle.lesson.as_ref()?.steps.get(step)? {
        Step::Note { run, at, .. } => (*run, *at),
        Step::Question(q) if revealed => (q.run, q.reveal),
        Step::Question(q) => (q.run, q.at),
    })
}

/// Bits of a packed comparison step per run (4 runs at most).
const BITS: u32 = 16;
const MASK: u64 = (1 << BITS) - 1;

/// Every run's position of a comparison as one step. A position past
/// 65 534 events reads as "to the end" (a run that long is shown whole).
pub fn pack(pos: &[usize]) -> u64 {
    pos.iter().take(4).enumerate().fold(0, |acc, (i, &p)| {
        acc | ((p as u64).min(MASK) << (BITS * i as u32))
    })
}

/// The positions of `lens.len()` runs (each at most its length) from a
/// packed step.
pub fn unpack(step: u64, lens: &[usize]) -> Vec<usize> {
    lens.iter()
        .enumerate()
        .map(|(i, &len)| {
            let p = if i < 4 {
                (step >> (BITS * i as u32)) & MASK
            } else {
                MASK
            };
            if p == MASK {
                len
            } else {
                (p as usize).min(len)
            }
        })
        .collect()
}
