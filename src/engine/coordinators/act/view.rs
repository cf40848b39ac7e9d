//! ACT's view, folded from the log: the agents (members and the experts of
//! break time) with their expertise, task evolution, episodes, knowledge
//! (importances as last scored) and what each prompt was given; the
//! meetings with who said what; the team's complex task as drafted and
//! fused; the production rounds with the leader's checks; tokens per
//! phase; the result. Payloads that do not parse are skipped (runs may be
//! old or shared): nothing here panics on a payload.

use super::contract::*;
use crate::engine::model::Usage;
use crate::engine::run::event::{Audience, LoggedEvent, RunEvent};
use crate::engine::views::html::agents::AgentMarks;
use crate::engine::views::{parse_object, Fold};
use serde_json::Value;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentItem {
    pub id: String,
    pub name: String,
    /// `member`, `expert`, or another role (facilitator, judge, writer).
    pub role: String,
    pub expertise: Vec<String>,
    pub expertise_flags: Vec<String>,
    /// Its task at each stage, in order.
    pub tasks: Vec<TaskRecord>,
    pub episodes: Vec<Episode>,
    pub knowledge: Vec<Knowledge>,
    /// (seq, what a prompt of this agent was given).
    pub retrievals: Vec<(u64, RetrievalRecord)>,
    pub acquisitions: Vec<AcquisitionRecord>,
    /// An expert that has left (break time is over).
    pub gone: bool,
}

/// One line said in a meeting.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub seq: u64,
    pub from: String,
    /// Empty for the whole team; the two of a 1:1 otherwise.
    pub to: Vec<String>,
    pub text: String,
    /// The step tag of the request that produced it, if any.
    pub step: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MeetingItem {
    /// The phase id (`team_meeting`, `break_time`, `production_meeting`).
    pub phase: String,
    pub lines: Vec<Line>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    pub draft: DraftRecord,
    pub check: Option<CheckRecord>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PhaseTokens {
    pub phase: String,
    pub calls: u32,
    pub input: u64,
    pub output: u64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ActView {
    pub variant: Option<Variant>,
    pub parts: Option<PartsRecord>,
    pub agents: Vec<AgentItem>,
    pub leader: Option<String>,
    pub team_task_draft: Option<TeamTask>,
    pub team_task: Option<TeamTask>,
    pub meetings: Vec<MeetingItem>,
    pub breaks: Vec<BreakRecord>,
    pub rounds: Vec<Round>,
    pub assignments: Vec<AssignmentRecord>,
    pub judge: Option<JudgeRecord>,
    /// A tool task's judgement: its sub-tasks and the completion rate.
    pub tool_judge: Option<ToolJudgeRecord>,
    pub result: Option<ResultRecord>,
    /// The phase under way.
    pub phase: Option<String>,
    /// Who is asking the model right now (call → agent, step).
    pub speaking: Vec<(u32, String, String)>,
    pub tokens: Vec<PhaseTokens>,
    /// (member, expert) of each 1:1 in break time, from the hand-offs.
    pub pairs: Vec<(String, String)>,
    /// call → (agent, step), for the lines and the token counts.
    calls: Vec<(u32, String, String, String)>,
    /// Every agent in the order it joined: its colour and initials.
    pub marks: AgentMarks,
}

impl ActView {
    pub fn agent(&self, id: &str) -> Option<&AgentItem> {
        self.agents.iter().find(|a| a.id == id)
    }

    fn agent_mut(&mut self, id: &str) -> &mut AgentItem {
        if let Some(i) = self.agents.iter().position(|a| a.id == id) {
            return &mut self.agents[i];
        }
        self.agents.push(AgentItem {
            id: id.into(),
            name: id.into(),
            ..AgentItem::default()
        });
        let last = self.agents.len() - 1;
        &mut self.agents[last]
    }

    pub fn members(&self) -> impl Iterator<Item = &AgentItem> {
        self.agents.iter().filter(|a| a.role == ROLE_MEMBER)
    }

    pub fn experts(&self) -> impl Iterator<Item = &AgentItem> {
        self.agents.iter().filter(|a| a.role == ROLE_EXPERT)
    }

    /// The expert `member` created (while it is in the team or after).
    pub fn expert_of(&self, member: &str) -> Option<&AgentItem> {
        self.pairs
            .iter()
            .rev()
            .find(|(m, _)| m == member)
            .and_then(|(_, e)| self.agent(e))
    }

    pub fn name_of(&self, id: &str) -> String {
        self.agent(id)
            .map_or_else(|| id.to_string(), |a| a.name.clone())
    }

    /// The entry with this id, in whoever's store holds it.
    pub fn entry(&self, id: &str) -> Option<&Knowledge> {
        self.agents
            .iter()
            .flat_map(|a| a.knowledge.iter())
            .find(|k| k.id == id)
    }

    /// Tokens of all phases.
    pub fn total_tokens(&self) -> u64 {
        self.tokens.iter().map(|t| t.input + t.output).sum()
    }

    fn step_of(&self, call: u32) -> Option<(&str, &str)> {
        self.calls
            .iter()
            .find(|c| c.0 == call)
            .map(|c| (c.2.as_str(), c.3.as_str()))
    }

    // Out of line (see `views::Fold`): the payloads' parsers would make
    // `apply` one giant wasm function.
    #[inline(never)]
    fn note(&mut self, seq: u64, agent: &str, store: &str, key: Option<&str>, payload: &Value) {
        match store {
            STORE_PARTS => self.parts = parse_object(payload),
            STORE_EXPERTISE => {
                if let Some(r) = parse_object::<ExpertiseRecord>(payload) {
                    let a = self.agent_mut(&r.agent);
                    a.expertise = r.keywords;
                    a.expertise_flags = r.flags;
                }
            }
            STORE_TASK => {
                if let Some(r) = parse_object::<TaskRecord>(payload) {
                    self.agent_mut(&r.agent.clone()).tasks.push(r);
                }
            }
            STORE_COMPLEX_TASK => {
                if let Some(r) = parse_object::<ComplexTaskRecord>(payload) {
                    if r.stage == "draft" {
                        self.team_task_draft = Some(r.task);
                    } else {
                        self.team_task = Some(r.task);
                    }
                }
            }
            STORE_LEADER => {
                if let Some(r) = parse_object::<LeaderRecord>(payload) {
                    self.leader = Some(r.leader);
                }
            }
            STORE_EPISODE => {
                if let Some(e) = parse_object::<Episode>(payload) {
                    self.agent_mut(&e.owner.clone()).episodes.push(e);
                }
            }
            STORE_KNOWLEDGE => {
                if let Some(k) = parse_object::<Knowledge>(payload) {
                    let a = self.agent_mut(&k.owner.clone());
                    match a.knowledge.iter_mut().find(|x| x.id == k.id) {
                        Some(old) => *old = k,
                        None => a.knowledge.push(k),
                    }
                }
            }
            STORE_RESCORE => {
                if let Some(r) = parse_object::<RescoreRecord>(payload) {
                    let a = self.agent_mut(agent);
                    for (id, score) in r.scores.into_iter().chain(r.lowered) {
                        if let Some(k) = a.knowledge.iter_mut().find(|k| k.id == id) {
                            k.importance = score.min(10);
                        }
                    }
                }
            }
            STORE_ACQUISITION => {
                if let Some(r) = parse_object::<AcquisitionRecord>(payload) {
                    self.agent_mut(agent).acquisitions.push(r);
                }
            }
            STORE_RETRIEVAL => {
                if let Some(r) = parse_object::<RetrievalRecord>(payload) {
                    self.agent_mut(agent).retrievals.push((seq, r));
                }
            }
            STORE_BREAK => {
                if let Some(r) = parse_object::<BreakRecord>(payload) {
                    self.breaks.push(r);
                }
            }
            STORE_ASSIGNMENT => {
                if let Some(r) = parse_object::<AssignmentRecord>(payload) {
                    self.assignments.push(r);
                }
            }
            STORE_DRAFT => {
                if let Some(d) = parse_object::<DraftRecord>(payload) {
                    self.rounds.push(Round {
                        draft: d,
                        check: None,
                    });
                }
            }
            STORE_CHECK => {
                if let Some(c) = parse_object::<CheckRecord>(payload) {
                    if let Some(r) = self.rounds.iter_mut().find(|r| r.draft.round == c.round) {
                        r.check = Some(c);
                    }
                }
            }
            STORE_JUDGE => self.judge = parse_object(payload),
            STORE_TOOL_JUDGE => self.tool_judge = parse_object(payload),
            STORE_RESULT => {
                if let Some(r) = parse_object::<ResultRecord>(payload) {
                    self.variant = Some(r.variant);
                    self.result = Some(r);
                }
            }
            _ => {
                let _ = key;
            }
        }
    }
}

/// The folds of [`ActView::apply`] that take more than a line or two.
impl ActView {
    /// A phase begins; a meeting's phase opens its list of lines.
    fn phase_started(&mut self, phase: &str) {
        self.phase = Some(phase.to_string());
        if matches!(phase, PHASE_TEAM | PHASE_BREAK | PHASE_PRODUCTION) {
            self.meetings.push(MeetingItem {
                phase: phase.to_string(),
                lines: Vec::new(),
            });
        }
    }

    /// A phase ends; the experts leave with break time.
    fn phase_ended(&mut self, phase: &str) {
        if phase == PHASE_BREAK {
            for a in self.agents.iter_mut().filter(|a| a.role == ROLE_EXPERT) {
                a.gone = true;
            }
        }
        if self.phase.as_deref() == Some(phase) {
            self.phase = None;
        }
    }

    /// A call's tokens, added to its phase's.
    fn count_tokens(&mut self, call: u32, usage: &Usage) {
        let phase = self
            .calls
            .iter()
            .find(|c| c.0 == call)
            .map(|c| c.1.clone())
            .unwrap_or_default();
        let entry = match self.tokens.iter().position(|t| t.phase == phase) {
            Some(i) => &mut self.tokens[i],
            None => {
                self.tokens.push(PhaseTokens {
                    phase,
                    ..PhaseTokens::default()
                });
                let last = self.tokens.len() - 1;
                &mut self.tokens[last]
            }
        };
        entry.calls += 1;
        entry.input += usage.input_tokens;
        entry.output += usage.output_tokens;
    }

    /// A post, as a line of the current meeting (with the step that wrote
    /// it).
    fn post_line(&mut self, seq: u64, from: &str, to: &Audience, text: &str, call: Option<u32>) {
        let step = call
            .and_then(|c| self.step_of(c))
            .map(|(_, s)| s.to_string());
        let to = match to {
            Audience::Public => Vec::new(),
            Audience::To(list) => list.clone(),
        };
        if let Some(m) = self.meetings.last_mut() {
            m.lines.push(Line {
                seq,
                from: from.to_string(),
                to,
                text: text.to_string(),
                step,
            });
        }
    }
}

impl Fold for ActView {
    fn apply(&mut self, ev: &LoggedEvent) {
        match &ev.event {
            RunEvent::RunStarted { config } => {
                self.variant = config
                    .variant
                    .as_deref()
                    .and_then(Variant::parse)
                    .or((config.variant.is_none()).then_some(Variant::Act));
            }
            RunEvent::AgentAdded {
                agent, role, name, ..
            } => {
                let a = self.agent_mut(agent);
                a.name = name.clone();
                a.role = role.clone();
                self.marks.add(agent, name);
            }
            RunEvent::PhaseStarted { phase, .. } => self.phase_started(phase),
            RunEvent::PhaseEnded { phase } => self.phase_ended(phase),
            RunEvent::LlmRequest {
                call,
                agent,
                request,
                ..
            } => {
                let step = request.step.clone().unwrap_or_default();
                let phase = self.phase.clone().unwrap_or_default();
                self.calls.push((*call, phase, agent.clone(), step.clone()));
                self.speaking.push((*call, agent.clone(), step));
            }
            RunEvent::LlmResponse { call, response, .. } => {
                self.speaking.retain(|s| s.0 != *call);
                self.count_tokens(*call, &response.usage);
            }
            RunEvent::LlmFailed { call, .. } => self.speaking.retain(|s| s.0 != *call),
            RunEvent::Handoff { from, to, .. } => {
                let to_expert = self.agent(to).is_some_and(|a| a.role == ROLE_EXPERT);
                if to_expert && !self.pairs.iter().any(|(m, e)| m == from && e == to) {
                    self.pairs.push((from.clone(), to.clone()));
                }
            }
            RunEvent::MessagePosted {
                from,
                to,
                text,
                call,
            } => self.post_line(ev.seq, from, to, text, *call),
            RunEvent::NoteWritten {
                agent,
                store,
                key,
                payload,
            } => self.note(ev.seq, agent, store, key.as_deref(), payload),
            RunEvent::RunFinished { .. }
            | RunEvent::RunFailed { .. }
            | RunEvent::RunCancelled { .. } => {
                self.phase = None;
                self.speaking.clear();
            }
            _ => {}
        }
    }
}
