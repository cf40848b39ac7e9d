//! MAEL's commands: `run --coordinator mael` (its task, mode, team and
//! pool, `run`), `mael-learn` and `mael-eval` (a learning phase, then the
//! modes compared, `learn`), and `pool rank` / `pool merge` (`pool`).

pub mod learn;
pub mod pool;
pub mod run;

use crate::cli::args::RunArgs;
use roundtable::engine::coordinators::mael::contract::{MaelOptions, Mode, Polarity};
use roundtable::engine::coordinators::mael::experience::Pool;
use roundtable::engine::coordinators::mael::memory::Memory;
use roundtable::engine::coordinators::mael::topology::{Preset, Team};
use roundtable::engine::domains::tasks::builtin::{self, Split};
use roundtable::engine::domains::tasks::{parse_jsonl, Dataset, Task};
use roundtable::engine::model::embed::Embedder;
use std::rc::Rc;

pub use roundtable::engine::coordinators::mael::ID;

/// The task set the options name: the built-in split, or a file of a dataset.
pub fn tasks(a: &RunArgs, split: Split) -> Result<Vec<Task>, String> {
    let name = a.dataset.as_deref().unwrap_or("builtin");
    let dataset = Dataset::parse(name).ok_or_else(|| {
        let known: Vec<&str> = Dataset::ALL.iter().map(|d| d.id()).collect();
        format!("unknown --dataset \"{name}\": use {}", known.join(", "))
    })?;
    match (&a.data, dataset) {
        (None, Dataset::Builtin) => Ok(builtin::tasks(match a.split.as_deref() {
            Some("train") => Split::Train,
            Some("test") => Split::Test,
            None => split,
            Some(other) => return Err(format!("unknown --split \"{other}\": use train or test")),
        })),
        (None, d) => Err(format!(
            "--dataset {} needs --data FILE (e.g. ../shared/datasets/{}/…)",
            d.id(),
            match d {
                Dataset::Gsm8k => "gsm8k/test.jsonl",
                Dataset::Mmlu => "mmlu/mmlu_sample.jsonl",
                _ => "commongen_hard/commongen_hard.jsonl",
            }
        )),
        (Some(path), d) => {
            let read =
                |p: &str| std::fs::read_to_string(p).map_err(|e| format!("cannot read {p}: {e}"));
            let mut text = read(path)?;
            match (&a.shots, d) {
                (None, _) => {}
                // Dev rows first: parse_jsonl takes them as the questions' examples.
                (Some(shots), Dataset::Mmlu) => text = format!("{}\n{text}", read(shots)?),
                (Some(_), _) => return Err("--shots goes with --dataset mmlu".into()),
            }
            parse_jsonl(d, &text, path)
        }
    }
}

/// The team the options name (`--team star:4`, default the paper's four).
pub fn team(a: &RunArgs) -> Result<Team, String> {
    let Some(spec) = a.team.as_deref() else {
        return Ok(Team::default_team());
    };
    let (shape, n) = spec.split_once(':').unwrap_or((spec, "4"));
    let preset = Preset::parse(shape).ok_or_else(|| {
        format!("unknown --team \"{shape}\": use star, chain, ring or full (e.g. star:4)")
    })?;
    let n: usize = n
        .parse()
        .ok()
        .filter(|n| (1..=16).contains(n))
        .ok_or_else(|| format!("--team {spec}: the size must be 1 to 16"))?;
    Ok(Team::preset(preset, n))
}

fn polarity(v: Option<&str>, flag: &str) -> Result<Polarity, String> {
    match v {
        None | Some("high") => Ok(Polarity::High),
        Some("low") => Ok(Polarity::Low),
        Some(other) => Err(format!("{flag} \"{other}\": use high or low")),
    }
}

/// The options of a run on `task`, with the flags' overrides.
pub fn options(a: &RunArgs, task: Task) -> Result<MaelOptions, String> {
    let mut o = MaelOptions::for_task(task);
    o.team = team(a)?;
    if let Some(alpha) = a.alpha {
        if !(0.0..=1.0).contains(&alpha) {
            return Err(format!("--alpha {alpha}: use a number from 0 to 1"));
        }
        o.scoring.alpha = alpha;
    }
    o.scoring.reward = polarity(a.reward.as_deref(), "--reward")?;
    o.scoring.similarity = polarity(a.similarity.as_deref(), "--similarity")?;
    if let Some(k) = a.top_k {
        o.top_k = k.max(1) as usize;
    }
    if let Some(r) = a.critic_rounds {
        o.max_rounds = r;
    }
    if let Some(d) = a.depth {
        o.max_depth = d;
    }
    o.learn = !a.no_learn;
    Ok(o)
}

pub fn mode(a: &RunArgs) -> Result<Mode, String> {
    let m = a.mode.as_deref().or(a.variant.as_deref()).unwrap_or("step");
    Mode::parse(m).ok_or_else(|| format!("unknown --mode \"{m}\": use {}", Mode::ids()))
}

pub use crate::cli::run_cmd::embedder;

/// Reads a pool file (none yet = an empty pool).
pub fn read_pool(path: &str, embedder: &Rc<dyn Embedder>) -> Result<Pool, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Pool::from_json(&text).map_err(|e| format!("{path}: {}", e.user_message())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Pool::new(embedder.id())),
        Err(e) => Err(format!("cannot read {path}: {e}")),
    }
}

pub fn write_pool(path: &str, memory: &Memory) -> Result<(), String> {
    std::fs::write(path, memory.pool.borrow().to_json())
        .map_err(|e| format!("cannot write {path}: {e}"))
}

/// The memory of a run: the pool file (if any) with the embedder.
pub fn memory(pool: Option<&str>, embedder: Rc<dyn Embedder>) -> Result<Rc<Memory>, String> {
    let name = pool.unwrap_or("run");
    let p = match pool {
        Some(path) => read_pool(path, &embedder)?,
        None => Pool::new(embedder.id()),
    };
    Memory::new(name, p, embedder)
        .map(Rc::new)
        .map_err(|e| e.user_message())
}
