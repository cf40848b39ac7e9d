//! The evaluation in the paper's shapes: the score per mode (Table 1, with
//! Table 4's variants as more rows), completion tokens and critique rounds
//! per mode (Fig. 2), the pool-size sweep (Fig. 3); exports as CSV, JSON
//! and SVG; then every run of the job with Open (it shows on the Run page,
//! replayable and forkable). HTML from `coordinators::mael::html::report`.

use super::state::{use_learn, Job, JobRun};
use crate::engine::coordinators::mael::html::report::{bars_svg, csv, json, sweep_svg, table_html};
use crate::engine::run::RunStatus;
use crate::platform::files;
use crate::ui::state::{use_app, Source};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

#[component]
pub fn EvaluationResults() -> impl IntoView {
    let st = use_learn();
    let has_rows = move || st.rows.with(|r| !r.is_empty()) || st.sweep.with(|s| !s.is_empty());
    let save = move |suffix: &str, mime: &str, text: String| {
        let name = format!(
            "roundtable-mael-{}{suffix}",
            files::stamp(st.started_ms.get_untracked())
        );
        if let Err(e) = files::download_text(&name, mime, &text) {
            st.error.set(Some(format!("Could not save {name}: {e}")));
        }
    };
    let tokens = move || {
        st.rows.with(|r| {
            bars_svg(
                r,
                "Completion tokens per task (Fig. 2)",
                |s| s.completion_tokens,
                "",
                false,
            )
        })
    };
    let rounds = move || {
        st.rows.with(|r| {
            bars_svg(
                r,
                "Critique rounds per task (Fig. 2)",
                |s| s.rounds,
                "",
                false,
            )
        })
    };
    let scores = move || {
        st.rows
            .with(|r| bars_svg(r, "Score (Table 1)", |s| s.score * 100.0, "%", false))
    };
    view! {
        <Show when=has_rows fallback=move || view! {
            <section class="panel empty" role="region" aria-label="Evaluation results">
                <h3>"No evaluation yet"</h3>
                <p class="muted">"Learn first (the pool fills), then evaluate: the table compares no experience, task-wise and step-wise retrieval on the same test tasks, with completion tokens, critique rounds and the pool-size sweep, as in the paper."</p>
            </section>
        }>
            <section class="panel" role="region" aria-label="Evaluation results">
                <div class="panel-head">
                    <h2 class="panel-title">"Evaluation"</h2>
                    <div class="batch-actions" aria-label="Export">
                        <button class="button small" on:click=move |_| save(".csv", "text/csv", st.rows.with(|r| st.sweep.with(|s| csv(r, s))))>"CSV"</button>
                        <button class="button small" on:click=move |_| save(".json", "application/json", st.rows.with(|r| st.sweep.with(|s| serde_json::to_string_pretty(&json(r, s)).unwrap_or_default())))>"JSON"</button>
                        <button class="button small" on:click=move |_| save("-scores.svg", "image/svg+xml", st.rows.with(|r| bars_svg(r, "Score (Table 1)", |s| s.score * 100.0, "%", true)))>"Scores SVG"</button>
                        <button class="button small" disabled=move || st.sweep.with(Vec::is_empty) on:click=move |_| save("-sweep.svg", "image/svg+xml", st.sweep.with(|s| sweep_svg(s, true)))>"Sweep SVG"</button>
                    </div>
                </div>
                <p class="muted small">{move || format!("Pool \"{}\"{}", st.pool.get(), if st.job.get() == Job::Evaluating { " · running…" } else { "" })}</p>
                <div class="tp-table-wrap" inner_html=move || st.rows.with(|r| table_html(r, &st.metric.get()))></div>
                <div class="ml-charts">
                    <figure><div class="chart-box" inner_html=scores></div></figure>
                    <figure><div class="chart-box" inner_html=tokens></div></figure>
                    <figure><div class="chart-box" inner_html=rounds></div></figure>
                    {move || st.sweep.with(|s| !s.is_empty()).then(|| view! {
                        <figure><div class="chart-box" inner_html=move || st.sweep.with(|s| sweep_svg(s, false))></div><figcaption class="small muted">"Score % by learned tasks in the pool (Fig. 3)"</figcaption></figure>
                    })}
                </div>
            </section>
        </Show>
        <RunList/>
    }
}

/// Every run of the current / last job, with Open.
#[component]
fn RunList() -> impl IntoView {
    let app = use_app();
    let st = use_learn();
    let navigate = use_navigate();
    let open = move |r: &JobRun| {
        if app.show_doc((*r.doc).clone(), Source::Batch, r.saved) {
            navigate("/", Default::default());
        } else {
            st.error.set(Some(
                "A run is in progress on the Run page: stop it there before opening one of these."
                    .into(),
            ));
        }
    };
    let open = StoredValue::new(open);
    view! {
        <Show when=move || st.runs.with(|r| !r.is_empty())>
            <section class="panel" role="region" aria-label="Runs">
                <h2 class="panel-title">{move || format!("Runs ({})", st.runs.with(Vec::len))}</h2>
                <div class="tp-table-wrap ml-runs">
                    <table class="tp-table">
                        <thead><tr><th scope="col">"#"</th><th scope="col">"row"</th><th scope="col">"task"</th><th scope="col">"status"</th><th scope="col">"score"</th><th scope="col">"rounds"</th><th scope="col">"learned"</th><th scope="col">"tokens out"</th><th></th></tr></thead>
                        <tbody>
                            <For each=move || st.runs.get() key=|r: &JobRun| r.n children=move |r: JobRun| {
                                let item = r.clone();
                                view! {
                                    <tr>
                                        <td>{r.n + 1}</td>
                                        <td class="small">{r.group.clone()}</td>
                                        <td><code class="small">{r.task_id.clone()}</code></td>
                                        <td>{if r.status == RunStatus::Finished { view! { <span class="tp-badge tp-pass">"finished"</span> }.into_any() } else { view! { <span class="tp-badge tp-fail">{format!("{:?}", r.status).to_lowercase()}</span> }.into_any() }}</td>
                                        <td>{r.score.map(|s| format!("{s:.2}")).unwrap_or_else(|| "—".into())}</td>
                                        <td>{r.rounds.map(|x| x.to_string()).unwrap_or_else(|| "—".into())}</td>
                                        <td>{r.learned.map(|x| x.to_string()).unwrap_or_else(|| "—".into())}</td>
                                        <td>{r.completion_tokens}</td>
                                        <td><button class="link-button small" on:click=move |_| open.with_value(|f| f(&item))>"Open"</button></td>
                                    </tr>
                                }
                            }/>
                        </tbody>
                    </table>
                </div>
            </section>
        </Show>
    }
}
