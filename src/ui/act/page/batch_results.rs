//! The batch's results as the paper shows them: the table per variant
//! (ROUGE-L / ROUGE-1 recall, words, judge, trivia recall, accepted
//! drafts, tokens, replies repaired; the token share per phase; the
//! replies repaired per step kind, folded away) and the bar chart,
//! recomputed as runs finish; exports as CSV, JSON and SVG; then every
//! finished run with Open (it shows on the Run page, replayable and
//! forkable). HTML from `coordinators::act::html::report` (escaped).

use super::batch_state::use_batch;
use crate::engine::coordinators::act::batch::{headline, result_of, Tag};
use crate::engine::coordinators::act::html::report::{chart_svg, repairs_html, table_html};
use crate::engine::model::pricing::format_usd;
use crate::engine::run::batch::group_name;
use crate::engine::run::RunStatus;
use crate::ui::batch::{ExportButton, Item, ResultsHead, RunsTable, StatusBadge};
use leptos::prelude::*;

#[component]
pub fn BatchResults() -> impl IntoView {
    let batch = use_batch();
    let report = Memo::new(move |_| batch.report());
    let has = move || batch.run.runs.with(|v| !v.is_empty());
    let chart = move || report.with(chart_svg);
    let buttons = vec![
        ExportButton::new("CSV", ".csv", "text/csv", move || report.with(|r| r.csv())),
        ExportButton::new("JSON", ".json", "application/json", move || {
            report.with(|r| serde_json::to_string_pretty(r).unwrap_or_default())
        }),
        ExportButton::new("Chart SVG", "-chart.svg", "image/svg+xml", chart)
            .unless(Signal::derive(move || chart().is_empty())),
    ];
    view! {
        <Show when=has fallback=move || view! {
            <section class="panel empty act-empty" role="region" aria-label="Batch results">
                <h3>"No results yet"</h3>
                <p class="muted">{move || if !batch.run.active.get() {
                    "Pick variants and trials, then Start batch. The paper's table fills in as runs finish: ROUGE-L and ROUGE-1 recall against the reference solutions, words, the judge's score, trivia recall, accepted drafts, and each phase's share of the tokens."
                } else {
                    "The first runs are under way: the table fills in as they finish."
                }}</p>
            </section>
        }>
            <section class="panel" role="region" aria-label="Batch results">
                <ResultsHead run=batch.run title="Scores per variant" prefix="roundtable-act-batch" buttons=buttons.clone()/>
                <p class="muted small">"Recall ×100, means over the scored runs; \"accepted\" counts final drafts that passed the leader's check."</p>
                <div class="tp-table-wrap" inner_html=move || report.with(table_html)></div>
                <div class="act-repairs" inner_html=move || report.with(repairs_html)></div>
                <Show when=move || !chart().is_empty()>
                    <figure class="act-chart-box">
                        <div class="chart-box" inner_html=chart></div>
                        <figcaption class="small muted">{move || report.with(|r| if r.rows.iter().any(|x| x.rouge_l.is_some()) {
                            "ROUGE-L recall ×100 per variant"
                        } else if r.rows.iter().any(|x| x.trivia.is_some()) {
                            "Trivia recall (%) per variant"
                        } else {
                            "A tool task's sub-tasks done (%) per variant"
                        })}</figcaption>
                    </figure>
                </Show>
            </section>
            <RunsTable run=batch.run cells=cells class="act-runs"
                head=&["Variant", "Trial", "Status", "Score", "Words", "Accepted", "Cost"]/>
        </Show>
    }
}

/// A run's cells: variant, trial, status, score, words, accepted, cost.
fn cells(i: &Item<Tag>) -> AnyView {
    let result = result_of(&i.run.events);
    let score = match (i.status(), headline(&i.run.events)) {
        (RunStatus::Cancelled, _) => view! { <span class="muted">"not scored"</span> }.into_any(),
        (_, Some((v, what))) => view! { <span title=what>{format!("{v:.2}")}<span class="muted small">{format!(" {what}")}</span></span> }.into_any(),
        (_, None) => view! { <span class="muted">"—"</span> }.into_any(),
    };
    let words = result
        .as_ref()
        .map_or_else(|| "—".to_string(), |r| r.words.to_string());
    let accepted = match &result {
        Some(r) if r.accepted => view! { <span class="tp-badge tp-pass">"yes"</span> }.into_any(),
        Some(_) => view! { <span class="tp-badge tp-fail">"no"</span> }.into_any(),
        None => view! { <span class="muted">"—"</span> }.into_any(),
    };
    let why = i.run.failure().map(str::to_string);
    view! {
        <td class="act-run-variant">{group_name(i.run.tag.variant.label(), &i.run.config)}</td>
        <td class="num">{i.run.tag.trial}</td>
        <td><StatusBadge status=i.status() why=why.unwrap_or_default()/></td>
        <td>{score}</td>
        <td class="num">{words}</td>
        <td>{accepted}</td>
        <td class="num">{format_usd(i.run.cost_usd)}</td>
    }
    .into_any()
}
