//! The backward pass and the retrieval modes, and the paper's effect on the
//! built-in set with the demo model: after a learning phase, step-wise
//! retrieval beats no experience.

use crate::common::*;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::coordinators::mael::experience::{Experience, Pool};
use roundtable::engine::coordinators::mael::memory::{reembed, Memory, REEMBED_BATCH};
use roundtable::engine::domains::tasks::builtin::{tasks, Split};
use roundtable::engine::model::embed::{dot, Embedder, EmbedderId, LexicalEmbedder};
use roundtable::engine::run::{CancelToken, RunEvent, RunStatus};
use roundtable::engine::views::Fold;
use std::rc::Rc;

/// A learning phase over the first `n` training tasks (no retrieval).
fn learned(n: usize) -> Rc<Memory> {
    let memory = Rc::new(Memory::lexical("test"));
    for t in tasks(Split::Train).iter().take(n) {
        let (status, _) = run(t, Mode::None, Some(memory.clone()));
        assert_eq!(status, RunStatus::Finished);
    }
    memory
}

fn decision_requests(events: &[roundtable::engine::run::LoggedEvent]) -> usize {
    requests(events)
        .iter()
        .filter(|(_, s)| StepKind::ALL.iter().any(|k| k.tag() == s))
        .count()
}

#[test]
fn the_backward_pass_rewards_every_step_and_fills_the_pool() {
    let memory = Rc::new(Memory::lexical("test"));
    let task = &tasks(Split::Train)[0];
    let (_, events) = run(task, Mode::None, Some(memory.clone()));
    let exps: Vec<Experience> = notes(&events, STORE_EXPERIENCE);
    assert_eq!(
        exps.len(),
        decision_requests(&events),
        "one experience per decision step"
    );
    assert_eq!(memory.pool.borrow().len(), exps.len());
    assert_eq!(result(&events).learned, exps.len());
    let ratings: Vec<RatingRecord> = notes(&events, STORE_RATING);
    let rating = |task: &str, v: u32| {
        ratings
            .iter()
            .find(|r| r.task == task && r.version == v)
            .and_then(|r| r.score)
            .unwrap_or_else(|| panic!("no rating of {task} v{v}"))
    };
    let solutions: Vec<SolutionRecord> = notes(&events, STORE_SOLUTION);
    let critiques: Vec<CritiqueRecord> = notes(&events, STORE_CRITIQUE);
    // The root's answer is scored by the metric; sub-solutions by the evaluator.
    let root = ratings
        .iter()
        .find(|r| r.task == "t0")
        .expect("root rating");
    assert_eq!(
        (root.by.as_str(), root.score),
        ("metric", Some(result(&events).score))
    );
    assert!(ratings
        .iter()
        .filter(|r| r.task != "t0")
        .all(|r| r.by == "evaluator"));
    // Rewards arrive as score events after the forward pass.
    let backward = events
        .iter()
        .position(
            |e| matches!(&e.event, RunEvent::PhaseStarted { phase, .. } if phase == "backward"),
        )
        .expect("backward phase");
    let rewards: Vec<f64> = events[backward..]
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::ScoreComputed { name, value, .. } if name == "reward" => Some(*value),
            _ => None,
        })
        .collect();
    assert_eq!(rewards, exps.iter().map(|e| e.reward).collect::<Vec<_>>());
    // Solve and aggregate: R of what they wrote, in writing order.
    let written: Vec<f64> = solutions
        .iter()
        .map(|s| rating(&s.task, s.version))
        .collect();
    let rewarded: Vec<f64> = exps
        .iter()
        .filter(|e| matches!(e.step, StepKind::Solve | StepKind::Aggregate))
        .map(|e| e.reward)
        .collect();
    assert_eq!(rewarded, written);
    // Critique: R of the approved solution when adequate, (Δ + 1)/2
    // after a refinement.
    let crit: Vec<&Experience> = exps
        .iter()
        .filter(|e| e.step == StepKind::Critique)
        .collect();
    assert_eq!(crit.len(), critiques.len());
    for (e, c) in crit.iter().zip(&critiques) {
        let want = if c.adequate {
            rating(&c.task, c.version)
        } else {
            (rating(&c.task, c.version + 1) - rating(&c.task, c.version) + 1.0) / 2.0
        };
        assert!((e.reward - want).abs() < 1e-12, "{c:?}");
    }
    // Decompose: the mean of the subtasks' final R.
    let subs: Vec<&str> = ["t0.1", "t0.2", "t0.3"]
        .into_iter()
        .filter(|t| solutions.iter().any(|s| s.task == *t))
        .collect();
    let mean = subs
        .iter()
        .map(|t| {
            let last = solutions
                .iter()
                .filter(|s| s.task == *t)
                .map(|s| s.version)
                .max()
                .expect("v");
            rating(t, last)
        })
        .sum::<f64>()
        / subs.len() as f64;
    let dec = exps
        .iter()
        .find(|e| e.step == StepKind::Decompose)
        .expect("decompose");
    assert!((dec.reward - mean).abs() < 1e-12);
    let judge = exps
        .iter()
        .find(|e| e.step == StepKind::Judge)
        .expect("judge");
    assert!(
        (judge.reward - mean).abs() < 1e-12,
        "the root split: judge = mean of subtasks"
    );
    // Experiences store the input without any example, and their agents' ids.
    assert!(exps
        .iter()
        .all(|e| !e.input.contains(EXAMPLE_HEADING) && e.agent.starts_with('a')));
    assert!(exps
        .iter()
        .all(|e| e.task_id == exps[0].task_id && e.task_id.starts_with(&task.id)));
}

#[test]
fn no_experience_mode_never_reads_the_pool() {
    let memory = learned(4);
    assert!(memory.pool.borrow().len() > 20);
    let (_, events) = run_with(
        &tasks(Split::Test)[0],
        Mode::None,
        Some(memory.clone()),
        demo(),
        |o| o.learn = false,
    );
    assert_eq!(memory.reads(), 0);
    assert!(notes::<RetrievalRecord>(&events, STORE_RETRIEVAL).is_empty());
    let prompts_with_examples = events.iter().filter(|e| match &e.event {
        RunEvent::LlmRequest { request, .. } => request
            .last_user()
            .is_some_and(|u| u.contains(EXAMPLE_HEADING)),
        _ => false,
    });
    assert_eq!(prompts_with_examples.count(), 0);
}

#[test]
fn step_mode_retrieves_the_agents_own_entries_of_the_step_kind_at_every_step() {
    let memory = learned(6);
    let (_, events) = run_with(
        &tasks(Split::Test)[1],
        Mode::Step,
        Some(memory.clone()),
        demo(),
        |o| o.learn = false,
    );
    let retrievals: Vec<RetrievalRecord> = notes(&events, STORE_RETRIEVAL);
    assert_eq!(
        retrievals.len(),
        decision_requests(&events),
        "one retrieval per decision step"
    );
    let pool = memory.pool.borrow();
    let retrieving_agents: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::NoteWritten { agent, store, .. } if store == STORE_RETRIEVAL => {
                Some(agent.clone())
            }
            _ => None,
        })
        .collect();
    for (r, agent) in retrievals.iter().zip(&retrieving_agents) {
        assert_eq!(r.mode, Mode::Step);
        assert!(r.hits.first().is_some_and(|h| h.used));
        assert!(r.hits.windows(2).all(|w| w[0].score >= w[1].score));
        for h in &r.hits {
            let e = pool
                .entries
                .iter()
                .find(|e| e.id == h.id)
                .expect("a pool entry");
            assert_eq!((&e.agent, e.step), (agent, r.step), "{}", h.id);
            assert!((h.score - (0.5 * h.similarity + 0.5 * h.reward)).abs() < 1e-9);
        }
    }
    // The used example is in the request that follows it.
    let with_examples = events.iter().filter(|e| match &e.event {
        RunEvent::LlmRequest { request, .. } => request
            .last_user()
            .is_some_and(|u| u.contains(EXAMPLE_HEADING)),
        _ => false,
    });
    assert_eq!(with_examples.count(), retrievals.len());
    assert!(memory.reads() >= retrievals.len());
}

#[test]
fn task_mode_follows_one_past_trace_for_every_step() {
    let memory = learned(6);
    let (_, events) = run_with(
        &tasks(Split::Test)[2],
        Mode::Task,
        Some(memory.clone()),
        demo(),
        |o| o.learn = false,
    );
    let retrievals: Vec<RetrievalRecord> = notes(&events, STORE_RETRIEVAL);
    assert!(retrievals.len() > 2);
    let trace = retrievals[0].trace.clone().expect("a trace");
    assert_eq!(
        retrievals[0].candidates, 6,
        "chosen among the six past tasks"
    );
    let pool = memory.pool.borrow();
    for r in &retrievals {
        assert_eq!(r.trace.as_deref(), Some(trace.as_str()));
        for h in r.hits.iter().skip(usize::from(r.hits[0].id == trace)) {
            let e = pool.entries.iter().find(|e| e.id == h.id).expect("entry");
            assert_eq!(e.task_id, trace, "every example comes from the one trace");
        }
    }
}

#[test]
fn a_pool_of_another_embedder_is_refused_with_a_way_out() {
    let mut pool = Pool::new(EmbedderId {
        id: "openai:text-embedding-3-small".into(),
        dims: 2,
    });
    pool.push(
        Experience {
            id: "x".into(),
            agent: "a1".into(),
            step: StepKind::Solve,
            task_id: "t".into(),
            input: "i".into(),
            output: "o".into(),
            reward: 1.0,
            dataset: String::new(),
            depth: 1,
        },
        vec![1.0, 0.0],
    )
    .expect("push");
    let err = Memory::new("p", pool, Rc::new(LexicalEmbedder))
        .err()
        .expect("refused");
    assert!(
        err.user_message().contains("Re-embed"),
        "{}",
        err.user_message()
    );
}

#[test]
fn re_embedding_a_pool_gives_every_entry_the_new_embedder_s_vector() {
    let mut pool = Pool::new(EmbedderId {
        id: "openai:text-embedding-3-small".into(),
        dims: 2,
    });
    let n = REEMBED_BATCH + 5; // two batches
    for i in 0..n {
        pool.push(
            Experience {
                id: format!("x{i}"),
                agent: "a1".into(),
                step: StepKind::Solve,
                task_id: format!("t{i}"),
                input: format!("buy {i} apples at the shop"),
                output: "o".into(),
                reward: (i % 10) as f64 / 10.0,
                dataset: "builtin".into(),
                depth: 1,
            },
            vec![1.0, i as f32],
        )
        .expect("push");
    }
    let before = pool.clone();
    let mut seen = Vec::new();
    let out = futures::executor::block_on(reembed(
        &pool,
        &LexicalEmbedder,
        &CancelToken::new(),
        |done, total| seen.push((done, total)),
    ))
    .expect("re-embedded");
    assert_eq!(pool, before, "the source pool is left alone");
    assert_eq!(out.embedder, LexicalEmbedder.id());
    assert_eq!(out.entries, pool.entries, "same entries, same order");
    assert_eq!(seen, vec![(REEMBED_BATCH, n), (n, n)]);
    for (i, e) in out.entries.iter().enumerate() {
        let cos = dot(out.vector(i), &LexicalEmbedder.vector(&e.input));
        assert!((cos - 1.0).abs() < 1e-5, "entry {i}: cos {cos}");
    }
    // Now the lexical embedder can use it.
    assert!(Memory::new("p", out, Rc::new(LexicalEmbedder)).is_ok());
    // A stop before the first batch changes nothing and says so.
    let stop = CancelToken::new();
    stop.cancel();
    let err = futures::executor::block_on(reembed(&pool, &LexicalEmbedder, &stop, |_, _| {}))
        .expect_err("stopped");
    assert!(err.contains("unchanged"), "{err}");
}

/// Mean score, mean critique rounds and mean completion tokens of the test split.
fn evaluate(mode: Mode, memory: &Rc<Memory>) -> (f64, f64, f64) {
    let test = tasks(Split::Test);
    let (mut score, mut rounds, mut tokens) = (0.0, 0.0, 0.0);
    for t in &test {
        let (status, events) = run_with(t, mode, Some(memory.clone()), demo(), |o| o.learn = false);
        assert_eq!(status, RunStatus::Finished);
        let r = result(&events);
        score += r.score;
        rounds += r.rounds as f64;
        tokens += roundtable::engine::views::usage::UsageView::of(&events)
            .total
            .output_tokens as f64;
    }
    let n = test.len() as f64;
    (score / n, rounds / n, tokens / n)
}

#[test]
fn after_a_learning_phase_step_wise_retrieval_beats_no_experience_on_the_builtin_set() {
    let memory = learned(40);
    let none = evaluate(Mode::None, &memory);
    let task = evaluate(Mode::Task, &memory);
    let step = evaluate(Mode::Step, &memory);
    eprintln!(
        "built-in test split, demo model, pool of {} experiences:",
        memory.pool.borrow().len()
    );
    for (name, (s, r, t)) in [("none", none), ("task", task), ("step", step)] {
        eprintln!(
            "  {name:5} accuracy {:.2}  critique rounds {r:.2}  completion tokens {t:.0}",
            s
        );
    }
    assert!(
        step.0 > none.0 + 0.2,
        "step {:.2} vs none {:.2}",
        step.0,
        none.0
    );
    assert!(step.1 <= none.1, "experience does not add critique rounds");
    // An empty pool gives step mode nothing to retrieve: the same as none.
    let empty = Rc::new(Memory::lexical("empty"));
    assert_eq!(evaluate(Mode::Step, &empty).0, none.0);
}

#[test]
fn a_learning_phase_resumes_with_the_tasks_its_pool_has_not_learned() {
    let train = tasks(Split::Train);
    let memory = learned(3);
    let left =
        roundtable::engine::coordinators::mael::learn::pending(&memory.pool.borrow(), &train[..5]);
    let ids: Vec<&str> = left.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, [train[3].id.as_str(), train[4].id.as_str()]);
    // A task is known by its content: the same question under another id
    // (another file, another position) is learned; another question is not.
    use roundtable::engine::coordinators::mael::learn::pending;
    let mut renamed = train[0].clone();
    renamed.id = "elsewhere:7".into();
    let mut other = train[0].clone();
    other.prompt.push_str(" (twice)");
    assert_eq!(
        pending(&memory.pool.borrow(), &[renamed.clone(), other]).len(),
        1
    );
    // A pool from before keys were kept knows its tasks by id only, and a
    // task whose id is a prefix of a learned one's is not taken for it.
    let mut old = memory.pool.borrow().clone();
    old.learned.clear();
    assert_eq!(pending(&old, &train[..5]).len(), 2);
    let mut similar = train[0].clone();
    similar.id = train[0].id[..train[0].id.len() - 1].to_string();
    assert_eq!(pending(&old, &[similar, renamed]).len(), 2);
}
