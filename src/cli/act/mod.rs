//! ACT's commands: `run --coordinator act` (its task set, trial, variant
//! and knowledge bank, `run`) and `act-batch` (variants × trials with the
//! paper's tables, `batch`).

pub mod batch;
pub mod run;

use crate::cli::args::RunArgs;
use roundtable::engine::coordinators::act::contract::{ActOptions, Variant};
use roundtable::engine::coordinators::act::plus::{Bank, BankData};
use roundtable::engine::domains::creative::{
    builtin, parse_items, trial, trivia, ComplexTask, CreativeSet,
};
use roundtable::engine::model::embed::Embedder;
use std::path::PathBuf;
use std::rc::Rc;

pub use roundtable::engine::coordinators::act::ID;

const TRIVIA_FILE: &str = "datasets/trivia_creative_writing/trivia_creative_writing_100_n_5.jsonl";

fn shared_trivia() -> PathBuf {
    let base = std::env::var("ROUNDTABLE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from("../shared"));
    base.join(TRIVIA_FILE)
}

/// Trial `idx` of the set the options name.
pub fn task(a: &RunArgs, idx: u32) -> Result<ComplexTask, String> {
    let team = a.team_size.unwrap_or(4).clamp(2, 8) as usize;
    match a.dataset.as_deref().unwrap_or("builtin") {
        "builtin" => {
            if let Some(c) = a.community.as_deref() {
                if !builtin::COMMUNITIES.contains(&c) {
                    return Err(format!(
                        "unknown --community \"{c}\": use {}",
                        builtin::COMMUNITIES.join(", ")
                    ));
                }
            }
            Ok(builtin::task(idx, a.community.as_deref(), team))
        }
        "trivia" => {
            let path = a
                .data
                .clone()
                .map(PathBuf::from)
                .unwrap_or_else(shared_trivia);
            let text = std::fs::read_to_string(&path).map_err(|e| {
                format!(
                    "cannot read the Trivia Creative Writing file {} ({e}); give it with --data FILE",
                    path.display()
                )
            })?;
            let tasks = trivia::parse(&text, &path.display().to_string())?;
            let n = tasks.len();
            tasks
                .into_iter()
                .nth(idx as usize)
                .ok_or_else(|| format!("--task-idx {idx}: the file has {n} rows (0 to {})", n - 1))
        }
        path => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
            let items = parse_items(&text, path)?;
            Ok(trial(&items, CreativeSet::Imported, idx, team))
        }
    }
}

pub fn variant(v: Option<&str>) -> Result<Variant, String> {
    match v {
        None => Ok(Variant::Act),
        Some(v) => Variant::parse(v)
            .ok_or_else(|| format!("unknown ACT variant \"{v}\": use {}", Variant::ids())),
    }
}

pub fn options(a: &RunArgs, task: ComplexTask) -> ActOptions {
    let mut o = ActOptions::for_task(task);
    o.judge = a.judge;
    o.stem = a.stem;
    if let Some(n) = a.team_size {
        o.team_size = n.clamp(2, 8) as usize;
    }
    o.bank = a.bank.clone();
    o
}

/// The bank in `path` (an empty one when the file does not exist yet),
/// with the embedder that assigns its agents to new tasks.
pub fn read_bank(path: Option<&str>, embedder: Rc<dyn Embedder>) -> Result<Bank, String> {
    let data = match path {
        Some(p) if std::path::Path::new(p).exists() => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("cannot read {p}: {e}"))?;
            BankData::from_json(&text).map_err(|e| format!("{p}: {e}"))?
        }
        Some(p) => BankData::empty(p),
        None => BankData::empty("batch"),
    };
    Ok(Bank {
        data: std::cell::RefCell::new(data),
        embedder,
    })
}

pub fn write_bank(path: &str, bank: &Bank) -> Result<(), String> {
    std::fs::write(path, bank.data.borrow().to_json())
        .map_err(|e| format!("cannot write {path}: {e}"))
}
