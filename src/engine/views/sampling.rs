//! The line a setup panel shows about sampling: which temperature the
//! coordinator's requests carry and where it comes from (the paper, the
//! model spec, or the coordinator's own per-step choice), and the longest
//! answer when the spec caps it.

use crate::engine::model::spec::ModelSpec;

/// Where a coordinator's temperature comes from.
#[derive(Clone, Copy)]
pub enum TemperatureSource {
    /// The paper's temperature unless Settings sets one (MAEL).
    Paper(f32),
    /// The Settings temperature, else the model's own default (travel).
    Settings,
    /// Chosen per step by the coordinator, whatever Settings says (ACT).
    Fixed(&'static str),
}

/// The sentence for `sampling` under `spec`'s temperature and longest
/// answer (the demo model is scripted: no sampling).
pub fn sampling_line(sampling: TemperatureSource, spec: &ModelSpec) -> String {
    let (set, max_tokens, demo) = (spec.sampling.temperature, spec.max_tokens, spec.is_demo());
    if demo {
        return "The demo model is scripted: temperature does not apply.".into();
    }
    let mut line = match (sampling, set) {
        (TemperatureSource::Paper(p), Some(t)) => {
            format!("Temperature {t} (set in Settings; the paper samples at {p})")
        }
        (TemperatureSource::Paper(p), None) => {
            format!("Temperature {p} (the paper's; Settings can set another)")
        }
        (TemperatureSource::Settings, Some(t)) => format!("Temperature {t} (set in Settings)"),
        (TemperatureSource::Settings, None) => {
            "Temperature: the model's own default (Settings can set one)".into()
        }
        (TemperatureSource::Fixed(what), _) => what.to_string(),
    };
    if let Some(n) = max_tokens {
        line.push_str(&format!(" · answers up to {n} tokens"));
    }
    line
}

/// How the run's structured steps (a JSON reply of a given shape) are held
/// to their shape with `spec`'s model: the setup panel's second line.
pub fn structured_line(spec: &ModelSpec) -> String {
    use crate::engine::model::providers::http::WireFormat;
    use crate::engine::model::providers::presets::structured_mode;
    use crate::engine::model::shape::StructuredMode;
    if spec.is_demo() {
        return "Structured replies: scripted (the demo model writes each step's shape).".into();
    }
    if spec.is_local() {
        return "Structured replies: each step's JSON Schema, by constrained decoding (the model can only write tokens that keep its reply in shape), with room for the whole shape whatever the longest answer is, and a reply that loops closed where it looped; tool calls in the text protocol under its grammar (a call whole, or none)."
            .into();
    }
    let how = match (structured_mode(&spec.provider), spec.format) {
        (StructuredMode::Schema, Some(WireFormat::Anthropic)) => {
            "each step's JSON Schema, as a tool the model must call"
        }
        (StructuredMode::Schema, _) => {
            "each step's JSON Schema (response_format json_schema, strict)"
        }
        (StructuredMode::JsonMode, _) => "JSON mode (the provider has no schema mode)",
        // A grammar is no provider's mode: a provider is asked by the prompt.
        (StructuredMode::Prompt | StructuredMode::Grammar, _) => "by the prompt alone",
    };
    format!("Structured replies: {how}; a server that refuses it is asked a step lower, and each reply says how it was held.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::providers::http::WireFormat;

    fn spec(temperature: Option<f32>, max_tokens: Option<u32>) -> ModelSpec {
        ModelSpec {
            provider: "openai-compatible".into(),
            format: Some(WireFormat::OpenaiCompatible),
            model: "m".into(),
            max_tokens,
            ..ModelSpec::demo()
        }
        .with_sampling(&crate::engine::model::spec::Sampling {
            temperature,
            ..Default::default()
        })
    }

    #[test]
    fn the_setup_says_how_structured_replies_are_held_per_provider() {
        let with = |provider: &str, format| ModelSpec {
            provider: provider.into(),
            format: Some(format),
            ..spec(None, None)
        };
        assert!(
            structured_line(&with("openai", WireFormat::OpenaiCompatible))
                .contains("json_schema, strict")
        );
        assert!(structured_line(&with("anthropic", WireFormat::Anthropic))
            .contains("a tool the model must call"));
        assert!(
            structured_line(&with("deepseek", WireFormat::OpenaiCompatible)).contains("JSON mode")
        );
        assert!(structured_line(&ModelSpec::demo()).contains("scripted"));
    }

    #[test]
    fn each_source_names_where_the_temperature_comes_from() {
        assert_eq!(
            sampling_line(TemperatureSource::Paper(0.2), &spec(None, None)),
            "Temperature 0.2 (the paper's; Settings can set another)"
        );
        assert_eq!(
            sampling_line(TemperatureSource::Paper(0.2), &spec(Some(0.0), Some(48))),
            "Temperature 0 (set in Settings; the paper samples at 0.2) · answers up to 48 tokens"
        );
        assert_eq!(
            sampling_line(TemperatureSource::Settings, &spec(None, None)),
            "Temperature: the model's own default (Settings can set one)"
        );
        assert_eq!(
            sampling_line(TemperatureSource::Settings, &spec(Some(0.7), None)),
            "Temperature 0.7 (set in Settings)"
        );
        assert_eq!(
            sampling_line(
                TemperatureSource::Fixed("ACT's own"),
                &spec(Some(1.0), None)
            ),
            "ACT's own"
        );
        assert!(
            sampling_line(TemperatureSource::Settings, &ModelSpec::demo())
                .starts_with("The demo model")
        );
    }
}
