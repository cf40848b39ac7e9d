//! Spend caps: a run (and a batch) stops cleanly before the LLM call whose
//! estimated cost would take it past its cap. The estimate is the
//! request's input tokens (about four characters a token) plus the output
//! it may produce (its `max_tokens`, else the mean output of the calls so
//! far, 256 before any), with the calls under way counted, priced by the model's price; a model without a known price counts
//! tokens against the token cap instead. Spending is what the responses
//! reported (estimated when the provider reports none).

use crate::engine::model::pricing::{format_usd, PriceTable};
use crate::engine::model::{ChatRequest, Usage};
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};

/// The output tokens assumed for a call before any call has answered (and
/// without `max_tokens`).
pub const FIRST_OUTPUT_GUESS: u64 = 256;

/// The caps (none set: no cap). Recorded in the run's config.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SpendCap {
    /// US dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd: Option<f64>,
    /// Input + output tokens (for models without a known price, or alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

impl SpendCap {
    pub fn is_set(&self) -> bool {
        self.usd.is_some_and(|u| u.is_finite() && u >= 0.0) || self.tokens.is_some()
    }
}

/// What a run or a batch has spent against its cap.
pub struct Budget {
    /// `run` or `batch`: named in the message.
    pub scope: &'static str,
    pub cap: SpendCap,
    pub prices: PriceTable,
    usd: Cell<f64>,
    tokens: Cell<u64>,
    calls: Cell<u64>,
    output: Cell<u64>,
    /// Estimates of the calls under way (they count until they answer).
    held_usd: Cell<f64>,
    held_tokens: Cell<u64>,
    /// The first refusal's message: a batch stops starting runs once its
    /// budget has refused a call.
    refused: RefCell<Option<String>>,
}

/// A call's estimate, held against a budget while the call is under way.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Reservation {
    pub usd: f64,
    pub tokens: u64,
}

impl Budget {
    pub fn new(scope: &'static str, cap: SpendCap, prices: PriceTable) -> Budget {
        Budget {
            scope,
            cap,
            prices,
            usd: Cell::new(0.0),
            tokens: Cell::new(0),
            calls: Cell::new(0),
            output: Cell::new(0),
            held_usd: Cell::new(0.0),
            held_tokens: Cell::new(0),
            refused: RefCell::new(None),
        }
    }

    /// Why the budget refused a call, once it has.
    pub fn refusal(&self) -> Option<String> {
        self.refused.borrow().clone()
    }

    fn refuse(&self, message: String) -> Result<Reservation, String> {
        self.refused
            .borrow_mut()
            .get_or_insert_with(|| message.clone());
        Err(message)
    }

    pub fn spent_usd(&self) -> f64 {
        self.usd.get()
    }

    pub fn spent_tokens(&self) -> u64 {
        self.tokens.get()
    }

    /// The usage a request is expected to have.
    pub fn estimate(&self, req: &ChatRequest) -> Usage {
        let chars: usize = req.messages.iter().map(|m| m.content.chars().count()).sum();
        let output = match req.params.max_tokens {
            Some(m) => u64::from(m),
            None if self.calls.get() > 0 => self.output.get() / self.calls.get(),
            None => FIRST_OUTPUT_GUESS,
        };
        Usage {
            input_tokens: chars.div_ceil(4) as u64,
            output_tokens: output,
            estimated: true,
        }
    }

    /// Refuses the call (with the user's message) if its estimate would
    /// take the spending, with the calls under way, past the cap; else
    /// holds the estimate until the call answers (`record`) or fails
    /// (`release`).
    pub fn check(&self, model: &str, req: &ChatRequest, call: u32) -> Result<Reservation, String> {
        let est = self.estimate(req);
        let priced = self.prices.cost(model, &est);
        let spent_usd = self.usd.get() + self.held_usd.get();
        if let (Some(cap), Some(cost)) = (self.cap.usd, priced) {
            if spent_usd + cost > cap {
                return self.refuse(format!(
                    "Stopped before LLM call {call}: its estimated cost ({}) would take this {} past its spend cap of {} ({} spent{}). Everything so far is kept; raise the cap (Settings{}) to go further.",
                    format_usd(cost),
                    self.scope,
                    format_usd(cap),
                    format_usd(self.usd.get()),
                    if self.held_usd.get() > 0.0 { format!(", {} on calls under way", format_usd(self.held_usd.get())) } else { String::new() },
                    if self.scope == "batch" { ", or the batch's cap" } else { "" }
                ));
            }
        }
        let tokens = est.input_tokens + est.output_tokens;
        let counts_tokens =
            self.cap.tokens.is_some() && (priced.is_none() || self.cap.usd.is_none());
        if let (true, Some(cap)) = (counts_tokens, self.cap.tokens) {
            let used = self.tokens.get() + self.held_tokens.get();
            if used + tokens > cap {
                return self.refuse(format!(
                    "Stopped before LLM call {call}: its estimated {tokens} tokens would take this {} past its token cap of {cap} ({} used{}){}. Everything so far is kept; raise the cap in Settings to go further.",
                    self.scope,
                    self.tokens.get(),
                    if self.held_tokens.get() > 0 { format!(", {} on calls under way", self.held_tokens.get()) } else { String::new() },
                    if priced.is_none() { "; the model has no price in Settings, so tokens are counted" } else { "" }
                ));
            }
        }
        let r = Reservation {
            usd: priced.unwrap_or(0.0),
            tokens,
        };
        self.held_usd.set(self.held_usd.get() + r.usd);
        self.held_tokens.set(self.held_tokens.get() + r.tokens);
        Ok(r)
    }

    /// A call that will not answer gives its estimate back.
    pub fn release(&self, r: Reservation) {
        self.held_usd.set((self.held_usd.get() - r.usd).max(0.0));
        self.held_tokens
            .set(self.held_tokens.get().saturating_sub(r.tokens));
    }

    /// Adds a response's usage (its estimate is no longer held).
    pub fn record(&self, model: &str, usage: &Usage, held: Reservation) {
        self.release(held);
        self.usd
            .set(self.usd.get() + self.prices.cost(model, usage).unwrap_or(0.0));
        self.tokens
            .set(self.tokens.get() + usage.input_tokens + usage.output_tokens);
        self.calls.set(self.calls.get() + 1);
        self.output.set(self.output.get() + usage.output_tokens);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::pricing::Price;
    use crate::engine::model::{ChatRequest, Message};

    fn prices() -> PriceTable {
        PriceTable {
            prices: vec![Price {
                model: "m".into(),
                input_per_mtok: 1_000_000.0, // $1 per token: easy sums
                output_per_mtok: 1_000_000.0,
            }],
        }
    }

    fn req(chars: usize) -> ChatRequest {
        ChatRequest::new(vec![Message::user("x".repeat(chars))])
    }

    #[test]
    fn a_call_that_would_pass_the_cap_is_refused_before_it_is_made() {
        let b = Budget::new(
            "run",
            SpendCap {
                usd: Some(10.0),
                tokens: None,
            },
            prices(),
        );
        // 16 chars = 4 input tokens + 256 guessed output: too much for $10.
        assert!(b.check("m", &req(16), 0).is_err());
        let mut first = req(16);
        first.params.max_tokens = Some(0);
        let r = b.check("m", &first, 0).expect("fits: $4");
        b.record("m", &Usage::counted(4, 2), r);
        // Spent $6; the next estimate: 4 input + 2 (mean output) = $6 → $12 > $10.
        let err = b.check("m", &req(16), 1).expect_err("over");
        assert!(
            err.contains("Stopped before LLM call 1")
                && err.contains("$10.00")
                && err.contains("$6.00 spent"),
            "{err}"
        );
        let small = b
            .check("m", &req(4), 1)
            .expect("a small call still fits: $1 + $2");
        b.release(small);
        // Calls under way count: two small ones fit ($6 + $3 + $3 > $10 for a third).
        let one = b.check("m", &req(4), 2).expect("$9");
        assert!(
            b.check("m", &req(4), 3).is_err(),
            "$12 with the one under way"
        );
        b.release(one);
        // max_tokens is the output estimate when given.
        let mut big = req(4);
        big.params.max_tokens = Some(100);
        assert!(b.check("m", &big, 1).is_err());
    }

    #[test]
    fn unpriced_models_count_tokens_against_the_token_cap() {
        let b = Budget::new(
            "batch",
            SpendCap {
                usd: Some(0.01),
                tokens: Some(100),
            },
            prices(),
        );
        let mut first = req(300);
        first.params.max_tokens = Some(10);
        let r = b.check("unknown-model", &first, 0).expect("85 tokens");
        b.record("unknown-model", &Usage::counted(75, 10), r);
        assert_eq!(b.spent_usd(), 0.0);
        let err = b.check("unknown-model", &req(300), 1).expect_err("over");
        assert!(
            err.contains("token cap of 100") && err.contains("no price"),
            "{err}"
        );
        let none = Budget::new("run", SpendCap::default(), prices());
        assert!(!none.cap.is_set());
        assert!(none.check("m", &req(10_000), 0).is_ok());
    }
}
