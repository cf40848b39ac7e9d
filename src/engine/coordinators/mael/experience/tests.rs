//! The pool: ranking and its ties, traces, merging, the file format.

use super::*;

fn exp(id: &str, agent: &str, step: StepKind, task: &str, reward: f64, depth: u32) -> Experience {
    Experience {
        id: id.into(),
        agent: agent.into(),
        step,
        task_id: task.into(),
        input: format!("input {id}"),
        output: format!("output {id}"),
        reward,
        dataset: "test".into(),
        depth,
    }
}

fn unit(angle: f64) -> Vec<f32> {
    vec![angle.cos() as f32, angle.sin() as f32]
}

fn pool() -> Pool {
    let mut p = Pool::new(EmbedderId {
        id: "t".into(),
        dims: 2,
    });
    // Query is angle 0: similarities cos(θ).
    let rows = [
        ("e0", 0.0, 0.2), // sim 1.0, low reward
        ("e1", 1.0, 0.9), // sim 0.54, high reward
        ("e2", 0.5, 0.6), // sim 0.88
        ("e3", 1.0, 0.9), // a tie with e1 in every way: later
        ("e4", 3.0, 1.0), // sim -0.99, best reward
    ];
    for (id, angle, reward) in rows {
        p.push(exp(id, "a1", StepKind::Solve, "t1", reward, 1), unit(angle))
            .expect("push");
    }
    p.push(exp("other", "a2", StepKind::Solve, "t1", 1.0, 1), unit(0.0))
        .expect("push");
    p
}

fn ids(hits: &[Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.id.as_str()).collect()
}

fn scoring(alpha: f64, reward: Polarity, similarity: Polarity) -> Scoring {
    Scoring {
        alpha,
        reward,
        similarity,
    }
}

#[test]
fn scores_weigh_similarity_against_reward_with_documented_ties() {
    let p = pool();
    let q = unit(0.0);
    let mine = |e: &Experience| e.agent == "a1" && e.step == StepKind::Solve;
    // α = 1: similarity only.
    let h = p.rank(&q, &scoring(1.0, Polarity::High, Polarity::High), 5, mine);
    assert_eq!(ids(&h), ["e0", "e2", "e1", "e3", "e4"]);
    // α = 0: reward only; e1 and e3 tie on score and reward: the earlier first.
    let h = p.rank(&q, &scoring(0.0, Polarity::High, Polarity::High), 5, mine);
    assert_eq!(ids(&h), ["e4", "e1", "e3", "e2", "e0"]);
    // α = 0.5 (the paper's): 0.5·cos + 0.5·r.
    let h = p.rank(&q, &scoring(0.5, Polarity::High, Polarity::High), 2, mine);
    assert_eq!(ids(&h), ["e2", "e1"]);
    let want = 0.5 * (0.5f64).cos() + 0.5 * 0.6;
    assert!((h[0].score - want).abs() < 1e-6, "{}", h[0].score);
    assert!((h[0].similarity - (0.5f64).cos()).abs() < 1e-6);
    // Table 4's variants: low reward (1 − r), low similarity (1 − cos).
    let h = p.rank(&q, &scoring(0.0, Polarity::Low, Polarity::High), 1, mine);
    assert_eq!(ids(&h), ["e0"]);
    let h = p.rank(&q, &scoring(1.0, Polarity::High, Polarity::Low), 1, mine);
    assert_eq!(ids(&h), ["e4"]);
    // Only the acting agent's entries of the step kind are candidates.
    assert!(p
        .rank(&q, &scoring(0.5, Polarity::High, Polarity::High), 9, mine)
        .iter()
        .all(|h| h.id != "other"));
    assert!(p
        .rank(&q, &scoring(0.5, Polarity::High, Polarity::High), 3, |e| e
            .step
            == StepKind::Judge)
        .is_empty());
}

#[test]
fn traces_are_scored_by_their_root_input_and_final_reward() {
    let mut p = Pool::new(EmbedderId {
        id: "t".into(),
        dims: 2,
    });
    for (task, angle, fin) in [
        ("near-bad", 0.1, 0.0),
        ("far-good", 1.2, 1.0),
        ("near-good", 0.2, 1.0),
    ] {
        p.push(
            exp(&format!("{task}/j"), "a1", StepKind::Judge, task, 0.5, 0),
            unit(angle),
        )
        .expect("push");
        p.push(
            exp(&format!("{task}/s"), "a2", StepKind::Solve, task, 0.7, 1),
            unit(2.0),
        )
        .expect("push");
        p.push(
            exp(
                &format!("{task}/a"),
                "a1",
                StepKind::Aggregate,
                task,
                fin,
                0,
            ),
            unit(2.5),
        )
        .expect("push");
    }
    let traces = p.traces();
    assert_eq!(traces.len(), 3);
    assert_eq!(traces[1].final_reward, Some(1.0));
    assert_eq!(traces[1].steps, 3);
    let (t, hit) = p
        .best_trace(&unit(0.0), &scoring(0.5, Polarity::High, Polarity::High))
        .expect("a trace");
    assert_eq!(t.task_id, "near-good");
    assert!((hit.similarity - (0.2f64).cos()).abs() < 1e-6);
}

#[test]
fn files_round_trip_and_bad_ones_are_refused_whole() {
    let mut p = pool();
    let task = crate::engine::domains::tasks::builtin::tasks(
        crate::engine::domains::tasks::builtin::Split::Train,
    )
    .remove(0);
    p.note_learned(&task);
    p.note_learned(&task);
    let text = p.to_json();
    let back = Pool::from_json(&text).expect("round trip");
    assert_eq!(back.entries, p.entries);
    assert_eq!(back.learned.len(), 1, "a task is noted once");
    assert_eq!(back.learned, p.learned);
    assert!(back.has_learned(&task));
    // A file from before the learned tasks were kept still reads.
    let mut old: serde_json::Value = serde_json::from_str(&text).expect("json");
    old.as_object_mut().map(|o| o.remove("tasks"));
    assert!(Pool::from_json(&old.to_string())
        .expect("old file")
        .learned
        .is_empty());
    assert_eq!(back.packed().len(), p.packed().len());
    for (a, b) in back.packed().iter().zip(p.packed()) {
        assert!((a - b).abs() < 1e-6);
    }
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    type Break = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(Break, &str)> = vec![
        (Box::new(|v| v["format"] = "other".into()), "format"),
        (Box::new(|v| v["version"] = 9.into()), "newer"),
        (
            Box::new(|v| v["experiences"][2]["reward"] = 1.5.into()),
            "experience 3 has the reward 1.5",
        ),
        (
            Box::new(|v| v["experiences"][1]["embedding"] = serde_json::json!([1.0])),
            "experience 2",
        ),
        (
            Box::new(|v| v["experiences"][0]["step"] = "dance".into()),
            "experience 1 is not valid",
        ),
        (
            Box::new(|v| v["experiences"][4]["id"] = "e0".into()),
            "repeats the id e0",
        ),
        (
            Box::new(|v| v["experiences"][3]["embedding"] = serde_json::json!([null, 1.0])),
            "experience 4",
        ),
    ];
    for (break_it, why) in cases {
        let mut broken = v.clone();
        break_it(&mut broken);
        let err = Pool::from_json(&broken.to_string()).expect_err(why);
        assert!(
            err.user_message().contains(why),
            "{why}: {}",
            err.user_message()
        );
        assert!(err.user_message().contains("Nothing was stored"));
    }
    assert!(Pool::from_json("not json").is_err());
    v["embedder"]["dims"] = 0.into();
    assert!(Pool::from_json(&v.to_string()).is_err());
}

#[test]
fn merging_adds_new_ids_and_refuses_other_embedders() {
    let mut a = pool();
    let mut b = Pool::new(a.embedder.clone());
    b.push(
        exp("new", "a3", StepKind::Critique, "t2", 0.4, 1),
        unit(1.0),
    )
    .expect("push");
    b.push(exp("e0", "a1", StepKind::Solve, "t1", 0.2, 1), unit(0.0))
        .expect("push");
    let task = crate::engine::domains::tasks::builtin::tasks(
        crate::engine::domains::tasks::builtin::Split::Train,
    )
    .remove(1);
    b.note_learned(&task);
    assert_eq!(a.merge(&b), Ok(1));
    assert_eq!(a.len(), 7);
    assert!(a.has_learned(&task), "the learned tasks are merged too");
    let c = Pool::new(EmbedderId {
        id: "other".into(),
        dims: 2,
    });
    let err = a.merge(&c).expect_err("another embedder");
    assert!(err.user_message().contains("Re-embed"));
}
