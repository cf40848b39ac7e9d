//! TravelPlanner evaluation throughput: every public parity case evaluated
//! (commonsense + hard checks) per pass; prints plans per second, the median
//! of several passes. Needs the shared fixtures ($ROUNDTABLE_SHARED or
//! ../shared); without them it prints SKIPPED and exits 0.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::run();
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use roundtable::engine::domains::travel::eval::parity::case_input;
    use roundtable::engine::domains::travel::{
        evaluate, parse_queries_jsonl, Plan, Query, TravelDb,
    };
    use std::path::PathBuf;
    use std::time::Instant;

    const PASSES: usize = 15;

    /// The database, the cases (query and plan), and the load time in ms.
    type Loaded = (TravelDb, Vec<(Query, Plan)>, f64);

    fn shared_dir() -> PathBuf {
        std::env::var("ROUNDTABLE_SHARED")
            .map(PathBuf::from)
            .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"))
            .join("travelplanner")
    }

    fn load(dir: &std::path::Path) -> Result<Loaded, String> {
        let t = Instant::now();
        let db = TravelDb::from_dir(&dir.join("database")).map_err(|e| e.to_string())?;
        let load_ms = t.elapsed().as_secs_f64() * 1e3;
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).map_err(|e| format!("{f}: {e}"));
        let queries = parse_queries_jsonl(&read("train_queries.jsonl")?, "train_queries.jsonl")
            .map_err(|e| e.to_string())?;
        let mut cases = Vec::new();
        for line in read("eval_cases_public.jsonl")?
            .lines()
            .filter(|l| !l.trim().is_empty())
        {
            let v: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
            cases.push(case_input(&v, &queries)?);
        }
        Ok((db, cases, load_ms))
    }

    pub fn run() {
        let dir = shared_dir();
        if !dir.join("eval_cases_public.jsonl").is_file() {
            println!(
                "travel_eval: SKIPPED — shared TravelPlanner fixtures not found at {} (set ROUNDTABLE_SHARED)",
                dir.display()
            );
            return;
        }
        let (db, cases, load_ms) = match load(&dir) {
            Ok(x) => x,
            Err(e) => {
                println!("travel_eval: SKIPPED — cannot load the fixtures: {e}");
                return;
            }
        };
        let mut rates = Vec::with_capacity(PASSES);
        let mut delivered = 0;
        for _ in 0..PASSES {
            let t = Instant::now();
            delivered = cases
                .iter()
                .map(|(q, p)| evaluate(&db, q, p))
                .filter(|e| e.delivered())
                .count();
            rates.push(cases.len() as f64 / t.elapsed().as_secs_f64());
        }
        rates.sort_by(|a, b| a.total_cmp(b));
        let median = rates[rates.len() / 2];
        println!("TravelPlanner evaluation ({} public cases, {delivered} delivered, {PASSES} passes, native)", cases.len());
        println!("  database load (6 tables, from disk)  {load_ms:8.1} ms");
        println!(
            "  throughput (median)                  {median:8.0} plans/s   ({:.1} µs per plan)",
            1e6 / median
        );
        println!(
            "  slowest / fastest pass               {:8.0} / {:.0} plans/s",
            rates[0],
            rates[rates.len() - 1]
        );
    }
}
