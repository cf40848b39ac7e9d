//! The Compare page's two panels below the columns: the differences
//! (outcome, metrics, calls, tokens, cost and replies repaired, per agent
//! and per phase, with a chart) and where each run first diverges from
//! run A.

use crate::engine::views::compare::{self, RunFigures};
use crate::engine::views::compare_report::{self, fmt_value, letter, metric, metric_names};
use crate::engine::views::repairs::RepairCount;
use crate::engine::views::usage::Tally;
use crate::ui::state::use_app;
use leptos::prelude::*;

/// A row of the differences: its name and a cell per run, marked when the
/// runs' cells differ.
fn diff_row(name: impl IntoView + 'static, cells: Vec<String>) -> impl IntoView {
    let differs = cells.windows(2).any(|w| w[0] != w[1]);
    view! {
        <tr class:differs=differs>
            <th scope="row">{name}</th>
            {cells.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}
        </tr>
    }
}

/// A per-agent or per-phase cell: calls / tokens, or a dash when a run has none.
fn tally_cell(t: &Option<Tally>) -> String {
    match t {
        Some(t) => format!("{} / {}", t.calls, t.input_tokens + t.output_tokens),
        None => "—".into(),
    }
}

/// Outcome, metrics, usage; per agent and per phase.
#[component]
pub fn Differences(figs: Memo<Vec<RunFigures>>) -> impl IntoView {
    let app = use_app();
    let heads = move || {
        (0..figs.with(Vec::len))
            .map(|i| view! { <th scope="col">{letter(i).to_string()}</th> })
            .collect_view()
    };
    let metrics = move || {
        figs.with(|f| {
            metric_names(f)
                .into_iter()
                .map(|n| {
                    let vals: Vec<Option<f64>> = f.iter().map(|x| metric(x, &n)).collect();
                    let differs = vals.windows(2).any(|w| w[0] != w[1]);
                    view! {
                        <tr class:differs=differs>
                            <th scope="row">{n.clone()}</th>
                            {vals.iter().map(|v| view! { <td>{v.map(fmt_value).unwrap_or("—".into())}</td> }).collect_view()}
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    let row = move |name: &'static str, cell: fn(&RunFigures) -> String| {
        figs.with(|f| diff_row(name, f.iter().map(cell).collect()))
    };
    let keyed = move |agents: bool| {
        figs.with(|f| {
            let refs: Vec<&RunFigures> = f.iter().collect();
            compare::by_key(&refs, agents)
                .into_iter()
                .map(|(k, tallies)| diff_row(k, tallies.iter().map(tally_cell).collect()))
                .collect_view()
        })
    };
    let chart = move || {
        let prices = app.settings.with(|s| s.prices.clone());
        app.compare
            .with(|r| compare_report::metric_svg(r, &prices, false))
    };
    view! {
        <section class="panel cmp-diff" aria-labelledby="cmp-diff-title">
            <h2 class="panel-title" id="cmp-diff-title">"Differences"</h2>
            <p class="muted small">"Rows where the runs differ are marked. Calls / tokens per agent and per phase."</p>
            <div class="cmp-chart" inner_html=chart></div>
            <div class="table-scroll" tabindex="0" aria-label="Differences table">
            <table class="cmp-table">
                <thead><tr><th scope="col">""</th>{heads}</tr></thead>
                <tbody>
                    {move || row("outcome", |f| f.outcome.clone())}
                    {metrics}
                    {move || row("model calls", |f| f.usage.total.calls.to_string())}
                    {move || row("tokens (in + out)", |f| (f.usage.total.input_tokens + f.usage.total.output_tokens).to_string())}
                    {move || row("cost (USD)", |f| if f.cost_partial { format!("≥ {:.4}", f.cost_usd) } else { format!("{:.4}", f.cost_usd) })}
                    {move || row("replies repaired", |f| RepairCount::label_of(f.repairs))}
                </tbody>
                <tbody class="cmp-group"><tr><th scope="rowgroup" colspan="5">"Per agent"</th></tr>{move || keyed(true)}</tbody>
                <tbody class="cmp-group"><tr><th scope="rowgroup" colspan="5">"Per phase"</th></tr>{move || keyed(false)}</tbody>
            </table>
            </div>
        </section>
    }
}

/// Where each run first parts from run A, with a button that shows both there.
#[component]
pub fn Divergences() -> impl IntoView {
    let app = use_app();
    let list = Memo::new(move |_| {
        app.compare.with(|runs| {
            (1..runs.len())
                .map(|i| {
                    (
                        i,
                        compare::first_divergence(&runs[0].events, &runs[i].events),
                    )
                })
                .collect::<Vec<_>>()
        })
    });
    let show = move |i: usize, at: [Option<usize>; 2]| {
        app.compare_pos.update(|p| {
            if let (Some(a), Some(x)) = (at[0], p.get_mut(0)) {
                *x = a;
            }
            if let (Some(b), Some(x)) = (at[1], p.get_mut(i)) {
                *x = b;
            }
        });
    };
    view! {
        <section class="panel cmp-divergence" aria-labelledby="cmp-div-title">
            <h2 class="panel-title" id="cmp-div-title">"Where the runs first diverge"</h2>
            <ul>
                {move || list.get().into_iter().map(|(i, d)| match d {
                    Some(d) => {
                        let at = d.at;
                        view! {
                            <li class="divergence">
                                <strong>{format!("A vs {}: model call {} ({})", letter(i), d.call + 1, d.what)}</strong>
                                <span>{format!(" — {}", d.detail)}</span>
                                " "
                                <button class="button small" on:click=move |_| show(i, at)>"Show both there"</button>
                            </li>
                        }.into_any()
                    }
                    None => view! { <li>{format!("A vs {}: the same calls with the same answers.", letter(i))}</li> }.into_any(),
                }).collect_view()}
            </ul>
        </section>
    }
}
