//! A student's way through a lesson: the first answer to each question is
//! the one that counts (trying again after the reveal does not raise the
//! score).

use super::Lesson;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Step index → the choice first given.
    first: BTreeMap<usize, usize>,
}

/// What answering did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answered {
    Right,
    /// Wrong; the right choice's index.
    Wrong(usize),
    /// The step is not a question (or the choice does not exist).
    NotAQuestion,
}

impl Progress {
    /// Records `choice` for step `step` (only the first answer counts).
    pub fn answer(&mut self, lesson: &Lesson, step: usize, choice: usize) -> Answered {
        let Some(q) = lesson.steps.get(step).and_then(|s| s.question()) else {
            return Answered::NotAQuestion;
        };
        if choice >= q.choices.len() {
            return Answered::NotAQuestion;
        }
        self.first.entry(step).or_insert(choice);
        if choice == q.answer {
            Answered::Right
        } else {
            Answered::Wrong(q.answer)
        }
    }

    /// The first choice given at `step`, if answered.
    pub fn given(&self, step: usize) -> Option<usize> {
        self.first.get(&step).copied()
    }

    /// (first answers right, questions in the lesson).
    pub fn score(&self, lesson: &Lesson) -> (usize, usize) {
        let right = lesson
            .steps
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((s.question()?, self.first.get(&i)?)))
            .filter(|(q, c)| q.answer == **c)
            .count();
        (right, lesson.questions())
    }

    /// Questions answered so far.
    pub fn answered(&self) -> usize {
        self.first.len()
    }
}
