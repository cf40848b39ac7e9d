//! The team as an undirected graph of agents (MAEL §2.1): presets, the
//! user's own graphs, validation (connected, ids unique), each node's
//! closeness centrality (BFS distances; no graph crate) and the root, the
//! node with the highest closeness (ties: the lowest index).

use serde::{Deserialize, Serialize};

/// One agent of the team.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentNode {
    /// Its agent id in the run (also its role: a model can be bound to it).
    pub id: String,
    pub name: String,
    /// A model name for this agent only (same provider); none = the run's model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Team {
    pub agents: Vec<AgentNode>,
    /// Undirected edges between agent indexes.
    pub edges: Vec<(usize, usize)>,
}

/// The graph shapes the app offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    Star,
    /// A star with its first two leaves joined: the hub is still the root
    /// with every other agent beside it, and a part handed to either
    /// joined leaf can be split once more (to the other), so tasks reach
    /// depth 2, which a plain star's leaves never can.
    LinkedStar,
    Chain,
    Ring,
    Full,
}

impl Preset {
    pub const ALL: [Preset; 5] = [
        Preset::Star,
        Preset::LinkedStar,
        Preset::Chain,
        Preset::Ring,
        Preset::Full,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Preset::Star => "star",
            Preset::LinkedStar => "linked-star",
            Preset::Chain => "chain",
            Preset::Ring => "ring",
            Preset::Full => "full",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Preset::Star => "Star (one hub)",
            Preset::LinkedStar => "Linked star",
            Preset::Chain => "Chain",
            Preset::Ring => "Ring",
            Preset::Full => "Fully connected",
        }
    }

    pub fn parse(s: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.id() == s)
    }
}

/// Why a team cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TeamError {
    Empty,
    DuplicateId(String),
    EmptyId(usize),
    BadEdge(usize, usize),
    /// The agents that cannot be reached from the first one.
    Disconnected(Vec<String>),
}

impl TeamError {
    pub fn user_message(&self) -> String {
        match self {
            TeamError::Empty => "The team has no agents: add at least one.".into(),
            TeamError::DuplicateId(id) => format!("Two agents are called \"{id}\": give each agent its own id."),
            TeamError::EmptyId(i) => format!("Agent {} has no id: give it one.", i + 1),
            TeamError::BadEdge(a, b) => format!("The edge {}–{} joins an agent that does not exist (or an agent to itself).", a + 1, b + 1),
            TeamError::Disconnected(names) => format!(
                "The team is not connected: {} cannot be reached from the others. Add an edge to each of them.",
                names.join(", ")
            ),
        }
    }
}

impl Team {
    /// `n` agents (`a1`…`an`) in the shape of `preset`; for a star the hub is
    /// the first agent.
    pub fn preset(preset: Preset, n: usize) -> Team {
        let n = n.max(1);
        let agents = (1..=n)
            .map(|i| AgentNode {
                id: format!("a{i}"),
                name: format!("Agent {i}"),
                model: None,
            })
            .collect();
        let mut edges = Vec::new();
        match preset {
            Preset::Star => edges.extend((1..n).map(|i| (0, i))),
            Preset::LinkedStar => {
                edges.extend((1..n).map(|i| (0, i)));
                if n > 2 {
                    edges.push((1, 2));
                }
            }
            Preset::Chain => edges.extend((1..n).map(|i| (i - 1, i))),
            Preset::Ring => {
                edges.extend((1..n).map(|i| (i - 1, i)));
                if n > 2 {
                    edges.push((n - 1, 0));
                }
            }
            Preset::Full => {
                for i in 0..n {
                    for j in i + 1..n {
                        edges.push((i, j));
                    }
                }
            }
        }
        Team { agents, edges }
    }

    /// The default: the paper's four agents, the hub the root with the
    /// other three beside it, two of them joined so that a task can be
    /// split twice (SRDD's and CommonGen-Hard's depth 2; a plain star
    /// stops at 1). At depth 1 it runs as the star does.
    pub fn default_team() -> Team {
        Team::preset(Preset::LinkedStar, 4)
    }

    /// How deep a task handed to `from` can be split on this graph: the
    /// longest path from it that never comes back to an agent on it (a
    /// task goes only to a neighbour off its call path).
    pub fn reach(&self, from: usize) -> u32 {
        fn longest(t: &Team, at: usize, path: &mut Vec<usize>) -> u32 {
            path.push(at);
            let mut best = 0;
            for n in t.neighbours(at) {
                if !path.contains(&n) {
                    best = best.max(1 + longest(t, n, path));
                }
            }
            path.pop();
            best
        }
        if from >= self.len() {
            return 0;
        }
        longest(self, from, &mut Vec::new())
    }

    pub fn len(&self) -> usize {
        self.agents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.agents.iter().position(|a| a.id == id)
    }

    /// The neighbours of agent `i`, in index order.
    pub fn neighbours(&self, i: usize) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .edges
            .iter()
            .filter_map(|&(a, b)| {
                if a == i {
                    Some(b)
                } else if b == i {
                    Some(a)
                } else {
                    None
                }
            })
            .filter(|&j| j != i && j < self.len())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Hops from agent `from` to every agent (None: unreachable).
    pub fn distances(&self, from: usize) -> Vec<Option<u32>> {
        let mut dist = vec![None; self.len()];
        if from >= self.len() {
            return dist;
        }
        dist[from] = Some(0);
        let mut queue = std::collections::VecDeque::from([from]);
        while let Some(v) = queue.pop_front() {
            let d = dist[v].unwrap_or(0);
            for w in self.neighbours(v) {
                if dist[w].is_none() {
                    dist[w] = Some(d + 1);
                    queue.push_back(w);
                }
            }
        }
        dist
    }

    /// Closeness centrality: (n − 1) / the sum of hops to every other agent
    /// (1 for a lone agent, 0 when some agent is unreachable).
    pub fn closeness(&self, i: usize) -> f64 {
        let n = self.len();
        if n <= 1 {
            return 1.0;
        }
        let d = self.distances(i);
        if d.iter().any(Option::is_none) {
            return 0.0;
        }
        let sum: u32 = d.iter().flatten().sum();
        (n - 1) as f64 / sum as f64
    }

    /// The root: the highest closeness, ties to the lowest index (compared
    /// exactly, as the smallest sum of hops).
    pub fn root(&self) -> usize {
        (0..self.len())
            .min_by_key(|&i| {
                let d = self.distances(i);
                let sum: u64 = d.iter().map(|x| x.map_or(u64::MAX / 1024, u64::from)).sum();
                (sum, i)
            })
            .unwrap_or(0)
    }

    /// Whether `a` and `b` are joined (either way round).
    pub fn has_edge(&self, a: usize, b: usize) -> bool {
        self.edges.iter().any(|&e| e == (a, b) || e == (b, a))
    }

    /// Joins `a` and `b`, or parts them when they are joined (the editor).
    pub fn toggle_edge(&mut self, a: usize, b: usize) {
        if a == b || a >= self.len() || b >= self.len() {
            return;
        }
        if self.has_edge(a, b) {
            self.edges.retain(|&e| e != (a, b) && e != (b, a));
        } else {
            self.edges.push((a.min(b), a.max(b)));
        }
    }

    /// Adds an agent with a fresh id (`a<n>`, the lowest free), joined to
    /// agent `to` when there is one; returns its index.
    pub fn add_agent(&mut self, to: Option<usize>) -> usize {
        let n = (1..)
            .find(|n| !self.agents.iter().any(|a| a.id == format!("a{n}")))
            .unwrap_or(1);
        self.agents.push(AgentNode {
            id: format!("a{n}"),
            name: format!("Agent {n}"),
            model: None,
        });
        let i = self.len() - 1;
        if let Some(t) = to.filter(|&t| t < i) {
            self.edges.push((t, i));
        }
        i
    }

    /// Removes agent `i` and its edges; the edges of the agents after it
    /// follow their new indexes.
    pub fn remove_agent(&mut self, i: usize) {
        if i >= self.len() {
            return;
        }
        self.agents.remove(i);
        let shift = |x: usize| if x > i { x - 1 } else { x };
        self.edges = self
            .edges
            .iter()
            .filter(|&&(a, b)| a != i && b != i)
            .map(|&(a, b)| (shift(a), shift(b)))
            .collect();
    }

    /// The team can run: agents with unique ids, edges between existing
    /// agents, every agent reachable.
    pub fn validate(&self) -> Result<(), TeamError> {
        if self.agents.is_empty() {
            return Err(TeamError::Empty);
        }
        let mut seen = std::collections::HashSet::new();
        for (i, a) in self.agents.iter().enumerate() {
            if a.id.trim().is_empty() {
                return Err(TeamError::EmptyId(i));
            }
            if !seen.insert(a.id.as_str()) {
                return Err(TeamError::DuplicateId(a.id.clone()));
            }
        }
        if let Some(&(a, b)) = self
            .edges
            .iter()
            .find(|&&(a, b)| a >= self.len() || b >= self.len() || a == b)
        {
            return Err(TeamError::BadEdge(a, b));
        }
        let unreachable: Vec<String> = self
            .distances(0)
            .iter()
            .zip(&self.agents)
            .filter(|(d, _)| d.is_none())
            .map(|(_, a)| a.name.clone())
            .collect();
        if !unreachable.is_empty() {
            return Err(TeamError::Disconnected(unreachable));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn team(n: usize, edges: &[(usize, usize)]) -> Team {
        let mut t = Team::preset(Preset::Chain, n);
        t.edges = edges.to_vec();
        t
    }

    #[test]
    fn the_root_has_the_highest_closeness_and_ties_go_to_the_lowest_index() {
        // Star: the hub, wherever it is.
        let star = team(4, &[(2, 0), (2, 1), (2, 3)]);
        assert_eq!(star.root(), 2);
        assert_eq!(star.closeness(2), 1.0);
        assert!((star.closeness(0) - 3.0 / 5.0).abs() < 1e-12);
        // Chain a1-a2-a3-a4: a2 and a3 tie (sum 4); the lower index wins.
        let chain = Team::preset(Preset::Chain, 4);
        assert_eq!(chain.closeness(1), chain.closeness(2));
        assert_eq!(chain.root(), 1);
        // Ring and full graph: every node ties; the first is the root.
        assert_eq!(Team::preset(Preset::Ring, 5).root(), 0);
        assert_eq!(Team::preset(Preset::Full, 4).root(), 0);
        // A chain of five: the middle one.
        assert_eq!(Team::preset(Preset::Chain, 5).root(), 2);
        assert_eq!(Team::preset(Preset::Star, 1).root(), 0);
    }

    #[test]
    fn the_default_team_reaches_depth_two_from_its_hub() {
        let t = Team::default_team();
        assert_eq!((t.len(), t.root()), (4, 0));
        assert_eq!(t.neighbours(0), [1, 2, 3]);
        assert_eq!(t.reach(t.root()), 2);
        // A star's leaves have only the hub: depth 1 at most.
        assert_eq!(Team::preset(Preset::Star, 4).reach(0), 1);
        assert_eq!(Team::preset(Preset::Chain, 4).reach(0), 3);
        assert_eq!(Team::preset(Preset::Full, 4).reach(0), 3);
        assert_eq!(Team::preset(Preset::LinkedStar, 2).reach(0), 1);
        assert_eq!(t.reach(9), 0);
    }

    #[test]
    fn disconnected_and_malformed_teams_are_refused_with_the_agents_named() {
        let t = team(4, &[(0, 1), (2, 3)]);
        assert_eq!(
            t.validate(),
            Err(TeamError::Disconnected(vec![
                "Agent 3".into(),
                "Agent 4".into()
            ]))
        );
        assert!(t
            .validate()
            .unwrap_err()
            .user_message()
            .contains("Agent 3, Agent 4"));
        assert_eq!(t.closeness(0), 0.0);
        assert_eq!(team(2, &[(0, 2)]).validate(), Err(TeamError::BadEdge(0, 2)));
        assert_eq!(team(2, &[(1, 1)]).validate(), Err(TeamError::BadEdge(1, 1)));
        let mut dup = Team::preset(Preset::Full, 3);
        dup.agents[2].id = "a1".into();
        assert_eq!(dup.validate(), Err(TeamError::DuplicateId("a1".into())));
        let empty = Team {
            agents: vec![],
            edges: vec![],
        };
        assert_eq!(empty.validate(), Err(TeamError::Empty));
        for p in Preset::ALL {
            assert_eq!(Team::preset(p, 4).validate(), Ok(()), "{p:?}");
        }
    }

    #[test]
    fn the_editor_s_changes_keep_the_graph_consistent() {
        let mut t = Team::preset(Preset::Chain, 4); // a1-a2-a3-a4
        assert_eq!(
            t.root(),
            1,
            "ties between the two middle agents go to the lower index"
        );
        t.remove_agent(1); // a1  a3-a4: a1 cut off
        assert_eq!(
            t.agents.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
            ["a1", "a3", "a4"]
        );
        assert_eq!(t.edges, vec![(1, 2)], "edges follow the new indexes");
        assert_eq!(
            t.validate(),
            Err(TeamError::Disconnected(vec![
                "Agent 3".into(),
                "Agent 4".into()
            ]))
        );
        t.toggle_edge(2, 0);
        assert!(t.has_edge(0, 2) && t.has_edge(2, 0));
        assert_eq!(t.validate(), Ok(()));
        assert_eq!(t.root(), 2, "a4 is now the middle of the chain");
        t.toggle_edge(0, 2);
        assert!(!t.has_edge(0, 2), "a second toggle parts them");
        t.toggle_edge(1, 1);
        t.toggle_edge(0, 9);
        assert_eq!(
            t.edges,
            vec![(1, 2)],
            "self-loops and unknown agents are ignored"
        );
        let i = t.add_agent(Some(0));
        assert_eq!(
            (i, t.agents[i].id.as_str()),
            (3, "a2"),
            "the lowest free id"
        );
        assert!(t.has_edge(0, 3));
        let j = t.add_agent(None);
        assert_eq!(t.agents[j].id, "a5");
        assert!(t.neighbours(j).is_empty());
    }

    #[test]
    fn neighbours_are_undirected_and_deduplicated() {
        let t = team(3, &[(0, 1), (1, 0), (2, 1)]);
        assert_eq!(t.neighbours(1), vec![0, 2]);
        assert_eq!(t.neighbours(0), vec![1]);
        assert_eq!(t.distances(0), vec![Some(0), Some(1), Some(2)]);
    }
}
