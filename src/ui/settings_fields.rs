//! The settings dialog's number fields: retry / concurrency / share-link
//! limits, the per-run spend caps, the local model's sampler, and the
//! price table editor.

use crate::engine::model::pricing::{Price, PriceTable};
use crate::engine::model::spec::{
    LocalSampling, Sampling, DEFAULT_MIN_P, DEFAULT_REPEAT_LAST_N, DEFAULT_REPEAT_PENALTY,
    DEFAULT_TOP_K, DEFAULT_TOP_P, MAX_REPEAT_LAST_N, MAX_TEMPERATURE,
};
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
pub(super) fn SamplingFields(inputs: SamplerInputs, max_tokens: RwSignal<String>) -> impl IntoView {
    let temperature = inputs.temperature;
    view! {
        <div class="field-row">
            <div class="field">
                <label for="temperature">"Temperature"</label>
                <input id="temperature" type="number" min="0" max=MAX_TEMPERATURE.to_string() step="0.1" inputmode="decimal"
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

/// The run's sampling as typed: the temperature (empty: the coordinator's
/// default) and the local model's sampler settings (empty: llama.cpp's).
#[derive(Clone, Copy)]
pub(super) struct SamplerInputs {
    temperature: RwSignal<String>,
    top_k: RwSignal<String>,
    top_p: RwSignal<String>,
    min_p: RwSignal<String>,
    repeat_penalty: RwSignal<String>,
    repeat_last_n: RwSignal<String>,
}

impl SamplerInputs {
    pub(super) fn new() -> Self {
        let empty = || RwSignal::new(String::new());
        SamplerInputs {
            temperature: empty(),
            top_k: empty(),
            top_p: empty(),
            min_p: empty(),
            repeat_penalty: empty(),
            repeat_last_n: empty(),
        }
    }

    pub(super) fn load(self, all: &Sampling) {
        let text = |v: Option<String>| v.unwrap_or_default();
        self.temperature
            .set(text(all.temperature.map(|v| v.to_string())));
        let s = &all.local;
        self.top_k.set(text(s.top_k.map(|v| v.to_string())));
        self.top_p.set(text(s.top_p.map(|v| v.to_string())));
        self.min_p.set(text(s.min_p.map(|v| v.to_string())));
        self.repeat_penalty
            .set(text(s.repeat_penalty.map(|v| v.to_string())));
        self.repeat_last_n
            .set(text(s.repeat_last_n.map(|v| v.to_string())));
    }

    /// What the fields say, brought into range (empty or unreadable: unset).
    pub(super) fn read(self) -> Sampling {
        let whole = |s: RwSignal<String>| s.get_untracked().trim().parse::<u32>().ok();
        let real = |s: RwSignal<String>| amount(&s.get_untracked()).map(|v| v as f32);
        let local = LocalSampling {
            top_k: whole(self.top_k),
            top_p: real(self.top_p),
            min_p: real(self.min_p),
            repeat_penalty: real(self.repeat_penalty),
            repeat_last_n: whole(self.repeat_last_n),
        }
        .cleaned()
        .unwrap_or_default();
        Sampling {
            temperature: real(self.temperature).map(|t| t.clamp(0.0, MAX_TEMPERATURE)),
            local,
        }
    }
}

/// The local model's sampler, llama.cpp's settings with its defaults as
/// placeholders (each empty field is that default).
#[component]
pub(super) fn LocalSamplerFields(inputs: SamplerInputs) -> impl IntoView {
    let max_window = MAX_REPEAT_LAST_N.to_string();
    let fields = [
        (
            "top-k",
            "Top-k",
            DEFAULT_TOP_K.to_string(),
            ("0", "", "1", "numeric"),
            inputs.top_k,
        ),
        (
            "top-p",
            "Top-p",
            DEFAULT_TOP_P.to_string(),
            ("0", "1", "0.01", "decimal"),
            inputs.top_p,
        ),
        (
            "min-p",
            "Min-p",
            DEFAULT_MIN_P.to_string(),
            ("0", "1", "0.01", "decimal"),
            inputs.min_p,
        ),
        (
            "repeat-penalty",
            "Repeat penalty",
            format!("{DEFAULT_REPEAT_PENALTY:.1} (off)"),
            ("0", "10", "0.05", "decimal"),
            inputs.repeat_penalty,
        ),
        (
            "repeat-last-n",
            "Repeat window (tokens)",
            DEFAULT_REPEAT_LAST_N.to_string(),
            ("0", max_window.as_str(), "1", "numeric"),
            inputs.repeat_last_n,
        ),
    ];
    // Two rows: the cuts, then the penalty and its window.
    let [k, p, m, penalty, window] =
        fields.map(|(id, label, placeholder, (min, max, step, mode), value)| {
            let max = (!max.is_empty()).then(|| max.to_string());
            view! {
                <div class="field">
                    <label for=id>{label}</label>
                    <input id=id type="number" min=min max=max step=step inputmode=mode
                        placeholder=placeholder
                        prop:value=move || value.get()
                        on:input=move |ev| value.set(event_target_value(&ev))/>
                </div>
            }
        });
    view! {
        <fieldset class="sampler-fields">
            <legend>"Sampler (local model)"</legend>
            <div class="field-row">{k}{p}{m}</div>
            <div class="field-row">{penalty}{window}</div>
            <p class="hint" data-testid="sampler-hint">"Empty = llama.cpp's defaults (shown): top-k 40 (0 = off), top-p 0.95 and min-p 0.05 (1 and 0 = off), repeat penalty 1.0 = off over the last 64 tokens. At temperature 0 the answer is greedy and only the repeat penalty changes it: 1.1 discourages the loops small models fall into. Recorded in the run."</p>
        </fieldset>
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
