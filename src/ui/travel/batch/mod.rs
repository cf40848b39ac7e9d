//! The batch page (`/batch`): the travel planner's variants over a query
//! set, side by side in the paper's metrics. Made of the batch kit
//! (`ui::batch`) and the travel planner's own form fields and tables.

mod form;
mod results;
pub mod state;

use leptos::prelude::*;

#[component]
pub fn BatchPage() -> impl IntoView {
    view! {
        <main class="batch-page">
            <section class="column" aria-label="Batch setup">
                <form::BatchForm/>
            </section>
            <results::BatchResults/>
        </main>
    }
}
