//! The batch form: query set and levels, how many queries, variants, tool
//! mode, sandbox, then the kit's fields (prompts, runs at once, caps, History),
//! Start / Pause / Resume / Stop and the progress line.

use super::state::{use_batch, LEVELS};
use crate::engine::coordinators::travel;
use crate::engine::coordinators::travel::contract::{ToolMode, Variant};
use crate::ui::batch::{
    runs_per_job, BatchButtons, BatchNotices, Checks, CommonFields, ProgressLine, PromptSetsField,
};
use crate::ui::state::use_app;
use crate::ui::travel::setup::{
    ensure_queries, refresh_imported, DatabaseSelect, QuerySetSelect, LOCAL_TOOLS_WHY,
};
use crate::ui::travel::state::travel_setup;
use crate::ui::widgets::parsed;
use leptos::prelude::*;

#[component]
pub fn BatchForm() -> impl IntoView {
    let app = use_app();
    let batch = use_batch();
    let form = batch.form;
    ensure_queries();
    refresh_imported();
    let busy = batch.run.busy();
    let matching = move || {
        let f = form.get();
        travel_setup().with(|t| f.queries(&t.queries).len())
    };
    let sets = runs_per_job(batch.common, travel::ID);
    let runs = move || matching() * form.with(|f| f.variants.len()) * sets.get();
    // The in-page model gets the text protocol whatever the field says
    // (`ToolMode::for_model`, as the batch runs it).
    let forced_text = move || app.settings.with(|s| s.model_spec().is_local());
    let variants: Vec<(Variant, &'static str)> =
        Variant::ALL.iter().map(|v| (*v, v.label())).collect();
    view! {
        <div class="panel batch-form" role="form" aria-label="Batch setup">
            <h2 class="panel-title">"Batch run"</h2>
            <p class="muted small">"Run variants of the travel planner over a query set and compare them in the paper's metrics. Runs use the model in Settings: "
                <strong>{move || app.settings.with(|s| s.label())}</strong>"."</p>
            <div class="field">
                <label for="batch-query-set">"Query set"</label>
                <QuerySetSelect id="batch-query-set" disabled=busy/>
            </div>
            <Checks legend="Levels" all=LEVELS.iter().map(|l| (*l, *l)).collect() busy=busy
                picked=Signal::derive(move || form.with(|f| f.levels.clone()))
                on_change=Callback::new(move |v| form.update(|f| f.levels = v))/>
            <div class="field">
                <label for="batch-limit">"At most this many queries (0 = all)"</label>
                <input id="batch-limit" type="number" min="0" step="1" disabled=busy
                    prop:value=move || form.with(|f| f.limit.to_string())
                    on:change=move |ev| { let n = parsed(&ev).unwrap_or(0); form.update(|f| f.limit = n) }/>
            </div>
            <Checks legend="Variants" all=variants busy=busy
                picked=Signal::derive(move || form.with(|f| f.variants.clone()))
                on_change=Callback::new(move |v| form.update(|f| f.variants = v))/>
            <div class="field">
                <label for="batch-tool-mode">"Tool calls"</label>
                <select id="batch-tool-mode" disabled=move || busy.get() || forced_text()
                    prop:value=move || if forced_text() || form.with(|f| f.tool_mode) == ToolMode::Text { "text" } else { "native" }
                    on:change=move |ev| { let m = if event_target_value(&ev) == "text" { ToolMode::Text } else { ToolMode::Native }; form.update(|f| f.tool_mode = m) }>
                    <option value="native">"Native function calling"</option>
                    <option value="text">"Text protocol Tool[args]"</option>
                </select>
                <Show when=forced_text>
                    <span class="muted small" data-testid="batch-tool-mode-why">{LOCAL_TOOLS_WHY}</span>
                </Show>
            </div>
            <div class="field">
                <label for="batch-db">"Database"</label>
                <DatabaseSelect id="batch-db" disabled=busy/>
            </div>
            <PromptSetsField common=batch.common busy=busy prefix="batch" coordinator=travel::ID/>
            <CommonFields common=batch.common busy=busy prefix="batch"/>
            <p class="muted small">{move || format!("{} queries × {} variants{} = {} runs", matching(), form.with(|f| f.variants.len()), if sets.get() > 1 { " × 2 prompt sets" } else { "" }, runs())}</p>
            <BatchButtons run=batch.run start_label="Start batch" can_start=Signal::derive(move || runs() > 0)
                on_start=Callback::new(move |()| batch.start(app))/>
            <BatchNotices run=batch.run/>
            // Problems reported app-wide (e.g. a query set that cannot be read).
            {move || app.notice.get().map(|n| view! { <div class="notice warning small" role="alert"><p>{n.text}</p></div> })}
            <ProgressLine run=batch.run/>
        </div>
    }
}
