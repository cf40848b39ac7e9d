//! The student's way in (`/join` or `/join/CODE`, the link and QR code the
//! teacher shows): the code, a display name or none, Join. A tab that was
//! in the class (reloaded) rejoins at once as the same student.

use super::state::{class_state, Link};
use super::student::{clean_code, join, saved_seat};
use crate::ui::state::{use_app, ClassRole};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

#[component]
pub fn JoinPage() -> impl IntoView {
    let app = use_app();
    let s = class_state();
    let params = use_params_map();
    let code =
        RwSignal::new(params.with_untracked(|p| clean_code(&p.get("code").unwrap_or_default())));
    let name = RwSignal::new(String::new());
    let code_ref = NodeRef::<leptos::html::Input>::new();
    let name_ref = NodeRef::<leptos::html::Input>::new();
    // Back in a class this tab was in: straight to it.
    let here = code.get_untracked();
    if !here.is_empty() && saved_seat(&here).is_some() && app.class.get_untracked().is_none() {
        join(app, &here, None);
    }
    Effect::new(move |_| {
        let target = if code.with_untracked(String::is_empty) {
            code_ref
        } else {
            name_ref
        };
        if let Some(el) = target.get() {
            let _ = el.focus();
        }
    });
    let joining = move || {
        app.class.get() == Some(ClassRole::Student)
            && matches!(s.link.get(), Link::Connecting | Link::Retrying(..))
    };
    let failed = move || match (app.class.get(), s.link.get()) {
        (Some(ClassRole::Student), Link::Over(why)) => Some(why),
        _ => None,
    };
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let c = clean_code(&code.get_untracked());
        if c.is_empty() {
            return;
        }
        if app.class.get_untracked() == Some(ClassRole::Student) {
            super::student::leave(app);
        }
        let n = name.get_untracked();
        join(app, &c, Some(n.trim().to_string()));
    };
    view! {
        <main class="join-page">
            <form class="join-card panel" on:submit=submit>
                <h1>"Join a live class"</h1>
                <p class="muted">"Follow your teacher's run or lesson on this device and answer the class's questions."</p>
                <label class="field">
                    <span>"Class code"</span>
                    <input node_ref=code_ref class="join-code" type="text" autocomplete="off" autocapitalize="characters"
                        spellcheck="false" maxlength="16" required placeholder="e.g. K7QW2M"
                        prop:value=move || code.get()
                        on:input=move |ev| code.set(clean_code(&event_target_value(&ev)))/>
                </label>
                <label class="field">
                    <span>"Your name " <span class="muted small">"(optional: leave it empty to stay anonymous)"</span></span>
                    <input node_ref=name_ref type="text" maxlength="40" autocomplete="nickname"
                        prop:value=move || name.get()
                        on:input=move |ev| name.set(event_target_value(&ev))/>
                </label>
                {move || failed().map(|why| view! { <div class="notice error" role="alert"><p>{why}</p></div> })}
                <button class="button primary join-button" type="submit" disabled=move || joining() || code.with(String::is_empty)>
                    {move || if joining() { "Joining…" } else { "Join" }}
                </button>
            </form>
        </main>
    }
}
