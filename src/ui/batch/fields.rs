//! The fields every batch form has: a group of checkboxes (variants,
//! levels, modes), runs at once, the batch's caps and "Save each run to
//! History", and which prompts its runs are told.

use super::state::BatchCommon;
use crate::engine::run::batch::PromptSets;
use crate::ui::state::use_app;
use crate::ui::widgets::{amount, parsed, Toggle};
use leptos::prelude::*;

/// Checkboxes for the items of `all` (value, label) that `picked` holds;
/// ticking keeps `picked` in `order` (by default `all`'s: several groups
/// that share one `picked` give their whole order).
#[component]
pub fn Checks<V: Copy + PartialEq + Send + Sync + 'static>(
    legend: &'static str,
    all: Vec<(V, &'static str)>,
    picked: Signal<Vec<V>>,
    on_change: Callback<Vec<V>>,
    busy: Signal<bool>,
    #[prop(optional)] class: &'static str,
    #[prop(optional)] order: Option<Vec<V>>,
) -> impl IntoView {
    let order = order.unwrap_or_else(|| all.iter().map(|(v, _)| *v).collect());
    let order = StoredValue::new(order);
    let boxes = all
        .into_iter()
        .map(|(v, label)| {
            let toggle = move |on: bool| {
                let mut now: Vec<V> = picked.get_untracked();
                now.retain(|x| *x != v);
                if on {
                    now.push(v);
                    order.with_value(|o| {
                        now.sort_by_key(|x| o.iter().position(|y| y == x));
                    });
                }
                on_change.run(now);
            };
            view! {
                <label class="check">
                    <input type="checkbox" disabled=busy
                        prop:checked=move || picked.with(|p| p.contains(&v))
                        on:change=move |ev| toggle(event_target_checked(&ev))/>
                    {label}
                </label>
            }
        })
        .collect_view();
    view! {
        <fieldset class=class>
            <legend>{legend}</legend>
            {boxes}
        </fieldset>
    }
}

/// A number field's value, or `default` when it does not read.
pub fn number<T: std::str::FromStr>(ev: &leptos::ev::Event, default: T) -> T {
    parsed(ev).unwrap_or(default)
}

/// Runs at once, the batch's spend and token caps, and History. Element
/// ids start with `prefix` (`batch-concurrency`, …).
#[component]
pub fn CommonFields(
    common: RwSignal<BatchCommon>,
    busy: Signal<bool>,
    prefix: &'static str,
    /// What "runs at once" is called here, if not that.
    #[prop(optional)]
    concurrency_label: Option<&'static str>,
) -> impl IntoView {
    let id = move |what: &str| format!("{prefix}-{what}");
    view! {
        <div class="field">
            <label for=id("concurrency")>{concurrency_label.unwrap_or("Runs at once")}</label>
            <input id=id("concurrency") type="number" min="1" max="16" step="1" disabled=busy
                prop:value=move || common.with(|c| c.concurrency.to_string())
                on:change=move |ev| { let n: u32 = parsed(&ev).unwrap_or(4); common.update(|c| c.concurrency = n.clamp(1, 16)) }/>
        </div>
        <div class="field-row batch-caps">
            <div class="field">
                <label for=id("cap-usd")>"Batch spend cap (USD)"</label>
                <input id=id("cap-usd") type="number" min="0" step="0.01" placeholder="no cap" inputmode="decimal" disabled=busy
                    prop:value=move || common.with(|c| c.cap_usd.map(|v| v.to_string()).unwrap_or_default())
                    on:change=move |ev| { let v = amount(&event_target_value(&ev)); common.update(|c| c.cap_usd = v) }/>
            </div>
            <div class="field">
                <label for=id("cap-tokens")>"Batch token cap"</label>
                <input id=id("cap-tokens") type="number" min="1" step="1000" placeholder="no cap" inputmode="numeric" disabled=busy
                    prop:value=move || common.with(|c| c.cap_tokens.map(|v| v.to_string()).unwrap_or_default())
                    on:change=move |ev| { let v = parsed::<u64>(&ev); common.update(|c| c.cap_tokens = v) }/>
            </div>
        </div>
        <p class="muted small">"The batch stops cleanly before the call that would pass its cap, and starts no run after it (each run also keeps the Settings' per-run caps)."</p>
        <Toggle id=id("save") label="Save each run to History" busy=busy
            on=Signal::derive(move || common.with(|c| c.save)) set=Callback::new(move |on| common.update(|c| c.save = on))/>
    }
}

/// The templates of `coordinator` the user edited (0: the paper's prompts).
pub fn edited(coordinator: &str) -> Signal<usize> {
    let app = use_app();
    let coordinator = coordinator.to_string();
    Signal::derive(move || {
        app.prompt_edits
            .with(|m| m.get(&coordinator).map_or(0, |e| e.len()))
    })
}

/// Runs per job, as the form's count says: two when the batch runs each
/// job on the paper's prompts and on the user's.
pub fn runs_per_job(common: RwSignal<BatchCommon>, coordinator: &str) -> Signal<usize> {
    let edited = edited(coordinator);
    Signal::derive(move || common.with(|c| c.prompt_sets.runs_per_job(edited.get())))
}

/// Which prompts the batch's runs are told: with none edited, the paper's
/// (and the way to edit them); with some, the user's, the paper's, or
/// both side by side (each job twice: the tables get a column or row per
/// set). Element ids start with `prefix` (`batch-prompts-both`, …).
#[component]
pub fn PromptSetsField(
    common: RwSignal<BatchCommon>,
    busy: Signal<bool>,
    prefix: &'static str,
    coordinator: &'static str,
    /// What runs of this page the choice leaves alone, if any.
    #[prop(optional)]
    note: Option<&'static str>,
) -> impl IntoView {
    let app = use_app();
    let edited = edited(coordinator);
    let open = move |_| app.prompts_open.set(Some(coordinator.to_string()));
    let choice = move |value: PromptSets, label: String| {
        let id = format!(
            "{prefix}-prompts-{}",
            match value {
                PromptSets::AsSetUp => "mine",
                PromptSets::Paper => "paper",
                PromptSets::Both => "both",
            }
        );
        view! {
            <label class="check">
                <input type="radio" name=format!("{prefix}-prompts") id=id disabled=busy
                    prop:checked=move || common.with(|c| c.prompt_sets == value)
                    on:change=move |_| common.update(|c| c.prompt_sets = value)/>
                {label}
            </label>
        }
    };
    view! {
        <fieldset class="batch-prompts" data-testid="batch-prompts">
            <legend>"Prompts"</legend>
            {move || match edited.get() {
                0 => view! {
                    <p class="muted small">"The paper's, as written for Roundtable. "
                        <button type="button" class="link-button small" disabled=busy on:click=open>"Edit them"</button>
                        " to compare a set of your own with the paper's over the same tasks."</p>
                }.into_any(),
                n => view! {
                    {choice(PromptSets::AsSetUp, format!("Mine ({n} template{} edited)", if n == 1 { "" } else { "s" }))}
                    {choice(PromptSets::Paper, "The paper's".to_string())}
                    {choice(PromptSets::Both, "The paper's and mine, side by side (each job twice)".to_string())}
                    <p class="muted small">
                        "Runs told edited prompts are grouped as \u{201c}… · edited prompts\u{201d} in the tables. "
                        {note}
                        <button type="button" class="link-button small" disabled=busy on:click=open>"Edit…"</button>
                    </p>
                }.into_any(),
            }}
        </fieldset>
    }
}
