//! The travel planner's replies: the experts' choices (their fenced JSON
//! block), the orchestrator's decision (its JSON Schema, the step's shape,
//! is made from [`Decision`]) and the critic's approval.

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

/// The critic's reply: `APPROVED` on its own line, or a list of issues.
pub const APPROVED: &str = "APPROVED";
