//! `roundtable serve` as a process on 127.0.0.1, and pages as tungstenite
//! WebSocket clients: what the live-relay tests share.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

pub struct Server {
    child: Child,
    pub addr: String,
    /// Its files and its key (removed with the server).
    dist: PathBuf,
    /// Kept open: the server may print more.
    _stdout: BufReader<std::process::ChildStdout>,
    /// What it printed before serving (its limits).
    pub said: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dist);
    }
}

impl Server {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// A scratch folder of its own (removed by whoever is given it).
pub fn scratch(what: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("rt-live-{what}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// A folder of its own with an index.html, as the built app's.
fn dist() -> PathBuf {
    let dir = scratch("dist");
    std::fs::create_dir_all(dir.join("assets")).expect("a scratch dist");
    std::fs::write(
        dir.join("index.html"),
        "<!doctype html><title>Roundtable</title>",
    )
    .expect("index");
    std::fs::write(dir.join("assets/app.js"), "export {};").expect("a script");
    dir
}

/// A relay with a key of its own.
pub fn start() -> Server {
    let dist = dist();
    let key = dist.join("relay-key");
    start_with_key(dist, &key)
}

/// A relay whose key is in `key` (a restarted relay: the same file).
pub fn start_keeping(key: &Path) -> Server {
    start_with_key(dist(), key)
}

fn start_with_key(dist: PathBuf, key: &Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_roundtable"))
        .args(["serve", "--port", "0", "--dist"])
        .arg(&dist)
        .arg("--key-file")
        .arg(key)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the server starts");
    let mut line = String::new();
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    stdout
        .read_line(&mut line)
        .expect("the server says where it listens");
    let addr = line
        .trim()
        .strip_prefix("SERVING http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    let mut said = String::new();
    for _ in 0..2 {
        stdout.read_line(&mut said).expect("the server's words");
    }
    Server {
        child,
        addr,
        dist,
        _stdout: stdout,
        said,
    }
}

pub struct Page(pub WebSocket<MaybeTlsStream<TcpStream>>);

impl Page {
    pub fn open(server: &Server) -> Page {
        Page::at(server, "")
    }
    /// A page whose address carries `query` (e.g. a teacher token).
    pub fn at(server: &Server, query: &str) -> Page {
        let (ws, _) =
            tungstenite::connect(format!("ws://{}/live{query}", server.addr)).expect("connects");
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(Duration::from_secs(10)))
                .expect("timeout");
        }
        Page(ws)
    }
    /// A teacher's page: its address carries the class's token.
    pub fn teacher(server: &Server, code: &str, token: &str) -> Page {
        Page::at(server, &format!("?code={code}&token={token}"))
    }
    pub fn send(&mut self, v: Value) {
        self.0.send(Message::text(v.to_string())).expect("sends");
    }
    pub fn send_raw(&mut self, m: Message) {
        self.0.send(m).expect("sends");
    }
    /// The next frame, which must be JSON text.
    pub fn next(&mut self) -> Value {
        loop {
            match self.0.read().expect("a frame") {
                Message::Text(t) => return serde_json::from_str(t.as_str()).expect("JSON"),
                Message::Close(c) => panic!("closed: {c:?}"),
                _ => continue,
            }
        }
    }
    /// The next frame of `kind`, skipping others (rosters, tallies).
    pub fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let v = self.next();
            if v["type"] == kind {
                return v;
            }
        }
    }
    /// The close frame that must come next (text frames before it skipped).
    pub fn closed(&mut self) -> (u16, String) {
        loop {
            match self.0.read() {
                Ok(Message::Close(Some(c))) => return (u16::from(c.code), c.reason.to_string()),
                Ok(Message::Close(None)) => return (0, String::new()),
                Ok(_) => continue,
                Err(e) => panic!("no close frame: {e}"),
            }
        }
    }
}

/// Opens a class as the teacher's page does: `open` on a page without a
/// token, which the relay answers with the code and token and closes
/// (4002); then a page carrying the token takes the class. The teacher's
/// page, the code and the token.
pub fn open_class(server: &Server) -> (Page, String, String) {
    let mut first = Page::open(server);
    first.send(json!({"type": "open"}));
    let opened = first.next_of("opened");
    assert_eq!(opened["reconnect"], true, "{opened}");
    let code = opened["code"].as_str().expect("a code").to_string();
    let token = opened["token"].as_str().expect("a token").to_string();
    let (c, reason) = first.closed();
    assert_eq!(c, 4002, "{reason}");
    let mut teacher = Page::teacher(server, &code, &token);
    teacher.send(json!({"type": "reopen", "code": code, "token": token, "state": {}}));
    let back = teacher.next_of("opened");
    assert_eq!(
        (back["code"].as_str(), back["reconnect"].as_bool()),
        (Some(code.as_str()), Some(false))
    );
    (teacher, code, token)
}
