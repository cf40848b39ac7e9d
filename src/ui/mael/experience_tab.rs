//! The Experience tab: every retrieval of the run (the experience a step
//! was shown and the runners-up, with similarity, reward and score), then
//! the experiences the backward pass stored with their rewards.

use super::view;
use crate::engine::coordinators::mael::html::memory::experience_tab_html;
use crate::ui::state::use_app;
use leptos::prelude::*;

#[component]
pub fn ExperiencePanel() -> impl IntoView {
    let app = use_app();
    // Both lists only grow within a run: rebuilt when their lengths change.
    let key = Memo::new(move |_| {
        let lens = view::read(app, |v| (v.retrievals.len(), v.experiences.len(), v.mode));
        (app.run_serial(), lens)
    });
    let html = Memo::new(move |_| {
        key.track();
        untrack(|| view::read(app, experience_tab_html))
    });
    view! { <div class="ml-experience-tab" role="region" tabindex="0" aria-label="Experience" inner_html=html></div> }
}
