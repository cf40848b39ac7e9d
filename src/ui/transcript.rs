//! The streamed transcript. Model output is rendered as Markdown through
//! `to_safe_html`: raw HTML is shown as text and never executed.

use super::graph::agent_color;
use super::state::{use_app, Activity, AppState};
use crate::engine::run::Audience;
use crate::engine::views::markdown::to_safe_html;
use crate::engine::views::transcript::{Entry, EntryKind, NoticeLevel, Transcript};
use leptos::html;
use leptos::prelude::*;

fn audience_label(t: &Transcript, to: &Option<Audience>) -> String {
    match to {
        None => "private (not posted)".into(),
        Some(Audience::Public) => "to everyone".into(),
        Some(Audience::To(list)) => {
            let names: Vec<&str> = list.iter().map(|id| t.name_of(id)).collect();
            format!("to {}", names.join(", "))
        }
    }
}

fn render_entry(e: Entry, t: &Transcript, app: AppState) -> AnyView {
    match e.kind {
        EntryKind::Message {
            from,
            to,
            text,
            streaming,
            tool_calls,
            call,
        } => {
            let name = t.name_of(&from).to_string();
            let initial: String = name.chars().next().unwrap_or('?').to_uppercase().collect();
            let color = if from == "user" {
                "var(--muted)".to_string()
            } else {
                agent_color(&from)
            };
            let to_label = if from == "user" {
                String::new()
            } else {
                audience_label(t, &to)
            };
            let html = to_safe_html(&text);
            let empty = text.is_empty() && streaming;
            view! {
                <article class="msg" class:streaming=streaming class:from-user=from == "user" data-call=call.map(|c| c.to_string())>
                    <div class="avatar" style=format!("background:{color}") aria-hidden="true">{initial}</div>
                    <div class="msg-main">
                        <header class="msg-head">
                            <span class="msg-name">{name}</span>
                            <span class="muted small">{to_label}</span>
                            {streaming.then(|| view! { <span class="typing" aria-label="streaming">"●●●"</span> })}
                            {call.filter(|_| !streaming).map(|c| view! {
                                <button class="link-button small fork-btn" title="Continue the run from this LLM call, optionally editing it"
                                    disabled=move || app.activity.get() != Activity::Idle
                                    on:click=move |_| app.fork_at.set(Some(c))>"Fork here"</button>
                            })}
                        </header>
                        {if empty {
                            view! { <p class="muted small">"Waiting for the first tokens…"</p> }.into_any()
                        } else {
                            view! { <div class="md" inner_html=html></div> }.into_any()
                        }}
                        {(!tool_calls.is_empty()).then(|| view! {
                            <ul class="tool-chips">
                                {tool_calls.into_iter().map(|c| view! { <li class="chip">{format!("{}({})", c.name, c.arguments)}</li> }).collect_view()}
                            </ul>
                        })}
                    </div>
                </article>
            }
            .into_any()
        }
        EntryKind::Tool {
            agent,
            tool,
            args,
            output,
            ..
        } => {
            let who = t.name_of(&agent).to_string();
            let (state, out) = match output {
                None => ("pending", "…".to_string()),
                Some((true, o)) => ("ok", o),
                Some((false, o)) => ("error", o),
            };
            view! {
                <details class=format!("tool tool-{state}")>
                    <summary><span class="muted small">{who}</span>" "<code>{format!("{tool}({args})")}</code></summary>
                    <pre>{out}</pre>
                </details>
            }
            .into_any()
        }
        EntryKind::Handoff { from, to, reason } => view! {
            <div class="handoff">
                {format!("{} → {}", t.name_of(&from), t.name_of(&to))}
                <span class="muted small">{reason}</span>
            </div>
        }
        .into_any(),
        EntryKind::Phase { label } => {
            view! { <div class="phase"><span>{label}</span></div> }.into_any()
        }
        EntryKind::Notice { level, text } => {
            let class = match level {
                NoticeLevel::Info => "notice info",
                NoticeLevel::Warning => "notice warning",
                NoticeLevel::Error => "notice error",
                NoticeLevel::Success => "notice success",
            };
            view! { <div class=class><p>{text}</p></div> }.into_any()
        }
    }
}

#[component]
pub fn TranscriptPanel() -> impl IntoView {
    let app = use_app();
    let log_ref = NodeRef::<html::Div>::new();
    let stick = StoredValue::new(true);
    let on_scroll = move |_| {
        if let Some(el) = log_ref.get_untracked() {
            let at_bottom = el.scroll_top() + el.client_height() >= el.scroll_height() - 48;
            stick.set_value(at_bottom);
        }
    };
    Effect::new(move |_| {
        app.view.track();
        if stick.get_value() {
            if let Some(el) = log_ref.get_untracked() {
                el.set_scroll_top(el.scroll_height());
            }
        }
    });
    let entries = move || app.view.with(|v| v.transcript.entries.clone());
    let task_preview = move || app.events.with(|e| e.is_empty());
    view! {
        <div class="transcript" role="log" aria-label="Transcript" aria-live="polite" node_ref=log_ref on:scroll=on_scroll>
            <Show when=move || !task_preview() fallback=|| view! { <EmptyTranscript/> }>
                <For
                    each=entries
                    key=|e: &Entry| (e.id, e.version)
                    children=move |e: Entry| app.view.with_untracked(|v| render_entry(e, &v.transcript, app))
                />
            </Show>
        </div>
    }
}

#[component]
fn EmptyTranscript() -> impl IntoView {
    let app = use_app();
    view! {
        <div class="empty">
            <svg viewBox="0 0 120 80" class="empty-art" aria-hidden="true">
                <ellipse cx="60" cy="44" rx="34" ry="18" class="table"/>
                <circle cx="60" cy="16" r="7" class="seat"/>
                <circle cx="22" cy="40" r="7" class="seat"/>
                <circle cx="98" cy="40" r="7" class="seat"/>
                <circle cx="40" cy="70" r="7" class="seat"/>
                <circle cx="80" cy="70" r="7" class="seat"/>
            </svg>
            <h3>"No run yet"</h3>
            <p class="muted">"Write a task and press Run. The conversation streams here as the agents work."</p>
            {move || app.settings.with(|s| s.is_demo()).then(|| view! {
                <p class="muted small">"You are on the offline demo model: scripted answers, no key needed. Open Settings to use a real provider."</p>
            })}
        </div>
    }
}
