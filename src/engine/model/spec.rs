//! Which model a run uses, described without credentials: recorded in
//! every run's config; keys stay with the platform and the model client.

use super::providers::http::{redact_url, WireFormat};
use serde::{Deserialize, Serialize};

/// Which model answers, described without credentials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "SpecRecord", into = "SpecRecord")]
pub struct ModelSpec {
    /// Preset id (`demo`, `openai`, `anthropic`, `ollama`, `custom`, ...).
    pub provider: String,
    /// Wire format; `None` for the offline demo model.
    pub format: Option<WireFormat>,
    pub base_url: String,
    pub model: String,
    /// The run's temperature (every request that does not set its own) and
    /// the local model's sampler settings (only a `local` spec keeps them).
    pub sampling: Sampling,
    /// The in-browser model's file (SHA-256, hex): a run names the file it
    /// ran on, never its bytes or where it is stored.
    pub file_sha256: Option<String>,
    /// The longest answer the run asks for: every request that does not
    /// set its own (recorded in the run file; `None`: the provider's default).
    pub max_tokens: Option<u32>,
}

/// A [`ModelSpec`] as run files and share links hold it: the temperature
/// beside the model, the sampler settings last and only when a local
/// model's run sets one (run files without them read as before).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct SpecRecord {
    provider: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    format: Option<WireFormat>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    base_url: String,
    model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    file_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sampling: Option<LocalSampling>,
}

impl From<SpecRecord> for ModelSpec {
    fn from(r: SpecRecord) -> Self {
        ModelSpec {
            provider: r.provider,
            format: r.format,
            base_url: r.base_url,
            model: r.model,
            sampling: Sampling {
                temperature: r.temperature,
                local: r.sampling.unwrap_or_default(),
            },
            file_sha256: r.file_sha256,
            max_tokens: r.max_tokens,
        }
    }
}

impl From<ModelSpec> for SpecRecord {
    fn from(s: ModelSpec) -> Self {
        SpecRecord {
            provider: s.provider,
            format: s.format,
            base_url: s.base_url,
            model: s.model,
            temperature: s.sampling.temperature,
            file_sha256: s.file_sha256,
            max_tokens: s.max_tokens,
            sampling: (!s.sampling.local.is_empty()).then_some(s.sampling.local),
        }
    }
}

/// How a run samples (the temperature and the local model's settings),
/// and the local model's sampler settings beyond the temperature, declared
/// once beside the worker's messages (llama.cpp's names; `None` is
/// llama.cpp's default, the `DEFAULT_*` constants).
pub use super::worker_protocol::{temperature_problem, LocalSampling, Sampling, MAX_TEMPERATURE};
pub use super::worker_protocol::{
    DEFAULT_MIN_P, DEFAULT_REPEAT_LAST_N, DEFAULT_REPEAT_PENALTY, DEFAULT_TOP_K, DEFAULT_TOP_P,
    MAX_REPEAT_LAST_N,
};

/// The provider id of the model that runs inside the page (a GGUF file).
pub const LOCAL_PROVIDER: &str = "local";

impl ModelSpec {
    pub fn demo() -> Self {
        ModelSpec {
            provider: "demo".into(),
            format: None,
            base_url: String::new(),
            model: "demo".into(),
            sampling: Sampling::default(),
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
    /// The spec with the run's sampling `s`: its temperature when it is in
    /// range (else none), and its local settings (cleaned) only when the
    /// spec is the local model's.
    pub fn with_sampling(mut self, s: &Sampling) -> Self {
        self.sampling = Sampling {
            temperature: Sampling::valid_temperature(s.temperature),
            local: if self.is_local() {
                s.local.cleaned().unwrap_or_default()
            } else {
                LocalSampling::default()
            },
        };
        self
    }

    /// The same spec with credentials removed from the base URL.
    pub fn redacted(&self) -> Self {
        ModelSpec {
            base_url: redact_url(&self.base_url),
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local() -> ModelSpec {
        ModelSpec {
            provider: LOCAL_PROVIDER.into(),
            model: "SmolLM2 Q4_1".into(),
            file_sha256: Some("ab".repeat(32)),
            ..ModelSpec::demo()
        }
    }

    fn some() -> LocalSampling {
        LocalSampling {
            top_k: Some(20),
            top_p: Some(0.9),
            min_p: Some(0.1),
            repeat_penalty: Some(1.1),
            repeat_last_n: Some(128),
        }
    }

    /// The run's sampling with these local settings and no temperature.
    fn with(local: LocalSampling) -> Sampling {
        Sampling {
            temperature: None,
            local,
        }
    }

    #[test]
    fn sampler_settings_reach_only_a_local_spec_and_only_when_set() {
        assert_eq!(local().with_sampling(&with(some())).sampling.local, some());
        assert_eq!(
            local()
                .with_sampling(&with(LocalSampling::default()))
                .sampling
                .local,
            LocalSampling::default()
        );
        let remote = ModelSpec {
            provider: "openai".into(),
            format: Some(super::super::providers::http::WireFormat::OpenaiCompatible),
            ..ModelSpec::demo()
        };
        assert_eq!(
            remote.with_sampling(&with(some())).sampling.local,
            LocalSampling::default()
        );
        assert_eq!(
            ModelSpec::demo()
                .with_sampling(&with(some()))
                .sampling
                .local,
            LocalSampling::default()
        );
        // One value alone travels alone.
        let one = LocalSampling {
            repeat_penalty: Some(1.2),
            ..LocalSampling::default()
        };
        assert_eq!(
            local().with_sampling(&with(one.clone())).sampling.local,
            one
        );
    }

    #[test]
    fn values_out_of_range_are_named_and_cleaned() {
        assert!(some().problems().is_empty());
        let bad = LocalSampling {
            top_k: Some(0),
            top_p: Some(1.5),
            min_p: Some(-0.1),
            repeat_penalty: Some(0.0),
            repeat_last_n: Some(100_000),
        };
        let names: Vec<&str> = bad.problems().iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["top-p", "min-p", "repeat-penalty", "repeat-last-n"]);
        assert!(bad.problems()[0].1.contains("between 0 and 1, got 1.5"));
        assert_eq!(
            bad.cleaned(),
            Some(LocalSampling {
                top_k: Some(0),
                top_p: Some(1.0),
                min_p: Some(0.0),
                repeat_penalty: None,
                repeat_last_n: Some(MAX_REPEAT_LAST_N),
            })
        );
        let nan = LocalSampling {
            top_p: Some(f32::NAN),
            ..LocalSampling::default()
        };
        assert_eq!(nan.problems().len(), 1);
        assert_eq!(nan.cleaned(), None);
    }

    #[test]
    fn a_spec_round_trips_and_old_run_files_still_read() {
        let spec = local().with_sampling(&with(some()));
        let json = serde_json::to_string(&spec).expect("writes");
        assert!(
            json.contains(r#""sampling":{"top_k":20,"top_p":0.9,"min_p":0.1,"repeat_penalty":1.1,"repeat_last_n":128}"#),
            "{json}"
        );
        assert_eq!(
            serde_json::from_str::<ModelSpec>(&json).expect("reads"),
            spec
        );
        // Only what is set is written.
        let one = local().with_sampling(&with(LocalSampling {
            top_k: Some(1),
            ..LocalSampling::default()
        }));
        let json = serde_json::to_string(&one).expect("writes");
        assert!(json.contains(r#""sampling":{"top_k":1}"#), "{json}");
        // A spec without sampler settings writes none (older files' shape) ...
        let json = serde_json::to_string(&local()).expect("writes");
        assert!(!json.contains("sampling"), "{json}");
        // ... and a run file written before the field reads as before.
        let old = r#"{"provider":"local","model":"SmolLM2 Q4_1","temperature":0.0,"file_sha256":"abab","max_tokens":48}"#;
        let read: ModelSpec = serde_json::from_str(old).expect("reads");
        assert_eq!(read.sampling.local, LocalSampling::default());
        assert_eq!(read.max_tokens, Some(48));
        let partial: ModelSpec =
            serde_json::from_str(r#"{"provider":"local","model":"m","sampling":{"min_p":0.2}}"#)
                .expect("reads");
        assert_eq!(
            partial.sampling.local,
            LocalSampling {
                min_p: Some(0.2),
                ..LocalSampling::default()
            }
        );
    }
}
