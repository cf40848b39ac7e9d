//! The travel planner's metrics: delivery, the evaluator's commonsense and
//! hard checks under the paper's names, cost against the budget, revisits
//! and hallucinated entities. Shown for travel runs only.

use super::view;
use crate::engine::coordinators::travel::html::metrics_html;
use crate::ui::state::use_app;
use leptos::prelude::*;

#[component]
pub fn MetricsPanel() -> impl IntoView {
    let app = use_app();
    let body = Memo::new(move |_| {
        let ended = app.view.with(|v| v.status.ended_early());
        view::read(app, |t| {
            match (&t.evaluation, ended) {
            (Some(e), _) => metrics_html(e, t.budget()),
            (None, Some(how)) => format!("<p class=\"muted small empty-note\" data-testid=\"ended-early\">The run {how} before its plan was scored.</p>"),
            (None, None) => "<p class=\"muted small empty-note\">The plan is scored constraint by constraint when the run ends.</p>".to_string(),
        }
        })
    });
    view! {
        <section class="panel metrics-panel" role="region" aria-label="Metrics">
            <h2 class="panel-title">"Metrics"</h2>
            <div class="metrics-body" inner_html=body></div>
        </section>
    }
}
