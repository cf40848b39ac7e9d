//! `roundtable serve` as a process, over real sockets on 127.0.0.1: the
//! app's files (isolated, nothing outside the folder) and live classes
//! over WebSockets (tungstenite clients): a teacher and three students,
//! events each once and in order across a student's reconnect, answers
//! and tallies, the teacher-only rules and malformed frames closing only
//! their own connection with a reason, and a class taken back by a
//! restarted relay from the teacher's saved state — only by its teacher
//! (`live_relay_guards.rs`: forged tokens, join floods, oversized frames,
//! guessed codes). The rules in detail are `src/engine/live/tests.rs`.

#![cfg(not(target_arch = "wasm32"))]

#[path = "support/relay.rs"]
mod relay;

use relay::{open_class, scratch, start, start_keeping, Page, Server};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use tungstenite::Message;

fn events(range: std::ops::Range<u64>) -> Vec<Value> {
    range
        .map(|i| json!({"seq": i, "kind": "message", "text": format!("event {i}")}))
        .collect()
}

fn get(server: &Server, path: &str) -> String {
    let mut s = TcpStream::connect(&server.addr).expect("connects");
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .expect("asks");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("an answer");
    out.to_lowercase()
}

#[test]
fn serves_the_app_isolated_and_nothing_outside_it() {
    let server = start();
    let index = get(&server, "/");
    assert!(index.starts_with("http/1.1 200"), "{index}");
    assert!(index.contains("cross-origin-opener-policy: same-origin"));
    assert!(index.contains("cross-origin-embedder-policy: require-corp"));
    assert!(index.contains("content-type: text/html"));
    let js = get(&server, "/assets/app.js");
    assert!(js.contains("content-type: text/javascript") && js.ends_with("export {};"));
    // The app's own routes, and every way out of the folder: index.html.
    for path in [
        "/compare/x",
        "/../Cargo.toml",
        "/%2e%2e/Cargo.toml",
        "/assets/../../Cargo.toml",
    ] {
        let r = get(&server, path);
        assert!(
            r.ends_with("<!doctype html><title>roundtable</title>"),
            "{path}: {r}"
        );
    }
}

#[test]
fn a_class_followed_by_three_students_each_event_once() {
    let server = start();
    let (mut teacher, code, token) = open_class(&server);
    assert_eq!(code.len(), 6);
    assert_eq!(token.len(), 64);
    teacher.send(json!({"type": "show", "show": {"lesson": "built-in: the travel planner"}}));
    teacher.send(json!({"type": "events", "from": 0, "events": events(0..5)}));

    let mut students: Vec<(Page, String, Vec<Value>)> = ["Ada", "Bo", "<i>Cy</i>"]
        .iter()
        .map(|name| {
            let mut p = Page::open(&server);
            p.send(json!({"type": "join", "code": code, "name": name}));
            let w = p.next_of("welcome");
            assert_eq!(w["name"], *name, "names are text as given");
            // A welcome may have come before the relay had the teacher's
            // show (the teacher's connection is not ordered with the
            // students'): the show then follows it, before any event.
            let show = match &w["show"] {
                Value::Null => p.next_of("show")["show"].clone(),
                shown => shown.clone(),
            };
            assert_eq!(show["lesson"], "built-in: the travel planner");
            let id = w["student"].as_str().expect("an id").to_string();
            let log = w["events"].as_array().expect("events").clone();
            assert_eq!(w["from"], 0);
            (p, id, log)
        })
        .collect();
    let roster = loop {
        let r = teacher.next_of("roster");
        if r["students"].as_array().map_or(0, Vec::len) == 3 {
            break r;
        }
    };
    assert!(roster["students"]
        .as_array()
        .expect("list")
        .iter()
        .all(|s| s["connected"] == true));

    // Events in batches; one student leaves mid-run and comes back.
    teacher.send(json!({"type": "events", "from": 5, "events": events(5..12)}));
    teacher.send(json!({"type": "step", "step": 7}));
    for (p, _, log) in students.iter_mut() {
        // A welcome may have come before the relay had the first five
        // (the teacher's connection is not ordered with the students').
        while log.len() < 12 {
            let e = p.next_of("events");
            assert_eq!(e["from"], log.len());
            log.extend(e["events"].as_array().expect("events").iter().cloned());
        }
        assert_eq!(p.next_of("step")["step"], 7);
    }
    let (gone, id, mut log) = students.remove(1);
    drop(gone);
    teacher.send(json!({"type": "events", "from": 12, "events": events(12..20)}));
    // A resend of what the relay has already goes to no one twice.
    teacher.send(json!({"type": "events", "from": 10, "events": events(10..21)}));
    let mut back = Page::open(&server);
    back.send(json!({"type": "join", "code": code, "since": log.len(), "student": id}));
    let w = back.next_of("welcome");
    assert_eq!(w["student"], id.as_str(), "the same student");
    assert_eq!(w["from"], log.len());
    assert_eq!(w["step"], 7);
    log.extend(w["events"].as_array().expect("events").iter().cloned());
    students.insert(1, (back, id, log));
    let want = events(0..21);
    for (p, id, log) in students.iter_mut() {
        while log.len() < want.len() {
            let e = p.next_of("events");
            assert_eq!(e["from"], log.len(), "{id}: no gap, no repeat");
            log.extend(e["events"].as_array().expect("events").iter().cloned());
        }
        assert_eq!(log, &want, "{id}: the teacher's log, event by event");
    }

    // A question: answers arrive as tallies; the reveal has the counts.
    let q = json!({"id": "q1", "prompt": "Who acts next?", "choices": ["Planner", "Critic"]});
    teacher.send(json!({"type": "ask", "question": q}));
    for (i, (p, _, _)) in students.iter_mut().enumerate() {
        assert_eq!(p.next_of("ask")["question"], q);
        p.send(json!({"type": "answer", "id": "q1", "choice": usize::from(i > 0)}));
        assert_eq!(p.next_of("answered")["id"], "q1");
    }
    let tally = loop {
        let t = teacher.next_of("tally");
        if t["answered"] == 3 {
            break t;
        }
    };
    assert_eq!(tally["counts"], json!([1, 2]));
    students[0]
        .0
        .send(json!({"type": "answer", "id": "q1", "choice": 1}));
    assert!(students[0].0.next_of("notice")["message"]
        .as_str()
        .expect("text")
        .contains("already"));
    teacher.send(json!({"type": "reveal", "id": "q1", "answer": 1}));
    for (p, _, _) in students.iter_mut() {
        let r = p.next_of("reveal");
        assert_eq!(
            r["revealed"],
            json!({"id": "q1", "answer": 1, "counts": [1, 2]})
        );
    }

    teacher.send(json!({"type": "end"}));
    for (p, _, _) in students.iter_mut() {
        assert!(p.next_of("ended")["reason"]
            .as_str()
            .expect("why")
            .contains("ended"));
        assert_eq!(p.closed().0, 1000);
    }
    assert_eq!(teacher.closed().0, 1000);
    let mut late = Page::open(&server);
    late.send(json!({"type": "join", "code": code}));
    let (c, reason) = late.closed();
    assert_eq!(
        c, 4004,
        "its own code: a page rejoining after a restart waits for it"
    );
    assert!(reason.contains("no class"), "{reason}");
}

#[test]
fn only_the_teacher_drives_and_a_bad_frame_closes_only_its_own_connection() {
    let server = start();
    let (mut teacher, code, _) = open_class(&server);
    let join = |server: &Server| {
        let mut p = Page::open(server);
        p.send(json!({"type": "join", "code": code}));
        p.next_of("welcome");
        p
    };
    let mut good = join(&server);
    let cases: Vec<(Message, u16, &str)> = vec![
        (
            Message::text(json!({"type": "show", "show": {}}).to_string()),
            1008,
            "answers only",
        ),
        (
            Message::text(json!({"type": "events", "from": 0, "events": []}).to_string()),
            1008,
            "answers only",
        ),
        (Message::text("{not json"), 1008, "not a frame"),
        (
            Message::text(json!({"type": "answer", "id": "q1", "choice": -1}).to_string()),
            1008,
            "not a frame",
        ),
        (
            Message::text(
                json!({"type": "answer", "id": "x".repeat(2000), "choice": 0}).to_string(),
            ),
            1009,
            "over 1024 bytes",
        ),
        (Message::binary(vec![1u8, 2, 3]), 1003, "JSON text"),
    ];
    for (frame, code_want, words) in cases {
        let mut bad = join(&server);
        bad.send_raw(frame);
        let (c, reason) = bad.closed();
        assert_eq!(c, code_want, "{reason}");
        assert!(reason.contains(words), "{reason:?} should say {words:?}");
    }
    // Nobody else noticed: the class goes on for the others.
    teacher.send(json!({"type": "events", "from": 0, "events": events(0..2)}));
    assert_eq!(good.next_of("events")["events"], json!(events(0..2)));
    // A page that is no teacher cannot take the class: not without the
    // token in its address, nor with a made-up one there.
    let mut thief = Page::open(&server);
    thief.send(json!({"type": "reopen", "code": code, "token": "0".repeat(64), "state": {}}));
    let (c, reason) = thief.closed();
    assert_eq!(
        (c, reason.contains("carries its teacher token")),
        (1008, true),
        "{reason}"
    );
    let mut thief = Page::teacher(&server, &code, &"0".repeat(64));
    let (c, reason) = thief.closed();
    assert_eq!(
        (c, reason.contains("does not know this teacher token")),
        (1008, true),
        "{reason}"
    );
    // A first frame that is neither opening nor joining.
    let mut lost = Page::open(&server);
    lost.send(json!({"type": "answer", "id": "q1", "choice": 0}));
    assert_eq!(lost.closed().0, 1008);
    teacher.send(json!({"type": "step", "step": 3}));
    assert_eq!(good.next_of("step")["step"], 3);
}

#[test]
fn a_restarted_relay_takes_the_class_back_from_the_teachers_state() {
    let keys = scratch("key");
    let key = keys.join("relay-key");
    let first = start_keeping(&key);
    let (mut teacher, code, token) = open_class(&first);
    let q = json!({"id": "q1", "prompt": "Who acts next?", "choices": ["Planner", "Critic", "Critic's critic"]});
    teacher.send(json!({"type": "show", "show": {"run": "demo"}}));
    teacher.send(json!({"type": "events", "from": 0, "events": events(0..6)}));
    teacher.send(json!({"type": "ask", "question": q}));
    let mut student = Page::open(&first);
    student.send(json!({"type": "join", "code": code, "name": "Ada"}));
    let w = student.next_of("welcome");
    let id = w["student"].as_str().expect("id").to_string();
    let mut log = w["events"].as_array().expect("events").clone();
    while log.len() < 6 {
        log.extend(
            student.next_of("events")["events"]
                .as_array()
                .expect("events")
                .iter()
                .cloned(),
        );
    }
    student.send(json!({"type": "answer", "id": "q1", "choice": 2}));
    student.next_of("answered");
    drop(first); // the relay dies

    // What the teacher's tab kept: what it showed, sent, asked, and the answers it saw.
    let second = start_keeping(&key);
    let mut teacher = Page::teacher(&second, &code, &token);
    let state = json!({"show": {"run": "demo"}, "events": events(0..6), "step": 0, "question": q, "answers": {id.clone(): 2}});
    teacher.send(json!({"type": "reopen", "code": code, "token": token, "state": state}));
    assert_eq!(teacher.next_of("opened")["code"], code);
    assert_eq!(teacher.next_of("tally")["counts"], json!([0, 0, 1]));
    teacher.send(json!({"type": "events", "from": 6, "events": events(6..9)}));
    let mut back = Page::open(&second);
    back.send(json!({"type": "join", "code": code, "since": log.len(), "student": id}));
    let w = back.next_of("welcome");
    assert_eq!(
        (w["student"].as_str(), w["answered"].as_u64()),
        (Some(id.as_str()), Some(2))
    );
    log.extend(w["events"].as_array().expect("events").iter().cloned());
    // The teacher's and the student's connections are not ordered with
    // each other: events 6..9 come in the welcome or in a frame after it.
    while log.len() < 9 {
        log.extend(
            back.next_of("events")["events"]
                .as_array()
                .expect("events")
                .iter()
                .cloned(),
        );
    }
    assert_eq!(
        log,
        events(0..9),
        "no event lost or doubled across the restart"
    );
    drop(second);
    let _ = std::fs::remove_dir_all(&keys);
}

/// The body of a GET (after the headers).
fn body(response: &str) -> &str {
    response.split_once("\r\n\r\n").map_or("", |(_, b)| b)
}

#[test]
fn the_join_links_qr_code_reads_back_as_the_link() {
    let server = start();
    let link = "http://192.168.1.20:8080/?live=K7Q2PX";
    let escaped: String = link
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    let mut s = TcpStream::connect(&server.addr).expect("connects");
    write!(
        s,
        "GET /live/qr.svg?text={escaped} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .expect("asks");
    let mut response = String::new();
    s.read_to_string(&mut response).expect("an answer");
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response
        .to_lowercase()
        .contains("content-type: image/svg+xml"));
    let svg = body(&response);
    // The modules from the path (`Mx yh1v1h-1z` each), drawn 4 pixels a
    // module, then read by another crate's decoder.
    let size: usize = svg
        .split("viewBox=\"0 0 ")
        .nth(1)
        .and_then(|v| v.split(' ').next())
        .and_then(|v| v.parse().ok())
        .expect("a viewBox");
    let path = svg.split(" d=\"").nth(1).expect("a path");
    let mut dark = vec![false; size * size];
    for m in path.split('M').skip(1) {
        let xy: Vec<usize> = m
            .trim_end_matches(|c: char| !c.is_ascii_digit())
            .split(['h', ' '])
            .take(2)
            .map(|v| v.parse().expect("a coordinate"))
            .collect();
        dark[xy[1] * size + xy[0]] = true;
    }
    const PX: usize = 4;
    let mut image = rqrr::PreparedImage::prepare_from_greyscale(size * PX, size * PX, |x, y| {
        if dark[(y / PX) * size + x / PX] {
            0
        } else {
            255
        }
    });
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "one code in the picture");
    let (_, text) = grids[0].decode().expect("the code decodes");
    assert_eq!(text, link);
    // Too long for a join link: a clear refusal.
    let long = get(&server, &format!("/live/qr.svg?text={}", "a".repeat(600)));
    assert!(
        long.starts_with("http/1.1 400") && long.contains("512 bytes"),
        "{long}"
    );
}
