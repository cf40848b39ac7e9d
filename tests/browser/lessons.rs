//! The teacher's lessons in IndexedDB: saved, listed, loaded back equal,
//! deleted; a damaged record or one from a newer version listed as
//! unreadable (never a panic), and an invalid lesson refused before
//! anything is stored.

use roundtable::engine::lesson::{questions, Bundle, Lesson, Panel, Step};
use roundtable::engine::run::{LoggedEvent, ModelSpec, RunConfig, RunDoc, RunEvent};
use roundtable::platform::{idb, lessons};
use wasm_bindgen_test::*;

fn run() -> RunDoc {
    use roundtable::engine::model::{ChatRequest, Message};
    let mut config = RunConfig::new("travel", "a trip", ModelSpec::demo());
    config.run_id = "browser-lesson-run".into();
    let events: Vec<RunEvent> = vec![
        RunEvent::AgentAdded {
            agent: "orchestrator".into(),
            role: "orchestrator".into(),
            name: "Orchestrator".into(),
            model: String::new(),
        },
        RunEvent::AgentAdded {
            agent: "hotel".into(),
            role: "hotel".into(),
            name: "Hotel expert".into(),
            model: String::new(),
        },
        RunEvent::AgentAdded {
            agent: "restaurant".into(),
            role: "restaurant".into(),
            name: "Restaurant expert".into(),
            model: String::new(),
        },
        RunEvent::Handoff {
            from: "orchestrator".into(),
            to: "hotel".into(),
            reason: String::new(),
        },
        RunEvent::LlmRequest {
            call: 0,
            agent: "hotel".into(),
            model: "demo".into(),
            request: ChatRequest::new(vec![Message::user("find a room")]),
        },
    ];
    let events = events
        .into_iter()
        .enumerate()
        .map(|(i, event)| LoggedEvent {
            seq: i as u64,
            t_ms: i as u64,
            event,
        })
        .collect();
    RunDoc::new(config, events)
}

fn lesson() -> Bundle {
    let doc = run();
    let roles = roundtable::engine::coordinators::question_roles(&doc.config.coordinator);
    let q = questions::at(&doc.events, &roles, 0, 3)
        .into_iter()
        .next()
        .expect("a hand-off question");
    Bundle::lesson(
        vec![doc],
        Lesson {
            id: String::new(),
            title: "Who does the orchestrator pick?".into(),
            summary: "one note, one question".into(),
            steps: vec![
                Step::Note {
                    run: 0,
                    at: 3,
                    text: "It sees only the conversation.".into(),
                    highlight: Some(Panel::Graph),
                },
                Step::Question(q),
            ],
        },
    )
}

#[wasm_bindgen_test]
async fn lessons_are_saved_listed_loaded_and_deleted() {
    let key = "browser-test-lesson";
    let b = lesson();
    lessons::save(key, &b).await.expect("saved");
    let listed = lessons::list().await.expect("listed");
    assert!(
        listed.iter().any(|s| matches!(s,
        lessons::Saved::Ok { key: k, title, steps: 2, questions: 1, runs: 1, .. }
            if k == key && title == "Who does the orchestrator pick?")),
        "{listed:?}"
    );
    assert_eq!(lessons::load(key).await.expect("loaded"), b);
    lessons::delete(key).await.expect("deleted");
    assert!(lessons::load(key).await.is_err());
}

#[wasm_bindgen_test]
async fn a_damaged_or_newer_lesson_is_listed_as_unreadable() {
    idb::put_text("lessons", "browser-test-damaged", "{not json")
        .await
        .expect("raw write");
    let newer =
        serde_json::json!({ "v": 99, "key": "browser-test-newer", "bundle": {} }).to_string();
    idb::put_text("lessons", "browser-test-newer", &newer)
        .await
        .expect("raw write");
    let listed = lessons::list().await.expect("the list still reads");
    let message = |key: &str| {
        listed.iter().find_map(|s| match s {
            lessons::Saved::Unreadable { key: k, message } if k == key => Some(message.clone()),
            _ => None,
        })
    };
    assert!(message("browser-test-damaged")
        .expect("listed")
        .contains("damaged"));
    assert!(message("browser-test-newer")
        .expect("listed")
        .contains("newer version"));
    assert!(lessons::load("browser-test-damaged").await.is_err());
    lessons::delete("browser-test-damaged")
        .await
        .expect("deletable");
    lessons::delete("browser-test-newer")
        .await
        .expect("deletable");
}

#[wasm_bindgen_test]
async fn an_invalid_lesson_is_refused_and_nothing_is_stored() {
    let mut b = lesson();
    if let Some(Step::Question(q)) = b.lesson.as_mut().and_then(|l| l.steps.get_mut(1)) {
        q.answer = 7;
    }
    let err = lessons::save("browser-test-invalid", &b).await.unwrap_err();
    assert!(err.contains("answer is choice 8"), "{err}");
    assert!(lessons::load("browser-test-invalid").await.is_err());
}
