//! A student's side of a live class: joins with the code (and a name, or
//! none), then shows what the teacher shows where the teacher is, and
//! answers the class's questions. Everything from the relay is read as
//! untrusted (`engine::live::show`); what cannot be read is said, never
//! shown half. The seat (class, id, name) is kept in this tab's session
//! storage: a reload rejoins as the same student, with the log from the
//! start; a lost connection rejoins from the last event the page has.

use super::state::{class_state, closed_why, connect, retry, should_retry, ClassState, Link};
use super::state::{disconnect, send};
use crate::engine::live::protocol::{codes, Down, Up};
use crate::engine::live::show::{self, Shown, FOLLOW};
use crate::engine::run::RunDoc;
use crate::platform::socket::SocketEvent;
use crate::ui::state::{AppState, ClassRole, Source};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::cell::RefCell;

use crate::ui::classroom::SEAT_KEY;

/// Who this tab is in which class (session storage: this tab only).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Seat {
    pub code: String,
    #[serde(default)]
    pub student: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
}

fn session() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

fn seat() -> Option<Seat> {
    let text = session()?.get_item(SEAT_KEY).ok().flatten()?;
    serde_json::from_str::<Seat>(&text).ok()
}

/// The seat this tab had, if it was in class `code`.
pub fn saved_seat(code: &str) -> Option<Seat> {
    seat().filter(|s| s.code == code)
}

/// Rejoins the class this tab was in (after a reload), if any.
pub fn rejoin(app: AppState) {
    match seat() {
        Some(seat) if app.class.get_untracked().is_none() => join(app, &seat.code, None),
        Some(_) => {}
        None => forget_seat(),
    }
}

fn save_seat(seat: &Seat) {
    if let (Some(st), Ok(text)) = (session(), serde_json::to_string(seat)) {
        let _ = st.set_item(SEAT_KEY, &text);
    }
}

fn forget_seat() {
    if let Some(st) = session() {
        let _ = st.remove_item(SEAT_KEY);
    }
}

struct Student {
    app: AppState,
    seat: Seat,
    /// Events of the class's run this page has, and the last one's number.
    have: u64,
    last_seq: Option<u64>,
    /// Welcomed into the class at least once.
    welcomed: bool,
    /// An event could not be read: the run stops there (said in the panel).
    broken: bool,
    attempts: u32,
    /// What the class showed when this page last heard (to see, on
    /// rejoining, whether the teacher has moved on to something else).
    show: Value,
    /// Since when the relay has had no such class (ms): the teacher's tab
    /// brings it back after a restart, or it has ended.
    missing_since: Option<f64>,
}

/// How long a page waits for its teacher's tab to bring a class back
/// to a restarted relay before it says the class is gone.
const WAIT_FOR_TEACHER_MS: f64 = 120_000.0;

thread_local! {
    static STUDENT: RefCell<Option<Student>> = const { RefCell::new(None) };
}

fn with<T>(f: impl FnOnce(&mut Student) -> T) -> Option<T> {
    STUDENT.with(|t| t.borrow_mut().as_mut().map(f))
}

/// Class codes as typed: letters and digits, upper case.
pub fn clean_code(code: &str) -> String {
    code.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .take(16)
        .collect()
}

/// Joins class `code` as `name` (or anonymous), or rejoins as the seat
/// this tab had in it.
pub fn join(app: AppState, code: &str, name: Option<String>) {
    if app.class.get_untracked() == Some(ClassRole::Teacher) {
        return app.warn(
            "This tab teaches a live class: end it before joining one.",
            false,
        );
    }
    let code = clean_code(code);
    let seat = saved_seat(&code).unwrap_or(Seat {
        code,
        student: None,
        name: name.filter(|n| !n.trim().is_empty()),
    });
    // A tab that had a seat was in the class (reloaded while the relay was
    // restarting: it waits for the teacher's tab like any other).
    let welcomed = seat.student.is_some();
    let s = class_state();
    s.clear();
    s.code.set(seat.code.clone());
    s.name.set(seat.name.clone());
    s.link.set(Link::Connecting);
    STUDENT.with(|t| {
        *t.borrow_mut() = Some(Student {
            app,
            seat,
            have: 0,
            last_seq: None,
            welcomed,
            broken: false,
            attempts: 0,
            show: Value::Null,
            missing_since: None,
        })
    });
    app.class.set(Some(ClassRole::Student));
    connect(on_socket);
}

/// Leaves the class (this tab only).
pub fn leave(app: AppState) {
    STUDENT.with(|t| t.borrow_mut().take());
    forget_seat();
    disconnect();
    class_state().clear();
    app.class.set(None);
}

/// Answers the open question (once).
pub fn answer(choice: usize) {
    let s = class_state();
    let Some(q) = s.question.get_untracked() else {
        return;
    };
    if s.mine.get_untracked().is_some() || s.revealed.get_untracked().is_some() {
        return;
    }
    if send(&Up::Answer { id: q.id, choice }) {
        s.mine.set(Some((choice, false)));
    } else {
        s.notice.set(Some(
            "Not connected: your answer was not sent. Try again once the page has reconnected."
                .into(),
        ));
    }
}

fn on_socket(ev: SocketEvent) {
    let s = class_state();
    match ev {
        SocketEvent::Open => {
            let Some(up) = with(|t| Up::Join {
                code: t.seat.code.clone(),
                name: t.seat.name.clone(),
                since: t.have,
                student: t.seat.student.clone(),
            }) else {
                return;
            };
            send(&up);
        }
        SocketEvent::Text(text) => match serde_json::from_str::<Down>(&text) {
            Ok(down) => on_frame(s, down),
            Err(e) => s
                .notice
                .set(Some(format!("The relay sent something unreadable ({e})."))),
        },
        SocketEvent::Closed {
            code,
            reason,
            opened,
        } => {
            let Some((attempts, welcomed)) = with(|t| {
                t.attempts += 1;
                (t.attempts, t.welcomed)
            }) else {
                return;
            };
            let why = match code {
                codes::REMOVED => "The teacher removed you from this class. To come back, open the join link again.".to_string(),
                _ => closed_why(code, &reason),
            };
            if !opened && !welcomed && attempts == 1 {
                s.link
                    .set(Link::Over(super::state::NO_RELAY_STUDENT.into()));
                disconnect();
            } else if code == codes::NO_CLASS && welcomed && !waited_too_long() {
                // The relay restarted: the teacher's tab brings the class back.
                s.link.set(Link::Retrying(
                    attempts,
                    "waiting for the teacher's page to bring the class back".into(),
                ));
                retry(attempts.min(3));
            } else if should_retry(code) {
                s.link.set(Link::Retrying(attempts, why));
                retry(attempts - 1);
            } else {
                s.link.set(Link::Over(why));
                if code == codes::NO_CLASS {
                    forget_seat();
                }
                disconnect();
            }
        }
    }
}

/// Marks when the class went missing; whether that was too long ago.
fn waited_too_long() -> bool {
    let now = js_sys::Date::now();
    with(|t| now - *t.missing_since.get_or_insert(now) > WAIT_FOR_TEACHER_MS).unwrap_or(true)
}

fn on_frame(s: ClassState, down: Down) {
    let Some(app) = with(|t| t.app) else { return };
    match down {
        Down::Welcome {
            student,
            name,
            show,
            from,
            events,
            step,
            question,
            answered,
            revealed,
        } => {
            let Some((seat, same_show)) = with(|t| {
                t.seat.student = Some(student);
                t.seat.name = name.clone();
                t.welcomed = true;
                t.attempts = 0;
                t.missing_since = None;
                (t.seat.clone(), t.show == show)
            }) else {
                return;
            };
            save_seat(&seat);
            s.name.set(name);
            if !same_show && from > 0 {
                // The teacher showed something else while this page was
                // away: its events from the start.
                with(|t| t.have = 0);
                connect(on_socket);
                return;
            }
            // A page that has nothing yet (or another show) starts over.
            if from == 0 || !same_show || s.shown.get_untracked().is_none() {
                show_it(app, s, &show);
            }
            if s.shown.get_untracked().is_none() {
                app.goto.set(Some("/".into()));
            }
            take_events(app, s, from, events);
            s.question.set(question);
            s.mine.set(answered.map(|c| (c, true)));
            s.revealed.set(revealed);
            s.link.set(Link::Open);
            go_to(app, s, step);
        }
        Down::Show { show } => {
            show_it(app, s, &show);
            go_to(app, s, 0);
        }
        Down::Events { from, events } => {
            take_events(app, s, from, events);
            go_to(app, s, s.step.get_untracked());
        }
        Down::Step { step } => go_to(app, s, step),
        Down::Ask { question } => {
            s.question.set(Some(question));
            s.mine.set(None);
            s.revealed.set(None);
            s.notice.set(None);
        }
        Down::Answered { id, choice } => {
            if s.question
                .with_untracked(|q| q.as_ref().is_some_and(|q| q.id == id))
            {
                s.mine.set(Some((choice, true)));
            }
        }
        Down::Reveal { revealed } => {
            s.revealed.set(Some(revealed));
            go_to(app, s, s.step.get_untracked());
        }
        Down::Notice { message } => s.notice.set(Some(message)),
        Down::Ended { reason } => {
            s.link.set(Link::Over(reason));
            STUDENT.with(|t| t.borrow_mut().take());
            forget_seat();
            disconnect();
        }
        // The teacher's frames.
        Down::Opened { .. } | Down::Roster { .. } | Down::Tally { .. } | Down::Refused { .. } => {}
    }
}

/// Shows what the teacher shows (from its start).
fn show_it(app: AppState, s: ClassState, value: &Value) {
    with(|t| {
        t.have = 0;
        t.last_seq = None;
        t.broken = false;
        t.show = value.clone();
    });
    s.question.set(None);
    s.mine.set(None);
    s.revealed.set(None);
    let shown = match Shown::read(value) {
        Ok(shown) => shown,
        Err(e) => {
            s.notice.set(Some(e));
            None
        }
    };
    match &shown {
        Some(Shown::Run(config)) => {
            app.show_doc(RunDoc::new(config.clone(), Vec::new()), Source::Link, false);
            app.goto.set(Some("/".into()));
        }
        Some(Shown::Lesson(b)) if b.runs.len() == 1 => {
            app.compare.set(Vec::new());
            app.show_doc_at(b.runs[0].clone(), Source::Link, false, Some(0));
            app.goto.set(Some("/".into()));
        }
        Some(Shown::Lesson(b)) | Some(Shown::Compare(b)) => {
            app.open_comparison(b.runs.clone());
        }
        None => {}
    }
    s.shown.set(shown);
}

/// Adds the class's events from `from` (a resent overlap is skipped; a
/// gap means the page missed some: it rejoins from what it has).
fn take_events(app: AppState, s: ClassState, from: u64, events: Vec<Value>) {
    if events.is_empty() || !matches!(s.shown.get_untracked(), Some(Shown::Run(_))) {
        return;
    }
    let Some((have, last_seq, broken)) = with(|t| (t.have, t.last_seq, t.broken)) else {
        return;
    };
    if broken {
        return;
    }
    if from > have {
        s.notice.set(Some(format!(
            "Missed events {have} to {from}: catching up."
        )));
        disconnect_and_rejoin();
        return;
    }
    let skip = (have - from) as usize;
    let fresh = &events[skip.min(events.len())..];
    match show::read_events(fresh, have, last_seq) {
        Ok(list) => {
            let n = list.len() as u64;
            let seq = list.last().map(|e| e.seq);
            with(|t| {
                t.have += n;
                t.last_seq = seq.or(t.last_seq);
            });
            if on_class_run(app, s) {
                app.append_events(list);
            }
        }
        Err(e) => {
            with(|t| t.broken = true);
            s.notice.set(Some(format!(
                "The run stops here for this page: {e}. The teacher's page may be a newer version; reload to try again."
            )));
        }
    }
}

fn disconnect_and_rejoin() {
    connect(on_socket);
}

/// Whether the page shows the class's run (the student may have opened
/// another one: the class's frames are counted, not shown, until "Back
/// to the class").
pub fn on_class_run(app: AppState, s: ClassState) -> bool {
    let class_run = s.shown.with(|shown| match shown {
        Some(Shown::Run(c)) => Some(c.run_id.clone()),
        Some(Shown::Lesson(b)) if b.runs.len() == 1 => Some(b.runs[0].config.run_id.clone()),
        _ => None,
    });
    match class_run {
        Some(id) => app
            .shown
            .with(|x| x.as_ref().is_some_and(|x| x.config.run_id == id)),
        None => true,
    }
}

/// Shows the class again from its start (after the student opened
/// another run).
pub fn back_to_class() {
    let in_class = with(|t| {
        t.have = 0;
        t.show = Value::Null;
    });
    if in_class.is_some() {
        class_state().shown.set(None);
        connect(on_socket);
    }
}

/// Moves the page to the teacher's step.
fn go_to(app: AppState, s: ClassState, step: u64) {
    s.step.set(step);
    if !on_class_run(app, s) {
        return;
    }
    match s.shown.get_untracked() {
        Some(Shown::Run(_)) => {
            let len = app.events.with_untracked(Vec::len);
            let k = if step == FOLLOW {
                len
            } else {
                (step as usize).min(len)
            };
            if app.position() != k || app.cursor.get_untracked().is_some() != (k < len) {
                app.set_cursor(k);
            }
        }
        Some(Shown::Lesson(b)) => {
            let step = step as usize;
            let revealed = s
                .revealed
                .with_untracked(|r| r.as_ref().is_some_and(|r| r.id == show::question_id(step)));
            if let Some((run, at)) = show::lesson_target(&b, step, revealed) {
                if b.runs.len() == 1 {
                    app.set_cursor(at);
                } else {
                    super::super::positions::pin(app, run, at);
                }
            }
        }
        Some(Shown::Compare(_)) => {
            let lens: Vec<usize> = app
                .compare
                .with_untracked(|r| r.iter().map(|d| d.events.len()).collect());
            app.compare_pos.set(show::unpack(step, &lens));
        }
        None => {}
    }
}
