//! The Compare page: two to four runs in columns (graph and transcript),
//! replayed in sync on one timeline aligned by phase, with the differences
//! called out (outcome, metrics, calls, tokens and cost per agent and per
//! phase) and where the runs first diverge. A comparison is a document: a
//! share link, JSON, a Markdown report, an SVG chart; and a lesson can be
//! written on it.

use super::bundle_io;
use super::player::LessonPanel;
use crate::engine::lesson::{Bundle, Lesson};
use crate::engine::run::{LoggedEvent, RunDoc, RunEvent};
use crate::engine::views::compare::{self, Alignment, RunFigures};
use crate::engine::views::compare_report::{
    self, fmt_value, letter, metric, metric_names, run_label,
};
use crate::engine::views::html::{entry_html, graph as graph_svg};
use crate::engine::views::usage::Tally;
use crate::engine::views::{Fold, RunView};
use crate::platform::files;
use crate::ui::state::{use_app, AppState, LessonMode, LessonSession, Source};
use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// Slider steps per aligned phase.
const STEPS: f64 = 100.0;
/// Transcript entries a column shows (the latest at the cursor).
const ENTRIES: usize = 6;

/// The label each aligned phase had when it started (the first run that has it).
fn phase_labels(runs: &[RunDoc], align: &Alignment) -> Vec<String> {
    align
        .phases
        .iter()
        .map(|id| {
            runs.iter()
                .flat_map(|r| r.events.iter())
                .find_map(|e| match &e.event {
                    RunEvent::PhaseStarted { phase, label } if phase == id && !label.is_empty() => {
                        Some(label.clone())
                    }
                    _ => None,
                })
                .unwrap_or_else(|| {
                    if id == "start" {
                        "Setup".into()
                    } else {
                        id.clone()
                    }
                })
        })
        .collect()
}

/// Every run at timeline position `t` (phases and a fraction; the end shows all).
fn positions_at(align: &Alignment, runs: &[RunDoc], t: f64) -> Vec<usize> {
    let phases = align.phases.len();
    if t >= phases as f64 {
        return runs.iter().map(|r| r.events.len()).collect();
    }
    let phase = t.floor().max(0.0) as usize;
    align.cursor(phase, t - phase as f64)
}

fn events_of(runs: &[RunDoc]) -> Vec<&[LoggedEvent]> {
    runs.iter().map(|r| &r.events[..]).collect()
}

#[component]
pub fn ComparePage() -> impl IntoView {
    let app = use_app();
    let count = move || app.compare.with(Vec::len);
    let lesson_here = move || {
        app.lesson
            .with(|l| l.as_ref().is_some_and(|l| l.bundle.runs.len() > 1))
    };
    view! {
        <main class="compare-page">
            <Show when=lesson_here>
                <LessonPanel/>
            </Show>
            {move || match count() {
                0 => view! {
                    <div class="empty compare-empty">
                        <h1>"Compare runs"</h1>
                        <p class="muted">"See two to four runs side by side: their agent graphs and transcripts replayed in step, phase by phase, with the differences in outcome, metrics, calls, tokens and cost, and the first call where they part ways."</p>
                        <ul class="muted">
                            <li>"In History, press Compare on the runs you want."</li>
                            <li>"On a run's toolbar, press Add to comparison (this works for shared links and batch runs too)."</li>
                            <li>"On a run's toolbar, press Run a variant to run the same task another way: the two open here when it ends."</li>
                        </ul>
                        <p><a class="button" href="/history">"Go to History"</a></p>
                    </div>
                }.into_any(),
                _ => view! { <Comparison/> }.into_any(),
            }}
        </main>
    }
}

#[component]
fn Comparison() -> impl IntoView {
    let app = use_app();
    let align = Memo::new(move |_| app.compare.with(|runs| compare::align(&events_of(runs))));
    let labels = Memo::new(move |_| app.compare.with(|runs| phase_labels(runs, &align.get())));
    let t = RwSignal::new(f64::MAX);
    let playing = RwSignal::new(false);
    let title = RwSignal::new(String::new());
    let link = RwSignal::new(None::<Result<String, String>>);
    let copied = RwSignal::new(None::<Result<String, String>>);
    // Keep one position per run (runs added or removed: show them whole).
    Effect::new(move |_| {
        let lens: Vec<usize> = app
            .compare
            .with(|r| r.iter().map(|d| d.events.len()).collect());
        if app.compare_pos.with_untracked(|p| p.len()) != lens.len() {
            app.compare_pos.set(lens);
            t.set(f64::MAX);
        }
        link.set(None);
    });
    let phases = move || align.with(|a| a.phases.len());
    // Positions set from elsewhere (a lesson step, "Show both there") that
    // are not a point of the timeline: the timeline says so.
    Effect::new(move |_| {
        let pos = app.compare_pos.get();
        let v = t.get_untracked();
        if v < 0.0 {
            return;
        }
        let here = app
            .compare
            .with_untracked(|runs| positions_at(&align.get_untracked(), runs, v));
        if here != pos {
            t.set(-1.0);
        }
    });
    let set_t = move |v: f64| {
        let v = v.clamp(0.0, phases() as f64);
        t.set(v);
        let pos = app
            .compare
            .with_untracked(|runs| positions_at(&align.get_untracked(), runs, v));
        app.compare_pos.set(pos);
    };
    let play = move || {
        if playing.get_untracked() {
            return;
        }
        if t.get_untracked() >= phases() as f64 {
            set_t(0.0);
        }
        playing.set(true);
        spawn_local(async move {
            loop {
                TimeoutFuture::new(40).await;
                // Paused, or the page is gone.
                if playing.try_get_untracked() != Some(true) {
                    break;
                }
                let Some(now) = t.try_get_untracked() else {
                    break;
                };
                let next = now + 0.016 * app.speed.get_untracked();
                set_t(next);
                if next >= phases() as f64 {
                    playing.set(false);
                    break;
                }
            }
        });
    };
    let slider_value = move || {
        let v = t.get().clamp(0.0, phases() as f64);
        format!("{:.0}", v * STEPS)
    };
    let here = move || {
        let v = t.get();
        let n = phases();
        if v < 0.0 {
            "Each run at its own point (pinned)".to_string()
        } else if v >= n as f64 {
            "End of every run".to_string()
        } else {
            let i = v.floor() as usize;
            let name = labels.with(|l| l.get(i).cloned().unwrap_or_default());
            format!(
                "Phase {} of {n}: {name} ({:.0}%)",
                i + 1,
                (v - i as f64) * 100.0
            )
        }
    };
    let figs = Memo::new(move |_| {
        let prices = app.settings.with(|s| s.prices.clone());
        app.compare.with(|runs| {
            runs.iter()
                .map(|r| compare::figures(&r.events, &prices))
                .collect::<Vec<RunFigures>>()
        })
    });
    let bundle = move || {
        let runs = app.compare.get_untracked();
        let name = title.get_untracked();
        let name = if name.trim().is_empty() {
            runs.iter()
                .enumerate()
                .map(|(i, r)| {
                    format!(
                        "{} {}",
                        letter(i),
                        r.config
                            .variant
                            .clone()
                            .unwrap_or_else(|| r.config.coordinator.clone())
                    )
                })
                .collect::<Vec<_>>()
                .join(" vs ")
        } else {
            name
        };
        Bundle::comparison(&name, runs)
    };
    let share = move |_| {
        copied.set(None);
        let b = bundle();
        spawn_local(async move {
            let made = if b.runs.len() < 2 {
                Err("Add a second run first: a comparison needs two to four.".into())
            } else {
                bundle_io::link(&b).await
            };
            let _ = link.try_set(Some(made));
        });
    };
    let export = move |what: &'static str| {
        let b = bundle();
        let prices = app.settings.get_untracked().prices;
        let stem = bundle_io::file_stem(&b.title, "roundtable-comparison");
        let r = match what {
            "json" => bundle_io::download(&b),
            "md" => files::download_text(
                &format!("{stem}.md"),
                "text/markdown",
                &compare_report::markdown(&b.title, &b.runs, &prices),
            ),
            _ => files::download_text(
                &format!("{stem}.svg"),
                "image/svg+xml",
                &compare_report::metric_svg(&b.runs, &prices, true),
            ),
        };
        if let Err(e) = r {
            link.set(Some(Err(e)));
        }
    };
    let write_lesson = move |_| {
        let b = bundle();
        let lesson = Lesson {
            id: String::new(),
            title: format!("Lesson: {}", b.title),
            summary: String::new(),
            steps: Vec::new(),
        };
        app.lesson.set(Some(LessonSession::new(
            Bundle::lesson(b.runs, lesson),
            LessonMode::Edit,
            None,
        )));
    };
    let in_lesson = move || app.lesson.with(|l| l.is_some());
    view! {
        <div class="compare-head">
            <h1>"Compare runs"</h1>
            <input class="compare-title" type="text" placeholder="Name this comparison (optional)" aria-label="Comparison name"
                prop:value=move || title.get() on:input=move |ev| title.set(event_target_value(&ev))/>
            <div class="toolbar-actions">
                <button class="button small" on:click=share>"Share link"</button>
                <button class="button small" on:click=move |_| export("json")>"Export JSON"</button>
                <button class="button small" on:click=move |_| export("md")>"Markdown report"</button>
                <button class="button small" on:click=move |_| export("svg")>"Chart (.svg)"</button>
                <Show when=move || !in_lesson()>
                    <button class="button small primary" on:click=write_lesson>"Write a lesson on this"</button>
                </Show>
                <button class="button small danger" on:click=move |_| { app.lesson.set(None); app.compare.set(Vec::new()); }>"Clear"</button>
            </div>
        </div>
        {move || link.get().map(|l| match l {
            Ok(url) => {
                let u = url.clone();
                view! {
                    <div class="notice share-box">
                        <p class="small">"Anyone with this link sees the same comparison, with no key and no account (it never holds an API key)."</p>
                        <div class="input-with-button">
                            <input class="share-url" aria-label="Comparison link" readonly prop:value=url.clone()/>
                            <button class="button primary" on:click=move |_| { let u = u.clone(); spawn_local(async move { let _ = copied.try_set(Some(bundle_io::copy(&u).await)); }); }>"Copy link"</button>
                        </div>
                        <p class="muted small">{format!("{} characters", url.len())}</p>
                        {move || copied.get().map(|r| match r { Ok(m) => view! { <p class="ok" role="status">{m}</p> }.into_any(), Err(m) => view! { <p class="bad" role="status">{m}</p> }.into_any() })}
                    </div>
                }.into_any()
            }
            Err(e) => view! { <div class="notice error compare-error" role="alert"><p>{e}</p></div> }.into_any(),
        })}
        <Show when=move || app.compare.with(|c| c.len() < 2)>
            <p class="notice">"One run is picked. Add another from History or a run's toolbar to compare."</p>
        </Show>
        <div class="cmp-timeline panel" aria-label="Synchronized replay">
            <div class="cmp-controls">
                <button class="button small" aria-label=move || if playing.get() { "Pause" } else { "Play" }
                    on:click=move |_| if playing.get_untracked() { playing.set(false) } else { play() }>
                    {move || if playing.get() { "⏸ Pause" } else { "▶ Play" }}
                </button>
                <button class="button small" on:click=move |_| { playing.set(false); let v = t.get_untracked().min(phases() as f64); set_t((v - 1.0).floor().max(0.0)); }>"◀ Phase"</button>
                <button class="button small" on:click=move |_| { playing.set(false); let v = t.get_untracked(); set_t(v.floor() + 1.0); }>"Phase ▶"</button>
                <label class="small">"Speed "
                    <select aria-label="Playback speed" prop:value=move || app.speed.get().to_string()
                        on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f64>() { app.speed.set(v) } }>
                        <option value="0.5">"0.5×"</option><option value="1">"1×"</option><option value="2">"2×"</option><option value="4">"4×"</option>
                    </select>
                </label>
                <span class="cmp-here" aria-live="polite">{here}</span>
            </div>
            <input type="range" class="cmp-slider" min="0" max=move || (phases() as f64 * STEPS).to_string() step="1"
                aria-label="Position on the aligned timeline" prop:value=slider_value
                on:input=move |ev| { playing.set(false); if let Ok(v) = event_target_value(&ev).parse::<f64>() { set_t(v / STEPS) } }/>
            <ol class="cmp-phases">
                {move || labels.get().into_iter().enumerate().map(|(i, l)| {
                    let active = move || { let v = t.get(); v.floor() as usize == i && v < phases() as f64 };
                    view! { <li><button class="chip" class:active=active on:click=move |_| { playing.set(false); set_t(i as f64); }>{format!("{}. {l}", i + 1)}</button></li> }
                }).collect_view()}
            </ol>
        </div>
        <div class="cmp-columns" style=move || format!("--cols:{}", app.compare.with(Vec::len).max(1))>
            {move || (0..app.compare.with(Vec::len)).map(|i| view! { <Column i=i/> }).collect_view()}
        </div>
        <Differences figs=figs/>
        <Divergences/>
    }
}

/// One run's column: its name and outcome, graph and latest transcript
/// entries at its position.
#[component]
fn Column(i: usize) -> impl IntoView {
    let app = use_app();
    // (graph SVG, latest entries' HTML, calls) at the column's position.
    let view_at = Memo::new(move |_| {
        let k = app
            .compare_pos
            .with(|p| p.get(i).copied().unwrap_or(usize::MAX));
        let v = app.compare.with(|runs| {
            runs.get(i)
                .map(|r| RunView::of(&r.events[..k.min(r.events.len())]))
                .unwrap_or_default()
        });
        let all = &v.transcript.entries;
        let from = all.len().saturating_sub(ENTRIES);
        let html: String = all[from..]
            .iter()
            .map(|e| entry_html(e, &v.transcript))
            .collect();
        (
            graph_svg::render_with(&v.graph, false, None),
            html,
            v.status.llm_calls,
        )
    });
    let label = move || {
        app.compare
            .with(|r| r.get(i).map(|r| run_label(&r.config)).unwrap_or_default())
    };
    let total = move || {
        app.compare
            .with(|r| r.get(i).map(|r| r.events.len()).unwrap_or(0))
    };
    let pos = move || {
        app.compare_pos
            .with(|p| p.get(i).copied().unwrap_or(0))
            .min(total())
    };
    let graph = move || view_at.with(|v| v.0.clone());
    let entries = move || view_at.with(|v| v.1.clone());
    let open = move |_| {
        if let Some(doc) = app.compare.with_untracked(|r| r.get(i).cloned()) {
            if app.show_doc(doc, Source::History, true) {
                app.goto.set(Some("/".into()));
            }
        }
    };
    let remove = move |_| {
        app.compare.update(|r| {
            if i < r.len() {
                r.remove(i);
            }
        });
    };
    view! {
        <section class="cmp-col panel" aria-label=move || format!("Run {}", letter(i))>
            <header class="cmp-col-head">
                <span class=format!("cmp-letter cmp-series-{i}")>{letter(i).to_string()}</span>
                <span class="cmp-label" title=label>{label}</span>
            </header>
            <p class="small muted">{move || format!("{} of {} events", pos(), total())}
                {move || view_at.with(|v| format!(" · {} calls", v.2))}</p>
            <div class="cmp-actions">
                <button class="button small" on:click=open>"Open"</button>
                <button class="button small" on:click=remove aria-label=move || format!("Remove run {}", letter(i))>"Remove"</button>
            </div>
            <div class="graph-box cmp-graph" inner_html=graph></div>
            <div class="cmp-transcript transcript" tabindex="0" aria-label=move || format!("Latest messages of run {}", letter(i)) inner_html=entries></div>
        </section>
    }
}

fn tally_cell(t: &Option<Tally>) -> String {
    match t {
        Some(t) => format!("{} / {}", t.calls, t.input_tokens + t.output_tokens),
        None => "—".into(),
    }
}

/// Outcome, metrics, usage; per agent and per phase.
#[component]
fn Differences(figs: Memo<Vec<RunFigures>>) -> impl IntoView {
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
        figs.with(|f| {
            let cells: Vec<String> = f.iter().map(cell).collect();
            let differs = cells.windows(2).any(|w| w[0] != w[1]);
            view! {
                <tr class:differs=differs>
                    <th scope="row">{name}</th>
                    {cells.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}
                </tr>
            }
        })
    };
    let keyed = move |agents: bool| {
        figs.with(|f| {
            let refs: Vec<&RunFigures> = f.iter().collect();
            compare::by_key(&refs, agents)
                .into_iter()
                .map(|(k, tallies)| {
                    let cells: Vec<String> = tallies.iter().map(tally_cell).collect();
                    let differs = cells.windows(2).any(|w| w[0] != w[1]);
                    view! {
                        <tr class:differs=differs>
                            <th scope="row">{k}</th>
                            {cells.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}
                        </tr>
                    }
                })
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
fn Divergences() -> impl IntoView {
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

/// For the lesson player: put the comparison at run `run`'s event `at`,
/// the other runs at the same point of the same phase.
pub fn pin(app: AppState, run: usize, at: usize) {
    let pos = app.compare.with_untracked(|runs| {
        let align = compare::align(&events_of(runs));
        let Some(spans) = align.spans.get(run) else {
            return runs.iter().map(|r| r.events.len()).collect();
        };
        let found = spans.iter().enumerate().find_map(|(p, s)| {
            let s = s.as_ref()?;
            (at >= s.start && at < s.end.max(s.start + 1)).then(|| {
                let f = (at - s.start) as f64 / (s.end - s.start).max(1) as f64;
                (p, f)
            })
        });
        let mut pos = match found {
            Some((p, f)) => align.cursor(p, f),
            None => runs.iter().map(|r| r.events.len()).collect(),
        };
        if let Some(x) = pos.get_mut(run) {
            *x = at;
        }
        pos
    });
    app.compare_pos.set(pos);
}
