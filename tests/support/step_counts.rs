//! Scripted models that answer by how many requests of a step came
//! before (the n-th reply of each step). Included by `tests/act/` and
//! `tests/mael/`.
#![allow(dead_code)]

use std::cell::RefCell;
use std::collections::HashMap;

/// How many requests of each step a scripted model has been sent.
#[derive(Default)]
pub struct StepCounts(RefCell<HashMap<String, usize>>);

impl StepCounts {
    /// How many requests of `step` came before this one (which is
    /// counted).
    pub fn next(&self, step: &str) -> usize {
        let mut seen = self.0.borrow_mut();
        let n = seen.entry(step.to_string()).or_insert(0);
        *n += 1;
        *n - 1
    }
}
