//! What the learning page's forms ask for: the learning phase (task set,
//! how many, retrieval while learning) and the evaluation (task set, how
//! many, modes, Table 4's variants, the sweep's pool sizes), and the rows
//! an evaluation makes of them.

use super::super::state::{BUILTIN_TEST, BUILTIN_TRAIN};
use crate::engine::coordinators::mael::contract::{Mode, Polarity, Scoring};
use crate::engine::coordinators::mael::html::report::label;

/// What the learning form asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct LearnForm {
    pub set: String,
    /// The first this many tasks of the set (the paper: 30).
    pub n: usize,
    /// Retrieval while learning (the paper builds the pool with none).
    pub mode: Mode,
    /// Record each run in History.
    pub save: bool,
}

/// Table 4's variants of the retrieval score, beside the plain one.
pub const VARIANTS: [(&str, Polarity, Polarity); 3] = [
    ("reward low", Polarity::Low, Polarity::High),
    ("similarity low", Polarity::High, Polarity::Low),
    ("both low", Polarity::Low, Polarity::Low),
];

#[derive(Clone, Debug, PartialEq)]
pub struct EvalForm {
    pub set: String,
    pub n: usize,
    pub modes: Vec<Mode>,
    /// Indexes into [`VARIANTS`], run for each retrieval mode picked.
    pub variants: Vec<usize>,
    /// Pool sizes (learned tasks) for the sweep; empty = no sweep.
    pub sizes: String,
    pub concurrency: usize,
    pub save: bool,
}

impl Default for LearnForm {
    fn default() -> Self {
        LearnForm {
            set: BUILTIN_TRAIN.into(),
            n: 30,
            mode: Mode::None,
            save: false,
        }
    }
}

impl Default for EvalForm {
    fn default() -> Self {
        EvalForm {
            set: BUILTIN_TEST.into(),
            n: 20,
            modes: Mode::ALL.to_vec(),
            variants: Vec::new(),
            sizes: "0,10,20,30".into(),
            concurrency: 4,
            save: false,
        }
    }
}

/// One group of an evaluation: a row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub label: String,
    pub mode: Mode,
    pub scoring: Scoring,
}

impl EvalForm {
    /// The rows to run: each mode picked, then each Table 4 variant of
    /// each retrieval mode picked.
    pub fn groups(&self) -> Vec<Group> {
        let mut out: Vec<Group> = self
            .modes
            .iter()
            .map(|&mode| Group {
                label: label(mode).into(),
                mode,
                scoring: Scoring::default(),
            })
            .collect();
        for &v in &self.variants {
            let Some((name, reward, similarity)) = VARIANTS.get(v) else {
                continue;
            };
            for &mode in self.modes.iter().filter(|m| **m != Mode::None) {
                out.push(Group {
                    label: format!("{} · {name}", label(mode)),
                    mode,
                    scoring: Scoring {
                        reward: *reward,
                        similarity: *similarity,
                        ..Scoring::default()
                    },
                });
            }
        }
        out
    }

    /// The sweep's pool sizes, in order.
    pub fn sweep_sizes(&self) -> Vec<usize> {
        self.sizes
            .split(',')
            .filter_map(|x| x.trim().parse().ok())
            .collect()
    }
}
