//! What an ACT run will use: the task source (a built-in community and
//! trial, the built-in tool tasks, an imported set — community items,
//! Trivia rows or AgentVerse's tool tasks — or a typed task for the team
//! to split), the
//! variant, the options (judge, stemming), and for ACT+ the knowledge bank;
//! kept while the page lives (the Run page and the ACT page share it).

use crate::engine::coordinators::act::contract::{ActOptions, Variant};
use crate::engine::domains::agentverse::{self, tasks::ToolTask};
use crate::engine::domains::creative::{builtin, trial, ComplexTask, CreativeSet};
use crate::platform::act_store::{ActSet, BankMeta, SetKind};
use crate::ui::part_state::part_state;
use leptos::prelude::*;

pub const BUILTIN: &str = "builtin";
pub const FREE: &str = "free";
/// The built-in tool tasks (`agentverse::builtin`).
pub const TOOLS: &str = "builtin-tools";
/// The task of a shown run whose imported set this browser does not hold.
pub const SHOWN: &str = "shown";
pub const DEFAULT_BANK: &str = "default";

#[derive(Clone, Debug, PartialEq)]
pub struct ActSetup {
    /// `builtin`, `free`, or an imported set's name.
    pub source: String,
    /// The built-in community (empty = by trial).
    pub community: String,
    pub trial: u32,
    /// The loaded imported set, when `source` names one.
    pub loaded: Option<ActSet>,
    /// A typed task (source `free`).
    pub free_text: String,
    /// A shown run's own task (source `shown`: its set is not here).
    pub shown_task: Option<ComplexTask>,
    pub team_size: usize,
    pub variant: Variant,
    pub judge: bool,
    pub stem: bool,
    /// The production meeting's tools (§4.3): AgentVerse's.
    pub tools: bool,
    pub bank: String,
    /// ACT+: the provider's embeddings model; empty = the built-in lexical
    /// embedder.
    pub embedding_model: String,
    /// Imported sets in this browser.
    pub sets: Vec<(String, SetKind)>,
    /// Knowledge banks in this browser.
    pub banks: Vec<BankMeta>,
}

impl Default for ActSetup {
    fn default() -> Self {
        ActSetup {
            source: BUILTIN.into(),
            community: String::new(),
            trial: 0,
            loaded: None,
            free_text: String::new(),
            shown_task: None,
            team_size: 4,
            variant: Variant::Act,
            judge: false,
            stem: false,
            tools: false,
            bank: DEFAULT_BANK.into(),
            embedding_model: String::new(),
            sets: Vec::new(),
            banks: Vec::new(),
        }
    }
}

impl ActSetup {
    /// Trials the source offers (None: as many as wanted).
    pub fn trials(&self) -> Option<u32> {
        if self.source == TOOLS {
            return Some(self.tool_tasks().len() as u32);
        }
        match &self.loaded {
            Some(ActSet::Trivia(t)) => Some(t.len() as u32),
            Some(ActSet::Tools(t)) => Some(t.len() as u32),
            _ => None,
        }
    }

    /// The tool tasks of the source (none unless it is a tool set): an
    /// imported set's as loaded, not copied.
    pub fn tool_tasks(&self) -> std::borrow::Cow<'_, [ToolTask]> {
        match (self.source.as_str(), &self.loaded) {
            (TOOLS, _) => agentverse::builtin::tasks().into(),
            (BUILTIN | FREE | SHOWN, _) => (&[][..]).into(),
            (_, Some(ActSet::Tools(t))) => t.as_slice().into(),
            _ => (&[][..]).into(),
        }
    }

    /// Whether the source is a set of tool tasks (each run with every tool).
    pub fn is_tool_source(&self) -> bool {
        self.source == TOOLS || matches!(&self.loaded, Some(ActSet::Tools(_)))
    }

    /// The tool task of trial `n`, when the source is a tool set.
    pub fn tool_task_at(&self, n: u32) -> Option<ToolTask> {
        self.tool_tasks().get(n as usize).cloned()
    }

    /// Why trial `n` cannot start with the page's search endpoint (`web`:
    /// whether one is set): it needs the web and there is none.
    pub fn web_refusal(&self, n: u32, web: bool) -> Option<String> {
        self.tool_task_at(n)?.refusal(web, PAGE_FIX)
    }

    /// The complex task of trial `n` (with its references, for scoring).
    pub fn task_at(&self, n: u32) -> Option<ComplexTask> {
        if self.is_tool_source() {
            return self.tool_task_at(n).map(|t| t.complex_task());
        }
        match self.source.as_str() {
            BUILTIN => Some(builtin::task(
                n,
                (!self.community.is_empty()).then_some(self.community.as_str()),
                self.team_size,
            )),
            FREE => (!self.free_text.trim().is_empty()).then(|| ComplexTask::free(&self.free_text)),
            SHOWN => self.shown_task.clone(),
            _ => match &self.loaded {
                Some(ActSet::Items(items)) => {
                    let mut t = trial(items, CreativeSet::Imported, n, self.team_size);
                    t.id = format!("{}-{n}", self.source);
                    Some(t)
                }
                Some(ActSet::Trivia(tasks)) => tasks.get(n as usize).cloned(),
                Some(ActSet::Tools(_)) | None => None,
            },
        }
    }

    pub fn task(&self) -> Option<ComplexTask> {
        self.task_at(self.trial)
    }

    /// A run's options on `task`: a tool task's are its own (its team,
    /// every tool), with the setup's judge; else the setup's.
    pub fn options(&self, task: ComplexTask) -> ActOptions {
        let tool = (self.tool_tasks().iter())
            .find(|t| t.complex_task().id == task.id)
            .cloned();
        let mut o = match &tool {
            Some(t) => ActOptions::for_tool_task(t),
            None => ActOptions::for_task(task),
        };
        o.judge = self.judge;
        o.stem = self.stem;
        if tool.is_none() {
            o.team_size = self.team_size;
        }
        if self.tools && tool.is_none() {
            o.tools = crate::engine::coordinators::act::tools::registry::ALL
                .iter()
                .map(|t| t.to_string())
                .collect();
        }
        if self.variant == Variant::ActPlus {
            o.bank = Some(self.bank.clone());
        }
        if ![BUILTIN, FREE, SHOWN, TOOLS].contains(&self.source.as_str()) {
            o.task_set = Some(self.source.clone());
        }
        o
    }
}

impl ActSetup {
    /// Shows a stored run's setup: made with `variant`, trial `trial` and
    /// `o`. A typed task becomes the typed text; a built-in one its
    /// community and trial. Returns the imported set to load when the task
    /// came from one this browser holds (`setup::adopt_set` loads it); a
    /// task from a set it lacks is shown as it is (source `shown`).
    pub fn adopt(
        &mut self,
        variant: Option<Variant>,
        trial: u32,
        o: &ActOptions,
    ) -> Option<String> {
        if let Some(v) = variant {
            self.variant = v;
        }
        self.judge = o.judge;
        self.stem = o.stem;
        self.tools = !o.tools.is_empty();
        self.team_size = o.team_size;
        if let Some(b) = &o.bank {
            self.bank = b.clone();
        }
        self.trial = trial;
        if let Some(id) = o.task.id.strip_prefix("agentverse:") {
            return self.adopt_tool_task(id, o);
        }
        if o.task.parts.is_empty() {
            (self.source, self.loaded) = (FREE.into(), None);
            self.free_text = o.task.text.clone();
            return None;
        }
        if let Some(rest) = o.task.id.strip_prefix("builtin-") {
            let c = rest.rsplit_once('-').map_or(rest, |(c, _)| c);
            let by_trial = builtin::COMMUNITIES[trial as usize % builtin::COMMUNITIES.len()];
            (self.source, self.loaded) = (BUILTIN.into(), None);
            self.community = if c == by_trial {
                String::new()
            } else {
                c.to_string()
            };
            return None;
        }
        // The set the run names (older runs: an imported set's task id is
        // `<set>-<trial>`), when this browser holds it; else the run's own task.
        let here = |n: &str| self.sets.iter().any(|(s, _)| s == n);
        let named = match &o.task_set {
            Some(n) => here(n).then(|| n.clone()),
            None => self
                .sets
                .iter()
                .map(|(n, _)| n)
                .find(|n| o.task.id == format!("{n}-{trial}"))
                .cloned(),
        };
        if named.is_none() {
            (self.source, self.loaded) = (SHOWN.into(), None);
            self.shown_task = Some(o.task.clone());
        }
        named
    }
}

impl ActSetup {
    /// A stored run of the tool task `id`: its imported set when this
    /// browser holds it (returned, to load), the built-in tool tasks when
    /// it is one of them, else the run's own task.
    fn adopt_tool_task(&mut self, id: &str, o: &ActOptions) -> Option<String> {
        self.loaded = None;
        if let Some(n) = (o.task_set.as_ref()).filter(|n| self.sets.iter().any(|(s, _)| s == *n)) {
            return Some(n.clone());
        }
        match agentverse::builtin::tasks().iter().position(|t| t.id == id) {
            Some(i) => (self.source, self.trial) = (TOOLS.into(), i as u32),
            None => {
                self.source = SHOWN.into();
                self.shown_task = Some(o.task.clone());
            }
        }
        None
    }
}

/// How the page gives the web tools an endpoint.
pub const PAGE_FIX: &str =
    "set the search endpoint under Tools in the setup (a SearXNG instance's JSON API)";

/// The setup, made the first time the ACT part asks for it.
pub fn act_setup() -> RwSignal<ActSetup> {
    part_state(|| RwSignal::new(ActSetup::default()))
}
