//! Command-line parsing (lexopt) into typed commands.

use lexopt::prelude::*;

pub const USAGE: &str = "\
roundtable — run Roundtable coordinators headless

USAGE:
  roundtable run --coordinator ID --task TEXT [options]
  roundtable coordinators
  roundtable share encode < run.json     print the share-link payload (after #run=)
  roundtable share decode < payload      print the run JSON of a payload or link
  roundtable travel-eval --db DIR --queries Q.jsonl --plans P.jsonl [--json]
  roundtable travel-batch [--variants a,b] [--queries FILE|builtin] [--db DIR|builtin]
                          [--concurrency N] [--out-dir DIR] [--json] [model options]
  roundtable help

RUN OPTIONS:
  --coordinator ID       coordinator to run (see `roundtable coordinators`)
  --task TEXT            the task (or --task-file PATH)
  --variant NAME         coordinator variant, when it has several
  --model NAME           model name; `demo` = the offline demo model (default)
  --provider ID          openai-compatible | anthropic | a preset id (openai, groq, ollama, ...)
  --base-url URL         provider base URL (defaults to the preset's)
  --concurrency N        parallel LLM calls (default 4)
  --retries N            attempts per call, first included (default 4)
  --demo-delay-ms N      pause between demo chunks (default 0)
  --out PATH             write the run (config + events) as JSON; `-` = stdout
TRAVEL OPTIONS (--coordinator travel):
  --variant V            single | fixed | fixed-notebook | orchestrator (default)
  --db DIR|builtin       TravelPlanner database folder, or the built-in world (default)
  --queries FILE|builtin queries JSONL (train_queries.jsonl format); default builtin
  --query-idx N          the query's idx (default: the first query)
  --tool-mode M          native (function calling, default) | text (Tool[args] protocol)
  --max-steps N          agent turns before giving up (default 16)
  --critic-rounds N      critic reviews after the first plan (default 2)
  --quiet                no progress on stderr

The API key is read from the environment variable ROUNDTABLE_API_KEY; it is
never written to the run file.";

#[derive(Debug, Default, PartialEq)]
pub struct RunArgs {
    pub coordinator: String,
    pub task: String,
    pub variant: Option<String>,
    pub model: Option<String>,
    pub provider: Option<String>,
    pub base_url: Option<String>,
    pub concurrency: Option<u32>,
    pub retries: Option<u32>,
    pub demo_delay_ms: u64,
    pub out: Option<String>,
    pub quiet: bool,
    pub db: Option<String>,
    pub queries: Option<String>,
    pub query_idx: Option<u32>,
    pub tool_mode: Option<String>,
    pub max_steps: Option<u32>,
    pub critic_rounds: Option<u32>,
    /// travel-batch: comma-separated variants (default: all).
    pub variants: Option<String>,
    /// travel-batch: write every run's JSON here.
    pub out_dir: Option<String>,
    /// travel-batch: print JSON instead of tables.
    pub json: bool,
}

#[derive(Debug, PartialEq)]
pub enum Command {
    Run(Box<RunArgs>),
    Coordinators,
    TravelEval(super::travel::eval::TravelEvalArgs),
    /// Every variant over a query set, with the paper's metric table.
    TravelBatch(Box<RunArgs>),
    /// `share encode` (run JSON on stdin → payload) or `share decode` (payload → run JSON).
    Share {
        encode: bool,
    },
    Help,
}

pub fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Command, String> {
    let mut p = lexopt::Parser::from_args(args);
    let sub = match p.next().map_err(|e| e.to_string())? {
        Some(Value(v)) => v.string().map_err(|e| e.to_string())?,
        Some(Long("help")) | Some(Short('h')) | None => return Ok(Command::Help),
        Some(other) => return Err(format!("expected a command, got {}", other.unexpected())),
    };
    match sub.as_str() {
        "help" => Ok(Command::Help),
        "coordinators" => Ok(Command::Coordinators),
        "share" => match p.next().map_err(|e| e.to_string())? {
            Some(Value(v)) if v == "encode" => Ok(Command::Share { encode: true }),
            Some(Value(v)) if v == "decode" => Ok(Command::Share { encode: false }),
            _ => Err(
                "usage: roundtable share encode < run.json  |  roundtable share decode < payload"
                    .into(),
            ),
        },
        "run" => parse_run(&mut p).map(|a| Command::Run(Box::new(a))),
        "travel-batch" => {
            let mut a = parse_run_options(&mut p)?;
            a.coordinator = super::travel::ID.into();
            Ok(Command::TravelBatch(Box::new(a)))
        }
        "travel-eval" => super::travel::eval::parse_args(&mut p).map(Command::TravelEval),
        other => Err(format!(
            "unknown command \"{other}\"; try `roundtable help`"
        )),
    }
}

fn text(p: &mut lexopt::Parser) -> Result<String, String> {
    p.value()
        .map_err(|e| e.to_string())?
        .string()
        .map_err(|e| e.to_string())
}

fn number(p: &mut lexopt::Parser, flag: &str) -> Result<u64, String> {
    let t = text(p)?;
    t.parse::<u64>()
        .map_err(|_| format!("{flag} needs a whole number, got \"{t}\""))
}

fn parse_run(p: &mut lexopt::Parser) -> Result<RunArgs, String> {
    let a = parse_run_options(p)?;
    if a.coordinator.is_empty() {
        return Err("run needs --coordinator (e.g. --coordinator single)".into());
    }
    Ok(a)
}

fn parse_run_options(p: &mut lexopt::Parser) -> Result<RunArgs, String> {
    let mut a = RunArgs::default();
    let mut task_file: Option<String> = None;
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Long("coordinator") => a.coordinator = text(p)?,
            Long("task") => a.task = text(p)?,
            Long("task-file") => task_file = Some(text(p)?),
            Long("variant") => a.variant = Some(text(p)?),
            Long("model") => a.model = Some(text(p)?),
            Long("provider") => a.provider = Some(text(p)?),
            Long("base-url") => a.base_url = Some(text(p)?),
            Long("concurrency") => a.concurrency = Some(number(p, "--concurrency")? as u32),
            Long("retries") => a.retries = Some(number(p, "--retries")? as u32),
            Long("demo-delay-ms") => a.demo_delay_ms = number(p, "--demo-delay-ms")?,
            Long("out") => a.out = Some(text(p)?),
            Long("quiet") | Short('q') => a.quiet = true,
            Long("db") => a.db = Some(text(p)?),
            Long("queries") => a.queries = Some(text(p)?),
            Long("query-idx") => a.query_idx = Some(number(p, "--query-idx")? as u32),
            Long("tool-mode") => a.tool_mode = Some(text(p)?),
            Long("max-steps") => a.max_steps = Some(number(p, "--max-steps")? as u32),
            Long("critic-rounds") => a.critic_rounds = Some(number(p, "--critic-rounds")? as u32),
            Long("variants") => a.variants = Some(text(p)?),
            Long("out-dir") => a.out_dir = Some(text(p)?),
            Long("json") => a.json = true,
            other => return Err(other.unexpected().to_string()),
        }
    }
    if let Some(path) = task_file {
        a.task = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<std::ffi::OsString> {
        s.iter().map(|x| x.into()).collect()
    }

    #[test]
    fn parses_run() {
        let c = parse(args(&[
            "run",
            "--coordinator",
            "single",
            "--model",
            "demo",
            "--task",
            "hi",
            "--out",
            "r.json",
        ]));
        let Ok(Command::Run(r)) = c else {
            panic!("{c:?}")
        };
        assert_eq!(
            (r.coordinator.as_str(), r.task.as_str(), r.out.as_deref()),
            ("single", "hi", Some("r.json"))
        );
    }

    #[test]
    fn errors_are_clear() {
        assert!(parse(args(&["run", "--task", "x"]))
            .unwrap_err()
            .contains("--coordinator"));
        assert!(parse(args(&["nope"]))
            .unwrap_err()
            .contains("unknown command"));
        assert!(
            parse(args(&["run", "--coordinator", "s", "--concurrency", "x"]))
                .unwrap_err()
                .contains("whole number")
        );
        assert_eq!(parse(args(&[])), Ok(Command::Help));
    }
}
