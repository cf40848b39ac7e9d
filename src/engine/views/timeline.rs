//! The replay timeline: phase bands, one lane per agent with its LLM calls
//! as spans, and the positions (event indices) of LLM calls for jumping.

use crate::engine::run::{LoggedEvent, RunEvent};
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    pub label: String,
    pub start_ms: u64,
    pub end_ms: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub call: u32,
    pub start_ms: u64,
    pub end_ms: u64,
    pub failed: bool,
    /// Index of the `llm_request` event.
    pub event: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    pub agent: String,
    pub name: String,
    pub calls: Vec<Span>,
    /// Times of messages, hand-offs and tool calls by this agent.
    pub marks: Vec<u64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    pub duration_ms: u64,
    pub bands: Vec<Band>,
    pub lanes: Vec<Lane>,
    /// Event index of every `llm_request`, in order.
    pub call_starts: Vec<usize>,
}

impl Timeline {
    pub fn of(events: &[LoggedEvent]) -> Timeline {
        let mut t = Timeline {
            duration_ms: events.last().map(|e| e.t_ms).unwrap_or(0),
            ..Timeline::default()
        };
        let mut open_phases: Vec<(String, String, u64)> = Vec::new();
        let mut open_calls: HashMap<u32, (usize, usize)> = HashMap::new(); // call -> (lane, span)
        let lane_of = |t: &mut Timeline, agent: &str| -> usize {
            match t.lanes.iter().position(|l| l.agent == agent) {
                Some(i) => i,
                None => {
                    t.lanes.push(Lane {
                        agent: agent.into(),
                        name: agent.into(),
                        calls: Vec::new(),
                        marks: Vec::new(),
                    });
                    t.lanes.len() - 1
                }
            }
        };
        for (i, e) in events.iter().enumerate() {
            match &e.event {
                RunEvent::AgentAdded { agent, name, .. } => {
                    let l = lane_of(&mut t, agent);
                    t.lanes[l].name = name.clone();
                }
                RunEvent::PhaseStarted { phase, label } => {
                    open_phases.push((phase.clone(), label.clone(), e.t_ms))
                }
                RunEvent::PhaseEnded { phase } => {
                    if let Some(p) = open_phases.iter().rposition(|(id, _, _)| id == phase) {
                        let (_, label, start) = open_phases.remove(p);
                        t.bands.push(Band {
                            label,
                            start_ms: start,
                            end_ms: e.t_ms,
                        });
                    }
                }
                RunEvent::LlmRequest { call, agent, .. } => {
                    t.call_starts.push(i);
                    let l = lane_of(&mut t, agent);
                    t.lanes[l].calls.push(Span {
                        call: *call,
                        start_ms: e.t_ms,
                        end_ms: t.duration_ms,
                        failed: false,
                        event: i,
                    });
                    open_calls.insert(*call, (l, t.lanes[l].calls.len() - 1));
                }
                RunEvent::LlmResponse { call, .. } | RunEvent::LlmFailed { call, .. } => {
                    if let Some((l, s)) = open_calls.remove(call) {
                        let span = &mut t.lanes[l].calls[s];
                        span.end_ms = e.t_ms;
                        span.failed = matches!(e.event, RunEvent::LlmFailed { .. });
                    }
                }
                RunEvent::MessagePosted { from, .. } | RunEvent::Handoff { from, .. } => {
                    if let Some(l) = t.lanes.iter().position(|l| &l.agent == from) {
                        t.lanes[l].marks.push(e.t_ms);
                    }
                }
                RunEvent::ToolCalled { agent, .. } => {
                    if let Some(l) = t.lanes.iter().position(|l| &l.agent == agent) {
                        t.lanes[l].marks.push(e.t_ms);
                    }
                }
                _ => {}
            }
        }
        for (_, label, start) in open_phases {
            t.bands.push(Band {
                label,
                start_ms: start,
                end_ms: t.duration_ms,
            });
        }
        t
    }

    /// The cursor (number of events shown) of the next LLM call after `cursor`.
    pub fn next_call(&self, cursor: usize) -> Option<usize> {
        self.call_starts.iter().map(|i| i + 1).find(|&c| c > cursor)
    }

    /// The cursor of the previous LLM call before `cursor`.
    pub fn prev_call(&self, cursor: usize) -> Option<usize> {
        self.call_starts
            .iter()
            .rev()
            .map(|i| i + 1)
            .find(|&c| c < cursor)
    }
}

/// How many events have happened by time `t_ms` (the cursor for a time).
pub fn cursor_at(events: &[LoggedEvent], t_ms: u64) -> usize {
    events.partition_point(|e| e.t_ms <= t_ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{ChatRequest, ChatResponse};

    fn ev(seq: u64, t: u64, event: RunEvent) -> LoggedEvent {
        LoggedEvent {
            seq,
            t_ms: t,
            event,
        }
    }

    #[test]
    fn bands_lanes_and_call_jumps() {
        let req = |call, agent: &str| RunEvent::LlmRequest {
            call,
            agent: agent.into(),
            model: "m".into(),
            request: ChatRequest::default(),
        };
        let resp = |call| RunEvent::LlmResponse {
            call,
            response: ChatResponse::default(),
            latency_ms: 1,
            retries: 0,
        };
        let events = vec![
            ev(
                0,
                0,
                RunEvent::AgentAdded {
                    agent: "a".into(),
                    role: "r".into(),
                    name: "Alpha".into(),
                    model: "m".into(),
                },
            ),
            ev(
                1,
                0,
                RunEvent::PhaseStarted {
                    phase: "p1".into(),
                    label: "Plan".into(),
                },
            ),
            ev(2, 10, req(0, "a")),
            ev(3, 50, resp(0)),
            ev(4, 60, RunEvent::PhaseEnded { phase: "p1".into() }),
            ev(
                5,
                60,
                RunEvent::PhaseStarted {
                    phase: "p2".into(),
                    label: "Write".into(),
                },
            ),
            ev(6, 70, req(1, "b")),
            ev(
                7,
                90,
                RunEvent::LlmFailed {
                    call: 1,
                    error: crate::engine::model::ModelError::Cancelled,
                    retries: 0,
                },
            ),
        ];
        let t = Timeline::of(&events);
        assert_eq!(t.duration_ms, 90);
        assert_eq!(
            t.bands,
            vec![
                Band {
                    label: "Plan".into(),
                    start_ms: 0,
                    end_ms: 60
                },
                Band {
                    label: "Write".into(),
                    start_ms: 60,
                    end_ms: 90
                }
            ]
        );
        assert_eq!(t.lanes[0].name, "Alpha");
        assert_eq!(
            (t.lanes[0].calls[0].start_ms, t.lanes[0].calls[0].end_ms),
            (10, 50)
        );
        assert!(t.lanes[1].calls[0].failed);
        assert_eq!(t.call_starts, vec![2, 6]);
        assert_eq!(t.next_call(0), Some(3));
        assert_eq!(t.next_call(3), Some(7));
        assert_eq!(t.next_call(7), None);
        assert_eq!(t.prev_call(7), Some(3));
        assert_eq!(t.prev_call(3), None);
        assert_eq!(cursor_at(&events, 55), 4);
        assert_eq!(cursor_at(&events, 1000), 8);
    }
}
