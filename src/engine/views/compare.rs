//! Runs side by side (the comparison a lesson or a paper's table makes):
//! their phases aligned by id, not by event number (one run may make more
//! calls than another), a synchronized cursor that puts every run at the
//! same relative point of the same phase, where two runs first diverge
//! (the first LLM call whose agent, step, request or answer differs), and
//! the differences in outcome, metrics, calls, tokens, cost and replies
//! repaired, and calls and tokens per agent and per phase. Generic: it
//! reads only the run events every coordinator emits.

use super::repairs::{RepairCount, RepairsView};
use super::usage::{Tally, UsageView};
use super::Fold;
use crate::engine::model::pricing::PriceTable;
use crate::engine::run::event::{LoggedEvent, RunEvent};

/// A phase of one run: its id and the event range it covers.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub phase: String,
    pub start: usize,
    /// One past its last event (the next phase's start, or the log's end).
    pub end: usize,
}

/// The run's phases in order (events before the first phase are the
/// `start` phase; a phase started twice is two spans).
pub fn spans(events: &[LoggedEvent]) -> Vec<Span> {
    let mut out: Vec<Span> = vec![Span {
        phase: "start".into(),
        start: 0,
        end: events.len(),
    }];
    for (i, e) in events.iter().enumerate() {
        if let RunEvent::PhaseStarted { phase, .. } = &e.event {
            if let Some(last) = out.last_mut() {
                last.end = i;
            }
            out.push(Span {
                phase: phase.clone(),
                start: i,
                end: events.len(),
            });
        }
    }
    out.retain(|s| s.end > s.start || s.phase != "start");
    out
}

/// The phases of several runs on one timeline: the union of their phase
/// ids in the order they happen (a phase one run skips is a gap in it).
#[derive(Clone, Debug, PartialEq)]
pub struct Alignment {
    pub phases: Vec<String>,
    /// Per run, per aligned phase: its span, if the run has it.
    pub spans: Vec<Vec<Option<Span>>>,
}

pub fn align(runs: &[&[LoggedEvent]]) -> Alignment {
    let all: Vec<Vec<Span>> = runs.iter().map(|e| spans(e)).collect();
    // Merge the sequences: walk them in step, taking a phase when it comes
    // next in every run that has it still ahead.
    let mut phases: Vec<String> = Vec::new();
    let mut pos = vec![0usize; all.len()];
    loop {
        let heads: Vec<&str> = all
            .iter()
            .zip(&pos)
            .filter_map(|(s, &p)| s.get(p).map(|x| x.phase.as_str()))
            .collect();
        if heads.is_empty() {
            break;
        }
        // A head that no run has later than its own head position.
        let pick = heads
            .iter()
            .find(|h| {
                all.iter().zip(&pos).all(|(s, &p)| {
                    !s.iter().skip(p + 1).any(|x| x.phase == **h)
                        || s.get(p).is_some_and(|x| x.phase == **h)
                })
            })
            .copied()
            .unwrap_or(heads[0])
            .to_string();
        for (s, p) in all.iter().zip(pos.iter_mut()) {
            if s.get(*p).is_some_and(|x| x.phase == pick) {
                *p += 1;
            }
        }
        phases.push(pick);
    }
    // Each run's spans in the aligned order (the k-th occurrence of a phase
    // id goes with its k-th aligned slot).
    let spans = all
        .iter()
        .map(|s| {
            let mut used = vec![false; s.len()];
            phases
                .iter()
                .map(|ph| {
                    let i = s
                        .iter()
                        .enumerate()
                        .position(|(i, x)| !used[i] && &x.phase == ph)?;
                    used[i] = true;
                    Some(s[i].clone())
                })
                .collect()
        })
        .collect();
    Alignment { phases, spans }
}

impl Alignment {
    /// The events each run shows when the shared timeline is at `fraction`
    /// (0–1) of aligned phase `phase`: a run inside that phase shows the same
    /// share of it; a run without it stays where its previous phase ended.
    pub fn cursor(&self, phase: usize, fraction: f64) -> Vec<usize> {
        let f = fraction.clamp(0.0, 1.0);
        self.spans
            .iter()
            .map(|run| match run.get(phase).and_then(Option::as_ref) {
                Some(s) => s.start + ((s.end - s.start) as f64 * f).round() as usize,
                None => run[..phase.min(run.len())]
                    .iter()
                    .rev()
                    .find_map(|x| x.as_ref().map(|s| s.end))
                    .unwrap_or(0),
            })
            .collect()
    }
}

/// Where two runs first part ways.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    /// The LLM call (0-based, in order of requests) where they differ.
    pub call: usize,
    /// The event index of that call in each run (None: the run has no more).
    pub at: [Option<usize>; 2],
    /// `agent`, `step`, `request` or `answer`, or `length`.
    pub what: String,
    pub detail: String,
}

struct Call {
    at: usize,
    agent: String,
    step: String,
    request: String,
    answer: Option<String>,
}

fn calls(events: &[LoggedEvent]) -> Vec<Call> {
    let mut out: Vec<Call> = Vec::new();
    let mut index: std::collections::HashMap<u32, usize> = Default::default();
    for (i, e) in events.iter().enumerate() {
        match &e.event {
            RunEvent::LlmRequest {
                call,
                agent,
                request,
                ..
            } => {
                index.insert(*call, out.len());
                out.push(Call {
                    at: i,
                    agent: agent.clone(),
                    step: request.step.clone().unwrap_or_default(),
                    request: request
                        .messages
                        .iter()
                        .map(|m| m.content.as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    answer: None,
                });
            }
            RunEvent::LlmResponse { call, response, .. } => {
                if let Some(&k) = index.get(call) {
                    out[k].answer = Some(response.text.clone());
                }
            }
            _ => {}
        }
    }
    out
}

/// The first call where runs `a` and `b` differ, or None when they made
/// the same calls with the same answers.
pub fn first_divergence(a: &[LoggedEvent], b: &[LoggedEvent]) -> Option<Divergence> {
    let (ca, cb) = (calls(a), calls(b));
    for k in 0..ca.len().max(cb.len()) {
        let (x, y) = match (ca.get(k), cb.get(k)) {
            (Some(x), Some(y)) => (x, y),
            (x, y) => {
                return Some(Divergence {
                    call: k,
                    at: [x.map(|c| c.at), y.map(|c| c.at)],
                    what: "length".into(),
                    detail: format!(
                        "run {} makes no call {}",
                        if x.is_none() { "A" } else { "B" },
                        k + 1
                    ),
                })
            }
        };
        let what = if x.agent != y.agent {
            Some(("agent", format!("{} vs {}", x.agent, y.agent)))
        } else if x.step != y.step {
            Some(("step", format!("{} vs {}", x.step, y.step)))
        } else if x.request != y.request {
            Some((
                "request",
                format!("{}'s request for {} differs", x.agent, x.step),
            ))
        } else if x.answer != y.answer {
            Some((
                "answer",
                format!("{} answered {} differently", x.agent, x.step),
            ))
        } else {
            None
        };
        if let Some((what, detail)) = what {
            return Some(Divergence {
                call: k,
                at: [Some(x.at), Some(y.at)],
                what: what.into(),
                detail,
            });
        }
    }
    None
}

/// One run's figures for the comparison table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunFigures {
    /// `finished`, `failed`, `cancelled` or `running`.
    pub outcome: String,
    /// Every ScoreComputed without an agent, last value per name.
    pub metrics: Vec<(String, f64)>,
    pub usage: UsageView,
    pub cost_usd: f64,
    /// Some calls had no price (the cost is a lower bound).
    pub cost_partial: bool,
    /// Its replies, and how many its steps had to repair (or could not
    /// read): "N of M"; None for a run recorded before repairs were.
    pub repairs: Option<RepairCount>,
}

pub fn figures(events: &[LoggedEvent], prices: &PriceTable) -> RunFigures {
    let mut f = RunFigures {
        outcome: "running".into(),
        usage: UsageView::of(events),
        repairs: RepairsView::of(events).recorded_total(),
        ..RunFigures::default()
    };
    for e in events {
        match &e.event {
            RunEvent::ScoreComputed {
                name,
                value,
                agent: None,
                ..
            } => match f.metrics.iter_mut().find(|(n, _)| n == name) {
                Some(m) => m.1 = *value,
                None => f.metrics.push((name.clone(), *value)),
            },
            RunEvent::RunFinished { .. } => f.outcome = "finished".into(),
            RunEvent::RunFailed { .. } => f.outcome = "failed".into(),
            RunEvent::RunCancelled { .. } => f.outcome = "cancelled".into(),
            _ => {}
        }
    }
    let (cost, complete) = f.usage.total.cost(prices);
    f.cost_usd = cost;
    f.cost_partial = !complete;
    f
}

/// A row of a per-agent or per-phase difference: the key and each run's tally.
pub type DiffRow = (String, Vec<Option<Tally>>);

/// Per key (agent or phase), each run's tally, keys in first-seen order.
pub fn by_key(runs: &[&RunFigures], agents: bool) -> Vec<DiffRow> {
    let mut keys: Vec<String> = Vec::new();
    for r in runs {
        let list = if agents {
            &r.usage.by_agent
        } else {
            &r.usage.by_phase
        };
        for (k, _) in list {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    keys.into_iter()
        .map(|k| {
            let row = runs
                .iter()
                .map(|r| {
                    let list = if agents {
                        &r.usage.by_agent
                    } else {
                        &r.usage.by_phase
                    };
                    list.iter().find(|(x, _)| *x == k).map(|(_, t)| t.clone())
                })
                .collect();
            (k, row)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{ChatRequest, ChatResponse, Message};

    fn ev(seq: usize, event: RunEvent) -> LoggedEvent {
        LoggedEvent {
            seq: seq as u64,
            t_ms: 0,
            event,
        }
    }

    /// A call: (agent, step, answer).
    type Call<'a> = (&'a str, &'a str, &'a str);

    /// A run: phases with their calls.
    fn run(phases: &[(&str, &[Call<'_>])]) -> Vec<LoggedEvent> {
        let mut out = Vec::new();
        let mut call = 0u32;
        for (phase, calls) in phases {
            out.push(ev(
                out.len(),
                RunEvent::PhaseStarted {
                    phase: phase.to_string(),
                    label: String::new(),
                },
            ));
            for (agent, step, answer) in calls.iter() {
                out.push(ev(
                    out.len(),
                    RunEvent::LlmRequest {
                        call,
                        agent: agent.to_string(),
                        model: "m".into(),
                        request: ChatRequest::new(vec![Message::user("q")]).with_step(*step),
                    },
                ));
                out.push(ev(
                    out.len(),
                    RunEvent::LlmResponse {
                        call,
                        response: ChatResponse {
                            text: answer.to_string(),
                            ..ChatResponse::default()
                        },
                        latency_ms: 0,
                        retries: 0,
                    },
                ));
                call += 1;
            }
            out.push(ev(
                out.len(),
                RunEvent::PhaseEnded {
                    phase: phase.to_string(),
                },
            ));
        }
        out.push(ev(
            out.len(),
            RunEvent::ScoreComputed {
                name: "score".into(),
                value: call as f64,
                agent: None,
                detail: serde_json::Value::Null,
            },
        ));
        out.push(ev(out.len(), RunEvent::RunFinished { output: None }));
        out
    }

    #[test]
    fn phases_align_by_id_and_the_cursor_keeps_runs_in_the_same_phase() {
        // A skips break time; B makes three calls in the team meeting.
        let a = run(&[
            ("team", &[("a1", "s", "x")]),
            ("production", &[("a1", "d", "y")]),
        ]);
        let b = run(&[
            (
                "team",
                &[("a1", "s", "x"), ("a2", "s", "x"), ("a3", "s", "x")],
            ),
            ("break", &[("a1", "r", "z")]),
            ("production", &[("a1", "d", "y")]),
        ]);
        let al = align(&[&a, &b]);
        assert_eq!(al.phases, ["team", "break", "production"]);
        assert!(al.spans[0][1].is_none() && al.spans[1][1].is_some());
        // Halfway through the team meeting: each run halfway through its own.
        let at = al.cursor(0, 0.5);
        let (sa, sb) = (
            al.spans[0][0].clone().unwrap(),
            al.spans[1][0].clone().unwrap(),
        );
        assert_eq!(
            at,
            vec![
                sa.start + (sa.end - sa.start) / 2,
                sb.start + (sb.end - sb.start).div_ceil(2)
            ]
        );
        // In break time, A waits at the end of its team meeting.
        assert_eq!(al.cursor(1, 0.5)[0], sa.end);
        // The end of production is the end of both logs' production phases.
        let end = al.cursor(2, 1.0);
        assert_eq!(end[0], al.spans[0][2].clone().unwrap().end);
    }

    #[test]
    fn the_first_divergence_names_the_call_and_what_differs() {
        let a = run(&[("p", &[("a1", "s", "x"), ("a2", "s", "y")])]);
        assert_eq!(first_divergence(&a, &a), None);
        let b = run(&[("p", &[("a1", "s", "x"), ("a2", "s", "DIFFERENT")])]);
        let d = first_divergence(&a, &b).expect("diverge");
        assert_eq!((d.call, d.what.as_str()), (1, "answer"));
        assert_eq!(d.at, [Some(3), Some(3)], "the second request is event 3");
        let c = run(&[("p", &[("a1", "s", "x"), ("a3", "s", "y")])]);
        assert_eq!(
            first_divergence(&a, &c).map(|d| d.what),
            Some("agent".into())
        );
        let short = run(&[("p", &[("a1", "s", "x")])]);
        let d = first_divergence(&a, &short).expect("diverge");
        assert_eq!((d.call, d.what.as_str(), d.at[1]), (1, "length", None));
    }

    #[test]
    fn figures_and_differences_per_agent_and_phase() {
        let a = run(&[("team", &[("a1", "s", "x")])]);
        let b = run(&[
            ("team", &[("a1", "s", "x"), ("a2", "s", "x")]),
            ("break", &[("a2", "r", "z")]),
        ]);
        let (fa, fb) = (
            figures(&a, &PriceTable::default()),
            figures(&b, &PriceTable::default()),
        );
        assert_eq!(fa.outcome, "finished");
        assert_eq!(fa.metrics, vec![("score".to_string(), 1.0)]);
        assert_eq!(fb.metrics, vec![("score".to_string(), 3.0)]);
        let agents = by_key(&[&fa, &fb], true);
        assert_eq!(
            agents.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            ["a1", "a2"]
        );
        assert!(agents[1].1[0].is_none() && agents[1].1[1].as_ref().is_some_and(|t| t.calls == 2));
        let phases = by_key(&[&fa, &fb], false);
        assert_eq!(
            phases.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            ["team", "break"]
        );
    }
}
