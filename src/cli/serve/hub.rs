//! The relay's connections: for each class, its teacher's page and its
//! students' pages, each a queue of frames its socket task writes out.
//! `handle` applies one page's frame to the class (`engine::live`) and
//! sends the frames that follow to whom they go. The lock is never held
//! across an await.
//!
//! Who may do what: a connection that carries a class's teacher token
//! (checked against the relay's key before any frame is read) takes the
//! class back; any other connection opens a class — and is then asked to
//! connect again with the token it got — or joins one, and takes small
//! frames only. Wrong join codes are slowed down (`wrong_codes`).

use super::keys::Keys;
use super::wrong_codes::WrongCodes;
use axum::extract::ws::Utf8Bytes;
use roundtable::engine::live::class::{Out, To};
use roundtable::engine::live::protocol::{codes, parse_up, Close, Down, Limits, Up};
use roundtable::engine::live::relay::Relay;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Frames a page may have waiting before it counts as gone (a page that
/// stops reading must not hold the relay's memory).
pub const QUEUE: usize = 4096;

/// What a socket task writes out.
pub enum Frame {
    Text(Utf8Bytes),
    Close(u16, String),
}

pub type Tx = mpsc::Sender<Frame>;

/// Who a connection is, once its first frame said.
#[derive(Clone, Debug)]
pub enum Role {
    Teacher(String),
    Student(String, String),
}

struct Peer {
    conn: u64,
    tx: Tx,
}

#[derive(Default)]
struct Room {
    teacher: Option<Peer>,
    students: HashMap<String, Peer>,
}

pub struct Hub {
    inner: Mutex<Inner>,
    /// The relay's limits (never change: read without the lock).
    pub limits: Limits,
    keys: Keys,
    started: Instant,
}

struct Inner {
    relay: Relay,
    rooms: HashMap<String, Room>,
    next_conn: u64,
    wrong_codes: WrongCodes,
    /// Connections open with each class's teacher token (each may send
    /// a class's whole state at once: two at a time).
    with_token: HashMap<String, usize>,
    /// The relay's clock (ms) when the lock was taken.
    now: u64,
}

/// Connections a class's teacher token may have open at once (the tab
/// driving the class, and one taking over from it).
const TOKEN_CONNECTIONS: usize = 2;

/// What a connection is, from its address and the token it came with.
#[derive(Clone, Debug)]
pub struct Conn {
    pub id: u64,
    pub ip: IpAddr,
    /// The class whose teacher token it carried (checked).
    pub teacher_of: Option<String>,
}

/// Letters and digits no one misreads (no 0/O, 1/I/L).
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    // The system's generator failing is not a state to serve classes in.
    getrandom::fill(&mut b).expect("the system's random generator");
    b
}

fn new_code() -> String {
    random_bytes::<6>()
        .iter()
        .map(|b| CODE_ALPHABET[*b as usize % CODE_ALPHABET.len()] as char)
        .collect()
}

impl Hub {
    pub fn new(limits: Limits, keys: Keys) -> Hub {
        Hub {
            inner: Mutex::new(Inner {
                relay: Relay::new(limits.clone()),
                rooms: HashMap::new(),
                next_conn: 1,
                wrong_codes: WrongCodes::new(&limits),
                with_token: HashMap::new(),
                now: 0,
            }),
            limits,
            keys,
            started: Instant::now(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock would be a bug in the rules; the
        // state is still consistent enough to serve the other classes.
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.now = self.now();
        inner
    }

    fn now(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// A new connection from `ip`, with the teacher token it carried (if
    /// any): refused when the token is not the class's, or the class's
    /// token has its connections open already. Every connection made is
    /// given back with `left`.
    pub fn connection(&self, ip: IpAddr, token: Option<(&str, &str)>) -> Result<Conn, Close> {
        let mut inner = self.lock();
        let teacher_of = match token {
            None => None,
            Some((code, token)) if self.keys.is_teacher(code, token) => {
                let open = inner.with_token.entry(code.to_string()).or_default();
                if *open >= TOKEN_CONNECTIONS {
                    return Err(Close::policy(
                        "this class is being taken back from another tab already",
                    ));
                }
                *open += 1;
                Some(code.to_string())
            }
            Some(_) => {
                return Err(Close::policy(
                    "this relay does not know this teacher token (not given here, or its key changed): start a new class",
                ))
            }
        };
        inner.next_conn += 1;
        Ok(Conn {
            id: inner.next_conn,
            ip,
            teacher_of,
        })
    }

    /// The largest frame a connection may send, before and after its role.
    pub fn max_frame(&self, conn: &Conn, role: Option<&Role>) -> usize {
        let limits = &self.limits;
        match role {
            // The first frame of a teacher's connection may take the whole
            // class back; any other first frame is small.
            None if conn.teacher_of.is_some() => limits.reopen_frame(),
            None => limits.student_frame,
            Some(Role::Teacher(_)) => limits.teacher_frame,
            Some(Role::Student(..)) => limits.student_frame,
        }
    }

    /// One text frame from connection `conn`. Its queue `tx` moves into
    /// the hub when the frame gives the connection a role.
    pub fn handle(
        &self,
        conn: &Conn,
        tx: &mut Option<Tx>,
        role: &mut Option<Role>,
        text: &str,
    ) -> Result<(), Close> {
        let up = parse_up(text, self.max_frame(conn, role.as_ref()))?;
        let now = self.now();
        let mut inner = self.lock();
        let inner = &mut *inner;
        match (role.clone(), up) {
            (None, Up::Open) => {
                let mut code = new_code();
                while inner.relay.has(&code) {
                    code = new_code();
                }
                let token = self.keys.teacher_token(&code);
                let out = inner.relay.open(code.clone(), token, now)?;
                // Away until it connects again with the token (a class
                // whose teacher never does ends as any other).
                if let Some(class) = inner.relay.class(&code) {
                    class.teacher_left(now);
                }
                let tx = tx.as_ref().ok_or_else(|| Close::policy("no queue"))?;
                for (_, mut down) in out.into_iter().filter(|(to, _)| *to == To::Teacher) {
                    if let Down::Opened { reconnect, .. } = &mut down {
                        *reconnect = true;
                    }
                    if let Ok(text) = serde_json::to_string(&down) {
                        let _ = tx.try_send(Frame::Text(Utf8Bytes::from(text)));
                    }
                }
                let _ = tx.try_send(Frame::Close(
                    codes::RECONNECT,
                    "the class is open: connect again with its teacher token".into(),
                ));
            }
            (None, Up::Reopen { code, token, state }) => {
                if conn.teacher_of.as_deref() != Some(code.as_str())
                    || !self.keys.is_teacher(&code, &token)
                {
                    return Err(Close::policy(
                        "a class is taken back over a connection that carries its teacher token",
                    ));
                }
                let out = inner.relay.reopen(&code, &token, state, now)?;
                inner.seat_teacher(&code, conn.id, tx.take());
                *role = Some(Role::Teacher(code.clone()));
                inner.dispatch(&code, out);
            }
            (
                None,
                Up::Join {
                    code,
                    name,
                    since,
                    student,
                },
            ) => {
                let limits = &self.limits;
                // An id this relay gave in this class: the page knows the
                // code (and may wait for its teacher to bring it back).
                let student = student.filter(|id| self.keys.is_student(&code, id));
                if student.is_none() {
                    inner
                        .wrong_codes
                        .may_try(conn.ip, now)
                        .map_err(|wait| Close {
                            code: codes::SLOW_DOWN,
                            reason: format!(
                                "too many wrong class codes from this device: wait {wait} s, then check the code with your teacher"
                            ),
                        })?;
                }
                let Some(class) = inner.relay.class(&code) else {
                    if student.is_none() {
                        inner.wrong_codes.wrong(conn.ip, now);
                    }
                    return Err(Close::no_class(&code));
                };
                let fresh = self.keys.student_id(&code).map_err(Close::policy)?;
                let (id, out) =
                    class.join(name.as_deref(), since, student.as_deref(), fresh, limits)?;
                inner.seat_student(&code, &id, conn.id, tx.take());
                *role = Some(Role::Student(code.clone(), id));
                inner.dispatch(&code, out);
            }
            (None, _) => {
                return Err(Close::policy(
                    "a page first opens a class (open, reopen) or joins one (join)",
                ))
            }
            (Some(Role::Teacher(code)), Up::End) => {
                let out = inner.relay.end(&code, "the teacher ended the class");
                inner.dispatch(&code, out);
                inner.close_room(&code, "the class is over");
                return Err(Close {
                    code: 1000,
                    reason: "the class is over".into(),
                });
            }
            (Some(Role::Teacher(code)), up) => {
                let limits = &self.limits;
                let Some(class) = inner.relay.class(&code) else {
                    return Err(Close::policy("the class has ended"));
                };
                let removed = match &up {
                    Up::Remove { student } => Some(student.clone()),
                    _ => None,
                };
                let out = class.teacher(up, now, limits)?;
                inner.dispatch(&code, out);
                if let Some(student) = removed {
                    inner.close_student(
                        &code,
                        &student,
                        codes::REMOVED,
                        "the teacher removed you from the class",
                    );
                }
            }
            (Some(Role::Student(code, id)), Up::Answer { id: q, choice }) => {
                let Some(class) = inner.relay.class(&code) else {
                    return Err(Close::policy("the class has ended"));
                };
                let out = class.answer(&id, &q, choice)?;
                inner.dispatch(&code, out);
            }
            (Some(Role::Student(..)), _) => {
                return Err(Close::policy(
                    "a student's page sends answers only: the teacher drives the class",
                ))
            }
        }
        Ok(())
    }

    /// A connection ended (closed, broken, or dropped for falling behind).
    pub fn left(&self, conn: &Conn, role: Option<Role>) {
        let now = self.now();
        let mut inner = self.lock();
        let inner = &mut *inner;
        if let Some(code) = &conn.teacher_of {
            if let Some(open) = inner.with_token.get_mut(code) {
                *open = open.saturating_sub(1);
                if *open == 0 {
                    inner.with_token.remove(code);
                }
            }
        }
        let conn = conn.id;
        match role {
            Some(Role::Teacher(code)) => {
                let Some(room) = inner.rooms.get_mut(&code) else {
                    return;
                };
                // Gone from the room already if it fell behind.
                if room.teacher.as_ref().is_none_or(|p| p.conn == conn) {
                    room.teacher = None;
                    if let Some(class) = inner.relay.class(&code) {
                        class.teacher_left(now);
                    }
                }
            }
            Some(Role::Student(code, id)) => {
                let Some(room) = inner.rooms.get_mut(&code) else {
                    return;
                };
                if room.students.get(&id).is_some_and(|p| p.conn == conn) {
                    room.students.remove(&id);
                    if let Some(class) = inner.relay.class(&code) {
                        let out = class.student_left(&id, now);
                        inner.dispatch(&code, out);
                    }
                }
            }
            None => {}
        }
    }

    fn sweep(&self) {
        let now = self.now();
        let mut inner = self.lock();
        let inner = &mut *inner;
        for (code, out) in inner.relay.sweep(now) {
            inner.dispatch(&code, out);
            inner.close_room(&code, "the class is over");
        }
        for (code, out) in inner.relay.free_seats(now) {
            inner.dispatch(&code, out);
        }
        inner.wrong_codes.forget_idle(now);
    }
}

/// Ends the classes whose teacher has been away too long, every `period`.
pub async fn sweep_every(hub: Arc<Hub>, period: Duration) {
    let mut tick = tokio::time::interval(period);
    loop {
        tick.tick().await;
        hub.sweep();
    }
}

impl Inner {
    fn seat_teacher(&mut self, code: &str, conn: u64, tx: Option<Tx>) {
        let Some(tx) = tx else { return };
        let room = self.rooms.entry(code.to_string()).or_default();
        if let Some(old) = room.teacher.replace(Peer { conn, tx }) {
            let _ = old.tx.try_send(Frame::Close(
                codes::DRIVEN_ELSEWHERE,
                "the class is driven from another tab now".into(),
            ));
        }
    }

    fn seat_student(&mut self, code: &str, id: &str, conn: u64, tx: Option<Tx>) {
        let Some(tx) = tx else { return };
        let room = self.rooms.entry(code.to_string()).or_default();
        if let Some(old) = room.students.insert(id.to_string(), Peer { conn, tx }) {
            let _ = old.tx.try_send(Frame::Close(
                codes::JOINED_ELSEWHERE,
                "you joined again in another tab".into(),
            ));
        }
    }

    /// A student's page is closed with `reason` (it does not come back).
    fn close_student(&mut self, code: &str, id: &str, close: u16, reason: &str) {
        if let Some(peer) = self
            .rooms
            .get_mut(code)
            .and_then(|room| room.students.remove(id))
        {
            let _ = peer.tx.try_send(Frame::Close(close, reason.to_string()));
        }
    }

    /// Every page of the class is closed with `reason`; the room goes.
    fn close_room(&mut self, code: &str, reason: &str) {
        if let Some(room) = self.rooms.remove(code) {
            for peer in room.students.into_values().chain(room.teacher) {
                let _ = peer.tx.try_send(Frame::Close(1000, reason.to_string()));
            }
        }
    }

    /// Sends each frame to whom it goes. A page whose queue is full is
    /// dropped (its task closes it: it reloads and resumes), and the
    /// class counts it gone.
    fn dispatch(&mut self, code: &str, out: Out) {
        let mut fallen = Vec::new();
        let Some(room) = self.rooms.get_mut(code) else {
            return;
        };
        for (to, down) in out {
            let text = match serde_json::to_string(&down) {
                Ok(t) => Utf8Bytes::from(t),
                Err(_) => continue,
            };
            let mut send = |id: Option<&str>, peer: &Peer| {
                if peer.tx.try_send(Frame::Text(text.clone())).is_err() {
                    fallen.push(id.map(str::to_string));
                }
            };
            match to {
                To::Teacher => {
                    if let Some(p) = &room.teacher {
                        send(None, p);
                    }
                }
                To::Student(id) => {
                    if let Some(p) = room.students.get(&id) {
                        send(Some(&id), p);
                    }
                }
                To::Students => {
                    for (id, p) in &room.students {
                        send(Some(id), p);
                    }
                }
            }
        }
        // The class counts the fallen gone; the teacher hears it as any
        // roster change (a teacher that fell behind too is only dropped).
        let mut left = Out::new();
        for who in fallen {
            match who {
                None => {
                    room.teacher = None;
                }
                Some(id) => {
                    room.students.remove(&id);
                    if let Some(class) = self.relay.class(code) {
                        left.extend(class.student_left(&id, self.now));
                    }
                }
            }
        }
        if !left.is_empty() {
            self.dispatch(code, left);
        }
    }
}
