//! The messages between the page and the model worker, as JSON strings.
//! The app compiles this same file (it depends on serde only), so the two
//! sides cannot drift apart. A model file travels beside the JSON, as the
//! `file` field of the posted object.

use serde::{Deserialize, Serialize};

/// What a model file is, read from its header (and its hash once stored).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelInfo {
    /// `general.name`, or the architecture when the file has none.
    pub name: String,
    pub arch: String,
    /// The quantisation most of the weights use (`Q8_0`, `Q4_K`...).
    pub quant: String,
    pub params: u64,
    pub file_bytes: u64,
    /// Estimated memory while loaded (weights, f32 embedding, one full
    /// context of keys and values).
    pub memory_bytes: u64,
    /// Of which keys and values of one full context.
    pub kv_bytes: u64,
    /// Tokens of context the worker allows (the file's, capped).
    pub context: u32,
    pub layers: u32,
    pub hidden: u32,
    pub vocab: u32,
    pub has_template: bool,
    /// Quantisations without SIMD kernels (they run, slowly).
    pub slow_types: Vec<String>,
    /// SHA-256 of the file, hex; the id of a stored model.
    pub sha256: String,
    /// Workers (cores) a forward pass runs on once loaded: more than one
    /// when the page is cross-origin isolated (0 in a stored record).
    pub workers: u32,
    /// The worker build whose kernels run: `relaxed-simd`, `simd128` or
    /// `scalar` (`quant::BUILD`; empty in records of older versions).
    pub simd: String,
}

/// A stored model: its header facts and when it was added.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StoredModel {
    pub info: ModelInfo,
    /// The file name the user picked.
    pub file_name: String,
    /// Unix milliseconds.
    pub added: f64,
    /// `opfs` or `indexeddb`.
    pub storage: String,
    /// The stored file's name (without extension) in the store.
    pub file_id: String,
}

/// A file in the model store that is not a usable model. Listing never
/// removes one (a model is removed only by the user's Delete): the page
/// shows it, with what can be done.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Leftover {
    /// The store's name for it (without extension).
    pub file_id: String,
    /// `unfinished`: a model file without its record (a copy that was cut
    /// off, or a record that was lost): it can be checked and kept again
    /// (`Restore`); `damaged`: a record that cannot be read, beside its
    /// model file (`Restore` reads the file again); `no_file`: a record whose
    /// model file is gone.
    pub kind: String,
    /// The model file's size (0 when there is none).
    pub bytes: u64,
    /// The file name the record gave, when it could be read.
    pub file_name: String,
    /// Why, in words.
    pub detail: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatTurn {
    pub role: String,
    pub content: String,
}

/// llama.cpp's sampler defaults (`common/common.h`, `struct
/// common_params_sampling`: `top_k = 40`, `top_p = 0.95f`, `min_p = 0.05f`,
/// `penalty_repeat = 1.00f` (off), `penalty_last_n = 64`), used where a
/// request sets none.
pub const DEFAULT_TOP_K: u32 = 40;
/// See [`DEFAULT_TOP_K`].
pub const DEFAULT_TOP_P: f32 = 0.95;
/// See [`DEFAULT_TOP_K`].
pub const DEFAULT_MIN_P: f32 = 0.05;
/// See [`DEFAULT_TOP_K`]: 1.0 is no penalty.
pub const DEFAULT_REPEAT_PENALTY: f32 = 1.0;
/// See [`DEFAULT_TOP_K`].
pub const DEFAULT_REPEAT_LAST_N: u32 = 64;
/// The largest repeat window (the engine's longest context).
pub const MAX_REPEAT_LAST_N: u32 = 4096;
/// The largest repeat penalty accepted (llama.cpp users keep it near 1.0–1.3).
pub const MAX_REPEAT_PENALTY: f32 = 10.0;

/// The highest temperature accepted (every provider takes 0 to 2).
pub const MAX_TEMPERATURE: f32 = 2.0;

/// What is wrong with a temperature, if anything: the one check the page,
/// the platform and the CLI make.
pub fn temperature_problem(t: f64) -> Option<String> {
    (!(t.is_finite() && (0.0..=f64::from(MAX_TEMPERATURE)).contains(&t)))
        .then(|| format!("must be between 0 and {MAX_TEMPERATURE}, got {t}"))
}

/// How a run samples: the temperature every model takes, and the local
/// model's sampler settings beyond it. One value from the Settings form
/// (or the CLI's flags) through the run's `ModelSpec` to each request
/// (`GenParams`) and the sampler.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sampling {
    /// None: each coordinator's default, else the provider's; 0: greedy.
    pub temperature: Option<f32>,
    pub local: LocalSampling,
}

impl Sampling {
    /// What is wrong with each value set, as (CLI flag name, message),
    /// the temperature first.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let temperature = self
            .temperature
            .and_then(|t| temperature_problem(f64::from(t)))
            .map(|m| ("temperature", m));
        temperature
            .into_iter()
            .chain(self.local.problems())
            .collect()
    }

    /// A temperature that passes [`temperature_problem`], else none.
    pub fn valid_temperature(t: Option<f32>) -> Option<f32> {
        t.filter(|t| temperature_problem(f64::from(*t)).is_none())
    }
}

/// The sampler's settings beyond the temperature, as llama.cpp names them
/// (`sampler.rs` applies them in its order); each left out (None) is
/// llama.cpp's default. Settings keeps them, a local model's run records
/// them (`ModelSpec`) and each request carries them to the engine
/// (`GenParams`), inside a [`Sampling`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LocalSampling {
    /// The most likely tokens kept (0: all; default 40).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u32>,
    /// Nucleus: the most likely tokens whose probabilities reach it (1: all; default 0.95).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f32>,
    /// Tokens at least this share of the most likely one's probability (0: all; default 0.05).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_p: Option<f32>,
    /// Repeated tokens' logits divided (positive) or multiplied (negative) by it (1: off, the default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat_penalty: Option<f32>,
    /// The context's last tokens the penalty reads (0: none; default 64).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat_last_n: Option<u32>,
}

impl LocalSampling {
    pub fn is_empty(&self) -> bool {
        self == &LocalSampling::default()
    }

    /// What is wrong with each value set, as (CLI flag name, message):
    /// top-k and the repeat window are whole numbers (0 turns them off),
    /// top-p and min-p lie in [0, 1], the penalty in (0, 10].
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        let unit = |name: &'static str, v: Option<f32>, out: &mut Vec<_>| {
            if let Some(v) = v.filter(|v| !(v.is_finite() && (0.0..=1.0).contains(v))) {
                out.push((name, format!("must be between 0 and 1, got {v}")));
            }
        };
        unit("top-p", self.top_p, &mut out);
        unit("min-p", self.min_p, &mut out);
        if let Some(v) = self
            .repeat_penalty
            .filter(|v| !(v.is_finite() && *v > 0.0 && *v <= MAX_REPEAT_PENALTY))
        {
            out.push((
                "repeat-penalty",
                format!("must be above 0 and at most {MAX_REPEAT_PENALTY} (1 = off), got {v}"),
            ));
        }
        if let Some(n) = self.repeat_last_n.filter(|n| *n > MAX_REPEAT_LAST_N) {
            out.push((
                "repeat-last-n",
                format!("must be at most {MAX_REPEAT_LAST_N} tokens (0 = off), got {n}"),
            ));
        }
        out
    }

    /// The settings as a run records them: values out of range brought into
    /// it (a top-p of 2 is 1; a penalty that is not above 0 is dropped), and
    /// `None` when nothing is set.
    pub fn cleaned(&self) -> Option<LocalSampling> {
        let unit = |v: Option<f32>| v.filter(|v| v.is_finite()).map(|v| v.clamp(0.0, 1.0));
        let s = LocalSampling {
            top_k: self.top_k,
            top_p: unit(self.top_p),
            min_p: unit(self.min_p),
            repeat_penalty: self
                .repeat_penalty
                .filter(|v| v.is_finite() && *v > 0.0)
                .map(|v| v.min(MAX_REPEAT_PENALTY)),
            repeat_last_n: self.repeat_last_n.map(|n| n.min(MAX_REPEAT_LAST_N)),
        };
        (!s.is_empty()).then_some(s)
    }
}

/// How one answer is written (built by the app's
/// `engine::model::local::gen_params`, the one place).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "GenParamsWire", into = "GenParamsWire")]
pub struct GenParams {
    /// The temperature (None or 0: greedy) and the sampler settings.
    pub sampling: Sampling,
    pub max_tokens: Option<u32>,
    pub seed: u64,
    /// The JSON Schema the answer is held to (constrained decoding); none
    /// for a free-text step.
    pub schema: Option<serde_json::Value>,
    /// A grammar the answer is held to instead (llguidance's Lark syntax:
    /// e.g. the text tool protocol, where a call is written whole or not
    /// at all); none for a free-text step or a schema step.
    pub grammar: Option<String>,
}

/// [`GenParams`] as the message carries it: the temperature first, the
/// sampler settings flat beside the other fields, as before they had
/// names; a message without them (an older page) still reads.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct GenParamsWire {
    temperature: Option<f64>,
    max_tokens: Option<u32>,
    seed: u64,
    #[serde(flatten)]
    sampling: LocalSampling,
    #[serde(skip_serializing_if = "Option::is_none")]
    schema: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    grammar: Option<String>,
}

impl From<GenParamsWire> for GenParams {
    fn from(w: GenParamsWire) -> Self {
        GenParams {
            sampling: Sampling {
                // Narrowed as the sampler always took it.
                temperature: w.temperature.map(|t| t as f32),
                local: w.sampling,
            },
            max_tokens: w.max_tokens,
            seed: w.seed,
            schema: w.schema,
            grammar: w.grammar,
        }
    }
}

impl From<GenParams> for GenParamsWire {
    fn from(p: GenParams) -> Self {
        GenParamsWire {
            temperature: p.sampling.temperature.map(f64::from),
            max_tokens: p.max_tokens,
            seed: p.seed,
            sampling: p.sampling.local,
            schema: p.schema,
            grammar: p.grammar,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWorker {
    /// Validate the posted `file` and store it (progress, then `Imported`).
    Import {
        id: u32,
        file_name: String,
    },
    List {
        id: u32,
    },
    Delete {
        id: u32,
        sha256: String,
    },
    /// Removes a [`Leftover`] (the user's Delete on it); a usable model is
    /// refused (it is deleted by its hash).
    DeleteLeftover {
        id: u32,
        file_id: String,
    },
    /// Checks a [`Leftover`]'s model file again and, when it is whole,
    /// writes its record: the model is listed again (`Imported`).
    RestoreLeftover {
        id: u32,
        file_id: String,
        /// File names the page knows by hash (its ledger of stored
        /// models): the restored record takes the name its file was added
        /// under when its own record is unreadable.
        #[serde(default)]
        known_names: std::collections::BTreeMap<String, String>,
    },
    /// Load a stored model (a no-op when it is the loaded one).
    Load {
        id: u32,
        sha256: String,
    },
    /// Answers with model `sha256`, loading it first if another is loaded
    /// (so a run never answers from a model another request loaded).
    Generate {
        id: u32,
        sha256: String,
        turns: Vec<ChatTurn>,
        params: GenParams,
    },
    /// Stops generation `id` before its next token.
    Cancel {
        id: u32,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker's wasm is running.
    Ready,
    /// `stage`: `checking`, `copying`, `loading`, `prefill`.
    Progress {
        id: u32,
        stage: String,
        done: u64,
        total: u64,
    },
    Imported {
        id: u32,
        model: StoredModel,
    },
    Models {
        id: u32,
        models: Vec<StoredModel>,
        storage: String,
        /// Files of the store that are not usable models.
        #[serde(default)]
        leftovers: Vec<Leftover>,
    },
    Deleted {
        id: u32,
    },
    Loaded {
        id: u32,
        info: ModelInfo,
        ms: f64,
    },
    /// The prompt is tokenized: `reused` of its tokens are in the cache.
    Started {
        id: u32,
        prompt_tokens: u32,
        reused: u32,
    },
    Delta {
        id: u32,
        text: String,
    },
    Done {
        id: u32,
        prompt_tokens: u32,
        output_tokens: u32,
        reused: u32,
        /// `stop` (end of turn), `length` (max tokens or context), `repeat`
        /// (the answer kept repeating one block) or `cancelled`.
        finish: String,
        prefill_ms: f64,
        decode_ms: f64,
        /// While writing (after the first token), with the model on several
        /// workers: the products exchanged, and the time the leader spent
        /// handing them over and waiting for the others' rows.
        #[serde(default)]
        exchanges: u64,
        #[serde(default)]
        exchange_ms: f64,
        /// Products exchanged over the whole answer, the prompt's reading
        /// included (a split that fell back to one worker while reading the
        /// prompt exchanged these only).
        #[serde(default)]
        all_exchanges: u64,
        /// Workers the pass ran on at the end (1 after a fall back to one
        /// worker: another program was busy on a core).
        #[serde(default)]
        workers: u32,
        /// Since the model was split: each worker's time on its own rows
        /// (the leader first), and the leader's time waiting for the
        /// others' rows, ms (empty on one worker).
        #[serde(default)]
        share_ms: Vec<f64>,
        #[serde(default)]
        wait_ms: f64,
        /// The answer was held to the request's schema or grammar
        /// (constrained decoding) from its first token to its last.
        #[serde(default)]
        held: bool,
    },
    Error {
        id: u32,
        message: String,
    },
}
