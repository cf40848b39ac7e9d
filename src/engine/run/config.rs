//! What a run was asked to do. A `RunConfig` never holds secrets: keys live
//! in the platform's key store and are handed to model clients only.

use crate::engine::model::retry::RetryPolicy;
use crate::engine::model::spec::ModelSpec;
use serde::{Deserialize, Serialize};

/// Version of the run format (config + events). Bump on breaking changes and
/// teach [`crate::engine::run::log::RunDoc::from_json`] to migrate.
pub const SCHEMA_VERSION: u32 = 1;

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
    /// The prompt templates this run changed (name → text), only those:
    /// the coordinator renders the rest from its defaults. Replays, share
    /// links, forks and variants carry them.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub prompts: std::collections::BTreeMap<String, String>,
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
    /// Recorded by a version that flags every repaired reply
    /// (`RunEvent::ReplyRepaired`). Older runs lack it: their silent
    /// repairs were never recorded, so they show no count rather than "0".
    #[serde(default)]
    pub repairs_recorded: bool,
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
            prompts: Default::default(),
            max_concurrency: default_concurrency(),
            retry: RetryPolicy::default(),
            created_ms: 0.0,
            seed: 0,
            parent: None,
            spend_cap: None,
            repairs_recorded: true,
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

    /// The run's own model: the one every agent without a role of its own
    /// uses, else the first bound.
    pub fn main_model(&self) -> Option<&ModelSpec> {
        self.model_for("*").or(self.models.first().map(|b| &b.spec))
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

impl RunConfig {
    /// The run's variant read by `parse`, or `default` when none is set;
    /// an unknown one is a config error naming what is known
    /// (`what`: "ACT variant", `ids`: the list).
    pub fn variant_or<V>(
        &self,
        default: V,
        parse: impl Fn(&str) -> Option<V>,
        what: &str,
        ids: impl FnOnce() -> String,
    ) -> Result<V, super::RunError> {
        let Some(v) = self.variant.as_deref() else {
            return Ok(default);
        };
        parse(v).ok_or_else(|| {
            super::RunError::new("config", format!("Unknown {what} \"{v}\": use {}.", ids()))
        })
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
