//! The plan compiler: writes the plan in the format its prompt asks for
//! (a ```json array of day objects) from the planning brief and the
//! conversation. It follows the experts' choices; with a notebook in the
//! brief it reads the raw tool tables back and fills what the conversation
//! lacks by the experts' own rules. Asked by the critic to fix a plan, it
//! also replans over everything the notebook holds (a partial sandbox
//! rebuilt from the tables, solved by the rule-based planner) and keeps
//! whichever plan passes the critic's checklist best.

use super::critique::problems;
use super::experts;
use super::knowledge::{query_of, Knowledge};
use super::observe::notebook_entries;
use super::parts::{cost_line, place, Parts, Placed};
use super::request::{no_facts, TravelRequest};
use super::team::{team_trip, Team, TripSource};
use super::transport::{self, RouteSearch};
use super::trip::{plan_reply, Trip};
use super::{Reply, Step};
use crate::engine::coordinators::travel::contract::{
    ExpertChoices, TripFacts, ATTRACTION, HOTEL, RESTAURANT,
};
use crate::engine::domains::travel::greedy;
use crate::engine::model::ChatRequest;

pub fn answer(req: &ChatRequest) -> Reply {
    let r = TravelRequest::read(req);
    let Some(facts) = r.facts.clone() else {
        return Reply::text(no_facts("plan compiler"));
    };
    let team = Team::read(r.context);
    let k = notebook_entries(r.context).map(|n| Knowledge::from_observations(&n));
    let mut draft = match draft(&facts, &team, k.as_ref()) {
        Ok(d) => d,
        Err(why) => {
            return Reply::text(format!(
                "I cannot write a plan: {why}. The team needs to settle the route first."
            ))
        }
    };
    if let (Some(_), Some(k)) = (team.pending_review(), k.as_ref()) {
        draft = revise(&facts, draft, k, &r.goal());
        draft.notes.insert(
            0,
            "The critic asked for changes: I rebuilt the plan and checked it against the notebook."
                .into(),
        );
    }
    let mut notes = vec![draft.source.clone()];
    notes.extend(draft.notes.iter().map(|n| format!("- {n}")));
    notes.extend(
        draft
            .placed
            .gaps
            .iter()
            .map(|g| format!("- Not filled: {g}.")),
    );
    notes.push(cost_line(draft.placed.cost, facts.budget));
    Reply::text(plan_reply(&draft.placed.plan, &notes.join("\n")))
}

struct Draft {
    placed: Placed,
    source: String,
    notes: Vec<String>,
}

fn choices_of(team: &Team, expert: &str) -> ExpertChoices {
    team.part(expert).choices.unwrap_or_default()
}

/// The trip: the one the team settled on, else (with a notebook) the
/// transportation rule applied to the notebook.
fn trip_of(
    facts: &TripFacts,
    team: &Team,
    k: Option<&Knowledge>,
) -> Result<(Trip, Option<String>), String> {
    let from_notebook = |why: String| {
        let k = k.ok_or_else(|| why.clone())?;
        match transport::decide(facts, k, &[], false, false) {
            RouteSearch::Chosen { choice, .. } => Trip::new(facts, &choice.legs)
                .map(|t| {
                    (
                        t,
                        Some(format!("The route comes from the notebook ({why}).")),
                    )
                })
                .map_err(|e| format!("{why}; the notebook's route does not work either: {e}")),
            RouteSearch::Problem { problem, .. } => {
                Err(format!("{why}; from the notebook: {problem}"))
            }
            RouteSearch::Calls { .. } => Err(why),
        }
    };
    match team_trip(facts, team) {
        Ok(TripSource::Posted(t)) => Ok((t, None)),
        Ok(TripSource::Assumed(t)) => {
            from_notebook("the transportation expert posted no legs".into()).or(Ok((t, None)))
        }
        Err(why) => from_notebook(why),
    }
}

/// The parts the notebook supports for this trip, by the experts' rules.
fn notebook_parts(facts: &TripFacts, trip: &Trip, k: &Knowledge) -> Parts {
    let done = |s: Step| match s {
        Step::Done { choices, .. } => choices,
        Step::Calls { .. } => ExpertChoices::default(),
    };
    Parts {
        stays: done(experts::hotel(facts, trip, k, false)).stays,
        restaurants: done(experts::restaurant(facts, trip, k, false)).restaurants,
        attractions: done(experts::attraction(trip, k, false)).attractions,
    }
}

fn draft(facts: &TripFacts, team: &Team, k: Option<&Knowledge>) -> Result<Draft, String> {
    let (trip, route_note) = trip_of(facts, team, k)?;
    let parts = Parts {
        stays: choices_of(team, HOTEL).stays,
        restaurants: choices_of(team, RESTAURANT).restaurants,
        attractions: choices_of(team, ATTRACTION).attractions,
    };
    let mut placed = place(facts, &trip, &parts);
    let mut notes: Vec<String> = route_note.into_iter().collect();
    if let (false, Some(k)) = (placed.gaps.is_empty(), k) {
        let filled = place(facts, &trip, &parts.then(&notebook_parts(facts, &trip, k)));
        if filled.gaps.len() < placed.gaps.len() {
            notes.push(format!(
                "The conversation left {} gap{}; I filled what I could from the notebook's tables by the experts' rules.",
                placed.gaps.len(),
                if placed.gaps.len() == 1 { "" } else { "s" }
            ));
            placed = filled;
        }
    }
    Ok(Draft {
        placed,
        source: "The plan follows the experts' choices in the conversation; every name is copied from their findings.".into(),
        notes,
    })
}

/// After a review: the draft, or the rule-based planner's plan over the
/// notebook when it passes more of the critic's checks (then cheaper).
fn revise(facts: &TripFacts, draft: Draft, k: &Knowledge, goal: &str) -> Draft {
    let cuisines = |name: &str, city: &str| {
        k.restaurants_in(city)
            .and_then(|rows| rows.iter().find(|r| r.name == name))
            .map(|r| r.cuisines.clone())
    };
    let score = |p: &Placed| {
        (
            problems(facts, &p.plan, Some(p.cost), &cuisines).len(),
            p.cost,
        )
    };
    let Ok(g) = greedy::solve(&k.to_db(facts), &query_of(facts, goal)) else {
        return draft;
    };
    let alt = Placed {
        plan: g.plan,
        cost: g.estimated_cost,
        gaps: Vec::new(),
    };
    let (a, b) = (score(&draft.placed), score(&alt));
    if b.0 < a.0 || (b.0 == a.0 && b.1 + 0.5 < a.1) {
        Draft {
            placed: alt,
            source: "I replanned over everything in the notebook with the rule-based planner (cheapest options that \
satisfy the query, over every route the notebook covers): it fixes more of the critic's points than the team's choices."
                .into(),
            notes: vec![format!("Route: {}.", g.route.join(" → "))],
        }
    } else {
        draft
    }
}
