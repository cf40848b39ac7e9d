//! The frames of a live class, as JSON text over a WebSocket: what pages
//! send the relay (`Up`) and what it sends them (`Down`). Every frame from
//! a page is untrusted: `parse_up` reads it with limits and says what is
//! wrong, and a page that sends a malformed frame is disconnected with
//! that reason (`Close`).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// What a page sends.
// A frame lives from its parse to its handling: its size in memory does not
// matter, and boxing the class snapshot would only add noise.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Up {
    /// A teacher opens a new class.
    Open,
    /// A teacher takes its class back after a lost connection; if the
    /// relay no longer has it (restarted), `state` restores it.
    Reopen {
        code: String,
        token: String,
        state: Snapshot,
    },
    /// What the class is shown: a lesson or a run (the page's own
    /// description; the relay only forwards it). Clears the log.
    Show { show: Value },
    /// Events of the run being shown, the first at sequence `from`.
    /// Events the relay already has are skipped (a resend after a
    /// reconnect), so each is in the log once.
    Events { from: u64, events: Vec<Value> },
    /// The step the teacher is on.
    Step { step: u64 },
    /// A question for the class (one open at a time).
    Ask { question: Question },
    /// The open question's answer, shown to everyone with the counts
    /// (and the lesson's explanation, if it has one).
    Reveal {
        id: String,
        answer: usize,
        #[serde(default)]
        explain: Option<String>,
    },
    /// Ends the class for everyone.
    End,
    /// The teacher removes a student: the seat is freed and the student's
    /// page closed (it may join again as a new student).
    Remove { student: String },
    /// A student joins (or rejoins: `student` is the id the relay gave,
    /// `since` the number of events the page already has).
    Join {
        code: String,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        since: u64,
        #[serde(default)]
        student: Option<String>,
    },
    /// A student's answer to the open question.
    Answer { id: String, choice: usize },
}

/// What the relay sends.
// Serialized as soon as it is made: the welcome's size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Down {
    /// To the teacher: the class is open (or taken back), with the number
    /// of events its log has (the teacher sends on from there).
    Opened {
        code: String,
        token: String,
        #[serde(default)]
        have: u64,
        /// `digest` of what the class is shown (a teacher whose last Show
        /// was lost in a dropped connection sees it differs).
        #[serde(default)]
        shown: u64,
        /// The class is open, but this connection (which had no token yet)
        /// only takes small frames: connect again with the token to drive it.
        #[serde(default)]
        reconnect: bool,
    },
    /// To a student who joined: everything shown so far from `from` on.
    Welcome {
        student: String,
        name: Option<String>,
        show: Value,
        from: u64,
        events: Vec<Value>,
        step: u64,
        question: Option<Question>,
        answered: Option<usize>,
        revealed: Option<Revealed>,
    },
    Show {
        show: Value,
    },
    Events {
        from: u64,
        events: Vec<Value>,
    },
    Step {
        step: u64,
    },
    Ask {
        question: Question,
    },
    /// To a student: the answer was counted.
    Answered {
        id: String,
        choice: usize,
    },
    Reveal {
        revealed: Revealed,
    },
    /// To the teacher: who is in the class.
    Roster {
        students: Vec<StudentView>,
    },
    /// To the teacher: the open question's answers so far, and each
    /// student's (kept in the teacher's tab, to restore the class on a
    /// relay that lost it).
    Tally {
        id: String,
        counts: Vec<u32>,
        answered: u32,
        #[serde(default)]
        answers: BTreeMap<String, usize>,
    },
    /// Something refused that does not end the connection (a limit, an
    /// answer given twice): the page shows it.
    Notice {
        message: String,
    },
    /// To the teacher: events from `have` on were not taken. With `retry`
    /// they came too fast (send them again shortly); without, the log is
    /// full (the class sees the run up to `have`).
    Refused {
        have: u64,
        retry: bool,
        message: String,
    },
    /// The class is over.
    Ended {
        reason: String,
    },
}

/// A multiple-choice question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    pub prompt: String,
    pub choices: Vec<String>,
}

/// A question's answer and how the class answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Revealed {
    pub id: String,
    pub answer: usize,
    pub counts: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<String>,
}

/// A student as the teacher's panel lists them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudentView {
    pub id: String,
    pub name: Option<String>,
    pub connected: bool,
}

/// A class's state as the teacher's tab keeps it, to restore the class on
/// a relay that lost it. Answers are by student id.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    #[serde(default)]
    pub show: Value,
    #[serde(default)]
    pub events: Vec<Value>,
    #[serde(default)]
    pub step: u64,
    #[serde(default)]
    pub question: Option<Question>,
    #[serde(default)]
    pub answers: BTreeMap<String, usize>,
    #[serde(default)]
    pub revealed: Option<Revealed>,
}

/// Why a connection is closed: a WebSocket close code and a reason the
/// page shows (at most 123 bytes, the protocol's limit).
#[derive(Clone, Debug, PartialEq)]
pub struct Close {
    pub code: u16,
    pub reason: String,
}

/// The relay's own close codes (4000–4999 are the application's).
pub mod codes {
    /// The same student joined again in another tab.
    pub const JOINED_ELSEWHERE: u16 = 4000;
    /// Another tab took the class over with its teacher token.
    pub const DRIVEN_ELSEWHERE: u16 = 4001;
    /// The class is open: connect again with its teacher token (a
    /// connection without one takes only small frames).
    pub const RECONNECT: u16 = 4002;
    /// The teacher removed this student from the class.
    pub const REMOVED: u16 = 4003;
    /// Too many wrong class codes from this device: wait, then check the code.
    pub const SLOW_DOWN: u16 = 4029;
    /// No class under that code here (mistyped, ended, or not restored yet
    /// by its teacher after a relay restart).
    pub const NO_CLASS: u16 = 4004;
}

impl Close {
    /// No class under `code` here.
    pub fn no_class(code: &str) -> Close {
        Close {
            code: codes::NO_CLASS,
            reason: clip(
                format!(
                    "there is no class {code:?} here: check the code (the class may have ended)"
                ),
                123,
            ),
        }
    }
    /// A frame that breaks the protocol (1008, policy violation).
    pub fn policy(reason: impl Into<String>) -> Close {
        Close {
            code: 1008,
            reason: clip(reason.into(), 123),
        }
    }
    /// A frame over the size limit (1009).
    pub fn too_big(reason: impl Into<String>) -> Close {
        Close {
            code: 1009,
            reason: clip(reason.into(), 123),
        }
    }
}

fn clip(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

/// The limits every frame and class is held to.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Bytes of one frame from a teacher (events come in batches).
    pub teacher_frame: usize,
    /// Bytes of one frame from a student (a join or an answer), and of
    /// any frame on a connection without a teacher token (an open).
    pub student_frame: usize,
    pub students_per_class: usize,
    pub classes: usize,
    /// Events in a class's log.
    pub log_events: usize,
    /// Bytes of a class's log.
    pub log_bytes: usize,
    /// Events a teacher may send per second (a burst of as many).
    pub events_per_second: u32,
    /// Characters of a display name.
    pub name_chars: usize,
    /// A class whose teacher has been away this long ends (ms).
    pub teacher_away_ms: u64,
    /// A student's seat is kept this long after the page went away (ms):
    /// a page back within it keeps its seat and id.
    pub seat_grace_ms: u64,
    /// Wrong class codes one device may try at once, and then one per
    /// this many ms; over it, its joins are refused unchecked for a while.
    pub wrong_codes_burst: u32,
    pub wrong_code_every_ms: u64,
    /// The same for every device together (ten times the pace).
    pub wrong_codes_overall_burst: u32,
    /// Choices of a question, characters of a prompt, choice or
    /// explanation: a lesson's own limits (`engine::lesson`), so every
    /// lesson question can be asked live.
    pub choices: usize,
    pub text_chars: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            teacher_frame: 4 << 20,
            student_frame: 1 << 10,
            students_per_class: 300,
            classes: 200,
            log_events: 20_000,
            log_bytes: 16 << 20,
            events_per_second: 500,
            name_chars: 40,
            teacher_away_ms: 10 * 60 * 1000,
            seat_grace_ms: 2 * 60 * 1000,
            wrong_codes_burst: 10,
            wrong_code_every_ms: 2_000,
            wrong_codes_overall_burst: 100,
            choices: crate::engine::lesson::MAX_CHOICES,
            text_chars: crate::engine::lesson::MAX_TEXT,
        }
    }
}

impl Limits {
    /// The largest frame a teacher's connection takes: a class taken back
    /// carries its whole state (its log and what it shows) in one frame.
    pub fn reopen_frame(&self) -> usize {
        self.log_bytes + self.teacher_frame
    }
}

/// Reads a page's frame: JSON of a known type within `max` bytes.
pub fn parse_up(text: &str, max: usize) -> Result<Up, Close> {
    if text.len() > max {
        return Err(Close::too_big(format!(
            "a frame of {} bytes; the limit is {max}",
            text.len()
        )));
    }
    serde_json::from_str(text).map_err(|e| Close::policy(format!("not a frame of this relay: {e}")))
}

/// A digest of what a class is shown (FNV-1a over its JSON text: the
/// teacher's page and the relay write the same text for the same value).
pub fn digest(show: &Value) -> u64 {
    serde_json::to_string(show)
        .unwrap_or_default()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
        })
}

/// A student id as the relay draws them (`s` and up to 32 letters or
/// digits): one a page claims on rejoining a restored class is taken as
/// its seat.
pub fn is_student_id(id: &str) -> bool {
    id.len() > 1
        && id.len() <= 33
        && id.starts_with('s')
        && id[1..].bytes().all(|b| b.is_ascii_alphanumeric())
}

/// A display name as shown: control characters dropped, spaces trimmed,
/// at most `max` characters; empty is anonymous. Shown as text, never markup.
pub fn clean_name(name: Option<&str>, max: usize) -> Option<String> {
    let name: String = name?
        .chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .chars()
        .take(max)
        .collect();
    let name = name.trim().to_string();
    (!name.is_empty()).then_some(name)
}

/// A question within the limits: an id, a prompt, 2.. choices.
pub fn check_question(q: &Question, limits: &Limits) -> Result<(), Close> {
    let text_ok = |s: &str| s.chars().count() <= limits.text_chars;
    if q.id.is_empty() || q.id.len() > 64 {
        return Err(Close::policy("a question needs an id of 1 to 64 bytes"));
    }
    if q.choices.len() < 2 || q.choices.len() > limits.choices {
        return Err(Close::policy(format!(
            "a question needs 2 to {} choices",
            limits.choices
        )));
    }
    if !text_ok(&q.prompt) || !q.choices.iter().all(|c| text_ok(c)) {
        return Err(Close::policy(format!(
            "a question's prompt and choices are at most {} characters",
            limits.text_chars
        )));
    }
    Ok(())
}
