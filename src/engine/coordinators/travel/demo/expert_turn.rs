//! One expert's answer in its turn: read the trip facts, the conversation
//! and its own tool results; then either call the tools it still needs or
//! post its part with a ```json block of its choices. The transportation
//! expert follows the orchestrator's instruction when it names cities to
//! avoid or asks for a cheaper route.

use super::experts;
use super::knowledge::Knowledge;
use super::request::{no_facts, TravelRequest};
use super::team::{team_trip, Team, TripSource};
use super::transport::{self, RouteSearch};
use super::{post_with_choices, Reply, Step};
use crate::engine::coordinators::travel::contract::{
    expert_tools, ExpertChoices, TripFacts, EXPERTS, HOTEL, RESTAURANT, TRANSPORTATION,
};
use crate::engine::model::ChatRequest;

/// Where an instruction lists the cities to avoid: `(avoid: A, B)`.
pub const AVOID_MARK: &str = "(avoid: ";
/// Words in an instruction that ask for the cheapest of several routes.
pub const CHEAPER_MARK: &str = "cheaper";
/// How a post lists the cities it was asked to leave out.
pub const LEFT_OUT_MARK: &str = "As asked, I leave out ";
/// What a post says when several routes were compared.
pub const COMPARED_MARK: &str = "I compared the workable routes";

/// The cities an instruction asks to avoid.
pub fn avoided(instruction: &str) -> Vec<String> {
    let Some(start) = instruction.find(AVOID_MARK) else {
        return Vec::new();
    };
    let rest = &instruction[start + AVOID_MARK.len()..];
    let list = rest.split(')').next().unwrap_or("");
    list.split(',')
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

pub fn answer(expert: &str, req: &ChatRequest) -> Reply {
    let r = TravelRequest::read(req);
    if !EXPERTS.contains(&expert) {
        return Reply::text(format!(
            "**Offline demo** — scripted, not an LLM. There is no \"{expert}\" expert in the travel team \
(transportation, hotel, restaurant, attraction), so I have nothing to add."
        ));
    }
    let Some(facts) = r.facts.clone() else {
        let choices = ExpertChoices {
            problem: Some("the request has no trip facts".into()),
            ..ExpertChoices::default()
        };
        return Reply::text(post_with_choices(&no_facts(expert), &choices));
    };
    let team = Team::read(r.context);
    let k = Knowledge::from_observations(&r.observations());
    let may_call = r.may_call();
    let step = match expert {
        TRANSPORTATION => transportation(&facts, &k, r.instruction().unwrap_or(""), may_call),
        _ => match team_trip(&facts, &team) {
            Ok(source) => {
                let step = match expert {
                    HOTEL => experts::hotel(&facts, source.trip(), &k, may_call),
                    RESTAURANT => experts::restaurant(&facts, source.trip(), &k, may_call),
                    _ => experts::attraction(source.trip(), &k, may_call),
                };
                assumed_note(step, &source, &facts)
            }
            Err(why) => Step::Done {
                text: format!("I cannot do my part yet: {why}."),
                choices: ExpertChoices {
                    problem: Some(why),
                    ..ExpertChoices::default()
                },
            },
        },
    };
    match step {
        Step::Calls { thought, calls } => {
            let allowed = expert_tools(expert);
            let (ok, refused): (Vec<_>, Vec<_>) =
                calls.into_iter().partition(|c| r.offers(&c.tool, allowed));
            if ok.is_empty() {
                let names: Vec<String> = refused.iter().map(|c| c.tool.clone()).collect();
                let problem = format!(
                    "I would need {} but it is not offered to me",
                    names.join(", ")
                );
                let choices = ExpertChoices {
                    problem: Some(problem.clone()),
                    ..ExpertChoices::default()
                };
                return Reply::text(post_with_choices(&format!("{problem}."), &choices));
            }
            let turn = team.part(expert).posts + 1;
            r.call_reply(&format!("{expert}-t{turn}-r{}", r.rounds()), &thought, &ok)
        }
        Step::Done { text, choices } => Reply::text(post_with_choices(&text, &choices)),
    }
}

/// Says so when the trip was assumed from the goal rather than posted.
fn assumed_note(step: Step, source: &TripSource, facts: &TripFacts) -> Step {
    match (step, source) {
        (Step::Done { text, choices }, TripSource::Assumed(_)) => Step::Done {
            text: format!(
                "The transportation expert has not posted yet, so I assume the trip goes from {} to {} on day 1 and back on day {}.\n\n{text}",
                facts.org, facts.dest, facts.days
            ),
            choices,
        },
        (step, _) => step,
    }
}

fn transportation(facts: &TripFacts, k: &Knowledge, instruction: &str, may_call: bool) -> Step {
    let avoid = avoided(instruction);
    let compare = instruction.to_lowercase().contains(CHEAPER_MARK);
    match transport::decide(facts, k, &avoid, compare, may_call) {
        RouteSearch::Calls { thought, calls } => Step::Calls { thought, calls },
        RouteSearch::Chosen { choice, notes } => {
            let mut text = String::new();
            if !avoid.is_empty() {
                text.push_str(&format!("{LEFT_OUT_MARK}{}.\n\n", avoid.join(", ")));
            }
            if compare {
                text.push_str(&format!("{COMPARED_MARK} and kept the cheapest one.\n\n"));
            }
            text.push_str(&transport::summary(facts, &choice, &notes));
            Step::Done {
                text,
                choices: ExpertChoices {
                    route: choice.route.clone(),
                    legs: choice.legs.clone(),
                    estimated_cost: Some(choice.total),
                    ..ExpertChoices::default()
                },
            }
        }
        RouteSearch::Problem { problem, notes } => {
            let mut text = format!("**Problem:** {problem}.");
            if !notes.is_empty() {
                text.push_str("\n\nWhat I checked:\n");
                for n in &notes {
                    text.push_str(&format!("- {n}\n"));
                }
            }
            Step::Done {
                text,
                choices: ExpertChoices {
                    problem: Some(problem),
                    ..ExpertChoices::default()
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avoided_cities_are_read_from_the_instruction() {
        assert_eq!(
            avoided("Choose other cities (avoid: Calder, Borealis): no hotel fits."),
            vec!["Calder", "Borealis"]
        );
        assert!(avoided("Find a cheaper route.").is_empty());
    }
}
