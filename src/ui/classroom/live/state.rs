//! A live class as this tab sees it: signals the panels read (made once,
//! under the app's root owner, so the class outlives the page that
//! started it), and the connection to the relay with its reconnecting.

use crate::engine::live::protocol::{codes, Question, Revealed, StudentView};
use crate::engine::live::show::Shown;
use crate::platform::socket::{relay_url, Socket, SocketEvent};
use crate::ui::part_state::part_state;
use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use std::cell::RefCell;

/// The connection, as the panels say it.
#[derive(Clone, Debug, PartialEq)]
pub enum Link {
    Connecting,
    Open,
    /// Lost; trying again (the attempt, and why it was lost).
    Retrying(u32, String),
    /// The class is over (ended, or refused: the reason).
    Over(String),
}

/// Which page the class's panel is on (the teacher's shows what it shows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    Run,
    Compare,
}

/// A question's answers so far (the teacher's panel).
#[derive(Clone, Debug, PartialEq)]
pub struct Tally {
    pub id: String,
    pub counts: Vec<u32>,
    pub answered: u32,
}

/// What the panels show.
#[derive(Clone, Copy)]
pub struct ClassState {
    pub link: RwSignal<Link>,
    pub code: RwSignal<String>,
    pub roster: RwSignal<Vec<StudentView>>,
    pub question: RwSignal<Option<Question>>,
    pub tally: RwSignal<Option<Tally>>,
    /// A student's answer to the open question, and whether the relay
    /// counted it.
    pub mine: RwSignal<Option<(usize, bool)>>,
    pub revealed: RwSignal<Option<Revealed>>,
    /// The latest thing refused or to know (a limit, a damaged frame).
    pub notice: RwSignal<Option<String>>,
    /// What the class is shown (a student's copy, or the teacher's).
    pub shown: RwSignal<Option<Shown>>,
    pub step: RwSignal<u64>,
    pub name: RwSignal<Option<String>>,
    pub page: RwSignal<Page>,
    /// The teacher's: events the class has of the shown run.
    pub sent: RwSignal<usize>,
    /// The teacher's tab took its class back after a reload (the class
    /// still sees what the tab showed before).
    pub resumed: RwSignal<bool>,
}

pub fn class_state() -> ClassState {
    part_state(|| {
        let s = ClassState {
            link: RwSignal::new(Link::Connecting),
            code: RwSignal::new(String::new()),
            roster: RwSignal::new(Vec::new()),
            question: RwSignal::new(None),
            tally: RwSignal::new(None),
            mine: RwSignal::new(None),
            revealed: RwSignal::new(None),
            notice: RwSignal::new(None),
            shown: RwSignal::new(None),
            step: RwSignal::new(0),
            name: RwSignal::new(None),
            page: RwSignal::new(Page::Run),
            sent: RwSignal::new(0),
            resumed: RwSignal::new(false),
        };
        super::teacher::install(s);
        s
    })
}

impl ClassState {
    /// Back to no class.
    pub fn clear(self) {
        self.code.set(String::new());
        self.roster.set(Vec::new());
        self.question.set(None);
        self.tally.set(None);
        self.mine.set(None);
        self.revealed.set(None);
        self.notice.set(None);
        self.shown.set(None);
        self.step.set(0);
        self.sent.set(0);
        self.resumed.set(false);
    }
}

/// How a tab handles its socket's events (the teacher's or a student's).
pub type Handler = fn(SocketEvent);

struct Conn {
    socket: Option<Socket>,
    /// Counts connections: a retry scheduled for an older one is dropped.
    serial: u64,
    handler: Handler,
    /// What the relay's address carries (a teacher's token), kept for retries.
    query: String,
}

thread_local! {
    static CONN: RefCell<Option<Conn>> = const { RefCell::new(None) };
}

/// Connects to the relay, events going to `handler` (any connection of
/// this tab is closed first).
pub fn connect(handler: Handler) {
    connect_with(handler, String::new())
}

/// The teacher's query: the class's code and token, which the relay
/// checks before it takes anything large from the connection.
pub fn token_query(code: &str, token: &str) -> String {
    let enc = |s: &str| String::from(js_sys::encode_uri_component(s));
    format!("?code={}&token={}", enc(code), enc(token))
}

/// `connect`, the relay's address carrying `query`.
pub fn connect_with(handler: Handler, query: String) {
    let url = format!("{}{query}", relay_url());
    let serial = CONN.with(|c| {
        let mut c = c.borrow_mut();
        let serial = c.as_ref().map_or(0, |c| c.serial) + 1;
        // The old socket is dropped (closed) once replaced.
        *c = Some(Conn {
            socket: None,
            serial,
            handler,
            query,
        });
        serial
    });
    let socket = Socket::connect(&url, move |ev| {
        // Events of a socket this tab has replaced are not its business.
        if CONN.with(|c| c.borrow().as_ref().map(|c| c.serial)) == Some(serial) {
            handler(ev)
        }
    });
    match socket {
        Ok(s) => CONN.with(|c| {
            if let Some(c) = c.borrow_mut().as_mut() {
                c.socket = Some(s);
            }
        }),
        Err(reason) => handler(SocketEvent::Closed {
            code: 0,
            reason,
            opened: false,
        }),
    }
}

/// Sends a frame; false when there is no open connection.
pub fn send(frame: &impl serde::Serialize) -> bool {
    let Ok(text) = serde_json::to_string(frame) else {
        return false;
    };
    CONN.with(|c| {
        c.borrow()
            .as_ref()
            .and_then(|c| c.socket.as_ref())
            .is_some_and(|s| s.send(&text))
    })
}

/// Bytes sent and still queued in the browser.
pub fn backlog() -> u32 {
    CONN.with(|c| {
        c.borrow()
            .as_ref()
            .and_then(|c| c.socket.as_ref())
            .map_or(0, Socket::buffered)
    })
}

/// Closes the connection for good (no retry).
pub fn disconnect() {
    CONN.with(|c| c.borrow_mut().take());
}

/// Connects again after a pause that grows with `attempt` (0.5 s to 5 s),
/// unless the tab has connected or left since.
pub fn retry(attempt: u32) {
    let Some((serial, handler, query)) = CONN.with(|c| {
        c.borrow()
            .as_ref()
            .map(|c| (c.serial, c.handler, c.query.clone()))
    }) else {
        return;
    };
    let wait = (500u32 << attempt.min(4)).min(5000);
    leptos::task::spawn_local(async move {
        TimeoutFuture::new(wait).await;
        let still = CONN.with(|c| c.borrow().as_ref().map(|c| c.serial)) == Some(serial);
        if still {
            connect_with(handler, query);
        }
    });
}

/// What the page says when it cannot reach the relay at all.
pub const NO_RELAY: &str = "Live classes need Roundtable's relay: serve the app with roundtable serve (as make run does), then open it from there. Everything else works without it.";

/// What a student's page says when it cannot reach the relay.
pub const NO_RELAY_STUDENT: &str = "This page cannot reach a live-class relay. Open the link or QR code your teacher shows (it points to the computer that serves the class), or ask your teacher to start Roundtable with roundtable serve.";

/// Why a connection closed, in words for the panel.
pub fn closed_why(code: u16, reason: &str) -> String {
    match (code, reason.trim()) {
        (_, r) if !r.is_empty() => r.to_string(),
        (1006, _) | (0, _) => "the connection to the relay dropped".into(),
        (c, _) => format!("the relay closed the connection (code {c})"),
    }
}

/// Whether a close means the page should connect again: not when the
/// relay ended the class (1000), refused what this page sent (1008, 1009),
/// another tab took this one's place, there is no such class (a page
/// that was in the class waits for its teacher to restore it instead),
/// the teacher removed this student, or the page tried too many codes.
pub fn should_retry(code: u16) -> bool {
    !matches!(
        code,
        1000 | 1008
            | 1009
            | codes::JOINED_ELSEWHERE
            | codes::DRIVEN_ELSEWHERE
            | codes::NO_CLASS
            | codes::REMOVED
            | codes::SLOW_DOWN
    )
}
