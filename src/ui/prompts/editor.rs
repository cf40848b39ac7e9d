//! The Prompts dialog: every template of the picked coordinator, with
//! what it is for and the variables its step gives; an edit checked as it
//! is typed (the error names the template and the line), its changes from
//! the default, a preview rendered with stand-ins (the page's task for a
//! task), a reset per template and for all; the set exported as a prompt
//! file (the format `roundtable run --prompts` reads) and imported back.

use super::set_edits;
use crate::engine::coordinators::{info, prompt_templates};
use crate::engine::prompts::{edits_in_file, file_of, preview_vars, Prompts, TemplateSpec};
use crate::engine::views::html::diff::lines_html;
use crate::ui::state::use_app;
use crate::ui::widgets::DialogHead;
use leptos::html;
use leptos::prelude::*;
use std::collections::BTreeMap;

/// The coordinator's defaults and templates (none: it has no prompts).
fn templates(id: &str) -> Option<(&'static str, &'static [TemplateSpec])> {
    prompt_templates(id)
}

/// How two runs of `coordinator` were told differently, as HTML.
pub fn diff_of(
    coordinator: &str,
    a: (&str, &BTreeMap<String, String>),
    b: (&str, &BTreeMap<String, String>),
) -> String {
    let Some((d, specs)) = templates(coordinator) else {
        return String::new();
    };
    let Ok(p) = Prompts::new(d, specs, &BTreeMap::new()) else {
        return String::new();
    };
    crate::engine::views::html::diff::prompt_diff_html(a, b, &|n| {
        p.default_text(n).map(str::to_string)
    })
}

/// A template's name without its coordinator's prefix.
fn short(name: &str) -> &str {
    name.split_once('.').map_or(name, |(_, rest)| rest)
}

#[component]
pub fn PromptsDialog() -> impl IntoView {
    let app = use_app();
    let dialog = NodeRef::<html::Dialog>::new();
    let coordinator = move || app.coordinator.get();
    let selected = RwSignal::new(String::new());
    let import_error = RwSignal::new(None::<String>);
    let defaults = move || templates(&coordinator());
    let edits = move || {
        let c = coordinator();
        app.prompt_edits
            .with(|m| m.get(&c).cloned().unwrap_or_default())
    };
    // The set as a run would take it, or why it would be refused.
    let checked = move || {
        let (d, specs) = defaults()?;
        Some(Prompts::new(d, specs, &edits()).map_err(|e| e.to_string()))
    };
    let error = Memo::new(move |_| checked().and_then(|r| r.err()));
    let default_text = move |name: &str| {
        let (d, specs) = defaults()?;
        let p = Prompts::new(d, specs, &BTreeMap::new()).ok()?;
        p.default_text(name).map(str::to_string)
    };
    Effect::new(move |_| {
        let open = app.prompts_open.get();
        let Some(d) = dialog.get() else { return };
        if open {
            import_error.set(None);
            if let Some((_, specs)) = defaults() {
                let keep = specs.iter().any(|s| s.name == selected.get_untracked());
                if !keep {
                    selected.set(
                        specs
                            .first()
                            .map(|s| s.name.to_string())
                            .unwrap_or_default(),
                    );
                }
            }
            if !d.open() {
                let _ = d.show_modal();
            }
        } else if d.open() {
            d.close();
        }
    });
    let close = move || app.prompts_open.set(false);
    let spec = move || {
        let name = selected.get();
        defaults().and_then(|(_, specs)| specs.iter().find(|s| s.name == name).copied())
    };
    let text = move || {
        let name = selected.get();
        edits()
            .get(&name)
            .cloned()
            .or_else(|| default_text(&name))
            .unwrap_or_default()
    };
    let edited = move || edits().contains_key(&selected.get());
    let on_input = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        let name = selected.get_untracked();
        let mut e = edits();
        if default_text(&name).as_deref() == Some(value.as_str()) {
            e.remove(&name);
        } else {
            e.insert(name, value);
        }
        set_edits(app, &coordinator(), e);
    };
    let reset = move |_| {
        let mut e = edits();
        e.remove(&selected.get_untracked());
        set_edits(app, &coordinator(), e);
    };
    let reset_all = move |_| {
        let n = edits().len();
        let sure = web_sys::window().is_some_and(|w| {
            w.confirm_with_message(&format!(
                "Put all {n} edited templates back to the paper's? (Export them first to keep a copy.)"
            ))
            .unwrap_or(false)
        });
        if sure {
            set_edits(app, &coordinator(), BTreeMap::new());
        }
    };
    let export = move |_| {
        let Some(Ok(p)) = untrack(checked) else {
            import_error.set(Some(
                "Fix the template that cannot be used before exporting.".into(),
            ));
            return;
        };
        let c = coordinator();
        let name = info(&c).map_or(c.as_str(), |i| i.name);
        let file = file_of(
            &p,
            &format!("The prompts of {name}, from Roundtable's Prompts dialog."),
        );
        if let Err(e) =
            crate::platform::files::download_text(&format!("{c}-prompts.txt"), "text/plain", &file)
        {
            import_error.set(Some(e));
        }
    };
    let import = move |ev: leptos::ev::Event| {
        let files = crate::platform::files::picked(&ev);
        let Some(file) = files.into_iter().next() else {
            return;
        };
        let c = coordinator();
        leptos::task::spawn_local(async move {
            let text = match crate::platform::files::read_text(&file).await {
                Ok(t) => t,
                Err(e) => return import_error.set(Some(format!("{}: {e}", file.name()))),
            };
            let Some((d, specs)) = templates(&c) else {
                return;
            };
            match edits_in_file(&text, d, specs) {
                Ok(e) => {
                    import_error.set(None);
                    set_edits(app, &c, e);
                }
                // Nothing is changed by a file that is refused.
                Err(e) => import_error.set(Some(format!("{} was not imported: {e}", file.name()))),
            }
        });
    };
    let preview = move || {
        let s = spec()?;
        let p = match checked()? {
            Ok(p) => p,
            Err(e) => return Some(Err(e)),
        };
        let task = app.task.get();
        Some(
            p.render(s.name, preview_vars(&s, &[("task", task.as_str())]))
                .map_err(|e| e.to_string()),
        )
    };
    view! {
        <dialog class="prompts-dialog" node_ref=dialog aria-labelledby="prompts-title"
            on:close=move |_: leptos::ev::Event| close()>
            <DialogHead id="prompts-title"
                title=Signal::derive(move || format!("Prompts · {}", info(&coordinator()).map_or("", |i| i.name)))
                on_close=Callback::new(move |()| close())/>
            {move || match defaults() {
                None => view! { <p class="small">"This coordinator has no prompt templates."</p> }.into_any(),
                Some((_, specs)) => view! {
                    <p class="muted small">"What the agents are told, step by step. An edit is used by every new run of this coordinator (and kept in this browser); a run records the templates it changed, so its share link, its replay and its forks show them."</p>
                    <div class="prompts-body">
                        <nav class="prompts-list" aria-label="Templates">
                            {specs.iter().map(|s| {
                                let name = s.name;
                                let is_edited = move || edits().contains_key(name);
                                view! {
                                    <button type="button" class="prompts-item"
                                        class:selected=move || selected.get() == name
                                        aria-current=move || (selected.get() == name).then_some("true")
                                        on:click=move |_| selected.set(name.to_string())>
                                        <code>{short(name)}</code>
                                        <Show when=is_edited>
                                            <span class="badge small">"edited"</span>
                                        </Show>
                                    </button>
                                }
                            }).collect_view()}
                        </nav>
                        <div class="prompts-detail">
                            {move || spec().map(|s| view! {
                                <h3><code>{s.name}</code></h3>
                                <p class="small">{s.about}</p>
                                {(!s.vars.is_empty()).then(|| view! {
                                    <ul class="prompts-vars small" aria-label="What the step gives it">
                                        {s.vars.iter().map(|v| view! {
                                            <li><code>{format!("{{{{ {} }}}}", v.name)}</code>" "
                                                <span class="muted">{if v.required { "(must use) " } else { "(may use) " }}</span>
                                                {v.about}</li>
                                        }).collect_view()}
                                    </ul>
                                })}
                            })}
                            <label for="prompt-text" class="small">"Template"</label>
                            <textarea id="prompt-text" class="prompt-text" rows="14" spellcheck="false"
                                prop:value=text on:input=on_input></textarea>
                            {move || error.get().map(|e| view! { <p class="bad small" role="alert" data-testid="prompt-error">{e}</p> })}
                            <div class="prompts-actions">
                                <button type="button" class="button small" disabled=move || !edited() on:click=reset>"Reset to the paper's"</button>
                            </div>
                            <Show when=edited>
                                <details open class="prompts-changes">
                                    <summary>"Changes from the paper's"</summary>
                                    <div inner_html=move || {
                                        let name = selected.get();
                                        lines_html(&default_text(&name).unwrap_or_default(), &text())
                                    }></div>
                                </details>
                            </Show>
                            <details class="prompts-preview">
                                <summary>"Preview (the step's values shown as ⟨name⟩; the task is the page's)"</summary>
                                {move || match preview() {
                                    Some(Ok(t)) => view! { <pre class="prompt-preview" tabindex="0">{t}</pre> }.into_any(),
                                    Some(Err(e)) => view! { <p class="bad small">{e}</p> }.into_any(),
                                    None => ().into_any(),
                                }}
                            </details>
                        </div>
                    </div>
                }.into_any(),
            }}
            {move || import_error.get().map(|e| view! { <p class="bad small" role="alert">{e}</p> })}
            <footer class="dialog-foot">
                <span class="muted small prompts-count">{move || match edits().len() {
                    0 => "The paper's prompts.".to_string(),
                    1 => "1 template edited.".to_string(),
                    n => format!("{n} templates edited."),
                }}</span>
                <label class="button small file-button">"Import…"
                    <input type="file" accept=".txt,text/plain" on:change=import/>
                </label>
                <button type="button" class="button small" on:click=export>"Export…"</button>
                <button type="button" class="button small" disabled=move || edits().is_empty() on:click=reset_all>"Reset all"</button>
                <button type="button" class="button primary" on:click=move |_| close()>"Done"</button>
            </footer>
        </dialog>
    }
}
