//! Tokens and cost per agent, phase and model. Estimated usage (the
//! provider reported none) is marked with ≈. The panel's figures and
//! table load with the run views; before a run it says what will show.

use super::lazy::{lazy_view_or_note, lazy_views};
use super::state::use_app;
use crate::engine::views::html::usage::{cost_text, token_text};
use crate::engine::views::html::usage_rows;
use crate::engine::views::usage::{Tally, UsageView};
use leptos::prelude::*;

#[derive(Clone, Copy, PartialEq, Eq)]
enum By {
    Agent,
    Phase,
    Model,
}

fn rows(u: &UsageView, by: By, names: &dyn Fn(&str) -> String) -> Vec<(String, Tally)> {
    match by {
        By::Agent => u
            .by_agent
            .iter()
            .map(|(k, t)| (names(k), t.clone()))
            .collect(),
        By::Phase => u
            .by_phase
            .iter()
            .map(|(k, t)| (u.phase_label(k).to_string(), t.clone()))
            .collect(),
        By::Model => u.by_model.clone(),
    }
}

lazy_views! { run_view: usage_view => UsageBox }

/// The panel: its title and empty state; the figures once a run is shown.
#[component]
pub fn UsagePanel() -> impl IntoView {
    let app = use_app();
    let empty = move || app.events.with(Vec::is_empty);
    view! {
        <div class="panel usage-panel" aria-label="Usage and cost">
            <h2 class="panel-title">"Usage & cost"</h2>
            {lazy_view_or_note(move || !empty(), "Calls, tokens and cost appear here when a run starts.", "the usage figures", usage_view)}
        </div>
    }
}

#[component]
fn UsageBox() -> impl IntoView {
    let app = use_app();
    let by = RwSignal::new(By::Agent);
    let summary = move || {
        let prices = app.settings.with(|s| s.prices.clone());
        app.view.with(|v| {
            let t = &v.usage.total;
            let (cost, hint) = cost_text(t, &prices);
            let (input, output) = token_text(t);
            (
                t.calls,
                input,
                output,
                cost,
                hint,
                t.is_estimated(),
                t.replayed_calls,
            )
        })
    };
    let table = move || {
        let prices = app.settings.with(|s| s.prices.clone());
        app.view.with(|v| {
            usage_rows(
                &rows(&v.usage, by.get(), &|id| {
                    v.transcript.name_of(id).to_string()
                }),
                &prices,
            )
        })
    };
    let seg = move |b: By, label: &'static str| {
        view! {
            <button class="seg" aria-pressed=move || if by.get() == b { "true" } else { "false" } on:click=move |_| by.set(b)>{label}</button>
        }
    };
    let notes = move || {
        let (.., estimated, replayed) = summary();
        let (queued, waited_ms) = app.view.with(|v| v.usage.queued);
        let mut s = String::new();
        if queued > 0 {
            s.push_str(&format!(
                "{queued} call{} waited {:.1} s in all for a free slot (not counted in the calls' times). ",
                if queued == 1 { "" } else { "s" },
                waited_ms as f64 / 1000.0
            ));
        }
        if estimated {
            s.push_str("≈ estimated: the model reported no token usage. ");
        }
        if replayed > 0 {
            s.push_str(&format!(
                "{replayed} call{} answered from the parent run's log, at no cost.",
                if replayed == 1 { "" } else { "s" }
            ));
        }
        s
    };
    view! {
            <dl class="stats" data-testid="usage-summary">
                <div><dt>"Calls"</dt><dd>{move || summary().0}</dd></div>
                <div><dt>"Input"</dt><dd data-testid="usage-input">{move || summary().1}</dd></div>
                <div><dt>"Output"</dt><dd data-testid="usage-output">{move || summary().2}</dd></div>
                <div><dt>"Cost"</dt><dd title=move || summary().4>{move || summary().3}</dd></div>
            </dl>
            <p class="muted small usage-notes">{notes}</p>
            <div class="segmented" role="group" aria-label="Group usage by">
                {seg(By::Agent, "Agent")}
                {seg(By::Phase, "Phase")}
                {seg(By::Model, "Model")}
            </div>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Usage by agent">
                <table class="usage-table">
                    <thead><tr><th scope="col"></th><th scope="col">"Calls"</th><th scope="col">"In"</th><th scope="col">"Out"</th><th scope="col">"Cost"</th></tr></thead>
                    <tbody inner_html=table></tbody>
                </table>
            </div>
    }
}
