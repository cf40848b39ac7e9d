//! Provider-neutral chat types: messages, tools, tool calls, usage.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One chat message. Assistant messages may carry tool calls; tool messages
/// answer one tool call by id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    #[serde(default)]
    pub content: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    fn plain(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
    pub fn system(content: impl Into<String>) -> Self {
        Self::plain(Role::System, content)
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self::plain(Role::User, content)
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::plain(Role::Assistant, content)
    }
    pub fn assistant_with_tools(content: impl Into<String>, calls: Vec<ToolCall>) -> Self {
        Message {
            tool_calls: calls,
            ..Self::plain(Role::Assistant, content)
        }
    }
    pub fn tool_result(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Message {
            tool_call_id: Some(call_id.into()),
            ..Self::plain(Role::Tool, content)
        }
    }
}

/// A tool offered to the model, with a JSON-schema for its arguments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

/// A tool call requested by the model. `arguments` is the raw JSON text the
/// model produced: it is untrusted and may not parse.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

impl ToolCall {
    /// Parses the arguments as a JSON object, with a message saying what is wrong.
    pub fn parsed_arguments(&self) -> Result<serde_json::Map<String, serde_json::Value>, String> {
        let text = if self.arguments.trim().is_empty() {
            "{}"
        } else {
            self.arguments.as_str()
        };
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(map)) => Ok(map),
            Ok(other) => Err(format!(
                "arguments of {} must be a JSON object, got {}",
                self.name,
                json_kind(&other)
            )),
            Err(e) => Err(format!(
                "arguments of {} are not valid JSON: {e}",
                self.name
            )),
        }
    }
}

pub(crate) fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// Token usage of one call. `estimated` is true when the provider did not
/// report usage and the numbers were estimated from text length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl Usage {
    /// Tokens as the provider (or the in-page model) counted them.
    pub const fn counted(input_tokens: u64, output_tokens: u64) -> Usage {
        Usage {
            input_tokens,
            output_tokens,
            estimated: false,
        }
    }

    /// Rough token estimate (about four characters per token).
    pub fn estimate(input_chars: usize, output_chars: usize) -> Usage {
        Usage {
            input_tokens: input_chars.div_ceil(4) as u64,
            output_tokens: output_chars.div_ceil(4) as u64,
            estimated: true,
        }
    }
}

/// Sampling and protocol parameters of a request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Ask for a JSON object answer (provider JSON mode where available).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub json_mode: bool,
    /// The shape the step's reply must have: sent in the provider's
    /// structured-output mode, recorded, shown by the inspector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<super::shape::ReplySchema>,
    /// The tools a reply in the text tool protocol may call: a model run
    /// here is held to their grammar (a call whole or none). Recorded,
    /// shown by the inspector; never sent to a provider (the prompt
    /// describes the protocol).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grammar: Option<super::text_tools::CallGrammar>,
    /// Stream the answer (false = one-shot request).
    #[serde(default = "yes")]
    pub stream: bool,
}

fn yes() -> bool {
    true
}

/// A request to a chat model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    #[serde(default)]
    pub params: RequestParams,
    /// Machine-readable step tag (e.g. `single.answer`). Never sent to a
    /// provider; the offline demo model uses it to know which step it plays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
}

impl ChatRequest {
    pub fn new(messages: Vec<Message>) -> Self {
        ChatRequest {
            messages,
            tools: Vec::new(),
            params: RequestParams {
                stream: true,
                ..RequestParams::default()
            },
            step: None,
        }
    }
    pub fn with_step(mut self, step: impl Into<String>) -> Self {
        self.step = Some(step.into());
        self
    }
    /// Asks for a reply of this shape (a JSON object).
    pub fn with_schema(mut self, schema: super::shape::ReplySchema) -> Self {
        self.params.json_mode = true;
        self.params.schema = Some(schema);
        self
    }
    /// Asks a model run here to hold the reply to the text tool
    /// protocol's grammar for these tools.
    pub fn with_grammar(mut self, grammar: super::text_tools::CallGrammar) -> Self {
        self.params.grammar = Some(grammar);
        self
    }
    /// The request as a log matches it: what was asked, not how the
    /// provider was held to its shape or grammar (runs recorded before shapes were
    /// sent still replay and fork).
    pub fn same_ask(&self, other: &ChatRequest) -> bool {
        let plain = |r: &ChatRequest| {
            let mut p = r.params.clone();
            p.json_mode = false;
            p.schema = None;
            p.grammar = None;
            p
        };
        self.messages == other.messages
            && self.tools == other.tools
            && self.step == other.step
            && plain(self) == plain(other)
    }
    pub fn with_tools(mut self, tools: Vec<ToolSpec>) -> Self {
        self.tools = tools;
        self
    }
    /// Total characters of all message contents (for usage estimates).
    pub fn content_chars(&self) -> usize {
        self.messages
            .iter()
            .map(|m| m.content.chars().count())
            .sum()
    }
    /// The last user message, if any.
    pub fn last_user(&self) -> Option<&str> {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.as_str())
    }
}

/// A completed answer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The model name the provider reported (may differ from the one asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Answered from a recorded log (replay or fork): it cost nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
    /// How the model was held to the step's shape (a request with a
    /// schema): the schema itself, JSON mode, or the prompt alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<super::shape::StructuredMode>,
}

/// What a streaming model pushes to its sink while it answers.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamDelta {
    Text(String),
}
