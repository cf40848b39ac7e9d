//! The relay's connections: for each class, its teacher's page and its
//! students' pages, each a queue of frames its socket task writes out.
//! `handle` applies one page's frame to the class (`engine::live`) and
//! sends the frames that follow to whom they go. The lock is never held
//! across an await.

use axum::extract::ws::Utf8Bytes;
use roundtable::engine::live::class::{Out, Relay, To};
use roundtable::engine::live::protocol::{codes, parse_up, Close, Limits, Up};
use std::collections::HashMap;
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
    limits: Limits,
    started: Instant,
}

struct Inner {
    relay: Relay,
    rooms: HashMap<String, Room>,
    next_conn: u64,
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

/// A student's id: not guessable, so no page can take another's seat.
fn new_student_id() -> String {
    let hex: String = random_bytes::<8>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("s{hex}")
}

fn new_token() -> String {
    random_bytes::<16>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Hub {
    pub fn new(limits: Limits) -> Hub {
        Hub {
            inner: Mutex::new(Inner {
                relay: Relay::new(limits.clone()),
                rooms: HashMap::new(),
                next_conn: 1,
            }),
            limits,
            started: Instant::now(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock would be a bug in the rules; the
        // state is still consistent enough to serve the other classes.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn now(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    pub fn connection(&self) -> u64 {
        let mut inner = self.lock();
        inner.next_conn += 1;
        inner.next_conn
    }

    /// The largest frame a connection in `role` may send.
    pub fn max_frame(&self, role: Option<&Role>) -> usize {
        let limits = &self.limits;
        match role {
            // The first frame may be a teacher's Reopen with the whole class.
            None => limits.log_bytes + limits.teacher_frame,
            Some(Role::Teacher(_)) => limits.teacher_frame,
            Some(Role::Student(..)) => limits.student_frame,
        }
    }

    /// One text frame from connection `conn`. Its queue `tx` moves into
    /// the hub when the frame gives the connection a role.
    pub fn handle(
        &self,
        conn: u64,
        tx: &mut Option<Tx>,
        role: &mut Option<Role>,
        text: &str,
    ) -> Result<(), Close> {
        let up = parse_up(text, self.max_frame(role.as_ref()))?;
        let now = self.now();
        let mut inner = self.lock();
        let inner = &mut *inner;
        match (role.clone(), up) {
            (None, Up::Open) => {
                let mut code = new_code();
                while inner.relay.has(&code) {
                    code = new_code();
                }
                let out = inner.relay.open(code.clone(), new_token(), now)?;
                inner.seat_teacher(&code, conn, tx.take());
                *role = Some(Role::Teacher(code.clone()));
                inner.dispatch(&code, out);
            }
            (None, Up::Reopen { code, token, state }) => {
                let out = inner.relay.reopen(&code, &token, state, now)?;
                inner.seat_teacher(&code, conn, tx.take());
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
                let Some(class) = inner.relay.class(&code) else {
                    return Err(Close::no_class(&code));
                };
                let (id, out) = class.join(
                    name.as_deref(),
                    since,
                    student.as_deref(),
                    new_student_id(),
                    limits,
                )?;
                inner.seat_student(&code, &id, conn, tx.take());
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
                let out = class.teacher(up, now, limits)?;
                inner.dispatch(&code, out);
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
    pub fn left(&self, conn: u64, role: Option<Role>) {
        let now = self.now();
        let mut inner = self.lock();
        let inner = &mut *inner;
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
                        let out = class.student_left(&id);
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
                        left.extend(class.student_left(&id));
                    }
                }
            }
        }
        if !left.is_empty() {
            self.dispatch(code, left);
        }
    }
}
