//! The batch's results as the paper shows them: the table per variant
//! (ROUGE-L / ROUGE-1 recall, words, judge, trivia recall, accepted
//! drafts, tokens; the token share per phase) and the bar chart,
//! recomputed as runs finish; exports as CSV, JSON and SVG; then every
//! finished run with Open (it shows on the Run page, replayable and
//! forkable). HTML from `coordinators::act::html::report` (escaped).

use super::batch_state::{use_batch, BatchActivity, BatchItem};
use crate::engine::coordinators::act::html::report::{chart_svg, table_html};
use crate::engine::model::pricing::format_usd;
use crate::engine::run::RunStatus;
use crate::platform::files;
use crate::ui::state::{use_app, Source};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

#[component]
pub fn BatchResults() -> impl IntoView {
    let batch = use_batch();
    let report = Memo::new(move |_| batch.report());
    let has = move || batch.items.with(|v| !v.is_empty());
    let save = move |suffix: &str, mime: &str, text: String| {
        let name = format!(
            "roundtable-act-batch-{}{suffix}",
            files::stamp(batch.started_ms.get_untracked())
        );
        if let Err(e) = files::download_text(&name, mime, &text) {
            batch.error.set(Some(format!("Could not save {name}: {e}")));
        }
    };
    let chart = move || report.with(chart_svg);
    view! {
        <Show when=has fallback=move || view! {
            <section class="panel empty act-empty" role="region" aria-label="Batch results">
                <h3>"No results yet"</h3>
                <p class="muted">{move || if batch.activity.get() == BatchActivity::Idle {
                    "Pick variants and trials, then Start batch. The paper's table fills in as runs finish: ROUGE-L and ROUGE-1 recall against the reference solutions, words, the judge's score, trivia recall, accepted drafts, and each phase's share of the tokens."
                } else {
                    "The first runs are under way: the table fills in as they finish."
                }}</p>
            </section>
        }>
            <section class="panel" role="region" aria-label="Batch results">
                <div class="panel-head">
                    <h2 class="panel-title">"Scores per variant"</h2>
                    <div class="batch-actions" aria-label="Export">
                        <button class="button small" on:click=move |_| save(".csv", "text/csv", report.with(|r| r.csv()))>"CSV"</button>
                        <button class="button small" on:click=move |_| save(".json", "application/json", report.with(|r| serde_json::to_string_pretty(r).unwrap_or_default()))>"JSON"</button>
                        <button class="button small" disabled=move || chart().is_empty() on:click=move |_| save("-chart.svg", "image/svg+xml", chart())>"Chart SVG"</button>
                    </div>
                </div>
                <p class="muted small">{move || batch.label.get()}</p>
                {move || (batch.stopped() > 0).then(|| view! {
                    <p class="small warn-text">{format!("{} stopped run(s) are listed below but not scored.", batch.stopped())}</p>
                })}
                {move || (batch.failed() > 0).then(|| view! {
                    <p class="small warn-text">{format!("{} run(s) failed: they count in \"runs\" but have no scores. Open one to see why; a rate limit often clears with fewer runs at once.", batch.failed())}</p>
                })}
                <p class="muted small">"Recall ×100, means over the scored runs; \"accepted\" counts final drafts that passed the leader's check."</p>
                <div class="tp-table-wrap" inner_html=move || report.with(table_html)></div>
                <Show when=move || !chart().is_empty()>
                    <figure class="act-chart-box">
                        <div class="chart-box" inner_html=chart></div>
                        <figcaption class="small muted">{move || if report.with(|r| r.rows.iter().any(|x| x.rouge_l.is_some())) { "ROUGE-L recall ×100 per variant" } else { "Trivia recall (%) per variant" }}</figcaption>
                    </figure>
                </Show>
            </section>
            <RunList/>
        </Show>
    }
}

fn status_badge(i: &BatchItem) -> AnyView {
    let (class, text) = match i.status {
        RunStatus::Finished => ("tp-badge tp-pass", "finished"),
        RunStatus::Failed => ("tp-badge tp-fail", "failed"),
        RunStatus::Cancelled => ("tp-badge", "stopped"),
        RunStatus::Running => ("tp-badge", "running"),
    };
    let title = i.failure.clone().unwrap_or_default();
    view! { <span class=class title=title>{text}</span> }.into_any()
}

/// Every finished run: variant, trial, score, words, accepted, cost; Open
/// shows it on the Run page.
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
    view! {
        <section class="panel" role="region" aria-label="Runs">
            <h2 class="panel-title">{move || format!("Runs ({} of {})", batch.items.with(Vec::len), batch.total.get())}</h2>
            <div class="tp-table-wrap">
                <table class="tp-table tp-runs act-runs">
                    <thead><tr>
                        <th scope="col">"Variant"</th><th scope="col">"Trial"</th><th scope="col">"Status"</th>
                        <th scope="col">"Score"</th><th scope="col">"Words"</th><th scope="col">"Accepted"</th>
                        <th scope="col">"Cost"</th><th scope="col"></th>
                    </tr></thead>
                    <tbody>
                        <For each=move || batch.items.get() key=|i: &BatchItem| (i.job, i.doc.config.run_id.clone()) children=move |i: BatchItem| {
                            let item = i.clone();
                            let score = match (i.status, i.score()) {
                                (RunStatus::Cancelled, _) => view! { <span class="muted">"not scored"</span> }.into_any(),
                                (_, Some((v, what))) => view! { <span title=what>{format!("{v:.2}")}<span class="muted small">{format!(" {what}")}</span></span> }.into_any(),
                                (_, None) => view! { <span class="muted">"—"</span> }.into_any(),
                            };
                            let words = i.result.as_ref().map_or_else(|| "—".to_string(), |r| r.words.to_string());
                            let accepted = match &i.result {
                                Some(r) if r.accepted => view! { <span class="tp-badge tp-pass">"yes"</span> }.into_any(),
                                Some(_) => view! { <span class="tp-badge tp-fail">"no"</span> }.into_any(),
                                None => view! { <span class="muted">"—"</span> }.into_any(),
                            };
                            view! {
                                <tr>
                                    <td class="act-run-variant">{i.variant.label()}</td>
                                    <td class="num">{i.trial}</td>
                                    <td>{status_badge(&i)}</td>
                                    <td>{score}</td>
                                    <td class="num">{words}</td>
                                    <td>{accepted}</td>
                                    <td class="num">{format_usd(i.cost_usd)}</td>
                                    <td><button class="link-button small" on:click=move |_| open.with_value(|f| f(&item))>"Open"</button></td>
                                </tr>
                                {i.failure.clone().map(|f| view! {
                                    <tr class="act-run-failure"><td colspan="8" class="small bad">{f}</td></tr>
                                })}
                            }
                        }/>
                    </tbody>
                </table>
            </div>
        </section>
    }
}
