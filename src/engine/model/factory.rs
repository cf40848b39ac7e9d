//! Builds the chat model a `ModelSpec` describes, given the key and the
//! platform's transport and clock. Shared by the app and the CLI.

use super::demo::{self, DemoModel};
use super::providers::http::{Endpoint, HttpChatModel, HttpTransport, WireFormat};
use super::providers::presets::preset;
use super::spec::ModelSpec;
use super::ChatModel;
use crate::engine::base::clock::Clock;
use std::rc::Rc;

pub struct Platform {
    pub transport: Rc<dyn HttpTransport>,
    pub clock: Rc<dyn Clock>,
    /// Pause between the demo model's streamed chunks.
    pub demo_chunk_delay_ms: u64,
    /// The steps the demo model plays besides the single agent: the run's
    /// coordinator's script (`coordinators::every_script` for all of them).
    pub demo_script: demo::Script,
}

/// Checks a spec for what the user must fix before a run can start.
pub fn validate(spec: &ModelSpec, api_key: Option<&str>) -> Result<(), String> {
    if spec.is_demo() {
        return Ok(());
    }
    if spec.is_local() {
        return match &spec.file_sha256 {
            Some(_) if !spec.model.trim().is_empty() => Ok(()),
            _ => Err("Pick a model file for \"Local model (in this browser)\" in Settings.".into()),
        };
    }
    let base = spec.base_url.trim();
    if base.is_empty() {
        return Err(
            "Set the base URL of the provider in Settings (e.g. https://api.openai.com/v1).".into(),
        );
    }
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(format!(
            "The base URL \"{base}\" must start with http:// or https://."
        ));
    }
    let authority = base
        .split("://")
        .nth(1)
        .unwrap_or("")
        .split(['/', '?', '#'])
        .next()
        .unwrap_or("");
    if authority.contains('@') {
        return Err("The base URL contains a user name or password, which browsers refuse to send. Remove it from the URL and put your key in the API key field.".into());
    }
    if spec.model.trim().is_empty() {
        return Err("Set the model name in Settings (e.g. gpt-4o-mini).".into());
    }
    let needs_key = preset(&spec.provider).is_some_and(|p| p.needs_key);
    if needs_key && api_key.is_none_or(|k| k.trim().is_empty()) {
        let label = preset(&spec.provider)
            .map(|p| p.label)
            .unwrap_or("This provider");
        return Err(format!("{label} needs an API key: add it in Settings."));
    }
    Ok(())
}

pub fn build_model(
    spec: &ModelSpec,
    api_key: Option<String>,
    platform: &Platform,
) -> Result<Rc<dyn ChatModel>, String> {
    validate(spec, api_key.as_deref())?;
    Ok(match spec.format {
        None if spec.is_local() => {
            return Err(format!(
                "{} runs inside the app's browser tab only: open Roundtable in a browser, or use a local server (Ollama, LM Studio) here.",
                super::providers::presets::LOCAL_LABEL
            ))
        }
        None => demo_model(platform),
        Some(format) => http_model(spec, format, api_key, platform),
    })
}

/// The offline demo model, paced and scripted as the platform says.
pub fn demo_model(platform: &Platform) -> Rc<dyn ChatModel> {
    let mut demo = DemoModel::new(platform.clock.clone(), platform.demo_script);
    demo.chunk_delay_ms = platform.demo_chunk_delay_ms;
    Rc::new(demo)
}

/// A provider's client (the spec is validated: see [`validate`]).
pub fn http_model(
    spec: &ModelSpec,
    format: WireFormat,
    api_key: Option<String>,
    platform: &Platform,
) -> Rc<dyn ChatModel> {
    let mut ep = Endpoint::new(format, &spec.base_url, &spec.model, api_key);
    ep.structured = super::providers::presets::structured_mode(&spec.provider);
    if let Some(p) = preset(&spec.provider) {
        ep.stream_usage = p.stream_usage;
        ep.cors_hint = p.cors_hint.map(str::to_string);
    }
    if ep.cors_hint.is_none()
        && (spec.base_url.contains("localhost") || spec.base_url.contains("127.0.0.1"))
    {
        ep.cors_hint = Some(
            "A local server must allow requests from this page: enable CORS in its settings."
                .into(),
        );
    }
    Rc::new(HttpChatModel::new(
        ep,
        platform.transport.clone(),
        platform.clock.clone(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::providers::http::WireFormat;

    fn spec(provider: &str, url: &str, model: &str) -> ModelSpec {
        ModelSpec {
            provider: provider.into(),
            format: Some(WireFormat::OpenaiCompatible),
            base_url: url.into(),
            model: model.into(),
            sampling: Default::default(),
            file_sha256: None,
            max_tokens: None,
        }
    }

    #[test]
    fn validation_says_what_to_fix() {
        assert!(validate(&ModelSpec::demo(), None).is_ok());
        assert!(validate(
            &spec("openai", "https://api.openai.com/v1", "gpt-4o-mini"),
            None
        )
        .unwrap_err()
        .contains("needs an API key"));
        assert!(validate(
            &spec("openai", "https://api.openai.com/v1", "gpt-4o-mini"),
            Some("sk")
        )
        .is_ok());
        assert!(validate(
            &spec("ollama", "http://localhost:11434/v1", "llama3.2"),
            None
        )
        .is_ok());
        assert!(validate(&spec("custom", "", "m"), None)
            .unwrap_err()
            .contains("base URL"));
        assert!(validate(&spec("custom", "ftp://x", "m"), None)
            .unwrap_err()
            .contains("http://"));
        assert!(validate(&spec("custom", "https://u:sk@h/v1", "m"), None)
            .unwrap_err()
            .contains("user name or password"));
        assert!(validate(&spec("custom", "https://h/v1?x=a@b", "m"), None).is_ok());
        assert!(validate(&spec("custom", "http://x", " "), None)
            .unwrap_err()
            .contains("model name"));
    }

    #[test]
    fn the_local_model_needs_a_file_and_runs_only_in_the_browser() {
        let mut local = ModelSpec {
            provider: "local".into(),
            format: None,
            base_url: String::new(),
            model: "SmolLM2 135M Instruct".into(),
            sampling: Default::default(),
            file_sha256: None,
            max_tokens: None,
        };
        assert!(local.is_local() && !local.is_demo());
        assert!(validate(&local, None)
            .unwrap_err()
            .contains("Pick a model file"));
        local.file_sha256 = Some("ab".repeat(32));
        assert!(validate(&local, None).is_ok());
        struct Offline;
        impl HttpTransport for Offline {
            fn post(
                &self,
                _: crate::engine::model::providers::http::HttpRequest,
                _: crate::engine::base::cancel::CancelToken,
            ) -> futures::future::LocalBoxFuture<
                'static,
                Result<
                    crate::engine::model::providers::http::HttpResponse,
                    crate::engine::model::ModelError,
                >,
            > {
                unreachable!("no request is made")
            }
        }
        let platform = Platform {
            transport: Rc::new(Offline),
            clock: Rc::new(crate::engine::base::clock::FakeClock::new()),
            demo_chunk_delay_ms: 0,
            demo_script: demo::no_script,
        };
        let err = build_model(&local, None, &platform)
            .err()
            .unwrap_or_default();
        assert!(err.contains("browser tab only"), "{err}");
        // The spec a run records names the file by hash, nothing else.
        let json = serde_json::to_string(&local).unwrap_or_default();
        assert!(json.contains("file_sha256") && !json.contains("opfs"));
    }
}
