//! What the learning page's forms ask for: the learning phase (task set,
//! how many, retrieval while learning) and the evaluation (task set, how
//! many, modes, Table 4's variants, the sweep's pool sizes). The rows an
//! evaluation makes of them are the engine's (`mael::learn::groups`).

use super::super::state::{BUILTIN_TEST, BUILTIN_TRAIN};
use crate::engine::coordinators::mael::contract::{Mode, Scoring};
use crate::engine::coordinators::mael::learn::{groups, Group};

/// What the learning form asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct LearnForm {
    pub set: String,
    /// The first this many tasks of the set (the paper: 30).
    pub n: usize,
    /// Retrieval while learning (the paper builds the pool with none).
    pub mode: Mode,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EvalForm {
    pub set: String,
    pub n: usize,
    pub modes: Vec<Mode>,
    /// Indexes into Table 4's variants (`mael::learn::VARIANTS`), run for
    /// each retrieval mode picked.
    pub variants: Vec<usize>,
    /// Pool sizes (learned tasks) for the sweep; empty = no sweep.
    pub sizes: String,
}

impl Default for LearnForm {
    fn default() -> Self {
        LearnForm {
            set: BUILTIN_TRAIN.into(),
            n: 30,
            mode: Mode::None,
        }
    }
}

impl Default for EvalForm {
    fn default() -> Self {
        EvalForm {
            set: BUILTIN_TEST.into(),
            n: 30,
            modes: Mode::ALL.to_vec(),
            variants: Vec::new(),
            sizes: "0,10,20,30".into(),
        }
    }
}

impl EvalForm {
    /// The rows to run: each mode picked (with the setup's `scoring`), then
    /// each Table 4 variant of each retrieval mode picked.
    pub fn groups(&self, scoring: Scoring) -> Vec<Group> {
        groups(&self.modes, &self.variants, scoring)
    }

    /// The sweep's pool sizes, in order.
    pub fn sweep_sizes(&self) -> Vec<usize> {
        self.sizes
            .split(',')
            .filter_map(|x| x.trim().parse().ok())
            .collect()
    }
}
