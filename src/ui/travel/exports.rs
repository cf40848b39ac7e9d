//! The travel run's own items in the toolbar's Export menu: the plan (day
//! by day, with the checks that fail on each day) and the metrics, as CSV.
//! Shown once the run has a plan / has been scored.

use super::view;
use crate::engine::coordinators::travel::report::run_export::{metrics_csv, plan_csv};
use crate::engine::views::export::file_stem;
use crate::platform::files;
use crate::ui::state::{use_app, AppState, Notice};
use crate::ui::widgets::target_as;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

#[derive(Clone, Copy)]
enum Export {
    Plan,
    Metrics,
}

/// Closes the menu the clicked item is in.
fn close_menu(ev: &leptos::ev::MouseEvent) {
    let menu = target_as::<web_sys::Element>(ev)
        .and_then(|el| el.closest("details").ok().flatten())
        .and_then(|d| d.dyn_into::<web_sys::HtmlDetailsElement>().ok());
    if let Some(menu) = menu {
        menu.set_open(false);
    }
}

fn export(app: AppState, what: Export) {
    let Some(doc) = app.doc() else { return };
    let name = file_stem(&doc.config.task);
    let result = view::read(app, |t| match what {
        Export::Plan => {
            let plan = t
                .evaluation
                .as_ref()
                .and_then(|e| e.plan.clone())
                .or_else(|| t.latest_plan().and_then(|p| p.record.plan.clone()));
            match plan {
                Some(p) => plan_csv(&p, t.evaluation.as_ref()).and_then(|csv| {
                    files::download_text(&format!("{name}.plan.csv"), "text/csv", &csv)
                }),
                None => Err("the run has no plan yet".into()),
            }
        }
        Export::Metrics => match &t.evaluation {
            Some(e) => {
                files::download_text(&format!("{name}.metrics.csv"), "text/csv", &metrics_csv(e))
            }
            None => Err("the run has not been scored yet".into()),
        },
    });
    if let Err(e) = result {
        app.notice.set(Some(Notice {
            text: format!("Export failed: {e}"),
            settings: false,
        }));
    }
}

#[component]
pub fn ExportItems() -> impl IntoView {
    let app = use_app();
    let has_plan =
        Memo::new(move |_| view::read(app, |t| !t.plans.is_empty() || t.evaluation.is_some()));
    let scored = Memo::new(move |_| view::read(app, |t| t.evaluation.is_some()));
    let item = move |what: Export| {
        move |ev: leptos::ev::MouseEvent| {
            close_menu(&ev);
            export(app, what);
        }
    };
    view! {
        <Show when=move || has_plan.get()>
            <button role="menuitem" on:click=item(Export::Plan)>"Plan (.csv)"</button>
        </Show>
        <Show when=move || scored.get()>
            <button role="menuitem" on:click=item(Export::Metrics)>"Metrics (.csv)"</button>
        </Show>
    }
}
