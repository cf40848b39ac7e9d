//! Hallucinated entities: plan entries that are not in the sandbox, found
//! with the same rules as `is_valid_information_in_sandbox`, but all of them
//! rather than the first (the paper's hallucination counts by category).

use super::in_sandbox::walk;
use super::Ctx;
use crate::engine::domains::travel::db::TravelDb;
use crate::engine::domains::travel::plan::{Field, Plan};
use crate::engine::domains::travel::query::Query;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HallucinationCategory {
    Restaurant,
    Attraction,
    Accommodation,
    /// A flight number not flying that route, or a self-driving/taxi leg
    /// without a usable distance.
    Transportation,
}

impl HallucinationCategory {
    pub const ALL: [HallucinationCategory; 4] = [
        HallucinationCategory::Restaurant,
        HallucinationCategory::Attraction,
        HallucinationCategory::Accommodation,
        HallucinationCategory::Transportation,
    ];

    pub fn label(self) -> &'static str {
        match self {
            HallucinationCategory::Restaurant => "Restaurant",
            HallucinationCategory::Attraction => "Attraction",
            HallucinationCategory::Accommodation => "Accommodation",
            HallucinationCategory::Transportation => "Flight/transport",
        }
    }
}

/// One entity not found in the sandbox.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hallucination {
    pub category: HallucinationCategory,
    /// 0-based day index.
    pub day: usize,
    pub field: Field,
    /// The entry as written (a flight number for flights).
    pub entity: String,
    /// The official message for it.
    pub message: String,
}

/// Counts by category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HallucinationCounts {
    pub restaurant: usize,
    pub attraction: usize,
    pub accommodation: usize,
    pub transportation: usize,
}

impl HallucinationCounts {
    pub fn of(list: &[Hallucination]) -> Self {
        let n = |c: HallucinationCategory| list.iter().filter(|h| h.category == c).count();
        HallucinationCounts {
            restaurant: n(HallucinationCategory::Restaurant),
            attraction: n(HallucinationCategory::Attraction),
            accommodation: n(HallucinationCategory::Accommodation),
            transportation: n(HallucinationCategory::Transportation),
        }
    }

    pub fn total(&self) -> usize {
        self.restaurant + self.attraction + self.accommodation + self.transportation
    }
}

/// Every plan entity (within the query's days) that is not in the sandbox.
/// Entries the official code cannot read are skipped.
pub fn hallucinations(db: &TravelDb, query: &Query, plan: &Plan) -> Vec<Hallucination> {
    let n = (query.days as usize).min(plan.days.len());
    let ctx = Ctx {
        db,
        q: query,
        all: &plan.days,
        days: &plan.days[..n],
    };
    walk(&ctx, true)
        .unwrap_or_default()
        .into_iter()
        .map(|f| Hallucination {
            category: f.category,
            day: f.day,
            field: f.field,
            entity: f.entity,
            message: f.message,
        })
        .collect()
}
