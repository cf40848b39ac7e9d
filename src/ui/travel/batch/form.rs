//! The batch form: query set and levels, how many queries, variants, tool
//! mode, sandbox, concurrency, whether runs go to History; then Start,
//! Pause / Resume and Stop, with progress and cost so far.

use super::state::{use_batch, BatchActivity};
use crate::engine::coordinators::travel::contract::{ToolMode, Variant};
use crate::engine::model::pricing::format_usd;
use crate::ui::state::use_app;
use crate::ui::travel::setup::{ensure_queries, refresh_imported, DatabaseSelect, QuerySetSelect};
use crate::ui::travel::state::travel_setup;
use leptos::prelude::*;

const LEVELS: [&str; 3] = ["easy", "medium", "hard"];

#[component]
pub fn BatchForm() -> impl IntoView {
    let app = use_app();
    let batch = use_batch();
    let form = batch.form;
    ensure_queries();
    refresh_imported();
    let busy = Signal::derive(move || batch.activity.get() != BatchActivity::Idle);
    let matching = move || {
        let f = form.get();
        travel_setup().with(|t| f.queries(&t.queries).len())
    };
    let runs = move || matching() * form.with(|f| f.variants.len());
    let variant_box = move |v: Variant| {
        view! {
            <label class="check">
                <input type="checkbox" disabled=busy
                    prop:checked=move || form.with(|f| f.variants.contains(&v))
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        form.update(|f| {
                            f.variants.retain(|x| *x != v);
                            if on {
                                f.variants.push(v);
                                f.variants.sort_by_key(|x| Variant::ALL.iter().position(|y| y == x));
                            }
                        })
                    }/>
                {v.label()}
            </label>
        }
    };
    let level_box = move |l: &'static str| {
        view! {
            <label class="check">
                <input type="checkbox" disabled=busy
                    prop:checked=move || form.with(|f| f.levels.iter().any(|x| x == l))
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        form.update(|f| {
                            f.levels.retain(|x| x != l);
                            if on {
                                f.levels.push(l.to_string());
                            }
                        })
                    }/>
                {l}
            </label>
        }
    };
    let progress = move || {
        let done = batch.items.with(Vec::len);
        let total = batch.total.get();
        (done, total)
    };
    let status = move || {
        let (done, total) = progress();
        let running = batch.started.get().saturating_sub(done);
        let secs = batch.elapsed_ms.get() / 1000.0;
        match batch.activity.get() {
            BatchActivity::Idle if total == 0 => String::new(),
            BatchActivity::Idle => format!(
                "Done: {done} of {total} runs in {}",
                if secs < 10.0 {
                    format!("{secs:.2} s")
                } else {
                    format!("{secs:.0} s")
                }
            ),
            BatchActivity::Running => {
                format!("{done} of {total} runs done, {running} running · {secs:.0} s")
            }
            BatchActivity::Paused => {
                format!("Paused: {done} of {total} done (runs wait before their next LLM call)")
            }
            BatchActivity::Stopping => "Stopping…".to_string(),
        }
    };
    view! {
        <div class="panel batch-form" role="form" aria-label="Batch setup">
            <h2 class="panel-title">"Batch run"</h2>
            <p class="muted small">"Run variants of the travel planner over a query set and compare them in the paper's metrics. Runs use the model in Settings: "
                <strong>{move || app.settings.with(|s| s.label())}</strong>"."</p>
            <div class="field">
                <label for="batch-query-set">"Query set"</label>
                <QuerySetSelect id="batch-query-set" disabled=busy/>
            </div>
            <fieldset>
                <legend>"Levels"</legend>
                {LEVELS.into_iter().map(level_box).collect_view()}
            </fieldset>
            <div class="field">
                <label for="batch-limit">"At most this many queries (0 = all)"</label>
                <input id="batch-limit" type="number" min="0" step="1" disabled=busy
                    prop:value=move || form.with(|f| f.limit.to_string())
                    on:change=move |ev| { let n = event_target_value(&ev).parse().unwrap_or(0); form.update(|f| f.limit = n) }/>
            </div>
            <fieldset>
                <legend>"Variants"</legend>
                {Variant::ALL.into_iter().map(variant_box).collect_view()}
            </fieldset>
            <div class="field">
                <label for="batch-tool-mode">"Tool calls"</label>
                <select id="batch-tool-mode" disabled=busy
                    prop:value=move || if form.with(|f| f.tool_mode) == ToolMode::Text { "text" } else { "native" }
                    on:change=move |ev| { let m = if event_target_value(&ev) == "text" { ToolMode::Text } else { ToolMode::Native }; form.update(|f| f.tool_mode = m) }>
                    <option value="native">"Native function calling"</option>
                    <option value="text">"Text protocol Tool[args]"</option>
                </select>
            </div>
            <div class="field">
                <label for="batch-db">"Database"</label>
                <DatabaseSelect id="batch-db" disabled=busy/>
            </div>
            <div class="field">
                <label for="batch-concurrency">"Runs at once"</label>
                <input id="batch-concurrency" type="number" min="1" max="16" step="1" disabled=busy
                    prop:value=move || form.with(|f| f.concurrency.to_string())
                    on:change=move |ev| { let n = event_target_value(&ev).parse().unwrap_or(4); form.update(|f| f.concurrency = n) }/>
            </div>
            <div class="field-row batch-caps">
                <div class="field">
                    <label for="batch-cap-usd">"Batch spend cap (USD)"</label>
                    <input id="batch-cap-usd" type="number" min="0" step="0.01" placeholder="no cap" inputmode="decimal" disabled=busy
                        prop:value=move || form.with(|f| f.cap_usd.map(|v| v.to_string()).unwrap_or_default())
                        on:change=move |ev| { let v = event_target_value(&ev).trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0); form.update(|f| f.cap_usd = v) }/>
                </div>
                <div class="field">
                    <label for="batch-cap-tokens">"Batch token cap"</label>
                    <input id="batch-cap-tokens" type="number" min="1" step="1000" placeholder="no cap" inputmode="numeric" disabled=busy
                        prop:value=move || form.with(|f| f.cap_tokens.map(|v| v.to_string()).unwrap_or_default())
                        on:change=move |ev| { let v = event_target_value(&ev).trim().parse::<u64>().ok(); form.update(|f| f.cap_tokens = v) }/>
                </div>
            </div>
            <p class="muted small">"The batch stops each run cleanly before the call that would pass the batch's cap (each run also keeps the Settings' per-run caps)."</p>
            <label class="check">
                <input type="checkbox" disabled=busy prop:checked=move || form.with(|f| f.save)
                    on:change=move |ev| { let on = event_target_checked(&ev); form.update(|f| f.save = on) }/>
                "Save each run to History"
            </label>
            <p class="muted small">{move || format!("{} queries × {} variants = {} runs", matching(), form.with(|f| f.variants.len()), runs())}</p>
            <div class="batch-actions">
                <Show when=move || batch.activity.get() == BatchActivity::Idle
                    fallback=move || view! {
                        <Show when=move || batch.activity.get() == BatchActivity::Paused
                            fallback=move || view! { <button class="button" disabled=move || batch.activity.get() == BatchActivity::Stopping on:click=move |_| batch.pause()>"Pause"</button> }>
                            <button class="button primary" on:click=move |_| batch.resume()>"Resume"</button>
                        </Show>
                        <button class="button danger" disabled=move || batch.activity.get() == BatchActivity::Stopping on:click=move |_| batch.stop()>"Stop"</button>
                    }>
                    <button class="button primary" disabled=move || runs() == 0 on:click=move |_| batch.start(app)>"Start batch"</button>
                </Show>
            </div>
            {move || batch.error.get().map(|e| view! { <div class="notice error small" role="alert"><p>{e}</p></div> })}
            // Problems reported app-wide (e.g. a query set that cannot be read).
            {move || app.notice.get().map(|n| view! { <div class="notice warning small" role="alert"><p>{n.text}</p></div> })}
            <Show when=move || progress().1 != 0>
                <div class="batch-progress" role="status" aria-label="Batch progress">
                    <progress max=move || progress().1.to_string() value=move || progress().0.to_string()></progress>
                    <p class="small">{status}</p>
                    <p class="small muted">{move || format!("Cost so far: {}", format_usd(batch.cost_usd.get()))}
                        {move || app.settings.with(|s| s.is_demo()).then_some(" (the demo model is free)")}</p>
                </div>
            </Show>
        </div>
    }
}
