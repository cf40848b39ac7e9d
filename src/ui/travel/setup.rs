//! The travel planner's setup in the left panel: which query (built-in or
//! imported set), which variant, how tools are offered, which database.

use super::import::ImportDbDialog;
use super::state::{builtin_items, items, travel_setup, BUILTIN};
use crate::engine::coordinators::travel::contract::{ToolMode, Variant};
use crate::engine::coordinators::travel::{self, contract::TravelOptions};
use crate::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL;
use crate::engine::run::RunConfig;
use crate::engine::views::sampling::TemperatureSource;
use crate::platform::{files, travel_store};
use crate::ui::sampling_note::SamplingNote;
use crate::ui::shown_setup::{self, ShownSetupBanner};
use crate::ui::state::{use_app, AppState, Notice};
use crate::ui::widgets::FileButton;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// Loads the built-in queries when the setup has none (the app starts
/// without them; this runs when the travel part is first used).
pub fn ensure_queries() {
    if travel_setup().with_untracked(|t| t.query_set == BUILTIN && t.queries.is_empty()) {
        let list = builtin_items();
        travel_setup().update(|t| {
            t.selected = list.first().map(|q| q.idx);
            t.queries = list;
        });
    }
}

/// Shows a stored travel run's setup: its variant, tool mode, database
/// and query (added to the list when the current set lacks it).
fn adopt(config: &RunConfig) {
    let Ok(o) = serde_json::from_value::<TravelOptions>(config.options.clone()) else {
        return;
    };
    let variant = config.variant.as_deref().and_then(Variant::parse);
    let item = items(&o.query.to_string(), "the run")
        .ok()
        .and_then(|v| v.into_iter().next());
    travel_setup().update(|t| {
        if let Some(v) = variant {
            t.variant = v;
        }
        t.tool_mode = o.tool_mode;
        t.db = o.db.clone();
        if let Some(item) = item {
            if !t
                .queries
                .iter()
                .any(|q| q.idx == item.idx && q.value == item.value)
            {
                t.queries.retain(|q| q.idx != item.idx);
                t.queries.push(item.clone());
                t.queries.sort_by_key(|q| q.idx);
            }
            t.selected = Some(item.idx);
        }
    });
}

/// Lists what this browser has imported (databases, query sets).
pub fn refresh_imported() {
    spawn_local(async move {
        let dbs = travel_store::db_names().await;
        let sets = travel_store::query_set_names().await;
        travel_setup().update(|t| {
            t.imported_dbs = dbs;
            t.imported_query_sets = sets;
        });
    });
}

/// Makes `name` (built-in or imported) the query set.
pub fn load_query_set(app: AppState, name: String) {
    spawn_local(async move {
        let text = if name == BUILTIN {
            Ok(BUILTIN_QUERIES_JSONL.to_string())
        } else {
            travel_store::load_queries(&name).await
        };
        match text.and_then(|t| items(&t, &name)) {
            Ok(list) => travel_setup().update(|t| {
                t.selected = list.first().map(|q| q.idx);
                t.queries = list;
                t.query_set = name;
            }),
            Err(e) => app.notice.set(Some(Notice {
                text: e,
                settings: false,
            })),
        }
    });
}

/// The query set picker (built-in or imported).
#[component]
pub fn QuerySetSelect(id: &'static str, #[prop(into)] disabled: Signal<bool>) -> impl IntoView {
    let app = use_app();
    view! {
        <select id=id disabled=disabled prop:value=move || travel_setup().with(|t| t.query_set.clone())
            on:change=move |ev| load_query_set(app, event_target_value(&ev))>
            <option value=BUILTIN>"Built-in (12 queries)"</option>
            {move || travel_setup().with(|t| t.imported_query_sets.clone()).into_iter().map(|n| view! { <option value=n.clone()>{n.clone()}</option> }).collect_view()}
        </select>
    }
}

/// The sandbox database picker (built-in or imported).
#[component]
pub fn DatabaseSelect(id: &'static str, #[prop(into)] disabled: Signal<bool>) -> impl IntoView {
    view! {
        <select id=id disabled=disabled prop:value=move || travel_setup().with(|t| t.db.clone())
            on:change=move |ev| { let v = event_target_value(&ev); travel_setup().update(|t| t.db = v) }>
            <option value=BUILTIN>"Built-in world"</option>
            {move || travel_setup().with(|t| t.imported_dbs.clone()).into_iter().map(|n| view! { <option value=n.clone()>{n.clone()}</option> }).collect_view()}
        </select>
    }
}

/// Why the tool-call field says the text protocol for the in-page model
/// (here and in the batch form).
pub const LOCAL_TOOLS_WHY: &str =
    "The in-page model has no native function calling: it gets the text protocol.";

/// Reads a picked JSONL file of queries, keeps it as an imported set and
/// makes it the query set (a file that does not read is refused).
fn import_queries(app: AppState, ev: leptos::ev::Event) {
    let Some(file) = files::picked(&ev).into_iter().next() else {
        return;
    };
    let name = file.name();
    spawn_local(async move {
        let text = match files::read_text(&file).await {
            Ok(t) => t,
            Err(e) => {
                return app.notice.set(Some(Notice {
                    text: format!("Could not read {name}: {e}"),
                    settings: false,
                }))
            }
        };
        if let Err(e) = items(&text, &name) {
            return app.notice.set(Some(Notice {
                text: format!("Could not import the queries: {e}"),
                settings: false,
            }));
        }
        if let Err(e) = travel_store::save_queries(&name, &text).await {
            app.storage_error.set(Some(e.user_message()));
        }
        travel_setup().update(|t| {
            if !t.imported_query_sets.contains(&name) {
                t.imported_query_sets.push(name.clone());
            }
        });
        load_query_set(app, name);
    });
}

#[component]
pub fn TravelSetupPanel() -> impl IntoView {
    let app = use_app();
    let importing = RwSignal::new(false);
    let busy = shown_setup::disabled(app);
    ensure_queries();
    refresh_imported();
    shown_setup::on_shown(app, travel::ID, adopt);
    view! {
        <div class="travel-setup">
            <ShownSetupBanner/>
            <div class="field">
                <label for="query-set">"Query set"</label>
                <QuerySetSelect id="query-set" disabled=busy/>
            </div>
            <QueryField busy=busy/>
            <div class="field">
                <label for="variant">"Variant"</label>
                <select id="variant" disabled=busy prop:value=move || travel_setup().with(|t| t.variant.id().to_string())
                    on:change=move |ev| { if let Some(v) = Variant::parse(&event_target_value(&ev)) { travel_setup().update(|t| t.variant = v) } }>
                    {Variant::ALL.iter().map(|v| view! { <option value=v.id()>{v.label()}</option> }).collect_view()}
                </select>
            </div>
            <ToolModeField busy=busy/>
            <SamplingNote sampling=TemperatureSource::Settings testid="travel-temperature"/>
            <div class="field">
                <label for="travel-db">"Database"</label>
                <DatabaseSelect id="travel-db" disabled=busy/>
            </div>
            <div class="travel-actions">
                <button class="button small" disabled=busy on:click=move |_| importing.set(true)>"Import database…"</button>
                <FileButton text="Import queries…" accept=".jsonl,.json,application/json" label="Import queries" on_file=move |ev| import_queries(app, ev)/>
                <a class="link-button small" href="/batch">"Batch run…"</a>
            </div>
            <ImportDbDialog open=importing/>
            <crate::ui::fit_note::FitNote/>
            <crate::ui::fit_note::UnreadableNotice/>
        </div>
    }
}

/// The query of the set, and its text.
#[component]
fn QueryField(busy: Signal<bool>) -> impl IntoView {
    let query_text = move || {
        travel_setup().with(|t| {
            t.query()
                .map(|q| q.text.clone())
                .unwrap_or_else(|| "No query selected.".into())
        })
    };
    view! {
        <div class="field">
            <label for="query">"Query"</label>
            <select id="query" disabled=busy prop:value=move || travel_setup().with(|t| t.selected.map(|i| i.to_string()).unwrap_or_default())
                on:change=move |ev| { let v = event_target_value(&ev).parse().ok(); travel_setup().update(|t| t.selected = v) }>
                {move || travel_setup().with(|t| t.queries.iter().map(|q| {
                    let label = format!("#{} · {} · {} days", q.idx, q.level, q.days);
                    view! { <option value=q.idx.to_string()>{label}</option> }
                }).collect_view())}
            </select>
        </div>
        <p class="query-text" aria-label="Query text">{query_text}</p>
    }
}

/// How tools are offered (native function calls or the text protocol),
/// and why.
#[component]
fn ToolModeField(busy: Signal<bool>) -> impl IntoView {
    let app = use_app();
    // What a run will use: the in-page model has no native tool calls, so
    // it gets the text protocol whatever the field says (`ToolMode::for_model`).
    let forced_text =
        move || !shown_setup::locked(app) && app.settings.with(|s| s.model_spec().is_local());
    let tool_mode = move || {
        let chosen = travel_setup().with(|t| t.tool_mode);
        if forced_text() {
            ToolMode::Text
        } else {
            chosen
        }
    };
    let tool_mode_why = move || {
        if shown_setup::locked(app) {
            "What the run on screen used."
        } else if forced_text() {
            LOCAL_TOOLS_WHY
        } else if tool_mode() == ToolMode::Text {
            "Tools are described in the prompt; the model writes Tool[args] lines."
        } else {
            "The provider's function-calling API."
        }
    };
    view! {
        <div class="field">
            <label for="tool-mode">"Tool calls"</label>
            <select id="tool-mode" disabled=move || busy.get() || forced_text() prop:value=move || if tool_mode() == ToolMode::Text { "text" } else { "native" }
                on:change=move |ev| { let m = if event_target_value(&ev) == "text" { ToolMode::Text } else { ToolMode::Native }; travel_setup().update(|t| t.tool_mode = m) }>
                <option value="native">"Native function calling"</option>
                <option value="text">"Text protocol Tool[args]"</option>
            </select>
            <span class="muted small" data-testid="tool-mode-why">{tool_mode_why}</span>
        </div>
    }
}
