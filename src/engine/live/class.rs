//! A live class as the relay holds it (the relay's classes: `relay`): a
//! pure state machine (no I/O, no clock, no randomness: the server passes
//! the time and the codes in), so every rule is tested without a network.
//! Each call returns the frames to send and to whom (`Out`), or `Close`
//! when the frame breaks the protocol.

use super::bucket::Bucket;
use super::protocol::{
    check_question, clean_name, digest, is_student_id, Close, Down, Limits, Question, Revealed,
    Snapshot, StudentView, Up,
};
use std::collections::BTreeMap;

/// Whom a frame goes to.
#[derive(Clone, Debug, PartialEq)]
pub enum To {
    Teacher,
    Student(String),
    /// Every student connected.
    Students,
}

pub type Out = Vec<(To, Down)>;

struct Seat {
    name: Option<String>,
    /// When the student's page went away (None while connected): the
    /// seat is kept for `Limits::seat_grace_ms`, then freed.
    left_at: Option<u64>,
    /// When the student first sat down (the roster's order).
    order: u64,
}

impl Seat {
    fn connected(&self) -> bool {
        self.left_at.is_none()
    }
}

pub struct Class {
    pub code: String,
    pub(super) token: String,
    state: Snapshot,
    log_bytes: usize,
    students: BTreeMap<String, Seat>,
    /// Seats taken so far (the next seat's `order`).
    seated: u64,
    /// When the teacher's connection went away (None while connected).
    pub(super) teacher_away_since: Option<u64>,
    /// Events the teacher may still send now, and when that was counted.
    allowance: Bucket,
}

/// Byte strings equal, in time that does not depend on where they differ.
pub(super) fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

pub(super) fn json_len(v: &serde_json::Value) -> usize {
    serde_json::to_string(v).map_or(0, |s| s.len())
}

impl Class {
    pub(super) fn new(
        code: String,
        token: String,
        state: Snapshot,
        now: u64,
        limits: &Limits,
    ) -> Class {
        let log_bytes = state.events.iter().map(json_len).sum();
        let students = state
            .answers
            .keys()
            .enumerate()
            .map(|(i, id)| {
                let seat = Seat {
                    name: None,
                    left_at: Some(now),
                    order: i as u64,
                };
                (id.clone(), seat)
            })
            .collect::<BTreeMap<_, _>>();
        let seated = students.len() as u64;
        Class {
            code,
            token,
            state,
            log_bytes,
            students,
            seated,
            teacher_away_since: None,
            allowance: Bucket::full(limits.events_per_second as f64, now),
        }
    }

    /// The state the teacher's tab keeps (to restore the class elsewhere).
    pub fn snapshot(&self) -> &Snapshot {
        &self.state
    }

    pub fn students_connected(&self) -> usize {
        self.students.values().filter(|s| s.connected()).count()
    }

    /// Who is in the class, in the order they came.
    fn roster(&self) -> Down {
        let mut seats: Vec<_> = self.students.iter().collect();
        seats.sort_by_key(|(_, s)| s.order);
        Down::Roster {
            students: seats
                .into_iter()
                .map(|(id, s)| StudentView {
                    id: id.clone(),
                    name: s.name.clone(),
                    connected: s.connected(),
                })
                .collect(),
        }
    }

    fn counts(&self, q: &Question) -> Vec<u32> {
        let mut counts = vec![0u32; q.choices.len()];
        for &c in self.state.answers.values() {
            if let Some(n) = counts.get_mut(c) {
                *n += 1;
            }
        }
        counts
    }

    fn tally(&self) -> Option<Down> {
        let q = self.state.question.as_ref()?;
        Some(Down::Tally {
            id: q.id.clone(),
            counts: self.counts(q),
            answered: self.state.answers.len() as u32,
            answers: self.state.answers.clone(),
        })
    }

    /// What the teacher's page needs on (re)connecting.
    pub(super) fn teacher_welcome(&self) -> Out {
        let mut out = vec![
            (
                To::Teacher,
                Down::Opened {
                    code: self.code.clone(),
                    token: self.token.clone(),
                    have: self.state.events.len() as u64,
                    shown: digest(&self.state.show),
                    reconnect: false,
                },
            ),
            (To::Teacher, self.roster()),
        ];
        out.extend(self.tally().map(|t| (To::Teacher, t)));
        out
    }

    /// A frame from the teacher's connection.
    pub fn teacher(&mut self, up: Up, now: u64, limits: &Limits) -> Result<Out, Close> {
        match up {
            Up::Show { show } => {
                if json_len(&show) > limits.teacher_frame {
                    return Err(Close::too_big("what is shown is too large"));
                }
                self.state = Snapshot {
                    show: show.clone(),
                    ..Snapshot::default()
                };
                self.log_bytes = 0;
                Ok(vec![(To::Students, Down::Show { show })])
            }
            Up::Events { from, events } => self.events(from, events, now, limits),
            Up::Step { step } => {
                self.state.step = step;
                Ok(vec![(To::Students, Down::Step { step })])
            }
            Up::Ask { question } => {
                check_question(&question, limits)?;
                self.state.question = Some(question.clone());
                self.state.answers.clear();
                self.state.revealed = None;
                let mut out = vec![(To::Students, Down::Ask { question })];
                out.extend(self.tally().map(|t| (To::Teacher, t)));
                Ok(out)
            }
            Up::Reveal {
                id,
                answer,
                explain,
            } => {
                let Some(q) = self.state.question.as_ref().filter(|q| q.id == id) else {
                    return Ok(vec![(
                        To::Teacher,
                        Down::Notice {
                            message: format!("question {id:?} is not the open one"),
                        },
                    )]);
                };
                if answer >= q.choices.len() {
                    return Err(Close::policy(format!(
                        "the answer {answer} is not one of the question's {} choices",
                        q.choices.len()
                    )));
                }
                if explain
                    .as_ref()
                    .is_some_and(|e| e.chars().count() > limits.text_chars)
                {
                    return Err(Close::policy(format!(
                        "an explanation is at most {} characters",
                        limits.text_chars
                    )));
                }
                let revealed = Revealed {
                    id,
                    answer,
                    counts: self.counts(q),
                    explain,
                };
                self.state.revealed = Some(revealed.clone());
                Ok(vec![
                    (
                        To::Students,
                        Down::Reveal {
                            revealed: revealed.clone(),
                        },
                    ),
                    (To::Teacher, Down::Reveal { revealed }),
                ])
            }
            Up::Remove { student } => Ok(self.remove(&student)),
            Up::Open | Up::Reopen { .. } => Err(Close::policy(
                "this connection already drives a class: open another one for a new class",
            )),
            Up::End => Err(Close::policy("End is the relay's to handle")),
            Up::Join { .. } | Up::Answer { .. } => Err(Close::policy(
                "a teacher's connection cannot join or answer",
            )),
        }
    }

    fn events(
        &mut self,
        from: u64,
        events: Vec<serde_json::Value>,
        now: u64,
        limits: &Limits,
    ) -> Result<Out, Close> {
        let have = self.state.events.len() as u64;
        let refused = |retry: bool, message: String| {
            Ok(vec![(
                To::Teacher,
                Down::Refused {
                    have,
                    retry,
                    message,
                },
            )])
        };
        // Frames sent on after a refused one: refused too, with where to
        // resume (the teacher's page sends again from there).
        if from > have {
            return refused(
                true,
                format!("events from {from}, but the class has {have}: send from {have}"),
            );
        }
        let fresh: Vec<_> = events.into_iter().skip((have - from) as usize).collect();
        if fresh.is_empty() {
            return Ok(Vec::new());
        }
        // The allowance refills at events_per_second, up to one second's.
        let rate = limits.events_per_second as f64;
        self.allowance.refill(now, 1000.0 / rate, rate);
        if (fresh.len() as f64) > self.allowance.left {
            return refused(
                true,
                format!(
                    "more than {} events a second: events from {have} not sent on; send them again shortly",
                    limits.events_per_second
                ),
            );
        }
        let bytes: usize = fresh.iter().map(json_len).sum();
        if self.state.events.len() + fresh.len() > limits.log_events
            || self.log_bytes + bytes > limits.log_bytes
        {
            return refused(
                false,
                format!(
                    "the class's log is full ({} events or {} MB at most): the class sees the run up to event {have}",
                    limits.log_events,
                    limits.log_bytes >> 20
                ),
            );
        }
        self.allowance.left -= fresh.len() as f64;
        self.log_bytes += bytes;
        self.state.events.extend(fresh.iter().cloned());
        Ok(vec![(
            To::Students,
            Down::Events {
                from: have,
                events: fresh,
            },
        )])
    }

    /// A student joins or rejoins; returns their id. A page that had an
    /// id keeps it: its seat here, or (the class restored on a relay that
    /// restarted) a seat made for it — the caller passes only ids the
    /// relay itself drew for this class. Anyone else gets `fresh`, an id
    /// the caller drew (not guessable, so no page can take another's
    /// seat). In a full class the seat of the student gone longest goes
    /// to the newcomer: pages that joined and left cannot keep others out.
    pub fn join(
        &mut self,
        name: Option<&str>,
        since: u64,
        student: Option<&str>,
        fresh: String,
        limits: &Limits,
    ) -> Result<(String, Out), Close> {
        let name = clean_name(name, limits.name_chars);
        let claimed = student.filter(|id| is_student_id(id));
        let id = match claimed {
            Some(id) if self.students.contains_key(id) => id.to_string(),
            _ => {
                if self.students.len() >= limits.students_per_class {
                    let gone_longest = self
                        .students
                        .iter()
                        .filter_map(|(id, s)| s.left_at.map(|t| (t, s.order, id.clone())))
                        .min();
                    let Some((_, _, gone)) = gone_longest else {
                        return Err(Close::policy(format!(
                            "the class is full ({} students)",
                            limits.students_per_class
                        )));
                    };
                    self.unseat(&gone);
                }
                match claimed {
                    Some(id) => id.to_string(),
                    None if is_student_id(&fresh) && !self.students.contains_key(&fresh) => fresh,
                    None => return Err(Close::policy("the relay could not seat this page")),
                }
            }
        };
        let order = self.seated;
        let seat = self.students.entry(id.clone()).or_insert_with(|| Seat {
            name: None,
            left_at: None,
            order,
        });
        if seat.order == order {
            self.seated += 1;
        }
        seat.left_at = None;
        if name.is_some() {
            seat.name = name;
        }
        let from = since.min(self.state.events.len() as u64);
        let welcome = Down::Welcome {
            student: id.clone(),
            name: seat.name.clone(),
            show: self.state.show.clone(),
            from,
            events: self.state.events[from as usize..].to_vec(),
            step: self.state.step,
            question: self.state.question.clone(),
            answered: self.state.answers.get(&id).copied(),
            revealed: self.state.revealed.clone(),
        };
        let out = vec![
            (To::Student(id.clone()), welcome),
            (To::Teacher, self.roster()),
        ];
        Ok((id, out))
    }

    /// A seat goes, and its answer to the open question with it (the
    /// tally counts the students in the class; a revealed count stays).
    fn unseat(&mut self, id: &str) -> bool {
        self.state.answers.remove(id);
        self.students.remove(id).is_some()
    }

    /// The teacher removes a student (whose page the relay then closes):
    /// the seat is free at once. Unknown ids change nothing.
    pub fn remove(&mut self, student: &str) -> Out {
        if !self.unseat(student) {
            return Vec::new();
        }
        let mut out = vec![(To::Teacher, self.roster())];
        out.extend(self.tally().map(|t| (To::Teacher, t)));
        out
    }

    /// Frees the seats of students gone longer than the grace period
    /// (the teacher hears the roster if one went).
    pub fn free_seats(&mut self, now: u64, limits: &Limits) -> Out {
        let gone: Vec<String> = self
            .students
            .iter()
            .filter(|(_, s)| {
                s.left_at
                    .is_some_and(|t| now.saturating_sub(t) > limits.seat_grace_ms)
            })
            .map(|(id, _)| id.clone())
            .collect();
        if gone.is_empty() {
            return Vec::new();
        }
        for id in &gone {
            self.unseat(id);
        }
        let mut out = vec![(To::Teacher, self.roster())];
        out.extend(self.tally().map(|t| (To::Teacher, t)));
        out
    }

    /// A student's answer to the open question (each once).
    pub fn answer(&mut self, student: &str, id: &str, choice: usize) -> Result<Out, Close> {
        let notice = |message: &str| {
            Ok(vec![(
                To::Student(student.to_string()),
                Down::Notice {
                    message: message.to_string(),
                },
            )])
        };
        let Some(q) = self.state.question.as_ref().filter(|q| q.id == id) else {
            return notice("that question is no longer open");
        };
        if choice >= q.choices.len() {
            return Err(Close::policy(format!(
                "choice {choice} is not one of the question's {}",
                q.choices.len()
            )));
        }
        if self.state.revealed.is_some() {
            return notice("the answer has been revealed: answers are closed");
        }
        if self.state.answers.contains_key(student) {
            return notice("you already answered this question");
        }
        self.state.answers.insert(student.to_string(), choice);
        let mut out = vec![(
            To::Student(student.to_string()),
            Down::Answered {
                id: id.to_string(),
                choice,
            },
        )];
        out.extend(self.tally().map(|t| (To::Teacher, t)));
        Ok(out)
    }

    pub fn student_left(&mut self, student: &str, now: u64) -> Out {
        match self.students.get_mut(student) {
            Some(seat) if seat.connected() => {
                seat.left_at = Some(now);
                vec![(To::Teacher, self.roster())]
            }
            _ => Vec::new(),
        }
    }

    pub fn teacher_left(&mut self, now: u64) {
        self.teacher_away_since.get_or_insert(now);
    }

    /// Whether the teacher has been away longer than the limit.
    pub fn expired(&self, now: u64, limits: &Limits) -> bool {
        self.teacher_away_since
            .is_some_and(|t| now.saturating_sub(t) > limits.teacher_away_ms)
    }
}
