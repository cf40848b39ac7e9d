//! Which model a run uses, described without credentials: recorded in
//! every run's config; keys stay with the platform and the model client.

use super::providers::http::{redact_url, WireFormat};
use serde::{Deserialize, Serialize};

/// Which model answers, described without credentials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelSpec {
    /// Preset id (`demo`, `openai`, `anthropic`, `ollama`, `custom`, ...).
    pub provider: String,
    /// Wire format; `None` for the offline demo model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<WireFormat>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub base_url: String,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// The in-browser model's file (SHA-256, hex): a run names the file it
    /// ran on, never its bytes or where it is stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_sha256: Option<String>,
    /// The longest answer the run asks for: every request that does not
    /// set its own (recorded in the run file; `None`: the provider's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

/// The provider id of the model that runs inside the page (a GGUF file).
pub const LOCAL_PROVIDER: &str = "local";

impl ModelSpec {
    pub fn demo() -> Self {
        ModelSpec {
            provider: "demo".into(),
            format: None,
            base_url: String::new(),
            model: "demo".into(),
            temperature: None,
            file_sha256: None,
            max_tokens: None,
        }
    }
    pub fn is_demo(&self) -> bool {
        self.format.is_none() && !self.is_local()
    }
    /// The model runs inside the page, from a GGUF file the user added.
    pub fn is_local(&self) -> bool {
        self.provider == LOCAL_PROVIDER
    }
    /// The same spec with credentials removed from the base URL.
    pub fn redacted(&self) -> Self {
        ModelSpec {
            base_url: redact_url(&self.base_url),
            ..self.clone()
        }
    }
}
