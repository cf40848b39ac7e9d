//! Prices per million tokens, editable by the user; cost of a usage.

use super::Usage;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// A model name, or a prefix of model names (`gpt-4o` matches `gpt-4o-2024-08-06`).
    pub model: String,
    /// US dollars per million input tokens.
    pub input_per_mtok: f64,
    /// US dollars per million output tokens.
    pub output_per_mtok: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PriceTable {
    pub prices: Vec<Price>,
}

fn p(model: &str, i: f64, o: f64) -> Price {
    Price {
        model: model.into(),
        input_per_mtok: i,
        output_per_mtok: o,
    }
}

impl Default for PriceTable {
    /// List prices as published by the providers (USD per 1M tokens); edit
    /// them in Settings when they change.
    fn default() -> Self {
        PriceTable {
            prices: vec![
                p("demo", 0.0, 0.0),
                p("gpt-4o-mini", 0.15, 0.60),
                p("gpt-4o", 2.50, 10.00),
                p("gpt-4.1-nano", 0.10, 0.40),
                p("gpt-4.1-mini", 0.40, 1.60),
                p("gpt-4.1", 2.00, 8.00),
                p("claude-haiku-4-5", 1.00, 5.00),
                p("claude-3-5-haiku", 0.80, 4.00),
                p("claude-sonnet-4", 3.00, 15.00),
                p("claude-opus-4", 15.00, 75.00),
                p("deepseek-chat", 0.27, 1.10),
                p("gemini-2.0-flash", 0.10, 0.40),
                p("mistral-small", 0.10, 0.30),
                p("llama-3.3-70b-versatile", 0.59, 0.79),
            ],
        }
    }
}

impl PriceTable {
    /// The price for `model`: exact name first, then the longest prefix; a
    /// provider prefix like `openai/` is ignored.
    pub fn lookup(&self, model: &str) -> Option<&Price> {
        let bare = model.rsplit('/').next().unwrap_or(model);
        self.prices
            .iter()
            .find(|p| p.model == model || p.model == bare)
            .or_else(|| {
                self.prices
                    .iter()
                    .filter(|p| {
                        !p.model.is_empty()
                            && (model.starts_with(&p.model) || bare.starts_with(&p.model))
                    })
                    .max_by_key(|p| p.model.len())
            })
    }

    /// Cost in USD, or `None` when the model has no price.
    pub fn cost(&self, model: &str, usage: &Usage) -> Option<f64> {
        self.lookup(model).map(|p| {
            (usage.input_tokens as f64 * p.input_per_mtok
                + usage.output_tokens as f64 * p.output_per_mtok)
                / 1_000_000.0
        })
    }
}

/// Formats dollars for display: `$0.0123`, `$1.23`, `$0` for zero.
pub fn format_usd(v: f64) -> String {
    if v == 0.0 {
        "$0".into()
    } else if v < 0.01 {
        format!("${v:.4}")
    } else {
        format!("${v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(i: u64, o: u64) -> Usage {
        Usage::counted(i, o)
    }

    #[test]
    fn exact_then_longest_prefix() {
        let t = PriceTable::default();
        assert_eq!(t.lookup("gpt-4o").map(|p| p.input_per_mtok), Some(2.5));
        assert_eq!(
            t.lookup("gpt-4o-mini-2024-07-18").map(|p| p.input_per_mtok),
            Some(0.15)
        );
        assert_eq!(
            t.lookup("openai/gpt-4o-mini").map(|p| p.output_per_mtok),
            Some(0.6)
        );
        assert!(t.lookup("my-local-model").is_none());
    }

    #[test]
    fn cost_math() {
        let t = PriceTable::default();
        let c = t
            .cost("gpt-4o-mini", &usage(1_000_000, 500_000))
            .expect("priced");
        assert!((c - (0.15 + 0.30)).abs() < 1e-12);
        let c = t
            .cost("claude-sonnet-4-5", &usage(2000, 1000))
            .expect("priced");
        assert!((c - (0.006 + 0.015)).abs() < 1e-12);
        assert_eq!(t.cost("demo", &usage(10, 10)), Some(0.0));
        assert_eq!(format_usd(0.0), "$0");
        assert_eq!(format_usd(0.021), "$0.02");
        assert_eq!(format_usd(0.00123), "$0.0012");
    }
}
