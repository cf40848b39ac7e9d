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
use crate::ui::widgets::ResultMessage;
use leptos::prelude::*;

/// Deletes a stored bank or set once the user confirms `question`, then
/// runs `after`, says `done` (or the error) and lists them again.
fn delete_stored<F>(
    message: ResultMessage,
    question: String,
    done: String,
    delete: F,
    after: impl FnOnce() + 'static,
) where
    F: std::future::Future<Output = Result<(), crate::platform::idb::StoreError>> + 'static,
{
    if !banks::confirm(&question) {
        return;
    }
    leptos::task::spawn_local(async move {
        let r = delete.await.map(|_| done).map_err(|e| e.user_message());
        after();
        settle(message, r);
    });
}

/// Says how a change to the stored banks or sets went, and lists them again.
fn settle(message: ResultMessage, r: Result<String, String>) {
    message.set(Some(r));
    refresh_stored();
}

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
