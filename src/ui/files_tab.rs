//! The Files tab: the run's workspace as of the replay cursor — its tree,
//! the picked file highlighted, who wrote each version, the changes since
//! the version before, the whole workspace as a zip, and its `main.py` run
//! (`files_run`). Shown only once
//! the run has written a file; folded here, in the `extras` chunk. Every
//! text is a text node (a file may hold anything).

use super::files_run::{Outcome, RunButton, RunOutput};
use super::fold::{self, Folded};
use super::state::use_app;
use crate::engine::base::workspace::Entry;
use crate::engine::views::diff::{self, Change};
use crate::engine::views::files::FilesView;
use crate::engine::views::highlight;
use leptos::prelude::*;
use std::cell::RefCell;

thread_local! {
    static VIEW: RefCell<Folded<FilesView>> = RefCell::new(Folded::default());
}

/// The picked file at the picked version.
#[derive(Clone, Debug, PartialEq)]
struct Shown {
    path: String,
    /// Each version's writer and event.
    versions: Vec<(String, u64)>,
    index: usize,
    text: String,
    previous: Option<String>,
}

fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    }
}

/// The tree's rows, each file with its count of versions.
fn rows(v: &FilesView) -> Vec<(Entry, usize)> {
    let ws = &v.workspace;
    ws.entries()
        .into_iter()
        .map(|e| {
            let n = e.path.as_deref().map_or(0, |p| ws.history(p).len());
            (e, n)
        })
        .collect()
}

#[component]
pub fn FilesTab() -> impl IntoView {
    let app = use_app();
    let picked = RwSignal::new(None::<String>);
    let version = RwSignal::new(None::<usize>);
    let changes = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let tree = Memo::new(move |_| fold::read(&VIEW, app, rows));
    let summary = Memo::new(move |_| {
        fold::read(&VIEW, app, |v| {
            (v.workspace.len(), v.workspace.total_bytes())
        })
    });
    let refused = Memo::new(move |_| {
        fold::read(&VIEW, app, |v| {
            v.refused.iter().map(|r| r.to_string()).collect::<Vec<_>>()
        })
    });
    // The picked file while it exists, else the first one.
    let current = Memo::new(move |_| {
        let rows = tree.get();
        let files = || rows.iter().filter_map(|(e, _)| e.path.clone());
        picked
            .get()
            .filter(|p| files().any(|f| &f == p))
            .or_else(|| files().next())
    });
    let shown = Memo::new(move |_| {
        let path = current.get()?;
        let want = version.get();
        fold::read(&VIEW, app, |v| {
            let h = v.workspace.history(&path);
            let last = h.len().checked_sub(1)?;
            let index = want.filter(|&i| i <= last).unwrap_or(last);
            Some(Shown {
                versions: h.iter().map(|x| (x.agent.clone(), x.seq)).collect(),
                index,
                text: h[index].text.clone(),
                previous: index.checked_sub(1).map(|i| h[i].text.clone()),
                path: path.clone(),
            })
        })
    });
    let agent_name = move |id: &str| {
        app.view.with(|v| {
            v.graph
                .node(id)
                .map_or_else(|| id.to_string(), |n| n.name.clone())
        })
    };
    let download = move |_| {
        let zip = fold::read(&VIEW, app, |v| v.workspace.zip("workspace"));
        error.set(
            crate::platform::files::download_bytes("workspace.zip", "application/zip", &zip).err(),
        );
    };
    let any_file = move || summary.get().0 != 0;
    let outcome = RwSignal::new(None::<Outcome>);
    let files = Memo::new(move |_| {
        fold::read(&VIEW, app, |v| {
            v.workspace
                .walk()
                .into_iter()
                .map(|(p, t)| (p.to_string(), t.to_string()))
                .collect::<Vec<_>>()
        })
    });
    let pick = move |path: String| {
        picked.set(Some(path));
        version.set(None);
    };
    view! {
        <div class="files">
            <div class="files-toolbar">
                <span class="muted small">{move || {
                    let (n, bytes) = summary.get();
                    format!("{n} {} · {}", if n == 1 { "file" } else { "files" }, size(bytes))
                }}</span>
                <span class="files-actions">
                    <RunButton files outcome/>
                    <button type="button" class="button small" on:click=download
                        title="Every file's latest version, in a zip">"Download zip"</button>
                </span>
            </div>
            <RunOutput outcome/>
            {move || error.get().map(|e| view! { <p class="error small" role="alert">{format!("Could not download the zip: {e}")}</p> })}
            <Show when=move || !refused.with(Vec::is_empty)>
                <div class="notice files-refused" role="status">
                    <p>"Writes this workspace refused (a file's limits, or a path outside it):"</p>
                    <ul>{move || refused.get().into_iter().map(|r| view! { <li>{r}</li> }).collect_view()}</ul>
                </div>
            </Show>
            <Show when=any_file fallback=|| view! {
                <p class="muted empty-note">"The files the agents write appear here as they write them."</p>
            }>
                <div class="files-body">
                    <nav class="file-tree" aria-label="Files">
                        <ul>
                            {move || tree.get().into_iter().map(|(row, versions)| {
                                let pad = format!("padding-left: {}rem", 0.5 + row.depth as f32 * 0.9);
                                match row.path {
                                    None => view! { <li class="tree-folder" style=pad>{format!("{}/", row.name)}</li> }.into_any(),
                                    Some(path) => {
                                        let here = path.clone();
                                        let is_current = move || current.get().as_deref() == Some(here.as_str());
                                        let click = path.clone();
                                        view! {
                                            <li style=pad>
                                                <button type="button" class="tree-file"
                                                    aria-current=move || if is_current() { "true" } else { "false" }
                                                    on:click=move |_| pick(click.clone())>
                                                    <span class="tree-name">{row.name}</span>
                                                    {(versions > 1).then(|| view! { <span class="tab-count" title="versions">{versions}</span> })}
                                                </button>
                                            </li>
                                        }.into_any()
                                    }
                                }
                            }).collect_view()}
                        </ul>
                    </nav>
                    {move || shown.get().map(|s| file_view(s, agent_name, version, changes))}
                </div>
            </Show>
        </div>
    }
}

/// The picked file: its head (path, writer, version), then its text
/// highlighted, or its changes since the version before.
fn file_view(
    s: Shown,
    agent_name: impl Fn(&str) -> String + Copy + 'static,
    version: RwSignal<Option<usize>>,
    changes: RwSignal<bool>,
) -> impl IntoView {
    let n = s.versions.len();
    let (writer, seq) = s.versions[s.index].clone();
    let has_previous = s.previous.is_some();
    let options = s
        .versions
        .iter()
        .enumerate()
        .map(|(i, (agent, _))| {
            view! { <option value=i.to_string() selected=i == s.index>{format!("version {} of {n} · {}", i + 1, agent_name(agent))}</option> }
        })
        .collect_view();
    let lines = s.text.lines().count().max(1);
    let body = if changes.get() && has_previous {
        let old = s.previous.clone().unwrap_or_default();
        let mut edits = diff::lines(&old, &s.text);
        // Both texts ending with a line break end with the same empty piece.
        if edits.last() == Some(&Change::Same("")) {
            edits.pop();
        }
        edits
            .into_iter()
            .map(|c| {
                let (class, mark, text) = match c {
                    Change::Same(t) => ("diff-same", " ", t),
                    Change::Added(t) => ("diff-add", "+", t),
                    Change::Removed(t) => ("diff-del", "−", t),
                };
                view! { <div class=class><span class="diff-mark" aria-hidden="true">{mark}</span>{text.trim_end_matches('\n').to_string()}</div> }
            })
            .collect_view()
            .into_any()
    } else {
        let gutter: String = (1..=lines).map(|i| format!("{i}\n")).collect();
        let code = highlight::pieces(&s.path, &s.text)
            .into_iter()
            .map(|(kind, piece)| view! { <span class=kind.class()>{piece.to_string()}</span> })
            .collect_view();
        view! {
            <div class="code-view">
                <pre class="code-gutter" aria-hidden="true">{gutter}</pre>
                <pre class="code-text"><code>{code}</code></pre>
            </div>
        }
        .into_any()
    };
    view! {
        <section class="file-view" aria-label=format!("File {}", s.path)>
            <div class="file-head">
                <h3 class="file-path">{s.path.clone()}</h3>
                <span class="muted small">{format!("written by {} · event {seq} · {} lines", agent_name(&writer), lines)}</span>
                <div class="file-controls">
                    <select class="small" aria-label="Version"
                        on:change=move |ev| version.set(event_target_value(&ev).parse().ok())>
                        {options}
                    </select>
                    <label class="check small" title=if has_previous { "" } else { "This is the file's first version" }>
                        <input type="checkbox" disabled=!has_previous prop:checked=move || changes.get()
                            on:change=move |ev| changes.set(event_target_checked(&ev))/>
                        "Changes since the version before"
                    </label>
                </div>
            </div>
            <div class="file-body">{body}</div>
        </section>
    }
}
