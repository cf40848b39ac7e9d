//! Many travel runs side by side, as in the paper's tables: eval.py's
//! aggregate rates per column (variant, or variant × model), revisits and
//! failed constraints per expert area (Table 3, Appendix A), hallucinated
//! entities, and CSV / JSON exports.
//!
//! The rates are not recomputed here: each run's recorded verdicts are
//! turned back into a [`PlanEvaluation`] and handed, with the run's query,
//! to [`aggregate`], so the denominators follow eval.py exactly (see
//! `domains::travel::eval::aggregate`: the hard-coded split sizes, or
//! 8 commonsense checks per plan and one hard check per budget and per
//! constraint the query has).

use crate::engine::coordinators::travel::contract::{
    RunEvaluation, TravelOptions, Variant, VerdictRecord, EXPERTS,
};
use crate::engine::domains::travel::{
    aggregate, CellRef, Check, Field, PlanEvaluation, Query, Summary, Verdict,
};
use crate::engine::run::batch::group_name;
use crate::engine::run::{LoggedEvent, RunConfig};
use crate::engine::views::repairs::{RepairCount, RepairsView};
use crate::engine::views::usage::UsageView;
use crate::engine::views::Fold;

/// One finished run of a batch, as the tables read it.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchEntry {
    /// The column it belongs to: the variant's label, or e.g. "Orchestrator · gpt-4o".
    pub group: String,
    /// The run's query (its constraints set the hard denominators).
    pub query: Query,
    /// None when the run ended without one (failed or stopped): it counts
    /// as not delivered.
    pub evaluation: Option<RunEvaluation>,
    pub cost_usd: Option<f64>,
    pub tokens: Option<u64>,
    /// Its replies, and how many its steps had to repair (or could not read).
    pub repairs: RepairCount,
}

impl BatchEntry {
    /// A run from its config and log, grouped by its variant's label (and
    /// the prompts it was told, when not the paper's), with
    /// its token total and repaired replies (cost needs a price table: set
    /// `cost_usd` after).
    /// None when the options hold no readable query.
    pub fn from_run(config: &RunConfig, events: &[LoggedEvent]) -> Option<BatchEntry> {
        let view = crate::engine::coordinators::travel::view::TravelView::of(events);
        let query = serde_json::from_value::<TravelOptions>(config.options.clone())
            .ok()
            .and_then(|o| Query::from_json(&o.query, 0).ok())?;
        let variant = view
            .evaluation
            .as_ref()
            .map(|e| e.variant)
            .or(view.variant)
            .unwrap_or(Variant::Orchestrator);
        let usage = UsageView::of(events);
        Some(BatchEntry {
            group: group_name(variant.label(), config),
            query,
            evaluation: view.evaluation,
            cost_usd: None,
            tokens: Some(usage.total.total_tokens()),
            repairs: RepairsView::of(events).total(),
        })
    }
}

/// Why a run without an evaluation counts as not delivered.
pub const NO_EVALUATION: &str = "the run ended without an evaluation";

fn verdicts(list: &[VerdictRecord]) -> Vec<(Check, Verdict)> {
    list.iter()
        .filter_map(|r| {
            let check = Check::from_key(&r.key)?;
            let cells = r
                .cells
                .iter()
                .filter_map(|(day, f)| Field::from_key(f).map(|field| CellRef { day: *day, field }))
                .collect();
            Some((
                check,
                Verdict {
                    pass: r.pass,
                    message: r.message.clone(),
                    cells,
                },
            ))
        })
        .collect()
}

/// The recorded evaluation as the evaluator's own type: verdicts only when
/// the plan was delivered; hard verdicts only when they ran. A run without
/// an evaluation delivered nothing.
pub fn plan_evaluation(e: Option<&RunEvaluation>) -> PlanEvaluation {
    let Some(e) = e else {
        return PlanEvaluation::not_delivered(NO_EVALUATION);
    };
    if !e.delivered {
        return PlanEvaluation::not_delivered(
            e.not_delivered
                .clone()
                .unwrap_or_else(|| "not delivered".into()),
        );
    }
    PlanEvaluation {
        commonsense: Some(verdicts(&e.commonsense)),
        hard: (!e.hard.is_empty()).then(|| verdicts(&e.hard)),
        total_cost: e.total_cost,
        not_delivered: None,
    }
}

/// An expert's area, in the order of the paper's Table 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Area {
    Transportation,
    Hotel,
    Attraction,
    Restaurant,
}

impl Area {
    pub const ALL: [Area; 4] = [
        Area::Transportation,
        Area::Hotel,
        Area::Attraction,
        Area::Restaurant,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Area::Transportation => "Transportation",
            Area::Hotel => "Hotel",
            Area::Attraction => "Attraction",
            Area::Restaurant => "Restaurant",
        }
    }

    /// The expert agent of this area.
    pub fn expert(self) -> &'static str {
        match self {
            Area::Transportation => "transportation",
            Area::Hotel => "hotel",
            Area::Attraction => "attraction",
            Area::Restaurant => "restaurant",
        }
    }
}

/// One validation category of the paper's Appendix A ("Mapping of Error
/// Categories"), and the check it reads. `fields` narrows a check to the
/// verdicts whose cells are in those fields: the four "City Valid - X"
/// categories are `is_valid_information_in_current_city` ("The X in day N
/// is invalid city choice.") split by the field that failed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorCategory {
    pub name: &'static str,
    pub area: Area,
    pub check: Check,
    pub fields: Option<&'static [Field]>,
}

const fn cat(
    name: &'static str,
    area: Area,
    check: Check,
    fields: Option<&'static [Field]>,
) -> ErrorCategory {
    ErrorCategory {
        name,
        area,
        check,
        fields,
    }
}

/// Appendix A, row by row. The hard transportation constraint ("no
/// flight" / "no self-driving", `valid_transportation`) is not one of its
/// categories and counts in no area. Two rows read the same check with
/// different scope, as the appendix lists them: "City Valid - Attraction"
/// and "Within Current City" both count in the attraction area.
pub const ERROR_CATEGORIES: [ErrorCategory; 16] = [
    cat(
        "Accommodation Rules",
        Area::Hotel,
        Check::ValidAccommodation,
        None,
    ),
    cat(
        "City Valid - Accommodation",
        Area::Hotel,
        Check::InformationInCurrentCity,
        Some(&[Field::Accommodation]),
    ),
    cat("Room Rule Compliance", Area::Hotel, Check::RoomRule, None),
    cat("Room Type Preferences", Area::Hotel, Check::RoomType, None),
    cat("Budget/Cost Compliance", Area::Hotel, Check::Cost, None),
    cat(
        "City Valid - Restaurant (Breakfast/Lunch/Dinner)",
        Area::Restaurant,
        Check::InformationInCurrentCity,
        Some(&Field::MEALS),
    ),
    cat(
        "Diverse Restaurants",
        Area::Restaurant,
        Check::ValidRestaurants,
        None,
    ),
    cat(
        "Cuisine Preferences",
        Area::Restaurant,
        Check::Cuisine,
        None,
    ),
    cat(
        "City Valid - Attraction",
        Area::Attraction,
        Check::InformationInCurrentCity,
        Some(&[Field::Attraction]),
    ),
    cat(
        "Diverse Attractions",
        Area::Attraction,
        Check::ValidAttractions,
        None,
    ),
    cat(
        "Within Current City",
        Area::Attraction,
        Check::InformationInCurrentCity,
        None,
    ),
    cat(
        "Within Sandbox (No Hallucination)",
        Area::Attraction,
        Check::InformationInSandbox,
        None,
    ),
    cat(
        "Complete Information",
        Area::Attraction,
        Check::NotAbsent,
        None,
    ),
    cat(
        "City Valid - Transportation",
        Area::Transportation,
        Check::InformationInCurrentCity,
        Some(&[Field::Transportation]),
    ),
    cat(
        "Reasonable City Route",
        Area::Transportation,
        Check::ReasonableVisitingCity,
        None,
    ),
    cat(
        "Transportation Consistency",
        Area::Transportation,
        Check::ValidTransportation,
        None,
    ),
];

impl ErrorCategory {
    /// Whether this category was evaluated on the run, and whether it failed.
    /// Not evaluated: no plan delivered, the check not applicable, or (hard
    /// checks) skipped because the plan failed Within Sandbox or Complete
    /// Information. A failed check without cells (the evaluator could not
    /// read the plan) counts against every field it could concern.
    pub fn outcome(&self, e: &RunEvaluation) -> Option<bool> {
        let list = if self.check.is_hard() {
            &e.hard
        } else {
            &e.commonsense
        };
        let v = list.iter().find(|v| v.key == self.check.key())?;
        let failed = !v.pass?;
        Some(match self.fields {
            Some(fields) if failed && !v.cells.is_empty() => v
                .cells
                .iter()
                .any(|(_, f)| fields.iter().any(|x| x.key() == f)),
            _ => failed,
        })
    }
}

/// Failed and evaluated constraints of one area.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AreaTally {
    pub failed: usize,
    pub evaluated: usize,
}

impl AreaTally {
    /// Percentage failed (None when nothing was evaluated).
    pub fn percent(&self) -> Option<f64> {
        (self.evaluated > 0).then(|| 100.0 * self.failed as f64 / self.evaluated as f64)
    }
}

/// Everything shown for one column of a batch.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupStats {
    pub group: String,
    pub runs: usize,
    pub summary: Summary,
    /// Average revisits per run, per expert (EXPERTS order).
    pub revisits: Vec<(String, f64)>,
    /// Failed constraints per area (Area::ALL order).
    pub areas: Vec<(Area, AreaTally)>,
    /// Hallucinated entities per category, in first-seen order after the four known ones.
    pub hallucinations: Vec<(String, usize)>,
    /// Mean over the runs that report it.
    pub mean_cost_usd: Option<f64>,
    pub mean_tokens: Option<f64>,
    /// Replies and repaired replies, summed over the group's runs.
    pub repairs: RepairCount,
}

pub const HALLUCINATION_CATEGORIES: [&str; 4] = [
    "accommodation",
    "restaurant",
    "attraction",
    "transportation",
];

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// The runs' groups, in the order they first appear.
pub fn group_names(runs: &[BatchEntry]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in runs {
        if !out.contains(&r.group) {
            out.push(r.group.clone());
        }
    }
    out
}

/// The statistics of every group.
pub fn batch_groups(runs: &[BatchEntry]) -> Vec<GroupStats> {
    group_names(runs)
        .into_iter()
        .map(|g| group_stats(g, runs))
        .collect()
}

fn group_stats(group: String, all: &[BatchEntry]) -> GroupStats {
    let runs: Vec<&BatchEntry> = all.iter().filter(|r| r.group == group).collect();
    let evals: Vec<PlanEvaluation> = runs
        .iter()
        .map(|r| plan_evaluation(r.evaluation.as_ref()))
        .collect();
    let items: Vec<(&Query, &PlanEvaluation)> =
        runs.iter().map(|r| &r.query).zip(evals.iter()).collect();
    let summary = aggregate(&items);
    let n = runs.len().max(1) as f64;
    let revisits = EXPERTS
        .iter()
        .map(|e| {
            let total: u32 = runs
                .iter()
                .flat_map(|r| r.evaluation.iter().flat_map(|e| e.revisits.iter()))
                .filter(|(x, _)| x == e)
                .map(|(_, c)| *c)
                .sum();
            (e.to_string(), total as f64 / n)
        })
        .collect();
    let areas = Area::ALL
        .iter()
        .map(|a| {
            let mut t = AreaTally::default();
            for c in ERROR_CATEGORIES.iter().filter(|c| c.area == *a) {
                for r in &runs {
                    if let Some(failed) = r.evaluation.as_ref().and_then(|e| c.outcome(e)) {
                        t.evaluated += 1;
                        t.failed += usize::from(failed);
                    }
                }
            }
            (*a, t)
        })
        .collect();
    let mut hallucinations: Vec<(String, usize)> = HALLUCINATION_CATEGORIES
        .iter()
        .map(|c| (c.to_string(), 0))
        .collect();
    for h in runs
        .iter()
        .flat_map(|r| r.evaluation.iter().flat_map(|e| e.hallucinations.iter()))
    {
        match hallucinations.iter_mut().find(|(c, _)| *c == h.category) {
            Some(e) => e.1 += 1,
            None => hallucinations.push((h.category.clone(), 1)),
        }
    }
    GroupStats {
        runs: runs.len(),
        summary,
        revisits,
        areas,
        hallucinations,
        mean_cost_usd: mean(runs.iter().filter_map(|r| r.cost_usd)),
        mean_tokens: mean(runs.iter().filter_map(|r| r.tokens.map(|t| t as f64))),
        repairs: runs.iter().fold(RepairCount::default(), |mut sum, r| {
            sum.add(r.repairs);
            sum
        }),
        group,
    }
}

/// The rows of the paper's rate tables: label and rate (0–1).
pub fn rate_rows(s: &Summary) -> [(&'static str, f64); 6] {
    [
        ("Delivery Rate", s.delivery_rate()),
        ("Commonsense Pass Rate (Micro)", s.commonsense_micro()),
        ("Commonsense Pass Rate (Macro)", s.commonsense_macro()),
        ("Hard Constraint Pass Rate (Micro)", s.hard_micro()),
        ("Hard Constraint Pass Rate (Macro)", s.hard_macro()),
        ("Final Pass Rate", s.final_rate()),
    ]
}
