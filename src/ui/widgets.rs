//! Small form widgets the panels share.

use leptos::prelude::*;

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
pub fn ResultLine(#[prop(into)] message: Signal<Option<(bool, String)>>) -> impl IntoView {
    move || {
        message.get().map(|(ok, m)| {
            view! { <p class=if ok { "ok small" } else { "bad small" } role=if ok { "status" } else { "alert" }>{m}</p> }
        })
    }
}
