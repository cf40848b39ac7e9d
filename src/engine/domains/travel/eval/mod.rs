//! The TravelPlanner evaluator, with verdict parity with the official
//! `evaluation/commonsense_constraint.py` and `hard_constraint.py`: the same
//! checks, in the same order, with the same messages (spelling included)
//! and the same quirks (see the fixtures' README).
//!
//! Where the official code would raise an exception (a plan it cannot
//! read), the check fails with a message saying so, instead of aborting the
//! whole evaluation as eval.py does.

mod absent;
mod access;
pub mod aggregate;
mod commonsense;
mod hallucination;
pub mod hard;
mod in_sandbox;
pub mod parity;

pub use aggregate::{aggregate, Denominators, Summary};
pub use hallucination::{
    hallucinations, Hallucination, HallucinationCategory, HallucinationCounts,
};

use super::db::TravelDb;
use super::plan::{Field, Plan, PlanDay};
use super::query::Query;
use serde::Serialize;
use serde_json::{json, Value};

/// The thirteen checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Check {
    ReasonableVisitingCity,
    ValidRestaurants,
    ValidAttractions,
    ValidAccommodation,
    ValidTransportation,
    InformationInCurrentCity,
    InformationInSandbox,
    NotAbsent,
    Cuisine,
    RoomRule,
    HardTransportation,
    RoomType,
    Cost,
}

impl Check {
    /// Commonsense checks, in the order the official code reports them.
    pub const COMMONSENSE: [Check; 8] = [
        Check::ReasonableVisitingCity,
        Check::ValidRestaurants,
        Check::ValidAttractions,
        Check::ValidAccommodation,
        Check::ValidTransportation,
        Check::InformationInCurrentCity,
        Check::InformationInSandbox,
        Check::NotAbsent,
    ];
    /// Hard checks, in the order the official code reports them.
    pub const HARD: [Check; 5] = [
        Check::Cuisine,
        Check::RoomRule,
        Check::HardTransportation,
        Check::RoomType,
        Check::Cost,
    ];

    /// The key in the official result dictionaries.
    pub fn key(self) -> &'static str {
        match self {
            Check::ReasonableVisitingCity => "is_reasonable_visiting_city",
            Check::ValidRestaurants => "is_valid_restaurants",
            Check::ValidAttractions => "is_valid_attractions",
            Check::ValidAccommodation => "is_valid_accommodation",
            Check::ValidTransportation => "is_valid_transportation",
            Check::InformationInCurrentCity => "is_valid_information_in_current_city",
            Check::InformationInSandbox => "is_valid_information_in_sandbox",
            Check::NotAbsent => "is_not_absent",
            Check::Cuisine => "valid_cuisine",
            Check::RoomRule => "valid_room_rule",
            Check::HardTransportation => "valid_transportation",
            Check::RoomType => "valid_room_type",
            Check::Cost => "valid_cost",
        }
    }

    /// The name the paper and eval.py's `paper_term_mapping` use.
    pub fn display_name(self) -> &'static str {
        match self {
            Check::ReasonableVisitingCity => "Reasonable City Route",
            Check::ValidRestaurants => "Diverse Restaurants",
            Check::ValidAttractions => "Diverse Attractions",
            Check::ValidAccommodation => "Minimum Nights Stay",
            Check::ValidTransportation => "Non-conf. Transportation",
            Check::InformationInCurrentCity => "Within Current City",
            Check::InformationInSandbox => "Within Sandbox",
            Check::NotAbsent => "Complete Information",
            Check::Cuisine => "Cuisine",
            Check::RoomRule => "Room Rule",
            Check::HardTransportation => "Transportation",
            Check::RoomType => "Room Type",
            Check::Cost => "Budget",
        }
    }

    pub fn is_hard(self) -> bool {
        Check::HARD.contains(&self)
    }

    pub fn from_key(key: &str) -> Option<Check> {
        Check::COMMONSENSE
            .into_iter()
            .chain(Check::HARD)
            .find(|c| c.key() == key)
    }
}

/// A plan cell: day index (0-based) and field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct CellRef {
    pub day: usize,
    pub field: Field,
}

pub(crate) fn cell(day: usize, field: Field) -> CellRef {
    CellRef { day, field }
}

/// One check's result: pass (None = not applicable), the official message,
/// and the plan cells the verdict concerns (for colouring; may be empty).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    pub pass: Option<bool>,
    pub message: Option<String>,
    pub cells: Vec<CellRef>,
}

impl Verdict {
    pub fn passed() -> Verdict {
        Verdict {
            pass: Some(true),
            message: None,
            cells: Vec::new(),
        }
    }
    pub fn failed(message: impl Into<String>, cells: Vec<CellRef>) -> Verdict {
        Verdict {
            pass: Some(false),
            message: Some(message.into()),
            cells,
        }
    }
    pub fn not_applicable() -> Verdict {
        Verdict {
            pass: None,
            message: None,
            cells: Vec::new(),
        }
    }
    /// `[pass, message]` as the official result tuples serialize.
    pub fn to_json(&self) -> Value {
        json!([self.pass, self.message])
    }
}

/// Where the official code would raise an exception, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crash(pub String);

impl Crash {
    fn into_verdict(self) -> Verdict {
        Verdict::failed(
            format!(
                "The official evaluator raises an error on this plan: {}",
                self.0
            ),
            Vec::new(),
        )
    }
}

/// The evaluation of one plan against one query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanEvaluation {
    /// None when no plan was delivered.
    pub commonsense: Option<Vec<(Check, Verdict)>>,
    /// None when not delivered, or when `is_not_absent` or
    /// `is_valid_information_in_sandbox` failed (eval.py skips the hard checks).
    pub hard: Option<Vec<(Check, Verdict)>>,
    /// The total cost the budget check computed, when it ran.
    pub total_cost: Option<f64>,
    /// Why the plan counts as not delivered.
    pub not_delivered: Option<String>,
}

impl PlanEvaluation {
    pub fn not_delivered(reason: impl Into<String>) -> PlanEvaluation {
        PlanEvaluation {
            commonsense: None,
            hard: None,
            total_cost: None,
            not_delivered: Some(reason.into()),
        }
    }

    pub fn delivered(&self) -> bool {
        self.commonsense.is_some()
    }

    pub fn verdict(&self, check: Check) -> Option<&Verdict> {
        let list = if check.is_hard() {
            self.hard.as_ref()
        } else {
            self.commonsense.as_ref()
        };
        list?.iter().find(|(c, _)| *c == check).map(|(_, v)| v)
    }

    /// eval.py's macro rule: delivered and no commonsense check False.
    pub fn commonsense_pass(&self) -> bool {
        none_failed(self.commonsense.as_deref())
    }

    /// eval.py's macro rule: hard checks ran and none is False (whatever
    /// the commonsense result, README quirk 14).
    pub fn hard_pass(&self) -> bool {
        none_failed(self.hard.as_deref())
    }

    pub fn final_pass(&self) -> bool {
        self.commonsense_pass() && self.hard_pass()
    }

    /// `{check: [pass, message], ...}` in the official order, or null.
    pub fn commonsense_json(&self) -> String {
        verdicts_json(self.commonsense.as_deref())
    }

    pub fn hard_json(&self) -> String {
        verdicts_json(self.hard.as_deref())
    }
}

fn none_failed(list: Option<&[(Check, Verdict)]>) -> bool {
    list.is_some_and(|l| l.iter().all(|(_, v)| v.pass != Some(false)))
}

/// An ordered JSON object text (serde_json's map would sort the keys).
fn verdicts_json(list: Option<&[(Check, Verdict)]>) -> String {
    let Some(list) = list else {
        return "null".into();
    };
    let parts: Vec<String> = list
        .iter()
        .map(|(c, v)| format!("\"{}\": {}", c.key(), v.to_json()))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// What the checks read: the database, the query, every plan day, and the
/// days the loops visit (`range(min(query.days, len(plan)))`).
pub(crate) struct Ctx<'a> {
    pub db: &'a TravelDb,
    pub q: &'a Query,
    pub all: &'a [PlanDay],
    pub days: &'a [PlanDay],
}

impl<'a> Ctx<'a> {
    fn new(db: &'a TravelDb, q: &'a Query, plan: &'a Plan) -> Self {
        let n = (q.days as usize).min(plan.days.len());
        Ctx {
            db,
            q,
            all: &plan.days,
            days: &plan.days[..n],
        }
    }
}

type CheckFn = fn(&Ctx) -> Result<Verdict, Crash>;

/// The commonsense checks in the official order.
const COMMONSENSE_CHECKS: [(Check, CheckFn); 8] = [
    (
        Check::ReasonableVisitingCity,
        commonsense::reasonable_visiting_city,
    ),
    (Check::ValidRestaurants, commonsense::valid_restaurants),
    (Check::ValidAttractions, commonsense::valid_attractions),
    (Check::ValidAccommodation, commonsense::valid_accommodation),
    (
        Check::ValidTransportation,
        commonsense::valid_transportation,
    ),
    (
        Check::InformationInCurrentCity,
        commonsense::information_in_current_city,
    ),
    (
        Check::InformationInSandbox,
        in_sandbox::information_in_sandbox,
    ),
    (Check::NotAbsent, absent::not_absent),
];

/// The hard checks before the budget, in the official order.
const HARD_CHECKS: [(Check, CheckFn); 4] = [
    (Check::Cuisine, hard::cuisine),
    (Check::RoomRule, hard::room_rule),
    (Check::HardTransportation, hard::transportation),
    (Check::RoomType, hard::room_type),
];

fn run(ctx: &Ctx, checks: &[(Check, CheckFn)]) -> Vec<(Check, Verdict)> {
    checks
        .iter()
        .map(|(c, f)| (*c, f(ctx).unwrap_or_else(Crash::into_verdict)))
        .collect()
}

/// The hard checks and the total cost (None where Python would raise).
fn hard_checks(ctx: &Ctx) -> (Vec<(Check, Verdict)>, Option<f64>) {
    let cost = hard::total_cost(ctx);
    let budget = match &cost {
        Ok(total) => Verdict {
            pass: Some(*total <= ctx.q.budget),
            message: None,
            cells: Vec::new(),
        },
        Err(crash) => crash.clone().into_verdict(),
    };
    let mut list = run(ctx, &HARD_CHECKS);
    list.push((Check::Cost, budget));
    (list, cost.ok())
}

/// Evaluates a delivered plan (an empty plan counts as not delivered). The
/// hard checks run only when `is_not_absent` and
/// `is_valid_information_in_sandbox` pass, as in eval.py.
pub fn evaluate(db: &TravelDb, query: &Query, plan: &Plan) -> PlanEvaluation {
    if plan.is_empty() {
        return PlanEvaluation::not_delivered("the plan is empty");
    }
    let ctx = Ctx::new(db, query, plan);
    let commonsense = run(&ctx, &COMMONSENSE_CHECKS);
    let passed = |c: Check| {
        commonsense
            .iter()
            .any(|(k, v)| *k == c && v.pass == Some(true))
    };
    let (hard, total_cost) = if passed(Check::NotAbsent) && passed(Check::InformationInSandbox) {
        let (list, cost) = hard_checks(&ctx);
        (Some(list), cost)
    } else {
        (None, None)
    };
    PlanEvaluation {
        commonsense: Some(commonsense),
        hard,
        total_cost,
        not_delivered: None,
    }
}

/// Evaluates the outcome of reading an LLM's plan.
pub fn evaluate_outcome(
    db: &TravelDb,
    query: &Query,
    plan: &Result<Plan, super::plan_parse::NotDelivered>,
) -> PlanEvaluation {
    match plan {
        Ok(p) => evaluate(db, query, p),
        Err(e) => PlanEvaluation::not_delivered(e.reason.clone()),
    }
}
