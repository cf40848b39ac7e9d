//! Share links: encode / decode time and link length over sample runs of
//! every coordinator (offline demo model) and random runs, plus the decoder
//! fuzz run (1,000,000 inputs by default; SHARE_FUZZ_N to change). Writes a
//! 500-event run's payload to target/share-bench/ for the browser open-time
//! benchmark (e2e/bench.mjs). Run with `make bench`.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::run();
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use futures::executor::block_on;
    use roundtable::engine::base::clock::FakeClock;
    use roundtable::engine::coordinators::act::{self, contract::Variant};
    use roundtable::engine::coordinators::every_script;
    use roundtable::engine::coordinators::execute;
    use roundtable::engine::coordinators::mael::contract::Mode;
    use roundtable::engine::coordinators::mael::memory::Memory;
    use roundtable::engine::coordinators::mael::{self, setup::configure};
    use roundtable::engine::coordinators::travel;
    use roundtable::engine::coordinators::COORDINATORS;
    use roundtable::engine::domains::creative;
    use roundtable::engine::domains::tasks::builtin::{tasks, Split};
    use roundtable::engine::model::demo::DemoModel;
    use roundtable::engine::model::retry::SplitMix;
    use roundtable::engine::run::random::random_run;
    use roundtable::engine::run::{ModelRouter, ModelSpec, RunConfig, RunCtx, RunDoc};
    use roundtable::engine::share::{decode, encode, encode_as, fuzz};
    use std::rc::Rc;
    use std::time::Instant;

    /// A demo-model run; the travel planner plans built-in query `n + 2`
    /// (the link dictionary's sample is query 1); MAEL solves built-in test
    /// task `n + 1` step-wise with a pool learned on five training tasks
    /// (the dictionary's sample is test task 0).
    fn demo_run(coordinator: &str, task: &str, n: usize) -> RunDoc {
        let clock = FakeClock::new();
        let mut config = RunConfig::new(coordinator, task, ModelSpec::demo());
        if coordinator == travel::ID {
            travel::use_builtin_query(&mut config, n + 1);
        }
        if coordinator == act::ID {
            // A built-in trial (the link dictionary's sample is trial 0).
            act::setup::configure(
                &mut config,
                creative::builtin::task(n as u32 + 1, None, 4),
                Variant::Act,
            );
        }
        let memory = (coordinator == mael::ID).then(|| {
            let m = Rc::new(Memory::lexical("bench"));
            for t in tasks(Split::Train).into_iter().skip(10).take(5) {
                let mut c = RunConfig::new(mael::ID, "", ModelSpec::demo());
                configure(&mut c, t, Mode::None);
                let ctx = RunCtx::new(
                    c,
                    ModelRouter::single(Rc::new(DemoModel::instant(
                        Rc::new(FakeClock::new()),
                        every_script,
                    ))),
                    Rc::new(FakeClock::new()),
                );
                ctx.insert_resource(m.clone());
                block_on(execute(&ctx));
            }
            configure(&mut config, tasks(Split::Test).remove(n + 1), Mode::Step);
            m
        });
        config.run_id = "bench".into();
        config.created_ms = 1_795_000_000_000.0;
        let ctx = RunCtx::new(
            config.clone(),
            ModelRouter::single(Rc::new(DemoModel::new(
                Rc::new(clock.clone()),
                every_script,
            ))),
            Rc::new(clock),
        );
        if let Some(m) = memory {
            ctx.insert_resource(m);
        }
        block_on(execute(&ctx));
        RunDoc::new(config, ctx.events())
    }

    fn median_us(mut v: Vec<f64>) -> f64 {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    }

    fn time<T>(n: usize, mut f: impl FnMut() -> T) -> f64 {
        median_us(
            (0..n)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(f());
                    t.elapsed().as_secs_f64() * 1e6
                })
                .collect(),
        )
    }

    pub fn run() {
        let mut samples: Vec<(String, RunDoc)> = Vec::new();
        for c in COORDINATORS {
            for (i, task) in [
                c.example_task,
                "What is 12 * (3 + 4)? Compare two options.",
                "Plan a weekend trip with a small budget.",
            ]
            .iter()
            .enumerate()
            {
                samples.push((format!("{} demo #{}", c.id, i + 1), demo_run(c.id, task, i)));
            }
        }
        let mut rng = SplitMix::new(2024);
        for n in [50, 500, 2000] {
            samples.push((format!("random {n} events"), random_run(&mut rng, n)));
        }
        println!("share links: encode / decode (native release, median of 30)");
        // Before format 5, links were the shorter of formats 3 and 4 (deflate).
        let deflate = [3, 4];
        println!(
            "  {:<26} {:>7} {:>9} {:>9} {:>9} {:>11} {:>11}",
            "run", "events", "json B", "link ch", "deflate ch", "encode µs", "decode µs"
        );
        for (name, doc) in &samples {
            let link = encode(doc).unwrap_or_default();
            assert_eq!(decode(&link).as_ref(), Ok(doc), "{name} round-trips");
            let enc = time(30, || encode(doc));
            let dec = time(30, || decode(&link));
            let older = deflate
                .map(|v| encode_as(doc, v).unwrap_or_default())
                .into_iter()
                .min_by_key(String::len)
                .unwrap_or_default();
            assert_eq!(
                decode(&older).as_ref(),
                Ok(doc),
                "{name} in a deflate format"
            );
            println!(
                "  {:<26} {:>7} {:>9} {:>9} {:>9} {:>11.0} {:>11.0}",
                name,
                doc.events.len(),
                doc.to_json().len(),
                link.len(),
                older.len(),
                enc,
                dec
            );
        }
        // For the browser open-time benchmark: a random 500-event run and
        // the longest demo run of each coordinator above.
        let open = random_run(&mut SplitMix::new(500), 500);
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/share-bench");
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(
            dir.join("open-500.payload"),
            encode(&open).unwrap_or_default(),
        );
        for c in ["travel", "mael", "act"] {
            if let Some((_, doc)) = samples
                .iter()
                .filter(|(name, _)| name.starts_with(c))
                .max_by_key(|(_, d)| d.events.len())
            {
                let _ = std::fs::write(
                    dir.join(format!("open-{c}.payload")),
                    encode(doc).unwrap_or_default(),
                );
            }
        }
        let n: u64 = std::env::var("SHARE_FUZZ_N")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(200_000);
        let t = Instant::now();
        let stats = fuzz::run(n, 99);
        println!(
            "decoder fuzz: {} random and mutated inputs, {} decoded, {} rejected with an error, 0 panics ({:.1} s)",
            stats.inputs,
            stats.decoded,
            stats.rejected,
            t.elapsed().as_secs_f64()
        );
    }
}
