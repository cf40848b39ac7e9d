//! The demo team's runs, in every variant, with tools, on a typed task
//! and twice on one ACT+ bank: no reply needs a repair.

use super::calls;
use crate::repaired_log::repaired;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::act::contract::*;
use roundtable::engine::coordinators::act::plus::{Bank, BankData};
use roundtable::engine::coordinators::act::setup::configure;
use roundtable::engine::coordinators::{self, every_script};
use roundtable::engine::domains::creative::{builtin, ComplexTask};
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::run::{LoggedEvent, ModelRouter, ModelSpec, RunConfig, RunCtx, RunStatus};
use std::rc::Rc;

/// Runs `task` as `variant` on the demo model; `tweak` adjusts the
/// options; `bank` is the ACT+ bank.
fn demo_run(
    task: ComplexTask,
    variant: Variant,
    bank: Option<Rc<Bank>>,
    tweak: impl FnOnce(&mut ActOptions),
) -> (RunStatus, Vec<LoggedEvent>) {
    let mut config = RunConfig::new(ID, "", ModelSpec::demo());
    configure(&mut config, task, variant);
    let mut options: ActOptions = serde_json::from_value(config.options.clone()).expect("options");
    tweak(&mut options);
    config.options = serde_json::to_value(&options).expect("json");
    let clock = Rc::new(FakeClock::new());
    let ctx = RunCtx::new(
        config,
        ModelRouter::single(Rc::new(DemoModel::instant(clock.clone(), every_script))),
        clock,
    );
    if let Some(b) = bank {
        ctx.insert_resource(b);
    }
    let status = futures::executor::block_on(coordinators::execute(&ctx));
    (status, ctx.events())
}

#[test]
fn demo_runs_record_no_repaired_reply() {
    let mut runs = Vec::new();
    for variant in Variant::ALL {
        let task = builtin::task(1, None, 4);
        runs.push((
            format!("{variant:?}"),
            demo_run(task, variant, None, |o| o.judge = true),
        ));
    }
    runs.push((
        "tools".into(),
        demo_run(builtin::task(2, None, 4), Variant::Act, None, |o| {
            o.tools = vec!["FileSystemEnv_write_to_file".into(), "submit_task".into()]
        }),
    ));
    runs.push((
        "typed task".into(),
        demo_run(
            ComplexTask::free(roundtable::engine::coordinators::act::EXAMPLE_TASK),
            Variant::Act,
            None,
            |_| {},
        ),
    ));
    // ACT+ twice on one bank: the second run takes the team over and re-scores.
    let bank = Rc::new(Bank::lexical(BankData::empty("demo")));
    for n in [3, 4] {
        runs.push((
            format!("act+ trial {n}"),
            demo_run(
                builtin::task(n, None, 4),
                Variant::ActPlus,
                Some(bank.clone()),
                |_| {},
            ),
        ));
    }
    for (label, (status, events)) in &runs {
        assert_eq!(*status, RunStatus::Finished, "{label}");
        let found = repaired(events);
        assert!(found.is_empty(), "{label}: {found:?}");
    }
    let steps: Vec<String> = runs
        .iter()
        .flat_map(|(_, (_, e))| calls(e).into_values().map(|(s, _)| s))
        .collect();
    for step in [
        STEP_DECOMPOSE,
        STEP_EXPERTISE,
        STEP_FUSE,
        STEP_EXPLORE,
        STEP_ACQUIRE,
        STEP_REFLECT,
        STEP_FOLLOWUP,
        STEP_INSTRUCT,
        STEP_CHECK,
        STEP_RESCORE,
        STEP_JUDGE,
    ] {
        assert!(steps.iter().any(|s| s == step), "no demo reply to {step}");
    }
}

/// The demo member asks a deeper question after the expert's first answer
/// and is done after the second: two questions, ended by "done", well
/// under the cap; every turn is posted to the pair.
#[test]
fn the_demo_member_asks_follow_ups_until_it_is_done() {
    for n in [0, 1, 2] {
        let (status, events) = demo_run(builtin::task(n, None, 4), Variant::Act, None, |_| {});
        assert_eq!(status, RunStatus::Finished);
        let view = <roundtable::engine::coordinators::act::view::ActView as roundtable::engine::views::Fold>::of(&events);
        assert_eq!(view.breaks.len(), 4);
        let talk = view
            .meetings
            .iter()
            .find(|m| m.phase == PHASE_BREAK)
            .expect("break time");
        for b in &view.breaks {
            assert_eq!(b.pairs, 2, "trial {n}: {b:?}");
            assert_eq!(b.ended, "no further questions", "trial {n}: {b:?}");
            let turns: Vec<&str> = talk
                .lines
                .iter()
                .filter(|l| l.to.contains(&b.member))
                .map(|l| l.from.as_str())
                .collect();
            assert_eq!(
                turns,
                [
                    b.member.as_str(),
                    b.expert.as_str(),
                    b.member.as_str(),
                    b.expert.as_str()
                ],
                "trial {n}"
            );
        }
        let followups = calls(&events)
            .into_values()
            .filter(|(s, _)| s == STEP_FOLLOWUP)
            .count();
        assert_eq!(followups, 4 * 2, "a follow-up turn after each answer");
    }
}
