//! ACT's figures, natively (release): the wall time of a team meeting
//! (opinions, advice, fusion, then every member's exploration and
//! acquisition) when every LLM call takes 300 ms (a real timer), with the
//! run's concurrency limit 4 against 1; and the token share per phase of a
//! demo run per variant (the shape of the paper's Table 14). ROUGE's
//! throughput is `rouge_bench`. Run with `make bench`.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::run();
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
#[path = "support/slow.rs"]
mod slow;

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::slow::Slow;
    use futures::executor::block_on;
    use roundtable::engine::base::clock::{Clock, SystemClock};
    use roundtable::engine::coordinators::act::contract::{Variant, PHASE_TEAM};
    use roundtable::engine::coordinators::act::{self, report, setup::configure};
    use roundtable::engine::coordinators::every_script;
    use roundtable::engine::domains::creative::builtin;
    use roundtable::engine::model::demo::DemoModel;
    use roundtable::engine::model::ChatModel;
    use roundtable::engine::run::{
        execute, LoggedEvent, ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent,
    };
    use std::rc::Rc;

    fn run_demo(
        variant: Variant,
        trial: u32,
        model: Rc<dyn ChatModel>,
        clock: Rc<dyn Clock>,
        concurrency: u32,
    ) -> Vec<LoggedEvent> {
        let mut config = RunConfig::new(act::ID, "", ModelSpec::demo());
        configure(&mut config, builtin::task(trial, None, 4), variant);
        config.max_concurrency = concurrency;
        config.seed = u64::from(trial);
        let ctx = RunCtx::new(config, ModelRouter::single(model), clock);
        block_on(execute(&ctx, act::entry));
        ctx.events()
    }

    /// Milliseconds of the team-meeting phase and its calls.
    fn team_meeting_ms(concurrency: u32) -> (f64, usize) {
        let clock: Rc<dyn Clock> = Rc::new(SystemClock::default());
        let model = Rc::new(Slow {
            inner: Rc::new(DemoModel::instant(clock.clone(), every_script)),
            clock: clock.clone(),
            ms: 300,
        });
        let events = run_demo(Variant::Act, 0, model, clock, concurrency);
        let mut start = None;
        let mut calls = 0;
        for e in &events {
            match &e.event {
                RunEvent::PhaseStarted { phase, .. } if phase == PHASE_TEAM => start = Some(e.t_ms),
                RunEvent::LlmRequest { .. } if start.is_some() => calls += 1,
                RunEvent::PhaseEnded { phase } if phase == PHASE_TEAM => {
                    return (e.t_ms as f64 - start.unwrap_or(e.t_ms) as f64, calls);
                }
                _ => {}
            }
        }
        panic!("the run held no team meeting");
    }

    pub fn run() {
        let (par, calls) = team_meeting_ms(4);
        let (seq, calls1) = team_meeting_ms(1);
        assert_eq!(calls, calls1, "the same calls either way");
        println!(
            "ACT team meeting, 4 agents, 300 ms per LLM call ({calls} calls: opinions, advice, fusion, exploration + acquisition): concurrent {par:.0} ms, one at a time {seq:.0} ms, ratio {:.2} (goal ≤ 0.35)",
            par / seq
        );
        let clock: Rc<dyn Clock> = Rc::new(SystemClock::default());
        let model: Rc<dyn ChatModel> = Rc::new(DemoModel::instant(clock.clone(), every_script));
        let mut runs: Vec<(String, Vec<LoggedEvent>)> = Vec::new();
        for v in [Variant::Act, Variant::Baseline] {
            for trial in 0..5 {
                runs.push((
                    v.id().into(),
                    run_demo(v, trial, model.clone(), clock.clone(), 4),
                ));
            }
        }
        let rep = report::report(runs.iter().map(|(v, e)| (v.as_str(), e.as_slice())));
        println!(
            "ACT demo model, built-in set, 5 trials (estimated tokens):\n{}\n{}",
            rep.table(),
            rep.share_table()
        );
    }
}
