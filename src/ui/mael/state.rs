//! What a MAEL run will use: the task set and task, the mode, the team,
//! the pool and its embedder, whether the run learns, and the retrieval's
//! settings; kept while the page lives (the Run page and the learning page
//! share it).

use crate::engine::coordinators::mael::contract::{MaelOptions, Mode, RewardSource, Scoring};
use crate::engine::coordinators::mael::topology::{Preset, Team};
use crate::engine::domains::tasks::builtin::{self, Split};
use crate::engine::domains::tasks::{Dataset, Task};
use crate::platform::experience_store::PoolMeta;
use crate::ui::part_state::part_state;
use leptos::prelude::*;

pub const BUILTIN_TEST: &str = "builtin:test";
pub const BUILTIN_TRAIN: &str = "builtin:train";
/// Roundtable's own software requirements (SRDD's shape), their splits.
pub const SOFTWARE_TEST: &str = "builtin:software:test";
pub const SOFTWARE_TRAIN: &str = "builtin:software:train";

/// Whether set `name` is one of the built-in splits (else a file, which a
/// job splits: its even tasks learn, its odd ones test).
pub fn is_split(name: &str) -> bool {
    [BUILTIN_TEST, BUILTIN_TRAIN, SOFTWARE_TEST, SOFTWARE_TRAIN].contains(&name)
}
pub const DEFAULT_POOL: &str = "default";

#[derive(Clone, Debug, PartialEq)]
pub struct MaelSetup {
    /// `builtin:test`, `builtin:train`, or an imported set's name.
    pub set: String,
    pub tasks: Vec<Task>,
    pub selected: usize,
    pub mode: Mode,
    pub preset: Preset,
    pub team: Team,
    pub learn: bool,
    pub pool: String,
    /// The provider's embeddings model; empty = the built-in lexical embedder.
    pub embedding_model: String,
    pub scoring: Scoring,
    pub top_k: usize,
    /// None = the dataset's default.
    pub rounds: Option<u32>,
    pub depth: Option<u32>,
    pub reward_source: RewardSource,
    /// Known pools and imported task sets in this browser.
    pub pools: Vec<PoolMeta>,
    pub imported: Vec<(String, Dataset)>,
}

impl Default for MaelSetup {
    fn default() -> Self {
        MaelSetup {
            set: BUILTIN_TEST.into(),
            tasks: builtin::tasks(Split::Test),
            selected: 0,
            mode: Mode::Step,
            preset: Preset::LinkedStar,
            team: Team::default_team(),
            learn: true,
            pool: DEFAULT_POOL.into(),
            embedding_model: String::new(),
            scoring: Scoring::default(),
            top_k: 1,
            rounds: None,
            depth: None,
            reward_source: RewardSource::Evaluator,
            pools: Vec::new(),
            imported: Vec::new(),
        }
    }
}

impl MaelSetup {
    pub fn task(&self) -> Option<&Task> {
        self.tasks.get(self.selected)
    }

    /// The run's options for `task`, with this setup's choices.
    pub fn options(&self, task: Task) -> MaelOptions {
        let mut o = MaelOptions::for_task(task);
        o.team = self.team.clone();
        o.scoring = self.scoring;
        o.top_k = self.top_k.max(1);
        if let Some(r) = self.rounds {
            o.max_rounds = r;
        }
        if let Some(d) = self.depth {
            o.max_depth = d;
        }
        o.learn = self.learn;
        o.reward_source = self.reward_source;
        o.pool = Some(self.pool.clone());
        o
    }
}

impl MaelSetup {
    /// Shows a stored run's setup: made with `mode` and `o`. Its task is
    /// selected in the current set, else in a built-in set, else added to
    /// the current list; the team's shape is the preset it equals (the team
    /// itself is the run's either way).
    pub fn adopt(&mut self, mode: Option<Mode>, o: &MaelOptions) {
        if let Some(m) = mode {
            self.mode = m;
        }
        self.team = o.team.clone();
        if let Some(p) = Preset::ALL
            .into_iter()
            .find(|p| Team::preset(*p, o.team.len()) == o.team)
        {
            self.preset = p;
        }
        self.scoring = o.scoring;
        self.top_k = o.top_k.max(1);
        let (rounds, depth) = o.task.dataset.defaults();
        self.rounds = (o.max_rounds != rounds).then_some(o.max_rounds);
        self.depth = (o.max_depth != depth).then_some(o.max_depth);
        self.learn = o.learn;
        self.reward_source = o.reward_source;
        self.pool = o.pool.clone().unwrap_or_else(|| DEFAULT_POOL.into());
        let same = |t: &Task| t.id == o.task.id && t.prompt == o.task.prompt;
        if let Some(i) = self.tasks.iter().position(same) {
            self.selected = i;
            return;
        }
        for (set, split, software) in [
            (BUILTIN_TEST, Split::Test, false),
            (BUILTIN_TRAIN, Split::Train, false),
            (SOFTWARE_TEST, Split::Test, true),
            (SOFTWARE_TRAIN, Split::Train, true),
        ] {
            let tasks = match software {
                true => crate::engine::domains::tasks::srdd_builtin(Some(split)),
                false => builtin::tasks(split),
            };
            if let Some(i) = tasks.iter().position(same) {
                (self.set, self.tasks, self.selected) = (set.into(), tasks, i);
                return;
            }
        }
        self.tasks.push(o.task.clone());
        self.selected = self.tasks.len() - 1;
    }
}

/// The setup, made the first time the MAEL part asks for it.
pub fn mael_setup() -> RwSignal<MaelSetup> {
    part_state(|| RwSignal::new(MaelSetup::default()))
}
