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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatTurn {
    pub role: String,
    pub content: String,
}

/// How one answer is written. The sampler settings are llama.cpp's
/// (`sampler.rs`, applied in llama.cpp's order); each left out (None) is
/// llama.cpp's default, so a message without them (an older page) still
/// reads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GenParams {
    /// None or 0: greedy.
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub seed: u64,
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
    },
    Error {
        id: u32,
        message: String,
    },
}
