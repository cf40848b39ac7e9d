//! Small form widgets the panels share.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// An input's value read as a `T` (spaces around it ignored), if it reads.
pub fn parsed<T: std::str::FromStr>(ev: &leptos::ev::Event) -> Option<T> {
    event_target_value(ev).trim().parse().ok()
}

/// The element an event happened on, as a `T` (None when it is not one).
pub fn target_as<T: JsCast>(ev: &web_sys::Event) -> Option<T> {
    ev.target()?.dyn_into::<T>().ok()
}

/// A typed sum of money or a price: a finite number ≥ 0, if it reads.
pub fn amount(text: &str) -> Option<f64> {
    (text.trim().parse::<f64>().ok()).filter(|v| v.is_finite() && *v >= 0.0)
}

/// What a stored list shows until it has rows (the caller shows them):
/// "Loading…", its error, or, empty, a heading and a hint.
pub fn list_placeholder<T>(
    state: Option<Result<T, String>>,
    title: &'static str,
    hint: &'static str,
) -> AnyView {
    match state {
        None => view! { <p class="muted">"Loading…"</p> }.into_any(),
        Some(Err(e)) => {
            view! { <div class="notice error" role="alert"><p>{e}</p></div> }.into_any()
        }
        Some(Ok(_)) => view! {
            <div class="empty">
                <h3>{title}</h3>
                <p class="muted">{hint}</p>
            </div>
        }
        .into_any(),
    }
}

/// A labelled checkbox: `on` reads it, `set` is told the new value.
#[component]
pub fn Toggle(
    #[prop(into)] id: String,
    label: &'static str,
    busy: Signal<bool>,
    on: Signal<bool>,
    set: Callback<bool>,
) -> impl IntoView {
    view! {
        <label class="check">
            <input type="checkbox" id=id disabled=busy prop:checked=on
                on:change=move |ev| set.run(event_target_checked(&ev))/>
            {label}
        </label>
    }
}

/// A dialog's header: its title (the dialog's `aria-labelledby` target,
/// `id`) and a close button.
#[component]
pub fn DialogHead(
    id: &'static str,
    #[prop(into)] title: Signal<String>,
    on_close: Callback<()>,
    #[prop(optional)] close_label: Option<&'static str>,
) -> impl IntoView {
    view! {
        <header class="dialog-head">
            <h2 id=id>{title}</h2>
            <button type="button" class="icon-button" aria-label=close_label.unwrap_or("Close") on:click=move |_| on_close.run(())>"✕"</button>
        </header>
    }
}

/// A whole-number field with a hint under it; a value that does not read
/// leaves `value` as it is.
#[component]
pub fn NumberField(
    id: &'static str,
    label: &'static str,
    min: &'static str,
    max: &'static str,
    value: RwSignal<u32>,
    hint: &'static str,
) -> impl IntoView {
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <input id=id type="number" min=min max=max
                prop:value=move || value.get().to_string()
                on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<u32>() { value.set(v) } }/>
            <p class="hint">{hint}</p>
        </div>
    }
}

/// A small button that picks a file (`accept`: the types offered; `label`:
/// what a screen reader announces); `on_file` gets the change event.
#[component]
pub fn FileButton(
    text: &'static str,
    accept: &'static str,
    label: &'static str,
    on_file: impl Fn(leptos::ev::Event) + 'static,
    #[prop(optional, into)] disabled: Signal<bool>,
) -> impl IntoView {
    view! {
        <label class="button small file-button">
            {text}
            <input type="file" accept=accept aria-label=label disabled=disabled on:change=on_file/>
        </label>
    }
}

/// How the last action went: a status when it worked, an alert when not.
#[component]
pub fn ResultLine(#[prop(into)] message: Signal<Option<Result<String, String>>>) -> impl IntoView {
    move || {
        message.get().map(|r| match r {
            Ok(m) => view! { <p class="ok small" role="status">{m}</p> }.into_any(),
            Err(m) => view! { <p class="bad small" role="alert">{m}</p> }.into_any(),
        })
    }
}

/// What the last action said: done (a status) or why not (an alert).
pub type ResultMessage = RwSignal<Option<Result<String, String>>>;

/// Asks before deleting what `pending` holds (an id or a name), if
/// anything: `question` says what would go, `button` names the action;
/// Keep forgets it, the other button hands it to `on_confirm`.
#[component]
pub fn ConfirmBar(
    pending: RwSignal<Option<String>>,
    question: fn(&str) -> String,
    #[prop(default = |_| "Delete")] button: fn(&str) -> &'static str,
    #[prop(default = "Confirm delete")] label: &'static str,
    on_confirm: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    move || {
        pending.get().map(|target| {
            let (text, action) = (question(&target), button(&target));
            view! {
                <div class="notice warning confirm" role="alertdialog" aria-label=label>
                    <p>{text}</p>
                    <div class="confirm-actions">
                        <button class="button small" on:click=move |_| pending.set(None)>"Keep"</button>
                        <button class="button small danger" on:click=move |_| {
                            pending.set(None);
                            on_confirm(target.clone());
                        }>{action}</button>
                    </div>
                </div>
            }
        })
    }
}

/// Text that may be long, cut to `max` characters at a word with "…"
/// (`words::clip`); when cut, a "more" button shows the whole text (and
/// "less" cuts it again).
#[component]
pub fn Clipped(text: String, max: usize) -> impl IntoView {
    let short = crate::engine::base::words::clip(&text, max);
    if short == text.trim() {
        return view! { <span class="clipped">{text}</span> }.into_any();
    }
    let open = RwSignal::new(false);
    view! {
        <span class="clipped">
            {move || if open.get() { text.clone() } else { short.clone() }}
            " "
            <button type="button" class="link-button clip-toggle" aria-expanded=move || open.get().to_string()
                on:click=move |_| open.update(|o| *o = !*o)>
                {move || if open.get() { "less" } else { "more" }}
            </button>
        </span>
    }
    .into_any()
}
