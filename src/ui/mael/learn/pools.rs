//! The pools this browser keeps: each with its size, embedder and last
//! change; use one for runs, inspect, export (the documented JSON file),
//! merge another into it, re-embed it with the embedder in use, clear it;
//! import a pool file (checked entry by entry: a bad file is refused with
//! the reason and nothing is stored).

use super::super::memory;
use super::super::setup::refresh_stored;
use super::super::state::mael_setup;
use crate::engine::base::words::count;
use crate::engine::coordinators::mael::experience::Pool;
use crate::engine::coordinators::mael::memory::reembed;
use crate::engine::run::CancelToken;
use crate::platform::experience_store;
use crate::platform::files;
use crate::ui::state::AppState;
use crate::ui::widgets::{ConfirmBar, FileButton, ResultLine, ResultMessage};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// What the pools panel and the inspector share.
#[derive(Clone, Copy)]
pub struct PoolsUi {
    /// The pool the inspector shows.
    pub inspected: RwSignal<Option<String>>,
    /// Bumped when a pool's content changed (the inspector reloads).
    pub changed: RwSignal<u32>,
    /// A long action under way ("Re-embedding 128 of 512…").
    pub busy: RwSignal<Option<String>>,
    /// The last action's outcome: (ok, text).
    pub message: ResultMessage,
}

impl PoolsUi {
    pub fn new() -> Self {
        PoolsUi {
            inspected: RwSignal::new(None),
            changed: RwSignal::new(0),
            busy: RwSignal::new(None),
            message: RwSignal::new(None),
        }
    }

    fn done(self, result: Result<String, String>) {
        self.busy.set(None);
        self.message.set(Some(result));
        self.changed.update(|n| *n += 1);
        refresh_stored();
    }
}

/// The stored pool `name`, with its own embedder.
pub async fn load(name: &str) -> Result<Pool, String> {
    experience_store::load_stored(name).await
}

fn date(ms: f64) -> String {
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms));
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        d.get_full_year(),
        d.get_month() + 1,
        d.get_date(),
        d.get_hours(),
        d.get_minutes()
    )
}

/// A name no stored one has (`base`, else `base (2)`…).
fn free_name(base: &str) -> String {
    crate::engine::views::export::free_name(base, |n| {
        mael_setup().with_untracked(|s| s.pools.iter().any(|p| p.name == n))
    })
}

fn file_stem(name: &str) -> String {
    crate::engine::views::export::import_stem(name, ".pool")
}

pub fn export(ui: PoolsUi, name: String) {
    spawn_local(async move {
        let r = match load(&name).await {
            Ok(pool) => files::download_text(
                &format!("{name}.pool.json"),
                "application/json",
                &pool.to_json(),
            )
            .map(|_| format!("Exported \"{name}\" ({}).", count(pool.len(), "experience")))
            .map_err(|e| format!("Could not save the file: {e}")),
            Err(e) => Err(e),
        };
        ui.busy.set(None);
        ui.message.set(Some(r));
    });
}

/// Imports a pool file as a new pool (its file name, made unique).
pub fn import(ui: PoolsUi, file: web_sys::File) {
    let file_name = file.name();
    ui.busy.set(Some(format!("Checking {file_name}…")));
    spawn_local(async move {
        let r = async {
            let text = files::read_named(&file).await?;
            let pool =
                Pool::from_json(&text).map_err(|e| format!("{file_name}: {}", e.user_message()))?;
            let name = free_name(&file_stem(&file_name));
            experience_store::save(&name, &pool, 0)
                .await
                .map_err(|e| e.user_message())?;
            ui.inspected.set(Some(name.clone()));
            Ok(format!(
                "Imported {} as \"{name}\".",
                count(pool.len(), "experience")
            ))
        }
        .await;
        ui.done(r);
    });
}

/// Adds the entries of `from` to `into` (same embedder only).
pub fn merge(ui: PoolsUi, from: String, into: String) {
    ui.busy
        .set(Some(format!("Merging \"{from}\" into \"{into}\"…")));
    spawn_local(async move {
        let r = async {
            let mut target = load(&into).await?;
            let source = load(&from).await?;
            let before = target.len();
            let added = target.merge(&source).map_err(|e| e.user_message())?;
            experience_store::save(&into, &target, before)
                .await
                .map_err(|e| e.user_message())?;
            Ok(format!(
                "Added {added} experiences of \"{from}\" to \"{into}\" ({} now).",
                target.len()
            ))
        }
        .await;
        ui.done(r);
    });
}

/// Embeds every entry of `name` again with the embedder the setup uses.
pub fn reembed_pool(ui: PoolsUi, app: AppState, name: String) {
    ui.busy.set(Some(format!("Re-embedding \"{name}\"…")));
    spawn_local(async move {
        let r = async {
            let setup = mael_setup().get_untracked();
            let embedder = memory::embedder(&setup, &app.settings.get_untracked()).await?;
            let pool = load(&name).await?;
            if pool.embedder == embedder.id() {
                return Ok(format!(
                    "\"{name}\" already uses {}.",
                    pool.embedder.label()
                ));
            }
            let out = reembed(
                &pool,
                embedder.as_ref(),
                &CancelToken::new(),
                |done, total| {
                    ui.busy
                        .set(Some(format!("Re-embedding \"{name}\": {done} of {total}…")));
                },
            )
            .await?;
            // The new vectors replace the old ones in one transaction (same
            // entries, same chunks): the old pool stays until the new commits.
            experience_store::save(&name, &out, 0)
                .await
                .map_err(|e| e.user_message())?;
            Ok(format!("\"{name}\" now uses {}.", out.embedder.label()))
        }
        .await;
        ui.done(r);
    });
}

pub fn clear(ui: PoolsUi, name: String) {
    spawn_local(async move {
        let r = experience_store::delete(&name)
            .await
            .map(|_| format!("Deleted the pool \"{name}\"."))
            .map_err(|e| e.user_message());
        if ui.inspected.get_untracked().as_deref() == Some(name.as_str()) {
            ui.inspected.set(None);
        }
        ui.done(r);
    });
}

#[component]
pub fn PoolsPanel(ui: PoolsUi) -> impl IntoView {
    let confirm = RwSignal::new(None::<String>);
    let s = mael_setup();
    let on_file = move |ev: leptos::ev::Event| {
        if let Some(f) = files::picked(&ev).into_iter().next() {
            import(ui, f);
        }
    };
    let busy = move || ui.busy.with(Option::is_some);
    let rows = move || {
        let in_use = s.with(|x| x.pool.clone());
        s.with(|x| x.pools.clone()).into_iter().map(|p| {
            let (n1, n2, n3, n4, n5) = (p.name.clone(), p.name.clone(), p.name.clone(), p.name.clone(), p.name.clone());
            let used = p.name == in_use;
            let shown = move || ui.inspected.with(|i| i.as_deref() == Some(n5.as_str()));
            view! {
                <tr class:ml-selected=shown data-pool=p.name.clone()>
                    <th scope="row">{p.name.clone()}{used.then(|| view! { <span class="chip small" title="runs use this pool">"in use"</span> })}</th>
                    <td class="num">{p.count}</td>
                    <td class="small">{p.embedder.id.clone()}<span class="muted">{format!(" · {}d", p.embedder.dims)}</span></td>
                    <td class="small muted">{date(p.updated_ms)}</td>
                    <td class="ml-pool-actions">
                        <button type="button" class="link-button small" disabled=used on:click=move |_| s.update(|x| x.pool = n1.clone())>"Use"</button>
                        <button type="button" class="link-button small" on:click=move |_| ui.inspected.set(Some(n2.clone()))>"Inspect"</button>
                        <button type="button" class="link-button small" disabled=busy on:click=move |_| export(ui, n3.clone())>"Export"</button>
                        <button type="button" class="link-button small danger" disabled=busy on:click=move |_| confirm.set(Some(n4.clone()))>"Clear"</button>
                    </td>
                </tr>
            }
        }).collect_view()
    };
    view! {
        <section class="panel ml-pools" role="region" aria-label="Pools">
            <div class="panel-head">
                <h2 class="panel-title">"Experience pools"</h2>
                <FileButton text="Import pool…" accept=".json,application/json" label="Import pool file" disabled=busy on_file=on_file/>
            </div>
            <p class="muted small">"Pools live in this browser (IndexedDB) and survive reloads. Runs that learn add to the pool in use; an evaluation only reads it."</p>
            <ConfirmBar pending=confirm label="Confirm clear" on_confirm=move |name| clear(ui, name)
                question=|name| format!("Delete the pool \"{name}\" and all its experiences? Export it first to keep a copy.")/>
            {move || ui.busy.get().map(|b| view! { <div class="progress-row" role="status"><progress></progress><span class="small">{b}</span></div> })}
            <ResultLine message=ui.message/>
            <Show when=move || s.with(|x| !x.pools.is_empty()) fallback=move || view! {
                <div class="empty small">
                    <p class="muted">{move || format!("No pool yet. Run a learning phase below (it fills \"{}\"), run a task with Learn ticked, or import a pool file.", s.with(|x| x.pool.clone()))}</p>
                </div>
            }>
                <div class="tp-table-wrap">
                    <table class="tp-table ml-pool-list">
                        <thead><tr><th scope="col">"pool"</th><th scope="col">"experiences"</th><th scope="col">"embedder"</th><th scope="col">"changed"</th><th scope="col"></th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            </Show>
        </section>
    }
}
