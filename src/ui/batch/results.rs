//! A batch's results, the parts every page shares: export buttons (CSV /
//! JSON / SVG files named for the batch), and the list of its runs with
//! Open (the run shows on the Run page, replayable and forkable). The
//! tables themselves are each paper's (escaped HTML from its folder).

use super::state::{BatchRun, Item};
use crate::engine::run::RunStatus;
use crate::platform::files;
use crate::ui::state::{use_app, Source};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

/// Saves `text` as a download; a failure goes to `error`.
fn download(name: &str, mime: &str, text: &str, error: RwSignal<Option<String>>) {
    if let Err(e) = files::download_text(name, mime, text) {
        error.set(Some(format!("Could not save {name}: {e}")));
    }
}

/// One export: a button that saves `make()` as `<prefix>-<stamp><suffix>`.
#[derive(Clone)]
pub struct ExportButton {
    pub label: &'static str,
    pub suffix: &'static str,
    pub mime: &'static str,
    pub make: Callback<(), String>,
    /// Greyed out while there is nothing to export.
    pub empty: Option<Signal<bool>>,
}

impl ExportButton {
    pub fn new(
        label: &'static str,
        suffix: &'static str,
        mime: &'static str,
        make: impl Fn() -> String + Send + Sync + 'static,
    ) -> ExportButton {
        ExportButton {
            label,
            suffix,
            mime,
            make: Callback::new(move |()| make()),
            empty: None,
        }
    }

    /// Greyed out while `empty` holds.
    pub fn unless(mut self, empty: Signal<bool>) -> ExportButton {
        self.empty = Some(empty);
        self
    }
}

/// The export buttons of a batch's results.
#[component]
pub fn Exports<T: Clone + Send + Sync + 'static>(
    run: BatchRun<T>,
    /// File names start with this (`roundtable-batch`).
    prefix: &'static str,
    buttons: Vec<ExportButton>,
) -> impl IntoView {
    let stamp = move || files::stamp(run.started_ms.get_untracked());
    view! {
        <div class="batch-actions" aria-label="Export">
            {buttons.into_iter().map(|b| {
                let empty = b.empty;
                let save = move |_| {
                    let name = format!("{prefix}-{}{}", stamp(), b.suffix);
                    download(&name, b.mime, &b.make.run(()), run.error);
                };
                view! {
                    <button class="button small" disabled=move || empty.is_some_and(|e| e.get()) on:click=save>{b.label}</button>
                }
            }).collect_view()}
        </div>
    }
}

/// The head of a batch's results: the title and the exports, what the
/// batch ran on (`label`, else the batch's own), and how many runs were
/// stopped (listed, not scored) or failed.
#[component]
pub fn ResultsHead<T: Clone + Send + Sync + 'static>(
    run: BatchRun<T>,
    title: &'static str,
    /// File names start with this (`roundtable-batch`).
    prefix: &'static str,
    buttons: Vec<ExportButton>,
    #[prop(optional, into)] label: Option<Signal<String>>,
    /// (stopped, failed) among the runs the table counts, when they are not
    /// the batch's last runs.
    #[prop(optional, into)]
    counts: Option<Signal<(usize, usize)>>,
) -> impl IntoView {
    let counted = move || match counts {
        Some(c) => c.get(),
        None => (
            run.count(RunStatus::Cancelled),
            run.count(RunStatus::Failed),
        ),
    };
    let stopped = move || counted().0;
    let failed = move || counted().1;
    let label = move || match label {
        Some(l) => l.get(),
        None => run.label.get(),
    };
    view! {
        <div class="panel-head">
            <h2 class="panel-title">{title}</h2>
            <Exports run=run prefix=prefix buttons=buttons/>
        </div>
        <p class="muted small">{label}</p>
        {move || (stopped() > 0).then(|| view! {
            <p class="small warn-text">{format!("{} stopped run(s) are listed below but not scored.", stopped())}</p>
        })}
        {move || (failed() > 0).then(|| view! {
            <p class="small warn-text">{format!("{} run(s) failed: open one to see why; a rate limit often clears with fewer runs at once.", failed())}</p>
        })}
    }
}

/// A run's status as a badge (the failure's reason on hover).
#[component]
pub fn StatusBadge(status: RunStatus, #[prop(optional)] why: Option<String>) -> impl IntoView {
    let (class, text) = match status {
        RunStatus::Finished => ("tp-badge tp-pass", "finished"),
        RunStatus::Failed => ("tp-badge tp-fail", "failed"),
        RunStatus::Cancelled => ("tp-badge", "stopped"),
        RunStatus::Running => ("tp-badge", "running"),
    };
    view! { <span class=class title=why.unwrap_or_default()>{text}</span> }
}

/// Every run that ended, a row each: the page's cells (`cells`, one `<td>`
/// per heading of `head`), then Open; a failed run's reason in a row under it.
#[component]
pub fn RunsTable<T: Clone + Send + Sync + 'static>(
    run: BatchRun<T>,
    head: &'static [&'static str],
    cells: fn(&Item<T>) -> AnyView,
    #[prop(optional)] class: &'static str,
) -> impl IntoView {
    let app = use_app();
    let navigate = use_navigate();
    let open = move |item: &Item<T>| {
        if app.show_doc(item.run.doc(), Source::Batch, item.saved) {
            navigate("/", Default::default());
        } else {
            run.error.set(Some(
                "A run is in progress on the Run page: stop it there before opening one of these."
                    .into(),
            ));
        }
    };
    let open = StoredValue::new(open);
    let span = head.len() + 1;
    let key = |i: &Item<T>| i.run.job;
    view! {
        <Show when=move || run.runs.with(|r| !r.is_empty())>
            <section class="panel" role="region" aria-label="Runs">
                <h2 class="panel-title">{move || {
                    let (n, total) = (run.runs.with(Vec::len), run.progress.with(|p| p.total));
                    if n < total { format!("Runs ({n} of {total})") } else { format!("Runs ({n})") }
                }}</h2>
                <div class=format!("tp-table-wrap {class}")>
                    <table class="tp-table tp-runs">
                        <thead><tr>
                            {head.iter().map(|h| view! { <th scope="col">{*h}</th> }).collect_view()}
                            <th scope="col"><span class="sr-only">"Open"</span></th>
                        </tr></thead>
                        <tbody>
                            <For each=move || run.runs.get() key=key children=move |i| {
                                let i: Item<T> = i;
                                let failure = (i.status() == RunStatus::Failed)
                                    .then(|| i.run.failure().map(str::to_string))
                                    .flatten();
                                let item = i.clone();
                                view! {
                                    <tr>
                                        {cells(&i)}
                                        <td><button class="link-button small" on:click=move |_| open.with_value(|f| f(&item))>"Open"</button></td>
                                    </tr>
                                    {failure.map(|f| view! {
                                        <tr class="act-run-failure"><td colspan=span.to_string() class="small bad">{f}</td></tr>
                                    })}
                                }
                            }/>
                        </tbody>
                    </table>
                </div>
            </section>
        </Show>
    }
}
