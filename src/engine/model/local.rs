//! What the two hosts of the local model share (the page's worker bridge,
//! `platform::local_model`, and the CLI's model thread, `cli::local_model`):
//! how a request becomes the chat template's turns and the engine's
//! parameters (the one place [`GenParams`] is built), and the sampling seed.

use super::shape::StructuredMode;
use super::worker_protocol::{ChatTurn, GenParams, LocalSampling, Sampling};
use super::{ChatRequest, Role};

/// The sampling seed of every local answer (greedy answers ignore it).
pub const LOCAL_SEED: u64 = 42;

/// The conversation as a chat template gets it, as (role, content): tool
/// results become user turns (the text tool protocol), tool calls their text.
pub fn chat_turns(req: &ChatRequest) -> impl Iterator<Item = (&'static str, &str)> {
    req.messages.iter().map(|m| {
        let role = match m.role {
            Role::System => "system",
            Role::User | Role::Tool => "user",
            Role::Assistant => "assistant",
        };
        (role, m.content.as_str())
    })
}

/// The turns the engine's chat template gets.
pub fn turns(req: &ChatRequest) -> Vec<ChatTurn> {
    chat_turns(req)
        .map(|(role, content)| ChatTurn {
            role: role.into(),
            content: content.into(),
        })
        .collect()
}

/// The longest answer the local engine writes when a request sets none
/// (the model worker's `DEFAULT_MAX_TOKENS`).
pub const LOCAL_MAX_TOKENS: u32 = 512;

/// How the engine writes the answer to `req`: the request's temperature
/// (the run context filled it in: its own, else the run's, else the
/// coordinator's), its longest answer, and the spec's sampler settings.
pub fn gen_params(req: &ChatRequest, local: &LocalSampling) -> GenParams {
    GenParams {
        sampling: Sampling {
            temperature: req.params.temperature,
            local: local.clone(),
        },
        max_tokens: req.params.max_tokens,
        seed: LOCAL_SEED,
        // A structured step is decoded under its schema.
        schema: req.params.schema.as_ref().map(|s| s.decoding_form()),
        // A step in a text protocol (tool calls), under its grammar.
        grammar: req.params.grammar.as_ref().map(|g| g.lark()),
    }
}

/// How a local answer to `req` was held to its shape: the schema (or the
/// grammar of a text protocol), when the engine held it from first token
/// to last (`held`); the prompt alone when it could not (said, never
/// silent); none for a free-text step.
pub fn held_mode(req: &ChatRequest, held: bool) -> Option<StructuredMode> {
    let by = match (&req.params.schema, &req.params.grammar) {
        (Some(_), _) => StructuredMode::Schema,
        (None, Some(_)) => StructuredMode::Grammar,
        (None, None) => return None,
    };
    Some(if held { by } else { StructuredMode::Prompt })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::Message;

    #[test]
    fn tool_results_are_user_turns() {
        let req = ChatRequest::new(vec![
            Message::system("s"),
            Message::user("u"),
            Message::assistant("a"),
            Message::tool_result("c1", "r"),
        ]);
        let roles: Vec<&str> = chat_turns(&req).map(|(r, _)| r).collect();
        assert_eq!(roles, ["system", "user", "assistant", "user"]);
    }
}
