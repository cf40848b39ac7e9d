//! Every class of a relay, by join code: opening, taking back (restoring
//! one a restarted relay lost), ending, and the sweeps that free empty
//! seats and end classes whose teacher stayed away. Pure, as `class`.

use super::class::{json_len, same_secret, Class, Out, To};
use super::protocol::{check_question, is_student_id, Close, Down, Limits, Question, Snapshot};
use std::collections::BTreeMap;

/// Every class of a relay, by join code.
#[derive(Default)]
pub struct Relay {
    classes: BTreeMap<String, Class>,
    pub limits: Limits,
}

impl Relay {
    pub fn new(limits: Limits) -> Relay {
        Relay {
            classes: BTreeMap::new(),
            limits,
        }
    }

    pub fn has(&self, code: &str) -> bool {
        self.classes.contains_key(code)
    }

    pub fn class(&mut self, code: &str) -> Option<&mut Class> {
        self.classes.get_mut(code)
    }

    pub fn len(&self) -> usize {
        self.classes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// A new class under `code` (unused: the caller draws it) and
    /// `token` (secret: only it drives the class).
    pub fn open(&mut self, code: String, token: String, now: u64) -> Result<Out, Close> {
        if self.classes.len() >= self.limits.classes {
            return Err(Close::policy(format!(
                "this relay holds {} classes, its limit: try again later",
                self.limits.classes
            )));
        }
        let class = Class::new(code.clone(), token, Snapshot::default(), now, &self.limits);
        let out = class.teacher_welcome();
        self.classes.insert(code, class);
        Ok(out)
    }

    /// The teacher takes the class back: with its token, or, if the relay
    /// no longer has the class, from the state the teacher's tab kept.
    /// The caller has checked that `token` is this code's: the relay signs
    /// every class's token with a key it keeps across restarts, so a page
    /// that knows only the join code cannot restore (and so take) a class.
    pub fn reopen(
        &mut self,
        code: &str,
        token: &str,
        state: Snapshot,
        now: u64,
    ) -> Result<Out, Close> {
        if let Some(class) = self.classes.get_mut(code) {
            if !same_secret(&class.token, token) {
                return Err(Close::policy("this is not the class's teacher token"));
            }
            class.teacher_away_since = None;
            return Ok(class.teacher_welcome());
        }
        let limits = &self.limits;
        if code.is_empty() || code.len() > 16 || token.len() < 16 || token.len() > 128 {
            return Err(Close::policy("a class code and teacher token are needed"));
        }
        if state.events.len() > limits.log_events
            || state.events.iter().map(json_len).sum::<usize>() > limits.log_bytes
        {
            return Err(Close::policy(
                "the saved class is larger than this relay's limits",
            ));
        }
        let fits = |q: Option<&Question>| {
            let choices = q.map_or(0, |q| q.choices.len());
            state.answers.len() <= limits.students_per_class
                && state.answers.keys().all(|id| is_student_id(id))
                && state.answers.values().all(|&c| c < choices)
                && state.revealed.as_ref().is_none_or(|r| {
                    q.is_some_and(|q| q.id == r.id)
                        && r.answer < choices
                        && r.counts.len() == choices
                        && r.explain
                            .as_ref()
                            .is_none_or(|e| e.chars().count() <= limits.text_chars)
                })
        };
        if let Some(q) = &state.question {
            check_question(q, limits)?;
        }
        if !fits(state.question.as_ref()) {
            return Err(Close::policy(
                "the saved answers do not fit the saved question",
            ));
        }
        if self.classes.len() >= limits.classes {
            return Err(Close::policy(format!(
                "this relay holds {} classes, its limit: try again later",
                limits.classes
            )));
        }
        let class = Class::new(code.to_string(), token.to_string(), state, now, limits);
        let out = class.teacher_welcome();
        self.classes.insert(code.to_string(), class);
        Ok(out)
    }

    /// The teacher ends the class: every student is told.
    pub fn end(&mut self, code: &str, reason: &str) -> Out {
        match self.classes.remove(code) {
            Some(_) => vec![(
                To::Students,
                Down::Ended {
                    reason: reason.to_string(),
                },
            )],
            None => Vec::new(),
        }
    }

    /// Frees, in every class, the seats of students gone longer than the
    /// grace period; the rosters to send.
    pub fn free_seats(&mut self, now: u64) -> Vec<(String, Out)> {
        let limits = &self.limits;
        self.classes
            .values_mut()
            .map(|c| (c.code.clone(), c.free_seats(now, limits)))
            .filter(|(_, out)| !out.is_empty())
            .collect()
    }

    /// Ends the classes whose teacher stayed away too long.
    pub fn sweep(&mut self, now: u64) -> Vec<(String, Out)> {
        let gone: Vec<String> = self
            .classes
            .values()
            .filter(|c| c.expired(now, &self.limits))
            .map(|c| c.code.clone())
            .collect();
        gone.into_iter()
            .map(|code| {
                let out = self.end(&code, "the teacher left: the class is over");
                (code, out)
            })
            .collect()
    }
}
