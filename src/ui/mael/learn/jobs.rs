//! The learning page's jobs: the forms (left column: the team and pool the
//! jobs use, from the MAEL setup; the learning phase; the evaluation) and
//! the job under way (right column: pause / resume / stop, progress, cost).

use super::super::setup::{refresh_stored, ImportTasks, TaskSetSelect};
use super::super::state::mael_setup;
use super::forms::VARIANTS;
use super::state::{use_learn, Job};
use crate::engine::coordinators::mael::contract::Mode;
use crate::engine::coordinators::mael::html::report::label;
use crate::engine::model::pricing::format_usd;
use crate::ui::state::use_app;
use leptos::prelude::*;

fn count(ev: &leptos::ev::Event, default: usize) -> usize {
    event_target_value(ev).trim().parse().unwrap_or(default)
}

#[component]
pub fn JobsPanel() -> impl IntoView {
    let app = use_app();
    let st = use_learn();
    let (lf, ef) = (st.learn_form, st.eval_form);
    refresh_stored();
    let busy = Signal::derive(move || st.job.get() != Job::Idle);
    let s = mael_setup();
    let mode_box = move |m: Mode| {
        view! {
            <label class="check">
                <input type="checkbox" disabled=busy prop:checked=move || ef.with(|f| f.modes.contains(&m))
                    on:change=move |ev| { let on = event_target_checked(&ev); ef.update(|f| { f.modes.retain(|x| *x != m); if on { f.modes.push(m); f.modes.sort_by_key(|x| Mode::ALL.iter().position(|y| y == x)); } }) }/>
                {label(m)}
            </label>
        }
    };
    let variant_box = move |i: usize| {
        view! {
            <label class="check">
                <input type="checkbox" disabled=busy prop:checked=move || ef.with(|f| f.variants.contains(&i))
                    on:change=move |ev| { let on = event_target_checked(&ev); ef.update(|f| { f.variants.retain(|x| *x != i); if on { f.variants.push(i); f.variants.sort(); } }) }/>
                {VARIANTS[i].0}
            </label>
        }
    };
    let rows = move || ef.with(|f| f.groups().len());
    let planned = move || ef.with(|f| f.n * (f.groups().len() + f.sweep_sizes().len()));
    let team = move || {
        s.with(|x| match x.team.validate() {
            Ok(()) => format!(
                "{} agents, root {}",
                x.team.len(),
                x.team.agents[x.team.root()].name
            ),
            Err(e) => e.user_message(),
        })
    };
    view! {
        <div class="panel batch-form ml-jobs" role="form" aria-label="Learning and evaluation">
            <h2 class="panel-title">"Learn and evaluate"</h2>
            <p class="muted small">"Runs use the model in Settings ("<strong>{move || app.settings.with(|x| x.label())}</strong>
                "), the team "<strong>{team}</strong>" and the pool "<strong>{move || s.with(|x| x.pool.clone())}</strong>
                " of the Run page's MAEL panel, with its retrieval settings."</p>
            <ImportTasks on_done=move |n| { lf.update(|f| f.set = n.clone()); ef.update(|f| f.set = n) } disabled=busy/>

            <h3 class="tp-h">"1 · Learning phase"</h3>
            <p class="muted small">"The workflow runs over training tasks one after another; after each, the backward pass rates every step and the pool is saved. Start again later to resume: tasks the pool has learned are skipped."</p>
            <div class="field">
                <label for="ml-learn-set">"Training tasks"</label>
                <TaskSetSelect id="ml-learn-set" value=Signal::derive(move || lf.with(|f| f.set.clone())) on_pick=move |n| lf.update(|f| f.set = n) disabled=busy/>
            </div>
            <div class="ml-grid">
                <label for="ml-learn-n">"Tasks (first N)"</label>
                <input id="ml-learn-n" type="number" min="1" max="1000" disabled=busy prop:value=move || lf.with(|f| f.n.to_string())
                    on:change=move |ev| { let n = count(&ev, 30).clamp(1, 1000); lf.update(|f| f.n = n) }/>
                <label for="ml-learn-mode">"Retrieval while learning"</label>
                <select id="ml-learn-mode" disabled=busy prop:value=move || lf.with(|f| f.mode.id())
                    on:change=move |ev| if let Some(m) = Mode::parse(&event_target_value(&ev)) { lf.update(|f| f.mode = m) }>
                    {Mode::ALL.iter().map(|m| view! { <option value=m.id()>{label(*m)}</option> }).collect_view()}
                </select>
            </div>
            <label class="check">
                <input type="checkbox" disabled=busy prop:checked=move || lf.with(|f| f.save)
                    on:change=move |ev| { let on = event_target_checked(&ev); lf.update(|f| f.save = on) }/>
                "Save each run to History"
            </label>
            <button type="button" class="button primary" disabled=busy on:click=move |_| st.learn(app)>"Start learning"</button>

            <h3 class="tp-h">"2 · Evaluation"</h3>
            <p class="muted small">"The same test tasks in each mode against the pool, which is never changed; then the pool-size sweep (the pool as it was after its first N learned tasks)."</p>
            <div class="field">
                <label for="ml-eval-set">"Test tasks"</label>
                <TaskSetSelect id="ml-eval-set" value=Signal::derive(move || ef.with(|f| f.set.clone())) on_pick=move |n| ef.update(|f| f.set = n) disabled=busy/>
            </div>
            <div class="ml-grid">
                <label for="ml-eval-n">"Tasks (first K)"</label>
                <input id="ml-eval-n" type="number" min="1" max="1000" disabled=busy prop:value=move || ef.with(|f| f.n.to_string())
                    on:change=move |ev| { let n = count(&ev, 20).clamp(1, 1000); ef.update(|f| f.n = n) }/>
                <label for="ml-eval-conc">"Runs at once"</label>
                <input id="ml-eval-conc" type="number" min="1" max="16" disabled=busy prop:value=move || ef.with(|f| f.concurrency.to_string())
                    on:change=move |ev| { let n = count(&ev, 4).clamp(1, 16); ef.update(|f| f.concurrency = n) }/>
                <label for="ml-eval-sizes">"Sweep: pool sizes"</label>
                <input id="ml-eval-sizes" disabled=busy placeholder="none" prop:value=move || ef.with(|f| f.sizes.clone())
                    on:change=move |ev| { let v = event_target_value(&ev); ef.update(|f| f.sizes = v) }/>
            </div>
            <fieldset>
                <legend>"Modes (Table 1)"</legend>
                {Mode::ALL.into_iter().map(mode_box).collect_view()}
            </fieldset>
            <fieldset>
                <legend>"Score variants (Table 4), for each retrieval mode"</legend>
                {(0..VARIANTS.len()).map(variant_box).collect_view()}
            </fieldset>
            <label class="check">
                <input type="checkbox" disabled=busy prop:checked=move || ef.with(|f| f.save)
                    on:change=move |ev| { let on = event_target_checked(&ev); ef.update(|f| f.save = on) }/>
                "Save each run to History"
            </label>
            <p class="muted small">{move || format!("{} rows, {} runs", rows(), planned())}</p>
            <button type="button" class="button primary" disabled=move || busy.get() || rows() == 0 on:click=move |_| st.evaluate(app)>"Start evaluation"</button>

        </div>
    }
}

/// The job under way (or the last one): pause / resume / stop, progress,
/// what it is doing, time and cost so far. At the top of the page's right
/// column, where the results appear.
#[component]
pub fn JobStatus() -> impl IntoView {
    let app = use_app();
    let st = use_learn();
    let progress = move || (st.done(), st.total.get());
    let title = move || match st.job.get() {
        Job::Learning => "Learning phase",
        Job::Evaluating => "Evaluation",
        Job::Idle => "Last job",
    };
    view! {
        <Show when=move || !st.status.with(String::is_empty) || st.error.with(Option::is_some)>
            <section class="panel ml-job" role="region" aria-label="Job">
                <div class="panel-head">
                    <h2 class="panel-title">{title}</h2>
                    <Show when=move || st.job.get() != Job::Idle>
                        <div class="batch-actions">
                            <Show when=move || st.paused.get()
                                fallback=move || view! { <button class="button small" disabled=move || st.stopping.get() on:click=move |_| st.pause()>"Pause"</button> }>
                                <button class="button small primary" on:click=move |_| st.resume()>"Resume"</button>
                            </Show>
                            <button class="button small danger" disabled=move || st.stopping.get() on:click=move |_| st.stop()>"Stop"</button>
                        </div>
                    </Show>
                </div>
                    <div class="batch-progress" role="status" aria-label="Progress">
                    {move || (progress().1 > 0).then(|| view! { <progress max=move || progress().1.to_string() value=move || progress().0.to_string()></progress> })}
                    <p class="small">{move || st.status.get()}</p>
                    <p class="small muted">{move || {
                        let (done, total) = progress();
                        let secs = st.elapsed_ms.get() / 1000.0;
                        let skipped = st.skipped.get();
                        format!("{done} of {total} runs · {secs:.1} s · cost so far {}{}{}",
                            format_usd(st.cost_usd.get()),
                            if app.settings.with(|x| x.is_demo()) { " (the demo model is free)" } else { "" },
                            if skipped > 0 { format!(" · {skipped} tasks already learned, skipped") } else { String::new() })
                    }}</p>
                    {move || st.paused.get().then(|| view! { <p class="small warn-text">"Paused: runs wait before their next LLM call."</p> })}
                </div>
            </section>
        </Show>
    }
}
