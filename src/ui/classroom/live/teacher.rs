//! The teacher's side of a live class. *Start a live class* connects this
//! tab to the relay, which gives a code and a token (kept in this tab's
//! memory only). From then on what the tab shows goes to the class: the
//! run (its events as they come, paced under the relay's rate), the
//! lesson or the comparison; the replay position or lesson step; a
//! lesson's questions when its step is reached, and their reveal once the
//! teacher moves on or presses Reveal. If the connection drops, the tab
//! connects again and takes the class back, restoring it from what it
//! kept if the relay lost it (restarted).

use super::pump::{pump, BATCH};
use super::state::{class_state, closed_why, connect, retry, should_retry, ClassState, Link};
use super::state::{connect_with, disconnect, send, token_query, Tally, NO_RELAY};
use super::teacher_questions::RunQuestion;
use super::teacher_shown::{current, current_step, shown_key};
use crate::engine::live::protocol::{codes, digest, Down, Limits, Snapshot, Up};
use crate::engine::live::show::Shown;
use crate::platform::socket::SocketEvent;
use crate::ui::classroom::TEACH_KEY;
use crate::ui::state::{AppState, ClassRole};
use leptos::prelude::*;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashSet;

#[derive(Default)]
pub(super) struct Teacher {
    pub(super) app: Option<AppState>,
    pub(super) code: String,
    pub(super) token: String,
    /// What the class has, to restore it on a relay that lost it.
    pub(super) kept: Snapshot,
    /// What is shown, as a key (changes when something else is shown).
    pub(super) key: String,
    pub(super) run_question: Option<RunQuestion>,
    /// Lesson questions revealed since the lesson was shown (going back
    /// to one does not ask the class again).
    pub(super) revealed_ids: HashSet<String>,
    pub(super) attempts: u32,
    pub(super) opened: bool,
    /// The loop sending the run's events, if one runs (its number).
    pub(super) pump: Option<u64>,
    pub(super) pumps: u64,
    /// The class's log takes no more of this run (full, or an event too
    /// large to send).
    pub(super) full: bool,
    /// End pressed while the relay was away: sent once it is back.
    pub(super) ending: bool,
    /// Send the step again (after a reconnect: the last may be lost).
    pub(super) step_again: bool,
    /// Events a frame (at most `BATCH`; halved, once a second at most,
    /// while the relay refuses them as too fast: a relay with a lower
    /// rate than 400 a second is still fed), and when it last was.
    pub(super) batch: usize,
    pub(super) halved_at: f64,
    /// The relay refused to give the class back (the token is kept).
    pub(super) refused: bool,
}

thread_local! {
    static TEACHER: RefCell<Option<Teacher>> = const { RefCell::new(None) };
}

pub(super) fn with<T>(f: impl FnOnce(&mut Teacher) -> T) -> Option<T> {
    TEACHER.with(|t| t.borrow_mut().as_mut().map(f))
}

/// Starts a class on what this tab shows (the panel appears at once).
pub fn start(app: AppState) {
    match app.class.get_untracked() {
        Some(ClassRole::Student) => {
            return app.warn(
                "This tab follows a live class: leave it before starting one.",
                false,
            )
        }
        Some(ClassRole::Teacher) => return,
        None => {}
    }
    let s = class_state();
    s.clear();
    s.link.set(Link::Connecting);
    TEACHER.with(|t| {
        *t.borrow_mut() = Some(Teacher {
            app: Some(app),
            batch: BATCH,
            ..Teacher::default()
        })
    });
    app.class.set(Some(ClassRole::Teacher));
    connect(on_socket);
}

fn session() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Kept {
    code: String,
    token: String,
}

/// Takes back the class this tab taught before it was reloaded (what it
/// showed is gone: the class keeps seeing it until the tab shows another).
pub fn resume(app: AppState) {
    let Some(kept) = session()
        .and_then(|s| s.get_item(TEACH_KEY).ok().flatten())
        .and_then(|t| serde_json::from_str::<Kept>(&t).ok())
    else {
        return;
    };
    if app.class.get_untracked().is_some() {
        return;
    }
    let s = class_state();
    s.clear();
    s.resumed.set(true);
    s.link.set(Link::Connecting);
    TEACHER.with(|t| {
        *t.borrow_mut() = Some(Teacher {
            app: Some(app),
            code: kept.code,
            token: kept.token,
            // Taken back before: a refusal now is not "no relay".
            opened: true,
            batch: BATCH,
            ..Teacher::default()
        })
    });
    app.class.set(Some(ClassRole::Teacher));
    reconnect();
}

/// Connects this tab to its class again: with the class's token in the
/// relay's address (the relay checks it before taking the class's state).
fn reconnect() {
    match with(|t| token_query(&t.code, &t.token)) {
        Some(query) => connect_with(on_socket, query),
        None => connect(on_socket),
    }
}

/// Tries again to take the class back after the relay refused it (the
/// tab kept the token).
pub fn try_again() {
    if with(|t| {
        t.attempts = 0;
        t.refused = false;
    })
    .is_none()
    {
        return;
    }
    class_state().link.set(Link::Connecting);
    reconnect();
}

/// Whether the relay refused to give the class back (Try again offered).
pub fn refused() -> bool {
    with(|t| t.refused).unwrap_or(false)
}

/// Removes a student from the class (the relay closes their page).
pub fn remove(student: String) {
    send(&Up::Remove { student });
}

fn keep_token(code: &str, token: &str) {
    let text = serde_json::to_string(&Kept {
        code: code.into(),
        token: token.into(),
    });
    if let (Some(st), Ok(text)) = (session(), text) {
        let _ = st.set_item(TEACH_KEY, &text);
    }
}

fn forget_token() {
    if let Some(st) = session() {
        let _ = st.remove_item(TEACH_KEY);
    }
}

/// Ends the class for everyone (once the relay is there to hear it).
pub fn end(app: AppState) {
    let (again, had_class) = with(|t| (t.ending, !t.code.is_empty())).unwrap_or((true, false));
    if again || send(&Up::End) || !had_class {
        return leave(app);
    }
    match class_state().link.get_untracked() {
        Link::Over(_) => leave(app),
        _ => {
            with(|t| t.ending = true);
            class_state().notice.set(Some(
                "The relay is away: the class ends for everyone as soon as it is back (press End class again to leave it now).".into(),
            ));
        }
    }
}

/// Leaves this tab's class part (the class itself ends if it was open).
fn leave(app: AppState) {
    forget_token();
    TEACHER.with(|t| t.borrow_mut().take());
    disconnect();
    class_state().clear();
    app.class.set(None);
}

fn on_socket(ev: SocketEvent) {
    let s = class_state();
    match ev {
        SocketEvent::Open => {
            let Some((code, token, kept)) =
                with(|t| (t.code.clone(), t.token.clone(), t.kept.clone()))
            else {
                return;
            };
            if code.is_empty() {
                send(&Up::Open);
            } else {
                send(&Up::Reopen {
                    code,
                    token,
                    state: kept,
                });
            }
        }
        SocketEvent::Text(text) => match serde_json::from_str::<Down>(&text) {
            Ok(down) => on_frame(s, down),
            Err(e) => s
                .notice
                .set(Some(format!("The relay sent something unreadable ({e}).",))),
        },
        SocketEvent::Closed {
            code,
            reason,
            opened,
        } => {
            let Some((attempts, ever)) = with(|t| {
                t.attempts += 1;
                t.pump = None;
                (t.attempts, t.opened || opened)
            }) else {
                return;
            };
            let had_class = with(|t| !t.token.is_empty()).unwrap_or(false);
            if !ever {
                s.link.set(Link::Over(NO_RELAY.into()));
                disconnect();
            } else if code == codes::RECONNECT {
                // Opened: the tab connects again with the token (it does
                // so on the Opened frame; this is for a frame lost).
                if had_class {
                    with(|t| t.attempts = 0);
                    reconnect();
                }
            } else if should_retry(code) {
                s.link
                    .set(Link::Retrying(attempts, closed_why(code, &reason)));
                retry(attempts - 1);
            } else if code == 1008 && had_class {
                // The relay would not give the class back: the tab keeps
                // its token (a relay restarted with its key takes it later).
                with(|t| t.refused = true);
                s.link.set(Link::Over(format!(
                    "The relay would not give this class back: {}. This tab keeps the class's token, so Try again works once the relay has its key back.",
                    closed_why(code, &reason)
                )));
                disconnect();
            } else {
                s.link.set(Link::Over(closed_why(code, &reason)));
                forget_token();
                disconnect();
            }
        }
    }
}

fn on_frame(s: ClassState, down: Down) {
    match down {
        Down::Opened {
            code,
            token,
            reconnect: true,
            ..
        } => {
            // The class is open; this connection takes small frames only:
            // connect again with the token to drive it.
            keep_token(&code, &token);
            with(|t| {
                t.code = code;
                t.token = token;
                t.opened = true;
                t.attempts = 0;
            });
            reconnect();
        }
        Down::Opened {
            code,
            token,
            have,
            shown,
            ..
        } => on_opened(s, code, token, have, shown),
        Down::Roster { students } => s.roster.set(students),
        Down::Tally {
            id,
            counts,
            answered,
            answers,
        } => {
            with(|t| {
                if t.kept.question.as_ref().is_some_and(|q| q.id == id) {
                    t.kept.answers = answers;
                }
            });
            s.tally.set(Some(Tally {
                id,
                counts,
                answered,
            }));
        }
        Down::Reveal { revealed } => {
            with(|t| {
                t.revealed_ids.insert(revealed.id.clone());
                t.kept.revealed = Some(revealed.clone());
            });
            s.revealed.set(Some(revealed));
        }
        Down::Notice { message } => s.notice.set(Some(message)),
        Down::Refused {
            have,
            retry,
            message,
        } => on_refused(s, have, retry, message),
        Down::Ended { reason } => {
            forget_token();
            s.link.set(Link::Over(reason));
            TEACHER.with(|t| t.borrow_mut().take());
            disconnect();
        }
        // A student's frames.
        _ => {}
    }
}

/// The relay opened the class (or took it back): `have` events of it
/// reached the class, and `shown` is the digest of what it shows.
fn on_opened(s: ClassState, code: String, token: String, have: u64, shown: u64) {
    keep_token(&code, &token);
    let ending = with(|t| {
        t.code = code.clone();
        t.token = token;
        t.attempts = 0;
        t.opened = true;
        t.pump = None;
        if shown != digest(&t.kept.show) && !t.key.is_empty() {
            // The last Show was lost with the connection: show
            // it again (the sync below sends it, from event 0).
            t.key.clear();
        }
        // The class has what the relay says (a frame in flight when
        // the connection dropped was lost): send on from there.
        let have = (have as usize).min(t.kept.events.len());
        t.kept.events.truncate(have);
        s.sent.set(have);
        // A step lost the same way: sent again by the sync.
        t.step_again = true;
        t.ending
    });
    if ending == Some(true) {
        send(&Up::End);
        if let Some(app) = with(|t| t.app).flatten() {
            leave(app);
        }
        return;
    }
    s.code.set(code);
    s.link.set(Link::Open);
    // The sync effect runs on the change of link; if the link was
    // open already (a quick retry), push what changed anyway.
    if let Some(app) = with(|t| t.app).flatten() {
        sync(app, s);
    }
}

/// The relay refused events from the `have`th on: too fast (`retry`: sent
/// again, slower) or for good (`message` says why).
fn on_refused(s: ClassState, have: u64, retry: bool, message: String) {
    // A refusal of more events than this show has sent is about
    // an earlier show's: not this one's business.
    let ours = with(|t| {
        let ours = have as usize <= t.kept.events.len();
        if ours {
            t.kept.events.truncate(have as usize);
            s.sent.set(have as usize);
            t.full |= !retry;
        }
        ours
    });
    match ours {
        Some(true) if retry => {
            // Too fast (or after a refused frame): sent again, at a
            // slower pace.
            let now = js_sys::Date::now();
            with(|t| {
                if now - t.halved_at > 1000.0 {
                    t.batch = (t.batch.min(BATCH) / 2).max(1);
                    t.halved_at = now;
                }
            });
            if let Some(app) = with(|t| t.app).flatten() {
                pump(app, s);
            }
        }
        Some(true) => s.notice.set(Some(message)),
        _ => {}
    }
}

/// Sends the class what changed: what is shown, new events, the step, a
/// lesson's question and its reveal. Reads (and so follows) the app's
/// signals.
fn sync(app: AppState, s: ClassState) {
    if app.class.get() != Some(ClassRole::Teacher) || s.link.get() != Link::Open {
        return;
    }
    let page = s.page.get();
    let key = shown_key(app, page);
    let changed = with(|t| t.key != key).unwrap_or(false);
    if changed {
        let shown = current(app, page);
        let value = shown.as_ref().map_or(Value::Null, Shown::to_value);
        let frame = Up::Show {
            show: value.clone(),
        };
        let size = serde_json::to_string(&frame).map_or(0, |t| t.len());
        let limit = Limits::default().teacher_frame;
        if size > limit {
            s.notice.set(Some(format!(
                "This is too large to show live ({:.1} MB; the relay takes {} MB at once). Show a shorter run or lesson.",
                size as f64 / 1e6,
                limit >> 20
            )));
            return;
        }
        if !send(&frame) {
            return;
        }
        with(|t| {
            t.key = key;
            t.kept = Snapshot {
                show: value,
                ..Snapshot::default()
            };
            t.run_question = None;
            t.revealed_ids.clear();
            t.full = false;
            // A loop still sending the last run's events stops; the next
            // one sends this run's.
            t.pump = None;
        });
        s.shown.set(shown);
        s.resumed.set(false);
        s.sent.set(0);
        s.question.set(None);
        s.tally.set(None);
        s.revealed.set(None);
    }
    let shown = s.shown.get_untracked();
    let step = current_step(app, &shown);
    if with(|t| t.kept.step != step || changed || t.step_again).unwrap_or(false)
        && send(&Up::Step { step })
    {
        with(|t| {
            t.kept.step = step;
            t.step_again = false;
        });
        s.step.set(step);
    }
    match &shown {
        Some(Shown::Run(_)) => {
            // Follow the run's events (tracked, so new ones come here).
            app.events.with(Vec::len);
            pump(app, s);
        }
        Some(Shown::Lesson(b)) => {
            super::teacher_questions::lesson_question(app, s, b, step as usize)
        }
        _ => {}
    }
}

/// Keeps the class in step with the tab (made once, with the class state).
pub fn install(s: ClassState) {
    let Some(app) = use_context::<AppState>() else {
        return;
    };
    Effect::new(move |_| sync(app, s));
}

/// The join link of the class with `code`.
pub fn join_link(code: &str) -> String {
    crate::platform::location::url_with_fragment(&format!("join/{code}"))
}
