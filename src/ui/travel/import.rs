//! Importing the real TravelPlanner database: a folder of the official CSV
//! files or a .zip of it, read and parsed in the browser with progress,
//! then kept in IndexedDB and selectable as the sandbox.

use super::state::travel_setup;
use crate::engine::domains::travel::{zip, TravelDb};
use crate::platform::{files, travel_store};
use crate::ui::widgets::DialogHead;
use js_sys::Uint8Array;
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;
use wasm_bindgen_futures::JsFuture;

#[derive(Clone, PartialEq)]
enum Stage {
    Idle,
    Reading { done: u32, total: u32 },
    Parsing,
    Done(String),
    Failed(String),
}

/// Files the loader can use (CSV tables and the city list).
fn wanted(path: &str) -> bool {
    path.ends_with(".csv") || path.ends_with("citySet_with_states.txt")
}

async fn bytes_of(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let buf = JsFuture::from(file.array_buffer())
        .await
        .map_err(|_| "the browser could not read the file".to_string())?;
    Ok(Uint8Array::new(&buf).to_vec())
}

fn summary(db: &TravelDb) -> String {
    let s = &db.stats;
    format!(
        "{} accommodations ({} rows without every field skipped, as the official tools do), {} attractions, {} restaurants, {} flights, {} road pairs, {} cities.",
        s.accommodations.kept, s.accommodations.dropped, s.attractions.kept, s.restaurants.kept, s.flights.kept, s.distances.kept, s.cities.kept
    )
}

/// A picked file's path: folder pickers give each file's path inside the
/// folder, other pickers its name.
fn path_of(f: &web_sys::File) -> String {
    js_sys::Reflect::get(f, &"webkitRelativePath".into())
        .ok()
        .and_then(|v| v.as_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| f.name())
}

/// The texts of the files the loader can use (a .zip's too), with the
/// reading's progress in `stage`; the first file that does not read fails
/// it all.
async fn read_files(
    list: &[web_sys::File],
    stage: RwSignal<Stage>,
) -> Result<Vec<(String, String)>, String> {
    let mut texts: Vec<(String, String)> = Vec::new();
    let total = list.len() as u32;
    for (i, f) in list.iter().enumerate() {
        stage.set(Stage::Reading {
            done: i as u32,
            total,
        });
        let path = path_of(f);
        if path.ends_with(".zip") {
            match bytes_of(f).await.and_then(|b| zip::read_zip(&b, &wanted)) {
                Ok(entries) => texts.extend(
                    entries
                        .into_iter()
                        .map(|(p, b)| (p, String::from_utf8_lossy(&b).into_owned())),
                ),
                Err(e) => return Err(format!("{path}: {e}")),
            }
        } else if wanted(&path) {
            match files::read_text(f).await {
                Ok(t) => texts.push((path, t)),
                Err(e) => return Err(format!("{path}: {e}")),
            }
        }
    }
    Ok(texts)
}

/// Reads, parses and keeps the database as `db_name`, and makes it the
/// sandbox; `stage` says how it goes.
async fn import_db(db_name: String, list: Vec<web_sys::File>, stage: RwSignal<Stage>) {
    let texts = match read_files(&list, stage).await {
        Ok(texts) => texts,
        Err(e) => return stage.set(Stage::Failed(e)),
    };
    stage.set(Stage::Parsing);
    gloo_timers::future::TimeoutFuture::new(16).await; // let the progress show
    let db = match TravelDb::from_files(&texts) {
        Ok(db) => Rc::new(db),
        Err(e) => return stage.set(Stage::Failed(format!("{e}"))),
    };
    let done = summary(&db);
    if let Err(e) = travel_store::save_db(&db_name, texts, db).await {
        return stage.set(Stage::Failed(e.user_message()));
    }
    travel_setup().update(|t| {
        if !t.imported_dbs.contains(&db_name) {
            t.imported_dbs.push(db_name.clone());
        }
        t.db = db_name.clone();
    });
    stage.set(Stage::Done(format!(
        "Imported “{db_name}”: {done} It is now the sandbox for travel runs."
    )));
}

#[component]
pub fn ImportDbDialog(open: RwSignal<bool>) -> impl IntoView {
    let dialog = NodeRef::<html::Dialog>::new();
    let name = RwSignal::new("TravelPlanner database".to_string());
    let stage = RwSignal::new(Stage::Idle);
    // `webkitdirectory` turns the file input into a folder picker.
    let folder = NodeRef::<html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = folder.get() {
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });
    Effect::new(move |_| {
        let Some(d) = dialog.get() else { return };
        if open.get() {
            stage.set(Stage::Idle);
            if !d.open() {
                let _ = d.show_modal();
            }
        } else if d.open() {
            d.close();
        }
    });
    let picked = move |ev: leptos::ev::Event| {
        let list = files::picked(&ev);
        if list.is_empty() {
            return;
        }
        let db_name = name.get_untracked().trim().to_string();
        if db_name.is_empty() {
            stage.set(Stage::Failed("Give the database a name first.".into()));
            return;
        }
        spawn_local(import_db(db_name, list, stage));
    };
    view! {
        <dialog class="import-db" node_ref=dialog aria-labelledby="import-title" on:close=move |_: leptos::ev::Event| open.set(false)>
            <DialogHead id="import-title" title="Import the TravelPlanner database" on_close=Callback::new(move |()| open.set(false))/>
            <p class="muted small">"Choose the database folder in the official layout (accommodations/, attractions/, restaurants/, googleDistanceMatrix/, background/, flights/) or a .zip of it. It is parsed here, in your browser, and kept in this browser's storage."</p>
            <div class="field">
                <label for="db-name">"Name"</label>
                <input id="db-name" prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev))/>
            </div>
            <div class="import-buttons">
                <label class="button file-button">
                    "Choose folder…"
                    <input type="file" node_ref=folder multiple=true aria-label="Database folder" on:change=picked/>
                </label>
                <label class="button file-button">
                    "Choose .zip…"
                    <input type="file" accept=".zip,application/zip" aria-label="Database zip" on:change=picked/>
                </label>
            </div>
            {move || stage_view(stage.get())}
        </dialog>
    }
}

/// How the import goes: reading (file n of m), parsing, done or failed.
fn stage_view(stage: Stage) -> AnyView {
    match stage {
        Stage::Idle => view! { <span></span> }.into_any(),
        Stage::Reading { done, total } => view! {
            <div class="progress-row" role="status">
                <progress max=total.to_string() value=done.to_string()></progress>
                <span class="small">{format!("Reading file {} of {total}…", done + 1)}</span>
            </div>
        }.into_any(),
        Stage::Parsing => view! { <div class="progress-row" role="status"><progress></progress><span class="small">"Parsing the tables…"</span></div> }.into_any(),
        Stage::Done(msg) => view! { <p class="ok" role="status">{msg}</p> }.into_any(),
        Stage::Failed(msg) => view! { <p class="bad" role="alert">{format!("The import failed: {msg}")}</p> }.into_any(),
    }
}
