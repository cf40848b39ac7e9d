//! The MAEL page (`/mael`): the pools this browser keeps (list, inspector,
//! import / export / merge / clear / re-embed), a learning phase over
//! training tasks, and an evaluation of the modes on test tasks with the
//! paper's tables, charts and the pool-size sweep.

mod forms;
mod inspector;
mod jobs;
mod pools;
mod results;
mod runner;
mod state;

use leptos::prelude::*;
use pools::PoolsUi;

/// Whether a learning phase is filling the pool `name` now (a run that
/// learns into it meanwhile would write over its chunks).
pub fn filling(name: &str) -> bool {
    let st = state::use_learn();
    untrack(|| st.job()) == state::Job::Learning && st.pool.with_untracked(|p| p == name)
}

#[component]
pub fn LearnPage() -> impl IntoView {
    let ui = PoolsUi::new();
    view! {
        <main class="batch-page ml-learn-page">
            <section class="column" aria-label="Learning setup">
                <jobs::JobsPanel/>
            </section>
            <div class="batch-results">
                <jobs::JobStatus/>
                <pools::PoolsPanel ui=ui/>
                <inspector::PoolInspector ui=ui/>
                <results::EvaluationResults/>
            </div>
        </main>
    }
}
