//! Rows of the usage table.

use super::esc;
use crate::engine::model::pricing::{format_usd, PriceTable};
use crate::engine::views::usage::Tally;

fn tokens(n: u64, estimated: bool) -> String {
    let s = if n >= 10_000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    };
    if estimated {
        format!("≈{s}")
    } else {
        s
    }
}

/// Cost text and a hint when a model has no price.
pub fn cost_text(t: &Tally, prices: &PriceTable) -> (String, &'static str) {
    let (c, complete) = t.cost(prices);
    if complete {
        (
            format!(
                "{}{}",
                if t.is_estimated() { "≈" } else { "" },
                format_usd(c)
            ),
            "",
        )
    } else {
        (
            "—".into(),
            "No price for this model: add one in Settings → Prices",
        )
    }
}

pub fn token_text(t: &Tally) -> (String, String) {
    (
        tokens(t.input_tokens, t.is_estimated()),
        tokens(t.output_tokens, t.is_estimated()),
    )
}

pub fn usage_rows(rows: &[(String, Tally)], prices: &PriceTable) -> String {
    let mut h = String::new();
    for (label, t) in rows {
        let (cost, hint) = cost_text(t, prices);
        let (i, o) = token_text(t);
        h.push_str(&format!(
            "<tr><th scope=\"row\">{}</th><td>{}</td><td>{i}</td><td>{o}</td><td title=\"{hint}\">{cost}</td></tr>",
            esc(label),
            t.calls
        ));
    }
    h
}
