//! The relay's rules without a network: joining and resuming, the log's
//! order with resends, answers once each, reveals with counts, the
//! teacher's token, and a class restored from the teacher's tab (limits,
//! names, expiry and malformed frames: `limit_tests`). The server's own tests (tests/live_relay.rs) run the same over
//! real WebSockets.

use super::class::{Out, To};
use super::protocol::{Close, Down, Limits, Question, Snapshot, Up};
use super::relay::Relay;
use serde_json::json;

pub(super) const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// A student id as the relay draws one (random there; distinct here).
pub(super) fn new_id() -> String {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    format!(
        "s{:x}",
        0xabc0 + NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    )
}

/// `n` students join `class`; their ids.
pub(super) fn seat(class: &mut super::class::Class, n: usize, limits: &Limits) -> Vec<String> {
    (0..n)
        .map(|_| {
            class
                .join(None, 0, None, new_id(), limits)
                .expect("joins")
                .0
        })
        .collect()
}

pub(super) fn relay() -> Relay {
    let mut r = Relay::new(Limits::default());
    r.open("ABC234".into(), TOKEN.into(), 0).expect("opens");
    r
}

pub(super) fn to(out: &Out, who: &To) -> Vec<Down> {
    out.iter()
        .filter(|(t, _)| t == who)
        .map(|(_, d)| d.clone())
        .collect()
}

pub(super) fn events(n: std::ops::Range<u64>) -> Vec<serde_json::Value> {
    n.map(|i| json!({"seq": i, "kind": "message"})).collect()
}

/// The teacher's frame sending events `n` (numbered from `n.start`).
pub(super) fn events_up(n: std::ops::Range<u64>) -> Up {
    Up::Events {
        from: n.start,
        events: events(n),
    }
}

pub(super) fn question() -> Question {
    Question {
        id: "q1".into(),
        prompt: "Who acts next?".into(),
        choices: vec!["Planner".into(), "Critic".into(), "Summarizer".into()],
    }
}

pub(super) fn send(r: &mut Relay, up: Up, now: u64) -> Result<Out, Close> {
    let limits = r.limits.clone();
    r.class("ABC234").expect("class").teacher(up, now, &limits)
}

#[test]
fn a_late_student_gets_the_log_so_far_and_then_each_event_once() {
    let mut r = relay();
    let out = send(&mut r, events_up(0..3), 1).expect("events");
    assert_eq!(
        to(&out, &To::Students),
        vec![Down::Events {
            from: 0,
            events: events(0..3)
        }]
    );
    // A resend overlapping what the relay has: only the new ones go on.
    let out = send(&mut r, events_up(1..5), 2).expect("events");
    assert_eq!(
        to(&out, &To::Students),
        vec![Down::Events {
            from: 3,
            events: events(3..5)
        }]
    );
    // All known already: nothing is sent.
    assert!(send(&mut r, events_up(0..2), 3).expect("events").is_empty());
    // A gap (frames after a refused one) is refused too, with where to
    // resume; the connection stays.
    let gap = send(&mut r, events_up(9..10), 4).expect("a refusal");
    assert!(
        matches!(&gap[..], [(To::Teacher, Down::Refused { have: 5, retry: true, message })] if message.contains("send from 5")),
        "{gap:?}"
    );

    let limits = r.limits.clone();
    let class = r.class("ABC234").expect("class");
    let (id, out) = class
        .join(Some("Ada"), 0, None, new_id(), &limits)
        .expect("joins");
    match &to(&out, &To::Student(id.clone()))[..] {
        [Down::Welcome {
            from: 0,
            events: got,
            name,
            ..
        }] => {
            assert_eq!(got, &events(0..5));
            assert_eq!(name.as_deref(), Some("Ada"));
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(&to(&out, &To::Teacher)[..], [Down::Roster { students }] if students.len() == 1)
    );
    // Reconnecting with 4 events seen: the fifth only, under the same id.
    class.student_left(&id, 0);
    let (again, out) = class
        .join(None, 4, Some(&id), new_id(), &limits)
        .expect("rejoins");
    assert_eq!(again, id);
    match &to(&out, &To::Student(id))[..] {
        [Down::Welcome {
            from: 4,
            events: got,
            name,
            ..
        }] => {
            assert_eq!(got, &events(4..5));
            assert_eq!(name.as_deref(), Some("Ada"), "the name is kept");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn answers_count_once_and_the_reveal_carries_the_counts() {
    let mut r = relay();
    let limits = r.limits.clone();
    let out = send(
        &mut r,
        Up::Ask {
            question: question(),
        },
        1,
    )
    .expect("asks");
    assert!(matches!(&to(&out, &To::Students)[..], [Down::Ask { .. }]));
    assert_eq!(
        to(&out, &To::Teacher),
        vec![Down::Tally {
            id: "q1".into(),
            counts: vec![0, 0, 0],
            answered: 0,
            answers: Default::default(),
        }]
    );
    let class = r.class("ABC234").expect("class");
    let ids = seat(class, 3, &limits);
    class.answer(&ids[0], "q1", 1).expect("answers");
    class.answer(&ids[1], "q1", 1).expect("answers");
    let out = class.answer(&ids[2], "q1", 0).expect("answers");
    assert_eq!(
        to(&out, &To::Student(ids[2].clone())),
        vec![Down::Answered {
            id: "q1".into(),
            choice: 0
        }]
    );
    assert_eq!(
        to(&out, &To::Teacher),
        vec![Down::Tally {
            id: "q1".into(),
            counts: vec![1, 2, 0],
            answered: 3,
            answers: ids.iter().cloned().zip([1, 1, 0]).collect(),
        }]
    );
    // A second answer is refused, and counts stay.
    let out = class.answer(&ids[0], "q1", 2).expect("a notice");
    assert!(
        matches!(&to(&out, &To::Student(ids[0].clone()))[..], [Down::Notice { message }] if message.contains("already"))
    );
    assert!(to(&out, &To::Teacher).is_empty());
    // An answer to another question, or a choice that does not exist.
    let out = class.answer(&ids[0], "q9", 0).expect("a notice");
    assert!(matches!(&out[..], [(_, Down::Notice { .. })]));
    assert_eq!(class.answer(&ids[0], "q1", 3).unwrap_err().code, 1008);

    let out = send(
        &mut r,
        Up::Reveal {
            id: "q1".into(),
            answer: 1,
            explain: Some("The critic reviews every plan.".into()),
        },
        2,
    )
    .expect("reveals");
    let revealed = super::protocol::Revealed {
        id: "q1".into(),
        answer: 1,
        counts: vec![1, 2, 0],
        explain: Some("The critic reviews every plan.".into()),
    };
    assert_eq!(
        to(&out, &To::Students),
        vec![Down::Reveal {
            revealed: revealed.clone()
        }]
    );
    assert_eq!(
        to(&out, &To::Teacher),
        vec![Down::Reveal {
            revealed: revealed.clone()
        }]
    );
    // A student joining after the reveal sees it; answers are closed.
    let class = r.class("ABC234").expect("class");
    let (late, out) = class.join(None, 0, None, new_id(), &limits).expect("joins");
    assert!(
        matches!(&to(&out, &To::Student(late.clone()))[..], [Down::Welcome { revealed: Some(x), answered: None, .. }] if *x == revealed)
    );
    let out = class.answer(&late, "q1", 1).expect("a notice");
    assert!(matches!(&out[..], [(_, Down::Notice { message })] if message.contains("revealed")));
    // A rejoining student sees their own answer.
    let (_, out) = class
        .join(None, 0, Some(&ids[1]), new_id(), &limits)
        .expect("rejoins");
    assert!(matches!(
        &to(&out, &To::Student(ids[1].clone()))[..],
        [Down::Welcome {
            answered: Some(1),
            ..
        }]
    ));
}

#[test]
fn only_the_token_takes_a_class_back_and_a_restarted_relay_restores_it() {
    let mut r = relay();
    send(&mut r, events_up(0..4), 1).expect("events");
    send(
        &mut r,
        Up::Ask {
            question: question(),
        },
        1,
    )
    .expect("asks");
    let limits = r.limits.clone();
    let class = r.class("ABC234").expect("class");
    let (ada, _) = class
        .join(Some("Ada"), 0, None, new_id(), &limits)
        .expect("joins");
    let (quiet, _) = class
        .join(Some("Quiet"), 0, None, new_id(), &limits)
        .expect("joins");
    class.answer(&ada, "q1", 2).expect("answers");
    let saved = class.snapshot().clone();

    let wrong = r.reopen(
        "ABC234",
        "not-the-token-at-all-0000",
        Snapshot::default(),
        2,
    );
    assert_eq!(wrong.unwrap_err().code, 1008);
    let out = r
        .reopen("ABC234", TOKEN, Snapshot::default(), 2)
        .expect("the teacher is back");
    assert!(
        matches!(&out[0], (To::Teacher, Down::Opened { code, have: 4, shown, .. }) if code == "ABC234" && *shown == crate::engine::live::protocol::digest(&saved.show)),
        "the teacher learns how many events the class has: {out:?}"
    );
    assert_eq!(
        r.class("ABC234").expect("kept").snapshot(),
        &saved,
        "the relay's own state is kept"
    );

    // A new relay (restarted): the teacher's saved state restores it.
    let mut fresh = Relay::new(Limits::default());
    let out = fresh
        .reopen("ABC234", TOKEN, saved.clone(), 3)
        .expect("restored");
    assert!(
        matches!(&to(&out, &To::Teacher)[..], [Down::Opened { .. }, Down::Roster { .. }, Down::Tally { counts, .. }] if counts == &vec![0, 0, 1])
    );
    let class = fresh.class("ABC234").expect("restored");
    let (again, out) = class
        .join(None, 4, Some(&ada), new_id(), &limits)
        .expect("rejoins");
    assert_eq!(again, ada, "the student keeps their id");
    assert!(
        matches!(&to(&out, &To::Student(ada.clone()))[..], [Down::Welcome { from: 4, events, answered: Some(2), .. }] if events.is_empty())
    );
    assert!(
        matches!(
            &class.answer(&ada, "q1", 0).expect("a notice")[..],
            [(_, Down::Notice { .. })]
        ),
        "still answered once"
    );
    // A student who had not answered keeps their id too; a malformed
    // claimed id is not taken.
    let (back, _) = class
        .join(None, 0, Some(&quiet), new_id(), &limits)
        .expect("rejoins");
    assert_eq!(back, quiet);
    let (other, _) = class
        .join(None, 0, Some("<script>"), new_id(), &limits)
        .expect("joins");
    assert_ne!(other, "<script>");
    // Someone new never takes the seat (and the answer) of a restored student.
    let (newcomer, _) = class
        .join(Some("Newcomer"), 0, None, new_id(), &limits)
        .expect("joins");
    assert_ne!(newcomer, ada);
    assert!(matches!(
        &class.answer(&newcomer, "q1", 0).expect("answers")[..],
        [
            (_, Down::Answered { .. }),
            (To::Teacher, Down::Tally { answered: 2, .. })
        ]
    ));
    // A saved state that breaks the limits is refused: an answer out of
    // range, answers with no question, a reveal of another question.
    let mut bad = saved.clone();
    bad.answers.insert("s9".into(), 7);
    let mut no_question = saved.clone();
    no_question.question = None;
    let mut other_reveal = saved;
    other_reveal.revealed = Some(crate::engine::live::protocol::Revealed {
        id: "q9".into(),
        answer: 0,
        counts: vec![0, 0, 0],
        explain: None,
    });
    for bad in [bad, no_question, other_reveal] {
        let mut other = Relay::new(Limits::default());
        assert_eq!(
            other.reopen("XYZ234", TOKEN, bad, 0).unwrap_err().code,
            1008
        );
    }
}
