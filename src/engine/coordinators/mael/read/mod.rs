//! Reading MAEL's replies (judge, decompose, critique, evaluate) with the
//! engine's one lenient JSON reader, [`read_json`]: every repair it needed
//! is returned with the value, and every mapping done here is one more
//! ([`RepairKind::Shape`], [`RepairKind::Clamped`]). A reply that holds no
//! answer is [`Unreadable`]: the step decides what to do (`steps`,
//! `rewards`), never this file.
//!
//! - A yes/no field (`solvable`, `adequate`) is a JSON boolean; the texts
//!   "true"/"false"/"yes"/"no" (any case) are mapped with a `Shape`
//!   repair; anything else is unreadable (never read as a yes).
//! - A judgement with no readable JSON may be read from an explicit
//!   verdict in its text (`solvable: no`, `verdict: split`, or a reply
//!   that is only "yes" / "no"), whole words only, the last one given.
//! - A decomposition may be a bare JSON list, or a list of objects, or
//!   the reply's list lines (`- …`, `1. …`).
//! - A score may be read from its text only in an explicit form ("score:
//!   7", "rating 7", "7/10", "7 out of 10"), the last one given; a number
//!   outside 0–10 is clamped.
//!
//! One file per step read: `judge`, `decompose`, `critique`, `score`
//! (the evaluator's rating); the field mappings they share in `fields`,
//! and the words and numbers the text fallbacks match on in `tokens`.
//!
//! [`read_json`]: crate::engine::model::reply::read_json
//! [`RepairKind::Shape`]: crate::engine::model::reply::RepairKind::Shape
//! [`RepairKind::Clamped`]: crate::engine::model::reply::RepairKind::Clamped
//! [`Unreadable`]: crate::engine::model::reply::Unreadable

//! Each structured step's reply shape ([`schema`]) is made from its type
//! in `contract.rs`; the request carries it (the provider's structured
//! mode), and every reader here checks the reply against it: a reply read
//! with no repair that does not fit its shape is flagged all the same.

mod critique;
mod decompose;
mod fields;
mod files;
mod judge;
mod score;
mod tokens;

pub use decompose::Subtask;

use super::contract::{
    Critique, Decomposition, FileWrite, Judgement, ProjectReply, Rating, Split, StepKind,
    STEP_CRITIQUE, STEP_DECOMPOSE, STEP_JUDGE,
};
use crate::engine::model::reply::{Read, Unreadable};
use crate::engine::model::shape::ReplySchema;

/// The reply shape of a decision step (none for the free-text ones).
pub fn schema(kind: StepKind) -> Option<ReplySchema> {
    match kind {
        StepKind::Judge => Some(ReplySchema::of::<Judgement>(STEP_JUDGE)),
        StepKind::Decompose => Some(
            ReplySchema::of::<Decomposition>(STEP_DECOMPOSE)
                .in_order(&["mode", "subtasks"])
                .in_order_at("/properties/subtasks/items", &["task", "agent"]),
        ),
        StepKind::Critique => {
            Some(ReplySchema::of::<Critique>(STEP_CRITIQUE).with_agreeing("adequate", "feedback"))
        }
        StepKind::Solve | StepKind::Aggregate => None,
    }
}

/// A software step's reply shape (solve or aggregate on an SRDD task):
/// the files it writes.
pub fn project_schema(kind: StepKind) -> ReplySchema {
    ReplySchema::of::<ProjectReply>(kind.tag())
        .in_order_at("/properties/files/items", &["path", "content"])
}

/// A software step's reply: the files it writes.
pub fn project(reply: &str) -> Result<Read<Vec<FileWrite>>, Unreadable> {
    files::files(reply)
}

/// The evaluator's (and the quality judge's) reply shape, for `step`.
pub fn rating_schema(step: &str) -> ReplySchema {
    ReplySchema::of::<Rating>(step)
}

fn checked<T>(
    read: Result<Read<T>, Unreadable>,
    shape: ReplySchema,
    reply: &str,
) -> Result<Read<T>, Unreadable> {
    read.map(|mut r| {
        shape.flag_misfit(reply, &mut r.repairs);
        r
    })
}

/// The judge's reply: whether the agent solves the task alone.
pub fn judgement(reply: &str) -> Result<Read<Judgement>, Unreadable> {
    checked(
        judge::judgement(reply),
        ReplySchema::of::<Judgement>(STEP_JUDGE),
        reply,
    )
}

/// The decomposer's reply: the subtasks (possibly none). Subtasks that
/// name no neighbour (plain texts) are read as they are: the step flags
/// their assignment (round robin), and the run checks the rest of the
/// shape when the step reports its repairs.
pub fn subtasks(reply: &str) -> Result<Read<(Split, Vec<Subtask>)>, Unreadable> {
    decompose::decomposition(reply)
}

/// The critic's reply: adequate or not, and the feedback.
pub fn critique(reply: &str) -> Result<Read<Critique>, Unreadable> {
    checked(
        critique::critique(reply),
        ReplySchema::of::<Critique>(STEP_CRITIQUE),
        reply,
    )
}

/// The evaluator's reply: its score on [0, 1], and its reason.
pub fn rating(reply: &str) -> Result<Read<(f64, String)>, Unreadable> {
    checked(score::rating(reply), rating_schema("rating"), reply)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::reply::{Read, RepairKind};

    /// The kinds of the repairs a read needed, in order.
    pub(super) fn kinds<T>(r: &Read<T>) -> Vec<RepairKind> {
        r.repairs.iter().map(|r| r.kind.clone()).collect()
    }

    #[test]
    fn odd_text_never_panics() {
        let long = "é{[\"".repeat(25_000);
        let odd = [
            long.as_str(),
            "ß\u{0130}\u{FB03} score: ９/１０ \u{200D}👩‍👩‍👧 - 5/10",
            "-",
            "1.",
            "99999999999999999999999999999999999999999999/10",
            "{\"score\": 1e400}",
            "{\"adequate\": \"İ\"}",
        ];
        for s in odd {
            let _ = judgement(s);
            let _ = subtasks(s);
            let _ = critique(s);
            let _ = rating(s);
            let _ = project(s);
        }
        assert_eq!(
            rating(odd[1]).map(|r| r.value.0),
            Ok(0.5),
            "full-width digits are not a score"
        );
    }
}
