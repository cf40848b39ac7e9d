//! The single agent (TravelPlanner's ReAct baseline): one context, every
//! tool. Step by step it applies the experts' rules in turn — route and
//! transport, then stays, meals and sights — calling the tools each rule
//! still needs, and when nothing is missing (or it has used its rounds)
//! answers with the plan.

use super::experts;
use super::knowledge::Knowledge;
use super::parts::{cost_line, place, Parts};
use super::request::{no_facts, TravelRequest};
use super::transport::{self, RouteSearch};
use super::trip::{plan_block, Trip};
use super::{Reply, Step};
use crate::engine::coordinators::travel::contract::SOLO;
use crate::engine::domains::travel::tools::TOOL_NAMES;
use crate::engine::model::ChatRequest;

/// Tool rounds before it writes the plan with what it has (the default step
/// limit is 16 agent turns).
const MAX_ROUNDS: usize = 12;

pub fn answer(req: &ChatRequest) -> Reply {
    let r = TravelRequest::read(req);
    let Some(facts) = r.facts.clone() else {
        return Reply::text(no_facts("planner"));
    };
    let k = Knowledge::from_observations(&r.observations());
    let may_call = r.rounds() < MAX_ROUNDS;
    let calls = |thought: String, calls: Vec<super::ToolUse>| {
        let ok: Vec<super::ToolUse> = calls
            .into_iter()
            .filter(|c| r.offers(&c.tool, &TOOL_NAMES))
            .collect();
        if ok.is_empty() {
            return None;
        }
        Some(r.call_reply(&format!("{SOLO}-r{}", r.rounds()), &thought, &ok))
    };
    let choice = match transport::decide(&facts, &k, &[], false, may_call) {
        RouteSearch::Calls { thought, calls: c } => match calls(thought, c) {
            Some(reply) => return reply,
            None => return Reply::text("I cannot call the tools I need (CitySearch, FlightSearch, GoogleDistanceMatrix), so I cannot plan this trip."),
        },
        RouteSearch::Chosen { choice, .. } => choice,
        RouteSearch::Problem { problem, .. } => {
            return Reply::text(format!("Thought: {problem}.\nI cannot write a plan for this trip."))
        }
    };
    let trip = match Trip::new(&facts, &choice.legs) {
        Ok(t) => t,
        Err(e) => {
            return Reply::text(format!(
                "Thought: my route does not work ({e}).\nI cannot write a plan."
            ))
        }
    };
    let mut parts = Parts::default();
    let steps = [
        experts::hotel(&facts, &trip, &k, may_call),
        experts::restaurant(&facts, &trip, &k, may_call),
        experts::attraction(&trip, &k, may_call),
    ];
    for step in steps {
        match step {
            Step::Calls { thought, calls: c } => {
                if let Some(reply) = calls(thought, c) {
                    return reply;
                }
            }
            Step::Done { choices, .. } => {
                parts.stays.extend(choices.stays);
                parts.restaurants.extend(choices.restaurants);
                parts.attractions.extend(choices.attractions);
            }
        }
    }
    let placed = place(&facts, &trip, &parts);
    let mut text = format!(
        "Thought: I have the route ({}), the stays, the meals and the sights; here is the plan.\n",
        transport_route(&facts.org, &choice.route)
    );
    for g in &placed.gaps {
        text.push_str(&format!("- Not filled: {g}.\n"));
    }
    text.push_str(&format!(
        "\n{}\n\n{}",
        cost_line(placed.cost, facts.budget),
        plan_block(&placed.plan)
    ));
    Reply::text(text)
}

fn transport_route(org: &str, route: &[String]) -> String {
    let mut seq = vec![org];
    seq.extend(route.iter().map(String::as_str));
    seq.push(org);
    seq.join(" → ")
}
