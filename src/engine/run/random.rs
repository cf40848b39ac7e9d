//! Random runs for property tests and fuzzing: every event kind, streamed
//! deltas that do and do not add up to the answer, retries, odd strings
//! (unicode, `~` prefixes, empty), gaps in sequence numbers.

use super::config::RunConfig;
use super::event::{Audience, FailReason, LoggedEvent, RunEvent};
use super::log::RunDoc;
use crate::engine::model::providers::http::WireFormat;
use crate::engine::model::reply::{Repair, RepairKind};
use crate::engine::model::retry::SplitMix;
use crate::engine::model::spec::ModelSpec;
use crate::engine::model::{
    ChatRequest, ChatResponse, Message, ModelError, ToolCall, ToolSpec, Usage,
};
use serde_json::json;

const WORDS: &[&str] = &[
    "plan",
    "~tilde",
    "~~double",
    "",
    " ",
    "hotel",
    "Zürich",
    "東京",
    "🎉",
    "\"quoted\"",
    "back\\slash",
    "line\nbreak",
    "a long repeated system prompt that appears in many requests",
    "null",
    "0",
    "-",
    "~0",
    "~zz",
];

fn pick<'a>(rng: &mut SplitMix, items: &'a [&'a str]) -> &'a str {
    items[(rng.next_u64() % items.len() as u64) as usize]
}

fn text(rng: &mut SplitMix) -> String {
    let n = rng.next_u64() % 8;
    (0..n)
        .map(|_| pick(rng, WORDS))
        .collect::<Vec<_>>()
        .join(" ")
}

fn float(rng: &mut SplitMix) -> f64 {
    match rng.next_u64() % 4 {
        0 => 0.0,
        1 => (rng.next_u64() % 1000) as f64 / 7.0,
        2 => f64::from_bits(rng.next_u64() >> 2), // arbitrary finite positive
        _ => -rng.unit() * 1e6,
    }
}

fn error(rng: &mut SplitMix) -> ModelError {
    match rng.next_u64() % 5 {
        0 => ModelError::RateLimited {
            retry_after_ms: Some(rng.next_u64() % 5000),
            detail: text(rng),
        },
        1 => ModelError::Server {
            status: 500 + (rng.next_u64() % 100) as u16,
            detail: text(rng),
        },
        2 => ModelError::Network {
            detail: text(rng),
            hint: Some(text(rng)),
        },
        3 => ModelError::Timeout {
            after_ms: rng.next_u64() % 100_000,
        },
        _ => ModelError::Malformed { detail: text(rng) },
    }
}

fn config(rng: &mut SplitMix) -> RunConfig {
    let mut spec = ModelSpec::demo();
    if rng.next_u64() % 2 == 0 {
        spec = ModelSpec {
            provider: "openai".into(),
            format: Some(WireFormat::OpenaiCompatible),
            base_url: "https://api.example.org/v1".into(),
            model: text(rng),
            sampling: crate::engine::model::spec::Sampling {
                temperature: Some(0.5),
                ..Default::default()
            },
            file_sha256: None,
            max_tokens: None,
        };
    }
    let mut c = RunConfig::new(pick(rng, &["single", "travel", "act"]), &text(rng), spec);
    c.run_id = format!("run-{}", rng.next_u64());
    c.created_ms = (rng.next_u64() % 2_000_000_000_000) as f64;
    c.seed = rng.next_u64();
    if rng.next_u64() % 3 == 0 {
        c.options = json!({"system_prompt": text(rng), "n": rng.next_u64() % 10});
    }
    c
}

/// One LLM call's events: request, deltas (maybe with a failed attempt
/// first), and a response or a failure.
fn llm_call(rng: &mut SplitMix, call: u32, agent: &str, out: &mut Vec<RunEvent>) {
    let mut req = ChatRequest::new(vec![Message::system(WORDS[12]), Message::user(text(rng))])
        .with_step("x.step");
    if rng.next_u64() % 3 == 0 {
        req.tools = vec![ToolSpec {
            name: "T".into(),
            description: text(rng),
            parameters: json!({"type": "object"}),
        }];
    }
    out.push(RunEvent::LlmRequest {
        call,
        agent: agent.into(),
        model: "m".into(),
        request: req,
    });
    let mut retries = 0;
    if rng.next_u64() % 4 == 0 {
        out.push(RunEvent::LlmDelta {
            call,
            text: text(rng),
        });
        out.push(RunEvent::LlmRetry {
            call,
            attempt: 1,
            error: error(rng),
            wait_ms: rng.next_u64() % 3000,
        });
        retries = 1;
    }
    let answer = text(rng);
    let consistent = rng.next_u64() % 4 != 0;
    let mut rest = answer.as_str();
    while !rest.is_empty() {
        let mut cut = ((rng.next_u64() % 6) as usize + 1).min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (piece, tail) = rest.split_at(cut);
        out.push(RunEvent::LlmDelta {
            call,
            text: if consistent { piece.into() } else { text(rng) },
        });
        rest = tail;
    }
    if rng.next_u64() % 6 == 0 {
        out.push(RunEvent::LlmFailed {
            call,
            error: error(rng),
            retries,
        });
        return;
    }
    let tool_calls = if rng.next_u64() % 3 == 0 {
        vec![ToolCall {
            id: format!("c{call}"),
            name: "T".into(),
            arguments: "{\"city\":\"~x\"}".into(),
        }]
    } else {
        Vec::new()
    };
    out.push(RunEvent::LlmResponse {
        call,
        response: ChatResponse {
            text: answer,
            tool_calls,
            usage: Usage {
                input_tokens: rng.next_u64() % 10_000,
                output_tokens: rng.next_u64() % 1000,
                estimated: rng.next_u64() % 2 == 0,
            },
            finish_reason: Some("stop".into()),
            model: Some("m".into()),
            replayed: false,
            structured: None,
        },
        latency_ms: rng.next_u64() % 10_000,
        retries,
    });
}

pub fn random_run(rng: &mut SplitMix, max_events: usize) -> RunDoc {
    let cfg = config(rng);
    let mut evs = vec![RunEvent::RunStarted {
        config: if rng.next_u64() % 5 == 0 {
            config(rng)
        } else {
            cfg.clone()
        },
    }];
    let agents = ["lead", "hotel", "~agent", "食"];
    for a in agents {
        evs.push(RunEvent::AgentAdded {
            agent: a.into(),
            role: text(rng),
            name: text(rng),
            model: "m".into(),
        });
    }
    let mut call = 0;
    while evs.len() < max_events {
        let agent = pick(rng, &agents).to_string();
        match rng.next_u64() % 9 {
            0 | 1 => {
                llm_call(rng, call, &agent, &mut evs);
                call += 1;
            }
            kind => other_event(rng, kind, call, agent, &mut evs),
        }
    }
    evs.push(run_end(rng));
    RunDoc::new(cfg, logged(rng, evs))
}

/// An event other than an LLM call's, of `kind` (2 to 8), by `agent`;
/// `call` is the next call's number.
fn other_event(rng: &mut SplitMix, kind: u64, call: u32, agent: String, evs: &mut Vec<RunEvent>) {
    match kind {
        2 => evs.push(RunEvent::PhaseStarted {
            phase: text(rng),
            label: text(rng),
        }),
        3 => evs.push(RunEvent::PhaseEnded { phase: text(rng) }),
        4 => {
            evs.push(RunEvent::ToolCalled {
                id: text(rng),
                agent: agent.clone(),
                tool: "T".into(),
                args: json!({"a": text(rng), "n": [1, 2.5, null]}),
                call: Some(call),
            });
            evs.push(RunEvent::ToolReturned {
                id: text(rng),
                agent,
                ok: rng.next_u64() % 2 == 0,
                output: text(rng),
            });
        }
        5 => evs.push(RunEvent::MessagePosted {
            from: agent,
            to: if rng.next_u64() % 2 == 0 {
                Audience::Public
            } else {
                Audience::To(vec!["lead".into(), text(rng)])
            },
            text: text(rng),
            call: (rng.next_u64() % 2 == 0).then_some(call.saturating_sub(1)),
        }),
        6 => evs.push(RunEvent::Handoff {
            from: agent,
            to: "hotel".into(),
            reason: text(rng),
        }),
        7 => evs.push(RunEvent::NoteWritten {
            agent,
            store: "notebook".into(),
            key: Some(text(rng)),
            payload: json!({"rows": [text(rng), text(rng)], "x": float(rng)}),
        }),
        8 if rng.next_u64() % 2 == 0 => evs.push(RunEvent::FileWritten {
            agent,
            path: format!("{}/{}.py", text(rng), text(rng)),
            text: text(rng),
            call: (call > 0).then(|| call - 1),
        }),
        _ if call > 0 && rng.next_u64() % 3 == 0 => evs.push(RunEvent::ReplyRepaired {
            call: call - 1,
            repairs: vec![
                Repair::new(RepairKind::Closed, text(rng)),
                Repair::new(RepairKind::Default, text(rng)),
            ],
        }),
        _ => evs.push(RunEvent::ScoreComputed {
            name: text(rng),
            value: float(rng),
            agent: Some(agent),
            detail: json!({"k": text(rng)}),
        }),
    }
}

/// How the run ends: failed, cancelled, or finished (with or without an
/// output).
fn run_end(rng: &mut SplitMix) -> RunEvent {
    match rng.next_u64() % 4 {
        0 => RunEvent::RunFailed {
            reason: FailReason {
                kind: "model".into(),
                message: text(rng),
                model_error: Some(error(rng)),
            },
        },
        1 => RunEvent::RunCancelled { interrupted: None },
        2 => RunEvent::RunFinished { output: None },
        _ => RunEvent::RunFinished {
            output: Some(text(rng)),
        },
    }
}

/// The events with their sequence numbers (sometimes with gaps) and
/// times.
fn logged(rng: &mut SplitMix, evs: Vec<RunEvent>) -> Vec<LoggedEvent> {
    let gaps = rng.next_u64() % 5 == 0;
    let mut seq = 0u64;
    let mut t = 0u64;
    evs.into_iter()
        .map(|event| {
            let e = LoggedEvent {
                seq,
                t_ms: t,
                event,
            };
            seq += if gaps { 1 + rng.next_u64() % 3 } else { 1 };
            t += rng.next_u64() % 400;
            e
        })
        .collect()
}
