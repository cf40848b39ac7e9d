//! The fields every batch form has: a group of checkboxes (variants,
//! levels, modes), and runs at once, the batch's caps and "Save each run
//! to History".

use super::state::BatchCommon;
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
