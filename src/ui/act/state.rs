//! What an ACT run will use: the task source (a built-in community and
//! trial, an imported set, or a typed task for the team to split), the
//! variant, the options (judge, stemming), and for ACT+ the knowledge bank;
//! kept while the page lives (the Run page and the ACT page share it).

use crate::engine::coordinators::act::contract::{ActOptions, Variant};
use crate::engine::domains::creative::{builtin, trial, ComplexTask, CreativeSet};
use crate::platform::act_store::{ActSet, BankMeta, SetKind};
use crate::ui::part_state::part_state;
use leptos::prelude::*;

pub const BUILTIN: &str = "builtin";
pub const FREE: &str = "free";
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
    pub team_size: usize,
    pub variant: Variant,
    pub judge: bool,
    pub stem: bool,
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
            team_size: 4,
            variant: Variant::Act,
            judge: false,
            stem: false,
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
        match &self.loaded {
            Some(ActSet::Trivia(t)) => Some(t.len() as u32),
            _ => None,
        }
    }

    /// The complex task of trial `n` (with its references, for scoring).
    pub fn task_at(&self, n: u32) -> Option<ComplexTask> {
        match self.source.as_str() {
            BUILTIN => Some(builtin::task(
                n,
                (!self.community.is_empty()).then_some(self.community.as_str()),
                self.team_size,
            )),
            FREE => (!self.free_text.trim().is_empty()).then(|| ComplexTask::free(&self.free_text)),
            _ => match &self.loaded {
                Some(ActSet::Items(items)) => {
                    let mut t = trial(items, CreativeSet::Imported, n, self.team_size);
                    t.id = format!("{}-{n}", self.source);
                    Some(t)
                }
                Some(ActSet::Trivia(tasks)) => tasks.get(n as usize).cloned(),
                None => None,
            },
        }
    }

    pub fn task(&self) -> Option<ComplexTask> {
        self.task_at(self.trial)
    }

    pub fn options(&self, task: ComplexTask) -> ActOptions {
        let mut o = ActOptions::for_task(task);
        o.judge = self.judge;
        o.stem = self.stem;
        o.team_size = self.team_size;
        if self.variant == Variant::ActPlus {
            o.bank = Some(self.bank.clone());
        }
        o
    }
}

impl ActSetup {
    /// Shows a stored run's setup: made with `variant`, trial `trial` and
    /// `o`. A typed task becomes the typed text; a built-in one its
    /// community and trial. Returns the imported set to load when the task
    /// came from one this browser holds (`setup::adopt_set` loads it).
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
        self.team_size = o.team_size;
        if let Some(b) = &o.bank {
            self.bank = b.clone();
        }
        self.trial = trial;
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
        self.sets
            .iter()
            .map(|(n, _)| n)
            .find(|n| o.task.id == format!("{n}-{trial}") || o.task.id.starts_with(n.as_str()))
            .cloned()
    }
}

/// The setup, made the first time the ACT part asks for it.
pub fn act_setup() -> RwSignal<ActSetup> {
    part_state(|| RwSignal::new(ActSetup::default()))
}
