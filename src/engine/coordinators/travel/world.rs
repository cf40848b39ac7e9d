//! The state of a travel run as the paper defines it: the goal G, the
//! public conversation c and the notebook N, plus the bookkeeping the
//! metrics need (who has spoken, revisits, steps).

use super::contract::*;
use crate::engine::domains::travel::Query;
use std::collections::BTreeMap;

pub struct World {
    pub query: Query,
    pub facts: TripFacts,
    /// c: (agent id, display name, text), in order.
    pub posts: Vec<(String, String, String)>,
    /// N: every expert tool return, in order.
    pub notebook: Vec<NotebookEntry>,
    /// Experts that have taken a turn.
    pub spoken: Vec<String>,
    pub revisits: BTreeMap<String, u32>,
    pub steps: u32,
    pub max_steps: u32,
}

pub fn display_name(agent: &str) -> &'static str {
    match agent {
        TRANSPORTATION => "Transportation expert",
        HOTEL => "Hotel expert",
        RESTAURANT => "Restaurant expert",
        ATTRACTION => "Attraction expert",
        ORCHESTRATOR => "Orchestrator",
        SUMMARIZER => "Plan summarizer",
        COMPILER => "Plan compiler",
        CRITIC => "Plan critic",
        SOLO => "Planner agent",
        _ => "Agent",
    }
}

impl World {
    pub fn new(query: Query, max_steps: u32) -> Self {
        let lc = &query.local_constraint;
        let facts = TripFacts {
            org: query.org.clone(),
            dest: query.dest.clone(),
            days: query.days,
            visiting_city_number: query.visiting_city_number,
            dates: query.date.clone(),
            people_number: query.people_number,
            budget: query.budget,
            house_rule: lc.house_rule.clone(),
            cuisine: lc.cuisine.clone(),
            room_type: lc.room_type.clone(),
            transportation: lc.transportation.clone(),
        };
        World {
            query,
            facts,
            posts: Vec::new(),
            notebook: Vec::new(),
            spoken: Vec::new(),
            revisits: BTreeMap::new(),
            steps: 0,
            max_steps,
        }
    }

    /// G with its structured facts: the start of every request.
    pub fn goal_block(&self) -> String {
        format!(
            "{GOAL_HEADING}\n{}\n\n{FACTS_HEADING}\n```json\n{}\n```\n",
            self.query.query.trim(),
            serde_json::to_string_pretty(&self.facts).unwrap_or_default()
        )
    }

    pub fn conversation(&self) -> String {
        format_conversation(&self.posts)
    }

    pub fn post(&mut self, agent: &str, text: &str) {
        self.posts.push((
            agent.to_string(),
            display_name(agent).to_string(),
            text.to_string(),
        ));
    }

    /// Counts a step; false when the step limit is reached.
    pub fn take_step(&mut self) -> bool {
        if self.steps >= self.max_steps {
            return false;
        }
        self.steps += 1;
        true
    }

    /// Records that an expert takes a turn; a second or later turn is a revisit.
    pub fn expert_turn_starts(&mut self, expert: &str) {
        if self.spoken.iter().any(|e| e == expert) {
            *self.revisits.entry(expert.to_string()).or_insert(0) += 1;
        } else {
            self.spoken.push(expert.to_string());
        }
    }

    /// The notebook as the summarizer shows it to the compiler.
    pub fn notebook_section(&self) -> String {
        let mut s = format!("{NOTEBOOK_HEADING}\n");
        if self.notebook.is_empty() {
            s.push_str("(empty)\n");
        }
        for (i, e) in self.notebook.iter().enumerate() {
            s.push_str(&format!(
                "## N{} · {} · {}[{}]\n{}\n\n",
                i + 1,
                display_name(&e.author),
                e.tool,
                e.args.join(", "),
                e.content.trim()
            ));
        }
        s
    }
}
