//! Command-line parsing (lexopt) into typed commands.

use lexopt::prelude::*;

pub const USAGE: &str = "\
roundtable — run Roundtable coordinators headless

USAGE:
  roundtable run --coordinator ID --task TEXT [options]
  roundtable coordinators
  roundtable share encode < run.json     print the share-link payload (after #run=)
  roundtable share decode < payload      print the run JSON of a payload or link
                                         (a lesson or comparison file encodes to
                                         lesson=… / compare=…, and decodes back)
  roundtable lesson questions RUN.json [--from N]   the predict-next questions a run offers
  roundtable lesson make SPEC.json --out FILE        a lesson file from a spec (see lessons/)
  roundtable travel-eval --db DIR --queries Q.jsonl --plans P.jsonl [--json]
  roundtable travel-batch [--variants a,b] [--queries FILE|builtin] [--db DIR|builtin]
                          [--concurrency N] [--out-dir DIR] [--json] [model options]
  roundtable act-batch [--variants act,baseline,…] [--dataset D] [--trials K] [--json]
                       [--out-dir DIR] [model options]
  roundtable rouge --cases FILE.jsonl [--json]
  roundtable mael-learn --dataset D [--data FILE] [--train N] --out pool.json [model options]
  roundtable mael-eval --dataset D [--data FILE] [--test K] [--modes none,task,step]
                       --pool pool.json [--sizes 0,10,20,30] [--json] [model options]
  roundtable pool rank|merge …         (see MAEL POOLS below)
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
  --spend-cap USD        stop cleanly before the call whose estimated cost would pass this
                         (for travel-batch and act-batch: the whole batch's cap)
  --token-cap N          the same in tokens (used for models without a known price)
TRAVEL OPTIONS (--coordinator travel):
  --variant V            single | fixed | fixed-notebook | orchestrator (default)
  --db DIR|builtin       TravelPlanner database folder, or the built-in world (default)
  --queries FILE|builtin queries JSONL (train_queries.jsonl format); default builtin
  --query-idx N          the query's idx (default: the first query)
  --tool-mode M          native (function calling, default) | text (Tool[args] protocol)
  --max-steps N          agent turns before giving up (default 16)
  --critic-rounds N      critic reviews after the first plan (default 2)
  --quiet                no progress on stderr
ACT OPTIONS (--coordinator act, act-batch):
  --variant V            act (default) | act-plus | no-knowledge | no-team-meeting | no-keywords
                         | no-task-exploration | no-break-time | no-importance | baseline
                         | standard | cot | self-refine | spp (one model)
  --dataset D            builtin (default) | trivia | FILE (JSONL: subject, details, solutions)
  --data FILE            trivia: the dataset file (default ../shared/datasets/trivia_creative_writing/…)
  --community C          builtin: tea | cafe | design | architecture | fashion (default by trial)
  --task-idx N           the trial (builtin and FILE: a fixed draw of 4 tasks; trivia: the row)
  --task TEXT            instead of a set: a free task the team splits itself (not scored)
  --team-size N          agents for a free task (default 4)
  --trials K             act-batch: trials per variant (default 5)
  --judge                also ask the LLM judge (0–4 expected components)
  --stem                 ROUGE with the Porter stemmer (default off, as the library)
  --bank FILE            act-plus: the knowledge bank read before and written after
  --embedding-model M    act-plus: assign tasks by this embeddings model (with --embedding-url or
                         an OpenAI-compatible --provider); default the built-in lexical embedder
MAEL OPTIONS (--coordinator mael, mael-learn, mael-eval):
  --dataset D            builtin (default) | gsm8k | mmlu | commongen
  --data FILE            the dataset's JSONL (needed but for builtin)
  --shots FILE           mmlu: the dev rows (mmlu_dev.jsonl), each question's 5-shot examples
  --split train|test     the built-in split (run: test, mael-learn: train)
  --task-idx N           the task's position in the set (default 0)
  --mode M               none | task | step (run default step; learning default none)
  --pool FILE            the experience pool (read; written back after a learning run)
  --no-learn             no backward pass (no rewards, nothing added to the pool)
  --team SHAPE:N         star | chain | ring | full, N agents (default star:4)
  --embedding-model M    the provider's embeddings model (default: the built-in lexical embedder)
  --embedding-url URL    an OpenAI-compatible server for the embeddings (default: the provider's)
  --alpha A  --top-k K   retrieval score weight (0.5) and examples per step (1)
  --reward high|low  --similarity high|low   Table 4's variants
  --critic-rounds N  --depth N   refinement rounds and decomposition depth
MAEL POOLS:
  roundtable pool rank --pool P.json --agent ID --step KIND --query-embedding Q.json
                       [--alpha A] [--k K] [--reward high|low] [--similarity high|low] [--json]
  roundtable pool merge A.json B.json --out C.json

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
    // MAEL
    pub dataset: Option<String>,
    pub data: Option<String>,
    pub shots: Option<String>,
    pub split: Option<String>,
    pub task_idx: Option<u32>,
    pub mode: Option<String>,
    pub pool: Option<String>,
    pub no_learn: bool,
    pub team: Option<String>,
    pub embedding_model: Option<String>,
    pub embedding_url: Option<String>,
    pub alpha: Option<f64>,
    pub top_k: Option<u32>,
    pub reward: Option<String>,
    pub similarity: Option<String>,
    pub depth: Option<u32>,
    pub train: Option<u32>,
    pub test: Option<u32>,
    pub modes: Option<String>,
    pub sizes: Option<String>,
    // ACT
    pub trials: Option<u32>,
    pub community: Option<String>,
    pub judge: bool,
    pub stem: bool,
    pub bank: Option<String>,
    pub team_size: Option<u32>,
    // Spend caps (a run's; for the batch commands, the batch's)
    pub spend_cap: Option<f64>,
    pub token_cap: Option<u64>,
}

#[derive(Debug, PartialEq)]
pub enum Command {
    Run(Box<RunArgs>),
    Coordinators,
    TravelEval(super::travel::eval::TravelEvalArgs),
    /// Every variant over a query set, with the paper's metric table.
    TravelBatch(Box<RunArgs>),
    /// ACT's variants over trials of a task set, with the paper's tables.
    ActBatch(Box<RunArgs>),
    MaelLearn(Box<RunArgs>),
    MaelEval(Box<RunArgs>),
    Pool(Box<super::mael::pool::PoolArgs>),
    /// `share encode` (run JSON on stdin → payload) or `share decode` (payload → run JSON).
    Share {
        encode: bool,
    },
    /// `lesson questions RUN [--from N]` or `lesson make SPEC --out FILE`.
    LessonQuestions {
        run: String,
        from: usize,
    },
    LessonMake {
        spec: String,
        out: String,
    },
    /// ROUGE scores of every case of a JSONL file.
    Rouge {
        cases: String,
        json: bool,
    },
    Help,
}

fn parse_lesson(p: &mut lexopt::Parser) -> Result<Command, String> {
    let usage = || super::lesson_cmd::USAGE.to_string();
    let sub = match p.next().map_err(|e| e.to_string())? {
        Some(Value(v)) => v.string().map_err(|e| e.to_string())?,
        _ => return Err(usage()),
    };
    let mut file = None;
    let mut from = 0usize;
    let mut out = None;
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Value(v) if file.is_none() => file = Some(v.string().map_err(|e| e.to_string())?),
            Long("from") => {
                from = p
                    .value()
                    .map_err(|e| e.to_string())?
                    .string()
                    .map_err(|e| e.to_string())?
                    .parse()
                    .map_err(|_| "--from takes an event number".to_string())?
            }
            Long("out") => {
                out = Some(
                    p.value()
                        .map_err(|e| e.to_string())?
                        .string()
                        .map_err(|e| e.to_string())?,
                )
            }
            other => return Err(format!("{}; {}", other.unexpected(), usage())),
        }
    }
    let file = file.ok_or_else(usage)?;
    match (sub.as_str(), out) {
        ("questions", None) => Ok(Command::LessonQuestions { run: file, from }),
        ("make", Some(out)) => Ok(Command::LessonMake { spec: file, out }),
        _ => Err(usage()),
    }
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
        "lesson" => parse_lesson(&mut p),
        "run" => parse_run(&mut p).map(|a| Command::Run(Box::new(a))),
        "travel-batch" => {
            let mut a = parse_run_options(&mut p)?;
            a.coordinator = super::travel::ID.into();
            Ok(Command::TravelBatch(Box::new(a)))
        }
        "travel-eval" => super::travel::eval::parse_args(&mut p).map(Command::TravelEval),
        "act-batch" => {
            let mut a = parse_run_options(&mut p)?;
            a.coordinator = super::act::ID.into();
            Ok(Command::ActBatch(Box::new(a)))
        }
        "mael-learn" => parse_run_options(&mut p).map(|a| Command::MaelLearn(Box::new(a))),
        "mael-eval" => parse_run_options(&mut p).map(|a| Command::MaelEval(Box::new(a))),
        "pool" => parse_pool(&mut p).map(|a| Command::Pool(Box::new(a))),
        "rouge" => parse_rouge(&mut p),
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

fn real(p: &mut lexopt::Parser, flag: &str) -> Result<f64, String> {
    let t = text(p)?;
    t.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("{flag} needs a number, got \"{t}\""))
}

fn parse_pool(p: &mut lexopt::Parser) -> Result<super::mael::pool::PoolArgs, String> {
    let mut a = super::mael::pool::PoolArgs::default();
    match p.next().map_err(|e| e.to_string())? {
        Some(Value(v)) if v == "rank" => {}
        Some(Value(v)) if v == "merge" => a.merge = true,
        _ => return Err(format!("usage:\n{}", super::mael::pool::USAGE)),
    }
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Long("pool") => a.pool = Some(text(p)?),
            Long("agent") => a.agent = Some(text(p)?),
            Long("step") => a.step = Some(text(p)?),
            Long("query-embedding") => a.query = Some(text(p)?),
            Long("alpha") => a.alpha = Some(real(p, "--alpha")?),
            Long("k") => a.k = Some(number(p, "--k")? as usize),
            Long("reward") => a.reward = Some(text(p)?),
            Long("similarity") => a.similarity = Some(text(p)?),
            Long("json") => a.json = true,
            Long("out") => a.out = Some(text(p)?),
            Value(v) => a.inputs.push(v.string().map_err(|e| e.to_string())?),
            other => return Err(other.unexpected().to_string()),
        }
    }
    Ok(a)
}

fn parse_rouge(p: &mut lexopt::Parser) -> Result<Command, String> {
    let (mut cases, mut json) = (None, false);
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Long("cases") => cases = Some(text(p)?),
            Long("json") => json = true,
            other => return Err(other.unexpected().to_string()),
        }
    }
    let cases = cases.ok_or("usage: roundtable rouge --cases FILE.jsonl [--json]")?;
    Ok(Command::Rouge { cases, json })
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
            Long("dataset") => a.dataset = Some(text(p)?),
            Long("data") => a.data = Some(text(p)?),
            Long("shots") => a.shots = Some(text(p)?),
            Long("split") => a.split = Some(text(p)?),
            Long("task-idx") => a.task_idx = Some(number(p, "--task-idx")? as u32),
            Long("mode") => a.mode = Some(text(p)?),
            Long("pool") => a.pool = Some(text(p)?),
            Long("no-learn") => a.no_learn = true,
            Long("team") => a.team = Some(text(p)?),
            Long("embedding-model") => a.embedding_model = Some(text(p)?),
            Long("embedding-url") => a.embedding_url = Some(text(p)?),
            Long("alpha") => a.alpha = Some(real(p, "--alpha")?),
            Long("top-k") => a.top_k = Some(number(p, "--top-k")? as u32),
            Long("reward") => a.reward = Some(text(p)?),
            Long("similarity") => a.similarity = Some(text(p)?),
            Long("depth") => a.depth = Some(number(p, "--depth")? as u32),
            Long("train") => a.train = Some(number(p, "--train")? as u32),
            Long("test") => a.test = Some(number(p, "--test")? as u32),
            Long("modes") => a.modes = Some(text(p)?),
            Long("sizes") => a.sizes = Some(text(p)?),
            Long("trials") => a.trials = Some(number(p, "--trials")? as u32),
            Long("community") => a.community = Some(text(p)?),
            Long("judge") => a.judge = true,
            Long("stem") => a.stem = true,
            Long("bank") => a.bank = Some(text(p)?),
            Long("team-size") => a.team_size = Some(number(p, "--team-size")? as u32),
            Long("spend-cap") => a.spend_cap = Some(real(p, "--spend-cap")?.max(0.0)),
            Long("token-cap") => a.token_cap = Some(number(p, "--token-cap")?),
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
