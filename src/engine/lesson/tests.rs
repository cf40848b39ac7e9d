//! Lessons: questions generated from events, validation, scoring, the link.

use super::questions;
use super::*;
use crate::engine::model::{ChatRequest, ChatResponse, Message};
use crate::engine::run::event::{Audience, LoggedEvent, RunEvent};
use crate::engine::run::{RunConfig, RunDoc};
use crate::engine::share::{self, bundle};

/// A travel-shaped team's roles: an orchestrator that picks, a critic.
const ROLES: questions::Roles = questions::Roles {
    choosers: &["orchestrator"],
    critics: &["critic"],
    retrieval_store: Some("retrieval"),
};

fn ev(seq: usize, event: RunEvent) -> LoggedEvent {
    LoggedEvent {
        seq: seq as u64,
        t_ms: 0,
        event,
    }
}

fn agent(id: &str, role: &str) -> RunEvent {
    RunEvent::AgentAdded {
        agent: id.into(),
        role: role.into(),
        name: format!("The {id}"),
        model: String::new(),
    }
}

fn request(call: u32, agent: &str) -> RunEvent {
    RunEvent::LlmRequest {
        call,
        agent: agent.into(),
        model: "demo".into(),
        request: ChatRequest::new(vec![Message::user("go")]),
    }
}

fn response(call: u32, text: &str) -> RunEvent {
    RunEvent::LlmResponse {
        call,
        response: ChatResponse {
            text: text.into(),
            ..ChatResponse::default()
        },
        latency_ms: 1,
        retries: 0,
    }
}

fn handoff(from: &str, to: &str) -> RunEvent {
    RunEvent::Handoff {
        from: from.into(),
        to: to.into(),
        reason: String::new(),
    }
}

/// Orchestrator picks hotel, hotel calls, critic rejects then approves.
fn travel_like() -> Vec<LoggedEvent> {
    let list = vec![
        agent("orchestrator", "orchestrator"),
        agent("hotel", "expert"),
        agent("flight", "expert"),
        agent("critic", "critic"),
        request(0, "orchestrator"),
        response(0, "hotel"),
        handoff("orchestrator", "hotel"),
        request(1, "hotel"),
        response(1, "found"),
        request(2, "critic"),
        response(2, "problems"),
        RunEvent::MessagePosted {
            from: "critic".into(),
            to: Audience::Public,
            text: "problems".into(),
            call: Some(2),
        },
        handoff("critic", "orchestrator"),
        request(3, "critic"),
        response(3, "APPROVED"),
        RunEvent::MessagePosted {
            from: "critic".into(),
            to: Audience::Public,
            text: "APPROVED".into(),
            call: Some(3),
        },
        RunEvent::RunFinished { output: None },
    ];
    list.into_iter()
        .enumerate()
        .map(|(i, e)| ev(i, e))
        .collect()
}

/// The question of `kind` asked before event `i` of `events` (run 0).
fn question_at(events: &[LoggedEvent], i: usize, kind: QuestionKind) -> Option<Question> {
    questions::at(events, &ROLES, 0, i)
        .into_iter()
        .find(|q| q.kind == kind)
}

#[test]
fn next_agent_question_names_the_caller_among_the_runs_agents() {
    let events = travel_like();
    let qs = questions::at(&events, &ROLES, 0, 7);
    let q = qs
        .iter()
        .find(|q| q.kind == QuestionKind::NextAgent)
        .expect("a next-agent question before the hotel's call");
    assert_eq!(q.choices[q.answer], "The hotel");
    assert!(q.choices.len() >= 2 && q.choices.len() <= 4);
    assert_eq!(q.reveal, 8);
    // No question before an event that is not a call, hand-off or retrieval.
    assert!(questions::at(&events, &ROLES, 0, 8).is_empty());
}

#[test]
fn handoff_question_is_the_orchestrators_pick_and_excludes_the_orchestrator() {
    let events = travel_like();
    let q = question_at(&events, 6, QuestionKind::Handoff).expect("the orchestrator's pick");
    assert!(q.prompt.contains("pick"), "{}", q.prompt);
    assert_eq!(q.choices[q.answer], "The hotel");
    assert!(!q.choices.contains(&"The orchestrator".to_string()));
}

#[test]
fn verdict_follows_whether_the_critic_hands_the_plan_back() {
    let events = travel_like();
    let reject =
        question_at(&events, 9, QuestionKind::Verdict).expect("verdict before the first review");
    assert!(reject.choices[reject.answer].starts_with("No"));
    assert_eq!(reject.reveal, 13, "revealed once the hand-back is shown");
    let accept =
        question_at(&events, 13, QuestionKind::Verdict).expect("verdict before the second review");
    assert!(accept.choices[accept.answer].starts_with("Yes"));
    assert_eq!(accept.reveal, 16);
}

#[test]
fn retrieval_question_answers_with_the_used_hit() {
    let payload = serde_json::json!({
        "task": "t1", "step": "solve", "mode": "step", "candidates": 5,
        "hits": [
            {"id": "e1", "similarity": 0.9, "reward": 0.9, "score": 0.9, "used": true, "input": "add two numbers", "output": "4"},
            {"id": "e2", "similarity": 0.5, "reward": 0.2, "score": 0.3, "used": false, "input": "write a poem", "output": "…"},
            {"id": "e3", "similarity": 0.4, "reward": 0.8, "score": 0.6, "used": false, "input": "sort a list", "output": "…"}
        ]
    });
    let events: Vec<LoggedEvent> = vec![
        agent("solver", "solver"),
        RunEvent::NoteWritten {
            agent: "solver".into(),
            store: "retrieval".into(),
            key: Some("t1".into()),
            payload,
        },
    ]
    .into_iter()
    .enumerate()
    .map(|(i, e)| ev(i, e))
    .collect();
    let q = question_at(&events, 1, QuestionKind::Retrieval).expect("a retrieval question");
    assert_eq!(q.choices.len(), 3);
    assert!(q.choices[q.answer].contains("add two numbers"), "{:?}", q);
    assert!(q.prompt.contains("solve"));
}

fn doc(events: Vec<LoggedEvent>) -> RunDoc {
    let mut c = RunConfig::new("travel", "a trip", crate::engine::run::ModelSpec::demo());
    c.run_id = "run-1".into();
    c.variant = Some("orchestrator".into());
    RunDoc::new(c, events)
}

fn lesson_on(events: &[LoggedEvent]) -> Lesson {
    let q = questions::at(events, &ROLES, 0, 6).remove(0);
    Lesson {
        id: "t".into(),
        title: "Why the orchestrator picks the hotel".into(),
        summary: String::new(),
        steps: vec![
            Step::Note {
                run: 0,
                at: 4,
                text: "The orchestrator sees only the goal.".into(),
                highlight: Some(Panel::Graph),
            },
            Step::Question(q),
        ],
    }
}

#[test]
fn progress_counts_only_the_first_answer() {
    let events = travel_like();
    let lesson = lesson_on(&events);
    let q = lesson.steps[1].question().unwrap().clone();
    let wrong = (q.answer + 1) % q.choices.len();
    let mut p = Progress::default();
    assert_eq!(p.answer(&lesson, 0, 0), score::Answered::NotAQuestion);
    assert_eq!(
        p.answer(&lesson, 1, wrong),
        score::Answered::Wrong(q.answer)
    );
    assert_eq!(p.answer(&lesson, 1, q.answer), score::Answered::Right);
    assert_eq!(p.score(&lesson), (0, 1));
    let mut p = Progress::default();
    p.answer(&lesson, 1, q.answer);
    assert_eq!(p.score(&lesson), (1, 1));
}

#[test]
fn validation_names_what_is_wrong() {
    let events = travel_like();
    let good = Bundle::lesson(vec![doc(events.clone())], lesson_on(&events));
    good.validate().expect("valid");
    let mut b = good.clone();
    if let Step::Question(q) = &mut b.lesson.as_mut().unwrap().steps[1] {
        q.answer = 9;
    }
    assert!(b.validate().unwrap_err().contains("answer is choice 10"));
    let mut b = good.clone();
    if let Step::Note { at, .. } = &mut b.lesson.as_mut().unwrap().steps[0] {
        *at = 999;
    }
    assert!(b.validate().unwrap_err().contains("pinned to event 999"));
    let mut b = good.clone();
    if let Step::Note { run, .. } = &mut b.lesson.as_mut().unwrap().steps[0] {
        *run = 3;
    }
    assert!(b.validate().unwrap_err().contains("points at run 4"));
    let one = Bundle::comparison("x", vec![doc(events.clone())]);
    assert!(one.validate().unwrap_err().contains("at least two runs"));
    let five = Bundle::comparison("x", vec![doc(events.clone()); 5]);
    assert!(five.validate().unwrap_err().contains("at most 4"));
    assert!(Bundle::from_json("{\"format\":\"roundtable.run\"}")
        .unwrap_err()
        .contains("not a Roundtable lesson"));
    assert!(
        Bundle::from_json("{\"format\":\"roundtable.lesson\",\"version\":7}")
            .unwrap_err()
            .contains("version 7")
    );
    assert!(Bundle::from_json("not json").is_err());
}

#[test]
fn a_lesson_link_carries_its_runs_and_steps() {
    let events = travel_like();
    let b = Bundle::lesson(vec![doc(events.clone())], lesson_on(&events));
    let frag = bundle::encode(&b).expect("encodes");
    assert!(frag.starts_with("lesson=B1~"));
    assert!(bundle::is_bundle_link(&format!("http://x/#{frag}")));
    let back = bundle::decode(&format!("http://127.0.0.1:8080/#{frag}")).expect("decodes");
    assert_eq!(back, b);
    // A comparison uses its own key.
    let mut other = events.clone();
    other.truncate(10);
    let c = Bundle::comparison("A vs B", vec![doc(events), doc(other)]);
    let frag = bundle::encode(&c).expect("encodes");
    assert!(frag.starts_with("compare=B1~"));
    assert_eq!(bundle::decode(&frag).expect("decodes"), c);
    // Its run parts are run-link payloads: each opens as a run on its own.
    let run_part = frag.split('~').nth(2).unwrap();
    assert_eq!(share::decode(run_part).unwrap(), c.runs[0]);
}

#[test]
fn bad_bundle_links_get_clear_errors() {
    let events = travel_like();
    let b = Bundle::lesson(vec![doc(events.clone())], lesson_on(&events));
    let frag = bundle::encode(&b).unwrap();
    let cut = &frag[..frag.len() - 20];
    assert!(matches!(
        bundle::decode(cut),
        Err(share::ShareError::Damaged(_)) | Err(share::ShareError::Invalid(_))
    ));
    assert!(matches!(
        bundle::decode("lesson=B9~x"),
        Err(share::ShareError::Version(_))
    ));
    assert!(matches!(
        bundle::decode("lesson="),
        Err(share::ShareError::Empty)
    ));
    assert!(matches!(
        bundle::decode("lesson=hello"),
        Err(share::ShareError::Damaged(_))
    ));
    // A step pointing past its run is refused even when the link decodes.
    let mut bad = b.clone();
    if let Step::Note { at, .. } = &mut bad.lesson.as_mut().unwrap().steps[0] {
        *at = 500;
    }
    let mut meta = serde_json::to_value(&bad).unwrap();
    meta.as_object_mut().unwrap().remove("runs");
    assert!(Bundle::with_runs(meta, bad.runs.clone())
        .unwrap_err()
        .contains("pinned to event 500"));
}

#[test]
fn a_comparison_over_the_cap_is_refused_with_its_size() {
    // Four runs of incompressible text, more than a link holds.
    let mut state = 0x2545F4914F6CDD1Du64;
    let mut noise = String::new();
    while noise.len() < 1_300_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        noise.push_str(&format!("{state:016x}"));
    }
    let mut runs = Vec::new();
    for k in 0..4 {
        let mut e = travel_like();
        e.insert(5, ev(5, response(0, &format!("{k}{noise}"))));
        for (i, x) in e.iter_mut().enumerate() {
            x.seq = i as u64;
        }
        runs.push(doc(e));
    }
    let msg = match bundle::encode(&Bundle::comparison("big", runs)) {
        Ok(link) => panic!("a {} KB link was made", link.len() / 1024),
        Err(e) => e.user_message(),
    };
    assert!(msg.contains("too big for a link"), "{msg}");
    assert!(msg.contains("Export it as a file"), "{msg}");
}

#[test]
fn a_note_can_point_at_how_two_runs_prompts_differ() {
    // A comparison of a run told the paper's prompts and one told an
    // edited template: a note highlights the prompt diff, and the runs
    // keep what each was told.
    let a = doc(travel_like());
    let mut b = doc(travel_like());
    b.config.prompts.insert(
        "travel.orchestrator.system".into(),
        "Prefer cheap options.".into(),
    );
    let mut bundle = Bundle::comparison("paper's vs mine", vec![a, b]);
    bundle.lesson = Some(Lesson {
        id: String::new(),
        title: "What the orchestrator is told".into(),
        summary: String::new(),
        steps: vec![Step::Note {
            run: 1,
            at: 3,
            text: "Only the orchestrator's prompt changed: see the diff.".into(),
            highlight: Some(Panel::Prompts),
        }],
    });
    let json = serde_json::to_string(&bundle).expect("JSON");
    assert!(json.contains("\"highlight\":\"prompts\""), "{json}");
    let back: Bundle = serde_json::from_str(&json).expect("read back");
    assert_eq!(back, bundle);
    assert_eq!(
        back.runs[1].config.prompts["travel.orchestrator.system"],
        "Prefer cheap options."
    );
    assert!(back.runs[0].config.prompts.is_empty());
    assert_eq!(Panel::parse("prompts"), Some(Panel::Prompts));
}
