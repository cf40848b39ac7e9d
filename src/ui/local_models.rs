//! Settings for "Local model (in this browser)": which GGUF files suit,
//! adding one (checked, then copied into the browser's storage with a
//! progress bar), the stored models with their sizes, picking one, and
//! deleting. The file never leaves the browser; runs record its name and
//! hash only.

use crate::engine::model::suggested::{quick, SUGGESTED};
use crate::engine::views::html::model_name::{short_model_name, size_text};
use crate::platform::local_model::{self, protocol::Leftover, protocol::StoredModel};
use crate::platform::model_ledger;
use crate::ui::widgets::target_as;
use leptos::prelude::*;
use leptos::task::spawn_local;

fn mb(bytes: u64) -> String {
    size_text(bytes)
}

/// What the header calls a stored model: its file's name, quantisation
/// and size.
fn short_name(m: &StoredModel) -> String {
    short_model_name(&m.file_name, &m.info.name, &m.info.quant, m.info.file_bytes)
}

fn params(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.0}M parameters", n as f64 / 1e6)
    } else {
        format!("{:.0}K parameters", n as f64 / 1e3)
    }
}

/// What Settings knows of the store: its models and leftovers, and the
/// models the ledger says it held that it no longer lists.
#[derive(Clone)]
struct Shown {
    models: Vec<StoredModel>,
    leftovers: Vec<Leftover>,
    missing: Vec<(String, model_ledger::Entry)>,
}

/// The picked model: its file's hash, the name runs record, the header's
/// short name.
#[derive(Clone, Copy)]
struct Picked {
    chosen: RwSignal<String>,
    name: RwSignal<String>,
    label: RwSignal<String>,
}

impl Picked {
    fn pick(self, m: &StoredModel) {
        self.chosen.try_set(m.info.sha256.clone());
        self.name
            .try_set(format!("{} {}", m.info.name, m.info.quant));
        self.label.try_set(short_name(m));
    }

    /// No model picked (the picked one, `sha`, was deleted).
    fn clear_if(self, sha: &str) {
        if self.chosen.try_get_untracked().as_deref() == Some(sha) {
            self.chosen.try_set(String::new());
            self.name.try_set(String::new());
            self.label.try_set(String::new());
        }
    }
}

type Listed = RwSignal<Option<Result<Shown, String>>>;

/// Lists the store into `shown` (and the ledger's models it lacks).
fn list_store(shown: Listed, picked: Picked) {
    spawn_local(async move {
        let r = local_model::list(short_name).await.map(|s| {
            let listed: Vec<String> = s.models.iter().map(|m| m.info.sha256.clone()).collect();
            Shown {
                missing: model_ledger::missing(&listed),
                models: s.models,
                leftovers: s.leftovers,
            }
        });
        if let (Ok(s), Some(c)) = (&r, picked.chosen.try_get_untracked()) {
            // The picked model's short name, for settings saved before it was noted.
            if let Some(m) = s.models.iter().find(|m| m.info.sha256 == c) {
                _ = picked.label.try_set(short_name(m));
            }
        }
        shown.try_set(Some(r));
    })
}

/// Deletes the stored model `sha` (the pick too, if it is the one picked),
/// then lists the store again.
fn delete_model(
    sha: String,
    picked: Picked,
    error: RwSignal<Option<String>>,
    refresh: impl Fn() + 'static,
) {
    error.set(None);
    spawn_local(async move {
        if let Err(e) = local_model::delete(&sha).await {
            error.try_set(Some(e));
        } else {
            picked.clear_if(&sha);
        }
        refresh();
    });
}

/// The model picker. `chosen` is the selected file's hash, `name` the
/// model name runs record, `label` its short name for the header. A
/// picked model the store no longer lists stays picked (adding the same
/// file again makes it whole) and is explained, never dropped in silence.
#[component]
pub fn LocalModels(
    chosen: RwSignal<String>,
    name: RwSignal<String>,
    label: RwSignal<String>,
) -> impl IntoView {
    let picked = Picked {
        chosen,
        name,
        label,
    };
    let shown: Listed = RwSignal::new(None);
    let busy = RwSignal::new(None::<(String, u64, u64)>);
    let error = RwSignal::new(None::<String>);
    let added = RwSignal::new(None::<String>);
    let kept = RwSignal::new(None::<bool>);
    spawn_local(async move {
        _ = kept.try_set(local_model::persisted().await);
    });
    let refresh = move || list_store(shown, picked);
    refresh();
    let done = Callback::new(move |r: Result<StoredModel, String>| {
        match r {
            Ok(m) => {
                added.try_set(Some(format!("Added {}.", short_name(&m))));
                picked.pick(&m);
                // Ask the browser not to evict it when the disk runs low.
                spawn_local(async move {
                    _ = kept.try_set(local_model::persist().await);
                });
            }
            Err(e) => _ = error.try_set(Some(e)),
        }
        refresh();
    });
    let start = move || {
        error.set(None);
        added.set(None);
    };
    view! {
        <div class="local-models">
            <Suggested/>
            <AddModel busy=busy on_start=Callback::new(move |()| start()) on_done=done/>
            {move || added.get().map(|m| view! { <p class="ok" role="status">{m}</p> })}
            {move || error.get().map(|e| view! { <p class="bad" role="alert" data-testid="local-error">{e}</p> })}
            {move || match shown.get() {
                None => view! { <p class="muted">"Looking for stored models…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="bad" role="alert">{e}</p> }.into_any(),
                Some(Ok(s)) => view! {
                    <StoreContents s=s shown=shown picked=picked kept=kept busy=busy error=error on_done=done/>
                }.into_any(),
            }}
            <KeptNote shown=shown kept=kept/>
        </div>
    }
}

/// What the store holds: missing models, the stored ones, leftover files.
#[component]
fn StoreContents(
    s: Shown,
    picked: Picked,
    kept: RwSignal<Option<bool>>,
    busy: RwSignal<Option<(String, u64, u64)>>,
    error: RwSignal<Option<String>>,
    on_done: Callback<Result<StoredModel, String>>,
    /// Where the store is listed (again, after a change).
    shown: Listed,
) -> impl IntoView {
    let refresh = move || list_store(shown, picked);
    view! {
        <Missing missing=s.missing.clone() chosen=picked.chosen kept=kept
            listed=s.models.iter().map(|m| m.info.sha256.clone()).collect()
            to_check=s.leftovers.iter().any(|l| l.kind != "no_file")
            on_forget=Callback::new(move |sha: String| {
                model_ledger::forget(&sha);
                refresh();
            })/>
        <StoredList models=s.models.clone() chosen=picked.chosen
            on_pick=Callback::new(move |m: StoredModel| picked.pick(&m))
            on_delete=Callback::new(move |sha| delete_model(sha, picked, error, refresh))/>
        <Leftovers leftovers=s.leftovers.clone() busy=busy error=error on_done=on_done
            refresh=Callback::new(move |()| refresh())/>
    }
}

/// Whether the browser keeps the stored models (once there are some).
#[component]
fn KeptNote(shown: Listed, kept: RwSignal<Option<bool>>) -> impl IntoView {
    let any = move || shown.with(|s| matches!(s, Some(Ok(s)) if !s.models.is_empty()));
    view! {
        {move || any().then(|| view! {
            <p class="hint" data-testid="local-kept">{match kept.get() {
                Some(true) => "The browser keeps stored models until you delete them here (or clear this site's data).",
                _ => "The browser may remove stored models if the disk runs low (this site's storage is not marked persistent); Settings will say so if it happens.",
            }}</p>
        })}
    }
}

#[component]
fn Suggested() -> impl IntoView {
    view! {
        <p class="hint">"A small language model runs inside this page, on your computer: no key, no server, nothing sent anywhere. Download a GGUF file yourself (from Hugging Face, for instance) and add it here; it is kept in this browser's storage. Good choices:"</p>
        <ul class="suggested">
            {SUGGESTED.iter().map(|s| {
                let about = [s.speeds(), s.note.to_string()]
                    .into_iter()
                    .filter(|t| !t.is_empty() && t != "not measured")
                    .collect::<Vec<_>>()
                    .join("; ");
                view! { <li><b>{s.model}</b>" · "{s.file}" · "<span class="muted">{about}</span></li> }
            }).collect_view()}
        </ul>
        <p class="hint">{format!(
            "Only llama (SmolLM2, Llama 3) and qwen2 (Qwen2.5) models with a byte-level BPE tokenizer run here. Prompts are read in batches: a 1,000-token prompt takes {} {} about {}. Speeds as `make bench` measured them on a 2-core machine; a laptop is faster.",
            quick().model,
            quick().file.split(',').next().unwrap_or_default(),
            quick().prompt_wait(1000).unwrap_or_default()
        )}</p>
        <p class="hint" data-testid="local-cores">{cores_note()}</p>
    }
}

/// The file picker and the progress of a copy (or a restore).
#[component]
fn AddModel(
    busy: RwSignal<Option<(String, u64, u64)>>,
    on_start: Callback<()>,
    on_done: Callback<Result<StoredModel, String>>,
) -> impl IntoView {
    let on_file = move |ev: leptos::ev::Event| {
        let Some(input) = target_as::<web_sys::HtmlInputElement>(&ev) else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        input.set_value("");
        on_start.run(());
        busy.set(Some(("checking".into(), 0, file.size() as u64)));
        spawn_local(async move {
            let progress = move |stage: &str, done: u64, total: u64| {
                _ = busy.try_set(Some((stage.to_string(), done, total)))
            };
            let r = local_model::import(file, short_name, &progress).await;
            if busy.try_set(None).is_some() {
                return; // Settings closed meanwhile
            }
            on_done.run(r);
        });
    };
    view! {
        <label class="button file-button" class:disabled=move || busy.get().is_some()>
            "Add a model file (.gguf)…"
            <input id="local-file" type="file" accept=".gguf" aria-label="Add a model file"
                disabled=move || busy.get().is_some() on:change=on_file/>
        </label>
        {move || busy.get().map(|(stage, done, total)| {
            let label = match stage.as_str() {
                "checking" => "Checking the file…".to_string(),
                "hashing" => format!("Checking the stored file: {} of {}", mb(done), mb(total)),
                _ => format!("Copying into this browser's storage: {} of {}", mb(done), mb(total)),
            };
            view! {
                <div class="local-progress" role="status">
                    <progress max=total.max(1).to_string() value=done.to_string() aria-label="Adding the model"></progress>
                    <span>{label}</span>
                </div>
            }
        })}
    }
}

/// Models the ledger says this browser held that its store no longer
/// lists, and a picked model the store does not hold: what happened, and
/// what to do.
#[component]
fn Missing(
    missing: Vec<(String, model_ledger::Entry)>,
    listed: Vec<String>,
    chosen: RwSignal<String>,
    kept: RwSignal<Option<bool>>,
    /// Leftover model files that may be it (their records unreadable).
    to_check: bool,
    on_forget: Callback<String>,
) -> impl IntoView {
    let known: Vec<String> = missing.iter().map(|(sha, _)| sha.clone()).collect();
    let stray = move || {
        let c = chosen.get();
        !c.is_empty() && !listed.contains(&c) && !known.contains(&c)
    };
    let why = move || {
        match kept.get() {
        _ if to_check => "Its file may be one of the leftover files below, whose records cannot be read: press its \"Check and keep\".",
        Some(true) => "The browser removed it from this site's storage (this site's data was cleared).",
        _ => "The browser removed it from this site's storage: the storage is not marked persistent, so the browser may clear it when the disk runs low, or when this site's data is cleared.",
    }
    };
    view! {
        {missing.into_iter().map(|(sha, e)| {
            let picked = {
                let sha = sha.clone();
                move || chosen.get() == sha
            };
            view! {
                <div class="notice warning" role="alert" data-testid="local-missing">
                    <p><b>{e.label.clone()}</b>{move || if picked() { " (picked) " } else { " " }}
                        "is no longer stored in this browser. "{why}
                        {(!to_check).then(|| view! { " Add "<b>{e.file_name.clone()}</b>" again to use it: the same file makes the pick and its runs whole again." })}</p>
                    <button type="button" class="button small" on:click=move |_| on_forget.run(sha.clone())>"Forget it"</button>
                </div>
            }
        }).collect_view()}
        {move || stray().then(|| view! {
            <p class="notice warning" role="alert" data-testid="local-missing">"The picked model is not stored in this browser (it was deleted, or added in another browser): add its file again, or pick another."</p>
        })}
    }
}

/// The stored models: pick one, or delete it.
#[component]
fn StoredList(
    models: Vec<StoredModel>,
    chosen: RwSignal<String>,
    on_pick: Callback<StoredModel>,
    on_delete: Callback<String>,
) -> impl IntoView {
    if models.is_empty() {
        return view! {
            <p class="muted" data-testid="local-empty">"No model stored in this browser yet."</p>
        }
        .into_any();
    }
    view! {
        <ul class="local-list" aria-label="Models stored in this browser">
            {models.into_iter().map(|m| {
                let sha = m.info.sha256.clone();
                let sha_pick = sha.clone();
                let sha_del = sha.clone();
                let m_pick = m.clone();
                let slow = (!m.info.slow_types.is_empty()).then(|| format!(
                    " Its {} weights have no fast kernels here: expect it to be slow.",
                    m.info.slow_types.join(", ")
                ));
                view! {
                    <li class="local-row" class:chosen=move || chosen.get() == sha>
                        <label class="check">
                            <input type="radio" name="local-model"
                                prop:checked=move || chosen.get() == sha_pick
                                on:change=move |_| on_pick.run(m_pick.clone())/>
                            <span class="local-name">{short_name(&m)}</span>
                        </label>
                        <span class="muted">{format!(
                            "{} · {} · file {} (it calls itself {})",
                            m.info.arch, params(m.info.params), m.file_name, m.info.name
                        )}{slow}</span>
                        <button type="button" class="button small"
                            aria-label=format!("Delete {}", short_name(&m))
                            on:click=move |_| on_delete.run(sha_del.clone())>"Delete"</button>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
    .into_any()
}

/// Files of the store that are not usable models: never removed but by
/// the user; a model file without its record can be checked and kept.
#[component]
fn Leftovers(
    leftovers: Vec<Leftover>,
    busy: RwSignal<Option<(String, u64, u64)>>,
    error: RwSignal<Option<String>>,
    on_done: Callback<Result<StoredModel, String>>,
    refresh: Callback<()>,
) -> impl IntoView {
    if leftovers.is_empty() {
        return ().into_any();
    }
    let remove = move |file_id: String| {
        error.set(None);
        spawn_local(async move {
            if let Err(e) = local_model::delete_leftover(&file_id).await {
                error.try_set(Some(e));
            }
            refresh.run(());
        });
    };
    let restore = move |file_id: String| {
        error.set(None);
        busy.set(Some(("hashing".into(), 0, 0)));
        spawn_local(async move {
            let progress = move |stage: &str, done: u64, total: u64| {
                _ = busy.try_set(Some((stage.to_string(), done, total)))
            };
            let r = local_model::restore_leftover(&file_id, short_name, &progress).await;
            // (Settings closed meanwhile: nothing to show it in.)
            if busy.try_set(None).is_none() {
                on_done.run(r);
            }
        });
    };
    view! {
        <div class="local-leftovers" data-testid="local-leftovers">
            <p class="hint">"Files in this browser's model store that are not usable models. They stay until you delete them:"</p>
            <ul class="local-list" aria-label="Leftover files">
                {leftovers.into_iter().map(|l| {
                    let what = match l.kind.as_str() {
                        "unfinished" => "A model file without its record",
                        "damaged" => "A model file whose record cannot be read",
                        _ => "The record of a model whose file is gone",
                    };
                    let size = (l.bytes > 0).then(|| format!(" · {}", mb(l.bytes)));
                    let name = (!l.file_name.is_empty()).then(|| format!(" · {}", l.file_name));
                    let can_restore = l.kind != "no_file";
                    let (id_restore, id_delete) = (l.file_id.clone(), l.file_id.clone());
                    view! {
                        <li class="local-row">
                            <span>{what}{size}{name}</span>
                            <span class="muted">{l.detail.clone()}</span>
                            <span class="row-actions">
                                {can_restore.then(|| view! {
                                    <button type="button" class="button small" disabled=move || busy.get().is_some()
                                        on:click=move |_| restore(id_restore.clone())>"Check and keep"</button>
                                })}
                                <button type="button" class="button small" on:click=move |_| remove(id_delete.clone())>"Delete file"</button>
                            </span>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </div>
    }
    .into_any()
}

/// The cores the in-page model may use here, in words: the worker splits
/// each forward pass over up to 4 of them when the page is cross-origin
/// isolated (crates/llm-worker, `worker::peers`).
fn cores_note() -> String {
    let window = web_sys::window();
    let flag = |key: &str| {
        window
            .as_ref()
            .and_then(|w| js_sys::Reflect::get(w, &key.into()).ok())
    };
    let isolated = flag("crossOriginIsolated")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let cores = flag("navigator")
        .and_then(|n| js_sys::Reflect::get(&n, &"hardwareConcurrency".into()).ok())
        .and_then(|v| v.as_f64())
        .unwrap_or(1.0) as usize;
    match (isolated, cores.clamp(1, 4)) {
        (false, _) => "It runs on one core here: this page is not cross-origin isolated (its server does not send the two headers that allow more; `make run` sends them, see docs/local-model.md).".into(),
        (true, 1) => "It runs on this device's one core.".into(),
        (true, n) => format!("It runs on {n} of this device's cores, each holding a share of the model."),
    }
}
