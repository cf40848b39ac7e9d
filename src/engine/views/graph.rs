//! The agent graph: nodes with role and live status, edges with message
//! counts, and the edge that is active now.

use super::Fold;
use crate::engine::run::event::{Audience, LoggedEvent, RunEvent};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentStatus {
    Idle,
    /// A request is out, no tokens yet.
    Thinking,
    /// Tokens are streaming in.
    Speaking,
    /// Waiting for a tool to return.
    Waiting,
    /// A call waits for a free slot (all parallel calls are taken).
    Queued,
}

impl AgentStatus {
    pub fn label(self) -> &'static str {
        match self {
            AgentStatus::Idle => "idle",
            AgentStatus::Thinking => "thinking",
            AgentStatus::Speaking => "speaking",
            AgentStatus::Waiting => "waiting",
            AgentStatus::Queued => "queued",
        }
    }
}

/// The end of every public post's edge: the shared conversation.
pub const PUBLIC: &str = "*public";

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Node {
    pub id: String,
    pub name: String,
    pub role: String,
    pub model: String,
    pub status: AgentStatus,
    pub calls: u32,
    pub messages: u32,
    pub tool_calls: u32,
    /// Turns taken after a hand-off, and how many of those were revisits
    /// (a turn handed to an agent that had already taken one). A turn
    /// starts at the agent's first LLM request after the hand-off, so a
    /// hand-off cut short by the end of the run is not a revisit.
    pub turns: u32,
    pub revisits: u32,
    /// A tool call is in flight (the node's own loop animates).
    pub tool_busy: bool,
    handed: bool,
    /// In-flight LLM calls (concurrent calls of one agent are possible).
    in_flight: u32,
    streaming: u32,
    pending_tools: u32,
    /// Calls waiting for a free slot.
    queued: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// A message posted from one agent to another (or to everyone).
    Message,
    /// Control handed from one agent to another.
    Handoff,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Edge {
    pub from: String,
    pub to: String,
    pub kind: EdgeKind,
    pub count: u32,
    /// Sequence number of the last event that used this edge.
    pub last_seq: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AgentGraph {
    pub nodes: Vec<Node>,
    edges: BTreeMap<(String, String, EdgeKind), Edge>,
    /// The most recent edge used, cleared when the run ends.
    pub active: Option<(String, String, EdgeKind)>,
    call_agent: HashMap<u32, String>,
}

impl AgentGraph {
    pub fn edges(&self) -> impl Iterator<Item = &Edge> {
        self.edges.values()
    }

    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    fn node_mut(&mut self, id: &str) -> Option<&mut Node> {
        self.nodes.iter_mut().find(|n| n.id == id)
    }

    /// Whether any public post has been drawn (the hub is shown).
    pub fn has_public(&self) -> bool {
        self.edges.values().any(|e| e.to == PUBLIC)
    }

    fn touch_edge(&mut self, from: &str, to: &str, kind: EdgeKind, seq: u64) {
        let known = |id: &str| id == PUBLIC || self.node(id).is_some();
        if from == to || !known(from) || !known(to) {
            return;
        }
        let key = (from.to_string(), to.to_string(), kind);
        let e = self.edges.entry(key.clone()).or_insert(Edge {
            from: from.into(),
            to: to.into(),
            kind,
            count: 0,
            last_seq: seq,
        });
        e.count += 1;
        e.last_seq = seq;
        self.active = Some(key);
    }

    fn refresh(n: &mut Node) {
        n.tool_busy = n.pending_tools > 0;
        n.status = if n.streaming > 0 {
            AgentStatus::Speaking
        } else if n.pending_tools > 0 {
            AgentStatus::Waiting
        } else if n.in_flight > 0 {
            AgentStatus::Thinking
        } else if n.queued > 0 {
            AgentStatus::Queued
        } else {
            AgentStatus::Idle
        };
    }

    fn end_call(&mut self, call: u32) {
        if let Some(agent) = self.call_agent.remove(&call) {
            if let Some(n) = self.node_mut(&agent) {
                n.in_flight = n.in_flight.saturating_sub(1);
                n.streaming = n.streaming.min(n.in_flight);
                Self::refresh(n);
            }
        }
    }
    /// The node of the agent that made `call`, while the call is known.
    fn call_node_mut(&mut self, call: u32) -> Option<&mut Node> {
        let agent = self.call_agent.get(&call).cloned()?;
        self.node_mut(&agent)
    }

    /// An LLM request: the call is the agent's; the first request after a
    /// hand-off starts a turn (a revisit when it is not the first).
    fn start_call(&mut self, call: u32, agent: &str) {
        self.call_agent.insert(call, agent.to_string());
        if let Some(n) = self.node_mut(agent) {
            n.queued = n.queued.saturating_sub(1);
            if n.handed {
                n.handed = false;
                n.turns += 1;
                if n.turns > 1 {
                    n.revisits += 1;
                }
            }
            n.calls += 1;
            n.in_flight += 1;
            Self::refresh(n);
        }
    }

    /// A message counted for its sender, on an edge to each recipient. A
    /// public post goes to the shared conversation (the hub in the middle
    /// of the graph), which everyone reads.
    fn post(&mut self, from: &str, to: &Audience, seq: u64) {
        if let Some(n) = self.node_mut(from) {
            n.messages += 1;
        }
        let targets: Vec<String> = match to {
            Audience::Public => vec![PUBLIC.to_string()],
            Audience::To(list) => list.clone(),
        };
        for t in targets {
            self.touch_edge(from, &t, EdgeKind::Message, seq);
        }
    }

    /// The run ended: nothing is active or in flight any more.
    fn end_run(&mut self) {
        self.active = None;
        self.call_agent.clear();
        for n in &mut self.nodes {
            n.in_flight = 0;
            n.streaming = 0;
            n.pending_tools = 0;
            n.queued = 0;
            Self::refresh(n);
        }
    }
}

impl Node {
    /// A new agent: idle, nothing counted yet.
    fn new(id: &str, name: &str, role: &str, model: &str) -> Self {
        Node {
            id: id.to_string(),
            name: name.to_string(),
            role: role.to_string(),
            model: model.to_string(),
            status: AgentStatus::Idle,
            calls: 0,
            messages: 0,
            tool_calls: 0,
            turns: 0,
            revisits: 0,
            tool_busy: false,
            handed: false,
            in_flight: 0,
            streaming: 0,
            pending_tools: 0,
            queued: 0,
        }
    }
}

impl Fold for AgentGraph {
    fn apply(&mut self, ev: &LoggedEvent) {
        match &ev.event {
            RunEvent::AgentAdded {
                agent,
                role,
                name,
                model,
            } if self.node(agent).is_none() => {
                self.nodes.push(Node::new(agent, name, role, model));
            }
            RunEvent::LlmQueued { agent } => {
                if let Some(n) = self.node_mut(agent) {
                    n.queued += 1;
                    Self::refresh(n);
                }
            }
            RunEvent::LlmRequest { call, agent, .. } => self.start_call(*call, agent),
            RunEvent::LlmDelta { call, .. } => {
                if let Some(n) = self.call_node_mut(*call) {
                    if n.streaming < n.in_flight {
                        n.streaming += 1;
                        Self::refresh(n);
                    }
                }
            }
            RunEvent::LlmRetry { call, .. } => {
                if let Some(n) = self.call_node_mut(*call) {
                    n.streaming = 0;
                    Self::refresh(n);
                }
            }
            RunEvent::LlmResponse { call, .. } | RunEvent::LlmFailed { call, .. } => {
                self.end_call(*call)
            }
            RunEvent::ToolCalled { agent, .. } => {
                if let Some(n) = self.node_mut(agent) {
                    n.tool_calls += 1;
                    n.pending_tools += 1;
                    Self::refresh(n);
                }
            }
            RunEvent::ToolReturned { agent, .. } => {
                if let Some(n) = self.node_mut(agent) {
                    n.pending_tools = n.pending_tools.saturating_sub(1);
                    Self::refresh(n);
                }
            }
            RunEvent::MessagePosted { from, to, .. } => self.post(from, to, ev.seq),
            RunEvent::Handoff { from, to, .. } => {
                if from != to {
                    if let Some(n) = self.node_mut(to) {
                        n.handed = true;
                    }
                }
                self.touch_edge(from, to, EdgeKind::Handoff, ev.seq)
            }
            e if e.is_terminal() => self.end_run(),
            _ => {}
        }
    }
}
