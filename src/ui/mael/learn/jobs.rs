//! The learning page's jobs: the forms (left column: the team and pool the
//! jobs use, from the MAEL setup; the learning phase; the evaluation; the
//! batch kit's prompts, runs at once, caps and History) and the job under way
//! (right column: pause / resume / stop, progress, cost).

use super::super::setup::{refresh_stored, ImportTasks, TaskSetSelect};
use super::super::state::mael_setup;
use super::state::{use_learn, Job};
use crate::engine::coordinators::mael;
use crate::engine::coordinators::mael::contract::Mode;
use crate::engine::coordinators::mael::learn::{label, LEARNING, VARIANTS};
use crate::engine::views::html::repairs::by_step_details_html;
use crate::ui::batch::{
    number, runs_per_job, BatchButtons, BatchNotices, Checks, CommonFields, ProgressLine,
    PromptSetsField,
};
use crate::ui::state::use_app;
use leptos::prelude::*;

#[component]
pub fn JobsPanel() -> impl IntoView {
    let app = use_app();
    let st = use_learn();
    let (lf, ef) = (st.learn_form, st.eval_form);
    refresh_stored();
    let busy = st.run.busy();
    let s = mael_setup();
    let modes: Vec<(Mode, &'static str)> = Mode::ALL.iter().map(|m| (*m, label(*m))).collect();
    let variants: Vec<(usize, &'static str)> =
        VARIANTS.iter().enumerate().map(|(i, v)| (i, v.0)).collect();
    let rows = move || ef.with(|f| f.groups(Default::default()).len());
    let sets = runs_per_job(st.common, mael::ID);
    let planned = move || {
        ef.with(|f| f.n * (f.groups(Default::default()).len() * sets.get() + f.sweep_sizes().len()))
    };
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
            <p class="muted small">"The workflow runs over training tasks one after another; after each, the backward pass rates every step and the pool is saved. Start again later to resume: tasks the pool has learned are skipped. An imported set lends its even tasks (1st, 3rd, …) to learning and keeps its odd ones for testing."</p>
            <TaskChoice ids=("ml-learn-set", "ml-learn-n") labels=("Training tasks", "Tasks (first N)") busy=busy
                set=Signal::derive(move || lf.with(|f| f.set.clone())) on_set=Callback::new(move |n| lf.update(|f| f.set = n))
                n=Signal::derive(move || lf.with(|f| f.n)) on_n=Callback::new(move |n| lf.update(|f| f.n = n))>
                <label for="ml-learn-mode">"Retrieval while learning"</label>
                <select id="ml-learn-mode" disabled=busy prop:value=move || lf.with(|f| f.mode.id())
                    on:change=move |ev| if let Some(m) = Mode::parse(&event_target_value(&ev)) { lf.update(|f| f.mode = m) }>
                    {Mode::ALL.iter().map(|m| view! { <option value=m.id()>{label(*m)}</option> }).collect_view()}
                </select>
            </TaskChoice>
            <button type="button" class="button primary" disabled=busy on:click=move |_| st.learn(app)>"Start learning"</button>

            <h3 class="tp-h">"2 · Evaluation"</h3>
            <p class="muted small">"The same test tasks in each mode against the pool, which is never changed; then the pool-size sweep in task-wise retrieval, as the paper's Figure 3 (the pool as it was after its first N learned tasks). An imported set is tested on its odd tasks; tasks the pool learned from are refused."</p>
            <TaskChoice ids=("ml-eval-set", "ml-eval-n") labels=("Test tasks", "Tasks (first K)") busy=busy
                set=Signal::derive(move || ef.with(|f| f.set.clone())) on_set=Callback::new(move |n| ef.update(|f| f.set = n))
                n=Signal::derive(move || ef.with(|f| f.n)) on_n=Callback::new(move |n| ef.update(|f| f.n = n))>
                <label for="ml-eval-sizes">"Sweep: pool sizes"</label>
                <input id="ml-eval-sizes" disabled=busy placeholder="none" prop:value=move || ef.with(|f| f.sizes.clone())
                    on:change=move |ev| { let v = event_target_value(&ev); ef.update(|f| f.sizes = v) }/>
            </TaskChoice>
            <Checks legend="Modes (Table 1)" all=modes busy=busy
                picked=Signal::derive(move || ef.with(|f| f.modes.clone()))
                on_change=Callback::new(move |m| ef.update(|f| f.modes = m))/>
            <Checks legend="Score variants (Table 4), for each retrieval mode" all=variants busy=busy
                picked=Signal::derive(move || ef.with(|f| f.variants.clone()))
                on_change=Callback::new(move |v| ef.update(|f| f.variants = v))/>
            <p class="muted small">{move || format!("{} rows, {} runs", rows() * sets.get(), planned())}</p>
            <button type="button" class="button primary" disabled=move || busy.get() || rows() == 0 on:click=move |_| st.evaluate(app)>"Start evaluation"</button>

            <h3 class="tp-h">"Both jobs"</h3>
            <PromptSetsField common=st.common busy=busy prefix="ml" coordinator=mael::ID
                note="Side by side, the evaluation's rows run on both sets; learning and the sweep run on yours (one pool, one figure). "/>
            <CommonFields common=st.common busy=busy prefix="ml" concurrency_label="Evaluation runs at once"/>

        </div>
    }
}

/// A job's tasks: the set, and how many of its first tasks (1 to 1000),
/// in a grid with the job's other fields (`children`).
#[component]
fn TaskChoice(
    ids: (&'static str, &'static str),
    labels: (&'static str, &'static str),
    busy: Signal<bool>,
    set: Signal<String>,
    on_set: Callback<String>,
    n: Signal<usize>,
    on_n: Callback<usize>,
    children: Children,
) -> impl IntoView {
    view! {
        <div class="field">
            <label for=ids.0>{labels.0}</label>
            <TaskSetSelect id=ids.0 value=set on_pick=move |x| on_set.run(x) disabled=busy/>
        </div>
        <div class="ml-grid">
            <label for=ids.1>{labels.1}</label>
            <input id=ids.1 type="number" min="1" max="1000" disabled=busy prop:value=move || n.get().to_string()
                on:change=move |ev| on_n.run(number(&ev, n.get_untracked()).clamp(1, 1000))/>
            {children()}
        </div>
    }
}

/// The job under way (or the last one): pause / resume / stop, progress,
/// what it is doing, time and cost so far; a learning phase's replies
/// repaired (an evaluation's are in its table). At the top of the page's
/// right column, where the results appear.
#[component]
pub fn JobStatus() -> impl IntoView {
    let st = use_learn();
    let title = move || match st.job() {
        Job::Learning => "Learning phase",
        Job::Evaluating => "Evaluation",
        Job::Idle => "Last job",
    };
    let line = Signal::derive(move || {
        let skipped = st.skipped.get();
        let p = st.run.progress.get();
        if p.stopping {
            return "Stopping…".to_string();
        }
        let paused = if p.paused {
            "Paused: runs wait before their next LLM call · "
        } else {
            ""
        };
        let skipped = if skipped > 0 {
            format!(" · {skipped} tasks already learned, skipped")
        } else {
            String::new()
        };
        format!(
            "{paused}{} of {} runs · {:.1} s{skipped}",
            p.done(),
            p.total,
            st.run.elapsed_ms.get() / 1000.0
        )
    });
    let shown = move || {
        !st.status.with(String::is_empty)
            || st.run.error.with(Option::is_some)
            || st.run.active.get()
    };
    view! {
        <Show when=shown>
            <section class="panel ml-job" role="region" aria-label="Job">
                <div class="panel-head">
                    <h2 class="panel-title">{title}</h2>
                    <BatchButtons run=st.run small=true/>
                </div>
                <p class="small">{move || st.status.get()}</p>
                <ProgressLine run=st.run status=line/>
                {move || st.learning_repairs().map(|r| {
                    let marked = r.total.flagged();
                    view! {
                        <p class="small ml-learn-repairs">"Replies repaired: "
                            <span class:repaired-count=marked>{r.label()}</span></p>
                        <div inner_html=by_step_details_html(&[(LEARNING, &r)])></div>
                    }
                })}
                <BatchNotices run=st.run/>
            </section>
        </Show>
    }
}
