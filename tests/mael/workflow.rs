//! The workflow on the graph: who gets which subtask, the call path, the
//! critique round limit, concurrency, the events a viewer rebuilds the
//! call tree from, and bad input (an unconnected team, unreadable replies).

use crate::common::*;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::coordinators::mael::topology::{Preset, Team};
use roundtable::engine::domains::tasks::builtin::{tasks, Split};
use roundtable::engine::domains::tasks::{Dataset, Gold, Task};
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::{Call, Completion};
use roundtable::engine::model::{ChatModel, ChatRequest, ChatResponse};
use roundtable::engine::run::{RunEvent, RunStatus};
use std::cell::Cell;
use std::rc::Rc;

pub fn three_line_task() -> Task {
    Task {
        dataset: Dataset::Builtin,
        id: "t3".into(),
        prompt: "Find the total cost of this order:\n- 2 mugs at $6 each.\n- 3 lamps at $18 each.\n- 10 pens at $2 each, with a \"buy 4, get 1 free\" offer.\nEnd with a line \"Answer: <number>\".".into(),
        gold: Gold::Number(12.0 + 54.0 + 16.0),
    }
}

#[test]
fn the_root_splits_among_its_neighbours_and_subtasks_never_go_up_the_call_path() {
    // A star whose hub is a3: the root; three lines for three leaves.
    let star = team(&[(2, 0), (2, 1), (2, 3)], 4);
    let (status, events) = run_with(&three_line_task(), Mode::None, None, demo(), |o| {
        o.team = star.clone();
        o.learn = false;
    });
    assert_eq!(status, RunStatus::Finished);
    let tasks: Vec<TaskRecord> = notes(&events, STORE_TASK);
    assert_eq!(tasks[0].solver, "a3", "the hub is the root");
    let subs: Vec<&TaskRecord> = tasks.iter().filter(|t| t.depth == 1).collect();
    assert_eq!(
        subs.iter().map(|t| t.solver.as_str()).collect::<Vec<_>>(),
        ["a1", "a2", "a4"]
    );
    assert!(subs
        .iter()
        .all(|t| t.assigner == "a3" && t.parent.as_deref() == Some("t0")));
    // Depth limit 1: the leaves solve without being asked.
    let judgements: Vec<JudgementRecord> = notes(&events, STORE_JUDGEMENT);
    assert!(judgements
        .iter()
        .filter(|j| j.task != "t0")
        .all(|j| j.note.as_deref().is_some_and(|n| n.contains("depth limit"))));
    let reqs = requests(&events);
    assert_eq!(
        reqs.iter().filter(|(_, s)| s == STEP_JUDGE).count(),
        1,
        "only the root is asked to judge"
    );

    // A chain a1-a2-a3-a4, depth 2: the root is a2; a3 may split again,
    // but only towards a4 (a2 is on its call path).
    let chain = Team::preset(Preset::Chain, 4);
    let (_, events) = run_with(&three_line_task(), Mode::None, None, demo(), |o| {
        o.team = chain.clone();
        o.max_depth = 2;
        o.learn = false;
    });
    let tasks: Vec<TaskRecord> = notes(&events, STORE_TASK);
    assert_eq!(tasks[0].solver, "a2");
    for t in &tasks {
        let solver = chain.index_of(&t.solver).expect("agent");
        if let Some(parent) = &t.parent {
            let p = tasks.iter().find(|x| &x.id == parent).expect("parent");
            let assigner = chain.index_of(&p.solver).expect("agent");
            assert!(
                chain.neighbours(assigner).contains(&solver),
                "{} → {}",
                p.solver,
                t.solver
            );
            // Never back to an agent above it on the call path.
            let mut above = Some(p);
            while let Some(a) = above {
                assert_ne!(a.solver, t.solver, "{} went back up to {}", t.id, t.solver);
                above = a
                    .parent
                    .as_ref()
                    .and_then(|pp| tasks.iter().find(|x| &x.id == pp));
            }
        }
    }
    // Three subtasks, two free neighbours of a2: round-robin a1, a3, a1.
    let subs: Vec<&str> = tasks
        .iter()
        .filter(|t| t.depth == 1)
        .map(|t| t.solver.as_str())
        .collect();
    assert_eq!(subs, ["a1", "a3", "a1"]);
    // a1 has no free neighbour (a2 is above it): it solves without judging;
    // a3 may still split (a4 is free) and is asked.
    let judged: Vec<String> = requests(&events)
        .into_iter()
        .filter(|(_, s)| s == STEP_JUDGE)
        .map(|(a, _)| a)
        .collect();
    assert_eq!(judged, ["a2", "a3"]);
}

/// A model that marks every solution inadequate, and otherwise plays the demo.
fn stubborn_critic() -> Rc<dyn ChatModel> {
    let demo = DemoModel::instant(Rc::new(FakeClock::new()), every_script);
    Rc::new(
        ScriptedModel::new("stubborn").otherwise(move |req: &ChatRequest| {
            if req.step.as_deref() == Some(STEP_CRITIQUE) {
                return ChatResponse {
                    text: "{\"adequate\": false, \"feedback\": \"try again\"}".into(),
                    ..ChatResponse::default()
                };
            }
            demo.answer(req)
        }),
    )
}

#[test]
fn critique_rounds_stop_at_the_round_limit() {
    for rounds in [1, 2, 3] {
        let (status, events) = run_with(
            &three_line_task(),
            Mode::None,
            None,
            stubborn_critic(),
            |o| {
                o.max_rounds = rounds;
                o.learn = false;
            },
        );
        assert_eq!(status, RunStatus::Finished);
        let critiques: Vec<CritiqueRecord> = notes(&events, STORE_CRITIQUE);
        assert_eq!(
            critiques.len(),
            3 * rounds as usize,
            "three subtasks, {rounds} rounds"
        );
        assert_eq!(critiques.iter().map(|c| c.round).max(), Some(rounds));
        let solutions: Vec<SolutionRecord> = notes(&events, STORE_SOLUTION);
        let refined = solutions.iter().filter(|s| s.version > 0).count();
        assert_eq!(refined, 3 * rounds as usize, "one refinement per critique");
        assert_eq!(result(&events).rounds, rounds);
        // Each refinement answers its critique's feedback.
        let reqs = requests(&events);
        assert_eq!(
            reqs.iter().filter(|(_, s)| s == STEP_SOLVE).count(),
            3 + 3 * rounds as usize
        );
    }
    // A critic content at once: one round, no refinement.
    let content = DemoModel::instant(Rc::new(FakeClock::new()), every_script);
    let content = Rc::new(
        ScriptedModel::new("content").otherwise(move |req: &ChatRequest| {
            if req.step.as_deref() == Some(STEP_CRITIQUE) {
                return ChatResponse {
                    text: "{\"adequate\": true}".into(),
                    ..ChatResponse::default()
                };
            }
            content.answer(req)
        }),
    );
    let (_, events) = run_with(&three_line_task(), Mode::None, None, content, |o| {
        o.learn = false
    });
    let critiques: Vec<CritiqueRecord> = notes(&events, STORE_CRITIQUE);
    assert_eq!(critiques.len(), 3);
    assert!(critiques.iter().all(|c| c.round == 1 && c.adequate));
    assert_eq!(result(&events).rounds, 1);
    assert!(notes::<SolutionRecord>(&events, STORE_SOLUTION)
        .iter()
        .all(|s| s.version == 0));
}

/// The demo model, yielding once before each answer (as a network call would).
pub struct Yielding {
    pub inner: Rc<dyn ChatModel>,
    pub in_flight: Rc<Cell<usize>>,
    pub most: Rc<Cell<usize>>,
}

impl ChatModel for Yielding {
    fn name(&self) -> String {
        "yielding".into()
    }
    fn complete<'a>(&'a self, call: Call<'a>) -> Completion<'a> {
        let Call { req, sink, cancel } = call;
        Box::pin(async move {
            self.in_flight.set(self.in_flight.get() + 1);
            self.most.set(self.most.get().max(self.in_flight.get()));
            let mut yielded = false;
            futures::future::poll_fn(|cx| {
                if yielded {
                    std::task::Poll::Ready(())
                } else {
                    yielded = true;
                    cx.waker().wake_by_ref();
                    std::task::Poll::Pending
                }
            })
            .await;
            let r = self.inner.complete(Call::new(req, sink, cancel)).await;
            self.in_flight.set(self.in_flight.get() - 1);
            r
        })
    }
}

#[test]
fn sibling_subtasks_on_different_agents_run_concurrently_within_the_limit() {
    for (limit, want) in [(4, 3), (2, 2), (1, 1)] {
        let most = Rc::new(Cell::new(0));
        let model = Rc::new(Yielding {
            inner: demo(),
            in_flight: Rc::new(Cell::new(0)),
            most: most.clone(),
        });
        let task = three_line_task();
        let mut config = roundtable::engine::run::RunConfig::new(
            ID,
            "",
            roundtable::engine::run::ModelSpec::demo(),
        );
        roundtable::engine::coordinators::mael::setup::configure(&mut config, task, Mode::None);
        config.max_concurrency = limit;
        config.options["learn"] = false.into();
        let ctx = roundtable::engine::run::RunCtx::new(
            config,
            roundtable::engine::run::ModelRouter::single(model),
            Rc::new(roundtable::engine::base::clock::FakeClock::new()),
        );
        let status = futures::executor::block_on(roundtable::engine::coordinators::execute(&ctx));
        assert_eq!(status, RunStatus::Finished);
        assert_eq!(most.get(), want, "limit {limit}");
    }
}

#[test]
fn an_unconnected_team_is_refused_naming_the_agents_out_of_reach() {
    let (status, events) = run_with(&three_line_task(), Mode::None, None, demo(), |o| {
        o.team = team(&[(0, 1), (2, 3)], 4);
    });
    assert_eq!(status, RunStatus::Failed);
    let msg = events.iter().find_map(|e| match &e.event {
        RunEvent::RunFailed { reason } => Some(reason.message.clone()),
        _ => None,
    });
    assert!(
        msg.as_deref()
            .is_some_and(|m| m.contains("Agent 3, Agent 4")),
        "{msg:?}"
    );
    assert!(
        requests(&events).is_empty(),
        "no call before the team is checked"
    );
}

#[test]
fn unreadable_replies_are_recorded_and_the_run_goes_on() {
    let garbled = Rc::new(
        ScriptedModel::new("garbled").otherwise(|req: &ChatRequest| ChatResponse {
            text: match req.step.as_deref() {
                Some(STEP_JUDGE) => "Solvable: no, I would decompose this".into(),
                Some(STEP_DECOMPOSE) => "1. first line\n2. second line".into(),
                Some(STEP_CRITIQUE) => "Looks adequate to me.".into(),
                Some(STEP_EVALUATE) => "no idea".into(),
                _ => "Answer: 7".into(),
            },
            ..ChatResponse::default()
        }),
    );
    let (status, events) = run_with(&tasks(Split::Test)[0], Mode::None, None, garbled, |_| {});
    assert_eq!(status, RunStatus::Finished);
    let j: Vec<JudgementRecord> = notes(&events, STORE_JUDGEMENT);
    assert!(
        j[0].note
            .as_deref()
            .is_some_and(|n| n.contains("not a JSON judgement"))
            && !j[0].solvable
    );
    let d: Vec<DecompositionRecord> = notes(&events, STORE_DECOMPOSITION);
    assert_eq!(d[0].subtasks.len(), 2);
    assert!(d[0]
        .note
        .as_deref()
        .is_some_and(|n| n.contains("list lines")));
    // A critique that cannot be read (even when asked again) is not adequate.
    let c: Vec<CritiqueRecord> = notes(&events, STORE_CRITIQUE);
    assert!(c
        .iter()
        .all(|c| !c.adequate && c.note.as_deref().is_some_and(|n| n.contains("default"))));
    // A rating that cannot be read is not rated (no score), and says why.
    let ratings: Vec<RatingRecord> = notes(&events, STORE_RATING);
    assert!(ratings
        .iter()
        .filter(|r| r.by == "evaluator")
        .all(|r| r.score.is_none() && r.reason.contains("could not be read")));
    assert!(events
        .iter()
        .any(|e| matches!(e.event, RunEvent::ReplyRepaired { .. })));
}

#[test]
fn the_events_rebuild_the_call_tree() {
    let (_, events) = run(&three_line_task(), Mode::None, None);
    let tasks: Vec<TaskRecord> = notes(&events, STORE_TASK);
    let solutions: Vec<SolutionRecord> = notes(&events, STORE_SOLUTION);
    let decomposition: Vec<DecompositionRecord> = notes(&events, STORE_DECOMPOSITION);
    assert_eq!(decomposition[0].subtasks, ["t0.1", "t0.2", "t0.3"]);
    for t in &tasks {
        assert!(
            solutions.iter().any(|s| s.task == t.id),
            "{} has a solution",
            t.id
        );
    }
    let root = solutions
        .iter()
        .rev()
        .find(|s| s.task == "t0")
        .expect("root solution");
    assert_eq!(root.kind, SolutionKind::Aggregate);
    // Hand-offs: down for each subtask, back up for each solution.
    let handoffs: Vec<(String, String, String)> = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::Handoff { from, to, reason } => {
                Some((from.clone(), to.clone(), reason.clone()))
            }
            _ => None,
        })
        .collect();
    for sub in tasks.iter().filter(|t| t.depth == 1) {
        assert!(handoffs.contains(&(
            sub.assigner.clone(),
            sub.solver.clone(),
            format!("subtask {}", sub.id)
        )));
        assert!(handoffs.contains(&(
            sub.solver.clone(),
            sub.assigner.clone(),
            format!("solution of {}", sub.id)
        )));
    }
    let team: Vec<TeamRecord> = notes(&events, STORE_TEAM);
    assert_eq!(team[0].root, 0);
    assert_eq!(team[0].closeness[0], 1.0);
}
