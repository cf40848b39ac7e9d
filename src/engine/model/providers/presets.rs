//! Provider presets shown in Settings.

use super::http::WireFormat;
use crate::engine::model::shape::StructuredMode;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PresetKind {
    /// The built-in scripted model; no network.
    Demo,
    /// A GGUF model the user added, run inside the page (a Web Worker).
    Local,
    Http(WireFormat),
}

#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub id: &'static str,
    pub label: &'static str,
    pub kind: PresetKind,
    pub base_url: &'static str,
    pub default_model: &'static str,
    /// Whether the provider needs an API key.
    pub needs_key: bool,
    /// Whether it accepts `stream_options.include_usage`.
    pub stream_usage: bool,
    /// Shown with network errors, e.g. how to let a local server accept the page.
    pub cors_hint: Option<&'static str>,
    /// How a step's reply shape is asked for: the schema (OpenAI-compatible
    /// `json_schema`, strict; Anthropic a forced tool), JSON mode, or the
    /// prompt alone. A server that refuses it is asked once more a step
    /// lower, and that is remembered.
    pub structured: StructuredMode,
}

const OA: PresetKind = PresetKind::Http(WireFormat::OpenaiCompatible);

const fn p(
    id: &'static str,
    label: &'static str,
    kind: PresetKind,
    base_url: &'static str,
    default_model: &'static str,
    needs_key: bool,
    cors_hint: Option<&'static str>,
) -> Preset {
    Preset {
        id,
        label,
        kind,
        base_url,
        default_model,
        needs_key,
        stream_usage: true,
        cors_hint,
        structured: StructuredMode::Schema,
    }
}

/// A preset that has JSON mode but no schema mode.
const fn json_mode_only(mut p: Preset) -> Preset {
    p.structured = StructuredMode::JsonMode;
    p
}

/// The structured mode a provider is first asked in (a preset's; a custom
/// server is tried with the schema, and steps down if it refuses).
pub fn structured_mode(provider: &str) -> StructuredMode {
    preset(provider).map_or(StructuredMode::Schema, |p| p.structured)
}

pub const DEMO_LABEL: &str = "Offline demo (scripted, not an LLM)";
pub const LOCAL_LABEL: &str = "Local model (in this browser)";

pub const PRESETS: &[Preset] = &[
    p("demo", DEMO_LABEL, PresetKind::Demo, "", "demo", false, None),
    p("local", LOCAL_LABEL, PresetKind::Local, "", "", false, None),
    p("openai", "OpenAI", OA, "https://api.openai.com/v1", "gpt-4o-mini", true, None),
    p(
        "anthropic",
        "Anthropic",
        PresetKind::Http(WireFormat::Anthropic),
        "https://api.anthropic.com/v1",
        "claude-haiku-4-5",
        true,
        None,
    ),
    p("openrouter", "OpenRouter", OA, "https://openrouter.ai/api/v1", "openai/gpt-4o-mini", true, None),
    p("groq", "Groq", OA, "https://api.groq.com/openai/v1", "llama-3.3-70b-versatile", true, None),
    p(
        "together",
        "Together",
        OA,
        "https://api.together.xyz/v1",
        "meta-llama/Llama-3.3-70B-Instruct-Turbo",
        true,
        None,
    ),
    p("mistral", "Mistral", OA, "https://api.mistral.ai/v1", "mistral-small-latest", true, None),
    // DeepSeek's API documents JSON output (json_object) only.
    json_mode_only(p("deepseek", "DeepSeek", OA, "https://api.deepseek.com/v1", "deepseek-chat", true, None)),
    p(
        "gemini",
        "Google Gemini",
        OA,
        "https://generativelanguage.googleapis.com/v1beta/openai",
        "gemini-2.0-flash",
        true,
        None,
    ),
    p(
        "ollama",
        "Ollama (local)",
        OA,
        "http://localhost:11434/v1",
        "llama3.2",
        false,
        Some("Ollama blocks browser pages by default: restart it with OLLAMA_ORIGINS=\"*\" ollama serve."),
    ),
    p(
        "lmstudio",
        "LM Studio (local)",
        OA,
        "http://localhost:1234/v1",
        "local-model",
        false,
        Some("In LM Studio's Developer tab, turn on \"Enable CORS\" and start the server."),
    ),
    p(
        "llamacpp",
        "llama.cpp server (local)",
        OA,
        "http://localhost:8081/v1",
        "local",
        false,
        Some("Start llama-server on a port other than 8080 (Roundtable uses it), e.g. --port 8081."),
    ),
    p("vllm", "vLLM (local)", OA, "http://localhost:8000/v1", "served-model", false, None),
    p("custom", "Custom (OpenAI-compatible)", OA, "", "", false, None),
    p(
        "custom-anthropic",
        "Custom (Anthropic Messages)",
        PresetKind::Http(WireFormat::Anthropic),
        "",
        "",
        false,
        None,
    ),
];

pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_unique_and_complete() {
        let ids: std::collections::BTreeSet<_> = PRESETS.iter().map(|p| p.id).collect();
        assert_eq!(ids.len(), PRESETS.len());
        for id in [
            "openai",
            "anthropic",
            "openrouter",
            "groq",
            "together",
            "mistral",
            "deepseek",
            "gemini",
            "ollama",
            "lmstudio",
            "llamacpp",
            "vllm",
            "custom",
            "demo",
        ] {
            assert!(preset(id).is_some(), "missing preset {id}");
        }
        assert_eq!(
            preset("ollama").map(|p| p.base_url),
            Some("http://localhost:11434/v1")
        );
        assert!(preset("ollama")
            .and_then(|p| p.cors_hint)
            .unwrap_or("")
            .contains("OLLAMA_ORIGINS"));
    }
}
