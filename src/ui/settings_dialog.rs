//! Settings: provider preset, base URL, model, API key (memory only unless
//! "Remember on this device"), a connection test, retry / concurrency /
//! share-link limits, spend caps, the local model's sampler, and the price
//! table (those last four are in `settings_fields`).

use super::settings_fields::{
    LimitFields, LocalSamplerFields, PriceEditor, SamplerInputs, SamplingFields, SpendCaps,
};
use super::state::use_app;
use crate::engine::model::factory::{build_model, Platform};
use crate::engine::model::pricing::PriceTable;
use crate::engine::model::providers::presets::{preset, PresetKind, PRESETS};
use crate::engine::model::Call;
use crate::engine::model::{ChatRequest, Message, StreamDelta};
use crate::engine::run::CancelToken;
use crate::platform::clock::BrowserClock;
use crate::platform::fetch::FetchTransport;
use crate::platform::keys;
use crate::platform::settings::Settings;
use crate::ui::widgets::{amount, Clipped, DialogHead};
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

#[derive(Clone, PartialEq)]
enum Probe {
    Idle,
    Testing,
    /// What it said of the server, and the reply it quoted.
    Ok(String, String),
    Failed(String),
}

/// The form's fields, loaded from the settings each time the dialog opens.
#[derive(Clone, Copy)]
struct Form {
    provider: RwSignal<String>,
    base_url: RwSignal<String>,
    model: RwSignal<String>,
    key: RwSignal<String>,
    remember: RwSignal<bool>,
    prices: RwSignal<PriceTable>,
    attempts: RwSignal<u32>,
    concurrency: RwSignal<u32>,
    share_limit: RwSignal<u32>,
    cap_usd: RwSignal<String>,
    cap_tokens: RwSignal<String>,
    demo_delay: RwSignal<u32>,
    local_model: RwSignal<String>,
    local_label: RwSignal<String>,
    max_tokens: RwSignal<String>,
    /// The temperature and the local model's sampler settings.
    sampler: SamplerInputs,
}

impl Form {
    fn new() -> Self {
        Self {
            provider: RwSignal::new(String::new()),
            base_url: RwSignal::new(String::new()),
            model: RwSignal::new(String::new()),
            key: RwSignal::new(String::new()),
            remember: RwSignal::new(false),
            prices: RwSignal::new(PriceTable::default()),
            attempts: RwSignal::new(4u32),
            concurrency: RwSignal::new(4u32),
            share_limit: RwSignal::new(32u32),
            cap_usd: RwSignal::new(String::new()),
            cap_tokens: RwSignal::new(String::new()),
            demo_delay: RwSignal::new(35u32),
            local_model: RwSignal::new(String::new()),
            local_label: RwSignal::new(String::new()),
            max_tokens: RwSignal::new(String::new()),
            sampler: SamplerInputs::new(),
        }
    }

    /// Fills the fields from the saved settings (and the provider's key).
    fn load(self, s: &Settings) {
        self.provider.set(s.provider.clone());
        self.base_url.set(s.base_url.clone());
        self.model.set(s.model.clone());
        self.key.set(keys::get(&s.provider).unwrap_or_default());
        self.remember
            .set(s.remember_key || keys::is_remembered(&s.provider));
        self.prices.set(s.prices.clone());
        self.attempts.set(s.max_attempts);
        self.concurrency.set(s.max_concurrency);
        self.share_limit.set(s.share_limit_kb);
        self.cap_usd
            .set(s.spend_cap_usd.map(|v| v.to_string()).unwrap_or_default());
        self.cap_tokens
            .set(s.token_cap.map(|v| v.to_string()).unwrap_or_default());
        self.demo_delay.set(s.demo_delay_ms);
        self.local_model.set(s.local_model.clone());
        self.local_label.set(s.local_label.clone());
        self.max_tokens
            .set(s.max_tokens.map(|v| v.to_string()).unwrap_or_default());
        self.sampler.load(&s.sampling);
    }

    /// The settings the form describes (clamped), the rest from `base`.
    fn settings(self, base: Settings) -> Settings {
        Settings {
            provider: self.provider.get_untracked(),
            base_url: self.base_url.get_untracked().trim().to_string(),
            model: self.model.get_untracked().trim().to_string(),
            remember_key: self.remember.get_untracked(),
            prices: self.prices.get_untracked(),
            max_attempts: self.attempts.get_untracked().clamp(1, 10),
            max_concurrency: self.concurrency.get_untracked().clamp(1, 16),
            share_limit_kb: self.share_limit.get_untracked().clamp(1, 2048),
            spend_cap_usd: amount(&self.cap_usd.get_untracked()),
            token_cap: self.cap_tokens.get_untracked().trim().parse::<u64>().ok(),
            demo_delay_ms: self.demo_delay.get_untracked().min(1000),
            local_model: self.local_model.get_untracked(),
            local_label: self.local_label.get_untracked(),
            max_tokens: self
                .max_tokens
                .get_untracked()
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|n| *n > 0),
            sampling: self.sampler.read(),
            ..base
        }
    }
}

/// Whether the preset `id` is the offline demo model (or no known preset).
fn is_demo(id: &str) -> bool {
    preset(id).is_none_or(|p| p.kind == PresetKind::Demo)
}

/// Whether the preset `id` is a model run in the browser.
fn is_local(id: &str) -> bool {
    preset(id).is_some_and(|p| p.kind == PresetKind::Local)
}

/// The Settings dialog: a native modal `<dialog>` shown while
/// `settings_open` is set, saving the form on "Save".
#[component]
pub fn SettingsDialog() -> impl IntoView {
    let app = use_app();
    let dialog = NodeRef::<html::Dialog>::new();
    let form = Form::new();
    let probe = RwSignal::new(Probe::Idle);
    let error = RwSignal::new(None::<String>);

    // Open/close the native dialog and load the form from the settings.
    Effect::new(move |_| {
        let open = app.settings_open.get();
        let Some(d) = dialog.get() else { return };
        if open {
            form.load(&app.settings.get_untracked());
            probe.set(Probe::Idle);
            error.set(None);
            if !d.open() {
                let _ = d.show_modal();
            }
        } else if d.open() {
            d.close();
        }
    });

    let save = move |_| {
        let s = form.settings(app.settings.get_untracked());
        if let Err(e) = keys::set(&s.provider, &form.key.get_untracked(), s.remember_key) {
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
                <DialogHead id="settings-title" title="Settings" close_label="Close settings" on_close=Callback::new(move |()| close())/>
                <ProviderField form=form probe=probe/>
                <Show when=move || is_local(&form.provider.get())>
                    <super::local_models::LocalModels chosen=form.local_model name=form.model label=form.local_label/>
                </Show>
                <RemoteFields form=form/>
                <ConnectionTest form=form probe=probe/>
                <Show when=move || !is_demo(&form.provider.get())>
                    <SamplingFields inputs=form.sampler max_tokens=form.max_tokens/>
                </Show>
                <Show when=move || is_local(&form.provider.get())>
                    <LocalSamplerFields inputs=form.sampler/>
                </Show>
                <LimitFields attempts=form.attempts concurrency=form.concurrency share_limit=form.share_limit/>
                <SpendCaps cap_usd=form.cap_usd cap_tokens=form.cap_tokens/>
                <details class="prices">
                    <summary>"Prices (USD per 1M tokens)"</summary>
                    <PriceEditor prices=form.prices/>
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

/// The provider preset picker, and the demo model's pace when it is chosen.
#[component]
fn ProviderField(form: Form, probe: RwSignal<Probe>) -> impl IntoView {
    let on_provider = move |ev| {
        let id = event_target_value(&ev);
        if let Some(p) = preset(&id) {
            form.base_url.set(p.base_url.to_string());
            form.model.set(p.default_model.to_string());
        }
        form.key.set(keys::get(&id).unwrap_or_default());
        form.remember
            .set(keys::is_remembered(&id) || form.remember.get_untracked());
        form.provider.set(id);
        probe.set(Probe::Idle);
    };
    let demo_delay = form.demo_delay;
    view! {
        <div class="field">
            <label for="provider">"Provider"</label>
            <select id="provider" prop:value=move || form.provider.get() on:change=on_provider>
                {PRESETS.iter().map(|p| view! { <option value=p.id>{p.label}</option> }).collect_view()}
            </select>
            <Show when=move || is_demo(&form.provider.get())>
                <p class="hint">"The offline demo model is scripted by Roundtable: it needs no key and no network, and its answers are computed, not generated."</p>
                <label for="demo-pace">"Demo model's streaming pace"</label>
                <select id="demo-pace" prop:value=move || demo_delay.get().to_string()
                    on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<u32>() { demo_delay.set(v) } }>
                    {crate::platform::settings::DEMO_PACES.iter().map(|(ms, label)| view! { <option value=ms.to_string()>{*label}</option> }).collect_view()}
                </select>
            </Show>
        </div>
    }
}

/// Base URL, model and API key, shown for a remote provider.
#[component]
fn RemoteFields(form: Form) -> impl IntoView {
    let Form {
        provider,
        base_url,
        model,
        key,
        remember,
        ..
    } = form;
    let show_key = RwSignal::new(false);
    let remote = move || !is_demo(&provider.get()) && !is_local(&provider.get());
    let needs_key = move || preset(&provider.get()).is_some_and(|p| p.needs_key);
    view! {
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
    }
}

/// The "Test connection" button and what the test found.
#[component]
fn ConnectionTest(form: Form, probe: RwSignal<Probe>) -> impl IntoView {
    let app = use_app();
    let test = move |_| {
        test_connection(
            form.settings(app.settings.get_untracked()),
            form.key.get_untracked(),
            probe,
        )
    };
    view! {
        <div class="probe">
            <button type="button" class="button" on:click=test disabled=move || probe.get() == Probe::Testing>"Test connection"</button>
            {move || match probe.get() {
                Probe::Idle => view! { <span></span> }.into_any(),
                Probe::Testing => view! { <span class="muted" role="status">"Testing…"</span> }.into_any(),
                Probe::Ok(m, said) => view! {
                    <span class="ok" role="status">{m}" It replied “"<Clipped text=said max=60/>"”."</span>
                }.into_any(),
                Probe::Failed(m) => view! { <span class="bad" role="alert">{m}</span> }.into_any(),
            }}
        </div>
    }
}

/// Builds the model `s` describes and asks it for one word, reporting the
/// outcome (or why it could not be built) in `probe`.
fn test_connection(s: Settings, key: String, probe: RwSignal<Probe>) {
    let spec = s.model_spec();
    let k = Some(key).filter(|k| !k.trim().is_empty());
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
            probe.set(Probe::Failed(pointing_here(e)));
            return;
        }
    };
    probe.set(Probe::Testing);
    spawn_local(async move {
        // A tiny shape: the answer says which structured mode the server
        // took (a refused one is stepped down and remembered).
        let mut req = ChatRequest::new(vec![Message::user(
            "Reply with the JSON object {\"ok\": true} and nothing else.",
        )])
        .with_schema(crate::engine::model::shape::ReplySchema {
            name: "connection_check".into(),
            // Written out (not made from a type): schema generation stays
            // out of the start page, which Settings is part of.
            schema: serde_json::json!({
                "type": "object",
                "properties": {"ok": {"type": "boolean"}},
                "required": ["ok"]
            }),
            agreeing: None,
        });
        req.params.max_tokens = Some(16);
        let started = js_sys::Date::now();
        let mut sink = |_d: StreamDelta| {};
        let cancel = CancelToken::new();
        let r = m.complete(Call::new(&req, &mut sink, &cancel)).await;
        let ms = js_sys::Date::now() - started;
        probe.set(match r {
            Ok(resp) => Probe::Ok(
                format!(
                    "Connected to {} in {ms:.0} ms.{}",
                    resp.model.clone().unwrap_or_else(|| m.name()),
                    resp.structured.map(structured_note).unwrap_or_default()
                ),
                resp.text.trim().to_string(),
            ),
            Err(e) => Probe::Failed(pointing_here(e.user_message())),
        });
    });
}

/// What the check learnt of the server's structured-output mode.
fn structured_note(mode: crate::engine::model::shape::StructuredMode) -> String {
    use crate::engine::model::shape::StructuredMode;
    match mode {
        StructuredMode::Schema => " Structured replies: the server holds each step to its JSON Schema.",
        StructuredMode::JsonMode => " Structured replies: JSON mode only (the server refused a JSON Schema); replies are checked when read.",
        StructuredMode::Prompt | StructuredMode::Grammar => " Structured replies: by the prompt alone (the server refused JSON mode); replies are read leniently.",
    }
    .to_string()
}

/// The model's setup problems name Settings as the place to fix them (they
/// are shown on the run page too); inside Settings they point at the form.
fn pointing_here(problem: String) -> String {
    problem.replace(" in Settings", " above")
}
