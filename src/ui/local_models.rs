//! Settings for "Local model (in this browser)": which GGUF files suit,
//! adding one (checked, then copied into the browser's storage with a
//! progress bar), the stored models with their sizes, picking one, and
//! deleting. The file never leaves the browser; runs record its name and
//! hash only.

use crate::engine::views::html::model_name::{short_model_name, size_text};
use crate::platform::local_model::{self, protocol::StoredModel};
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

/// Models that run well here. Speeds as `make bench` measured them on 2
/// CPU cores, an answer after a 788-token prompt (a laptop is faster).
const SUGGESTED: [(&str, &str, &str); 4] = [
    (
        "SmolLM2-135M-Instruct",
        "Q8_0, 145 MB",
        "reads about 50 prompt tokens/s on one core (60–85 on two), writes about 38; quick, but a weak planner",
    ),
    (
        "SmolLM2-360M-Instruct",
        "Q8_0, 386 MB",
        "about 2.7 times the 135M model's work per token",
    ),
    (
        "Qwen2.5-0.5B-Instruct",
        "Q4_0, 352 MB",
        "in less memory than Q8_0, a little slower per token; the best answers of these",
    ),
    (
        "Qwen2.5-0.5B-Instruct",
        "Q8_0, 531 MB",
        "reads about 13 prompt tokens/s on one core (about 22 on two), writes about 10–12; needs about 1.2 GB of memory",
    ),
];

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

/// The model picker. `chosen` is the selected file's hash, `name` the
/// model name runs record, `label` its short name for the header.
#[component]
pub fn LocalModels(
    chosen: RwSignal<String>,
    name: RwSignal<String>,
    label: RwSignal<String>,
) -> impl IntoView {
    let models = RwSignal::new(None::<Result<Vec<StoredModel>, String>>);
    let busy = RwSignal::new(None::<(String, u64, u64)>);
    let error = RwSignal::new(None::<String>);
    let added = RwSignal::new(None::<String>);
    let refresh = move || {
        spawn_local(async move {
            let r = local_model::list().await;
            if let (Ok(list), Some(c)) = (&r, chosen.try_get_untracked()) {
                match list.iter().find(|m| m.info.sha256 == c) {
                    // The picked model's short name, for settings saved before it was noted.
                    Some(m) => _ = label.try_set(short_name(m)),
                    // A picked model that is gone is no longer picked (nor named).
                    None if !c.is_empty() => {
                        chosen.try_set(String::new());
                        name.try_set(String::new());
                        label.try_set(String::new());
                    }
                    None => {}
                }
            }
            models.try_set(Some(r));
        })
    };
    refresh();
    let pick = move |m: &StoredModel| {
        chosen.try_set(m.info.sha256.clone());
        name.try_set(format!("{} {}", m.info.name, m.info.quant));
        label.try_set(short_name(m));
    };
    let on_file = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        input.set_value("");
        error.set(None);
        added.set(None);
        busy.set(Some(("checking".into(), 0, file.size() as u64)));
        spawn_local(async move {
            let progress = move |stage: &str, done: u64, total: u64| {
                _ = busy.try_set(Some((stage.to_string(), done, total)))
            };
            let r = local_model::import(file, &progress).await;
            if busy.try_set(None).is_some() {
                return; // Settings closed meanwhile
            }
            match r {
                Ok(m) => {
                    added.try_set(Some(format!(
                        "Added {} ({}, {}).",
                        m.info.name,
                        m.info.quant,
                        mb(m.info.file_bytes)
                    )));
                    pick(&m);
                    refresh();
                }
                Err(e) => {
                    error.try_set(Some(e));
                }
            }
        });
    };
    let delete = move |sha: String| {
        error.set(None);
        spawn_local(async move {
            if let Err(e) = local_model::delete(&sha).await {
                error.try_set(Some(e));
            }
            if chosen.try_get_untracked().as_deref() == Some(sha.as_str()) {
                chosen.try_set(String::new());
            }
            refresh();
        });
    };

    view! {
        <div class="local-models">
            <p class="hint">"A small language model runs inside this page, on your computer: no key, no server, nothing sent anywhere. Download a GGUF file yourself (from Hugging Face, for instance) and add it here; it is kept in this browser's storage. Good choices:"</p>
            <ul class="suggested">
                {SUGGESTED.iter().map(|(n, q, speed)| view! {
                    <li><b>{*n}</b>" · "{*q}" · "<span class="muted">{*speed}</span></li>
                }).collect_view()}
            </ul>
            <p class="hint">"Only llama (SmolLM2, Llama 3) and qwen2 (Qwen2.5) models with a byte-level BPE tokenizer run here. Prompts are read in batches: a 1,000-token prompt takes SmolLM2-135M about 20 s on one core, 12–16 s on two."</p>
            <p class="hint" data-testid="local-cores">{cores_note()}</p>
            <label class="button file-button" class:disabled=move || busy.get().is_some()>
                "Add a model file (.gguf)…"
                <input id="local-file" type="file" accept=".gguf" aria-label="Add a model file"
                    disabled=move || busy.get().is_some() on:change=on_file/>
            </label>
            {move || busy.get().map(|(stage, done, total)| {
                let label = match stage.as_str() {
                    "checking" => "Checking the file…".to_string(),
                    _ => format!("Copying into this browser's storage: {} of {}", mb(done), mb(total)),
                };
                view! {
                    <div class="local-progress" role="status">
                        <progress max=total.max(1).to_string() value=done.to_string() aria-label="Adding the model"></progress>
                        <span>{label}</span>
                    </div>
                }
            })}
            {move || added.get().map(|m| view! { <p class="ok" role="status">{m}</p> })}
            {move || error.get().map(|e| view! { <p class="bad" role="alert" data-testid="local-error">{e}</p> })}
            {move || match models.get() {
                None => view! { <p class="muted">"Looking for stored models…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="bad" role="alert">{e}</p> }.into_any(),
                Some(Ok(list)) if list.is_empty() => view! {
                    <p class="muted" data-testid="local-empty">"No model stored in this browser yet."</p>
                }.into_any(),
                Some(Ok(list)) => view! {
                    <ul class="local-list" aria-label="Models stored in this browser">
                        {list.into_iter().map(|m| {
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
                                            on:change=move |_| pick(&m_pick)/>
                                        <span class="local-name">{m.info.name.clone()}</span>
                                    </label>
                                    <span class="muted">{format!(
                                        "{} · {} · {} · {} · file {}",
                                        m.info.arch, m.info.quant, params(m.info.params), mb(m.info.file_bytes), m.file_name
                                    )}{slow}</span>
                                    <button type="button" class="button small"
                                        aria-label=format!("Delete {}", m.info.name)
                                        on:click=move |_| delete(sha_del.clone())>"Delete"</button>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }.into_any(),
            }}
        </div>
    }
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
        (false, _) => "It runs on one core here: this page is not cross-origin isolated (its server does not send the two headers that allow more; see the README).".into(),
        (true, 1) => "It runs on this device's one core.".into(),
        (true, n) => format!("It runs on {n} of this device's cores, each holding a share of the model."),
    }
}
