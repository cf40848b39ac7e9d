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
    let second = run_full(
        next.clone(),
        Variant::ActPlus,
        model(move |req| {
            (req.step.as_deref() == Some(STEP_RESCORE)).then(|| {
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
        |o, _| o.limits.c = 3,
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
    // Each prompt gets the c best: here 3 of the more it holds.
    let retrievals = second.notes::<RetrievalRecord>(STORE_RETRIEVAL);
    assert!(retrievals.iter().all(|(_, r)| r.ids.len() <= 3));
    assert!(retrievals
        .iter()
        .any(|(_, r)| r.ids.len() == 3 && r.held > 3));
    // Re-scored for the new task: every carried entry now has 10.
    let rescores = second.notes::<RescoreRecord>(STORE_RESCORE);
    assert_eq!(rescores.len(), 4);
    assert!(rescores
        .iter()
        .all(|(_, r)| !r.scores.is_empty() && r.scores.iter().all(|(_, s)| *s == 10)));
    let carried: Vec<&Knowledge> = a1
        .knowledge
        .iter()
        .filter(|k| k.meeting == MEETING_TEAM)
        .collect();
    assert!(carried.iter().filter(|k| k.importance == 10).count() >= 3);
    // Carried episodes come with the knowledge; the new experts have new ids.
    assert!(!a1.episodes.is_empty());
    assert!(
        view.experts().all(|e| e.id.ends_with(".x1")),
        "trial 2's experts"
    );
    assert!(a1
        .knowledge
        .iter()
        .any(|k| k.source.ends_with(".x0") && k.source_name.starts_with("Expert on")));
    assert_eq!(bank.data.borrow().trials, 2);
    // A task with another number of parts never overwrites the bank.
    let mut three = task();
    three.parts.truncate(3);
    let before = bank.data.borrow().clone();
    let refused = run_full(
        three,
        Variant::ActPlus,
        model(|_| None),
        Some(bank.clone()),
        |_, _| {},
    );
    assert_eq!(refused.status, RunStatus::Failed);
    assert!(refused
        .failure()
        .unwrap_or_default()
        .contains("holds a team of 4 agents; this task has 3 parts"));
    assert_eq!(*bank.data.borrow(), before);
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
