//! The travel planner's commands: `run --coordinator travel` (its options,
//! `run`), `travel-batch` (variants × queries, the paper's tables, `batch`)
//! and `travel-eval` (the official evaluator's verdicts on plan files, `eval`).

pub mod batch;
pub mod eval;
pub mod run;

use super::flags::Flags;
use super::paper::{CliCoordinator, PaperCommand};
use roundtable::engine::coordinators::travel::contract::ToolMode;
use roundtable::engine::coordinators::travel::query_values;
use roundtable::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL;
use roundtable::engine::domains::travel::{Query, TravelDb};
use roundtable::engine::run::ModelSpec;
use std::rc::Rc;

pub use roundtable::engine::coordinators::travel::ID;

pub const CLI: CliCoordinator = CliCoordinator {
    id: ID,
    prepare: run::prepare,
    cannot_continue: super::paper::always_continues,
    commands: &[
        PaperCommand {
            name: "travel-batch",
            run: batch::run,
        },
        PaperCommand {
            name: "travel-eval",
            run: eval::command,
        },
    ],
    usage: USAGE,
};

const USAGE: &str = "\
TRAVEL PLANNER (--coordinator travel):
  roundtable travel-batch [--variants a,b] [--queries FILE|builtin] [--db DIR|builtin]
                          [batch options] [--json] [model options]
  roundtable travel-eval --db DIR --queries Q.jsonl --plans P.jsonl [--json]
  --variant V            single | fixed | fixed-notebook | orchestrator (default)
  --variants a,b         travel-batch: the variants to compare (default all)
  --db DIR|builtin       TravelPlanner database folder, or the built-in world (default)
  --queries FILE|builtin queries JSONL (train_queries.jsonl format); default builtin
  --query-idx N          the query's idx (default: the first query)
  --tool-mode M          native (function calling, default) | text (Tool[args] protocol)
  --max-steps N          agent turns before giving up (default 16)
  --critic-rounds N      critic reviews after the first plan (default 2)
TRAVEL-EVAL OPTIONS:
  --db DIR               the database folder (official layout), or `builtin`
  --queries PATH         queries as JSONL (train_queries.jsonl format), or `builtin`
  --plans PATH           one JSON object a line: {\"plan\": [...] | \"LLM text\",
                         \"idx\" or \"query_idx\": N, \"case_id\": optional}
  --json                 one JSON object per plan, then {\"summary\": ...}";

/// The queries the options name, with each one's JSON as stored in a run.
pub fn queries(f: &Flags) -> Result<(Vec<(Query, serde_json::Value)>, String), String> {
    let (text, file) = match f.text("queries")?.as_deref() {
        None | Some("builtin") => (
            BUILTIN_QUERIES_JSONL.to_string(),
            "builtin_queries.jsonl".to_string(),
        ),
        Some(path) => (
            std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?,
            path.to_string(),
        ),
    };
    Ok((query_values(&text, &file)?, file))
}

/// The database the options name (None: the built-in world) and its name
/// as recorded in the runs.
pub fn database(f: &Flags) -> Result<(Option<Rc<TravelDb>>, String), String> {
    match f.text("db")?.as_deref() {
        None | Some("builtin") => Ok((None, "builtin".to_string())),
        Some(dir) => {
            let db = TravelDb::from_dir(std::path::Path::new(dir)).map_err(|e| e.to_string())?;
            Ok((Some(Rc::new(db)), dir.to_string()))
        }
    }
}

/// `--tool-mode`, as a run on `spec` can use it (the local model has no
/// native tool calls: the text protocol, as in the page).
pub fn tool_mode(f: &Flags, spec: &ModelSpec) -> Result<ToolMode, String> {
    let asked = match f.text("tool-mode")?.as_deref() {
        None | Some("native") => ToolMode::Native,
        Some("text") => ToolMode::Text,
        Some(other) => {
            return Err(format!(
                "unknown --tool-mode \"{other}\": use native or text"
            ))
        }
    };
    Ok(asked.for_model(spec))
}
