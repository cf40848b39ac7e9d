//! The fork dialog: continue a run from one of its LLM calls, optionally
//! editing that call's request messages or its recorded answer. Earlier
//! calls are answered from the log at no cost; the rest run live.

use super::state::use_app;
use crate::engine::model::Role;
use crate::engine::run::fork::ForkEdit;
use crate::engine::run::RunEvent;
use crate::ui::widgets::DialogHead;
use leptos::html;
use leptos::prelude::*;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Unchanged,
    Answer,
    Request,
}

#[component]
pub fn ForkDialog() -> impl IntoView {
    let app = use_app();
    let dialog = NodeRef::<html::Dialog>::new();
    let mode = RwSignal::new(Mode::Unchanged);
    let messages = RwSignal::new(Vec::<(Role, String)>::new());
    let answer = RwSignal::new(String::new());
    let agent = RwSignal::new(String::new());
    Effect::new(move |_| {
        let at = app.fork_at.get();
        let Some(d) = dialog.get() else { return };
        match at {
            Some(k) => {
                mode.set(Mode::Unchanged);
                app.events.with_untracked(|evs| {
                    for e in evs {
                        match &e.event {
                            RunEvent::LlmRequest {
                                call,
                                agent: a,
                                request,
                                ..
                            } if *call == k => {
                                messages.set(
                                    request
                                        .messages
                                        .iter()
                                        .map(|m| (m.role, m.content.clone()))
                                        .collect(),
                                );
                                agent.set(
                                    app.view
                                        .with_untracked(|v| v.transcript.name_of(a).to_string()),
                                );
                            }
                            RunEvent::LlmResponse { call, response, .. } if *call == k => {
                                answer.set(response.text.clone())
                            }
                            _ => {}
                        }
                    }
                });
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
        let edit = match mode.get_untracked() {
            Mode::Unchanged => ForkEdit::None,
            Mode::Answer => ForkEdit::Response {
                text: answer.get_untracked(),
            },
            Mode::Request => {
                let original = doc.events.iter().find_map(|e| match &e.event {
                    RunEvent::LlmRequest { call, request, .. } if *call == k => {
                        Some(request.messages.clone())
                    }
                    _ => None,
                });
                let mut msgs = original.unwrap_or_default();
                for (m, (_, text)) in msgs.iter_mut().zip(messages.get_untracked()) {
                    m.content = text;
                }
                ForkEdit::Request { messages: msgs }
            }
        };
        app.fork_at.set(None);
        app.fork(doc, k, edit);
    };
    let calls = move || {
        app.events
            .with(|e| e.iter().filter(|x| x.event.kind() == "llm_request").count())
    };
    let radio = move |m: Mode, label: &'static str| {
        view! {
            <label class="check">
                <input type="radio" name="fork-mode" prop:checked=move || mode.get() == m on:change=move |_| mode.set(m)/>
                {label}
            </label>
        }
    };
    view! {
        <dialog class="fork" node_ref=dialog aria-labelledby="fork-title"
            on:close=move |_: leptos::ev::Event| app.fork_at.set(None)>
            <DialogHead id="fork-title" title=Signal::derive(move || format!("Fork at call {} of {}", app.fork_at.get().map(|k| k + 1).unwrap_or(0), calls())) on_close=Callback::new(move |()| app.fork_at.set(None))/>
            <p class="muted small">{move || format!(
                "Calls 1 to {} are answered from this run's log at no cost. From call {} on, the run continues live with {}.",
                app.fork_at.get().unwrap_or(0),
                app.fork_at.get().map(|k| k + 1).unwrap_or(1),
                app.settings.with(|s| s.label())
            )}</p>
            <div class="field">
                <label for="fork-call">"Fork at call"</label>
                <select id="fork-call" prop:value=move || app.fork_at.get().unwrap_or(0).to_string()
                    on:change=move |ev| app.fork_at.set(event_target_value(&ev).parse().ok())>
                    {move || (0..calls()).map(|i| view! { <option value=i.to_string()>{format!("Call {}", i + 1)}</option> }).collect_view()}
                </select>
                <p class="hint">{move || format!("This call was made by {}.", agent.get())}</p>
            </div>
            <fieldset class="fork-modes">
                <legend>"At this call"</legend>
                {radio(Mode::Unchanged, "Send it live unchanged")}
                {radio(Mode::Answer, "Use my edited answer")}
                {radio(Mode::Request, "Send my edited request live")}
            </fieldset>
            <Show when=move || mode.get() == Mode::Answer>
                <div class="field">
                    <label for="fork-answer">"Answer"</label>
                    <textarea id="fork-answer" rows="8" prop:value=move || answer.get() on:input=move |ev| answer.set(event_target_value(&ev))></textarea>
                </div>
            </Show>
            <Show when=move || mode.get() == Mode::Request>
                <div class="fork-messages">
                    {move || messages.get().into_iter().enumerate().map(|(i, (role, text))| {
                        let label = format!("Message {} ({})", i + 1, match role { Role::System => "system", Role::User => "user", Role::Assistant => "assistant", Role::Tool => "tool" });
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
            </Show>
            <footer class="dialog-foot">
                <button class="button" on:click=move |_| app.fork_at.set(None)>"Cancel"</button>
                <button class="button primary" on:click=start>"Fork and continue"</button>
            </footer>
        </dialog>
    }
}
