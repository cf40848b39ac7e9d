//! The batch's results as the paper shows them: the rate table (one
//! column per variant), a bar chart, revisits and failed constraints per
//! expert area, hallucinated entities; every run with Open; exports as
//! CSV, JSON and SVG. The fold is `coordinators::travel::batch`'s (as
//! `travel-batch` prints it), the HTML `coordinators::travel::html`'s.

use super::state::use_batch;
use crate::engine::coordinators::travel::batch::{self, Tag};
use crate::engine::coordinators::travel::html::{
    batch_chart_svg, batch_table_html, hallucination_table_html, revisits_table_html,
};
use crate::engine::coordinators::travel::report::comparison::BatchEntry;
use crate::engine::coordinators::travel::report::comparison_export::{
    batch_csv, batch_json, batch_summary_csv,
};
use crate::engine::model::pricing::format_usd;
use crate::engine::run::batch::group_name;
use crate::ui::batch::{records, ExportButton, Item, ResultsHead, RunsTable};
use leptos::prelude::*;

#[component]
pub fn BatchResults() -> impl IntoView {
    let b = use_batch();
    let entries = Memo::new(move |_| b.run.runs.with(|v| batch::entries(records(v))));
    let has = move || b.run.runs.with(|v| !v.is_empty());
    let export = |label, suffix, mime, make: fn(&[BatchEntry]) -> String| {
        ExportButton::new(label, suffix, mime, move || entries.with(|e| make(e)))
    };
    let buttons = vec![
        export("Summary CSV", "-summary.csv", "text/csv", batch_summary_csv),
        export("Runs CSV", "-runs.csv", "text/csv", batch_csv),
        export("JSON", ".json", "application/json", |e| {
            serde_json::to_string_pretty(&batch_json(e)).unwrap_or_default()
        }),
        export("Chart SVG", "-chart.svg", "image/svg+xml", |e| {
            batch_chart_svg(e, true)
        }),
    ];
    view! {
        <div class="batch-results">
            <Show when=has fallback=|| view! {
                <div class="panel empty">
                    <h3>"No results yet"</h3>
                    <p class="muted">"Pick variants and queries, then Start batch. The paper's table fills in as runs finish: delivery rate, commonsense and hard constraint pass rates (micro and macro), final pass rate."</p>
                </div>
            }>
                <section class="panel" role="region" aria-label="Batch results">
                    <ResultsHead run=b.run title="Pass rates (%)" prefix="roundtable-batch" buttons=buttons.clone()/>
                    <div inner_html=move || entries.with(|e| batch_table_html(e))></div>
                    <div class="chart-box" inner_html=move || entries.with(|e| batch_chart_svg(e, false))></div>
                </section>
                <section class="panel" role="region" aria-label="Revisits and failed constraints">
                    <h2 class="panel-title">"Revisits and failed constraints per expert"</h2>
                    <div inner_html=move || entries.with(|e| revisits_table_html(e))></div>
                </section>
                <section class="panel" role="region" aria-label="Hallucinated entities">
                    <h2 class="panel-title">"Hallucinated entities"</h2>
                    <div inner_html=move || entries.with(|e| hallucination_table_html(e))></div>
                </section>
                <RunsTable run=b.run cells=cells
                    head=&["Variant", "Query", "Level", "Status", "Delivered", "Final pass", "Cost"]/>
            </Show>
        </div>
    }
}

fn yes_no(b: bool) -> AnyView {
    if b {
        view! { <span class="tp-badge tp-pass">"yes"</span> }.into_any()
    } else {
        view! { <span class="tp-badge tp-fail">"no"</span> }.into_any()
    }
}

/// A run's cells: variant, query, level, status, delivered, final pass, cost.
fn cells(i: &Item<Tag>) -> AnyView {
    let e = batch::evaluation_of(&i.run.events);
    let t = &i.run.tag;
    view! {
        <td>{group_name(t.variant.label(), &i.run.config)}</td>
        <td>{format!("#{}", t.query_idx)}</td>
        <td>{t.level}</td>
        <td>{format!("{:?}", i.status()).to_lowercase()}</td>
        <td>{yes_no(e.as_ref().is_some_and(|e| e.delivered))}</td>
        <td>{yes_no(e.as_ref().is_some_and(|e| e.final_pass))}</td>
        <td>{format_usd(i.run.cost_usd)}</td>
    }
    .into_any()
}
