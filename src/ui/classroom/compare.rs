//! The Compare page: two to four runs in columns (graph and transcript),
//! replayed in sync on one timeline aligned by phase, with the differences
//! called out (outcome, metrics, calls, tokens and cost per agent and per
//! phase) and where the runs first diverge. A comparison is a document: a
//! share link, JSON, a Markdown report, an SVG chart; and a lesson can be
//! written on it. The differences and divergence panels are in
//! `compare_diff`.

use super::bundle_io;
use super::compare_diff::{Differences, Divergences};
use super::player::{LessonPanel, SpeedSelect};
use super::positions::events_of;
use crate::engine::base::words::count;
use crate::engine::lesson::{Bundle, Lesson};
use crate::engine::run::{RunDoc, RunEvent};
use crate::engine::views::compare::{self, Alignment, RunFigures};
use crate::engine::views::compare_report::{self, letter, run_label};
use crate::engine::views::html::{entry_html_with, graph as graph_svg};
use crate::engine::views::{Fold, RunView};
use crate::platform::files;
use crate::ui::state::{use_app, LessonMode, LessonSession, Source};
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

#[component]
pub fn ComparePage() -> impl IntoView {
    let app = use_app();
    let count = move || app.compare.with(Vec::len);
    let lesson_here = move || super::positions::is_multi(app);
    view! {
        <main class="compare-page">
            <super::live::ClassPanel page=super::live::state::Page::Compare/>
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

/// Two to four runs: the toolbar, the synchronized timeline, the columns
/// and the differences.
#[component]
fn Comparison() -> impl IntoView {
    let app = use_app();
    let align = Memo::new(move |_| app.compare.with(|runs| compare::align(&events_of(runs))));
    let labels = Memo::new(move |_| app.compare.with(|runs| phase_labels(runs, &align.get())));
    let t = RwSignal::new(f64::MAX);
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
    let figs = Memo::new(move |_| {
        let prices = app.settings.with(|s| s.prices.clone());
        app.compare.with(|runs| {
            runs.iter()
                .map(|r| compare::figures(&r.events, &prices))
                .collect::<Vec<RunFigures>>()
        })
    });
    view! {
        <CompareHead link=link copied=copied/>
        <ShareBox link=link copied=copied/>
        <Show when=move || app.compare.with(|c| c.len() < 2)>
            <p class="notice">"One run is picked. Add another from History or a run's toolbar to compare."</p>
        </Show>
        <PromptDiff/>
        <Timeline align=align labels=labels t=t/>
        <div class="cmp-columns" style=move || format!("--cols:{}", app.compare.with(Vec::len).max(1))>
            {move || (0..app.compare.with(Vec::len)).map(|i| view! { <Column i=i/> }).collect_view()}
        </div>
        <Differences figs=figs/>
        <Divergences/>
    }
}

/// At the top, when runs of one coordinator were told different prompts:
/// each run's templates that differ from the first run's, as a line diff
/// (the editor's chunk, with the defaults, loads only then).
#[component]
fn PromptDiff() -> impl IntoView {
    let app = use_app();
    let html = RwSignal::new(String::new());
    // Each change of the runs compared starts a new diff; one still loading
    // for an earlier set is dropped.
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        let runs = app.compare.get();
        html.set(String::new());
        generation.update_value(|g| *g += 1);
        let mine = generation.get_value();
        let Some(first) = runs.first() else { return };
        let coordinator = first.config.coordinator.clone();
        let one_kind = runs.iter().all(|r| r.config.coordinator == coordinator);
        if !one_kind || runs.iter().all(|r| r.config.prompts.is_empty()) {
            return;
        }
        let told = |i: usize, r: &RunDoc| {
            let what = if r.config.prompts.is_empty() {
                "the paper's prompts"
            } else {
                "edited prompts"
            };
            (format!("{}: {what}", letter(i)), r.config.prompts.clone())
        };
        let a = told(0, first);
        let others: Vec<(String, std::collections::BTreeMap<String, String>)> = runs
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, r)| told(i, r))
            .collect();
        spawn_local(async move {
            let mut out = String::new();
            for b in others {
                if let Ok(h) = crate::ui::prompts::diff_of(coordinator.clone(), a.clone(), b).await
                {
                    out.push_str(&h);
                }
            }
            if generation.try_get_value() == Some(mine) {
                let _ = html.try_set(out);
            }
        });
    });
    view! { <div class="cmp-prompts" data-testid="prompt-diff" inner_html=move || html.get()></div> }
}

/// The comparison as a bundle, named `name` or, when that is blank, after
/// its runs ("A debate vs B panel").
fn comparison_bundle(runs: Vec<RunDoc>, name: String) -> Bundle {
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
}

/// The heading with the comparison's name and its toolbar: share, export,
/// write a lesson, clear.
#[component]
fn CompareHead(
    link: RwSignal<Option<Result<String, String>>>,
    copied: RwSignal<Option<Result<String, String>>>,
) -> impl IntoView {
    let app = use_app();
    let title = RwSignal::new(String::new());
    let bundle = move || comparison_bundle(app.compare.get_untracked(), title.get_untracked());
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
                <Show when=move || app.class.get().is_none()>
                    <button class="button small" title="Students follow this comparison on their own devices"
                        on:click=move |_| super::live::start(app)>"Start a live class"</button>
                </Show>
                <button class="button small danger" on:click=move |_| { app.lesson.set(None); app.compare.set(Vec::new()); }>"Clear"</button>
            </div>
        </div>
    }
}

/// The share link once made, with Copy link; or what went wrong sharing or
/// exporting.
#[component]
fn ShareBox(
    link: RwSignal<Option<Result<String, String>>>,
    copied: RwSignal<Option<Result<String, String>>>,
) -> impl IntoView {
    view! {
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
    }
}

/// The synchronized replay: play and pause, step by phase, speed, where it
/// is, the slider and the phases to jump to.
#[component]
fn Timeline(align: Memo<Alignment>, labels: Memo<Vec<String>>, t: RwSignal<f64>) -> impl IntoView {
    let app = use_app();
    let playing = RwSignal::new(false);
    let phases = move || align.with(|a| a.phases.len());
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
    view! {
        <div class="cmp-timeline panel" aria-label="Synchronized replay">
            <div class="cmp-controls">
                <button class="button small" aria-label=move || if playing.get() { "Pause" } else { "Play" }
                    on:click=move |_| if playing.get_untracked() { playing.set(false) } else { play() }>
                    {move || if playing.get() { "⏸ Pause" } else { "▶ Play" }}
                </button>
                <button class="button small" on:click=move |_| { playing.set(false); let v = t.get_untracked().min(phases() as f64); set_t((v - 1.0).floor().max(0.0)); }>"◀ Phase"</button>
                <button class="button small" on:click=move |_| { playing.set(false); let v = t.get_untracked(); set_t(v.floor() + 1.0); }>"Phase ▶"</button>
                <SpeedSelect label="Speed " aria="Playback speed">
                    <option value="0.5">"0.5×"</option><option value="1">"1×"</option><option value="2">"2×"</option><option value="4">"4×"</option>
                </SpeedSelect>
                <TimelineHere labels=labels t=t phases=phases/>
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
    }
}

/// Where the timeline is, in words (a phase and how far into it, the end,
/// or each run pinned at its own point).
#[component]
fn TimelineHere(
    labels: Memo<Vec<String>>,
    t: RwSignal<f64>,
    phases: impl Fn() -> usize + Copy + Send + Sync + 'static,
) -> impl IntoView {
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
    view! { <span class="cmp-here" aria-live="polite">{here}</span> }
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
        let marks = graph_svg::marks(&v.graph);
        let html: String = all[from..]
            .iter()
            .map(|e| entry_html_with(e, &v.transcript, &marks))
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
                {move || view_at.with(|v| format!(" · {}", count(v.2, "call")))}</p>
            <div class="cmp-actions">
                <button class="button small" on:click=open>"Open"</button>
                <button class="button small" on:click=remove aria-label=move || format!("Remove run {}", letter(i))>"Remove"</button>
            </div>
            <div class="graph-box cmp-graph" inner_html=graph></div>
            <div class="cmp-transcript transcript" tabindex="0" aria-label=move || format!("Latest messages of run {}", letter(i)) inner_html=entries></div>
        </section>
    }
}
