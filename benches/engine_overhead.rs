//! Engine overhead per LLM call, natively, with the offline demo model
//! (no streaming delays): the time `RunCtx::chat` adds on top of the model
//! itself (gate, permit, request/delta/response events, retry bookkeeping).
//! Prints medians over 1000 calls. Run with `make bench`.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::run();
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use roundtable::engine::base::clock::{Clock, SystemClock};
    use roundtable::engine::coordinators::every_script;
    use roundtable::engine::coordinators::execute;
    use roundtable::engine::model::demo::DemoModel;
    use roundtable::engine::model::Call;
    use roundtable::engine::model::{ChatModel, ChatRequest, Message, StreamDelta};
    use roundtable::engine::run::{CancelToken, ModelRouter, ModelSpec, RunConfig, RunCtx};
    use std::rc::Rc;
    use std::time::Instant;

    const N: usize = 1000;

    fn median_us(mut v: Vec<f64>) -> (f64, f64) {
        v.sort_by(|a, b| a.total_cmp(b));
        (v[v.len() / 2], v[v.len() * 95 / 100])
    }

    fn request() -> ChatRequest {
        ChatRequest::new(vec![
            Message::system("You are a capable, concise assistant."),
            Message::user("Plan a three-day study schedule and estimate 3 * (2 + 4) hours."),
        ])
        .with_step("single.answer")
    }

    pub fn run() {
        let clock: Rc<dyn Clock> = Rc::new(SystemClock::default());
        let demo = Rc::new(DemoModel::instant(clock.clone(), every_script));
        let req = request();
        let cancel = CancelToken::new();

        // The model alone (computing and chunking the answer).
        let mut model_alone = Vec::with_capacity(N);
        for _ in 0..N {
            let t = Instant::now();
            let mut sink = |_d: StreamDelta| {};
            let r = futures::executor::block_on(demo.complete(Call::new(&req, &mut sink, &cancel)));
            model_alone.push(t.elapsed().as_secs_f64() * 1e6);
            assert!(r.is_ok());
        }

        // The same model through the engine: one RunCtx, N calls.
        let config = RunConfig::new("single", "bench", ModelSpec::demo());
        let ctx = RunCtx::new(
            config.clone(),
            ModelRouter::single(demo.clone()),
            clock.clone(),
        );
        ctx.add_agent("assistant", "assistant", "Assistant");
        let mut through_engine = Vec::with_capacity(N);
        for _ in 0..N {
            let t = Instant::now();
            let r = futures::executor::block_on(ctx.chat("assistant", req.clone()));
            through_engine.push(t.elapsed().as_secs_f64() * 1e6);
            assert!(r.is_ok());
        }
        let events_per_call = ctx.event_count() as f64 / N as f64;

        // Whole single-agent runs (start to finish), as the CLI does them.
        let mut runs = Vec::with_capacity(N);
        for _ in 0..N {
            let ctx = RunCtx::new(
                config.clone(),
                ModelRouter::single(demo.clone()),
                clock.clone(),
            );
            let t = Instant::now();
            futures::executor::block_on(execute(&ctx));
            runs.push(t.elapsed().as_secs_f64() * 1e6);
        }

        let (m_med, m_p95) = median_us(model_alone);
        let (e_med, e_p95) = median_us(through_engine);
        let (r_med, r_p95) = median_us(runs);
        println!("engine overhead per LLM call (demo model, {N} calls, native release build)");
        println!("  demo model alone          median {m_med:8.1} µs   p95 {m_p95:8.1} µs");
        println!("  through RunCtx::chat      median {e_med:8.1} µs   p95 {e_p95:8.1} µs   ({events_per_call:.0} events per call)");
        println!("  whole single-agent run    median {r_med:8.1} µs   p95 {r_p95:8.1} µs");
        let overhead_ms = (e_med - m_med).max(0.0) / 1000.0;
        println!(
            "  engine overhead (median)  {overhead_ms:.4} ms per call   goal ≤ 1 ms: {}",
            if overhead_ms <= 1.0 { "met" } else { "NOT met" }
        );
    }
}
