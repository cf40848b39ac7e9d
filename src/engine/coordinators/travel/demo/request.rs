//! Reading a travel request as the demo agent sees it: the first user
//! message (goal, trip facts, conversation, turn — or the compiler's brief),
//! the coordinator's instruction, the tool results in its own context, and
//! whether it may still call tools; and writing tool calls back in the
//! protocol the request uses (native calls when tools are offered, the text
//! protocol otherwise).

use super::observe::{observations, Observation};
use super::{Reply, ToolUse};
use crate::engine::coordinators::travel::contract::{
    trip_facts_in, TripFacts, FACTS_HEADING, GOAL_HEADING, OBSERVATION_PREFIX,
};
use crate::engine::model::{ChatRequest, Role};

/// The line prefix the coordinator uses for the orchestrator's instruction.
const INSTRUCTION_PREFIX: &str = "The coordinator asks:";

pub struct TravelRequest<'a> {
    pub req: &'a ChatRequest,
    /// The first user message.
    pub context: &'a str,
    pub facts: Option<TripFacts>,
}

impl<'a> TravelRequest<'a> {
    pub fn read(req: &'a ChatRequest) -> TravelRequest<'a> {
        let context = req
            .messages
            .iter()
            .find(|m| m.role == Role::User)
            .map_or("", |m| m.content.as_str());
        TravelRequest {
            req,
            context,
            facts: trip_facts_in(context),
        }
    }

    /// The goal's text (the query as the travellers wrote it).
    pub fn goal(&self) -> String {
        let Some(start) = self.context.find(GOAL_HEADING) else {
            return String::new();
        };
        let body = &self.context[start + GOAL_HEADING.len()..];
        let end = body.find(FACTS_HEADING).unwrap_or(body.len());
        body[..end].trim().to_string()
    }

    /// What the orchestrator asked this agent to do, if anything.
    pub fn instruction(&self) -> Option<&'a str> {
        self.context
            .lines()
            .find_map(|l| l.trim().strip_prefix(INSTRUCTION_PREFIX))
            .map(str::trim)
    }

    /// The tool results in the agent's own context.
    pub fn observations(&self) -> Vec<Observation> {
        observations(self.req)
    }

    /// Assistant turns so far (tool-call rounds already taken).
    pub fn rounds(&self) -> usize {
        self.req
            .messages
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .count()
    }

    /// False when the coordinator told the agent to answer now: the last
    /// message is a user message that is neither the first one nor an
    /// observation.
    pub fn may_call(&self) -> bool {
        let users: Vec<usize> = self
            .req
            .messages
            .iter()
            .enumerate()
            .filter(|(_, m)| m.role == Role::User)
            .map(|(i, _)| i)
            .collect();
        let last = self.req.messages.len().saturating_sub(1);
        let forced = users.len() > 1
            && users.last() == Some(&last)
            && !self.req.messages[last]
                .content
                .trim_start()
                .starts_with(OBSERVATION_PREFIX);
        !forced
    }

    /// Whether tools are offered natively (else the text protocol is used).
    pub fn native(&self) -> bool {
        !self.req.tools.is_empty()
    }

    /// Whether `tool` may be called: offered natively, or (text protocol)
    /// one of `allowed`.
    pub fn offers(&self, tool: &str, allowed: &[&str]) -> bool {
        if self.native() {
            self.req.tools.iter().any(|t| t.name == tool)
        } else {
            allowed.contains(&tool)
        }
    }

    /// A reply making `calls`: native tool calls with ids `<prefix>-<i>`,
    /// or `Action: Tool[args]` lines after the thought.
    pub fn call_reply(&self, prefix: &str, thought: &str, calls: &[ToolUse]) -> Reply {
        if self.native() {
            return Reply {
                text: format!("Thought: {thought}"),
                tool_calls: calls
                    .iter()
                    .enumerate()
                    .map(|(i, c)| c.native(format!("{prefix}-{i}")))
                    .collect(),
            };
        }
        let mut text = format!("Thought: {thought}\n");
        for c in calls {
            text.push_str(&format!("Action: {}\n", c.text()));
        }
        Reply::text(text.trim_end())
    }
}

/// The answer when a request lacks the trip facts every travel request has.
pub fn no_facts(role: &str) -> String {
    format!(
        "**Offline demo** — scripted, not an LLM. As the {role} I need the trip facts (a `{FACTS_HEADING}` section \
with a JSON block), and this request has none, so I cannot plan anything."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::Message;

    #[test]
    fn forced_answers_and_instructions_are_recognised() {
        let first =
            Message::user("# Goal\nGo.\n\n# Your turn\nGo.\nThe coordinator asks: find 2 nights");
        let req = ChatRequest::new(vec![Message::system("s"), first.clone()]);
        let r = TravelRequest::read(&req);
        assert!(r.may_call());
        assert_eq!(r.instruction(), Some("find 2 nights"));
        assert_eq!(
            r.goal(),
            "Go.\n\n# Your turn\nGo.\nThe coordinator asks: find 2 nights"
        );
        assert!(r.facts.is_none());
        let req = ChatRequest::new(vec![
            first.clone(),
            Message::assistant("Action: CitySearch[X]"),
            Message::user("Observation: CitySearch[X]\n['A']"),
        ]);
        assert!(TravelRequest::read(&req).may_call());
        let req = ChatRequest::new(vec![first, Message::user("Answer now.")]);
        assert!(!TravelRequest::read(&req).may_call());
        assert!(no_facts("hotel expert").contains("Trip facts"));
    }
}
