//! The settings dialog's number fields: retry / concurrency / share-link
//! limits, the per-run spend caps, and the price table editor.

use crate::engine::model::pricing::{Price, PriceTable};
use crate::ui::widgets::{amount, NumberField};
use leptos::prelude::*;

/// Attempts per call, parallel calls and the share link's size limit.
#[component]
pub(super) fn LimitFields(
    attempts: RwSignal<u32>,
    concurrency: RwSignal<u32>,
    share_limit: RwSignal<u32>,
) -> impl IntoView {
    view! {
        <div class="field-row">
            <NumberField id="attempts" label="Attempts per LLM call" min="1" max="10" value=attempts
                hint="Rate limits, server errors and timeouts are retried with backoff."/>
            <NumberField id="concurrency" label="Parallel LLM calls" min="1" max="16" value=concurrency
                hint="Upper bound when agents work at the same time."/>
            <NumberField id="share-limit" label="Share link limit (KB)" min="1" max="2048" value=share_limit
                hint="Longer runs are offered as a file instead."/>
        </div>
    }
}

/// The per-run spend cap (USD) and token cap, as typed (empty for none).
#[component]
pub(super) fn SpendCaps(cap_usd: RwSignal<String>, cap_tokens: RwSignal<String>) -> impl IntoView {
    view! {
        <div class="field-row">
            {cap_field("spend-cap", "Spend cap per run (USD)", ("0", "0.01", "decimal"), cap_usd,
                "A run stops cleanly before the call whose estimated cost would pass it; everything so far is kept.")}
            {cap_field("token-cap", "Token cap per run", ("1", "1000", "numeric"), cap_tokens,
                "Counts input and output tokens; used for models without a price below.")}
        </div>
    }
}

/// The runs' temperature and longest answer, as typed (empty: defaults).
#[component]
pub(super) fn SamplingFields(
    temperature: RwSignal<String>,
    max_tokens: RwSignal<String>,
) -> impl IntoView {
    view! {
        <div class="field-row">
            <div class="field">
                <label for="temperature">"Temperature"</label>
                <input id="temperature" type="number" min="0" max="2" step="0.1" inputmode="decimal"
                    placeholder="coordinator's default"
                    prop:value=move || temperature.get()
                    on:input=move |ev| temperature.set(event_target_value(&ev))/>
                <p class="hint">"Every request that does not set its own (MAEL's default is its paper's 0.2; 0 = greedy). Recorded in the run."</p>
            </div>
            <div class="field">
                <label for="max-tokens">"Longest answer (tokens)"</label>
                <input id="max-tokens" type="number" min="1" step="1" inputmode="numeric"
                    placeholder="model's default"
                    prop:value=move || max_tokens.get()
                    on:input=move |ev| max_tokens.set(event_target_value(&ev))/>
                <p class="hint">"Small local models ramble: 128–256 keeps their answers short and runs fast."</p>
            </div>
        </div>
    }
}

/// A cap as typed (empty for none): (min, step, input mode).
fn cap_field(
    id: &'static str,
    label: &'static str,
    (min, step, mode): (&'static str, &'static str, &'static str),
    value: RwSignal<String>,
    hint: &'static str,
) -> impl IntoView {
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <input id=id type="number" min=min step=step placeholder="no cap" inputmode=mode
                prop:value=move || value.get()
                on:input=move |ev| value.set(event_target_value(&ev))/>
            <p class="hint">{hint}</p>
        </div>
    }
}

/// The editable price table (USD per million input / output tokens).
#[component]
pub(super) fn PriceEditor(prices: RwSignal<PriceTable>) -> impl IntoView {
    let num = |s: String| amount(&s);
    view! {
        <table class="price-table">
            <thead><tr><th>"Model (or prefix)"</th><th>"Input"</th><th>"Output"</th><th></th></tr></thead>
            <tbody>
                {move || prices.with(|t| t.prices.iter().enumerate().map(|(i, p)| {
                    let p: Price = p.clone();
                    view! {
                        <tr>
                            <td><input aria-label="Model name" value=p.model.clone()
                                on:change=move |ev| prices.update(|t| if let Some(r) = t.prices.get_mut(i) { r.model = event_target_value(&ev).trim().to_string() })/></td>
                            <td><input aria-label="Input price" inputmode="decimal" value=p.input_per_mtok.to_string()
                                on:change=move |ev| if let Some(v) = num(event_target_value(&ev)) { prices.update(|t| if let Some(r) = t.prices.get_mut(i) { r.input_per_mtok = v }) }/></td>
                            <td><input aria-label="Output price" inputmode="decimal" value=p.output_per_mtok.to_string()
                                on:change=move |ev| if let Some(v) = num(event_target_value(&ev)) { prices.update(|t| if let Some(r) = t.prices.get_mut(i) { r.output_per_mtok = v }) }/></td>
                            <td><button type="button" class="icon-button" aria-label=format!("Remove {}", p.model)
                                on:click=move |_| prices.update(|t| { if i < t.prices.len() { t.prices.remove(i); } })>"✕"</button></td>
                        </tr>
                    }
                }).collect_view())}
            </tbody>
        </table>
        <div class="price-actions">
            <button type="button" class="button small" on:click=move |_| prices.update(|t| t.prices.push(Price { model: "my-model".into(), input_per_mtok: 0.0, output_per_mtok: 0.0 }))>"Add a price"</button>
            <button type="button" class="button small" on:click=move |_| prices.set(PriceTable::default())>"Reset to defaults"</button>
        </div>
    }
}
