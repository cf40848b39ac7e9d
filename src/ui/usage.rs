//! Tokens and cost per agent, phase and model. Estimated usage (the
//! provider reported none) is marked with ≈.

use super::state::use_app;
use crate::engine::model::pricing::{format_usd, PriceTable};
use crate::engine::views::usage::{Tally, UsageView};
use leptos::prelude::*;

#[derive(Clone, Copy, PartialEq, Eq)]
enum By {
    Agent,
    Phase,
    Model,
}

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

fn cost_cell(t: &Tally, prices: &PriceTable) -> (String, &'static str) {
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

fn rows(u: &UsageView, by: By, names: &dyn Fn(&str) -> String) -> Vec<(String, Tally)> {
    match by {
        By::Agent => u
            .by_agent
            .iter()
            .map(|(k, t)| (names(k), t.clone()))
            .collect(),
        By::Phase => u
            .by_phase
            .iter()
            .map(|(k, t)| (u.phase_label(k).to_string(), t.clone()))
            .collect(),
        By::Model => u.by_model.clone(),
    }
}

#[component]
pub fn UsagePanel() -> impl IntoView {
    let app = use_app();
    let by = RwSignal::new(By::Agent);
    let summary = move || {
        app.view.with(|v| {
            let prices = app.settings.with(|s| s.prices.clone());
            let t = &v.usage.total;
            let (cost, hint) = cost_cell(t, &prices);
            (
                t.calls,
                tokens(t.input_tokens, t.is_estimated()),
                tokens(t.output_tokens, t.is_estimated()),
                cost,
                hint,
                t.is_estimated(),
                t.replayed_calls,
            )
        })
    };
    let table = move || {
        app.view.with(|v| {
            let prices = app.settings.with(|s| s.prices.clone());
            let names = |id: &str| v.transcript.name_of(id).to_string();
            rows(&v.usage, by.get(), &names)
                .into_iter()
                .map(|(label, t)| {
                    let (cost, hint) = cost_cell(&t, &prices);
                    view! {
                        <tr>
                            <th scope="row">{label}</th>
                            <td>{t.calls}</td>
                            <td>{tokens(t.input_tokens, t.is_estimated())}</td>
                            <td>{tokens(t.output_tokens, t.is_estimated())}</td>
                            <td title=hint>{cost}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    let seg = move |b: By, label: &'static str| {
        view! {
            <button class="seg" aria-pressed=move || if by.get() == b { "true" } else { "false" } on:click=move |_| by.set(b)>{label}</button>
        }
    };
    view! {
        <div class="panel usage-panel" aria-label="Usage and cost">
            <h2 class="panel-title">"Usage & cost"</h2>
            {move || {
                let (calls, input, output, cost, hint, estimated, replayed) = summary();
                view! {
                    <dl class="stats" data-testid="usage-summary">
                        <div><dt>"Calls"</dt><dd>{calls}</dd></div>
                        <div><dt>"Input"</dt><dd data-testid="usage-input">{input}</dd></div>
                        <div><dt>"Output"</dt><dd data-testid="usage-output">{output}</dd></div>
                        <div><dt>"Cost"</dt><dd title=hint>{cost}</dd></div>
                    </dl>
                    {estimated.then(|| view! { <p class="muted small">"≈ estimated: the model reported no token usage."</p> })}
                    {(replayed > 0).then(|| view! { <p class="muted small">{format!("{replayed} call{} answered from the parent run's log, at no cost.", if replayed == 1 { "" } else { "s" })}</p> })}
                }
            }}
            <div class="segmented" role="group" aria-label="Group usage by">
                {seg(By::Agent, "Agent")}
                {seg(By::Phase, "Phase")}
                {seg(By::Model, "Model")}
            </div>
            <table class="usage-table">
                <thead><tr><th scope="col"></th><th scope="col">"Calls"</th><th scope="col">"In"</th><th scope="col">"Out"</th><th scope="col">"Cost"</th></tr></thead>
                <tbody>{table}</tbody>
            </table>
        </div>
    }
}
