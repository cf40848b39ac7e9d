//! The ACT page (`/act`): the batch (variants × trials with the paper's
//! tables, chart and exports; every run to open on the Run page), the
//! knowledge banks of ACT+, and the imported task sets. Form on the left,
//! results on the right on wide screens; one column on narrow ones.

mod banks;
mod batch_form;
mod batch_results;
mod batch_run;
mod batch_state;
mod sets;

use super::setup::refresh_stored;
use leptos::prelude::*;

#[component]
pub fn ActPage() -> impl IntoView {
    refresh_stored();
    view! {
        <main class="batch-page act-page">
            <section class="column act-page-form" aria-label="Batch setup">
                <batch_form::BatchForm/>
            </section>
            <div class="batch-results act-page-results">
                <batch_results::BatchResults/>
                <div class="act-page-stores">
                    <banks::BanksPanel/>
                    <sets::SetsPanel/>
                </div>
            </div>
        </main>
    }
}
