//! An ACT run travels in a share link and opens with its views intact:
//! every agent's memory (expertise, episodes, knowledge, what each prompt
//! was given), the task evolution, the meetings and the rounds.

use super::common::*;
use roundtable::engine::coordinators::act::contract::Variant;
use roundtable::engine::coordinators::act::view::ActView;
use roundtable::engine::run::{RunConfig, RunDoc};
use roundtable::engine::share;
use roundtable::engine::views::Fold;

#[test]
fn a_shared_act_run_opens_with_its_memory_inspector_intact() {
    let r = run(Variant::Act, model(|_| None));
    let mut config = RunConfig::new("act", "", roundtable::engine::run::ModelSpec::demo());
    if let Some(roundtable::engine::run::RunEvent::RunStarted { config: c }) =
        r.events.first().map(|e| e.event.clone())
    {
        config = c;
    }
    let doc = RunDoc::new(config, r.events.clone());
    let payload = share::encode(&doc).expect("encode");
    let back = share::decode(&payload).expect("decode");
    let (a, b) = (ActView::of(&doc.events), ActView::of(&back.events));
    assert_eq!(a, b);
    let a1 = b.agent("a1").expect("a1");
    assert!(!a1.expertise.is_empty() && !a1.episodes.is_empty() && !a1.knowledge.is_empty());
    assert_eq!(a1.tasks.len(), 3);
    assert!(a1.retrievals.iter().any(|(_, r)| !r.ids.is_empty()));
    assert_eq!(b.experts().count(), 4);
    assert!(
        b.experts().all(|e| e.gone),
        "experts leave after break time"
    );
    assert_eq!(
        b.meetings
            .iter()
            .map(|m| m.phase.as_str())
            .collect::<Vec<_>>(),
        ["team_meeting", "break_time", "production_meeting"]
    );
    assert!(b.team_task.as_ref().is_some_and(|g| g.subject == "FUSED-G"));
    assert!(b.result.is_some() && !b.rounds.is_empty());
    assert!(b
        .tokens
        .iter()
        .any(|t| t.phase == "break_time" && t.calls > 0));
}

#[test]
fn the_view_folds_random_and_damaged_logs_without_panicking() {
    use roundtable::engine::coordinators::act::html::{meetings, memory, output, room, tasks};
    use roundtable::engine::model::retry::SplitMix;
    use roundtable::engine::run::random::random_run;
    use roundtable::engine::run::{LoggedEvent, RunEvent};
    let render = |v: &ActView| {
        let _ = room::room_svg(v);
        let _ = meetings::meetings_html(v);
        let _ = memory::memories_html(v);
        let _ = tasks::tasks_html(v);
        let _ = output::output_html(v, &["ref".to_string()]);
    };
    let mut rng = SplitMix::new(11);
    for _ in 0..300 {
        let mut doc = random_run(&mut rng, 60);
        // Random agents as members and experts of an ACT run, odd ids and all.
        for (i, e) in doc.events.iter_mut().enumerate() {
            if let RunEvent::AgentAdded { role, .. } = &mut e.event {
                *role = if i % 2 == 0 { "member" } else { "expert" }.into();
            }
        }
        render(&ActView::of(&doc.events));
    }
    let odd: Vec<LoggedEvent> = ["", "食", "x", "a"]
        .iter()
        .enumerate()
        .flat_map(|(i, id)| {
            [
                LoggedEvent {
                    seq: i as u64,
                    t_ms: 0,
                    event: RunEvent::AgentAdded {
                        agent: id.to_string(),
                        role: "member".into(),
                        name: id.to_string(),
                        model: String::new(),
                    },
                },
                LoggedEvent {
                    seq: i as u64,
                    t_ms: 0,
                    event: RunEvent::Handoff {
                        from: id.to_string(),
                        to: "食".into(),
                        reason: String::new(),
                    },
                },
            ]
        })
        .collect();
    render(&ActView::of(&odd));
    // Notes of ACT's stores with payloads of the wrong shape are skipped.
    let stores = [
        "expertise",
        "task",
        "knowledge",
        "episode",
        "retrieval",
        "draft",
        "check",
        "result",
        "rescore",
        "leader",
        "complex_task",
        "break",
        "judge",
    ];
    let events: Vec<LoggedEvent> = stores
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            [
                serde_json::json!("text"),
                serde_json::json!({"id": 3}),
                serde_json::json!([1, 2]),
            ]
            .into_iter()
            .map(move |payload| LoggedEvent {
                seq: i as u64,
                t_ms: 0,
                event: RunEvent::NoteWritten {
                    agent: "a1".into(),
                    store: s.to_string(),
                    key: None,
                    payload,
                },
            })
        })
        .collect();
    let v = ActView::of(&events);
    assert!(v.result.is_none() && v.rounds.is_empty() && v.agents.is_empty());
}

#[test]
fn an_act_demo_run_travels_in_format_5_shorter_than_in_deflate_formats() {
    use roundtable::engine::base::clock::FakeClock;
    use roundtable::engine::coordinators::act::setup::configure;
    use roundtable::engine::coordinators::every_script;
    use roundtable::engine::domains::creative::builtin;
    use roundtable::engine::model::demo::DemoModel;
    use roundtable::engine::run::{ModelRouter, RunCtx};
    use std::rc::Rc;
    let mut config = RunConfig::new("act", "", roundtable::engine::run::ModelSpec::demo());
    configure(&mut config, builtin::task(2, None, 4), Variant::Act);
    let clock = Rc::new(FakeClock::new());
    let ctx = RunCtx::new(
        config.clone(),
        ModelRouter::single(Rc::new(DemoModel::instant(clock.clone(), every_script))),
        clock,
    );
    futures::executor::block_on(roundtable::engine::coordinators::execute(&ctx));
    let doc = RunDoc::new(config, ctx.events());
    let link = share::encode(&doc).expect("encode");
    // Format 4 (deflate with ACT's own dictionary) was the shortest before.
    let v4 = share::encode_as(&doc, 4).expect("v4");
    assert!(link.starts_with("5."), "new links are format 5");
    assert!(
        link.len() * 10 < v4.len() * 7,
        "format 5: {} chars, format 4: {}",
        link.len(),
        v4.len()
    );
    println!(
        "ACT demo link: format 5 {} chars, format 4 {} ({:.3})",
        link.len(),
        v4.len(),
        link.len() as f64 / v4.len() as f64
    );
    assert_eq!(share::decode(&link).expect("decode"), doc);
}
