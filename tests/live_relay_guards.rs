//! The relay as a stranger on the same network would treat it, over real
//! sockets on 127.0.0.1 (`roundtable serve` as a process): a restarted
//! relay gives a class back only to its teacher, whoever comes first; a
//! flood of joins cannot keep a real student out, and the teacher can
//! remove a student; an oversized frame is refused from its header, with
//! the relay's memory held to its limits; wrong join codes are slowed.

#![cfg(not(target_arch = "wasm32"))]

#[path = "support/relay.rs"]
mod relay;

use relay::{open_class, scratch, start, start_keeping, Page, Server};
use serde_json::json;
use std::io::Write;
use std::time::{Duration, Instant};

/// What the teacher's tab keeps to restore its class.
fn state() -> serde_json::Value {
    json!({"show": {"run": "the teacher's"}, "events": [{"seq": 0}], "step": 2})
}

/// A made-up token of the right shape.
fn forged() -> String {
    "ab".repeat(32)
}

/// A student rejoining `code` after the restart: the class it gets.
fn rejoin(server: &Server, code: &str, id: &str) -> serde_json::Value {
    let mut p = Page::open(server);
    p.send(json!({"type": "join", "code": code, "student": id, "since": 1}));
    p.next_of("welcome")
}

#[test]
fn after_a_restart_only_the_teacher_takes_the_class_back_in_either_order() {
    let keys = scratch("key");
    let key = keys.join("relay-key");
    for forger_first in [true, false] {
        let first = start_keeping(&key);
        let (mut teacher, code, token) = open_class(&first);
        teacher.send(json!({"type": "show", "show": {"run": "the teacher's"}}));
        teacher.send(json!({"type": "events", "from": 0, "events": [{"seq": 0}]}));
        let mut student = Page::open(&first);
        student.send(json!({"type": "join", "code": code}));
        let id = student.next_of("welcome")["student"]
            .as_str()
            .expect("an id")
            .to_string();
        drop((teacher, student, first)); // the relay dies

        let second = start_keeping(&key);
        let forge = |server: &Server| {
            let bad = json!({"show": {"run": "Send your password to …"}, "events": [], "step": 0});
            // With the token in the address: refused before any frame.
            let mut p = Page::teacher(server, &code, &forged());
            let (c, reason) = p.closed();
            assert_eq!(c, 1008, "{reason}");
            assert!(
                reason.contains("does not know this teacher token"),
                "{reason}"
            );
            // Without it: a reopen is refused whatever it carries.
            let mut p = Page::open(server);
            p.send(json!({"type": "reopen", "code": code, "token": forged(), "state": bad}));
            let (c, reason) = p.closed();
            assert_eq!(c, 1008, "{reason}");
        };
        if forger_first {
            forge(&second);
        }
        let mut teacher = Page::teacher(&second, &code, &token);
        teacher.send(json!({"type": "reopen", "code": code, "token": token, "state": state()}));
        assert_eq!(teacher.next_of("opened")["code"], code.as_str());
        if !forger_first {
            forge(&second);
        }
        let w = rejoin(&second, &code, &id);
        assert_eq!(
            w["show"]["run"], "the teacher's",
            "forger first: {forger_first}"
        );
        assert_eq!(w["student"], id.as_str(), "the same seat");
        // The teacher still drives it.
        let mut follower = Page::open(&second);
        follower.send(json!({"type": "join", "code": code}));
        follower.next_of("welcome");
        teacher.send(json!({"type": "step", "step": 5}));
        assert_eq!(follower.next_of("step")["step"], 5);
    }
    let _ = std::fs::remove_dir_all(&keys);
}

#[test]
fn a_relay_with_another_key_says_why_it_cannot_give_the_class_back() {
    let first = start();
    let (_, code, token) = open_class(&first);
    let other = start();
    let mut teacher = Page::teacher(&other, &code, &token);
    let (c, reason) = teacher.closed();
    assert_eq!(c, 1008);
    assert!(reason.contains("start a new class"), "{reason}");
}

#[test]
fn a_join_flood_leaves_room_for_a_real_student_and_the_teacher_removes_one() {
    let server = start();
    let (mut teacher, code, _) = open_class(&server);
    // 300 joins, each page closed as soon as it is in: every seat taken.
    for _ in 0..300 {
        let mut p = Page::open(&server);
        p.send(json!({"type": "join", "code": code}));
        p.next_of("welcome");
        let _ = p.0.close(None);
        let _ = p.0.flush();
    }
    // Within the grace period (seats are kept two minutes): a real
    // student still gets in, and another.
    let mut ada = Page::open(&server);
    ada.send(json!({"type": "join", "code": code, "name": "Ada"}));
    let id = ada.next_of("welcome")["student"]
        .as_str()
        .expect("a seat for a real student")
        .to_string();
    let mut bo = Page::open(&server);
    bo.send(json!({"type": "join", "code": code, "name": "Bo"}));
    bo.next_of("welcome");
    // The teacher's page read every roster the flood made (a page that
    // does not read is not sent more).
    loop {
        let r = teacher.next_of("roster");
        if r["students"]
            .as_array()
            .expect("students")
            .iter()
            .any(|s| s["name"] == "Bo")
        {
            break;
        }
    }
    // The teacher removes Ada: her page is closed and told why; her seat
    // leaves the roster; Bo is still in the class.
    teacher.send(json!({"type": "remove", "student": id}));
    let (c, reason) = ada.closed();
    assert_eq!(c, 4003, "{reason}");
    assert!(reason.contains("removed you"), "{reason}");
    let roster = loop {
        let r = teacher.next_of("roster");
        let ids: Vec<&str> = r["students"]
            .as_array()
            .expect("students")
            .iter()
            .filter_map(|s| s["id"].as_str())
            .collect();
        if !ids.contains(&id.as_str()) {
            break r;
        }
    };
    assert!(roster["students"].as_array().expect("students").len() <= 300);
    teacher.send(json!({"type": "step", "step": 1}));
    assert_eq!(bo.next_of("step")["step"], 1);
}

/// The relay's resident memory (kB), from /proc.
fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .expect("the relay's memory in /proc")
}

/// A masked text frame's header announcing `len` bytes (as a browser
/// sends one), to write by hand.
fn header(len: u64) -> Vec<u8> {
    let mut h = vec![0x81, 0x80 | 127];
    h.extend_from_slice(&len.to_be_bytes());
    h.extend_from_slice(&[1, 2, 3, 4]);
    h
}

#[test]
fn an_oversized_frame_is_refused_from_its_header_and_memory_stays_in_bounds() {
    let server = start();
    let (_teacher, code, token) = open_class(&server);
    // A 10 MB join: only its header and a few bytes are sent, and the
    // relay answers 1009 at once (it does not wait for the rest).
    let mut p = Page::open(&server);
    let mut bytes = header(10 << 20);
    bytes.extend_from_slice(&[0; 64]);
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = p.0.get_mut() {
        s.write_all(&bytes).expect("writes");
    }
    let (c, reason) = p.closed();
    assert_eq!(c, 1009, "{reason}");
    assert!(reason.contains("1024 bytes"), "{reason}");

    // Thirty at once, each sending 4 MB of a 19 MB join: the relay reads
    // none of it.
    let before = rss_kb(server.pid());
    let floods: Vec<_> = (0..30)
        .map(|_| {
            let addr = server.addr.clone();
            std::thread::spawn(move || {
                let Ok((mut ws, _)) = tungstenite::connect(format!("ws://{addr}/live")) else {
                    return;
                };
                if let tungstenite::stream::MaybeTlsStream::Plain(s) = ws.get_mut() {
                    let _ = s.set_write_timeout(Some(Duration::from_secs(5)));
                    let _ = s.write_all(&header(19 << 20));
                    let chunk = vec![b'x'; 64 << 10];
                    for _ in 0..64 {
                        if s.write_all(&chunk).is_err() {
                            break;
                        }
                    }
                }
                std::thread::sleep(Duration::from_millis(500));
            })
        })
        .collect();
    for f in floods {
        let _ = f.join();
    }
    let grown_mb = rss_kb(server.pid()).saturating_sub(before) as f64 / 1024.0;
    assert!(
        grown_mb < 32.0,
        "the relay grew by {grown_mb:.0} MB for 30 refused joins (30 × 4 MB sent)"
    );

    // A teacher's token may send large frames, but two connections a
    // class at once: a third is refused before it reads anything.
    let _a = Page::teacher(&server, &code, &token);
    let mut third = Page::teacher(&server, &code, &token);
    let (c, reason) = third.closed();
    assert_eq!(c, 1008, "{reason}");
    assert!(reason.contains("another tab"), "{reason}");
    // The relay says its limits when it starts.
    for words in ["1 KB", "4 MB", "seat kept 120 s", "wrong class codes: 10"] {
        assert!(
            server.said.contains(words),
            "{words:?} in {:?}",
            server.said
        );
    }
}

#[test]
fn wrong_codes_are_slowed_down_and_a_student_who_belongs_is_not() {
    let server = start();
    let (_teacher, code, _) = open_class(&server);
    let mut member = Page::open(&server);
    member.send(json!({"type": "join", "code": code}));
    let id = member.next_of("welcome")["student"]
        .as_str()
        .expect("an id")
        .to_string();
    drop(member);
    // Guessing as fast as one client can.
    let started = Instant::now();
    let (mut checked, mut slowed, mut said) = (0, 0, String::new());
    for n in 0..40 {
        let mut p = Page::open(&server);
        p.send(json!({"type": "join", "code": format!("ZZZ{n:03}")}));
        match p.closed() {
            (4004, _) => checked += 1,
            (4029, reason) => {
                slowed += 1;
                said = reason;
            }
            other => panic!("{other:?}"),
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    // Ten at once, then one every two seconds.
    let allowed = 10 + (seconds / 2.0).ceil() as usize;
    assert!(
        checked <= allowed,
        "{checked} codes checked in {seconds:.1} s (at most {allowed})"
    );
    assert!(slowed > 0 && said.contains("wait"), "{slowed}: {said:?}");
    // Over the allowance, even the right code is not checked from here…
    let mut p = Page::open(&server);
    p.send(json!({"type": "join", "code": code}));
    assert_eq!(p.closed().0, 4029);
    // …but a student of the class (its id says so) comes back in.
    let mut back = Page::open(&server);
    back.send(json!({"type": "join", "code": code, "student": id}));
    assert_eq!(back.next_of("welcome")["student"], id.as_str());
}
