//! The travel coordinator's contract: agent ids, step tags, the layout of
//! the requests it sends, the formats it expects back, and the payloads of
//! the events it records. The coordinator, the offline demo model (which
//! plays every role) and the travel views all build on this file.
//!
//! Roles (Ou et al.): experts E_k call tools privately and post their part
//! to the public conversation c; their raw tool returns go to the notebook
//! N automatically; the orchestrator D reads only the goal G and c, reflects
//! and picks who acts next (it never posts to c); the plan summarizer P_S
//! (no LLM) builds a brief from G and N; the plan compiler P_C writes the
//! plan; the plan critic P_R reviews it with P_C for a few rounds.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const ID: &str = "travel";

// Agent ids (also their roles, which select their models).
pub const TRANSPORTATION: &str = "transportation";
pub const HOTEL: &str = "hotel";
pub const RESTAURANT: &str = "restaurant";
pub const ATTRACTION: &str = "attraction";
pub const ORCHESTRATOR: &str = "orchestrator";
pub const SUMMARIZER: &str = "summarizer";
pub const COMPILER: &str = "compiler";
pub const CRITIC: &str = "critic";

/// A lesson's questions on these runs: the orchestrator picks who acts
/// next, the critic accepts the plan or sends it back (roles = agent ids).
pub const QUESTION_ROLES: crate::engine::lesson::questions::Roles =
    crate::engine::lesson::questions::Roles {
        choosers: &[ORCHESTRATOR],
        critics: &[CRITIC],
        retrieval_store: None,
    };
/// The single-agent baseline's one agent.
pub const SOLO: &str = "planner";
/// Who records the evaluation (not an LLM agent).
pub const EVALUATOR: &str = "evaluator";

/// The experts, in the fixed workflow's order.
pub const EXPERTS: [&str; 4] = [TRANSPORTATION, HOTEL, RESTAURANT, ATTRACTION];
/// What the orchestrator may choose besides the experts: plan now.
pub const PLAN: &str = "plan";

// Step tags (`ChatRequest::step`), one per kind of request.
pub const STEP_EXPERT_PREFIX: &str = "travel.expert.";
pub const STEP_ORCHESTRATOR: &str = "travel.orchestrator";
pub const STEP_COMPILER: &str = "travel.compiler";
pub const STEP_CRITIC: &str = "travel.critic";
pub const STEP_SOLO: &str = "travel.solo";

pub fn expert_step(expert: &str) -> String {
    format!("{STEP_EXPERT_PREFIX}{expert}")
}

/// The tools each expert may call (the single agent may call all six).
pub fn expert_tools(expert: &str) -> &'static [&'static str] {
    match expert {
        TRANSPORTATION => &["CitySearch", "FlightSearch", "GoogleDistanceMatrix"],
        HOTEL => &["AccommodationSearch"],
        RESTAURANT => &["RestaurantSearch"],
        ATTRACTION => &["AttractionSearch"],
        _ => &[],
    }
}

/// The variants of the paper's comparisons. Their ids are what runs,
/// links and the CLI store; the single-agent baseline keeps the paper's
/// name `single` as its id (in code it is `Solo`: `single` is also the
/// name of Roundtable's single-agent coordinator).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// One ReAct agent with every tool (TravelPlanner's baseline).
    #[serde(rename = "single")]
    Solo,
    /// transportation → hotel → restaurant → attraction → summarizer → compiler,
    /// the compiler seeing only the conversation.
    Fixed,
    /// The same order, with the notebook given to the compiler.
    FixedNotebook,
    /// Orchestrator-led with self-reflection, notebook and critic (the full system).
    Orchestrator,
}

impl Variant {
    pub const ALL: [Variant; 4] = [
        Variant::Solo,
        Variant::Fixed,
        Variant::FixedNotebook,
        Variant::Orchestrator,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Variant::Solo => "single",
            Variant::Fixed => "fixed",
            Variant::FixedNotebook => "fixed-notebook",
            Variant::Orchestrator => "orchestrator",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Variant::Solo => "Single agent (ReAct)",
            Variant::Fixed => "Fixed workflow, no notebook",
            Variant::FixedNotebook => "Fixed workflow + notebook",
            Variant::Orchestrator => "Orchestrator + notebook + critic",
        }
    }

    pub fn parse(s: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.id() == s)
    }

    /// Tool results are written to the notebook N (and the compiler reads it).
    pub fn keeps_notebook(self) -> bool {
        matches!(self, Variant::FixedNotebook | Variant::Orchestrator)
    }

    /// The orchestrator D chooses who acts next (else a fixed order).
    pub fn has_orchestrator(self) -> bool {
        self == Variant::Orchestrator
    }

    /// The critic P_R reviews the compiled plan.
    pub fn has_critic(self) -> bool {
        self == Variant::Orchestrator
    }

    /// The ids, for messages that list them.
    pub fn ids() -> String {
        let ids: Vec<&str> = Variant::ALL.iter().map(|v| v.id()).collect();
        ids.join(", ")
    }
}

/// How tools are offered: native function calling, or the text protocol
/// `ToolName[arg1, arg2]` described in the prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolMode {
    Native,
    Text,
}

impl ToolMode {
    /// The mode a run on `spec` uses: the in-browser model has no native
    /// tool calls, so it always gets the text protocol.
    pub fn for_model(self, spec: &crate::engine::run::ModelSpec) -> ToolMode {
        if spec.is_local() {
            ToolMode::Text
        } else {
            self
        }
    }
}

/// The run's options (`RunConfig::options`), so a run is self-contained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TravelOptions {
    /// The query, as in the JSONL files (`idx`, `query`, `org`, ...).
    pub query: Value,
    /// `builtin`, or the name of a database imported in the browser, or a
    /// directory given to the CLI.
    #[serde(default = "builtin")]
    pub db: String,
    #[serde(default = "native")]
    pub tool_mode: ToolMode,
    /// Agent turns before the run gives up (no plan = not delivered).
    #[serde(default = "default_steps")]
    pub max_steps: u32,
    /// Critic rounds after the first compiled plan (orchestrator variant).
    #[serde(default = "default_critic_rounds")]
    pub critic_rounds: u32,
    /// Tool-call rounds per expert turn before it must answer.
    #[serde(default = "default_tool_rounds")]
    pub max_tool_rounds: u32,
}

fn builtin() -> String {
    "builtin".into()
}
fn native() -> ToolMode {
    ToolMode::Native
}
fn default_steps() -> u32 {
    16
}
fn default_critic_rounds() -> u32 {
    2
}
fn default_tool_rounds() -> u32 {
    8
}

// ---------------------------------------------------------------- requests
//
// Every request's first user message starts with the goal block:
//
//   # Goal
//   <the query text>
//
//   # Trip facts
//   ```json
//   {TripFacts as JSON}
//   ```
//
// Experts, the orchestrator and the critic then get the public conversation:
//
//   # Conversation so far
//   ## <Agent name> (<agent id>)
//   <message text>
//   ...
//
// ("(nothing yet)" when empty). Experts get their instruction last (a
// `# Your turn` section). Tool calls and results continue the expert's own
// messages: native mode uses assistant tool_calls + tool messages; text
// mode uses an assistant message with `Tool[args]` and a user message
// starting with "Observation:". The compiler's user message is the brief
// from the summarizer (goal block, then `# Notebook` with one `## N<i> ·
// <author> · <Tool>[args]` section per entry holding the raw tool text, when
// the variant has a notebook), then the conversation.

/// The query's structured fields, given to every agent with the goal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TripFacts {
    pub org: String,
    /// A city, or a state for multi-city trips.
    pub dest: String,
    pub days: u32,
    pub visiting_city_number: u32,
    pub dates: Vec<String>,
    pub people_number: u32,
    pub budget: f64,
    #[serde(default)]
    pub house_rule: Option<String>,
    #[serde(default)]
    pub cuisine: Option<Vec<String>>,
    #[serde(default)]
    pub room_type: Option<String>,
    #[serde(default)]
    pub transportation: Option<String>,
}

#[cfg(test)]
impl TripFacts {
    /// A 3-day trip from A to B with no preferences, for tests.
    pub fn for_tests(dates: &[&str], people_number: u32, budget: f64) -> TripFacts {
        TripFacts {
            org: "A".into(),
            dest: "B".into(),
            days: 3,
            visiting_city_number: 1,
            dates: dates.iter().map(|d| d.to_string()).collect(),
            people_number,
            budget,
            house_rule: None,
            cuisine: None,
            room_type: None,
            transportation: None,
        }
    }
}

pub const GOAL_HEADING: &str = "# Goal";
pub const FACTS_HEADING: &str = "# Trip facts";
pub const CONVERSATION_HEADING: &str = "# Conversation so far";
pub const NOTEBOOK_HEADING: &str = "# Notebook";
pub const TURN_HEADING: &str = "# Your turn";
pub const OBSERVATION_PREFIX: &str = "Observation:";

/// The first ```json fenced block after `heading` in `text`, parsed.
pub fn json_block_after(text: &str, heading: &str) -> Option<Value> {
    let start = text.find(heading)?;
    first_json_block(&text[start..])
}

pub use crate::engine::model::reply::first_json_block;

/// An expert's choices in its post: its first ```json block, read by the
/// lenient reader (a trailing comma, a cut-off end, single quotes… are
/// repaired); None when the post has no block that reads as choices.
pub fn choices_in(post: &str) -> Option<ExpertChoices> {
    let open = post.find("```json")?;
    crate::engine::model::reply::read_json::<ExpertChoices>(post.get(open..)?)
        .ok()
        .map(|r| r.value)
}

/// The trip facts in a request's messages, if present.
pub fn trip_facts_in(text: &str) -> Option<TripFacts> {
    serde_json::from_value(json_block_after(text, FACTS_HEADING)?).ok()
}

/// The public conversation as it is shown to agents.
pub fn format_conversation(posts: &[(String, String, String)]) -> String {
    // (agent id, display name, text)
    let mut s = format!("{CONVERSATION_HEADING}\n");
    if posts.is_empty() {
        s.push_str("(nothing yet)\n");
    }
    for (id, name, text) in posts {
        s.push_str(&format!("## {name} ({id})\n{}\n\n", text.trim()));
    }
    s
}

/// Reads the conversation section back: (agent id, text) pairs.
pub fn parse_conversation(text: &str) -> Vec<(String, String)> {
    let Some(start) = text.find(CONVERSATION_HEADING) else {
        return Vec::new();
    };
    let body = &text[start + CONVERSATION_HEADING.len()..];
    let body = body.split("\n# ").next().unwrap_or(body);
    let mut out: Vec<(String, String)> = Vec::new();
    for line in body.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            if let (Some(o), Some(c)) = (h.rfind('('), h.rfind(')')) {
                if o < c {
                    out.push((h[o + 1..c].to_string(), String::new()));
                    continue;
                }
            }
        }
        if let Some(last) = out.last_mut() {
            last.1.push_str(line);
            last.1.push('\n');
        }
    }
    for p in &mut out {
        p.1 = p.1.trim().to_string();
    }
    out
}

// ---------------------------------------------------------------- replies
//
// The experts' choices, the orchestrator's decision and the critic's
// approval: `replies.rs`.
pub use super::replies::*;

// ---------------------------------------------------------------- events
//
// NoteWritten stores and their payloads:
//   "notebook"   agent = expert      NotebookEntry      (key "N1", "N2", ...)
//   "reflection" agent = orchestrator Reflection
//   "brief"      agent = summarizer   {"text": brief}
//   "plan"       agent = compiler     PlanRecord
//   "evaluation" agent = evaluator    RunEvaluation
// ScoreComputed: "delivered", "commonsense_pass", "hard_pass", "final_pass"
// (0 or 1), one per check ("check.<key>", 1/0, detail {message}), and
// "revisits.<expert>".

pub const STORE_NOTEBOOK: &str = "notebook";
pub const STORE_REFLECTION: &str = "reflection";
pub const STORE_BRIEF: &str = "brief";
pub const STORE_PLAN: &str = "plan";
pub const STORE_EVALUATION: &str = "evaluation";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NotebookEntry {
    pub author: String,
    pub tool: String,
    pub args: Vec<String>,
    /// The tool call's id (links the entry to its `tool_called` event).
    pub call_id: String,
    pub ok: bool,
    /// The raw tool text.
    pub content: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reflection {
    /// The orchestrator's step number (1-based).
    pub step: u32,
    pub decision: Decision,
    /// Set when the reply could not be used as it was (and what was done).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanRecord {
    /// 0 = first compiled plan; 1.. = after critic rounds.
    pub round: u32,
    /// The plan as day objects, when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Value>,
    /// Why the compiler's output is not a plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_delivered: Option<String>,
}

/// One verdict as recorded: pass (None = not applicable) and the
/// evaluator's message, and the plan cells it concerns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerdictRecord {
    pub key: String,
    /// The paper's name (Within Sandbox, Budget, ...).
    pub name: String,
    pub pass: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// [day index (0-based), field key] pairs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<(usize, String)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HallucinationRecord {
    /// restaurant, attraction, accommodation, transportation
    pub category: String,
    pub entity: String,
    #[serde(default)]
    pub day: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunEvaluation {
    pub variant: Variant,
    pub query_idx: u32,
    pub level: String,
    pub delivered: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_delivered: Option<String>,
    /// The evaluated plan (day objects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Value>,
    pub commonsense: Vec<VerdictRecord>,
    pub hard: Vec<VerdictRecord>,
    pub commonsense_pass: bool,
    pub hard_pass: bool,
    pub final_pass: bool,
    /// Expert id → times the orchestrator sent control back to it after it had spoken.
    pub revisits: Vec<(String, u32)>,
    pub hallucinations: Vec<HallucinationRecord>,
    /// The plan's total cost as the evaluator computes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_cost: Option<f64>,
    pub steps: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_model_gets_the_text_tool_protocol() {
        let mut spec = crate::engine::run::ModelSpec::demo();
        assert_eq!(ToolMode::Native.for_model(&spec), ToolMode::Native);
        spec.provider = crate::engine::model::spec::LOCAL_PROVIDER.into();
        assert_eq!(ToolMode::Native.for_model(&spec), ToolMode::Text);
        assert_eq!(ToolMode::Text.for_model(&spec), ToolMode::Text);
    }

    #[test]
    fn conversation_round_trips() {
        let posts = vec![
            (
                "hotel".to_string(),
                "Hotel expert".to_string(),
                "Stay at X.\nTwo nights.".to_string(),
            ),
            (
                "transportation".to_string(),
                "Transportation expert".to_string(),
                "Fly.".to_string(),
            ),
        ];
        let text = format!(
            "{GOAL_HEADING}\ng\n\n{}\n{TURN_HEADING}\ngo",
            format_conversation(&posts)
        );
        let back = parse_conversation(&text);
        assert_eq!(
            back,
            vec![
                ("hotel".into(), "Stay at X.\nTwo nights.".into()),
                ("transportation".into(), "Fly.".into())
            ]
        );
        assert!(parse_conversation(&format_conversation(&[])).is_empty());
    }

    #[test]
    fn facts_and_blocks_are_found() {
        let facts = TripFacts {
            org: "A".into(),
            dest: "B".into(),
            days: 3,
            visiting_city_number: 1,
            dates: vec!["2022-03-01".into()],
            people_number: 2,
            budget: 900.0,
            house_rule: None,
            cuisine: Some(vec!["Thai".into()]),
            room_type: None,
            transportation: None,
        };
        let text = format!(
            "{GOAL_HEADING}\nq\n\n{FACTS_HEADING}\n```json\n{}\n```\n",
            serde_json::to_string(&facts).expect("json")
        );
        assert_eq!(trip_facts_in(&text), Some(facts));
        assert_eq!(
            first_json_block("x ```json\n{\"a\":1}\n``` y"),
            Some(serde_json::json!({"a": 1}))
        );
        assert_eq!(first_json_block("no block"), None);
        let post = "Two nights.\n```json\n{\"stays\": [{\"city\": \"B\", \"name\": \"Inn\", \"nights\": 2,}],}\n```";
        assert_eq!(first_json_block(post), None, "strict");
        assert_eq!(choices_in(post).map(|c| c.stays.len()), Some(1));
        assert_eq!(choices_in("No block here. {\"stays\": []}"), None);
        assert_eq!(
            Variant::parse("fixed-notebook"),
            Some(Variant::FixedNotebook)
        );
    }
}
