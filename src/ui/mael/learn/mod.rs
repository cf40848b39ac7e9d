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
