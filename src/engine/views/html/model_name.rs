//! A local model's short name, for the header's model chip: what the user
//! knows the model by (the file they picked), its quantisation and size,
//! rather than the name inside the GGUF file, which is often a training
//! run's ("Smollm2 135M 8k Lc100K Mix1 Ep2").

/// A size in megabytes as the model lists write it: "98 MB", "7.5 MB".
pub fn size_text(bytes: u64) -> String {
    if bytes >= 10_000_000 {
        format!("{:.0} MB", bytes as f64 / 1e6)
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

/// Whether a file name's last part names a quantisation (`Q4_1`,
/// `q4_k_m`, `IQ4_XS`, `F16`, `bf16`...).
fn is_quant(token: &str) -> bool {
    let t = token.to_ascii_lowercase();
    let q = t.strip_prefix('i').unwrap_or(&t);
    let quantised = q.strip_prefix('q').is_some_and(|rest| {
        rest.starts_with(|c: char| c.is_ascii_digit())
            && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    quantised || matches!(t.as_str(), "f16" | "f32" | "f64" | "fp16" | "fp32" | "bf16")
}

/// The file's name without `.gguf` and, when `strip_quant`, without the
/// quantisation it ends with ("SmolLM2-135M-Instruct-Q4_1.gguf" →
/// "SmolLM2-135M-Instruct").
pub fn base_name(file_name: &str, strip_quant: bool) -> String {
    let name = file_name.trim();
    let name = match name.len().checked_sub(5) {
        Some(i) if name.is_char_boundary(i) && name[i..].eq_ignore_ascii_case(".gguf") => {
            &name[..i]
        }
        _ => name,
    };
    if strip_quant {
        if let Some(i) = name.rfind(['-', '.']) {
            if i > 0 && is_quant(&name[i + 1..]) {
                return name[..i].to_string();
            }
        }
    }
    name.to_string()
}

/// "SmolLM2-135M-Instruct · Q4_1 · 98 MB": the picked file's base name (the
/// model's own name when there is no file name), the quantisation and the
/// size, as far as they are known.
pub fn short_model_name(file_name: &str, name: &str, quant: &str, file_bytes: u64) -> String {
    let quant = quant.trim();
    let base = base_name(file_name, !quant.is_empty());
    let base = if base.is_empty() {
        name.trim()
    } else {
        base.as_str()
    };
    let base = if base.is_empty() { "Local model" } else { base };
    let mut parts = vec![base.to_string()];
    if !quant.is_empty() {
        parts.push(quant.to_string());
    }
    if file_bytes > 0 {
        parts.push(size_text(file_bytes));
    }
    parts.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_name_without_its_quantisation_then_quant_and_size() {
        assert_eq!(
            short_model_name(
                "SmolLM2-135M-Instruct-Q4_1.gguf",
                "Smollm2 135M 8k Lc100K Mix1 Ep2",
                "Q4_1",
                98_300_000
            ),
            "SmolLM2-135M-Instruct · Q4_1 · 98 MB"
        );
        assert_eq!(
            short_model_name(
                "qwen2.5-0.5b-instruct-q4_k_m.GGUF",
                "Qwen2.5 0.5B Instruct",
                "Q4_K",
                397_800_000
            ),
            "qwen2.5-0.5b-instruct · Q4_K · 398 MB"
        );
        assert_eq!(
            short_model_name(
                "tinyllama-1.1b-chat-v1.0.Q8_0.gguf",
                "",
                "Q8_0",
                1_170_000_000
            ),
            "tinyllama-1.1b-chat-v1.0 · Q8_0 · 1170 MB"
        );
        // No quantisation at the end: the name stays whole.
        assert_eq!(
            short_model_name("Qwen2.5-0.5B.gguf", "", "F16", 5_000_000),
            "Qwen2.5-0.5B · F16 · 5.0 MB"
        );
        assert_eq!(
            short_model_name("model-f16.gguf", "", "F16", 0),
            "model · F16"
        );
    }

    #[test]
    fn without_a_file_name_the_models_own_name() {
        assert_eq!(
            short_model_name("", "Tiny scripted", "F32", 123_456),
            "Tiny scripted · F32 · 0.1 MB"
        );
        assert_eq!(short_model_name(" ", " ", "", 0), "Local model");
        // Without a known quantisation nothing is taken off the file name.
        assert_eq!(short_model_name("a-q4_0.gguf", "", "", 0), "a-q4_0");
    }

    #[test]
    fn quantisation_names() {
        for q in ["Q4_1", "q4_k_m", "IQ4_XS", "iq2_xxs", "F16", "bf16", "Q8_0"] {
            assert!(is_quant(q), "{q}");
        }
        for q in ["Instruct", "5B", "v1", "q", "Qwen", "135M", ""] {
            assert!(!is_quant(q), "{q}");
        }
        assert_eq!(base_name("-Q4_0.gguf", true), "-Q4_0");
        assert_eq!(base_name("é.gguf", true), "é");
        assert_eq!(base_name("gguf", true), "gguf");
    }
}
