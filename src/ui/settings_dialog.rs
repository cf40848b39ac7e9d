//! Settings: provider preset, base URL, model, API key (memory only unless
//! "Remember on this device"), a connection test, and the price table.

use super::state::use_app;
use crate::engine::model::factory::{build_model, Platform};
use crate::engine::model::pricing::{Price, PriceTable};
use crate::engine::model::providers::presets::{preset, PresetKind, PRESETS};
use crate::engine::model::{ChatRequest, Message, StreamDelta};
use crate::engine::run::CancelToken;
use crate::platform::clock::BrowserClock;
use crate::platform::fetch::FetchTransport;
use crate::platform::keys;
use crate::platform::settings::Settings;
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

#[derive(Clone, PartialEq)]
enum Probe {
    Idle,
    Testing,
    Ok(String),
    Failed(String),
}

#[component]
pub fn SettingsDialog() -> impl IntoView {
    let app = use_app();
    let dialog = NodeRef::<html::Dialog>::new();
    let provider = RwSignal::new(String::new());
    let base_url = RwSignal::new(String::new());
    let model = RwSignal::new(String::new());
    let key = RwSignal::new(String::new());
    let remember = RwSignal::new(false);
    let show_key = RwSignal::new(false);
    let prices = RwSignal::new(PriceTable::default());
    let attempts = RwSignal::new(4u32);
    let concurrency = RwSignal::new(4u32);
    let share_limit = RwSignal::new(32u32);
    let cap_usd = RwSignal::new(String::new());
    let cap_tokens = RwSignal::new(String::new());
    let demo_delay = RwSignal::new(35u32);
    let local_model = RwSignal::new(String::new());
    let probe = RwSignal::new(Probe::Idle);
    let error = RwSignal::new(None::<String>);

    // Open/close the native dialog and load the form from the settings.
    Effect::new(move |_| {
        let open = app.settings_open.get();
        let Some(d) = dialog.get() else { return };
        if open {
            let s = app.settings.get_untracked();
            provider.set(s.provider.clone());
            base_url.set(s.base_url.clone());
            model.set(s.model.clone());
            key.set(keys::get(&s.provider).unwrap_or_default());
            remember.set(s.remember_key || keys::is_remembered(&s.provider));
            prices.set(s.prices.clone());
            attempts.set(s.max_attempts);
            concurrency.set(s.max_concurrency);
            share_limit.set(s.share_limit_kb);
            cap_usd.set(s.spend_cap_usd.map(|v| v.to_string()).unwrap_or_default());
            cap_tokens.set(s.token_cap.map(|v| v.to_string()).unwrap_or_default());
            demo_delay.set(s.demo_delay_ms);
            local_model.set(s.local_model.clone());
            probe.set(Probe::Idle);
            error.set(None);
            if !d.open() {
                let _ = d.show_modal();
            }
        } else if d.open() {
            d.close();
        }
    });

    let is_demo = move || preset(&provider.get()).is_none_or(|p| p.kind == PresetKind::Demo);
    let is_local = move || preset(&provider.get()).is_some_and(|p| p.kind == PresetKind::Local);
    let remote = move || !is_demo() && !is_local();
    let needs_key = move || preset(&provider.get()).is_some_and(|p| p.needs_key);
    let on_provider = move |ev| {
        let id = event_target_value(&ev);
        if let Some(p) = preset(&id) {
            base_url.set(p.base_url.to_string());
            model.set(p.default_model.to_string());
        }
        key.set(keys::get(&id).unwrap_or_default());
        remember.set(keys::is_remembered(&id) || remember.get_untracked());
        provider.set(id);
        probe.set(Probe::Idle);
    };
    let form_settings = move || Settings {
        provider: provider.get_untracked(),
        base_url: base_url.get_untracked().trim().to_string(),
        model: model.get_untracked().trim().to_string(),
        remember_key: remember.get_untracked(),
        prices: prices.get_untracked(),
        max_attempts: attempts.get_untracked().clamp(1, 10),
        max_concurrency: concurrency.get_untracked().clamp(1, 16),
        share_limit_kb: share_limit.get_untracked().clamp(1, 2048),
        spend_cap_usd: cap_usd
            .get_untracked()
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0),
        token_cap: cap_tokens.get_untracked().trim().parse::<u64>().ok(),
        demo_delay_ms: demo_delay.get_untracked().min(1000),
        local_model: local_model.get_untracked(),
        ..app.settings.get_untracked()
    };
    let test = move |_| {
        let s = form_settings();
        let spec = s.model_spec();
        let k = Some(key.get_untracked()).filter(|k| !k.trim().is_empty());
        let platform = Platform {
            transport: Rc::new(FetchTransport),
            clock: Rc::new(BrowserClock),
            demo_chunk_delay_ms: 0,
            demo_script: crate::engine::model::demo::no_script,
        };
        let built = if spec.is_local() {
            crate::engine::model::factory::validate(&spec, None).map(|_| {
                Rc::new(crate::platform::local_model::LocalModel::for_spec(
                    &spec,
                    Rc::new(|_| {}),
                )) as Rc<dyn crate::engine::model::ChatModel>
            })
        } else {
            build_model(&spec, k, &platform)
        };
        let m = match built {
            Ok(m) => m,
            Err(e) => {
                probe.set(Probe::Failed(e));
                return;
            }
        };
        probe.set(Probe::Testing);
        spawn_local(async move {
            let mut req = ChatRequest::new(vec![Message::user("Reply with the single word OK.")]);
            req.params.max_tokens = Some(16);
            let started = js_sys::Date::now();
            let mut sink = |_d: StreamDelta| {};
            let cancel = CancelToken::new();
            let r = m.complete(&req, &mut sink, &cancel).await;
            let ms = js_sys::Date::now() - started;
            probe.set(match r {
                Ok(resp) => {
                    let said: String = resp.text.trim().chars().take(40).collect();
                    Probe::Ok(format!(
                        "Connected to {}: it replied “{said}” in {ms:.0} ms.",
                        resp.model.unwrap_or_else(|| m.name())
                    ))
                }
                Err(e) => Probe::Failed(e.user_message()),
            });
        });
    };
    let save = move |_| {
        let s = form_settings();
        if let Err(e) = keys::set(&s.provider, &key.get_untracked(), s.remember_key) {
            error.set(Some(e));
            return;
        }
        if let Err(e) = s.save() {
            error.set(Some(e));
            return;
        }
        app.settings.set(s);
        app.notice.set(None);
        app.settings_open.set(false);
    };
    let close = move || app.settings_open.set(false);

    view! {
        <dialog class="settings" node_ref=dialog aria-labelledby="settings-title"
            on:close=move |_: leptos::ev::Event| app.settings_open.set(false)
            on:cancel=move |_: leptos::ev::Event| app.settings_open.set(false)>
            <form method="dialog" on:submit=|ev| ev.prevent_default()>
                <header class="dialog-head">
                    <h2 id="settings-title">"Settings"</h2>
                    <button type="button" class="icon-button" aria-label="Close settings" on:click=move |_| close()>"✕"</button>
                </header>
                <div class="field">
                    <label for="provider">"Provider"</label>
                    <select id="provider" prop:value=move || provider.get() on:change=on_provider>
                        {PRESETS.iter().map(|p| view! { <option value=p.id>{p.label}</option> }).collect_view()}
                    </select>
                    <Show when=is_demo>
                        <p class="hint">"The offline demo model is scripted by Roundtable: it needs no key and no network, and its answers are computed, not generated."</p>
                        <label for="demo-pace">"Demo model's streaming pace"</label>
                        <select id="demo-pace" prop:value=move || demo_delay.get().to_string()
                            on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<u32>() { demo_delay.set(v) } }>
                            {crate::platform::settings::DEMO_PACES.iter().map(|(ms, label)| view! { <option value=ms.to_string()>{*label}</option> }).collect_view()}
                        </select>
                    </Show>
                </div>
                <Show when=is_local>
                    <super::local_models::LocalModels chosen=local_model name=model/>
                </Show>
                <Show when=remote>
                <div class="field-row">
                    <div class="field grow">
                        <label for="base-url">"Base URL"</label>
                        <input id="base-url" type="url" placeholder="https://…/v1"
                            prop:value=move || base_url.get() on:input=move |ev| base_url.set(event_target_value(&ev))/>
                    </div>
                    <div class="field">
                        <label for="model">"Model"</label>
                        <input id="model" type="text"
                            prop:value=move || model.get() on:input=move |ev| model.set(event_target_value(&ev))/>
                    </div>
                </div>
                <div class="field">
                    <label for="api-key">"API key"</label>
                    <div class="input-with-button">
                        <input id="api-key" autocomplete="off" spellcheck="false"
                            type=move || if show_key.get() { "text" } else { "password" }
                            placeholder=move || if needs_key() { "required for this provider" } else { "optional" }
                            prop:value=move || key.get() on:input=move |ev| key.set(event_target_value(&ev))/>
                        <button type="button" class="button small"  on:click=move |_| show_key.update(|v| *v = !*v)>
                            {move || if show_key.get() { "Hide" } else { "Show" }}
                        </button>
                    </div>
                    <label class="check">
                        <input id="remember" type="checkbox"  prop:checked=move || remember.get()
                            on:change=move |ev| remember.set(event_target_checked(&ev))/>
                        "Remember on this device"
                    </label>
                    <p class="hint">"Your key stays in this tab's memory and goes only to the provider. Tick the box to keep it in this browser's storage; it never appears in share links, exports or run records."</p>
                </div>
                </Show>
                <div class="probe">
                    <button type="button" class="button" on:click=test disabled=move || probe.get() == Probe::Testing>"Test connection"</button>
                    {move || match probe.get() {
                        Probe::Idle => view! { <span></span> }.into_any(),
                        Probe::Testing => view! { <span class="muted" role="status">"Testing…"</span> }.into_any(),
                        Probe::Ok(m) => view! { <span class="ok" role="status">{m}</span> }.into_any(),
                        Probe::Failed(m) => view! { <span class="bad" role="alert">{m}</span> }.into_any(),
                    }}
                </div>
                <div class="field-row">
                    <div class="field">
                        <label for="attempts">"Attempts per LLM call"</label>
                        <input id="attempts" type="number" min="1" max="10"
                            prop:value=move || attempts.get().to_string()
                            on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<u32>() { attempts.set(v) } }/>
                        <p class="hint">"Rate limits, server errors and timeouts are retried with backoff."</p>
                    </div>
                    <div class="field">
                        <label for="concurrency">"Parallel LLM calls"</label>
                        <input id="concurrency" type="number" min="1" max="16"
                            prop:value=move || concurrency.get().to_string()
                            on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<u32>() { concurrency.set(v) } }/>
                        <p class="hint">"Upper bound when agents work at the same time."</p>
                    </div>
                    <div class="field">
                        <label for="share-limit">"Share link limit (KB)"</label>
                        <input id="share-limit" type="number" min="1" max="2048"
                            prop:value=move || share_limit.get().to_string()
                            on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<u32>() { share_limit.set(v) } }/>
                        <p class="hint">"Longer runs are offered as a file instead."</p>
                    </div>
                </div>
                <div class="field-row">
                    <div class="field">
                        <label for="spend-cap">"Spend cap per run (USD)"</label>
                        <input id="spend-cap" type="number" min="0" step="0.01" placeholder="no cap" inputmode="decimal"
                            prop:value=move || cap_usd.get()
                            on:input=move |ev| cap_usd.set(event_target_value(&ev))/>
                        <p class="hint">"A run stops cleanly before the call whose estimated cost would pass it; everything so far is kept."</p>
                    </div>
                    <div class="field">
                        <label for="token-cap">"Token cap per run"</label>
                        <input id="token-cap" type="number" min="1" step="1000" placeholder="no cap" inputmode="numeric"
                            prop:value=move || cap_tokens.get()
                            on:input=move |ev| cap_tokens.set(event_target_value(&ev))/>
                        <p class="hint">"Counts input and output tokens; used for models without a price below."</p>
                    </div>
                </div>
                <details class="prices">
                    <summary>"Prices (USD per 1M tokens)"</summary>
                    <PriceEditor prices=prices/>
                </details>
                {move || error.get().map(|e| view! { <p class="bad" role="alert">{e}</p> })}
                <footer class="dialog-foot">
                    <button type="button" class="button" on:click=move |_| close()>"Cancel"</button>
                    <button type="button" class="button primary" on:click=save>"Save"</button>
                </footer>
            </form>
        </dialog>
    }
}

#[component]
fn PriceEditor(prices: RwSignal<PriceTable>) -> impl IntoView {
    let num = |s: String| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
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
