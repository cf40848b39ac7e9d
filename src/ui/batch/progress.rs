//! A batch's buttons (Start, or Pause / Resume and Stop while it runs)
//! and its progress line: done of total, running, the clock, cost so far,
//! and how it ended.

use super::state::{Activity, BatchRun};
use crate::engine::model::pricing::format_usd;
use crate::engine::run::batch::Ended;
use crate::ui::state::use_app;
use leptos::prelude::*;

/// Start when idle (when the page starts its batch here); Pause / Resume
/// and Stop while the batch runs.
#[component]
pub fn BatchButtons<T: Clone + Send + Sync + 'static>(
    run: BatchRun<T>,
    #[prop(optional)] start_label: &'static str,
    #[prop(optional, into)] can_start: Option<Signal<bool>>,
    #[prop(optional)] on_start: Option<Callback<()>>,
    #[prop(optional)] small: bool,
) -> impl IntoView {
    let class = move |kind: &str| format!("button{}{kind}", if small { " small" } else { "" });
    let stopping = move || run.activity() == Activity::Stopping;
    view! {
        <div class="batch-actions">
            <Show when=move || run.activity() != Activity::Idle
                fallback=move || on_start.map(|start| view! {
                    <button class=class(" primary") disabled=move || !can_start.is_none_or(|c| c.get()) on:click=move |_| start.run(())>{start_label}</button>
                })>
                <Show when=move || run.activity() == Activity::Paused
                    fallback=move || view! { <button class=class("") disabled=stopping on:click=move |_| run.pause()>"Pause"</button> }>
                    <button class=class(" primary") on:click=move |_| run.resume()>"Resume"</button>
                </Show>
                <button class=class(" danger") disabled=stopping on:click=move |_| run.stop()>"Stop"</button>
            </Show>
        </div>
    }
}

fn seconds(ms: f64) -> String {
    let secs = ms / 1000.0;
    if secs < 10.0 {
        format!("{secs:.1} s")
    } else {
        format!("{secs:.0} s")
    }
}

/// The batch's line: where it stands in words.
fn status_text<T: Clone + Send + Sync + 'static>(run: BatchRun<T>) -> String {
    let p = run.progress.get();
    let (done, total) = (p.done(), p.total);
    let secs = seconds(run.elapsed_ms.get());
    match (run.activity(), &p.ended) {
        (Activity::Idle, Some(Ended::Capped(_))) => format!(
            "Stopped at the batch's cap: {done} of {total} runs ended in {secs}; the rest were not started."
        ),
        (Activity::Idle, Some(Ended::Stopped)) => {
            format!("Stopped: {done} of {total} runs ended in {secs}.")
        }
        (Activity::Idle, _) => format!("Done: {done} of {total} runs in {secs}"),
        (Activity::Running, _) => format!(
            "{done} of {total} runs done, {} running · {secs}",
            p.running
        ),
        (Activity::Paused, _) => {
            format!("Paused: {done} of {total} done (runs wait before their next LLM call) · {secs}")
        }
        (Activity::Stopping, _) => "Stopping…".to_string(),
    }
}

/// The progress bar, the line, cost so far (and failures, the cap's
/// message). Shown once a batch has started. `status` replaces the line.
#[component]
pub fn ProgressLine<T: Clone + Send + Sync + 'static>(
    run: BatchRun<T>,
    #[prop(optional, into)] status: Option<Signal<String>>,
) -> impl IntoView {
    let app = use_app();
    let line = move || match status {
        Some(s) => s.get(),
        None => status_text(run),
    };
    let failed = move || run.progress.with(|p| p.failed);
    let capped = move || {
        run.progress.with(|p| match &p.ended {
            Some(Ended::Capped(why)) => Some(why.clone()),
            _ => None,
        })
    };
    view! {
        <Show when=move || run.progress.with(|p| p.total > 0) || run.active.get()>
            <div class="batch-progress" role="status" aria-label="Batch progress">
                <progress max=move || run.progress.with(|p| p.total.max(1)).to_string() value=move || run.progress.with(|p| p.done()).to_string()></progress>
                <p class="small">{line}</p>
                <p class="small muted">{move || format!("Cost so far: {}", format_usd(run.progress.with(|p| p.cost_usd)))}
                    {move || app.settings.with(|s| s.is_demo()).then_some(" (the demo model is free)")}
                    {move || (failed() > 0).then(|| format!(" · {} failed", failed()))}</p>
                {move || capped().map(|why| view! { <p class="small warn-text">{why}</p> })}
            </div>
        </Show>
    }
}

/// Why the batch could not start or stopped early (an alert), and what to
/// know about it (fewer trials than asked).
#[component]
pub fn BatchNotices<T: Clone + Send + Sync + 'static>(run: BatchRun<T>) -> impl IntoView {
    view! {
        {move || run.error.get().filter(|e| !e.is_empty()).map(|e| view! { <div class="notice error small" role="alert"><p>{e}</p></div> })}
        {move || run.note.get().map(|n| view! { <div class="notice warning small" role="status"><p>{n}</p></div> })}
    }
}
