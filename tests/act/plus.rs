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
                let scores: Vec<serde_json::Value> = ids
                    .into_iter()
                    .map(|id| serde_json::json!({"id": id, "score": 10}))
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
    // Each re-scoring is held to its shape: one score per entry shown,
    // by the shown entries' ids; replies in that shape need no repair.
    for r in second
        .requests
        .iter()
        .filter(|r| r.step.as_deref() == Some(STEP_RESCORE))
    {
        let strict = r.params.schema.as_ref().expect("a shape").strict();
        let ids: Vec<String> = r
            .last_user()
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.strip_prefix('[')?.split(']').next().map(str::to_string))
            .collect();
        assert_eq!(strict["properties"]["scores"]["minItems"], ids.len());
        assert_eq!(strict["properties"]["scores"]["maxItems"], ids.len());
        assert_eq!(
            strict["properties"]["scores"]["items"]["properties"]["id"]["enum"],
            serde_json::json!(ids)
        );
    }
    assert!(
        rescores.iter().all(|(_, r)| r.note.is_none()),
        "{rescores:?}"
    );
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
    // No new team is generated in its place, and nothing is assigned.
    assert!(refused.asked(STEP_EXPERTISE).is_empty());
    assert!(refused
        .notes::<AssignmentRecord>(STORE_ASSIGNMENT)
        .is_empty());
    assert!(!refused.phases().contains(&PHASE_TEAM.to_string()));
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

/// A bank whose agents hold `extra` more entries each, of importance 10
/// (the rest of the bank scores lower), spread over trials 0–4 and both
/// meetings.
fn grown_bank(extra: u32) -> Rc<Bank> {
    let bank = Rc::new(Bank::lexical(BankData::empty("big")));
    let first = run_full(
        task(),
        Variant::ActPlus,
        model(|_| None),
        Some(bank.clone()),
        |_, _| {},
    );
    assert_eq!(first.status, RunStatus::Finished, "{:?}", first.failure());
    for a in bank.data.borrow_mut().agents.iter_mut() {
        let start = a.store.next_order();
        for n in 0..extra {
            let order = start + n;
            a.store.knowledge.push(Knowledge {
                id: format!("{}.k{order}", a.id),
                owner: a.id.clone(),
                source: "a9".into(),
                source_name: "Agent Z".into(),
                origin: String::new(),
                meeting: 1 + n % 2,
                trial: n % 5,
                summary: format!(
                    "BANKED-{n} is a long note. {}",
                    "It goes on about the practice in detail. ".repeat(15)
                ),
                keywords: vec!["banked".into(), "practice".into()],
                importance: 10,
                order,
                flags: vec![],
            });
        }
    }
    bank.data.borrow_mut().trials = 5;
    bank
}

#[test]
fn a_bank_of_thousands_is_rescored_with_a_bounded_prompt_latest_first() {
    use roundtable::engine::coordinators::act::plus::{RESCORE_ENTRIES, RESCORE_ENTRIES_CHARS};
    for extra in [10u32, 1_000, 10_000] {
        let bank = grown_bank(extra);
        let r = run_full(
            task(),
            Variant::ActPlus,
            model(|req| {
                (req.step.as_deref() == Some(STEP_RESCORE)).then(|| r#"{"scores": {}}"#.to_string())
            }),
            Some(bank.clone()),
            |_, _| {},
        );
        assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
        let asked = r.asked(STEP_RESCORE);
        assert_eq!(asked.len(), 4);
        let longest = asked
            .iter()
            .map(|(_, t)| t.chars().count())
            .max()
            .unwrap_or(0);
        println!("{extra} banked entries per agent: longest re-scoring prompt {longest} chars");
        // The bank's part is bounded; the rest (who the agent is, the
        // instruction) does not grow with the bank.
        assert!(
            longest <= RESCORE_ENTRIES_CHARS + 2_000,
            "{extra}: {longest}"
        );
        // Ties at 10: the latest trial (4), then meeting 2, are shown.
        let rescores = r.notes::<RescoreRecord>(STORE_RESCORE);
        assert_eq!(rescores.len(), 4);
        for (agent, rec) in &rescores {
            assert!(rec.held > extra as usize, "{agent}");
            assert_eq!(rec.scores.len(), rec.held.min(RESCORE_ENTRIES), "{agent}");
            let text = &asked.iter().find(|(a, _)| a == agent).expect("asked").1;
            let shown: Vec<&str> = section(text, H_ENTRIES)
                .unwrap_or("")
                .lines()
                .filter(|l| l.starts_with('['))
                .collect();
            assert_eq!(shown.len(), rec.scores.len(), "{agent}");
            // No top-c block besides: the entries are listed once.
            assert!(section(text, H_KNOWLEDGE).is_some_and(|k| !k.contains("- [")));
            if extra >= 1_000 {
                let a = bank.data.borrow();
                let store = &a
                    .agents
                    .iter()
                    .find(|x| &x.id == agent)
                    .expect("agent")
                    .store;
                for (id, _) in &rec.scores {
                    let k = store.knowledge.iter().find(|k| &k.id == id).expect("entry");
                    assert_eq!((k.trial, k.meeting), (4, 2), "{id}");
                }
            }
        }
        // The reply scored none: every entry keeps its score (flagged).
        assert!(rescores.iter().all(|(_, r)| r
            .note
            .as_deref()
            .is_some_and(|n| n.contains("keep their score"))));
        let kept = bank
            .data
            .borrow()
            .agents
            .iter()
            .flat_map(|a| a.store.knowledge.iter())
            .filter(|k| k.summary.starts_with("BANKED-"))
            .all(|k| k.importance == 10);
        assert!(kept);
    }
}

/// The ids shown in a re-scoring prompt, in order.
fn shown_ids(req: &roundtable::engine::model::ChatRequest) -> Vec<String> {
    req.last_user()
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix('[')?.split(']').next().map(str::to_string))
        .collect()
}

/// A model that re-scores every entry it is shown to `score`.
fn rescoring_to(score: u8) -> roundtable::engine::model::scripted::ScriptedModel {
    model(move |req| {
        (req.step.as_deref() == Some(STEP_RESCORE)).then(|| {
            let scores: Vec<serde_json::Value> = shown_ids(req)
                .into_iter()
                .map(|id| serde_json::json!({"id": id, "score": score}))
                .collect();
            serde_json::json!({ "scores": scores }).to_string()
        })
    })
}

#[test]
fn an_old_score_never_outranks_a_fresh_one_it_was_not_judged_against() {
    use roundtable::engine::coordinators::act::memory::top_c_order;
    use roundtable::engine::coordinators::act::plus::{RESCORE_BATCHES, RESCORE_ENTRIES};
    // Banks whose old scores are all high, re-scored low for the new task:
    // before batches, 40 were re-scored and the other old 10s took top-c.
    for (extra, rescored_to) in [(100u32, 3u8), (10_000, 1)] {
        let bank = grown_bank(extra);
        let c = 5;
        let r = run_full(
            task(),
            Variant::ActPlus,
            rescoring_to(rescored_to),
            Some(bank.clone()),
            |o, _| o.limits.c = c,
        );
        assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
        let asked: Vec<_> = r
            .requests
            .iter()
            .filter(|q| q.step.as_deref() == Some(STEP_RESCORE))
            .collect();
        assert!(asked.len() > 4, "{extra}: more than one batch each");
        assert!(
            asked.len() <= 4 * RESCORE_BATCHES,
            "{extra}: {}",
            asked.len()
        );
        // No entry is shown twice to the same agent.
        let records = r.notes::<RescoreRecord>(STORE_RESCORE);
        for agent in ["a1", "a2", "a3", "a4"] {
            let mine: Vec<&RescoreRecord> = records
                .iter()
                .filter(|(a, _)| a == agent)
                .map(|(_, r)| r)
                .collect();
            let mut shown: Vec<&String> = mine
                .iter()
                .flat_map(|r| r.scores.iter().map(|(id, _)| id))
                .collect();
            let n = shown.len();
            shown.sort();
            shown.dedup();
            assert_eq!(shown.len(), n, "{agent}: an entry shown twice");
            assert!(mine.iter().all(|r| r.scores.len() <= RESCORE_ENTRIES));
            let last = mine.last().expect("records");
            assert!(last.stopped.is_some(), "{last:?}");
            assert!(mine[..mine.len() - 1].iter().all(|r| r.stopped.is_none()));
            // Every top-c pick of the first meeting was judged for this
            // task: re-scored (to the new score) or learnt in it.
            let fresh: Vec<&String> = mine
                .iter()
                .flat_map(|r| r.scores.iter().map(|(id, _)| id))
                .collect();
            let first = r
                .notes::<RetrievalRecord>(STORE_RETRIEVAL)
                .into_iter()
                .find(|(a, _)| a == agent)
                .expect("a retrieval");
            for id in &first.1.ids {
                assert!(
                    fresh.contains(&id),
                    "{extra} {agent}: {id} kept an old score and was picked"
                );
            }
        }
        // In the bank the team leaves behind, no entry with an old score
        // ranks ahead of the c-th fresh one.
        let data = bank.data.borrow();
        for a in &data.agents {
            let fresh: Vec<&String> = records
                .iter()
                .filter(|(id, _)| *id == a.id)
                .flat_map(|(_, r)| r.scores.iter().map(|(id, _)| id))
                .collect();
            let mut judged: Vec<&roundtable::engine::coordinators::act::contract::Knowledge> = a
                .store
                .knowledge
                .iter()
                .filter(|k| fresh.contains(&&k.id) || k.trial == data.trials - 1)
                .collect();
            judged.sort_by(|x, y| top_c_order(x, y));
            let cth = judged[c - 1];
            for k in &a.store.knowledge {
                if !judged.iter().any(|j| j.id == k.id) {
                    assert_ne!(
                        top_c_order(k, cth),
                        std::cmp::Ordering::Less,
                        "{extra}: {} (old {}) outranks the c-th fresh {} ({})",
                        k.id,
                        k.importance,
                        cth.id,
                        cth.importance
                    );
                }
            }
        }
    }
}

#[test]
fn rescoring_stops_once_no_unseen_entry_could_enter_top_c() {
    // Re-scored to 10, above every old score: one batch is enough.
    let bank = grown_bank(1_000);
    let r = run_full(
        task(),
        Variant::ActPlus,
        rescoring_to(10),
        Some(bank),
        |_, _| {},
    );
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    assert_eq!(
        r.asked(STEP_RESCORE).len(),
        4,
        "no more than one batch each"
    );
    for (_, rec) in r.notes::<RescoreRecord>(STORE_RESCORE) {
        assert_eq!(
            rec.stopped.as_deref(),
            Some("no entry left unseen could enter top-c")
        );
        assert!(rec.lowered.is_empty());
    }
}
