//! The mechanism tests of ACT_NOTES §8 for agent generation, the team
//! meeting, task exploration, knowledge acquisition and top-c retrieval
//! (1–17; numbers in the test names), on the scripted team with the steps
//! under test overridden. Break time, production and evaluation are in
//! `rounds.rs`.

use super::common::*;
use roundtable::engine::coordinators::act::contract::*;
use roundtable::engine::run::RunStatus;

#[test]
fn m01_02_03_expertise_is_capped_fixed_and_always_given() {
    let r = run(
        Variant::Act,
        model(|req| {
            (req.step.as_deref() == Some(STEP_EXPERTISE))
                .then(|| r#"{"expertise": ["e1", "e2", "e3", "e4", "e5", "e6", "e7"]}"#.to_string())
        }),
    );
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    let expertise = r.notes::<ExpertiseRecord>(STORE_EXPERTISE);
    // 4 members + 4 experts, each with at most N_k = 4.
    assert_eq!(expertise.len(), 8);
    assert!(expertise
        .iter()
        .all(|(_, e)| e.keywords == ["e1", "e2", "e3", "e4"]));
    assert!(expertise[0]
        .1
        .flags
        .iter()
        .any(|f| f.contains("7 keywords cut to 4")));
    // (2) every later knowledge block holds the expertise, even with c = 0.
    let r0 = run_with(Variant::Act, model(|_| None), |o, _| o.limits.c = 0);
    for step in [
        STEP_TEAM_ADVICE,
        STEP_EXPLORE,
        STEP_PROD_OPINION,
        STEP_DRAFT,
    ] {
        for (agent, text) in r0.asked(step) {
            let block = section(&text, H_KNOWLEDGE).unwrap_or("");
            assert!(
                block.starts_with(&format!("Expertise: Agent {},", member_letter(&agent))),
                "{step} {agent}: {block}"
            );
            assert!(!block.contains("NOTE-BY"), "c = 0 gives no entry");
        }
    }
    // (3) first team-meeting requests hold no acquired knowledge.
    for (_, text) in r0.asked(STEP_TEAM_OPINION) {
        assert!(text.contains("(no acquired knowledge yet)"));
    }
}

#[test]
fn m04_05_06_07_one_fusion_by_the_seeded_leader_with_every_task_and_opinion() {
    let run_seed = |seed: u64| run_with(Variant::Act, model(|_| None), |_, c| c.seed = seed);
    let r = run_seed(7);
    let fuse = r.asked(STEP_FUSE);
    assert_eq!(fuse.len(), 1, "exactly one fusion");
    let leader = r.notes::<LeaderRecord>(STORE_LEADER)[0].1.leader.clone();
    assert_eq!(fuse[0].0, leader);
    for detail in [
        "DETAIL-ONE",
        "DETAIL-TWO",
        "DETAIL-THREE",
        "DETAIL-FOUR",
        "Pick the teas",
        "Set the prices",
    ] {
        assert!(fuse[0].1.contains(detail), "{detail}");
    }
    // (5) a member; the same seed, the same leader; it drafts.
    assert!(leader.starts_with('a'));
    assert_eq!(
        run_seed(7).notes::<LeaderRecord>(STORE_LEADER)[0].1.leader,
        leader
    );
    let leaders: std::collections::HashSet<String> = (0..12)
        .map(|s| {
            run_seed(s).notes::<LeaderRecord>(STORE_LEADER)[0]
                .1
                .leader
                .clone()
        })
        .collect();
    assert!(leaders.len() > 1, "the seed picks the leader");
    assert!(r.asked(STEP_DRAFT).iter().all(|(a, _)| *a == leader));
    // (6) advice sees all opinions; an opinion sees no other opinion.
    for (_, text) in r.asked(STEP_TEAM_ADVICE) {
        // Advice refines G (here still G₀, every task side by side).
        let g = section(&text, H_TEAM_TASK).unwrap_or("");
        assert!(
            g.contains("Pick the teas") && g.contains("Plan the events"),
            "{g}"
        );
        for n in ["A", "B", "C", "D"] {
            assert!(text.contains(&format!("OPINION of Agent {n}.")));
        }
    }
    for (_, text) in r.asked(STEP_TEAM_OPINION) {
        assert!(!text.contains("OPINION of"));
    }
    // (7) after the meeting, G is the fused one.
    for step in [STEP_EXPLORE, STEP_PROD_OPINION] {
        for (_, text) in r.asked(step) {
            assert!(
                section(&text, H_TEAM_TASK)
                    .unwrap_or("")
                    .starts_with("FUSED-G"),
                "{step}"
            );
        }
    }
    for (_, text) in r.asked(STEP_TEAM_OPINION) {
        assert!(!text.contains("FUSED-G"));
    }
}

#[test]
fn m08_09_10_exploration_rewrites_the_subject_only() {
    let r = run(Variant::Act, model(|_| None));
    let explore = r.asked(STEP_EXPLORE);
    // 4 after the team meeting, 4 after break time.
    assert_eq!(explore.len(), 8);
    let first = explore
        .iter()
        .find(|(a, _)| a == "a1")
        .map(|(_, t)| t.clone())
        .unwrap_or_default();
    assert!(first.contains("Pick the teas") && first.contains("DETAIL-ONE"));
    assert!(section(&first, H_TRANSCRIPT)
        .unwrap_or("")
        .contains("OPINION of Agent B"));
    assert!(section(&first, H_TEAM_TASK)
        .unwrap_or("")
        .contains("FUSED-G"));
    let tasks = r.notes::<TaskRecord>(STORE_TASK);
    for id in ["a1", "a2", "a3", "a4"] {
        let mine: Vec<&TaskRecord> = tasks
            .iter()
            .filter(|(a, _)| a == id)
            .map(|(_, t)| t)
            .collect();
        assert_eq!(
            mine.iter().map(|t| t.stage.as_str()).collect::<Vec<_>>(),
            ["initial", "after_team_meeting", "after_break_time"],
            "(9) three task states"
        );
        assert!(mine[1].subject.starts_with("EXPLORED by"));
        assert!(
            mine.iter().all(|t| t.details == mine[0].details),
            "details never change"
        );
    }
    // The initial task stays in every later prompt.
    for (agent, text) in r.asked(STEP_PROD_OPINION) {
        let initial = section(&text, H_INITIAL).unwrap_or("");
        assert!(!initial.contains("EXPLORED"), "{agent}");
        assert!(section(&text, H_CURRENT).unwrap_or("").contains("EXPLORED"));
    }
    // (10) − task exploration.
    let r = run(Variant::NoTaskExploration, model(|_| None));
    assert!(r.asked(STEP_EXPLORE).is_empty());
    for (_, text) in r.asked(STEP_PROD_OPINION) {
        let current = section(&text, H_CURRENT).unwrap_or("");
        assert!([
            "Pick the teas",
            "Plan the room",
            "Set the prices",
            "Plan the events"
        ]
        .contains(&current));
    }
}

#[test]
fn m11_12_13_acquisition_is_capped_repaired_and_never_about_oneself() {
    let long: String = (0..60).map(|i| format!("w{i} ")).collect();
    let r = run(
        Variant::Act,
        model(move |req| {
            if req.step.as_deref() != Some(STEP_ACQUIRE) {
                return None;
            }
            let me = name_of(req);
            let other = if me == "Agent A" {
                "Agent B"
            } else {
                "agent a"
            };
            let mut episodes = vec![serde_json::json!({"subject": me, "text": "about myself"})];
            for _ in 0..6 {
                episodes.push(serde_json::json!({"subject": other, "text": long}));
            }
            let mut knowledge = vec![
                serde_json::json!({"subject": me, "summary": "SELF is me.", "keywords": ["a", "b"], "importance": 9}),
            ];
            for (i, imp) in [
                serde_json::json!("12"),
                serde_json::json!(11.6),
                serde_json::json!("-3"),
                serde_json::json!(4),
                serde_json::json!(2),
                serde_json::json!(1),
            ]
            .into_iter()
            .enumerate()
            {
                knowledge.push(serde_json::json!({"subject": other, "summary": format!("E{i} is a thing."), "keywords": "k1, k2, k3, k4, k5", "importance": imp}));
            }
            knowledge.push(serde_json::json!({"subject": "Nobody", "summary": "X is y.", "keywords": ["a", "b"]}));
            Some(serde_json::json!({"episodes": episodes, "knowledge": knowledge}).to_string())
        }),
    );
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    let knowledge = r.notes::<Knowledge>(STORE_KNOWLEDGE);
    let episodes = r.notes::<Episode>(STORE_EPISODE);
    assert!(!knowledge.is_empty() && !episodes.is_empty());
    // (11) nothing about the owner itself.
    assert!(knowledge
        .iter()
        .all(|(_, k)| k.source != k.owner && k.summary != "SELF is me."));
    assert!(episodes.iter().all(|(_, e)| e.about != e.owner));
    // (12) per (owner, speaker, meeting): ≤ 4 episodes of ≤ 40 words; ≤ 4 entries of ≤ 4 keywords.
    let mut counts: std::collections::HashMap<(String, String, u32), (usize, usize)> =
        Default::default();
    for (_, e) in &episodes {
        assert!(e.text.split_whitespace().count() <= 40);
        assert!(e.flags.iter().any(|f| f.contains("cut to 40 words")));
        counts
            .entry((e.owner.clone(), e.about.clone(), e.meeting))
            .or_default()
            .0 += 1;
    }
    for (_, k) in &knowledge {
        assert!(k.keywords.len() <= 4);
        counts
            .entry((k.owner.clone(), k.source.clone(), k.meeting))
            .or_default()
            .1 += 1;
    }
    assert!(
        counts.values().all(|&(e, k)| e <= 4 && k <= 4),
        "{counts:?}"
    );
    assert!(counts.values().any(|&(e, k)| e == 4 && k == 4));
    // (13) "12", 11.6, "-3" → 10, 10, 0 (the top 4 of 6 kept: 10, 10, 4, 2);
    // entries carry owner, source and meeting.
    let a2: Vec<&Knowledge> = knowledge
        .iter()
        .map(|(_, k)| k)
        .filter(|k| k.owner == "a2" && k.meeting == MEETING_TEAM)
        .collect();
    let mut scores: Vec<u8> = a2.iter().map(|k| k.importance).collect();
    scores.sort();
    assert_eq!(scores, [2, 4, 10, 10]);
    assert!(a2.iter().all(|k| k.source == "a1"));
    let clamped = a2.iter().find(|k| k.summary == "E2 is a thing.");
    assert!(
        clamped.is_none(),
        "\"-3\" → 0 is among the least important, dropped by the cap"
    );
    let flags: Vec<String> = r
        .notes::<AcquisitionRecord>(STORE_ACQUISITION)
        .into_iter()
        .flat_map(|(_, a)| a.flags)
        .collect();
    assert!(flags.iter().any(|f| f.contains("about the agent itself")));
    assert!(flags
        .iter()
        .any(|f| f.contains("unknown speaker \"Nobody\"")));
}

#[test]
fn m14_stores_are_private_and_expert_knowledge_names_the_expert() {
    let r = run(Variant::Act, model(|_| None));
    for (agent, text) in r
        .requests
        .iter()
        .filter_map(|q| Some((name_of(q), q.last_user()?.to_string())))
    {
        for other in ["Agent A", "Agent B", "Agent C", "Agent D"] {
            if other != agent {
                assert!(
                    !text.contains(&format!("NOTE-BY-{other} ")),
                    "{agent} saw {other}'s notes"
                );
            }
        }
    }
    let from_experts: Vec<Knowledge> = r
        .notes::<Knowledge>(STORE_KNOWLEDGE)
        .into_iter()
        .map(|(_, k)| k)
        .filter(|k| k.meeting == MEETING_BREAK)
        .collect();
    assert_eq!(from_experts.len(), 4);
    let breaks = r.notes::<BreakRecord>(STORE_BREAK);
    for k in from_experts {
        let own = breaks
            .iter()
            .find(|(_, b)| b.member == k.owner)
            .map(|(_, b)| b.expert.clone());
        assert_eq!(
            Some(k.source.clone()),
            own,
            "source = the member's own expert"
        );
        assert!(
            k.source_name.starts_with("Expert on DEEPEN-"),
            "the expert's name is kept with the entry"
        );
    }
}

#[test]
fn m15_16_17_top_c_is_by_importance_with_ties_newer_first_or_by_recency() {
    // Each acquisition scores its entries 1…: with c = 3 the prompt gets the 3 best.
    let imp = |req: &roundtable::engine::model::ChatRequest| {
        (req.step.as_deref() == Some(STEP_ACQUIRE)).then(|| {
            let speakers = section(req.last_user().unwrap_or_default(), H_SPEAKERS).unwrap_or("").to_string();
            let knowledge: Vec<_> = speakers
                .split(", ")
                .enumerate()
                .map(|(i, s)| serde_json::json!({"subject": s, "summary": format!("S{i} is x."), "keywords": ["a", "b"], "importance": 9 - i}))
                .collect();
            serde_json::json!({"episodes": [], "knowledge": knowledge}).to_string()
        })
    };
    let r = run_with(Variant::Act, model(imp), |o, _| o.limits.c = 3);
    let retrievals = r.notes::<RetrievalRecord>(STORE_RETRIEVAL);
    let view = <roundtable::engine::coordinators::act::view::ActView as roundtable::engine::views::Fold>::of(&r.events);
    let prod: Vec<&RetrievalRecord> = retrievals
        .iter()
        .filter(|(a, x)| a == "a1" && x.step == STEP_PROD_OPINION)
        .map(|(_, x)| x)
        .collect();
    assert_eq!(prod.len(), 1);
    let held = &view.agent("a1").expect("a1").knowledge;
    assert_eq!(prod[0].held, held.len());
    assert!(held.len() > 3);
    let chosen: Vec<&Knowledge> = prod[0]
        .ids
        .iter()
        .filter_map(|id| held.iter().find(|k| &k.id == id))
        .collect();
    assert_eq!(chosen.len(), 3, "(15) c entries");
    let min = chosen.iter().map(|k| k.importance).min().unwrap_or(0);
    assert!(held
        .iter()
        .filter(|k| !prod[0].ids.contains(&k.id))
        .all(|k| k.importance <= min));
    // (16) ties: importance 9 from the team meeting and from break time → the newer first.
    assert_eq!(chosen[0].importance, 9);
    assert_eq!(chosen[0].meeting, MEETING_BREAK, "{chosen:?}");
    // The ids match the block the prompt showed.
    let (_, text) = r
        .asked(STEP_PROD_OPINION)
        .into_iter()
        .find(|(a, _)| a == "a1")
        .expect("a1");
    for id in &prod[0].ids {
        assert!(text.contains(&format!("[{id}]")));
    }
    let again = run_with(Variant::Act, model(imp), |o, _| o.limits.c = 3);
    assert_eq!(
        again.notes::<RetrievalRecord>(STORE_RETRIEVAL),
        retrievals,
        "deterministic"
    );
    // (17) − importance: the most recent, whatever the score.
    let r = run_with(Variant::NoImportance, model(imp), |o, _| o.limits.c = 3);
    let view = <roundtable::engine::coordinators::act::view::ActView as roundtable::engine::views::Fold>::of(&r.events);
    let rec = r
        .notes::<RetrievalRecord>(STORE_RETRIEVAL)
        .into_iter()
        .find(|(a, x)| a == "a1" && x.step == STEP_PROD_OPINION)
        .map(|(_, x)| x)
        .expect("retrieval");
    assert_eq!(rec.by, "recency");
    let held = &view.agent("a1").expect("a1").knowledge;
    let newest = held.iter().map(|k| k.order).max().unwrap_or(0);
    let chosen: Vec<u32> = rec
        .ids
        .iter()
        .filter_map(|id| held.iter().find(|k| &k.id == id))
        .map(|k| k.order)
        .collect();
    assert_eq!(chosen, [newest, newest - 1, newest - 2]);
}

/// "A" for a1, "B" for a2, …
fn member_letter(id: &str) -> char {
    let n: u8 = id[1..].parse().unwrap_or(1);
    (b'A' + n - 1) as char
}
