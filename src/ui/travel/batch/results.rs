//! The batch's results as the paper shows them: the rate table (one
//! column per variant), a bar chart, revisits and failed constraints per
//! expert area, hallucinated entities; every run with a link to open it;
//! exports as CSV, JSON and SVG. HTML from `coordinators::travel::html`.

use super::state::{use_batch, BatchItem};
use crate::engine::coordinators::travel::html::{
    batch_chart_svg, batch_table_html, hallucination_table_html, revisits_table_html,
};
use crate::engine::coordinators::travel::report::comparison_export::{
    batch_csv, batch_json, batch_summary_csv,
};
use crate::engine::model::pricing::format_usd;
use crate::platform::files;
use crate::ui::state::{use_app, Source};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

fn download(name: &str, mime: &str, text: &str, error: RwSignal<Option<String>>) {
    if let Err(e) = files::download_text(name, mime, text) {
        error.set(Some(format!("Could not save {name}: {e}")));
    }
}

#[component]
pub fn BatchResults() -> impl IntoView {
    let batch = use_batch();
    let entries = Memo::new(move |_| batch.entries());
    let has = move || batch.items.with(|v| !v.is_empty());
    let stamp = move || files::stamp(batch.started_ms.get_untracked());
    let exports = move || {
        view! {
            <div class="batch-actions" aria-label="Export">
                <button class="button small" on:click=move |_| download(&format!("roundtable-batch-{}-summary.csv", stamp()), "text/csv", &entries.with(|e| batch_summary_csv(e)), batch.error)>"Summary CSV"</button>
                <button class="button small" on:click=move |_| download(&format!("roundtable-batch-{}-runs.csv", stamp()), "text/csv", &entries.with(|e| batch_csv(e)), batch.error)>"Runs CSV"</button>
                <button class="button small" on:click=move |_| download(&format!("roundtable-batch-{}.json", stamp()), "application/json", &entries.with(|e| serde_json::to_string_pretty(&batch_json(e)).unwrap_or_default()), batch.error)>"JSON"</button>
                <button class="button small" on:click=move |_| download(&format!("roundtable-batch-{}-chart.svg", stamp()), "image/svg+xml", &entries.with(|e| batch_chart_svg(e, true)), batch.error)>"Chart SVG"</button>
            </div>
        }
    };
    view! {
        <div class="batch-results">
            <Show when=has fallback=|| view! {
                <div class="panel empty">
                    <h3>"No results yet"</h3>
                    <p class="muted">"Pick variants and queries, then Start batch. The paper's table fills in as runs finish: delivery rate, commonsense and hard constraint pass rates (micro and macro), final pass rate."</p>
                </div>
            }>
                <section class="panel" role="region" aria-label="Batch results">
                    <div class="panel-head">
                        <h2 class="panel-title">"Pass rates (%)"</h2>
                        {exports}
                    </div>
                    <p class="muted small">{move || batch.label.get()}</p>
                    {move || (batch.stopped() > 0).then(|| view! {
                        <p class="small warn-text">{format!("{} stopped run(s) are listed below but not scored.", batch.stopped())}</p>
                    })}
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
                <RunList/>
            </Show>
        </div>
    }
}

/// Every finished run: variant, query, outcome, cost; Open shows it on
/// the Run page (replayable, forkable).
#[component]
fn RunList() -> impl IntoView {
    let app = use_app();
    let batch = use_batch();
    let navigate = use_navigate();
    let open = move |item: &BatchItem| {
        if app.show_doc((*item.doc).clone(), Source::Batch, item.saved) {
            navigate("/", Default::default());
        } else {
            batch.error.set(Some(
                "A run is in progress on the Run page: stop it there before opening a batch run."
                    .into(),
            ));
        }
    };
    let open = StoredValue::new(open);
    let rows = move || {
        let mut v = batch.items.get();
        v.sort_by_key(|i| i.job);
        v
    };
    view! {
        <section class="panel" role="region" aria-label="Runs">
            <h2 class="panel-title">{move || format!("Runs ({})", batch.items.with(Vec::len))}</h2>
            <div class="tp-table-wrap">
                <table class="tp-table tp-runs">
                    <thead><tr>
                        <th scope="col">"Variant"</th><th scope="col">"Query"</th><th scope="col">"Level"</th>
                        <th scope="col">"Status"</th><th scope="col">"Delivered"</th><th scope="col">"Final pass"</th>
                        <th scope="col">"Cost"</th><th scope="col"></th>
                    </tr></thead>
                    <tbody>
                        <For each=rows key=|i: &BatchItem| i.job children=move |i: BatchItem| {
                            let yes_no = |b: bool| if b { view! { <span class="tp-badge tp-pass">"yes"</span> } } else { view! { <span class="tp-badge tp-fail">"no"</span> } };
                            let item = i.clone();
                            view! {
                                <tr>
                                    <td>{i.variant.label()}</td>
                                    <td>{format!("#{}", i.query_idx)}</td>
                                    <td>{i.level.clone()}</td>
                                    <td>{format!("{:?}", i.status).to_lowercase()}</td>
                                    <td>{yes_no(i.delivered())}</td>
                                    <td>{yes_no(i.final_pass())}</td>
                                    <td>{format_usd(i.cost_usd)}</td>
                                    <td><button class="link-button small" on:click=move |_| open.with_value(|f| f(&item))>"Open"</button></td>
                                </tr>
                            }
                        }/>
                    </tbody>
                </table>
            </div>
        </section>
    }
}
