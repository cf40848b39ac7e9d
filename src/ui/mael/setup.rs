//! MAEL's setup in the left panel: the task set (built-in or imported
//! JSONL) and task, the mode (none / task / step), whether the run learns
//! and into which pool, the team (a preset, or the editor), and the
//! retrieval's settings (α, k, Table 4's variants, rounds, depth, where
//! sub-solution rewards come from, the embedder).

use super::state::{
    mael_setup, MaelSetup, BUILTIN_TEST, BUILTIN_TRAIN, SOFTWARE_TEST, SOFTWARE_TRAIN,
};
use super::team_editor::TeamEditorDialog;
use crate::engine::coordinators::mael::contract::{MaelOptions, Mode, Polarity, RewardSource};
use crate::engine::coordinators::mael::topology::{Preset, Team};
use crate::engine::domains::tasks::builtin::{self, Split};
use crate::engine::domains::tasks::{srdd_builtin, Dataset, Task};
use crate::engine::views::sampling::TemperatureSource;
use crate::platform::{experience_store, files, task_sets};
use crate::ui::sampling_note::SamplingNote;
use crate::ui::shown_setup::{self, ShownSetupBanner};
use crate::ui::state::{use_app, AppState};
use crate::ui::widgets::{parsed, Toggle};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// Reloads what this browser keeps: the pools and the imported task sets.
pub fn refresh_stored() {
    spawn_local(async move {
        let pools = experience_store::list().await.unwrap_or_default();
        let imported = task_sets::list().await;
        mael_setup().update(|s| {
            s.pools = pools;
            s.imported = imported;
        });
    });
}

/// The tasks of set `name` (built-in or imported).
pub async fn tasks_of(name: &str) -> Result<Vec<Task>, String> {
    match name {
        BUILTIN_TEST => Ok(builtin::tasks(Split::Test)),
        BUILTIN_TRAIN => Ok(builtin::tasks(Split::Train)),
        SOFTWARE_TEST => Ok(srdd_builtin(Some(Split::Test))),
        SOFTWARE_TRAIN => Ok(srdd_builtin(Some(Split::Train))),
        _ => task_sets::load(name).await,
    }
}

/// Makes `name` the task set of the Run page.
pub fn load_set(app: AppState, name: String) {
    spawn_local(async move {
        match tasks_of(&name).await {
            Ok(tasks) => mael_setup().update(|s| {
                s.tasks = tasks;
                s.selected = 0;
                s.set = name;
            }),
            Err(e) => app.warn(e, false),
        }
    });
}

/// Checks and keeps imported JSONL files as one task set of `dataset`
/// (several files are read as one: MMLU's questions with its dev file for
/// 5-shot prompts); a file that does not parse is refused with the line at
/// fault, and nothing is stored. Returns the set's name.
pub async fn import_tasks(picked: Vec<web_sys::File>, dataset: Dataset) -> Result<String, String> {
    let mut names = Vec::new();
    let mut text = String::new();
    for file in &picked {
        let name = file.name();
        let t = files::read_text(file)
            .await
            .map_err(|e| format!("Could not read {name}: {e}"))?;
        text.push_str(&t);
        text.push('\n');
        names.push(name);
    }
    let name = names.join(" + ");
    let n = task_sets::save(&name, dataset, &text)
        .await
        .map_err(|e| format!("Could not import {name}: {e}. Nothing was stored."))?;
    if n == 0 {
        return Err(format!("{name} has no task."));
    }
    Ok(name)
}

fn set_label(name: &str, imported: &[(String, Dataset)]) -> String {
    match name {
        BUILTIN_TEST => "Built-in shopping · test (30)".into(),
        BUILTIN_TRAIN => "Built-in shopping · training (40)".into(),
        SOFTWARE_TEST => "Built-in software (SRDD-like) · test (4)".into(),
        SOFTWARE_TRAIN => "Built-in software (SRDD-like) · training (4)".into(),
        _ => match imported.iter().find(|(n, _)| n == name) {
            Some((n, d)) => format!("{n} · {}", d.id()),
            None => name.into(),
        },
    }
}

/// The task set picker (built-in or imported), shared with the learning page.
#[component]
pub fn TaskSetSelect(
    id: &'static str,
    #[prop(into)] value: Signal<String>,
    on_pick: impl Fn(String) + 'static,
    #[prop(into)] disabled: Signal<bool>,
) -> impl IntoView {
    view! {
        <select id=id disabled=disabled prop:value=value on:change=move |ev| on_pick(event_target_value(&ev))>
            <option value=BUILTIN_TEST>{set_label(BUILTIN_TEST, &[])}</option>
            <option value=BUILTIN_TRAIN>{set_label(BUILTIN_TRAIN, &[])}</option>
            <option value=SOFTWARE_TEST>{set_label(SOFTWARE_TEST, &[])}</option>
            <option value=SOFTWARE_TRAIN>{set_label(SOFTWARE_TRAIN, &[])}</option>
            {move || mael_setup().with(|s| s.imported.iter().map(|(n, _)| {
                let label = set_label(n, &s.imported);
                view! { <option value=n.clone()>{label}</option> }
            }).collect_view())}
        </select>
    }
}

/// The dataset picker + file button that imports a task set.
#[component]
pub fn ImportTasks(
    on_done: impl Fn(String) + Copy + 'static,
    #[prop(into)] disabled: Signal<bool>,
) -> impl IntoView {
    let app = use_app();
    let kind = RwSignal::new(Dataset::Gsm8k);
    let on_file = move |ev: leptos::ev::Event| {
        let picked = files::picked(&ev);
        if picked.is_empty() {
            return;
        }
        let dataset = kind.get_untracked();
        spawn_local(async move {
            match import_tasks(picked, dataset).await {
                Ok(name) => {
                    refresh_stored();
                    on_done(name);
                }
                Err(e) => app.warn(e, false),
            }
        });
    };
    view! {
        <div class="ml-import">
            <label class="sr-only" for="ml-import-kind">"Import as"</label>
            <select id="ml-import-kind" class="small" disabled=disabled
                title="The shape of the rows: JSONL, or SRDD's CSV (see the datasets' README)"
                prop:value=move || kind.get().id()
                on:change=move |ev| if let Some(d) = Dataset::parse(&event_target_value(&ev)) { kind.set(d) }>
                {Dataset::ALL.iter().map(|d| view! { <option value=d.id()>{d.label()}</option> }).collect_view()}
            </select>
            <label class="button small file-button">
                "Import tasks…"
                <input type="file" multiple=true accept=".jsonl,.json,.csv,application/json,text/csv" aria-label="Import tasks (JSONL, or SRDD's CSV)"
                    title="JSONL rows of the dataset picked beside (SRDD: its CSV, Name,Description,Category); for MMLU pick the questions and mmlu_dev.jsonl together for 5-shot prompts"
                    disabled=disabled on:change=on_file/>
            </label>
        </div>
    }
}

fn task_label(i: usize, t: &Task) -> String {
    format!(
        "{} · {}",
        i + 1,
        crate::engine::base::words::clip(&t.prompt, 49)
    )
}

fn team_summary(team: &Team) -> String {
    match team.validate() {
        Err(e) => e.user_message(),
        Ok(()) => {
            let root = team.root();
            format!(
                "{} agents, {} edges · root {} (closeness {:.2})",
                team.len(),
                team.edges.len(),
                team.agents[root].name,
                team.closeness(root)
            )
        }
    }
}

/// A whole-number field's value, if it reads.
fn number(ev: &leptos::ev::Event) -> Option<u32> {
    parsed(ev)
}

/// What the pool field says of the pool named.
fn pool_hint(x: &MaelSetup) -> String {
    match x.pools.iter().find(|p| p.name == x.pool.trim()) {
        Some(p) => format!(
            "{} · {}",
            crate::engine::base::words::count(p.count, "experience"),
            p.embedder.label()
        ),
        None if x.pool.trim().is_empty() => "Name the pool the run reads and fills.".into(),
        None => "A new pool: the first run that learns creates it.".into(),
    }
}

#[component]
pub fn MaelSetupPanel() -> impl IntoView {
    let app = use_app();
    let busy = shown_setup::disabled(app);
    let editing = RwSignal::new(false);
    refresh_stored();
    let s = mael_setup();
    shown_setup::on_shown(app, crate::engine::coordinators::mael::ID, move |config| {
        let Ok(o) = serde_json::from_value::<MaelOptions>(config.options.clone()) else {
            return;
        };
        let mode = config.variant.as_deref().and_then(Mode::parse);
        s.update(|x| x.adopt(mode, &o));
    });
    view! {
        <div class="ml-setup">
            <ShownSetupBanner/>
            <TaskFields s=s busy=busy/>
            <ExperienceFields s=s busy=busy/>
            <TeamField s=s busy=busy editing=editing/>
            <SamplingNote sampling=TemperatureSource::Paper(crate::engine::coordinators::mael::contract::TEMPERATURE) testid="ml-temperature"/>
            <RetrievalSettings s=s busy=busy/>
            <div class="travel-actions">
                <a class="link-button small" href="/mael">"Learning and evaluation…"</a>
            </div>
            <TeamEditorDialog open=editing/>
            <crate::ui::fit_note::FitNote/>
            <crate::ui::fit_note::UnreadableNotice/>
        </div>
    }
}

/// The task set (picked or imported), the task, its text and its metric.
#[component]
fn TaskFields(s: RwSignal<MaelSetup>, busy: Signal<bool>) -> impl IntoView {
    let app = use_app();
    let prompt = move || {
        s.with(|x| {
            x.task()
                .map(|t| t.prompt.clone())
                .unwrap_or_else(|| "No task in this set.".into())
        })
    };
    let metric = move || {
        s.with(|x| {
            x.task()
                .map(|t| {
                    format!(
                        "Scored by {} (gold hidden from the agents).",
                        t.dataset.metric()
                    )
                })
                .unwrap_or_default()
        })
    };
    view! {
        <div class="field">
            <label for="ml-set">"Task set"</label>
            <TaskSetSelect id="ml-set" value=Signal::derive(move || s.with(|x| x.set.clone())) on_pick=move |n| load_set(app, n) disabled=busy/>
        </div>
        <ImportTasks on_done=move |n| load_set(app, n) disabled=busy/>
        <div class="field">
            <label for="ml-task">"Task"</label>
            <select id="ml-task" disabled=busy prop:value=move || s.with(|x| x.selected.to_string())
                on:change=move |ev| { let i = event_target_value(&ev).parse().unwrap_or(0); s.update(|x| x.selected = i) }>
                {move || s.with(|x| x.tasks.iter().enumerate().map(|(i, t)| view! { <option value=i.to_string()>{task_label(i, t)}</option> }).collect_view())}
            </select>
        </div>
        <p class="query-text" aria-label="Task text">{prompt}</p>
        <p class="muted small">{metric}</p>
    }
}

/// The experience mode, whether the run learns, and the pool.
#[component]
fn ExperienceFields(s: RwSignal<MaelSetup>, busy: Signal<bool>) -> impl IntoView {
    view! {
        <div class="field">
            <label for="ml-mode">"Experience"</label>
            <select id="ml-mode" disabled=busy prop:value=move || s.with(|x| x.mode.id())
                on:change=move |ev| if let Some(m) = Mode::parse(&event_target_value(&ev)) { s.update(|x| x.mode = m) }>
                {Mode::ALL.iter().map(|m| view! { <option value=m.id()>{m.label()}</option> }).collect_view()}
            </select>
        </div>
        <Toggle id="ml-learn" label=" Learn: rate every step and store it in the pool" busy=busy
            on=Signal::derive(move || s.with(|x| x.learn)) set=Callback::new(move |on| s.update(|x| x.learn = on))/>
        <div class="field">
            <label for="ml-pool">"Pool"</label>
            <input id="ml-pool" list="ml-pools" disabled=busy autocomplete="off" prop:value=move || s.with(|x| x.pool.clone())
                on:change=move |ev| { let v = event_target_value(&ev); s.update(|x| x.pool = v.trim().to_string()) }/>
            <datalist id="ml-pools">
                {move || s.with(|x| x.pools.iter().map(|p| view! { <option value=p.name.clone()></option> }).collect_view())}
            </datalist>
            <span class="muted small">{move || s.with(pool_hint)}</span>
        </div>
    }
}

/// The team: its shape, its size, the editor's button and a summary.
#[component]
fn TeamField(s: RwSignal<MaelSetup>, busy: Signal<bool>, editing: RwSignal<bool>) -> impl IntoView {
    let team_line = move || s.with(|x| team_summary(&x.team));
    let team_ok = move || s.with(|x| x.team.validate().is_ok());
    view! {
        <div class="field">
            <span class="label">"Team"</span>
            <div class="ml-team-row">
                <select id="ml-preset" aria-label="Team shape" disabled=busy prop:value=move || s.with(|x| x.preset.id())
                    on:change=move |ev| if let Some(p) = Preset::parse(&event_target_value(&ev)) { s.update(|x| { x.preset = p; x.team = Team::preset(p, x.team.len().max(2)); }) }>
                    {Preset::ALL.iter().map(|p| view! { <option value=p.id()>{p.label()}</option> }).collect_view()}
                </select>
                <input id="ml-size" type="number" min="2" max="8" aria-label="Agents" title="Agents" disabled=busy
                    prop:value=move || s.with(|x| x.team.len().to_string())
                    on:change=move |ev| if let Some(n) = number(&ev) { s.update(|x| x.team = Team::preset(x.preset, (n as usize).clamp(2, 8))) }/>
                <button type="button" class="button small" disabled=busy on:click=move |_| editing.set(true)>"Edit team…"</button>
            </div>
            <span class="small" class:muted=team_ok class:bad=move || !team_ok() aria-live="polite">{team_line}</span>
        </div>
    }
}

/// "Retrieval and rewards": α, k, Table 4's variants, rounds, depth, where
/// sub-solution rewards come from, the embedder.
#[component]
fn RetrievalSettings(s: RwSignal<MaelSetup>, busy: Signal<bool>) -> impl IntoView {
    let defaults = move || s.with(|x| x.task().map(|t| t.dataset.defaults()).unwrap_or((2, 1)));
    view! {
        <details class="ml-advanced">
            <summary>"Retrieval and rewards"</summary>
            <div class="field">
                <label for="ml-alpha">{move || format!("α = {:.2}: similarity vs. reward", s.with(|x| x.scoring.alpha))}</label>
                <input id="ml-alpha" type="range" min="0" max="1" step="0.05" disabled=busy prop:value=move || s.with(|x| x.scoring.alpha.to_string())
                    on:input=move |ev| { let a: Option<f64> = event_target_value(&ev).parse().ok(); if let Some(a) = a { s.update(|x| x.scoring.alpha = a.clamp(0.0, 1.0)) } }/>
            </div>
            <div class="ml-grid">
                <label for="ml-k">"Examples per step (k)"</label>
                <input id="ml-k" type="number" min="1" max="5" disabled=busy prop:value=move || s.with(|x| x.top_k.to_string())
                    on:change=move |ev| if let Some(k) = number(&ev) { s.update(|x| x.top_k = (k as usize).clamp(1, 5)) }/>
                <label for="ml-reward-pol">"Reward part"</label>
                <PolaritySelect id="ml-reward-pol" busy=busy labels=("high (r)", "low (1 − r)")
                    get=Signal::derive(move || s.with(|x| x.scoring.reward))
                    set=Callback::new(move |p| s.update(|x| x.scoring.reward = p))/>
                <label for="ml-sim-pol">"Similarity part"</label>
                <PolaritySelect id="ml-sim-pol" busy=busy labels=("high (cos)", "low (1 − cos)")
                    get=Signal::derive(move || s.with(|x| x.scoring.similarity))
                    set=Callback::new(move |p| s.update(|x| x.scoring.similarity = p))/>
                <label for="ml-rounds">"Refinement rounds"</label>
                <input id="ml-rounds" type="number" min="0" max="6" disabled=busy placeholder=move || defaults().0.to_string()
                    prop:value=move || s.with(|x| x.rounds.map(|r| r.to_string()).unwrap_or_default())
                    on:change=move |ev| { let r = number(&ev).map(|r| r.min(6)); s.update(|x| x.rounds = r) }/>
                <label for="ml-depth">"Decomposition depth"</label>
                <input id="ml-depth" type="number" min="0" max="4" disabled=busy placeholder=move || defaults().1.to_string()
                    prop:value=move || s.with(|x| x.depth.map(|d| d.to_string()).unwrap_or_default())
                    on:change=move |ev| { let d = number(&ev).map(|d| d.min(4)); s.update(|x| x.depth = d) }/>
                <label for="ml-reward-source">"Sub-solution rewards"</label>
                <select id="ml-reward-source" disabled=busy prop:value=move || if s.with(|x| x.reward_source) == RewardSource::Final { "final" } else { "evaluator" }
                    on:change=move |ev| { let r = if event_target_value(&ev) == "final" { RewardSource::Final } else { RewardSource::Evaluator }; s.update(|x| x.reward_source = r) }>
                    <option value="evaluator">"rated by the evaluator"</option>
                    <option value="final">"the final answer's score"</option>
                </select>
                <label for="ml-embed">"Embeddings model"</label>
                <input id="ml-embed" disabled=busy placeholder="built-in lexical" autocomplete="off"
                    title="A model of the Settings' provider's /v1/embeddings (OpenAI-compatible); empty = the built-in lexical embedder"
                    prop:value=move || s.with(|x| x.embedding_model.clone())
                    on:change=move |ev| { let v = event_target_value(&ev); s.update(|x| x.embedding_model = v.trim().to_string()) }/>
            </div>
        </details>
    }
}

/// A part of the retrieval score taken high or low (Table 4's variants).
#[component]
fn PolaritySelect(
    id: &'static str,
    busy: Signal<bool>,
    labels: (&'static str, &'static str),
    get: Signal<Polarity>,
    set: Callback<Polarity>,
) -> impl IntoView {
    let value = move || {
        if get.get() == Polarity::High {
            "high"
        } else {
            "low"
        }
    };
    let pick = move |ev: leptos::ev::Event| {
        set.run(if event_target_value(&ev) == "low" {
            Polarity::Low
        } else {
            Polarity::High
        })
    };
    view! {
        <select id=id disabled=busy prop:value=value on:change=pick>
            <option value="high">{labels.0}</option>
            <option value="low">{labels.1}</option>
        </select>
    }
}
