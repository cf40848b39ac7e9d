//! The Experience tab: every retrieval of the run (the experience a step
//! was shown and the runners-up, with similarity, reward and score), then
//! the experiences the backward pass stored with their rewards.

use super::view;
use crate::engine::coordinators::mael::contract::MaelOptions;
use crate::engine::coordinators::mael::html::memory::experience_tab_ended_html;
use crate::ui::state::use_app;
use leptos::prelude::*;

#[component]
pub fn ExperiencePanel() -> impl IntoView {
    let app = use_app();
    // Both lists only grow within a run: rebuilt when their lengths change.
    let key = Memo::new(move |_| {
        let lens = view::read(app, |v| (v.retrievals.len(), v.experiences.len(), v.mode));
        let ended = app.view.with(|v| v.status.ended_early());
        // Whether the run on screen learns (older or unreadable options: as a new run does).
        let learns = app.shown.with(|s| {
            s.as_ref()
                .and_then(|s| serde_json::from_value::<MaelOptions>(s.config.options.clone()).ok())
                .is_none_or(|o| o.learn)
        });
        (app.run_serial(), lens, ended, learns)
    });
    let html = Memo::new(move |_| {
        let (ended, learns) = key.with(|k| (k.2, k.3));
        untrack(|| view::read(app, |v| experience_tab_ended_html(v, ended, learns)))
    });
    view! { <div class="ml-experience-tab" role="region" tabindex="0" aria-label="Experience" inner_html=html></div> }
}
