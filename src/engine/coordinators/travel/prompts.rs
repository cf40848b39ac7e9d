//! The prompts of the travel coordinator, written for Roundtable after the
//! structure of the paper's appendix B: one role prompt per expert (its
//! domain, its tools, exact names), the orchestrator's self-reflection, the
//! compiler's output format and the critic's checklist. The texts are
//! templates in `travel.prompts` (a run may edit them); here are what each
//! is for, what it is given, and how the steps render them.

use super::contract::*;
use crate::engine::prompts::{vars, Prompts, TemplateSpec, Var};
use crate::engine::run::RunError;

/// The default templates (`roundtable prompts --coordinator travel`).
pub const DEFAULTS: &str = include_str!("travel.prompts");

const TOOLS: Var = Var::required(
    "tools",
    "the agent's tools and how to call them (travel.tools)",
);

/// Every template of the travel planner, with the variables its step gives.
pub static TEMPLATES: [TemplateSpec; 15] = [
    TemplateSpec::new(
        "travel.orchestrator.system",
        "The orchestrator: who it is and how it decides who acts next",
        &[],
    ),
    TemplateSpec::new(
        "travel.orchestrator.turn",
        "The orchestrator's turn, after the goal and the conversation: its reflection and choice as JSON",
        &[],
    ),
    TemplateSpec::new("travel.expert.transportation.system", "The transportation expert's role", &[TOOLS]),
    TemplateSpec::new("travel.expert.hotel.system", "The hotel expert's role", &[TOOLS]),
    TemplateSpec::new("travel.expert.restaurant.system", "The restaurant expert's role", &[TOOLS]),
    TemplateSpec::new("travel.expert.attraction.system", "The attraction expert's role", &[TOOLS]),
    TemplateSpec::new(
        "travel.tools",
        "An agent's tools, and in the text protocol how to call them",
        &[
            Var::required("tools", "the tools, one \"- Tool[arguments] — what it finds\" line each"),
            Var::optional("text_protocol", "true when tools are called as Tool[args] lines in the text").flag(),
        ],
    ),
    TemplateSpec::new(
        "travel.expert.turn",
        "An expert's turn, after the goal and the conversation",
        &[Var::optional("instruction", "what the orchestrator asks of the expert (may be empty)")],
    ),
    TemplateSpec::new(
        "travel.expert.force_answer",
        "Told to an expert that has used its tool rounds",
        &[],
    ),
    TemplateSpec::new("travel.compiler.system", "The plan compiler: who it is", &[]),
    TemplateSpec::new(
        "travel.compiler.turn",
        "The compiler's turn, after the brief and the conversation: the plan's JSON and its rules",
        &[],
    ),
    TemplateSpec::new("travel.critic.system", "The plan critic: what it checks", &[]),
    TemplateSpec::new("travel.critic.turn", "The critic's turn: its review as JSON", &[]),
    TemplateSpec::new("travel.solo.system", "The single agent (ReAct baseline): its role and tools", &[TOOLS]),
    TemplateSpec::new("travel.solo.turn", "The single agent's task, after the goal", &[]),
];

/// The templates of a run: the defaults with its edits.
pub fn of_run(edits: &std::collections::BTreeMap<String, String>) -> Result<Prompts, RunError> {
    Ok(Prompts::new(DEFAULTS, &TEMPLATES, edits)?)
}

fn render(p: &Prompts, name: &str, v: crate::engine::prompts::Value) -> Result<String, RunError> {
    Ok(p.render(name, v)?)
}

fn tool_help(tool: &str) -> &'static str {
    match tool {
        "FlightSearch" => "FlightSearch[Departure City, Destination City, Date] — flights on a date (YYYY-MM-DD).",
        "GoogleDistanceMatrix" => "GoogleDistanceMatrix[Origin, Destination, Mode] — duration, distance and cost by road; Mode is self-driving or taxi.",
        "AccommodationSearch" => "AccommodationSearch[City] — listings in a city with price, room type, house rules, minimum nights and maximum occupancy.",
        "RestaurantSearch" => "RestaurantSearch[City] — restaurants in a city with cuisines, average cost and rating.",
        "AttractionSearch" => "AttractionSearch[City] — attractions in a city.",
        _ => "CitySearch[State] — the cities of a state.",
    }
}

/// How to call tools: native function calling needs no words; the text
/// protocol is described.
fn tool_section(p: &Prompts, tools: &[&str], mode: ToolMode) -> Result<String, RunError> {
    let list: Vec<String> = tools
        .iter()
        .map(|t| format!("- {}", tool_help(t)))
        .collect();
    render(
        p,
        "travel.tools",
        vars! { tools => list.join("\n"), text_protocol => mode == ToolMode::Text },
    )
}

pub fn expert_system(p: &Prompts, expert: &str, mode: ToolMode) -> Result<String, RunError> {
    let tools = tool_section(p, expert_tools(expert), mode)?;
    render(
        p,
        &format!("travel.expert.{expert}.system"),
        vars! { tools },
    )
}

/// An expert's turn, with the orchestrator's instruction when it gave one.
pub fn expert_turn(p: &Prompts, instruction: &str) -> Result<String, RunError> {
    render(
        p,
        "travel.expert.turn",
        vars! { instruction => instruction.trim() },
    )
}

pub fn force_answer(p: &Prompts) -> Result<String, RunError> {
    render(p, "travel.expert.force_answer", vars! {})
}

pub fn orchestrator_system(p: &Prompts) -> Result<String, RunError> {
    render(p, "travel.orchestrator.system", vars! {})
}

pub fn orchestrator_turn(p: &Prompts) -> Result<String, RunError> {
    render(p, "travel.orchestrator.turn", vars! {})
}

pub fn compiler_system(p: &Prompts) -> Result<String, RunError> {
    render(p, "travel.compiler.system", vars! {})
}

/// The compiler's turn: one JSON object, the plan first (its shape is the
/// step's schema, [`super::planning::plan_schema`]).
pub fn compiler_turn(p: &Prompts) -> Result<String, RunError> {
    render(p, "travel.compiler.turn", vars! {})
}

pub fn critic_system(p: &Prompts) -> Result<String, RunError> {
    render(p, "travel.critic.system", vars! {})
}

pub fn critic_turn(p: &Prompts) -> Result<String, RunError> {
    render(p, "travel.critic.turn", vars! {})
}

pub fn solo_system(p: &Prompts, mode: ToolMode) -> Result<String, RunError> {
    let tools = tool_section(p, &crate::engine::domains::travel::tools::TOOL_NAMES, mode)?;
    render(p, "travel.solo.system", vars! { tools })
}

pub fn solo_turn(p: &Prompts) -> Result<String, RunError> {
    render(p, "travel.solo.turn", vars! {})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edits(v: serde_json::Value) -> std::collections::BTreeMap<String, String> {
        serde_json::from_value(v).expect("name → text")
    }

    #[test]
    fn every_default_template_is_declared_and_renders() {
        let p = of_run(&Default::default()).expect("the defaults are valid");
        for mode in [ToolMode::Native, ToolMode::Text] {
            for e in EXPERTS {
                let s = expert_system(&p, e, mode).expect("rendered");
                assert!(s.contains("Your tools:\n- "), "{s}");
                assert_eq!(s.contains("To call a tool"), mode == ToolMode::Text);
            }
            assert!(solo_system(&p, mode)
                .expect("rendered")
                .contains("CitySearch[State]"));
        }
        assert_eq!(
            expert_turn(&p, "  Find flights.  ").expect("rendered"),
            format!("{TURN_HEADING}\nIt is your turn. Use your tools, then post your part of the plan.\nThe coordinator asks: Find flights.")
        );
        assert!(!expert_turn(&p, " ")
            .expect("rendered")
            .contains("coordinator asks"));
        assert!(orchestrator_turn(&p)
            .expect("rendered")
            .contains(&format!("|{PLAN}\"")));
    }

    #[test]
    fn an_edited_template_is_used_and_a_bad_one_refuses_the_run() {
        let p = of_run(&edits(serde_json::json!({
            "travel.orchestrator.system": "Prefer the cheapest options."
        })))
        .expect("an edit");
        assert_eq!(
            orchestrator_system(&p).expect("rendered"),
            "Prefer the cheapest options."
        );
        let e = of_run(&edits(serde_json::json!({
            "travel.expert.turn": "# Your turn\n{{ budget }}"
        })))
        .err()
        .expect("refused");
        let RunError::Failed(why) = e else {
            panic!("{e:?}")
        };
        assert_eq!(why.kind, "config");
        assert!(
            why.message.contains("travel.expert.turn, line 2")
                && why.message.contains("{{ budget }}"),
            "{}",
            why.message
        );
    }
}
