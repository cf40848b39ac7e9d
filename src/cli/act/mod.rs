//! ACT's commands: `run --coordinator act` (its task set, trial, variant
//! and knowledge bank, `run`) and `act-batch` (variants × trials with the
//! paper's tables, `batch`).

pub mod batch;
pub mod run;

use super::flags::Flags;
use super::paper::{CliCoordinator, PaperCommand};
use roundtable::engine::coordinators::act::contract::{ActOptions, Variant};
use roundtable::engine::coordinators::act::plus::{Bank, BankData};
use roundtable::engine::coordinators::act::tools::registry;
use roundtable::engine::domains::agentverse::{self, tasks::ToolTask};
use roundtable::engine::domains::creative::builtin::Draw;
use roundtable::engine::domains::creative::{
    builtin, parse_items, trial, trivia, ComplexTask, CreativeSet,
};
use roundtable::engine::model::embed::Embedder;
use std::path::PathBuf;
use std::rc::Rc;

pub use roundtable::engine::coordinators::act::ID;

pub const CLI: CliCoordinator = CliCoordinator {
    id: ID,
    prepare: run::prepare,
    cannot_continue: run::cannot_continue,
    commands: &[PaperCommand {
        name: "act-batch",
        run: batch::run,
    }],
    usage: USAGE,
};

const USAGE: &str = "\
ACT (--coordinator act):
  roundtable act-batch [--variants act,baseline,…] [--dataset D] [--trials K]
                       [batch options] [--json] [model options]
  --variant V            act (default) | act-plus | no-knowledge | no-team-meeting | no-keywords
                         | no-task-exploration | no-break-time | no-importance | baseline
                         | standard | cot | self-refine | spp (one model)
  --variants a,b         act-batch: the variants to compare (default act,baseline)
  --dataset D            builtin (default) | trivia | FILE (JSONL: subject, details, solutions)
  --data FILE            trivia: the dataset file (default ../shared/datasets/trivia_creative_writing/…)
  --community C          builtin: tea | cafe | design | architecture | fashion (default by trial)
  --mixed-communities    builtin: each member's task from a different community (fixed per trial)
  --task-idx N           the trial (builtin and FILE: a fixed draw of 4 tasks; trivia: the row);
                         act-batch: the first trial
  --task TEXT            instead of a set: a free task the team splits itself (not scored)
  --team-size N          agents for a free task (default 4)
  --trials K             act-batch: trials per variant (default 5)
  --judge                also ask the LLM judge (0–4 expected components)
  --stem                 ROUGE with the Porter stemmer (default off, as the library)
  --bank FILE            act-plus: the knowledge bank read before and written after
  --tools LIST           the production meeting's tools (§4.3; Table 26's instruct step, up to
                         10 rounds): AgentVerse's names, comma-separated, or agentverse for all
                         (the notebook runs in CPython, else Pyodide in Node; the file system
                         is the run's workspace; the shell is never offered; the web needs
                         --search-url)
  --dataset agentverse-tools [--data FILE] [--task-idx N]
                         run: one of AgentVerse's ten tool tasks (default file
                         ../shared/datasets/agentverse_tools/tasks.jsonl), its team size and
                         every tool, judged by its sub-tasks done; a task that needs the web
                         is refused without --search-url. act-batch: the tasks from
                         --task-idx (all, or --trials K of them), those needing the web left
                         out (named) without --search-url
  --rounds N             production rounds at most (default the paper's: 3, a tool task 10)
  --search-url U         the web tools' search endpoint: a SearXNG instance (its JSON API,
                         GET U/search?q=…&format=json)";

const TOOL_TASKS_FILE: &str = "datasets/agentverse_tools/tasks.jsonl";

const TRIVIA_FILE: &str = "datasets/trivia_creative_writing/trivia_creative_writing_100_n_5.jsonl";

fn shared_trivia() -> PathBuf {
    shared(TRIVIA_FILE)
}

/// AgentVerse's tool tasks: the file given, else the shared one.
fn shared(file: &str) -> PathBuf {
    let base = std::env::var("ROUNDTABLE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from("../shared"));
    base.join(file)
}

/// The options of ACT's runs, as given.
pub struct ActArgs {
    dataset: String,
    data: Option<String>,
    community: Option<String>,
    mixed: bool,
    team_size: Option<u32>,
    judge: bool,
    stem: bool,
    pub bank: Option<String>,
    tools: Vec<String>,
    pub search_url: Option<String>,
    rounds: Option<usize>,
}

impl ActArgs {
    pub fn read(f: &Flags) -> Result<ActArgs, String> {
        Ok(ActArgs {
            dataset: f.text("dataset")?.unwrap_or_else(|| "builtin".into()),
            data: f.text("data")?,
            community: f.text("community")?,
            mixed: f.switch("mixed-communities")?,
            team_size: f.number("team-size")?,
            judge: f.switch("judge")?,
            stem: f.switch("stem")?,
            bank: f.text("bank")?,
            tools: tools(f)?,
            search_url: f.text("search-url")?,
            rounds: f.number("rounds")?,
        })
    }

    /// Trial `idx` of the set the options name.
    pub fn task(&self, idx: u32) -> Result<ComplexTask, String> {
        task(self, idx)
    }

    pub fn options(&self, task: ComplexTask) -> ActOptions {
        let mut o = ActOptions::for_task(task);
        o.judge = self.judge;
        o.stem = self.stem;
        if let Some(n) = self.team_size {
            o.team_size = n.clamp(2, 8) as usize;
        }
        o.bank = self.bank.clone();
        o.tools = self.tools.clone();
        if let Some(n) = self.rounds {
            o.limits.production_rounds = n.max(1);
            o.limits.tool_rounds = n.max(1);
        }
        // AgentVerse's tasks are judged by their sub-tasks' completion (§4.3).
        if self.is_tool_tasks() {
            o.judge = true;
        }
        if self.is_tool_tasks() && o.tools.is_empty() {
            o.tools = registry::ALL.iter().map(|s| s.to_string()).collect();
        }
        o
    }

    /// Whether the set is AgentVerse's tool tasks.
    pub fn is_tool_tasks(&self) -> bool {
        self.dataset == "agentverse-tools"
    }

    /// AgentVerse's tool tasks: the file `--data` names, else the shared one.
    pub fn tool_tasks(&self) -> Result<Vec<ToolTask>, String> {
        let path = self
            .data
            .clone()
            .map(PathBuf::from)
            .unwrap_or_else(|| shared(TOOL_TASKS_FILE));
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "cannot read AgentVerse's tool tasks {} ({e}); give the file with --data FILE",
                path.display()
            )
        })?;
        agentverse::tasks::parse(&text, &path.display().to_string())
    }

    /// Task `idx` of AgentVerse's tool tasks; refused when it needs the web
    /// and no search endpoint is given.
    pub fn tool_task(&self, idx: u32) -> Result<ToolTask, String> {
        let all = self.tool_tasks()?;
        let n = all.len();
        let t = all
            .into_iter()
            .nth(idx as usize)
            .ok_or_else(|| format!("--task-idx {idx}: the file has {n} tasks (0 to {})", n - 1))?;
        if let Some(why) = self.web_refusal(&t) {
            return Err(why);
        }
        Ok(t)
    }

    /// Why `t` cannot run with these options (it needs the web, and no
    /// `--search-url` is given).
    pub fn web_refusal(&self, t: &ToolTask) -> Option<String> {
        t.refusal(self.search_url.is_some(), agentverse::tasks::CLI_FIX)
    }

    /// The tools' parts a run is given: the notebook's Python when the
    /// tools need it, the web when `--search-url` names an endpoint.
    pub fn tool_kit(&self) -> Result<ToolKit, String> {
        Ok(ToolKit {
            projects: match self.needs_python() {
                true => Some(super::projects::resource()?),
                false => None,
            },
            web: self.search_url.as_ref().map(|endpoint| {
                Rc::new(agentverse::web::Web {
                    endpoint: endpoint.clone(),
                    client: Rc::new(super::http::UreqGet::default()),
                })
            }),
        })
    }

    /// Whether the run's tools need the platform's Python (the notebook).
    pub fn needs_python(&self) -> bool {
        self.is_tool_tasks() || self.tools.iter().any(|t| t.starts_with("PythonNotebook_"))
    }
}

/// What a run's tools work on: the notebook's Python and the web.
pub struct ToolKit {
    projects: Option<Rc<roundtable::engine::domains::srdd::run::Runner>>,
    web: Option<Rc<agentverse::web::Web>>,
}

impl ToolKit {
    pub fn attach(&self, ctx: &roundtable::engine::run::RunCtx) {
        if let Some(p) = &self.projects {
            ctx.insert_resource(p.clone());
        }
        if let Some(w) = &self.web {
            ctx.insert_resource(w.clone());
        }
    }
}

/// `--tools a,b` or `--tools agentverse` (every tool of AgentVerse's).
fn tools(f: &Flags) -> Result<Vec<String>, String> {
    let Some(list) = f.text("tools")? else {
        return Ok(Vec::new());
    };
    if list.trim() == "agentverse" {
        return Ok(registry::ALL.iter().map(|s| s.to_string()).collect());
    }
    list.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| {
            registry::tool(t).map(|_| t.to_string()).ok_or_else(|| {
                format!(
                    "unknown tool \"{t}\" in --tools: use agentverse, or some of {}",
                    registry::ALL.join(", ")
                )
            })
        })
        .collect()
}

fn task(a: &ActArgs, idx: u32) -> Result<ComplexTask, String> {
    let team = a.team_size.unwrap_or(4).clamp(2, 8) as usize;
    if a.mixed && a.dataset != "builtin" {
        return Err("--mixed-communities goes with the built-in set (--dataset builtin)".into());
    }
    match a.dataset.as_str() {
        "builtin" => {
            if let Some(c) = a.community.as_deref() {
                if a.mixed {
                    return Err("give either --community or --mixed-communities, not both".into());
                }
                if !builtin::COMMUNITIES.contains(&c) {
                    return Err(format!(
                        "unknown --community \"{c}\": use {}",
                        builtin::COMMUNITIES.join(", ")
                    ));
                }
            }
            let draw = match &a.community {
                _ if a.mixed => Draw::Mixed,
                Some(c) => Draw::Community(c.clone()),
                None => Draw::ByTrial,
            };
            Ok(builtin::draw(idx, &draw, team))
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
        "agentverse-tools" => a.tool_task(idx).map(|t| t.complex_task()),
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
    crate::cli::save::write_whole(path, &bank.data.borrow().to_json())
}
