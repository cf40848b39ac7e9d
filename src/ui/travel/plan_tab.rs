//! The plan tab: the evaluated plan day by day, each cell coloured by the
//! verdicts that concern it (the evaluator's message on hover); the
//! compiler's earlier rounds and the summarizer's brief below it.

use super::view;
use crate::engine::coordinators::travel::html::plan::{evaluated_plan_html, plan_record_html};
use crate::engine::coordinators::travel::view::TravelView;
use crate::engine::views::html::esc;
use crate::ui::state::use_app;
use leptos::prelude::*;

fn plan_body(t: &TravelView, ended: Option<&str>) -> String {
    let mut h = String::new();
    match (&t.evaluation, t.latest_plan()) {
        (Some(e), _) => {
            h.push_str("<h3 class=\"plan-title\">Evaluated plan</h3>");
            h.push_str(&evaluated_plan_html(e));
            h.push_str("<p class=\"muted small\">Green cells pass every check that concerns them; red cells fail one (hover for the evaluator's message).</p>");
        }
        (None, Some(p)) => {
            let when = match ended {
                Some(how) => format!("not scored: the run {how}"),
                None => "scored when the run ends".into(),
            };
            h.push_str(&format!("<h3 class=\"plan-title\">Latest plan <span class=\"muted small\">({when})</span></h3>"));
            h.push_str(&plan_record_html(&p.record));
        }
        (None, None) if ended.is_some() => {
            h.push_str(&format!("<p class=\"muted empty-note\">No plan: the run {} before the compiler wrote one.</p>", ended.unwrap_or_default()));
        }
        (None, None) => {
            h.push_str("<p class=\"muted empty-note\">No plan yet. The compiler writes one after the experts have filled the notebook.</p>");
        }
    }
    if t.plans.len() > 1 || (t.evaluation.is_some() && !t.plans.is_empty()) {
        h.push_str(&format!(
            "<details class=\"plan-rounds\"><summary>Compiler and critic rounds ({})</summary>",
            t.plans.len()
        ));
        for p in &t.plans {
            h.push_str(&plan_record_html(&p.record));
        }
        h.push_str("</details>");
    }
    if let Some(b) = &t.brief {
        h.push_str(&format!(
            "<details class=\"plan-brief\"><summary>The summarizer's brief</summary><pre>{}</pre></details>",
            esc(b)
        ));
    }
    h
}

#[component]
pub fn PlanPanel() -> impl IntoView {
    let app = use_app();
    // Built only when the plan part changes (the run, its plans, brief or
    // evaluation), not on every streamed token; open <details> stay open.
    let key = Memo::new(move |_| {
        let parts = view::read(app, |t| {
            (
                t.plans.last().map(|p| p.seq),
                t.brief.is_some(),
                t.evaluation.is_some(),
            )
        });
        let ended = app.view.with(|v| v.status.ended_early());
        (app.run_serial(), parts, ended)
    });
    let html = Memo::new(move |_| {
        key.track();
        let ended = key.with(|k| k.2);
        untrack(|| view::read(app, |t| plan_body(t, ended)))
    });
    view! {
        <div class="plan-tab" inner_html=html></div>
    }
}
