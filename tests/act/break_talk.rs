//! Break time as a conversation (§3.5, issue 25 item 7.1): a member asks
//! its expert several questions, one at a time, until it says it is done
//! or the cap of question / answer pairs is reached; every turn is posted,
//! heard by the expert and by the member's knowledge acquisition, and
//! shown by the views.

use super::common::*;
use roundtable::engine::coordinators::act::break_time::next_question;
use roundtable::engine::coordinators::act::contract::*;
use roundtable::engine::coordinators::act::html::meetings::meetings_html;
use roundtable::engine::coordinators::act::view::ActView;
use roundtable::engine::model::reply::RepairKind;
use roundtable::engine::run::{Audience, RunEvent, RunStatus};
use roundtable::engine::views::Fold;

/// A member that asks two follow-ups ("FOLLOW-UP 1 of …", "FOLLOW-UP 2 of
/// …") after its first question, then says it is done.
fn two_follow_ups() -> roundtable::engine::model::scripted::ScriptedModel {
    model(|req| {
        (req.step.as_deref() == Some(STEP_FOLLOWUP)).then(|| {
            let text = req.last_user().unwrap_or_default();
            let talk = section(text, H_CONVERSATION).unwrap_or("");
            let name = name_of(req);
            if talk.contains("FOLLOW-UP 2 of") {
                r#"{"done": true}"#.to_string()
            } else if talk.contains("FOLLOW-UP 1 of") {
                format!(r#"{{"question": "FOLLOW-UP 2 of {name}"}}"#)
            } else {
                format!(r#"{{"question": "FOLLOW-UP 1 of {name}"}}"#)
            }
        })
    })
}

/// The break-time messages of each 1:1, (from, text) in order, by member.
fn one_to_ones(r: &Run) -> Vec<(String, Vec<(String, String)>)> {
    let mut phase = String::new();
    let mut out: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for e in &r.events {
        match &e.event {
            RunEvent::PhaseStarted { phase: p, .. } => phase = p.clone(),
            RunEvent::MessagePosted {
                from,
                to: Audience::To(pair),
                text,
                ..
            } if phase == PHASE_BREAK => {
                let member = pair[0].clone();
                match out.iter_mut().find(|(m, _)| *m == member) {
                    Some((_, lines)) => lines.push((from.clone(), text.clone())),
                    None => out.push((member, vec![(from.clone(), text.clone())])),
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn a_member_asks_several_questions_until_it_is_done_and_every_turn_is_kept() {
    // A cap of 4 pairs: the member is done after its third question.
    let r = run_with(Variant::Act, two_follow_ups(), |o, _| {
        o.limits.break_pairs = 4
    });
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    let breaks = r.notes::<BreakRecord>(STORE_BREAK);
    assert_eq!(breaks.len(), 4);
    for (_, b) in &breaks {
        assert_eq!(b.pairs, 3, "{b:?}");
        assert_eq!(b.ended, "no further questions", "{b:?}");
    }
    // Three answers and three follow-up turns per member (the last says done).
    assert_eq!(r.asked(STEP_ANSWER).len(), 4 * 3);
    let followups = r.asked(STEP_FOLLOWUP);
    assert_eq!(followups.len(), 4 * 3);
    // Each follow-up says how many questions the cap still allows.
    for (agent, text) in &followups {
        let talk = section(text, H_CONVERSATION).unwrap_or("");
        let asked = talk.matches("FOLLOW-UP").count() + 1;
        let left = 4 - asked;
        let says = if left == 1 {
            "You may ask one more question.".to_string()
        } else {
            format!("You may ask up to {left} more questions")
        };
        assert!(text.contains(&says), "{agent}: {text}");
    }
    // Every turn is posted to the pair, in order: question, answer, …
    let talks = one_to_ones(&r);
    assert_eq!(talks.len(), 4);
    for (member, lines) in &talks {
        let name = format!("Agent {}", member_letter(member));
        let texts: Vec<&str> = lines.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            texts,
            [
                format!("FIRST QUESTION of {name}").as_str(),
                "EXPERT ANSWER.",
                format!("FOLLOW-UP 1 of {name}").as_str(),
                "EXPERT ANSWER.",
                format!("FOLLOW-UP 2 of {name}").as_str(),
                "EXPERT ANSWER.",
            ],
            "{member}"
        );
        for (n, (from, _)) in lines.iter().enumerate() {
            assert_eq!(from == member, n % 2 == 0, "{member} turn {n}: {from}");
        }
    }
    // The expert hears the whole conversation so far.
    let last_answers: Vec<String> = r
        .asked(STEP_ANSWER)
        .into_iter()
        .map(|(_, t)| t)
        .filter(|t| t.contains("FOLLOW-UP 2 of"))
        .collect();
    assert_eq!(last_answers.len(), 4);
    for t in &last_answers {
        let talk = section(t, H_CONVERSATION).unwrap_or("");
        assert!(talk.contains("FIRST QUESTION of") && talk.contains("FOLLOW-UP 1 of"));
        assert_eq!(talk.matches("EXPERT ANSWER.").count(), 2, "{talk}");
    }
    // Knowledge acquisition after break time reads every turn.
    let after_break: Vec<String> = r
        .asked(STEP_ACQUIRE)
        .into_iter()
        .map(|(_, t)| t)
        .filter(|t| t.contains("FIRST QUESTION of"))
        .collect();
    assert_eq!(after_break.len(), 4);
    for t in &after_break {
        assert!(t.contains("FOLLOW-UP 1 of") && t.contains("FOLLOW-UP 2 of"));
        assert_eq!(t.matches("EXPERT ANSWER.").count(), 3);
    }
    // The views show every turn: the fold's break-time meeting and each
    // side room of the Meetings panel.
    let view = ActView::of(&r.events);
    let talk = view
        .meetings
        .iter()
        .find(|m| m.phase == PHASE_BREAK)
        .expect("break time");
    assert_eq!(talk.lines.len(), 4 * 6);
    let html = meetings_html(&view);
    let rooms: Vec<&str> = html
        .split("<details class=\"act-side-room\"")
        .skip(1)
        .collect();
    assert_eq!(rooms.len(), 4);
    for room in rooms {
        let room = room.split("</details>").next().unwrap_or("");
        assert_eq!(room.matches("<li class=\"act-line\"").count(), 6, "{room}");
        assert_eq!(room.matches(">question</span>").count(), 3, "{room}");
        assert_eq!(room.matches(">answer</span>").count(), 3, "{room}");
        assert!(room.contains("FOLLOW-UP 2 of"), "{room}");
    }
}

#[test]
fn the_cap_ends_a_conversation_that_would_go_on() {
    // The default cap, 3 pairs: the same member never gets to say it is done.
    let r = run(Variant::Act, two_follow_ups());
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    for (_, b) in r.notes::<BreakRecord>(STORE_BREAK) {
        assert_eq!((b.pairs, b.ended.as_str()), (3, "cap"));
    }
    assert_eq!(r.asked(STEP_ANSWER).len(), 4 * 3);
    assert_eq!(r.asked(STEP_FOLLOWUP).len(), 4 * 2, "no turn after the cap");
    assert!(one_to_ones(&r).iter().all(|(_, lines)| lines.len() == 6));
}

#[test]
fn done_is_read_in_the_shapes_a_model_writes_it() {
    // As asked: no repair.
    assert_eq!(next_question(r#"{"done": true}"#), (None, Vec::new()));
    // "done" wins over a question written with it.
    assert_eq!(
        next_question(r#"{"done": true, "question": "More?"}"#).0,
        None
    );
    // A question goes on, unflagged.
    assert_eq!(
        next_question(r#"{"question": "And the price?"}"#),
        (Some("And the price?".into()), Vec::new())
    );
    // Repaired shapes are flagged.
    for reply in [
        r#"{"done": "yes"}"#,
        "No further questions, thank you.",
        r#"{"done": false}"#,
    ] {
        let (q, repairs) = next_question(reply);
        assert_eq!(q, None, "{reply}");
        assert_eq!(repairs.len(), 1, "{reply}: {repairs:?}");
    }
    let (q, repairs) = next_question("How long should it steep?");
    assert_eq!(q.as_deref(), Some("How long should it steep?"));
    assert!(repairs.iter().all(|r| r.kind == RepairKind::Shape));
    assert_eq!(repairs.len(), 1);
}

#[test]
fn no_further_questions_in_the_questions_place_ends_the_one_to_one() {
    // Not sent to the expert as a question: read as done, and flagged.
    for reply in [
        r#"{"question": "No further questions."}"#,
        r#"{"question": "none"}"#,
        r#"{"question": "I have no more questions, thank you!"}"#,
    ] {
        let (q, repairs) = next_question(reply);
        assert_eq!(q, None, "{reply}");
        assert_eq!(repairs.len(), 1, "{reply}: {repairs:?}");
        assert!(
            repairs[0].detail.contains("said there were none"),
            "{repairs:?}"
        );
    }
    // A real question that mentions questions still goes on.
    assert_eq!(
        next_question(r#"{"question": "Which questions do guests ask most?"}"#).0,
        Some("Which questions do guests ask most?".into())
    );
}

fn member_letter(id: &str) -> char {
    (b'A' + id[1..].parse::<u8>().unwrap_or(1) - 1) as char
}

/// A member whose reflection plans `n` questions ("Q1 of …", …); its
/// follow-up says it is done (the scripted default).
fn planned_questions(n: usize) -> roundtable::engine::model::scripted::ScriptedModel {
    model(move |req| {
        (req.step.as_deref() == Some(STEP_REFLECT)).then(|| {
            let name = name_of(req);
            let qs: Vec<String> = (1..=n).map(|k| format!("Q{k} of {name}")).collect();
            serde_json::json!({"reflection": "r", "deepen": format!("DEEPEN-{name}"), "questions": qs})
                .to_string()
        })
    })
}

#[test]
fn the_reflections_questions_are_all_asked_in_order_up_to_the_cap() {
    // §3.5: the member formulates a set of questions; each is put to the
    // expert in turn before any follow-up. Cap 4: three planned, then one
    // follow-up turn that says done.
    let r = run_with(Variant::Act, planned_questions(3), |o, _| {
        o.limits.break_pairs = 4
    });
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    for (_, b) in r.notes::<BreakRecord>(STORE_BREAK) {
        assert_eq!(
            (b.pairs, b.planned, b.ended.as_str()),
            (3, 3, "no further questions"),
            "{b:?}"
        );
    }
    assert_eq!(r.asked(STEP_FOLLOWUP).len(), 4, "one follow-up turn each");
    for (member, lines) in one_to_ones(&r) {
        let name = format!("Agent {}", member_letter(&member));
        let texts: Vec<&str> = lines.iter().map(|(_, t)| t.as_str()).collect();
        let q = |k: usize| format!("Q{k} of {name}");
        assert_eq!(
            texts,
            [
                q(1).as_str(),
                "EXPERT ANSWER.",
                q(2).as_str(),
                "EXPERT ANSWER.",
                q(3).as_str(),
                "EXPERT ANSWER."
            ],
            "{member}"
        );
    }
    // The reflection is asked for at most the cap, in its prompt and in
    // its shape.
    let reflect: Vec<_> = r
        .requests
        .iter()
        .filter(|q| q.step.as_deref() == Some(STEP_REFLECT))
        .collect();
    assert_eq!(reflect.len(), 4);
    for q in reflect {
        let strict = q.params.schema.as_ref().expect("a shape").strict();
        assert_eq!(strict["properties"]["questions"]["maxItems"], 4);
        assert!(q.last_user().unwrap_or_default().contains("at most 4"));
    }

    // Five planned, the default cap of 3: the first three are asked, no
    // follow-up, the rest dropped and flagged, never posted.
    let r = run(Variant::Act, planned_questions(5));
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    for (_, b) in r.notes::<BreakRecord>(STORE_BREAK) {
        assert_eq!(
            (b.pairs, b.planned, b.ended.as_str()),
            (3, 3, "cap"),
            "{b:?}"
        );
        assert!(b.flags.iter().any(|f| f.contains("the first 3")), "{b:?}");
    }
    assert!(r.asked(STEP_FOLLOWUP).is_empty());
    for (_, lines) in one_to_ones(&r) {
        assert!(lines
            .iter()
            .all(|(_, t)| !t.starts_with("Q4") && !t.starts_with("Q5")));
    }
    // The expert's task is the questions that are asked.
    for (_, text) in r.asked(STEP_ANSWER) {
        let task = section(&text, H_INITIAL).unwrap_or("");
        assert!(task.contains("Q3 of") && !task.contains("Q4 of"), "{task}");
    }
}
