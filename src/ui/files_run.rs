//! The Files tab's "Run main.py": the workspace as of the cursor run as
//! SRDD's metric runs it (`python3 main.py` in the folder of the last
//! Python file, stopped after 3 s), in the page's Pyodide worker
//! (`platform::project`), and what it printed. Output is shown as text.

use crate::engine::domains::srdd::project::Project;
use crate::engine::domains::srdd::run::{Files, ProjectRunner, Ran};
use crate::engine::domains::srdd::RUN_SECONDS;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// One press of Run: what ran, and how it went.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Running,
    Done {
        ran: Result<Ran, String>,
        runner: String,
        folder: String,
        seconds: f64,
        /// Of `seconds`, Python's start (a new worker).
        start: Option<f64>,
    },
}

/// What Run takes: the files and the run folder, or why there is nothing
/// to run.
pub fn runnable(files: &Files) -> Result<String, &'static str> {
    let project = Project {
        files: files
            .iter()
            .map(|(p, t)| crate::engine::domains::srdd::project::File::new(p, t))
            .collect(),
    };
    project
        .run_folder()
        .map(str::to_string)
        .ok_or("There is no Python file to run")
}

/// The Run button; its outcome goes to `outcome` (shown by [`RunOutput`]).
#[component]
pub fn RunButton(files: Memo<Files>, outcome: RwSignal<Option<Outcome>>) -> impl IntoView {
    let target = Memo::new(move |_| files.with(runnable));
    let busy = move || matches!(outcome.get(), Some(Outcome::Running));
    // An output is of the files it ran: another run, a write or a moved
    // cursor clears it (and a run still going then is not shown).
    Effect::new(move |_| {
        files.track();
        outcome.set(None);
    });
    let run = move |_| {
        let Ok(folder) = target.get_untracked() else {
            return;
        };
        let files_now = files;
        let files = files.get_untracked();
        outcome.set(Some(Outcome::Running));
        spawn_local(async move {
            let runner = crate::platform::project::projects();
            let clock = crate::platform::clock::BrowserClock;
            use crate::engine::base::clock::Clock;
            let started = clock.now_ms();
            let ran = runner.run(files.clone(), folder.clone()).await;
            // The tab may be gone (another tab, another run) by now.
            if files_now.try_get_untracked().as_ref() != Some(&files) {
                return;
            }
            outcome.try_set(Some(Outcome::Done {
                ran,
                runner: runner.name(),
                folder,
                seconds: (clock.now_ms() - started) / 1000.0,
                start: runner.start_seconds(),
            }));
        });
    };
    let title = move || {
        match target.get() {
        Ok(folder) if folder.is_empty() => {
            format!("python3 main.py at the top, stopped after {RUN_SECONDS} s, as SRDD's metric runs it")
        }
        Ok(folder) => format!(
            "python3 main.py in {folder}/ (the last Python file's folder), stopped after {RUN_SECONDS} s, as SRDD's metric runs it"
        ),
        Err(why) => why.to_string(),
    }
    };
    view! {
        <button type="button" class="button small" on:click=run
            disabled=move || busy() || target.with(Result::is_err) title=title>
            {move || if busy() { "Running…" } else { "Run main.py" }}
        </button>
    }
}

/// The last run's output, once Run has been pressed.
#[component]
pub fn RunOutput(outcome: RwSignal<Option<Outcome>>) -> impl IntoView {
    move || outcome.get().map(|o| output(o, outcome))
}

fn output(outcome: Outcome, slot: RwSignal<Option<Outcome>>) -> impl IntoView {
    let close = (!matches!(outcome, Outcome::Running)).then(|| {
        view! {
            <button type="button" class="button small run-close" aria-label="Close the output"
                title="Close the output" on:click=move |_| slot.set(None)>"×"</button>
        }
    });
    let body = match outcome {
        Outcome::Running => view! {
            <p class="muted small" role="status">{format!(
                "Running main.py (up to {RUN_SECONDS} s; the first run loads Python, about 13 MB)…"
            )}</p>
        }
        .into_any(),
        Outcome::Done { ran: Err(e), .. } => view! {
            <p class="error small" role="alert">{format!("Could not run the project: {e}. Try again; if it persists, reload the page.")}</p>
        }
        .into_any(),
        Outcome::Done { ran: Ok(ran), runner, folder, seconds, start } => {
            let took = match start {
                Some(s) => format!("{:.1} s, Python's start {s:.1} s of it", seconds),
                None => format!("{seconds:.1} s"),
            };
            let place = if folder.is_empty() { String::new() } else { format!(" in {folder}/") };
            let ok = ran.executability() == 1.0;
            let stream = |name: &'static str, text: String| {
                (!text.is_empty()).then(|| view! {
                    <div class="run-stream">
                        <h4 class="small">{name}</h4>
                        <pre class=format!("run-{name}")>{text}</pre>
                    </div>
                })
            };
            let silent = ran.stdout.is_empty() && ran.stderr.is_empty();
            view! {
                <p class="small run-head">
                    <span class=if ok { "badge ok" } else { "badge bad" }>{ran.verdict()}</span>
                    <span class="muted">{format!(" main.py{place} · {runner} · {took}")}</span>
                </p>
                <ul class="run-notes small">
                    {ran.notes().into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                </ul>
                {stream("stdout", ran.stdout)}
                {stream("stderr", ran.stderr)}
                {silent.then(|| view! { <p class="muted small">"It printed nothing."</p> })}
            }
            .into_any()
        }
    };
    view! { <section class="files-run" aria-label="Run output" aria-live="polite">{close}{body}</section> }
}
