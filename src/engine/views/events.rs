//! One-line summaries of events for the Events tab and the CLI.

use crate::engine::model::{ChatRequest, ChatResponse};
use crate::engine::run::event::{Audience, RunEvent};

fn clip(s: &str, n: usize) -> String {
    let one_line = s.replace(['\n', '\r'], " ");
    if one_line.chars().count() > n {
        format!("{}…", one_line.chars().take(n).collect::<String>())
    } else {
        one_line
    }
}

pub fn summarize(ev: &RunEvent) -> String {
    match ev {
        RunEvent::RunStarted { config } => format!(
            "{} run on {} — “{}”",
            config.coordinator,
            config.model_label(),
            clip(&config.task, 60)
        ),
        RunEvent::AgentAdded {
            name, role, model, ..
        } => format!("{name} ({role}) joined, model {model}"),
        RunEvent::PhaseStarted { label, .. } => format!("phase “{label}” started"),
        RunEvent::PhaseEnded { phase } => format!("phase {phase} ended"),
        RunEvent::LlmQueued { agent } => {
            format!("{agent} waits for a free slot (all parallel calls taken)")
        }
        RunEvent::LlmRequest {
            call,
            agent,
            model,
            request,
        } => request_line(*call, agent, model, request),
        RunEvent::LlmDelta { call, text } => format!("call {call}: “{}”", clip(text, 60)),
        RunEvent::LlmRetry {
            call,
            attempt,
            error,
            wait_ms,
        } => format!(
            "call {call}: attempt {attempt} failed ({}), retry in {wait_ms} ms",
            error.kind()
        ),
        RunEvent::LlmResponse {
            call,
            response,
            latency_ms,
            retries,
        } => response_line(*call, response, *latency_ms, *retries),
        RunEvent::LlmFailed { call, error, .. } => format!("call {call} failed: {}", error.kind()),
        RunEvent::ToolCalled {
            agent, tool, args, ..
        } => format!("{agent} calls {tool} {}", clip(&args.to_string(), 60)),
        RunEvent::ToolReturned { ok, output, .. } => format!(
            "{} {}",
            if *ok { "returned" } else { "error:" },
            clip(output, 60)
        ),
        RunEvent::MessagePosted { from, to, text, .. } => {
            let to = match to {
                Audience::Public => "everyone".to_string(),
                Audience::To(list) => list.join(", "),
            };
            format!("{from} → {to}: “{}”", clip(text, 60))
        }
        RunEvent::Handoff { from, to, .. } => format!("{from} hands control to {to}"),
        RunEvent::NoteWritten {
            agent, store, key, ..
        } => format!(
            "{agent} wrote to {store}{}",
            key.as_ref().map(|k| format!(" ({k})")).unwrap_or_default()
        ),
        RunEvent::FileWritten {
            agent, path, text, ..
        } => format!(
            "{agent} wrote {} ({} lines)",
            clip(path, 60),
            text.lines().count()
        ),
        RunEvent::ReplyRepaired { call, repairs } => format!(
            "reply of call {call} repaired: {}",
            repairs
                .iter()
                .map(|r| r.kind.label())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        RunEvent::ScoreComputed { name, value, .. } => format!("{name} = {value}"),
        RunEvent::RunFinished { .. } => "run finished".into(),
        RunEvent::RunFailed { reason } => format!(
            "run failed ({}): {}",
            reason.kind,
            clip(&reason.message, 80)
        ),
        RunEvent::RunCancelled {
            interrupted: Some(by),
        } => format!("run interrupted ({by})"),
        RunEvent::RunCancelled { interrupted: None } => "run cancelled".into(),
    }
}

/// An LLM request: who asks which model, with how many messages and tools.
fn request_line(call: u32, agent: &str, model: &str, request: &ChatRequest) -> String {
    format!(
        "call {call}: {agent} → {model}, {} message{}{}",
        request.messages.len(),
        if request.messages.len() == 1 { "" } else { "s" },
        if request.tools.is_empty() {
            String::new()
        } else {
            format!(", {} tools", request.tools.len())
        }
    )
}

/// An LLM response: its tokens, latency, retries and tool calls.
fn response_line(call: u32, response: &ChatResponse, latency_ms: u64, retries: u32) -> String {
    format!(
        "call {call}: {} in / {} out tokens{}, {latency_ms} ms{}{}",
        response.usage.input_tokens,
        response.usage.output_tokens,
        if response.usage.estimated {
            " (estimated)"
        } else {
            ""
        },
        if retries > 0 {
            format!(", {retries} retries")
        } else {
            String::new()
        },
        if response.tool_calls.is_empty() {
            String::new()
        } else {
            format!(", {} tool calls", response.tool_calls.len())
        }
    )
}
