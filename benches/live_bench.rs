//! The live-class relay under a full class, on 127.0.0.1 (release build of
//! `roundtable serve`): 300 students (one WebSocket client thread each)
//! follow a 500-event run the teacher sends at full speed, one event a
//! frame. Prints the 50th and 99th percentile delay from the teacher's
//! send of an event to the last student's receipt of it, the relay's
//! memory and CPU, and whether every client got every event exactly once
//! and in order; then the same at 100 events a second (the delay a class
//! sees at a run's own pace). Bounded: 300 clients, 2 × 500 events,
//! 120 s. Run with `make bench`.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::run();
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use serde_json::{json, Value};
    use std::io::{BufRead, BufReader};
    use std::net::TcpStream;
    use std::process::{Command, Stdio};
    use std::sync::{Arc, Barrier};
    use std::time::{Duration, Instant};
    use tungstenite::stream::MaybeTlsStream;
    use tungstenite::{Message, WebSocket};

    const STUDENTS: usize = 300;
    const EVENTS: usize = 500;
    const TIMEOUT: Duration = Duration::from_secs(120);
    /// The run sent at full speed (the goal's case: every frame queued
    /// at once), then at 100 events a second (a demo run's pace is below).
    const PHASES: [(&str, Duration); 2] = [
        ("at full speed", Duration::ZERO),
        ("at 100 events a second", Duration::from_millis(10)),
    ];

    type Ws = WebSocket<MaybeTlsStream<TcpStream>>;

    /// A page on `at`: the relay's address, or with a path and query.
    fn connect(at: &str, timeout: Duration) -> Ws {
        let url = if at.contains('/') {
            format!("ws://{at}")
        } else {
            format!("ws://{at}/live")
        };
        let (ws, _) = tungstenite::connect(url).expect("connects");
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(timeout)).expect("timeout");
            s.set_nodelay(true).expect("nodelay");
        }
        ws
    }

    fn next(ws: &mut Ws) -> Value {
        loop {
            match ws.read().expect("a frame") {
                Message::Text(t) => return serde_json::from_str(t.as_str()).expect("JSON"),
                Message::Close(c) => panic!("closed: {c:?}"),
                _ => continue,
            }
        }
    }

    /// The relay's resident memory now and at its peak (MB), and CPU
    /// seconds so far, from /proc.
    fn usage(pid: u32) -> (f64, f64, f64) {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let kb = |key: &str| {
            status
                .lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(f64::NAN)
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Fields after the command's closing parenthesis: utime is the
        // 12th, stime the 13th (clock ticks, 100 a second here).
        let after = stat.rsplit(')').next().unwrap_or("");
        let f: Vec<f64> = after
            .split_whitespace()
            .map(|v| v.parse().unwrap_or(0.0))
            .collect();
        let cpu = (f.get(11).unwrap_or(&0.0) + f.get(12).unwrap_or(&0.0)) / 100.0;
        (kb("VmRSS:") / 1024.0, kb("VmHWM:") / 1024.0, cpu)
    }

    /// One run's events on a student's socket: when each arrived (ms since
    /// `start`), and whether they came once each and in order.
    fn receive(ws: &mut Ws, start: Instant) -> (Vec<f64>, bool) {
        let mut got = vec![f64::NAN; EVENTS];
        let mut count = 0usize;
        let mut in_order = true;
        while count < EVENTS {
            let v = next(ws);
            if v["type"] != "events" {
                continue;
            }
            let at = start.elapsed().as_secs_f64() * 1e3;
            in_order &= v["from"].as_u64() == Some(count as u64);
            for e in v["events"].as_array().expect("events") {
                let k = e["k"].as_u64().unwrap_or(u64::MAX) as usize;
                if k < EVENTS && got[k].is_nan() {
                    got[k] = at;
                } else {
                    in_order = false;
                }
                count += 1;
            }
        }
        (got, in_order && count == EVENTS)
    }

    fn percentile(sorted: &[f64], p: f64) -> f64 {
        sorted[((sorted.len() - 1) as f64 * p).round() as usize]
    }

    pub fn run() {
        let dist = std::env::temp_dir().join(format!("rt-live-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dist).expect("a scratch dist");
        std::fs::write(dist.join("index.html"), "<!doctype html>").expect("index");
        let mut child = Command::new(env!("CARGO_BIN_EXE_roundtable"))
            .args(["serve", "--port", "0", "--dist"])
            .arg(&dist)
            .arg("--key-file")
            .arg(dist.join("relay-key"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("the relay starts");
        let pid = child.id();
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("where it listens");
        let addr = line
            .trim()
            .trim_start_matches("SERVING http://")
            .to_string();
        let (_, _, cpu0) = usage(pid);
        let (rss0, _, _) = usage(pid);

        let start = Instant::now();
        // Opened on a page without a token, then driven from a page
        // whose address carries it (as the teacher's page does).
        let mut opener = connect(&addr, Duration::from_secs(10));
        opener
            .send(Message::text(json!({"type": "open"}).to_string()))
            .expect("opens");
        let (code, token) = loop {
            let v = next(&mut opener);
            if v["type"] == "opened" {
                let text = |k: &str| v[k].as_str().expect(k).to_string();
                break (text("code"), text("token"));
            }
        };
        let mut teacher = connect(
            &format!("{addr}/live?code={code}&token={token}"),
            Duration::from_secs(10),
        );
        teacher
            .send(Message::text(
                json!({"type": "reopen", "code": code, "token": token, "state": {}}).to_string(),
            ))
            .expect("takes the class");
        loop {
            if next(&mut teacher)["type"] == "opened" {
                break;
            }
        }
        teacher
            .send(Message::text(
                json!({"type": "show", "show": {"run": "bench"}}).to_string(),
            ))
            .expect("shows");

        // Every student joined before the first event; each records when
        // it received each event (ms since `start`) and checks the order.
        let joined = Arc::new(Barrier::new(STUDENTS + 1));
        let between = Arc::new(Barrier::new(STUDENTS + 1));
        let students: Vec<_> = (0..STUDENTS)
            .map(|i| {
                let (addr, code) = (addr.clone(), code.clone());
                let (joined, between) = (joined.clone(), between.clone());
                std::thread::Builder::new()
                    .stack_size(256 << 10)
                    .spawn(move || {
                        let mut ws = connect(&addr, TIMEOUT);
                        let join =
                            json!({"type": "join", "code": code, "name": format!("student {i}")});
                        ws.send(Message::text(join.to_string())).expect("joins");
                        loop {
                            if next(&mut ws)["type"] == "welcome" {
                                break;
                            }
                        }
                        joined.wait();
                        // Each phase: a new show, then its events from 0.
                        let phases: Vec<(Vec<f64>, bool)> = (0..PHASES.len())
                            .map(|phase| {
                                if phase > 0 {
                                    between.wait();
                                    while next(&mut ws)["type"] != "show" {}
                                }
                                receive(&mut ws, start)
                            })
                            .collect();
                        phases
                    })
                    .expect("a client thread")
            })
            .collect();
        joined.wait();
        let (joined_rss, _, _) = usage(pid);
        // The teacher's own frames (rosters) are read off before it sends.
        if let MaybeTlsStream::Plain(s) = teacher.get_ref() {
            s.set_read_timeout(Some(Duration::from_millis(200)))
                .expect("timeout");
        }
        while teacher.read().is_ok() {}
        let mut sent = Vec::new();
        for (phase, (_, pace)) in PHASES.iter().enumerate() {
            if phase > 0 {
                between.wait();
                let show = json!({"type": "show", "show": {"run": format!("bench {phase}")}});
                teacher
                    .send(Message::text(show.to_string()))
                    .expect("shows");
            }
            let mut at = vec![0f64; EVENTS];
            for (k, at) in at.iter_mut().enumerate() {
                if !pace.is_zero() {
                    std::thread::sleep(*pace);
                }
                *at = start.elapsed().as_secs_f64() * 1e3;
                let frame = json!({"type": "events", "from": k, "events": [{"k": k, "kind": "message", "text": "an agent's turn"}]});
                teacher
                    .send(Message::text(frame.to_string()))
                    .expect("sends");
            }
            sent.push(at);
        }
        let results: Vec<Vec<(Vec<f64>, bool)>> = students
            .into_iter()
            .map(|h| h.join().expect("a client finished"))
            .collect();
        let (rss, peak, cpu) = usage(pid);
        let _ = child.kill();
        let _ = child.wait();
        let _ = std::fs::remove_dir_all(&dist);

        println!(
            "live relay (roundtable serve, release, 127.0.0.1): {STUDENTS} students follow a {EVENTS}-event run, one event a frame:"
        );
        let mut all_once = STUDENTS;
        for (phase, (name, _)) in PHASES.iter().enumerate() {
            let ok = results.iter().filter(|r| r[phase].1).count();
            all_once = all_once.min(ok);
            let mut last: Vec<f64> = (0..EVENTS)
                .map(|k| {
                    results
                        .iter()
                        .map(|r| r[phase].0[k])
                        .fold(f64::NAN, f64::max)
                        - sent[phase][k]
                })
                .collect();
            last.sort_by(f64::total_cmp);
            println!(
                "  {name}: delay from the teacher's send to the last student's receipt p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; every event exactly once and in order: {ok} of {STUDENTS} students ({})",
                percentile(&last, 0.5),
                percentile(&last, 0.99),
                last[EVENTS - 1],
                if ok == STUDENTS { "met" } else { "NOT met" }
            );
        }
        println!(
            "  relay memory: {rss0:.1} MB idle, {joined_rss:.1} MB with the class joined, {rss:.1} MB after the runs (peak {peak:.1} MB); CPU {:.2} s for the joins and both runs",
            cpu - cpu0
        );
        if all_once != STUDENTS {
            std::process::exit(1);
        }
    }
}
