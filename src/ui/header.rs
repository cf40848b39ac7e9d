//! The header: name, coordinator picker, the model in use, theme, Settings.

use super::state::{use_app, Activity};
use super::theme;
use crate::engine::coordinators::COORDINATORS;
use leptos::prelude::*;
use leptos_router::components::A;

#[component]
pub fn Header() -> impl IntoView {
    let app = use_app();
    let busy = move || app.activity.get() != Activity::Idle;
    // The coordinator belongs to the Run page.
    let location = leptos_router::hooks::use_location();
    let toggle_theme = move |_| {
        // What is stored (another tab may have saved since this one
        // loaded), with the theme changed: nothing else is written.
        let mut s = crate::platform::settings::Settings::load();
        s.theme = if theme::effective(&app.settings.with_untracked(|s| s.theme.clone())) == "dark" {
            "light".into()
        } else {
            "dark".into()
        };
        theme::apply(&s.theme);
        let _ = s.save();
        app.settings.set(s);
    };
    // On a phone the page links scroll sideways: keep the current one in
    // view once the router has marked it.
    let nav = NodeRef::<leptos::html::Nav>::new();
    Effect::new(move |_| {
        location.pathname.track();
        request_animation_frame(move || show_current_link(nav));
    });
    let theme_label = move || {
        if theme::effective(&app.settings.with(|s| s.theme.clone())) == "dark" {
            "Switch to light theme"
        } else {
            "Switch to dark theme"
        }
    };
    view! {
        <header class="app-header">
            <div class="brand">
                <svg class="logo" viewBox="0 0 32 32" aria-hidden="true">
                    <circle cx="16" cy="16" r="13" class="logo-ring"/>
                    <circle cx="16" cy="5" r="3.2" class="logo-seat"/>
                    <circle cx="26.5" cy="20" r="3.2" class="logo-seat"/>
                    <circle cx="5.5" cy="20" r="3.2" class="logo-seat"/>
                </svg>
                <span class="brand-name">"Roundtable"</span>
            </div>
            <nav class="nav" aria-label="Pages" node_ref=nav>
                <A href="/" exact=true>"Run"</A>
                {super::coordinators::UIS
                    .iter()
                    .flat_map(|u| u.pages)
                    .map(|p| view! { <A href=format!("/{}", p.path)>{p.label}</A> })
                    .collect_view()}
                <A href="/history">"History"</A>
                <A href="/compare">{move || {
                    let n = app.compare.with(Vec::len);
                    if n == 0 { "Compare".to_string() } else { format!("Compare ({n})") }
                }}</A>
                <A href="/lessons">"Lessons"</A>
            </nav>
            <label class="coordinator-picker" class:hidden=move || location.pathname.get() != "/">
                <span class="muted">"Coordinator"</span>
                <select
                    aria-label="Coordinator"
                    prop:value=move || app.coordinator.get()
                    disabled=busy
                    on:change=move |ev| app.coordinator.set(event_target_value(&ev))
                >
                    {COORDINATORS
                        .iter()
                        .filter(|c| super::coordinators::in_app(c.id))
                        // The name alone ("Travel planner"): the header keeps
                        // one line; the full name and what it does on hover.
                        .map(|c| view! {
                            <option value=c.id title=format!("{}: {}", c.name, c.description)>
                                {c.short}
                            </option>
                        })
                        .collect_view()}
                </select>
            </label>
            // The model and the settings keep together at the right, on the
            // first line or, when it is full, on the next.
            <div class="header-end">
                // One line however long the name: cut with "…", whole in
                // the tooltip.
                <button
                    class="model-chip"
                    class:demo=move || app.settings.with(|s| s.is_demo())
                    title=move || format!("Model in use: {} — click to change", app.settings.with(|s| s.label_title()))
                    on:click=move |_| app.settings_open.set(true)
                >
                    <span class="dot"></span>
                    <span class="model-chip-name">{move || app.settings.with(|s| s.chip_label())}</span>
                </button>
                <button class="icon-button" aria-label=theme_label title=theme_label on:click=toggle_theme>
                    <svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 3a9 9 0 1 0 9 9 7 7 0 0 1-9-9z"/></svg>
                </button>
                <button class="button" on:click=move |_| app.settings_open.set(true)>"Settings"</button>
            </div>
        </header>
    }
}

/// Scrolls the page links sideways (only they: the page stays put) so that
/// the current page's link is whole in view.
fn show_current_link(nav: NodeRef<leptos::html::Nav>) {
    let Some(nav) = nav.get_untracked() else {
        return;
    };
    let Ok(Some(link)) = nav.query_selector("a[aria-current=\"page\"]") else {
        return;
    };
    let (link_box, nav_box) = (
        link.get_bounding_client_rect(),
        nav.get_bounding_client_rect(),
    );
    if link_box.left() < nav_box.left() || link_box.right() > nav_box.right() {
        let offset = link_box.left() - nav_box.left() + nav.scroll_left() as f64;
        nav.set_scroll_left((offset - 8.0).max(0.0) as i32);
    }
}
