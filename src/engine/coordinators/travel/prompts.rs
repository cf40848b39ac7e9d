//! The prompts of the travel coordinator, written for Roundtable after the
//! structure of the paper's appendix B: one role prompt per expert (its
//! domain, its tools, exact names), the orchestrator's self-reflection, the
//! compiler's output format and the critic's checklist.

use super::contract::*;

const TEAM: &str = "You are part of a team of assistants planning a trip together. Others handle the other parts; \
read their messages and build on them.";

const EXACT: &str =
    "Copy names, flight numbers, times and prices exactly as the tools return them; never invent \
or shorten them.";

fn choices_format(expert: &str) -> &'static str {
    match expert {
        TRANSPORTATION => {
            r#"{"route": ["City", ...], "legs": [{"day": 1, "from": "City", "to": "City", "text": "Flight Number: F0123456, from A to B, Departure Time: 08:00, Arrival Time: 10:00", "cost": 0}], "estimated_cost": 0}"#
        }
        HOTEL => {
            r#"{"stays": [{"city": "City", "name": "Exact listing name", "nights": 2, "cost": 0}], "estimated_cost": 0}"#
        }
        RESTAURANT => {
            r#"{"restaurants": [{"city": "City", "name": "Exact name", "cost": 0, "cuisines": "..."}], "estimated_cost": 0}"#
        }
        _ => r#"{"attractions": [{"city": "City", "name": "Exact name"}]}"#,
    }
}

fn expert_role(expert: &str) -> &'static str {
    match expert {
        TRANSPORTATION => "You are the transportation expert and handle transportation only. When the destination is a \
state, find its cities and choose the ones to visit and their order. Find how to travel between the cities on the \
right dates — the outbound trip on the first day, the trip home on the last day — by flight, or by self-driving or \
taxi when there is no flight or flights are not allowed. Respect the traveller's transportation constraint and do \
not mix self-driving with flights. Your first choice of cities need not be final: change it if others need.",
        HOTEL => "You are the hotel expert and handle accommodation only. State first how many nights are needed in \
each city; nobody sleeps away on the last day, when the travellers go home. Check every listing you consider \
against the trip: house rules, room type, minimum nights and maximum occupancy (book more rooms for a larger \
group). Show that check between <checking hotel requirements> and </checking hotel requirements>.",
        RESTAURANT => "You are the restaurant expert and handle meals only: breakfast, lunch and dinner each day, in \
the city the travellers are in at that moment. Never use a restaurant twice, cover every cuisine the travellers \
asked for, and keep the cost within the budget.",
        _ => "You are the attraction expert and handle sightseeing only: at least one attraction for each day the \
travellers spend in a city, in that city, and never the same attraction twice.",
    }
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
fn tool_section(tools: &[&str], mode: ToolMode) -> String {
    let list: Vec<String> = tools
        .iter()
        .map(|t| format!("- {}", tool_help(t)))
        .collect();
    match mode {
        ToolMode::Native => format!("Your tools:\n{}", list.join("\n")),
        ToolMode::Text => format!(
            "Your tools:\n{}\nTo call a tool, write the call on its own line exactly like ToolName[argument, argument]; \
you may write several calls in one message and you will get an Observation for each. When you have what you need, \
write your answer without any tool call.",
            list.join("\n")
        ),
    }
}

pub fn expert_system(expert: &str, mode: ToolMode) -> String {
    format!(
        "{TEAM}\n\n{}\n\n{}\n\n{EXACT}\n\nWhen you are done, post your part for the team in a few lines and end with a \
```json block of your choices in this shape:\n{}\nIf something cannot be done, say what in a \"problem\" field.",
        expert_role(expert),
        tool_section(expert_tools(expert), mode),
        choices_format(expert)
    )
}

/// An expert's turn, with the orchestrator's instruction when it gave one.
pub fn expert_turn(instruction: &str) -> String {
    let mut s = format!(
        "{TURN_HEADING}\nIt is your turn. Use your tools, then post your part of the plan."
    );
    if !instruction.trim().is_empty() {
        s.push_str(&format!("\nThe coordinator asks: {}", instruction.trim()));
    }
    s
}

pub const FORCE_ANSWER: &str =
    "You have used all your tool calls for this turn. Post your part now from what you \
found, without calling any tool.";

pub const ORCHESTRATOR_SYSTEM: &str = "You coordinate a team of travel-planning experts: transportation, hotel, \
restaurant and attraction. You see the travellers' goal and the team's conversation, nothing else, and you never \
speak in the conversation. Each time, first reflect: what is already settled, what is still missing, and what \
conflicts (cost over budget, wrong cities or dates, unmet constraints). Then choose who acts next. You may send \
work back to an expert who already spoke when their part causes a problem. Choose \"plan\" when every part is \
there and consistent; the plan will then be written from the experts' findings.";

pub fn orchestrator_turn() -> String {
    format!(
        "{TURN_HEADING}\nReflect, then choose the next agent. Reply with one JSON object only:\n\
{{\"done\": \"...\", \"missing\": \"...\", \"conflicts\": \"...\", \"next\": \"transportation|hotel|restaurant|attraction|{PLAN}\", \"instruction\": \"what that agent should do\"}}"
    )
}

pub const COMPILER_SYSTEM: &str = "You write the final travel plan from the planning brief and the team's \
conversation. Use only facts found there; copy every name, flight number and time exactly. When a critic points out \
problems, fix them.";

/// How the plan's days are written (the evaluator's keys and formats).
const DAY_RULES: &str = "Rules: current_city is \"from A to B\" on a travel day and the city name otherwise; places \
are written \"Name, City\"; several attractions are separated by \";\"; transportation is the exact text of the leg \
(e.g. \"Flight Number: F0123456, from A to B, Departure Time: 08:00, Arrival Time: 10:00\" or \"Self-driving, from A \
to B, duration: ..., distance: ..., cost: ...\"); use \"-\" when there is nothing (no hotel on the last day).";

/// The eight keys of a day, in the order the evaluator lists them.
const DAY_KEYS: &str =
    "days, current_city, transportation, breakfast, attraction, lunch, dinner, accommodation";

/// The compiler's turn: one JSON object, the plan first (its shape is the
/// step's schema, [`super::planning::plan_schema`]).
pub fn compiler_turn() -> String {
    format!(
        "{TURN_HEADING}\nReply with one JSON object only: {{\"plan\": [...], \"notes\": \"...\"}}. \"plan\" \
holds one object per day with exactly these keys: {DAY_KEYS}; \"notes\" says briefly what the travellers should know \
(gaps, the total cost). {DAY_RULES}"
    )
}

/// How the solo agent writes its plan: a JSON array of days in a block.
fn solo_plan_format() -> String {
    format!(
        "Write the plan as a JSON array with one object per day and exactly these keys: {DAY_KEYS}. {DAY_RULES} \
Put the array in a ```json block."
    )
}

pub const CRITIC_SYSTEM: &str = "You review a proposed travel plan against the travellers' goal and the team's \
conversation: every day present, the route closed back home, the budget respected, the house rule, cuisines, room \
type and transportation constraints met, no restaurant or attraction repeated, hotel minimum nights met, every \
place in the city of its day.";

pub fn critic_turn() -> String {
    format!(
        "{TURN_HEADING}\nCheck the latest plan. Reply with one JSON object only: {{\"summary\": \"what you checked\", \"problems\": \
[...], \"approved\": true|false}}. List each problem precisely (day, field, what is wrong, what to use instead) so the compiler can fix it; \
\"approved\" is true only when the list is empty."
    )
}

pub fn solo_system(mode: ToolMode) -> String {
    format!(
        "You plan trips on your own. Collect what you need with the tools — transportation, accommodation, \
restaurants and attractions for every city and day — then write the plan.\n\n{}\n\n{EXACT}",
        tool_section(&crate::engine::domains::travel::tools::TOOL_NAMES, mode)
    )
}

pub fn solo_turn() -> String {
    format!(
        "{TURN_HEADING}\nGather information step by step. When you have everything, reply without tool calls with \
the final plan.\n{}",
        solo_plan_format()
    )
}
