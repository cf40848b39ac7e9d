//! The built-in lessons the app ships (public/lessons, made by
//! scripts/record-lessons.sh from lessons/*.json): each opens, every
//! question is exactly the one the run's own events generate at its event
//! (choices, answer, reveal), the Lessons page lists each file, and every
//! coordinator has a lesson with several questions.

use roundtable::engine::lesson::{questions, Bundle, Step};
use std::collections::BTreeMap;

fn shipped() -> Vec<(String, Bundle)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/public/lessons");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("public/lessons exists") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(id) = name.strip_suffix(".lesson.json") else {
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("readable");
        let bundle = Bundle::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        out.push((id.to_string(), bundle));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn every_shipped_question_is_the_one_its_run_generates() {
    let lessons = shipped();
    assert!(lessons.len() >= 3, "built-in lessons: {}", lessons.len());
    for (id, b) in &lessons {
        let lesson = b.lesson.as_ref().expect("a lesson");
        assert_eq!(&lesson.id, id, "the file is named after the lesson");
        for (n, step) in lesson.steps.iter().enumerate() {
            let Step::Question(q) = step else { continue };
            let events = &b.runs[q.run].events;
            let roles =
                roundtable::engine::coordinators::question_roles(&b.runs[q.run].config.coordinator);
            let generated = questions::at(events, &roles, q.run, q.at);
            let same = generated
                .iter()
                .find(|g| g.kind == q.kind)
                .unwrap_or_else(|| {
                    panic!(
                        "{id} step {}: no {:?} question at event {}",
                        n + 1,
                        q.kind,
                        q.at
                    )
                });
            assert_eq!(same.choices, q.choices, "{id} step {}", n + 1);
            assert_eq!(same.answer, q.answer, "{id} step {}", n + 1);
            assert_eq!(same.reveal, q.reveal, "{id} step {}", n + 1);
        }
    }
}

#[test]
fn each_coordinator_has_a_built_in_lesson_with_several_questions() {
    let mut by: BTreeMap<String, usize> = BTreeMap::new();
    for (_, b) in shipped() {
        let q = b.lesson.as_ref().map_or(0, |l| l.questions());
        for r in &b.runs {
            let e = by.entry(r.config.coordinator.clone()).or_default();
            *e = (*e).max(q);
        }
    }
    for c in ["travel", "act", "mael"] {
        assert!(
            by.get(c).copied().unwrap_or(0) >= 3,
            "{c}: a built-in lesson with at least 3 questions ({by:?})"
        );
    }
}

#[test]
fn the_lessons_page_lists_every_shipped_lesson_and_nothing_else() {
    let page = include_str!("../src/ui/classroom/lessons_page.rs");
    let listed: Vec<&str> = page
        .split("id: \"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .collect();
    let files: Vec<String> = shipped().into_iter().map(|(id, _)| id).collect();
    let mut l: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
    l.sort();
    assert_eq!(l, files);
}

#[test]
fn a_shipped_lesson_survives_its_link() {
    use roundtable::engine::share::bundle;
    for (id, b) in shipped() {
        let frag = bundle::encode(&b).unwrap_or_else(|e| panic!("{id}: {}", e.user_message()));
        let back = bundle::decode(&frag).unwrap_or_else(|e| panic!("{id}: {}", e.user_message()));
        assert_eq!(back, b, "{id}");
        println!("{id}: link {} KB", frag.len() / 1024);
    }
}
