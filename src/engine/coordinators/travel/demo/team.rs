//! The public conversation as the demo agents read it: each expert's latest
//! post and its ```json choices, the trip the transportation expert laid
//! out, and the plan the compiler last posted.

use super::trip::{route_legs, Trip};
use crate::engine::coordinators::travel::contract::{
    choices_in, parse_conversation, ExpertChoices, Leg, TripFacts, COMPILER, CRITIC, EXPERTS,
    TRANSPORTATION,
};
use crate::engine::domains::travel::{parse_plan_text, Plan};

/// An expert's standing in the conversation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Part {
    /// How many times it has posted.
    pub posts: u32,
    /// Its latest post's choices; None when the post had no readable block.
    pub choices: Option<ExpertChoices>,
}

#[derive(Clone, Debug, Default)]
pub struct Team {
    pub posts: Vec<(String, String)>,
}

impl Team {
    /// The conversation in a request's text.
    pub fn read(text: &str) -> Team {
        Team {
            posts: parse_conversation(text),
        }
    }

    pub fn part(&self, expert: &str) -> Part {
        let mine: Vec<&String> = self
            .posts
            .iter()
            .filter(|(id, _)| id == expert)
            .map(|(_, t)| t)
            .collect();
        Part {
            posts: mine.len() as u32,
            choices: mine.last().and_then(|t| choices_in(t)),
        }
    }

    /// The latest choices of every expert that posted readable ones.
    pub fn choices(&self) -> Vec<(&'static str, ExpertChoices)> {
        EXPERTS
            .iter()
            .filter_map(|e| self.part(e).choices.map(|c| (*e, c)))
            .collect()
    }

    /// The latest post by an agent.
    pub fn latest(&self, agent: &str) -> Option<&str> {
        self.posts
            .iter()
            .rev()
            .find(|(id, _)| id == agent)
            .map(|(_, t)| t.as_str())
    }

    /// The compiler's latest plan, or why none can be read.
    pub fn latest_plan(&self) -> Result<Plan, String> {
        let text = self
            .latest(COMPILER)
            .ok_or_else(|| "the compiler has not posted a plan".to_string())?;
        parse_plan_text(text).map_err(|e| e.reason)
    }

    /// The critic's latest review, if it came after the latest plan.
    pub fn pending_review(&self) -> Option<&str> {
        let last_plan = self.posts.iter().rposition(|(id, _)| id == COMPILER);
        let last_review = self.posts.iter().rposition(|(id, _)| id == CRITIC)?;
        (last_plan.is_none_or(|p| last_review > p)).then(|| self.posts[last_review].1.as_str())
    }
}

/// Where the trip stands for the other experts.
pub enum TripSource {
    /// Laid out by the transportation expert.
    Posted(Trip),
    /// Not posted yet, but the goal names a single city.
    Assumed(Trip),
}

impl TripSource {
    pub fn trip(&self) -> &Trip {
        match self {
            TripSource::Posted(t) | TripSource::Assumed(t) => t,
        }
    }
}

/// The trip from the transportation expert's latest choices, or (for a
/// one-city trip) from the goal; otherwise what is missing.
pub fn team_trip(facts: &TripFacts, team: &Team) -> Result<TripSource, String> {
    let part = team.part(TRANSPORTATION);
    if let Some(c) = part.choices.as_ref().filter(|c| !c.legs.is_empty()) {
        return Trip::new(facts, &c.legs)
            .map(TripSource::Posted)
            .map_err(|e| format!("the transportation plan is not a round trip I can use: {e}"));
    }
    if part.posts > 0 && facts.visiting_city_number > 1 {
        return Err("the transportation expert has not settled on cities I can use".to_string());
    }
    if facts.visiting_city_number <= 1 {
        let legs: Vec<Leg> = route_legs(facts, std::slice::from_ref(&facts.dest))
            .into_iter()
            .map(|(day, from, to)| Leg {
                day,
                from,
                to,
                text: String::new(),
                cost: 0.0,
            })
            .collect();
        return Trip::new(facts, &legs).map(TripSource::Assumed);
    }
    Err(format!(
        "the transportation expert has not chosen the cities yet: {} is a state with several cities",
        facts.dest
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::coordinators::travel::contract::format_conversation;

    #[test]
    fn parts_and_latest_plan_are_read() {
        let post = |id: &str, text: &str| (id.to_string(), id.to_string(), text.to_string());
        let text = format_conversation(&[
            post("hotel", "Here.\n```json\n{\"estimated_cost\": 5}\n```"),
            post("hotel", "Again, no block."),
            post(
                "compiler",
                "```json\n[{\"days\": 1, \"current_city\": \"A\"}]\n```",
            ),
            post("critic", "Day 1: wrong."),
        ]);
        let team = Team::read(&text);
        let h = team.part("hotel");
        assert_eq!((h.posts, h.choices), (2, None));
        assert_eq!(team.latest_plan().map(|p| p.days.len()), Ok(1));
        assert_eq!(team.pending_review(), Some("Day 1: wrong."));
        assert!(team.part("attraction").choices.is_none());
    }
}
