//! What a run was asked to do. A `RunConfig` never holds secrets: keys live
//! in the platform's key store and are handed to model clients only.

use crate::engine::model::providers::http::{redact_url, WireFormat};
use crate::engine::model::retry::RetryPolicy;
use serde::{Deserialize, Serialize};

/// Version of the run format (config + events). Bump on breaking changes and
/// teach [`crate::engine::run::log::RunDoc::from_json`] to migrate.
pub const SCHEMA_VERSION: u32 = 1;

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

/// The model bound to agents of one role (`*` = every role not listed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelBinding {
    pub role: String,
    pub spec: ModelSpec,
}

/// Where a forked run came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParentRef {
    pub run_id: String,
    /// Number of LLM calls answered from the parent's log.
    pub fork_call: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    pub schema_version: u32,
    pub run_id: String,
    pub coordinator: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub task: String,
    pub models: Vec<ModelBinding>,
    /// Coordinator-specific options.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub options: serde_json::Value,
    #[serde(default = "default_concurrency")]
    pub max_concurrency: u32,
    #[serde(default)]
    pub retry: RetryPolicy,
    /// Unix milliseconds when the run was created.
    #[serde(default)]
    pub created_ms: f64,
    #[serde(default)]
    pub seed: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<ParentRef>,
    /// The run's spend cap, if any (see `run::budget`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend_cap: Option<super::budget::SpendCap>,
}

fn default_concurrency() -> u32 {
    4
}

impl RunConfig {
    pub fn new(coordinator: &str, task: &str, model: ModelSpec) -> Self {
        RunConfig {
            schema_version: SCHEMA_VERSION,
            run_id: String::new(),
            coordinator: coordinator.to_string(),
            variant: None,
            task: task.to_string(),
            models: vec![ModelBinding {
                role: "*".into(),
                spec: model,
            }],
            options: serde_json::Value::Null,
            max_concurrency: default_concurrency(),
            retry: RetryPolicy::default(),
            created_ms: 0.0,
            seed: 0,
            parent: None,
            spend_cap: None,
        }
    }

    /// The model spec for agents of `role`.
    pub fn model_for(&self, role: &str) -> Option<&ModelSpec> {
        self.models
            .iter()
            .find(|b| b.role == role)
            .or_else(|| self.models.iter().find(|b| b.role == "*"))
            .map(|b| &b.spec)
    }

    /// A copy safe to record and share: no credentials in base URLs.
    pub fn sanitized(&self) -> Self {
        RunConfig {
            models: self
                .models
                .iter()
                .map(|b| ModelBinding {
                    role: b.role.clone(),
                    spec: b.spec.redacted(),
                })
                .collect(),
            ..self.clone()
        }
    }

    /// A short label of the models, e.g. `gpt-4o-mini` or `demo`.
    pub fn model_label(&self) -> String {
        let mut names: Vec<&str> = self.models.iter().map(|b| b.spec.model.as_str()).collect();
        names.dedup();
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitized_strips_url_credentials() {
        let mut spec = ModelSpec::demo();
        spec.base_url = "https://user:sk-secret@host/v1?api_key=sk-secret".into();
        let c = RunConfig::new("single", "t", spec).sanitized();
        let json = serde_json::to_string(&c).expect("json");
        assert!(!json.contains("sk-secret"), "{json}");
    }

    #[test]
    fn model_for_prefers_exact_role() {
        let mut c = RunConfig::new("single", "t", ModelSpec::demo());
        let mut other = ModelSpec::demo();
        other.model = "special".into();
        c.models.push(ModelBinding {
            role: "critic".into(),
            spec: other,
        });
        assert_eq!(
            c.model_for("critic").map(|s| s.model.as_str()),
            Some("special")
        );
        assert_eq!(
            c.model_for("solver").map(|s| s.model.as_str()),
            Some("demo")
        );
    }
}
