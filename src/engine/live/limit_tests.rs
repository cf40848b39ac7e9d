//! The relay's limits without a network: rate, log, class and relay
//! caps said in words; names as plain short text; expiry when the teacher
//! stays away; malformed frames refused with a reason.

use super::class::To;
use super::protocol::{parse_up, Close, Down, Limits, Snapshot, Up};
use super::relay::Relay;
use super::tests::{events_up, new_id, question, relay, seat, TOKEN};

#[test]
fn limits_say_what_was_refused() {
    let limits = Limits {
        students_per_class: 2,
        events_per_second: 10,
        log_events: 15,
        classes: 1,
        ..Limits::default()
    };
    let mut r = Relay::new(limits.clone());
    r.open("ABC234".into(), TOKEN.into(), 0).expect("opens");
    assert!(r
        .open("DEF567".into(), TOKEN.into(), 0)
        .unwrap_err()
        .reason
        .contains("1 classes"));
    let class = r.class("ABC234").expect("class");
    let (a, _) = class.join(None, 0, None, new_id(), &limits).expect("joins");
    class.join(None, 0, None, new_id(), &limits).expect("joins");
    let full = class.join(None, 0, None, new_id(), &limits).unwrap_err();
    assert!(full.reason.contains("full (2 students)"), "{}", full.reason);
    class
        .join(None, 0, Some(&a), new_id(), &limits)
        .expect("a known student rejoins a full class");

    // Ten events a second: eleven at once are refused, nothing appended.
    let out = class
        .teacher(events_up(0..11), 1000, &limits)
        .expect("a notice");
    assert!(
        matches!(&out[..], [(To::Teacher, Down::Refused { retry: true, message, .. })] if message.contains("10 events a second"))
    );
    assert!(class.snapshot().events.is_empty());
    class.teacher(events_up(0..10), 1000, &limits).expect("ten");
    // Half a second later five more fit, a sixth not.
    let out = class
        .teacher(events_up(10..16), 1500, &limits)
        .expect("notice");
    assert!(matches!(
        &out[..],
        [(
            To::Teacher,
            Down::Refused {
                have: 10,
                retry: true,
                ..
            }
        )]
    ));
    let out = class
        .teacher(events_up(10..15), 1500, &limits)
        .expect("five");
    assert!(matches!(
        &out[..],
        [(To::Students, Down::Events { from: 10, .. })]
    ));
    // The log holds 15: one more is refused with the reason.
    let out = class
        .teacher(events_up(15..16), 9000, &limits)
        .expect("notice");
    assert!(
        matches!(&out[..], [(To::Teacher, Down::Refused { retry: false, message, .. })] if message.contains("log is full"))
    );
    assert_eq!(class.snapshot().events.len(), 15);

    // A lesson's longest prompt is asked; longer is refused.
    let mut q = question();
    q.prompt = "x".repeat(crate::engine::lesson::MAX_TEXT);
    class
        .teacher(
            Up::Ask {
                question: q.clone(),
            },
            9000,
            &limits,
        )
        .expect("a lesson's prompt");
    q.prompt.push('x');
    // A question must have 2.. choices.
    let mut one_choice = question();
    one_choice.choices.truncate(1);
    for q in [q, one_choice] {
        assert_eq!(
            class
                .teacher(Up::Ask { question: q }, 9000, &limits)
                .unwrap_err()
                .code,
            1008
        );
    }
    // A teacher's connection does not answer.
    let answer = Up::Answer {
        id: "q1".into(),
        choice: 0,
    };
    assert_eq!(class.teacher(answer, 9000, &limits).unwrap_err().code, 1008);
}

#[test]
fn names_are_plain_short_text() {
    let limits = Limits::default();
    let mut r = relay();
    let class = r.class("ABC234").expect("class");
    let (_, out) = class
        .join(
            Some("  <b>Bo</b>\u{0}\u{7}\n  "),
            0,
            None,
            new_id(),
            &limits,
        )
        .expect("joins");
    assert!(
        matches!(&out[0].1, Down::Welcome { name: Some(n), .. } if n == "<b>Bo</b>"),
        "{out:?}"
    );
    let (_, out) = class
        .join(Some(&"é".repeat(100)), 0, None, new_id(), &limits)
        .expect("joins");
    assert!(matches!(&out[0].1, Down::Welcome { name: Some(n), .. } if n.chars().count() == 40));
    let (_, out) = class
        .join(Some(" \t "), 0, None, new_id(), &limits)
        .expect("joins");
    assert!(
        matches!(&out[0].1, Down::Welcome { name: None, .. }),
        "blank is anonymous"
    );
}

#[test]
fn a_class_ends_when_its_teacher_stays_away() {
    let mut r = relay();
    let away = r.limits.teacher_away_ms;
    r.class("ABC234").expect("class").teacher_left(1_000);
    assert!(r.sweep(1_000 + away).is_empty(), "not yet");
    // Back in time: the clock restarts.
    r.reopen("ABC234", TOKEN, Snapshot::default(), 1_000 + away)
        .expect("back");
    assert!(r.sweep(2_000 + 2 * away).is_empty());
    r.class("ABC234")
        .expect("class")
        .teacher_left(5_000 + 2 * away);
    let gone = r.sweep(5_001 + 3 * away);
    assert_eq!(gone.len(), 1);
    assert!(
        matches!(&gone[0].1[..], [(To::Students, Down::Ended { reason })] if reason.contains("teacher left"))
    );
    assert!(!r.has("ABC234"));
}

#[test]
fn malformed_frames_are_refused_with_a_reason() {
    let max = 100;
    let e = parse_up("not json", max).unwrap_err();
    assert_eq!(e.code, 1008);
    assert!(
        e.reason.starts_with("not a frame of this relay"),
        "{}",
        e.reason
    );
    assert!(e.reason.len() <= 123);
    assert_eq!(parse_up(r#"{"type":"dance"}"#, max).unwrap_err().code, 1008);
    assert_eq!(
        parse_up(r#"{"type":"answer","id":"q1"}"#, max)
            .unwrap_err()
            .code,
        1008
    );
    assert_eq!(
        parse_up(r#"{"type":"answer","id":"q1","choice":-1}"#, max)
            .unwrap_err()
            .code,
        1008
    );
    assert_eq!(
        parse_up(
            &format!(r#"{{"type":"join","code":"{}"}}"#, "A".repeat(200)),
            max
        )
        .unwrap_err()
        .code,
        1009
    );
    assert_eq!(
        parse_up(r#"{"type":"join","code":"ABC234","name":"Ada"}"#, max),
        Ok(Up::Join {
            code: "ABC234".into(),
            name: Some("Ada".into()),
            since: 0,
            student: None
        })
    );
    // A reason cut at 123 bytes stays whole characters.
    assert!(Close::policy("é".repeat(100)).reason.len() <= 123);
}

#[test]
fn seats_of_students_who_left_are_freed_after_the_grace_period() {
    let limits = Limits {
        students_per_class: 3,
        seat_grace_ms: 60_000,
        ..Limits::default()
    };
    let mut r = Relay::new(limits.clone());
    r.open("ABC234".into(), TOKEN.into(), 0).expect("opens");
    let class = r.class("ABC234").expect("class");
    let ids = seat(class, 3, &limits);
    class.student_left(&ids[0], 1_000);
    // Back within the grace period: the same seat and id.
    assert!(r.free_seats(61_000).is_empty(), "not yet");
    let class = r.class("ABC234").expect("class");
    let (back, _) = class
        .join(None, 0, Some(&ids[0]), new_id(), &limits)
        .expect("rejoins");
    assert_eq!(back, ids[0]);
    class.student_left(&ids[1], 2_000);
    let freed = r.free_seats(62_001);
    assert_eq!(freed.len(), 1, "one class's roster");
    let roster = &freed[0].1;
    assert!(
        matches!(&roster[..], [(To::Teacher, Down::Roster { students })] if students.len() == 2 && students.iter().all(|s| s.id != ids[1])),
        "{roster:?}"
    );
    // The seat is free: a newcomer takes it, the class being full again.
    let class = r.class("ABC234").expect("class");
    class
        .join(None, 0, None, new_id(), &limits)
        .expect("a free seat");
}

#[test]
fn a_full_class_gives_the_seat_gone_longest_to_a_newcomer() {
    let limits = Limits {
        students_per_class: 300,
        ..Limits::default()
    };
    let mut r = Relay::new(limits.clone());
    r.open("ABC234".into(), TOKEN.into(), 0).expect("opens");
    let class = r.class("ABC234").expect("class");
    // A flood: 300 joins, each page gone at once.
    for t in 0..300u64 {
        let (id, _) = class.join(None, 0, None, new_id(), &limits).expect("joins");
        class.student_left(&id, t);
    }
    // A real student still gets in, and the next, within the grace period.
    let (ada, out) = class
        .join(Some("Ada"), 0, None, new_id(), &limits)
        .expect("a seat for a real student");
    assert!(
        matches!(&out[1], (To::Teacher, Down::Roster { students }) if students.len() == 300 && students.last().is_some_and(|s| s.id == ada && s.connected)),
    );
    class
        .join(Some("Bo"), 0, None, new_id(), &limits)
        .expect("and another");
    // A class full of connected students is full.
    let limits = Limits {
        students_per_class: 2,
        ..limits
    };
    let mut r = Relay::new(limits.clone());
    r.open("ABC234".into(), TOKEN.into(), 0).expect("opens");
    let class = r.class("ABC234").expect("class");
    let (a, _) = class.join(None, 0, None, new_id(), &limits).expect("joins");
    let (b, _) = class.join(None, 0, None, new_id(), &limits).expect("joins");
    let full = class.join(None, 0, None, new_id(), &limits).unwrap_err();
    assert!(full.reason.contains("full"), "{}", full.reason);
    // Of two gone, the one gone longest goes first; the other keeps its seat.
    class.student_left(&b, 5);
    class.student_left(&a, 9);
    class
        .join(None, 0, None, new_id(), &limits)
        .expect("b's seat");
    let (again, _) = class
        .join(None, 0, Some(&a), new_id(), &limits)
        .expect("a comes back");
    assert_eq!(again, a, "a kept its seat and id");
}

#[test]
fn the_teacher_removes_a_student_and_the_answer_with_it() {
    let mut r = relay();
    let limits = r.limits.clone();
    let class = r.class("ABC234").expect("class");
    let (a, _) = class.join(None, 0, None, new_id(), &limits).expect("joins");
    let (b, _) = class.join(None, 0, None, new_id(), &limits).expect("joins");
    class
        .teacher(
            Up::Ask {
                question: question(),
            },
            0,
            &limits,
        )
        .expect("asks");
    class.answer(&a, "q1", 0).expect("answers");
    class.answer(&b, "q1", 1).expect("answers");
    let out = class
        .teacher(Up::Remove { student: a.clone() }, 0, &limits)
        .expect("removes");
    assert!(
        matches!(&out[..], [(To::Teacher, Down::Roster { students }), (To::Teacher, Down::Tally { counts, answered: 1, .. })] if students.len() == 1 && students[0].id == b && counts == &vec![0, 1, 0]),
        "{out:?}"
    );
    assert_eq!(
        class.snapshot().answers.len(),
        1,
        "the tab keeps the tally it sees"
    );
    assert!(class
        .teacher(Up::Remove { student: a }, 0, &limits)
        .expect("nothing to do")
        .is_empty());
}
