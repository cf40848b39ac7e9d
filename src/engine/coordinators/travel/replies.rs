//! The travel planner's replies: the experts' choices (their fenced JSON
//! block), the orchestrator's decision and the compiler's plan (their JSON
//! Schemas, the steps' shapes, are made from [`Decision`] and
//! [`PlanReply`]) and the critic's review ([`CriticReply`]).

use super::contract::{ATTRACTION, HOTEL, PLAN, RESTAURANT, TRANSPORTATION};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Experts end their post with a ```json block of their choices, in the
/// shape of their domain; `problem` says what they could not find.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExpertChoices {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub route: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub legs: Vec<Leg>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stays: Vec<Stay>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restaurants: Vec<Place>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attractions: Vec<Place>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// What this part of the trip costs the whole group, in dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_cost: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Leg {
    /// 1-based day of travel.
    pub day: u32,
    pub from: String,
    pub to: String,
    /// The plan text, e.g. `Flight Number: F123, from A to B, Departure Time: 10:00, Arrival Time: 12:00`
    /// or `Self-driving, from A to B, duration: 1 hour, distance: 100 km, cost: 5`.
    pub text: String,
    #[serde(default)]
    pub cost: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stay {
    pub city: String,
    pub name: String,
    pub nights: u32,
    #[serde(default)]
    pub cost: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Place {
    pub city: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuisines: Option<String>,
}

/// The orchestrator's reply (JSON object): its self-reflection and choice.
/// Its JSON Schema (the step's shape) is made from this type; its notes are
/// bounded (`maxLength`), so a reply held to the shape cannot spend its
/// tokens on one note before it names the next agent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Decision {
    /// What is settled so far.
    #[serde(default)]
    #[schemars(length(max = 400))]
    pub done: String,
    /// What is missing.
    #[serde(default)]
    #[schemars(length(max = 400))]
    pub missing: String,
    /// Conflicts between parts (budget, cities, dates).
    #[serde(default)]
    #[schemars(length(max = 400))]
    pub conflicts: String,
    /// One of the experts' ids, or "plan".
    #[schemars(schema_with = "next_schema")]
    pub next: String,
    /// Why this agent, and what it should do.
    #[serde(default)]
    #[schemars(length(max = 600))]
    pub instruction: String,
}

/// `next`: an expert's id or "plan".
fn next_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    use schemars::schema::{InstanceType, SchemaObject};
    let ids = [TRANSPORTATION, HOTEL, RESTAURANT, ATTRACTION, PLAN];
    SchemaObject {
        instance_type: Some(InstanceType::String.into()),
        enum_values: Some(ids.iter().map(|id| Value::from(*id)).collect()),
        ..Default::default()
    }
    .into()
}

/// The plan compiler's reply (JSON object): the plan, one object per day
/// with TravelPlanner's eight keys, then the compiler's notes. Its JSON
/// Schema is the compiler step's shape; the plan comes first, so a model
/// held to the shape writes the plan before any note, and every text is
/// bounded so no field can spend the answer's tokens.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanReply {
    /// The days in order (TravelPlanner's trips last 3, 5 or 7 days).
    #[schemars(length(min = 1, max = 7))]
    pub plan: Vec<PlanDayReply>,
    /// What the travellers should know: gaps, the cost, what was changed.
    #[serde(default)]
    #[schemars(length(max = 1500))]
    pub notes: String,
}

/// One day of the plan, in the keys and formats the evaluator reads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanDayReply {
    #[schemars(range(min = 1, max = 7))]
    pub days: u32,
    /// The city, or "from A to B" on a travel day.
    #[schemars(length(max = 100))]
    pub current_city: String,
    /// The leg's exact text, or "-".
    #[schemars(length(max = 200))]
    pub transportation: String,
    /// "Name, City" or "-".
    #[schemars(length(max = 120))]
    pub breakfast: String,
    /// "Name, City" entries separated by ";", or "-".
    #[schemars(length(max = 300))]
    pub attraction: String,
    #[schemars(length(max = 120))]
    pub lunch: String,
    #[schemars(length(max = 120))]
    pub dinner: String,
    #[schemars(length(max = 120))]
    pub accommodation: String,
}

/// The plan critic's reply (JSON object): what it checked, the problems it
/// found, then its verdict. Its JSON Schema is the critic step's shape; the
/// verdict comes last, so a model held to it writes what is wrong before it
/// decides.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CriticReply {
    /// What was checked, in a sentence or two.
    #[serde(default)]
    #[schemars(length(max = 400))]
    pub summary: String,
    /// Each problem: the day, the field, what is wrong, what to use instead.
    #[schemars(length(max = 20))]
    #[schemars(inner(length(max = 400)))]
    pub problems: Vec<String>,
    /// True only when no problem is listed.
    pub approved: bool,
}

/// The critic's approval in prose (before the critic had a shape, and what
/// a reply without JSON is read by): `APPROVED` on its own line.
pub const APPROVED: &str = "APPROVED";
