//! The demo model's travel team: it plays every role of the travel
//! coordinator (`coordinators::travel`) from what is in its request only —
//! the goal and trip facts, the public conversation, its own tool results
//! (native tool messages or text-protocol observations) and, for the plan
//! compiler, the notebook in the planning brief. It never touches the
//! database: experts really call the sandbox tools and read their tables
//! back, then pick by simple rules (the cheapest option that satisfies the
//! query).
//!
//! ```text
//! step tag ──► expert_turn (tool calls, then its part) ─┐
//!          ──► orchestrate (reflection + choice, JSON)  │ Reply { text, tool_calls }
//!          ──► compile (plan) / critique (review)       │
//!          ──► solo (ReAct: tools, then the plan) ──────┘
//! ```

mod compile;
mod critique;
mod expert_turn;
mod experts;
mod knowledge;
mod meals;
mod observe;
mod orchestrate;
mod parts;
mod request;
mod solo;
mod team;
mod transport;
mod trip;

use crate::engine::coordinators::travel::contract::{
    ExpertChoices, STEP_COMPILER, STEP_CRITIC, STEP_EXPERT_PREFIX, STEP_ORCHESTRATOR, STEP_SOLO,
};
use crate::engine::domains::travel::tools::parameter_names;
use crate::engine::model::{ChatRequest, ToolCall};

pub use crate::engine::model::demo::Reply;

/// The answer for a travel step, or None when the step is not a travel one.
pub fn answer(req: &ChatRequest) -> Option<Reply> {
    let step = req.step.as_deref()?;
    Some(
        if let Some(expert) = step.strip_prefix(STEP_EXPERT_PREFIX) {
            expert_turn::answer(expert, req)
        } else {
            match step {
                STEP_ORCHESTRATOR => orchestrate::answer(req),
                STEP_COMPILER => compile::answer(req),
                STEP_CRITIC => critique::answer(req),
                STEP_SOLO => solo::answer(req),
                _ => return None,
            }
        },
    )
}

/// Dollars as the team writes them: `$1234` or `$12.50`.
pub fn money(x: f64) -> String {
    if !x.is_finite() {
        return "$?".into();
    }
    if (x - x.round()).abs() < 0.005 {
        format!("${}", x.round() as i64)
    } else {
        format!("${x:.2}")
    }
}

/// A tool call the demo agent wants to make, with positional arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolUse {
    pub tool: String,
    pub args: Vec<String>,
}

impl ToolUse {
    pub fn new<S: AsRef<str>>(tool: &str, args: &[S]) -> ToolUse {
        ToolUse {
            tool: tool.to_string(),
            args: args.iter().map(|a| a.as_ref().to_string()).collect(),
        }
    }

    /// The text protocol's `Tool[arg, arg]`, quoting arguments that hold a
    /// separator.
    pub fn text(&self) -> String {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| {
                if a.contains([',', '[', ']', '\n']) {
                    format!("\"{}\"", a.replace(['"', '\n'], " "))
                } else {
                    a.clone()
                }
            })
            .collect();
        format!("{}[{}]", self.tool, args.join(", "))
    }

    /// A native call with named arguments (the tool's parameter order).
    pub fn native(&self, id: String) -> ToolCall {
        let names = parameter_names(&self.tool).unwrap_or(&[]);
        let map: serde_json::Map<String, serde_json::Value> = names
            .iter()
            .zip(&self.args)
            .map(|(n, a)| (n.to_string(), serde_json::Value::String(a.clone())))
            .collect();
        ToolCall {
            id,
            name: self.tool.clone(),
            arguments: serde_json::Value::Object(map).to_string(),
        }
    }
}

/// An agent's next move: call tools (with the thought that leads there), or
/// post its part with its choices.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Calls {
        thought: String,
        calls: Vec<ToolUse>,
    },
    Done {
        text: String,
        choices: ExpertChoices,
    },
}

/// A post ending with its ```json choices block, as the experts' prompt asks.
pub fn post_with_choices(text: &str, choices: &ExpertChoices) -> String {
    let json = serde_json::to_string_pretty(choices).unwrap_or_else(|_| "{}".into());
    format!("{}\n\n```json\n{json}\n```", text.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::text_tools::parse_first;

    #[test]
    fn money_and_tool_uses_are_written_as_the_tools_read_them() {
        assert_eq!(money(12.0), "$12");
        assert_eq!(money(12.5), "$12.50");
        assert_eq!(money(f64::NAN), "$?");
        let t = ToolUse::new("AccommodationSearch", &["Washington, D.C."]);
        let back = parse_first(&t.text(), &["AccommodationSearch"]).expect("call");
        assert_eq!(back.args, vec!["Washington, D.C."]);
        let n = ToolUse::new("FlightSearch", &["A", "B", "2024-01-01"]).native("c1".into());
        assert_eq!(
            n.parsed_arguments().expect("json")["destination"],
            serde_json::json!("B")
        );
    }
}
