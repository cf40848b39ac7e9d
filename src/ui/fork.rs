//! The fork dialog: continue a run from one of its LLM calls, optionally
//! editing that call's request messages or its recorded answer. Earlier
//! calls are answered from the log at no cost; the rest run live.

use super::state::{use_app, AppState};
use crate::engine::model::Role;
use crate::engine::run::fork::ForkEdit;
use crate::engine::run::{RunDoc, RunEvent};
use crate::ui::widgets::DialogHead;
use leptos::html;
use leptos::prelude::*;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Unchanged,
    Answer,
    Request,
}

/// What the dialog edits of the call it forks at.
#[derive(Clone, Copy)]
struct Edits {
    mode: RwSignal<Mode>,
    /// The call's request messages (role, text).
    messages: RwSignal<Vec<(Role, String)>>,
    /// The call's recorded answer.
    answer: RwSignal<String>,
    /// Who made the call.
    agent: RwSignal<String>,
}

impl Edits {
    fn new() -> Self {
        Edits {
            mode: RwSignal::new(Mode::Unchanged),
            messages: RwSignal::new(Vec::new()),
            answer: RwSignal::new(String::new()),
            agent: RwSignal::new(String::new()),
        }
    }

    /// Reads call `k`'s request, agent and answer from the shown run.
    fn load(self, app: AppState, k: u32) {
        app.events.with_untracked(|evs| {
            for e in evs {
                match &e.event {
                    RunEvent::LlmRequest {
                        call,
                        agent: a,
                        request,
                        ..
                    } if *call == k => {
                        self.messages.set(
                            request
                                .messages
                                .iter()
                                .map(|m| (m.role, m.content.clone()))
                                .collect(),
                        );
                        self.agent.set(
                            app.view
                                .with_untracked(|v| v.transcript.name_of(a).to_string()),
                        );
                    }
                    RunEvent::LlmResponse { call, response, .. } if *call == k => {
                        self.answer.set(response.text.clone())
                    }
                    _ => {}
                }
            }
        });
    }

    /// The change the user asks for at call `k` of `doc`.
    fn edit(self, doc: &RunDoc, k: u32) -> ForkEdit {
        match self.mode.get_untracked() {
            Mode::Unchanged => ForkEdit::None,
            Mode::Answer => ForkEdit::Response {
                text: self.answer.get_untracked(),
            },
            Mode::Request => {
                let original = doc.events.iter().find_map(|e| match &e.event {
                    RunEvent::LlmRequest { call, request, .. } if *call == k => {
                        Some(request.messages.clone())
                    }
                    _ => None,
                });
                let mut msgs = original.unwrap_or_default();
                for (m, (_, text)) in msgs.iter_mut().zip(self.messages.get_untracked()) {
                    m.content = text;
                }
                ForkEdit::Request { messages: msgs }
            }
        }
    }
}

/// The LLM calls of the shown run.
fn call_count(app: AppState) -> usize {
    app.events
        .with(|e| e.iter().filter(|x| x.event.kind() == "llm_request").count())
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

#[component]
pub fn ForkDialog() -> impl IntoView {
    let app = use_app();
    let dialog = NodeRef::<html::Dialog>::new();
    let edits = Edits::new();
    Effect::new(move |_| {
        let at = app.fork_at.get();
        let Some(d) = dialog.get() else { return };
        match at {
            Some(k) => {
                edits.mode.set(Mode::Unchanged);
                edits.load(app, k);
                if !d.open() {
                    let _ = d.show_modal();
                }
            }
            None if d.open() => d.close(),
            None => {}
        }
    });
    let start = move |_| {
        let (Some(k), Some(doc)) = (app.fork_at.get_untracked(), app.doc()) else {
            return;
        };
        let edit = edits.edit(&doc, k);
        app.fork_at.set(None);
        super::launch::fork(app, doc, k, edit);
    };
    let mode = edits.mode;
    view! {
        <dialog class="fork" node_ref=dialog aria-labelledby="fork-title"
            on:close=move |_: leptos::ev::Event| app.fork_at.set(None)>
            <DialogHead id="fork-title" title=Signal::derive(move || format!("Fork at call {} of {}", app.fork_at.get().map(|k| k + 1).unwrap_or(0), call_count(app))) on_close=Callback::new(move |()| app.fork_at.set(None))/>
            <p class="muted small">{move || format!(
                "Calls 1 to {} are answered from this run's log at no cost. From call {} on, the run continues live with {}.",
                app.fork_at.get().unwrap_or(0),
                app.fork_at.get().map(|k| k + 1).unwrap_or(1),
                app.settings.with(|s| s.label())
            )}</p>
            <CallPicker agent=edits.agent/>
            <fieldset class="fork-modes">
                <legend>"At this call"</legend>
                <ModeRadio mode=mode value=Mode::Unchanged label="Send it live unchanged"/>
                <ModeRadio mode=mode value=Mode::Answer label="Use my edited answer"/>
                <ModeRadio mode=mode value=Mode::Request label="Send my edited request live"/>
            </fieldset>
            <Show when=move || mode.get() == Mode::Answer>
                <AnswerEditor answer=edits.answer/>
            </Show>
            <Show when=move || mode.get() == Mode::Request>
                <RequestEditor messages=edits.messages/>
            </Show>
            <footer class="dialog-foot">
                <button class="button" on:click=move |_| app.fork_at.set(None)>"Cancel"</button>
                <button class="button primary" on:click=start>"Fork and continue"</button>
            </footer>
        </dialog>
    }
}

/// The call to fork at, and who made it.
#[component]
fn CallPicker(agent: RwSignal<String>) -> impl IntoView {
    let app = use_app();
    view! {
        <div class="field">
            <label for="fork-call">"Fork at call"</label>
            <select id="fork-call" prop:value=move || app.fork_at.get().unwrap_or(0).to_string()
                on:change=move |ev| app.fork_at.set(event_target_value(&ev).parse().ok())>
                {move || (0..call_count(app)).map(|i| view! { <option value=i.to_string()>{format!("Call {}", i + 1)}</option> }).collect_view()}
            </select>
            <p class="hint">{move || format!("This call was made by {}.", agent.get())}</p>
        </div>
    }
}

/// One choice of what to do at the call.
#[component]
fn ModeRadio(mode: RwSignal<Mode>, value: Mode, label: &'static str) -> impl IntoView {
    view! {
        <label class="check">
            <input type="radio" name="fork-mode" prop:checked=move || mode.get() == value on:change=move |_| mode.set(value)/>
            {label}
        </label>
    }
}

/// The recorded answer, to edit.
#[component]
fn AnswerEditor(answer: RwSignal<String>) -> impl IntoView {
    view! {
        <div class="field">
            <label for="fork-answer">"Answer"</label>
            <textarea id="fork-answer" rows="8" prop:value=move || answer.get() on:input=move |ev| answer.set(event_target_value(&ev))></textarea>
        </div>
    }
}

/// The request's messages, to edit.
#[component]
fn RequestEditor(messages: RwSignal<Vec<(Role, String)>>) -> impl IntoView {
    view! {
        <div class="fork-messages">
            {move || messages.get().into_iter().enumerate().map(|(i, (role, text))| {
                let label = format!("Message {} ({})", i + 1, role_name(role));
                let id = format!("fork-msg-{i}");
                view! {
                    <div class="field">
                        <label for=id.clone()>{label}</label>
                        <textarea id=id rows="4" prop:value=text
                            on:change=move |ev| messages.update(|m| if let Some(x) = m.get_mut(i) { x.1 = event_target_value(&ev) })></textarea>
                    </div>
                }
            }).collect_view()}
        </div>
    }
}
