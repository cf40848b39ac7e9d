//! MAEL's commands: `run --coordinator mael` (its task, mode, team and
//! pool, `run`), `mael-learn` and `mael-eval` (a learning phase, then the
//! modes compared, `learn`), `pool rank` / `pool merge` (`pool`), and the
//! scorers of generated code: `humaneval-score` and `srdd-score`.

pub mod humaneval;
pub mod learn;
pub mod pool;
pub mod run;
#[cfg(unix)]
pub mod srdd;

use super::flags::Flags;
use super::paper::{CliCoordinator, PaperCommand};
use super::save::write_whole;
use roundtable::engine::coordinators::mael::contract::{MaelOptions, Mode, Polarity};
use roundtable::engine::coordinators::mael::experience::Pool;
use roundtable::engine::coordinators::mael::memory::Memory;
use roundtable::engine::coordinators::mael::topology::{Preset, Team};
use roundtable::engine::domains::srdd as srdd_domain;
use roundtable::engine::domains::tasks::builtin::{self, Split};
use roundtable::engine::domains::tasks::humaneval as humaneval_runner;
use roundtable::engine::domains::tasks::{parse_file, split_file, srdd_builtin, Dataset, Task};
use roundtable::engine::model::embed::Embedder;
use std::rc::Rc;

pub use roundtable::engine::coordinators::mael::ID;

pub const CLI: CliCoordinator = CliCoordinator {
    id: ID,
    prepare: run::prepare,
    cannot_continue: super::paper::always_continues,
    commands: &[
        PaperCommand {
            name: "mael-learn",
            run: learn::learn,
        },
        PaperCommand {
            name: "mael-eval",
            run: learn::eval,
        },
        PaperCommand {
            name: "pool",
            run: pool::run,
        },
        PaperCommand {
            name: "humaneval-score",
            run: humaneval::run,
        },
        #[cfg(unix)]
        PaperCommand {
            name: "srdd-score",
            run: srdd::run,
        },
    ],
    usage: USAGE,
};

const USAGE: &str = "\
MAEL (--coordinator mael):
  roundtable mael-learn --dataset D [--data FILE] [--train N] --out pool.json [model options]
  roundtable mael-eval --dataset D [--data FILE] [--test K] [--modes none,task,step]
                       --pool pool.json [--sizes 0,10,20,30|none] [--json] [model options]
  roundtable pool rank --pool P.json --agent ID --step KIND --query-embedding Q.json
                       [--alpha A] [--k K] [--reward high|low] [--similarity high|low] [--json]
  roundtable pool merge A.json B.json --out C.json
  roundtable humaneval-score --problems HumanEval.jsonl --samples S.jsonl [--json]
  roundtable srdd-score --projects DIR [--json] [--embedding-model M [--embedding-url U]]
                         SRDD's metric (ChatDev's, quirks included) and Table 3 of each
                         project folder under DIR; its main.py runs 3 s in CPython
  --dataset D            builtin (default) | gsm8k | mmlu | commongen | humaneval (its tests
                         run in Pyodide through Node: see humaneval-score) | srdd (the
                         run's files are the project, run in CPython and scored by
                         SRDD's metric and Table 3, as srdd-score does)
  --data FILE            the dataset's JSONL (SRDD: its CSV); needed but for builtin
                         and srdd (without it, Roundtable's 8 small requirements)
  --shots FILE           mmlu: the dev rows (mmlu_dev.jsonl), each question's 5-shot examples
  --split train|test|all the split (run and mael-eval: test, mael-learn: train); a
                         data file's even tasks (from 0) train, its odd ones test;
                         all = the whole file (GSM8K has a file per split)
  --train N  --test K    tasks learned (30) and tested (30), as the paper
  --sizes LIST           mael-eval's pool-size sweep (Fig. 3, task-wise retrieval
                         when task is among the modes): default 0,10,20,30; none
  --task-idx N           the task's position in the set (default 0)
  --mode M               none | task | step (run default step; learning default none)
  --pool FILE            the experience pool (read; written back after a learning run)
  --no-learn             no backward pass (no rewards, nothing added to the pool)
  --team SHAPE:N         star | linked-star | chain | ring | full, N agents
                         (default linked-star:4: the hub and three, two joined)
  --alpha A  --top-k K   retrieval score weight (0.5) and examples per step (1)
  --reward high|low  --similarity high|low   Table 4's variants
  --critic-rounds N  --depth N   refinement rounds and decomposition depth";

/// The options of MAEL's runs, as given.
pub struct MaelArgs {
    dataset: String,
    data: Option<String>,
    shots: Option<String>,
    split: Option<String>,
    team: Option<String>,
    alpha: Option<f64>,
    top_k: Option<u32>,
    reward: Option<String>,
    similarity: Option<String>,
    critic_rounds: Option<u32>,
    depth: Option<u32>,
    no_learn: bool,
}

impl MaelArgs {
    pub fn read(f: &Flags) -> Result<MaelArgs, String> {
        Ok(MaelArgs {
            dataset: f.text("dataset")?.unwrap_or_else(|| "builtin".into()),
            data: f.text("data")?,
            shots: f.text("shots")?,
            split: f.text("split")?,
            team: f.text("team")?,
            alpha: f.real("alpha")?,
            top_k: f.number("top-k")?,
            reward: f.text("reward")?,
            similarity: f.text("similarity")?,
            critic_rounds: f.number("critic-rounds")?,
            depth: f.number("depth")?,
            no_learn: f.switch("no-learn")?,
        })
    }

    /// Whether the runs are SRDD's (their projects need a Python).
    pub fn is_srdd(&self) -> bool {
        self.dataset == Dataset::Srdd.id()
    }

    /// The project runner SRDD's runs need, else none.
    pub fn projects(&self) -> Result<Option<Rc<srdd_domain::run::Runner>>, String> {
        self.is_srdd().then(super::projects::resource).transpose()
    }

    /// The task set the options name: the built-in split, or that split of
    /// a dataset file (its even tasks train, its odd ones test:
    /// [`split_file`]); `--split all` takes the whole file, for data sets
    /// whose splits are files of their own (GSM8K's train and test).
    pub fn tasks(&self, split: Split) -> Result<Vec<Task>, String> {
        self.tasks_in(Some(split))
    }

    /// A single run's task set: as [`MaelArgs::tasks`] but a data file
    /// whole unless `--split` says (`--task-idx` counts in the file).
    pub fn run_tasks(&self) -> Result<Vec<Task>, String> {
        self.tasks_in(self.data.is_none().then_some(Split::Test))
    }

    /// `default`: the split when `--split` is not given (None = all).
    fn tasks_in(&self, default: Option<Split>) -> Result<Vec<Task>, String> {
        let name = self.dataset.as_str();
        let dataset = Dataset::parse(name).ok_or_else(|| {
            let known: Vec<&str> = Dataset::ALL.iter().map(|d| d.id()).collect();
            format!("unknown --dataset \"{name}\": use {}", known.join(", "))
        })?;
        let split = match self.split.as_deref() {
            Some("train") => Some(Split::Train),
            Some("test") => Some(Split::Test),
            Some("all") => None,
            None => default,
            Some(other) => {
                return Err(format!(
                    "unknown --split \"{other}\": use train, test or all"
                ))
            }
        };
        match (&self.data, dataset) {
            (None, Dataset::Builtin) => Ok(match split {
                Some(s) => builtin::tasks(s),
                None => [builtin::tasks(Split::Train), builtin::tasks(Split::Test)].concat(),
            }),
            // Roundtable's own requirements (the demo model writes them).
            (None, Dataset::Srdd) => Ok(srdd_builtin(split)),
            (None, d) => Err(format!(
                "--dataset {} needs --data FILE (e.g. ../shared/datasets/{}/…)",
                d.id(),
                match d {
                    Dataset::Gsm8k => "gsm8k/test.jsonl",
                    Dataset::Mmlu => "mmlu/mmlu_sample.jsonl",
                    Dataset::Humaneval => "humaneval/HumanEval.jsonl",
                    _ => "commongen_hard/commongen_hard.jsonl",
                }
            )),
            (Some(path), d) => {
                let read = |p: &str| {
                    std::fs::read_to_string(p).map_err(|e| format!("cannot read {p}: {e}"))
                };
                let mut text = read(path)?;
                match (&self.shots, d) {
                    (None, _) => {}
                    // Dev rows first: parse_jsonl takes them as the questions' examples.
                    (Some(shots), Dataset::Mmlu) => text = format!("{}\n{text}", read(shots)?),
                    (Some(_), _) => return Err("--shots goes with --dataset mmlu".into()),
                }
                let all = parse_file(d, &text, path)?;
                Ok(match split {
                    Some(s) => split_file(all, s),
                    None => all,
                })
            }
        }
    }

    /// The team the options name (`--team star:4`, default the paper's four).
    pub fn team(&self) -> Result<Team, String> {
        let Some(spec) = self.team.as_deref() else {
            return Ok(Team::default_team());
        };
        let (shape, n) = spec.split_once(':').unwrap_or((spec, "4"));
        let preset = Preset::parse(shape).ok_or_else(|| {
            format!("unknown --team \"{shape}\": use star, linked-star, chain, ring or full (e.g. star:4)")
        })?;
        let n: usize = n
            .parse()
            .ok()
            .filter(|n| (1..=16).contains(n))
            .ok_or_else(|| format!("--team {spec}: the size must be 1 to 16"))?;
        Ok(Team::preset(preset, n))
    }

    /// The options of a run on `task`, with the flags' overrides.
    pub fn options(&self, task: Task) -> Result<MaelOptions, String> {
        let mut o = MaelOptions::for_task(task);
        o.team = self.team()?;
        if let Some(alpha) = self.alpha {
            if !(0.0..=1.0).contains(&alpha) {
                return Err(format!("--alpha {alpha}: use a number from 0 to 1"));
            }
            o.scoring.alpha = alpha;
        }
        o.scoring.reward = polarity(self.reward.as_deref(), "--reward")?;
        o.scoring.similarity = polarity(self.similarity.as_deref(), "--similarity")?;
        if let Some(k) = self.top_k {
            o.top_k = k.max(1) as usize;
        }
        if let Some(r) = self.critic_rounds {
            o.max_rounds = r;
        }
        if let Some(d) = self.depth {
            o.max_depth = d;
        }
        o.learn = !self.no_learn;
        Ok(o)
    }
}

fn polarity(v: Option<&str>, flag: &str) -> Result<Polarity, String> {
    match v {
        None | Some("high") => Ok(Polarity::High),
        Some("low") => Ok(Polarity::Low),
        Some(other) => Err(format!("{flag} \"{other}\": use high or low")),
    }
}

/// `--mode`, else `or` (a run's `--variant`), else `default`.
pub fn mode(f: &Flags, or: Option<&str>, default: Mode) -> Result<Mode, String> {
    let Some(m) = f.text("mode")?.or(or.map(str::to_string)) else {
        return Ok(default);
    };
    Mode::parse(&m).ok_or_else(|| format!("unknown --mode \"{m}\": use {}", Mode::ids()))
}

/// Reads a pool file (none yet = an empty pool).
pub fn read_pool(path: &str, embedder: &Rc<dyn Embedder>) -> Result<Pool, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Pool::from_json(&text).map_err(|e| format!("{path}: {}", e.user_message())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Pool::new(embedder.id())),
        Err(e) => Err(format!("cannot read {path}: {e}")),
    }
}

/// Writes the pool whole or not at all.
pub fn write_pool(path: &str, memory: &Memory) -> Result<(), String> {
    write_whole(path, &memory.pool.borrow().to_json())
}

/// The Python runner a run's HumanEval answers are scored with (Node and
/// Pyodide, started on the first program).
pub fn python() -> Rc<humaneval_runner::Runner> {
    Rc::new(humaneval_runner::Runner(Rc::new(
        super::python::NodePython::default(),
    )))
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
