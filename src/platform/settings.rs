//! User settings that are not secret: provider, base URL, model, prices,
//! theme. Stored in localStorage as JSON; a damaged or older record falls
//! back to defaults field by field instead of failing.

use super::storage;
use crate::engine::model::pricing::PriceTable;
use crate::engine::model::providers::presets::{preset, PresetKind};
use crate::engine::model::spec::{Sampling, LOCAL_PROVIDER};
use crate::engine::run::ModelSpec;
use serde::{Deserialize, Serialize};

/// The localStorage key (other tabs watch it to follow a change).
pub const KEY: &str = "roundtable.settings.v1";
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub provider: String,
    pub base_url: String,
    pub model: String,
    pub remember_key: bool,
    pub prices: PriceTable,
    /// `light`, `dark`, or empty to follow the system.
    pub theme: String,
    pub max_concurrency: u32,
    /// Attempts per LLM call, the first included (retries = attempts - 1).
    pub max_attempts: u32,
    /// Share links longer than this (KB of fragment) are not offered; the
    /// run file is offered instead.
    pub share_limit_kb: u32,
    /// Each run's spend cap in US dollars (none: no cap).
    pub spend_cap_usd: Option<f64>,
    /// Each run's token cap (for models without a price, or alone).
    pub token_cap: Option<u64>,
    /// The demo model's pause between streamed chunks (0 = instant).
    pub demo_delay_ms: u32,
    /// The local model's file (SHA-256) when the provider is `local`; its
    /// name is in `model`.
    pub local_model: String,
    /// That model's short name for the header (`views::html::model_name`:
    /// "SmolLM2-135M-Instruct · Q4_1 · 98 MB"), set when Settings picks or
    /// lists it; empty (settings saved before it): the header shows `model`.
    pub local_label: String,
    /// The runs' sampling: the temperature (none: each coordinator's
    /// default, else the provider's) and the local model's sampler settings
    /// (top-k, top-p, min-p, repeat penalty and window; each unset:
    /// llama.cpp's default). Stored as the keys `temperature` and
    /// `local_sampling` (settings saved before the latter read as unset).
    #[serde(flatten, with = "stored_sampling")]
    pub sampling: Sampling,
    /// The longest answer a request asks for (none: the provider's default;
    /// the local model's is 512 tokens).
    pub max_tokens: Option<u32>,
    /// ACT's web tools' search endpoint: a SearXNG instance (its JSON API);
    /// empty: the web tools are not offered.
    pub search_url: String,
}

/// [`Settings::sampling`] as localStorage holds it.
mod stored_sampling {
    use crate::engine::model::spec::{LocalSampling, Sampling};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Default, Serialize, Deserialize)]
    #[serde(default)]
    struct Stored {
        temperature: Option<f32>,
        local_sampling: LocalSampling,
    }

    pub fn serialize<S: Serializer>(s: &Sampling, ser: S) -> Result<S::Ok, S::Error> {
        Stored {
            temperature: s.temperature,
            local_sampling: s.local.clone(),
        }
        .serialize(ser)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Sampling, D::Error> {
        let s = Stored::deserialize(d)?;
        Ok(Sampling {
            temperature: s.temperature,
            local: s.local_sampling,
        })
    }
}

/// The demo model's paces offered in Settings and presenter mode.
pub const DEMO_PACES: [(u32, &str); 4] = [
    (0, "Instant"),
    (12, "Fast"),
    (35, "Normal"),
    (90, "Slow (for explaining)"),
];

impl Default for Settings {
    fn default() -> Self {
        Settings {
            provider: "demo".into(),
            base_url: String::new(),
            model: "demo".into(),
            remember_key: false,
            prices: PriceTable::default(),
            theme: String::new(),
            max_concurrency: 4,
            max_attempts: 4,
            share_limit_kb: 32,
            spend_cap_usd: None,
            token_cap: None,
            demo_delay_ms: 35,
            local_model: String::new(),
            local_label: String::new(),
            sampling: Sampling::default(),
            max_tokens: None,
            search_url: String::new(),
        }
    }
}

impl Settings {
    pub fn load() -> Settings {
        storage::get(KEY)
            .and_then(|s| serde_json::from_str::<Settings>(&s).ok())
            .filter(|s| preset(&s.provider).is_some())
            .unwrap_or_default()
    }

    pub fn save(&self) -> Result<(), String> {
        let json = serde_json::to_string(self).map_err(|e| e.to_string())?;
        storage::set(KEY, &json)
    }

    /// The caps a run gets (see `run::budget`), when any is set.
    pub fn spend_cap(&self) -> Option<crate::engine::run::budget::SpendCap> {
        let cap = crate::engine::run::budget::SpendCap {
            usd: self.spend_cap_usd.filter(|u| u.is_finite() && *u >= 0.0),
            tokens: self.token_cap,
        };
        cap.is_set().then_some(cap)
    }

    pub fn is_demo(&self) -> bool {
        preset(&self.provider).is_none_or(|p| p.kind == PresetKind::Demo)
    }

    /// The model spec a run records (no key).
    pub fn model_spec(&self) -> ModelSpec {
        let mut spec = self.bare_spec();
        if spec.is_demo() {
            return spec;
        }
        spec.max_tokens = self.max_tokens.filter(|n| *n > 0);
        spec.with_sampling(&self.sampling)
    }

    fn bare_spec(&self) -> ModelSpec {
        match preset(&self.provider).map(|p| p.kind) {
            Some(PresetKind::Http(format)) => ModelSpec {
                provider: self.provider.clone(),
                format: Some(format),
                base_url: self.base_url.trim().to_string(),
                model: self.model.trim().to_string(),
                sampling: Sampling::default(),
                file_sha256: None,
                max_tokens: None,
            },
            // A local run records the name the header shows (the picked
            // file's), not the training run's name inside the file: one name
            // in the status line, Events, History and exports.
            Some(PresetKind::Local) => ModelSpec {
                provider: LOCAL_PROVIDER.into(),
                format: None,
                base_url: String::new(),
                model: self
                    .local_short_name()
                    .unwrap_or(self.model.trim())
                    .to_string(),
                sampling: Sampling::default(),
                file_sha256: Some(self.local_model.clone()).filter(|s| !s.is_empty()),
                max_tokens: None,
            },
            _ => ModelSpec::demo(),
        }
    }

    /// A short label for the header: `Offline demo` or `OpenAI · gpt-4o-mini`.
    pub fn label(&self) -> String {
        match preset(&self.provider) {
            Some(p) if p.kind == PresetKind::Demo => "Offline demo".into(),
            Some(p) if p.kind == PresetKind::Local && self.model.trim().is_empty() => {
                "Local model · none picked".into()
            }
            Some(p) if p.kind == PresetKind::Local => {
                format!("Local · {}", self.local_short_name().unwrap_or(&self.model))
            }
            Some(p) => format!("{} · {}", p.label, self.model),
            None => "Offline demo".into(),
        }
    }

    /// The header chip's text: the label, or for a local model Settings has
    /// listed its short name alone ("SmolLM2-135M-Instruct · Q4_1 · 98 MB";
    /// the tooltip says it runs in this browser).
    pub fn chip_label(&self) -> String {
        match preset(&self.provider) {
            Some(p) if p.kind == PresetKind::Local && !self.model.trim().is_empty() => {
                match self.local_short_name() {
                    Some(name) => name.to_string(),
                    None => self.label(),
                }
            }
            _ => self.label(),
        }
    }

    /// The picked local model's short name, when Settings has noted it.
    fn local_short_name(&self) -> Option<&str> {
        let name = self.local_label.trim();
        (!name.is_empty()).then_some(name)
    }

    /// The label in full, for a tooltip: the local model's own name too.
    pub fn label_title(&self) -> String {
        let label = self.label();
        match preset(&self.provider) {
            Some(p) if p.kind == PresetKind::Local && !self.model.trim().is_empty() => {
                format!(
                    "{label} (in this browser; the file calls it {})",
                    self.model
                )
            }
            _ => label,
        }
    }
}
