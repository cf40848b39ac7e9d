//! ACT+ (§4.1): the bank carries the team's stores to the next complex
//! task; parts go to the most similar agents; importances are re-scored.

use super::common::*;
use roundtable::engine::coordinators::act::contract::*;
use roundtable::engine::coordinators::act::plus::{Bank, BankData};
use roundtable::engine::domains::creative::ComplexTask;
use roundtable::engine::run::RunStatus;
use std::rc::Rc;

#[test]
fn m27_knowledge_carries_over_and_tasks_go_to_the_most_similar_agent() {
    let bank = Rc::new(Bank::lexical(BankData::empty("t")));
    let first = run_full(
        task(),
        Variant::ActPlus,
        model(|_| None),
        Some(bank.clone()),
        |_, _| {},
    );
    assert_eq!(first.status, RunStatus::Finished, "{:?}", first.failure());
    assert_eq!(bank.data.borrow().trials, 1);
    let stored: usize = bank
        .data
        .borrow()
        .agents
        .iter()
        .map(|a| a.store.knowledge.len())
        .sum();
    assert!(stored >= 16, "{stored}");
    // The bank survives its file format.
    let copy = BankData::from_json(&bank.data.borrow().to_json()).expect("bank file");
    assert_eq!(copy, *bank.data.borrow());

    // Trial 2: the parts reversed; each agent's expertise names its old
    // task's words, so the lexical embedder sends each part back to it.
    let mut next: ComplexTask = task();
    next.parts.reverse();
    for a in bank.data.borrow_mut().agents.iter_mut() {
        a.store.expertise = vec![a.initial.subject.clone()];
    }
    let old: Vec<(String, String)> = bank
        .data
        .borrow()
        .agents
        .iter()
        .map(|a| (a.id.clone(), a.initial.subject.clone()))
        .collect();
    let rescored = std::cell::Cell::new(0);
    let second = run_full(
        next.clone(),
        Variant::ActPlus,
        model(move |req| {
            (req.step.as_deref() == Some(STEP_RESCORE)).then(|| {
                rescored.set(rescored.get() + 1);
                let ids: Vec<String> = req
                    .last_user()
                    .unwrap_or_default()
                    .lines()
                    .filter_map(|l| {
                        l.strip_prefix('[')
                            .and_then(|l| l.split(']').next())
                            .map(str::to_string)
                    })
                    .collect();
                let scores: serde_json::Map<String, serde_json::Value> = ids
                    .into_iter()
                    .map(|id| (id, serde_json::json!(10)))
                    .collect();
                serde_json::json!({"scores": scores}).to_string()
            })
        }),
        Some(bank.clone()),
        |o, _| o.limits.c = 20,
    );
    assert_eq!(second.status, RunStatus::Finished, "{:?}", second.failure());
    let assignments = second.notes::<AssignmentRecord>(STORE_ASSIGNMENT);
    assert_eq!(assignments.len(), 4);
    for (_, a) in &assignments {
        let (_, old_subject) = old.iter().find(|(id, _)| *id == a.agent).expect("agent");
        assert_eq!(&next.parts[a.part].subject, old_subject, "{a:?}");
    }
    // Agents start with their old stores (no decompose of new agents), the
    // expertise is generated again, importances re-scored to 10.
    assert_eq!(second.asked(STEP_RESCORE).len(), 4);
    let view = <roundtable::engine::coordinators::act::view::ActView as roundtable::engine::views::Fold>::of(&second.events);
    let a1 = view.agent("a1").expect("a1");
    assert!(
        a1.knowledge
            .iter()
            .filter(|k| k.meeting == MEETING_TEAM)
            .count()
            >= 3 + 3
    );
    let first_team_opinion = second.asked(STEP_TEAM_OPINION);
    assert!(
        first_team_opinion
            .iter()
            .all(|(_, t)| t.contains("NOTE-BY")),
        "carried knowledge is used from the first meeting"
    );
    assert!(second
        .notes::<RetrievalRecord>(STORE_RETRIEVAL)
        .iter()
        .all(|(_, r)| r.ids.len() <= 20));
    assert_eq!(bank.data.borrow().trials, 2);
    // Plain ACT never reads a bank.
    let plain = run_full(
        task(),
        Variant::Act,
        model(|_| None),
        Some(bank.clone()),
        |_, _| {},
    );
    assert!(plain.notes::<AssignmentRecord>(STORE_ASSIGNMENT).is_empty());
    assert_eq!(bank.data.borrow().trials, 2);
}
