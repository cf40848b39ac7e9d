//! The aggregate rates of eval.py: delivery rate, commonsense and hard
//! micro/macro pass rates, final pass rate.
//!
//! eval.py hard-codes its denominators for the official splits (README
//! quirk 14): train 45 plans / 360 commonsense / 105 hard, validation
//! 180 / 1440 / 420, test 1000 / 8000 / 2290. When the evaluated set is one
//! plan per query for exactly that many distinct queries, those are used;
//! otherwise denominators are computed from the set: 8 commonsense checks
//! per plan, and per plan one budget check plus one per local constraint its
//! query actually has.

use super::{Check, PlanEvaluation};
use crate::engine::domains::travel::query::Query;
use serde::Serialize;

/// Where the denominators came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum Denominators {
    /// eval.py's hard-coded values for an official split.
    OfficialSplit { split: &'static str },
    /// Counted from the queries' constraints.
    Computed,
}

impl Denominators {
    pub fn describe(&self) -> String {
        match self {
            Denominators::OfficialSplit { split } => {
                format!("eval.py's hard-coded denominators for the {split} split")
            }
            Denominators::Computed => {
                "computed from the evaluated queries' constraints".to_string()
            }
        }
    }
}

/// Pass/fail tallies of one check over the set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckTally {
    pub check: Check,
    pub key: &'static str,
    pub name: &'static str,
    pub passed: usize,
    pub failed: usize,
    pub not_applicable: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub plans: usize,
    pub delivered: usize,
    pub commonsense_passed: usize,
    pub commonsense_total: usize,
    pub hard_passed: usize,
    pub hard_total: usize,
    pub commonsense_macro_passed: usize,
    pub hard_macro_passed: usize,
    pub final_passed: usize,
    /// The denominator of the delivery, macro and final rates.
    pub plans_total: usize,
    pub denominators: Denominators,
    pub per_check: Vec<CheckTally>,
}

fn rate(n: usize, d: usize) -> f64 {
    if d == 0 {
        0.0
    } else {
        n as f64 / d as f64
    }
}

impl Summary {
    pub fn delivery_rate(&self) -> f64 {
        rate(self.delivered, self.plans_total)
    }
    pub fn commonsense_micro(&self) -> f64 {
        rate(self.commonsense_passed, self.commonsense_total)
    }
    pub fn commonsense_macro(&self) -> f64 {
        rate(self.commonsense_macro_passed, self.plans_total)
    }
    pub fn hard_micro(&self) -> f64 {
        rate(self.hard_passed, self.hard_total)
    }
    pub fn hard_macro(&self) -> f64 {
        rate(self.hard_macro_passed, self.plans_total)
    }
    pub fn final_rate(&self) -> f64 {
        rate(self.final_passed, self.plans_total)
    }

    /// The summary as JSON (rates as fractions, 0–1).
    pub fn to_json(&self) -> serde_json::Value {
        let mut per_check = serde_json::Map::new();
        for t in &self.per_check {
            per_check.insert(
                t.key.to_string(),
                serde_json::json!({"name": t.name, "passed": t.passed, "failed": t.failed, "not_applicable": t.not_applicable}),
            );
        }
        serde_json::json!({
            "plans": self.plans,
            "delivered": self.delivered,
            "delivery_rate": self.delivery_rate(),
            "commonsense_micro_pass_rate": self.commonsense_micro(),
            "commonsense_macro_pass_rate": self.commonsense_macro(),
            "hard_micro_pass_rate": self.hard_micro(),
            "hard_macro_pass_rate": self.hard_macro(),
            "final_pass_rate": self.final_rate(),
            "denominators": {
                "source": match &self.denominators {
                    Denominators::OfficialSplit { .. } => "official_split",
                    Denominators::Computed => "computed",
                },
                "description": self.denominators.describe(),
                "plans": self.plans_total,
                "commonsense": self.commonsense_total,
                "hard": self.hard_total,
            },
            "counts": {
                "commonsense_passed": self.commonsense_passed,
                "hard_passed": self.hard_passed,
                "commonsense_macro_passed": self.commonsense_macro_passed,
                "hard_macro_passed": self.hard_macro_passed,
                "final_passed": self.final_passed,
            },
            "per_check": per_check,
        })
    }
}

/// eval.py's hard-coded split sizes: (name, plans, commonsense, hard).
const OFFICIAL_SPLITS: [(&str, usize, usize, usize); 3] = [
    ("train", 45, 360, 105),
    ("validation", 180, 1440, 420),
    ("test", 1000, 8000, 2290),
];

/// How many hard checks apply to a query: the budget plus its constraints.
fn hard_checks_of(q: &Query) -> usize {
    let lc = &q.local_constraint;
    1 + [
        lc.house_rule.is_some(),
        lc.cuisine.as_ref().is_some_and(|c| !c.is_empty()),
        lc.room_type.is_some(),
        lc.transportation.is_some(),
    ]
    .iter()
    .filter(|b| **b)
    .count()
}

fn count_true(list: Option<&[(Check, super::Verdict)]>) -> usize {
    list.map_or(0, |l| {
        l.iter().filter(|(_, v)| v.pass == Some(true)).count()
    })
}

/// Aggregates the evaluations of a set of (query, evaluation) pairs.
pub fn aggregate(items: &[(&Query, &PlanEvaluation)]) -> Summary {
    let plans = items.len();
    let mut ids: Vec<u32> = items.iter().map(|(q, _)| q.idx).collect();
    ids.sort_unstable();
    ids.dedup();
    let official = OFFICIAL_SPLITS
        .iter()
        .find(|(_, n, _, _)| *n == plans && ids.len() == plans);
    let (denominators, plans_total, commonsense_total, hard_total) = match official {
        Some((split, n, c, h)) => (Denominators::OfficialSplit { split }, *n, *c, *h),
        None => (
            Denominators::Computed,
            plans,
            8 * plans,
            items.iter().map(|(q, _)| hard_checks_of(q)).sum(),
        ),
    };
    let per_check = Check::COMMONSENSE
        .into_iter()
        .chain(Check::HARD)
        .map(|check| {
            let verdicts = items.iter().filter_map(|(_, e)| e.verdict(check));
            let count = |p: Option<bool>| verdicts.clone().filter(|v| v.pass == p).count();
            CheckTally {
                check,
                key: check.key(),
                name: check.display_name(),
                passed: count(Some(true)),
                failed: count(Some(false)),
                not_applicable: count(None),
            }
        })
        .collect();
    let evals = || items.iter().map(|(_, e)| *e);
    Summary {
        plans,
        delivered: evals().filter(|e| e.delivered()).count(),
        commonsense_passed: evals().map(|e| count_true(e.commonsense.as_deref())).sum(),
        commonsense_total,
        hard_passed: evals().map(|e| count_true(e.hard.as_deref())).sum(),
        hard_total,
        commonsense_macro_passed: evals().filter(|e| e.commonsense_pass()).count(),
        hard_macro_passed: evals().filter(|e| e.hard_pass()).count(),
        final_passed: evals().filter(|e| e.final_pass()).count(),
        plans_total,
        denominators,
        per_check,
    }
}
