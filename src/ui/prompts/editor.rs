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
use crate::ui::state::{use_app, AppState};
use crate::ui::widgets::DialogHead;
use leptos::html;
use leptos::prelude::*;
use std::collections::BTreeMap;

/// How two runs of `coordinator` were told differently, as HTML.
pub fn diff_of(
    coordinator: &str,
    a: (&str, &BTreeMap<String, String>),
    b: (&str, &BTreeMap<String, String>),
) -> String {
    let Some((d, specs)) = prompt_templates(coordinator) else {
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

/// What the dialog's parts share: the picked coordinator, its templates'
/// default texts (parsed once per coordinator), the template selected and
/// the last import or export error.
#[derive(Clone, Copy)]
struct Editing {
    app: AppState,
    coordinator: Memo<String>,
    defaults: Memo<BTreeMap<String, String>>,
    selected: RwSignal<String>,
    import_error: RwSignal<Option<String>>,
}

impl Editing {
    fn new(app: AppState) -> Editing {
        let coordinator = Memo::new(move |_| {
            app.prompts_open
                .get()
                .unwrap_or_else(|| app.coordinator.get())
        });
        let defaults = Memo::new(move |_| {
            let Some((d, specs)) = prompt_templates(&coordinator.get()) else {
                return BTreeMap::new();
            };
            let Ok(p) = Prompts::new(d, specs, &BTreeMap::new()) else {
                return BTreeMap::new();
            };
            specs
                .iter()
                .filter_map(|s| Some((s.name.to_string(), p.default_text(s.name)?.to_string())))
                .collect()
        });
        Editing {
            app,
            coordinator,
            defaults,
            selected: RwSignal::new(String::new()),
            import_error: RwSignal::new(None),
        }
    }

    fn specs(self) -> Option<(&'static str, &'static [TemplateSpec])> {
        prompt_templates(&self.coordinator.get())
    }

    /// The user's edits of this coordinator's templates.
    fn edits(self) -> BTreeMap<String, String> {
        let c = self.coordinator.get();
        self.app
            .prompt_edits
            .with(|m| m.get(&c).cloned().unwrap_or_default())
    }

    fn set(self, edits: BTreeMap<String, String>) {
        set_edits(self.app, &self.coordinator.get_untracked(), edits);
    }

    fn default_text(self, name: &str) -> Option<String> {
        self.defaults.with(|d| d.get(name).cloned())
    }

    /// The selected template's declaration.
    fn spec(self) -> Option<TemplateSpec> {
        let name = self.selected.get();
        self.specs()
            .and_then(|(_, specs)| specs.iter().find(|s| s.name == name).copied())
    }

    /// The selected template's text: the user's, else the default.
    fn text(self) -> String {
        let name = self.selected.get();
        self.edits()
            .get(&name)
            .cloned()
            .or_else(|| self.default_text(&name))
            .unwrap_or_default()
    }

    fn edited(self) -> bool {
        self.edits().contains_key(&self.selected.get())
    }

    /// The set as a run would take it, or why it would be refused.
    fn checked(self) -> Option<Result<Prompts, String>> {
        let (d, specs) = self.specs()?;
        Some(Prompts::new(d, specs, &self.edits()).map_err(|e| e.to_string()))
    }

    /// Selects the first template unless the selected one is this
    /// coordinator's.
    fn keep_selection(self) {
        let Some((_, specs)) = self.specs() else {
            return;
        };
        if !specs
            .iter()
            .any(|s| s.name == self.selected.get_untracked())
        {
            let first = specs.first().map(|s| s.name.to_string());
            self.selected.set(first.unwrap_or_default());
        }
    }
}

#[component]
pub fn PromptsDialog() -> impl IntoView {
    let app = use_app();
    let ed = Editing::new(app);
    let dialog = NodeRef::<html::Dialog>::new();
    Effect::new(move |_| {
        let open = app.prompts_open.with(Option::is_some);
        let Some(d) = dialog.get() else { return };
        if open {
            ed.import_error.set(None);
            ed.keep_selection();
            if !d.open() {
                let _ = d.show_modal();
            }
        } else if d.open() {
            d.close();
        }
    });
    let close = Callback::new(move |()| app.prompts_open.set(None));
    view! {
        <dialog class="prompts-dialog" node_ref=dialog aria-labelledby="prompts-title"
            on:close=move |_: leptos::ev::Event| close.run(())>
            <DialogHead id="prompts-title"
                title=Signal::derive(move || format!("Prompts · {}", info(&ed.coordinator.get()).map_or("", |i| i.name)))
                on_close=close/>
            {move || match ed.specs() {
                None => view! { <p class="small">"This coordinator has no prompt templates."</p> }.into_any(),
                Some((_, specs)) => view! {
                    <p class="muted small">"What the agents are told, step by step. An edit is used by every new run of this coordinator (and kept in this browser); a run records the templates it changed, so its share link, its replay and its forks show them."</p>
                    <div class="prompts-body">
                        <TemplateList ed=ed specs=specs/>
                        <TemplateDetail ed=ed/>
                    </div>
                }.into_any(),
            }}
            {move || ed.import_error.get().map(|e| view! { <p class="bad small" role="alert">{e}</p> })}
            <DialogFoot ed=ed close=close/>
        </dialog>
    }
}

/// Every template's name, marked where the user edited it.
#[component]
fn TemplateList(ed: Editing, specs: &'static [TemplateSpec]) -> impl IntoView {
    let selected = ed.selected;
    view! {
        <nav class="prompts-list" aria-label="Templates">
            {specs.iter().map(|s| {
                let name = s.name;
                let is_edited = move || ed.edits().contains_key(name);
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
    }
}

/// The selected template: what it is for, its variables, its text (checked
/// as typed), its changes from the default, and a preview.
#[component]
fn TemplateDetail(ed: Editing) -> impl IntoView {
    let error = Memo::new(move |_| ed.checked().and_then(|r| r.err()));
    let on_input = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        let name = ed.selected.get_untracked();
        let mut e = ed.edits();
        if ed.default_text(&name).as_deref() == Some(value.as_str()) {
            e.remove(&name);
        } else {
            e.insert(name, value);
        }
        ed.set(e);
    };
    let reset = move |_| {
        let mut e = ed.edits();
        e.remove(&ed.selected.get_untracked());
        ed.set(e);
    };
    let preview = move || {
        let s = ed.spec()?;
        let p = match ed.checked()? {
            Ok(p) => p,
            Err(e) => return Some(Err(e)),
        };
        let task = ed.app.task.get();
        Some(
            p.render(s.name, preview_vars(&s, &[("task", task.as_str())]))
                .map_err(|e| e.to_string()),
        )
    };
    let edited = move || ed.edited();
    view! {
        <div class="prompts-detail">
            {move || ed.spec().map(|s| view! {
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
                prop:value=move || ed.text() on:input=on_input></textarea>
            {move || error.get().map(|e| view! { <p class="bad small" role="alert" data-testid="prompt-error">{e}</p> })}
            <div class="prompts-actions">
                <button type="button" class="button small" disabled=move || !edited() on:click=reset>"Reset to the paper's"</button>
            </div>
            <Show when=edited>
                <details open class="prompts-changes">
                    <summary>"Changes from the paper's"</summary>
                    <div inner_html=move || {
                        let name = ed.selected.get();
                        lines_html(&ed.default_text(&name).unwrap_or_default(), &ed.text())
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
    }
}

/// How many templates are edited; Import, Export, Reset all and Done.
#[component]
fn DialogFoot(ed: Editing, close: Callback<()>) -> impl IntoView {
    let reset_all = move |_| {
        let n = ed.edits().len();
        let sure = web_sys::window().is_some_and(|w| {
            w.confirm_with_message(&format!(
                "Put all {n} edited templates back to the paper's? (Export them first to keep a copy.)"
            ))
            .unwrap_or(false)
        });
        if sure {
            ed.set(BTreeMap::new());
        }
    };
    view! {
        <footer class="dialog-foot">
            <span class="muted small prompts-count">{move || match ed.edits().len() {
                0 => "The paper's prompts.".to_string(),
                1 => "1 template edited.".to_string(),
                n => format!("{n} templates edited."),
            }}</span>
            <label class="button small file-button">"Import…"
                <input type="file" accept=".txt,text/plain" on:change=move |ev| import(ed, ev)/>
            </label>
            <button type="button" class="button small" on:click=move |_| export(ed)>"Export…"</button>
            <button type="button" class="button small" disabled=move || ed.edits().is_empty() on:click=reset_all>"Reset all"</button>
            <button type="button" class="button primary" on:click=move |_| close.run(())>"Done"</button>
        </footer>
    }
}

/// Downloads the set as a prompt file (refused while a template cannot
/// be used).
fn export(ed: Editing) {
    let Some(Ok(p)) = untrack(|| ed.checked()) else {
        ed.import_error.set(Some(
            "Fix the template that cannot be used before exporting.".into(),
        ));
        return;
    };
    let c = ed.coordinator.get_untracked();
    let name = info(&c).map_or(c.as_str(), |i| i.name);
    let file = file_of(
        &p,
        &format!("The prompts of {name}, from Roundtable's Prompts dialog."),
    );
    if let Err(e) =
        crate::platform::files::download_text(&format!("{c}-prompts.txt"), "text/plain", &file)
    {
        ed.import_error.set(Some(e));
    }
}

/// Takes a picked prompt file's edits, checked first: a refused file
/// changes nothing.
fn import(ed: Editing, ev: leptos::ev::Event) {
    let files = crate::platform::files::picked(&ev);
    let Some(file) = files.into_iter().next() else {
        return;
    };
    let c = ed.coordinator.get_untracked();
    leptos::task::spawn_local(async move {
        let text = match crate::platform::files::read_text(&file).await {
            Ok(t) => t,
            Err(e) => return ed.import_error.set(Some(format!("{}: {e}", file.name()))),
        };
        let Some((d, specs)) = prompt_templates(&c) else {
            return;
        };
        match edits_in_file(&text, d, specs) {
            Ok(e) => {
                ed.import_error.set(None);
                set_edits(ed.app, &c, e);
            }
            Err(e) => ed
                .import_error
                .set(Some(format!("{} was not imported: {e}", file.name()))),
        }
    });
}
