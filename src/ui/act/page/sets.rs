//! Task sets in this browser: import JSONL as community items (the
//! built-in set's shape), as Trivia Creative Writing rows or as
//! AgentVerse's tool tasks (`tasks.jsonl`), checked
//! before it is stored (a bad line is named and nothing is kept); the list
//! with counts, Use (the setup's task source, for the batch and the Run
//! page) and Delete. The built-in design set and the built-in tool tasks
//! are always there.

use super::super::setup::pick_source;
use super::super::state::{act_setup, ActSetup, BUILTIN, TOOLS};
use super::banks::{clear_input, confirm};
use crate::engine::domains::agentverse;
use crate::engine::domains::creative::builtin;
use crate::platform::act_store::{self, SetKind};
use crate::platform::files;
use crate::ui::state::{use_app, AppState};
use crate::ui::widgets::{FileButton, ResultLine, ResultMessage};
use leptos::prelude::*;
use leptos::task::spawn_local;

type Message = ResultMessage;

fn kind_label(k: SetKind) -> &'static str {
    match k {
        SetKind::Items => "community items",
        SetKind::Trivia => "Trivia Creative Writing",
        SetKind::Tools => "tool tasks (§4.3)",
    }
}

fn kind_value(k: SetKind) -> &'static str {
    match k {
        SetKind::Items => "items",
        SetKind::Trivia => "trivia",
        SetKind::Tools => "tools",
    }
}

fn file_stem(name: &str) -> String {
    crate::engine::views::export::import_stem(name, ".jsonl")
}

fn import(app: AppState, message: Message, kind: SetKind, name: String, file: web_sys::File) {
    let file_name = file.name();
    let name = match name.trim() {
        "" => file_stem(&file_name),
        n => n.to_string(),
    };
    if [
        BUILTIN,
        TOOLS,
        super::super::state::FREE,
        super::super::state::SHOWN,
    ]
    .contains(&name.as_str())
    {
        message.set(Some(Err(format!(
            "\"{name}\" is a reserved name: name the set something else."
        ))));
        return;
    }
    let exists = act_setup().with_untracked(|s| s.sets.iter().any(|(n, _)| *n == name));
    if exists
        && !confirm(&format!(
            "Replace the task set \"{name}\" with {file_name}?"
        ))
    {
        return;
    }
    message.set(None);
    spawn_local(async move {
        let r = async {
            let text = files::read_named(&file).await?;
            if text.trim().is_empty() {
                return Err(format!("{file_name} is empty. Nothing was stored."));
            }
            let n = act_store::save_set(&name, kind, &text)
                .await
                .map_err(|e| format!("{}. Nothing was stored.", e.trim_end_matches('.')))?;
            pick_source(app, name.clone());
            Ok(format!(
                "Imported {n} {} as \"{name}\"; it is now the task source.",
                match kind {
                    SetKind::Trivia => "stories",
                    SetKind::Tools => "tool tasks",
                    SetKind::Items => "items",
                }
            ))
        }
        .await;
        super::settle(message, r);
    });
}

fn delete(app: AppState, message: Message, name: String) {
    let gone = name.clone();
    super::delete_stored(
        message,
        format!("Delete the task set \"{name}\" from this browser?"),
        format!("Deleted the task set \"{name}\"."),
        async move { act_store::delete_set(&name).await },
        move || {
            if act_setup().with_untracked(|s| s.source == gone) {
                pick_source(app, BUILTIN.into());
            }
        },
    );
}

type Counts = RwSignal<Vec<(String, Result<usize, String>)>>;

/// Items or stories per stored set, read back (so a damaged one says so)
/// each time the list changes.
fn read_counts(s: RwSignal<ActSetup>) -> Counts {
    let counts: Counts = RwSignal::new(Vec::new());
    Effect::new(move |_| {
        let names: Vec<String> = s.with(|x| x.sets.iter().map(|(n, _)| n.clone()).collect());
        spawn_local(async move {
            let mut out = Vec::new();
            for n in names {
                let c = act_store::load_set(&n).await.map(|set| set.len());
                out.push((n, c));
            }
            counts.set(out);
        });
    });
    counts
}

/// The chip of the set the batch and the Run page use.
fn in_use_chip(used: impl Fn() -> bool + Send + Sync + 'static) -> impl IntoView {
    move || {
        used().then(|| view! { <span class="chip small" title="the batch and the Run page use this set">"in use"</span> })
    }
}

#[component]
pub fn SetsPanel() -> impl IntoView {
    let app = use_app();
    let s = act_setup();
    let message: Message = RwSignal::new(None);
    let counts = read_counts(s);
    let rows = move || {
        s.with(|x| x.sets.clone())
            .into_iter()
            .map(|(n, k)| view! { <SetRow name=n kind=k counts=counts message=message/> })
            .collect_view()
    };
    let builtin_used = move || s.with(|x| x.source == BUILTIN);
    let tools_used = move || s.with(|x| x.source == TOOLS);
    let tool_ids: Vec<String> = agentverse::builtin::tasks()
        .into_iter()
        .map(|t| t.id)
        .collect();
    view! {
        <section class="panel act-sets" role="region" aria-label="Task sets">
            <h2 class="panel-title">"Task sets"</h2>
            <p class="muted small">"The built-in design set and tool tasks are always there. Import your own as JSONL, one task per line; it is checked before it is stored (a line that does not read is named, and nothing is kept) and lives in this browser."</p>
            <ImportForm message=message/>
            <ResultLine message=message/>
            <div class="tp-table-wrap">
                <table class="tp-table act-list">
                    <thead><tr><th scope="col">"set"</th><th scope="col">"kind"</th><th scope="col">"tasks"</th><th scope="col"></th></tr></thead>
                    <tbody>
                        <tr data-set=BUILTIN>
                            <th scope="row">"Built-in design set"{in_use_chip(builtin_used)}</th>
                            <td class="small">{format!("community items · {}", builtin::COMMUNITIES.join(", "))}</td>
                            <td class="num">{builtin::items().len()}</td>
                            <td class="act-row-actions">
                                <button type="button" class="link-button small" disabled=builtin_used on:click=move |_| pick_source(app, BUILTIN.into())>"Use"</button>
                            </td>
                        </tr>
                        <tr data-set=TOOLS>
                            <th scope="row">"Built-in tool tasks"{in_use_chip(tools_used)}</th>
                            <td class="small">{format!("tool tasks (§4.3) · {}", tool_ids.join(", "))}</td>
                            <td class="num">{tool_ids.len()}</td>
                            <td class="act-row-actions">
                                <button type="button" class="link-button small" disabled=tools_used on:click=move |_| pick_source(app, TOOLS.into())>"Use"</button>
                            </td>
                        </tr>
                        {rows}
                    </tbody>
                </table>
            </div>
            <Show when=move || s.with(|x| x.sets.is_empty())>
                <p class="muted small act-empty-note">"No imported set yet: the built-in one is ready, or import a JSONL file above."</p>
            </Show>
        </section>
    }
}

/// Importing a set: what its lines are, its name, the file.
#[component]
fn ImportForm(message: Message) -> impl IntoView {
    let app = use_app();
    let kind = RwSignal::new(SetKind::Items);
    let name = RwSignal::new(String::new());
    let on_file = move |ev: leptos::ev::Event| {
        if let Some(f) = files::picked(&ev).into_iter().next() {
            import(app, message, kind.get_untracked(), name.get_untracked(), f);
        }
        clear_input(&ev);
    };
    view! {
        <div class="act-import" role="group" aria-label="Import a task set">
            <div class="field">
                <label for="act-set-kind">"Lines are"</label>
                <select id="act-set-kind" prop:value=move || kind_value(kind.get())
                    on:change=move |ev| kind.set(match event_target_value(&ev).as_str() { "trivia" => SetKind::Trivia, "tools" => SetKind::Tools, _ => SetKind::Items })>
                    <option value="items">"Community items"</option>
                    <option value="trivia">"Trivia Creative Writing rows"</option>
                    <option value="tools">"AgentVerse tool tasks (tasks.jsonl)"</option>
                </select>
                <span class="muted small">{move || match kind.get() {
                    SetKind::Trivia => "Each line: {\"topic\", \"questions\": [...], \"answers\": [[...], ...]}; one story per line, scored by trivia recall.",
                    SetKind::Tools => "Each line: {\"id\", \"task\", \"agents\"} (\"needs_web\": true or false, else AgentVerse's own list); one task per trial, with every tool, judged by its sub-tasks done.",
                    SetKind::Items => "Each line: {\"subject\", \"details\": [...], \"solutions\": [...]}; each trial draws one item per agent, scored by ROUGE against the solutions.",
                }}</span>
            </div>
            <div class="field">
                <label for="act-set-name">"Name"</label>
                <input id="act-set-name" autocomplete="off" placeholder="the file's name" prop:value=move || name.get()
                    on:input=move |ev| name.set(event_target_value(&ev))/>
            </div>
            <FileButton text="Import JSONL…" accept=".jsonl,.json,.txt,application/jsonl,application/json,text/plain" label="Import task set file" on_file=on_file/>
        </div>
    }
}

/// An imported set: its name, kind and count; Use and Delete.
#[component]
fn SetRow(name: String, kind: SetKind, counts: Counts, message: Message) -> impl IntoView {
    let app = use_app();
    let s = act_setup();
    let n = name;
    let (n1, n2, n3) = (n.clone(), n.clone(), n.clone());
    let count = move || {
        counts.with(|c| match c.iter().find(|(x, _)| *x == n3) {
            Some((_, Ok(len))) => view! { {len.to_string()} }.into_any(),
            Some((_, Err(e))) => {
                view! { <span class="bad small" title=e.clone()>"unreadable"</span> }.into_any()
            }
            None => view! { <span class="muted">"…"</span> }.into_any(),
        })
    };
    let used = Signal::derive(move || s.with(|x| x.source == n1));
    view! {
        <tr data-set=n.clone()>
            <th scope="row">{n.clone()}{in_use_chip(move || used.get())}</th>
            <td class="small">{kind_label(kind)}</td>
            <td class="num">{count}</td>
            <td class="act-row-actions">
                <button type="button" class="link-button small" disabled=used on:click={let n = n.clone(); move |_| pick_source(app, n.clone())}>"Use"</button>
                <button type="button" class="link-button small danger" on:click=move |_| delete(app, message, n2.clone())>"Delete"</button>
            </td>
        </tr>
    }
}
