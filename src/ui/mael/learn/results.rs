//! The evaluation in the paper's shapes: the score per mode (Table 1, with
//! Table 4's variants as more rows), completion tokens and critique rounds
//! per mode (Fig. 2), the pool-size sweep (Fig. 3), the replies repaired
//! per mode (and per step kind, folded away); exports as CSV, JSON and SVG; then every run of the job with Open (it shows on the Run page,
//! replayable and forkable). HTML from `coordinators::mael::html::report`.

use super::state::{use_learn, Job};
use crate::engine::coordinators::mael::html::report::{
    bars_svg, csv, curves_svg, json, parts_html, relative_html, repairs_html, srdd_html, sweep_svg,
    table_html,
};
use crate::engine::coordinators::mael::learn::{relative_to_none, result_of, ModeSummary, Tag};
use crate::engine::run::batch::group_name;
use crate::engine::views::usage::UsageView;
use crate::engine::views::Fold;
use crate::ui::batch::{ExportButton, Item, ResultsHead, RunsTable, StatusBadge};
use leptos::prelude::*;

#[component]
pub fn EvaluationResults() -> impl IntoView {
    let st = use_learn();
    let rows = Memo::new(move |_| st.rows());
    let sweep = Memo::new(move |_| st.sweep());
    let curves = Memo::new(move |_| st.curves());
    let has_rows = move || rows.with(|r| !r.is_empty()) || sweep.with(|s| !s.is_empty());
    let buttons = vec![
        ExportButton::new("CSV", ".csv", "text/csv", move || {
            rows.with(|r| sweep.with(|s| csv(r, s)))
        }),
        ExportButton::new("JSON", ".json", "application/json", move || {
            rows.with(|r| {
                sweep.with(|s| {
                    curves
                        .with(|c| serde_json::to_string_pretty(&json(r, s, c)).unwrap_or_default())
                })
            })
        }),
        ExportButton::new("Scores SVG", "-scores.svg", "image/svg+xml", move || {
            rows.with(|r| bars_svg(r, "Score (Table 1)", |s| s.score * 100.0, "%", true))
        }),
        ExportButton::new("Sweep SVG", "-sweep.svg", "image/svg+xml", move || {
            sweep.with(|s| sweep_svg(s, true))
        })
        .unless(Signal::derive(move || sweep.with(Vec::is_empty))),
    ];
    let figure = move |title: &'static str, pick: fn(&ModeSummary) -> f64| {
        move || rows.with(|r| bars_svg(r, title, pick, "", false))
    };
    let tokens = figure("Completion tokens per task (Fig. 2)", |s| {
        s.completion_tokens
    });
    let rounds = figure("Critique rounds per task (Fig. 2)", |s| s.rounds);
    let scores =
        move || rows.with(|r| bars_svg(r, "Score (Table 1)", |s| s.score * 100.0, "%", false));
    view! {
        <Show when=has_rows fallback=move || view! {
            <section class="panel empty" role="region" aria-label="Evaluation results">
                <h3>"No evaluation yet"</h3>
                <p class="muted">"Learn first (the pool fills), then evaluate: the table compares no experience, task-wise and step-wise retrieval on the same test tasks, with completion tokens, critique rounds and the pool-size sweep, as in the paper."</p>
            </section>
        }>
            <section class="panel" role="region" aria-label="Evaluation results">
                <ResultsHead run=st.run title="Evaluation" prefix="roundtable-mael" buttons=buttons.clone()
                    counts=Signal::derive(move || st.counts())
                    label=Signal::derive(move || format!("Pool \"{}\"{}", st.pool.get(), if st.job() == Job::Evaluating { " · running…" } else { "" }))/>
                <div class="tp-table-wrap" inner_html=move || rows.with(|r| table_html(r, &st.metric.get()))></div>
                <div class="tp-table-wrap" inner_html=move || rows.with(|r| parts_html(r))></div>
                <div class="tp-table-wrap" inner_html=move || rows.with(|r| srdd_html(r))></div>
                <div class="tp-table-wrap" inner_html=move || rows.with(|r| relative_html(&relative_to_none(r)))></div>
                <div class="ml-repairs" inner_html=move || rows.with(|r| repairs_html(r))></div>
                <div class="ml-charts">
                    <figure><div class="chart-box" inner_html=scores></div></figure>
                    <figure><div class="chart-box" inner_html=tokens></div></figure>
                    <figure><div class="chart-box" inner_html=rounds></div></figure>
                    {move || curves.with(|c| curves_svg(c, false)).into_iter().map(|(task, svg)| view! {
                        <figure><div class="chart-box" inner_html=svg></div><figcaption class="small muted">{format!("Fig. 4 · {task}: the project's quality after each step that wrote files")}</figcaption></figure>
                    }).collect_view()}
                    {move || sweep.with(|s| !s.is_empty()).then(|| view! {
                        <figure><div class="chart-box" inner_html=move || sweep.with(|s| sweep_svg(s, false))></div><figcaption class="small muted">"Score % by learned tasks in the pool (Fig. 3)"</figcaption></figure>
                    })}
                </div>
            </section>
        </Show>
        <RunsTable run=st.run cells=cells class="ml-runs"
            head=&["#", "row", "task", "status", "score", "rounds", "learned", "tokens out"]/>
    }
}

/// A run's cells: its place, row, task, status, score, critique rounds,
/// experiences learned, completion tokens.
fn cells(i: &Item<Tag>) -> AnyView {
    let r = result_of(&i.run.events);
    let dash = |x: Option<String>| x.unwrap_or_else(|| "—".into());
    let tokens = UsageView::of(&i.run.events).total.output_tokens;
    view! {
        <td>{i.run.job + 1}</td>
        <td class="small">{group_name(&i.run.tag.row, &i.run.config)}</td>
        <td><code class="small">{i.run.tag.task_id.clone()}</code></td>
        <td><StatusBadge status=i.status() why=i.run.failure().unwrap_or_default().to_string()/></td>
        <td>{dash(r.as_ref().map(|x| format!("{:.2}", x.score)))}</td>
        <td>{dash(r.as_ref().map(|x| x.rounds.to_string()))}</td>
        <td>{dash(r.as_ref().map(|x| x.learned.to_string()))}</td>
        <td>{tokens}</td>
    }
    .into_any()
}
