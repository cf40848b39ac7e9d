//! The six TravelPlanner tools with the official names, arguments, results
//! and error texts (tools/*/apis.py and the ReAct agent's wrappers in
//! agents/tool_agents.py). Each call returns the text the model sees and the
//! rows behind it, for scripted agents that pick options themselves.

use super::db::TravelDb;
use super::pyops::{before_paren, py_repr_list};
use super::sandbox::{cost_for_mode, distance_km};
use super::table_text;
use super::tables::{Accommodation, Attraction, Flight, Restaurant};
use crate::engine::model::text_tools::{parse_first, TextToolCall};
use crate::engine::model::ToolSpec;
use serde::Serialize;
use serde_json::{json, Value};

pub const FLIGHT_SEARCH: &str = "FlightSearch";
pub const DISTANCE_MATRIX: &str = "GoogleDistanceMatrix";
pub const ACCOMMODATION_SEARCH: &str = "AccommodationSearch";
pub const RESTAURANT_SEARCH: &str = "RestaurantSearch";
pub const ATTRACTION_SEARCH: &str = "AttractionSearch";
pub const CITY_SEARCH: &str = "CitySearch";

pub const TOOL_NAMES: [&str; 6] = [
    FLIGHT_SEARCH,
    DISTANCE_MATRIX,
    ACCOMMODATION_SEARCH,
    RESTAURANT_SEARCH,
    ATTRACTION_SEARCH,
    CITY_SEARCH,
];

/// The agent's answer to an unknown action (spacing as in the original).
pub const INVALID_ACTION: &str = "Invalid Action. Valid Actions are  FlightSearch[Departure City, Destination City, Date] / AccommodationSearch[City] /  RestaurantSearch[City] / NotebookWrite[Short Description] / AttractionSearch[City] / CitySearch[State] / GoogleDistanceMatrix[Origin, Destination, Mode] and Planner[Query].";

/// A road leg as GoogleDistanceMatrix reports it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RoadInfo {
    pub origin: String,
    pub destination: String,
    pub mode: String,
    pub duration: String,
    pub distance: String,
    /// None for a mode other than self-driving/driving or taxi.
    pub cost: Option<i64>,
}

/// The rows behind a tool result.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", content = "rows", rename_all = "snake_case")]
pub enum ToolRows {
    None,
    Flights(Vec<Flight>),
    Road(RoadInfo),
    Accommodations(Vec<Accommodation>),
    Restaurants(Vec<Restaurant>),
    Attractions(Vec<Attraction>),
    Cities(Vec<String>),
}

/// A tool's result: the text for the model, the rows, and whether the call
/// was valid and found something.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolResult {
    pub text: String,
    pub rows: ToolRows,
    pub ok: bool,
}

impl ToolResult {
    fn found(text: String, rows: ToolRows) -> Self {
        ToolResult {
            text,
            rows,
            ok: true,
        }
    }
    fn nothing(text: impl Into<String>) -> Self {
        ToolResult {
            text: text.into(),
            rows: ToolRows::None,
            ok: false,
        }
    }
}

fn param(name: &str, description: &str) -> (String, Value) {
    (
        name.to_string(),
        json!({"type": "string", "description": description}),
    )
}

fn spec(name: &str, description: &str, params: Vec<(String, Value)>) -> ToolSpec {
    let required: Vec<&String> = params.iter().map(|(n, _)| n).collect();
    let properties: serde_json::Map<String, Value> = params.iter().cloned().collect();
    ToolSpec {
        name: name.to_string(),
        description: description.to_string(),
        parameters: json!({"type": "object", "properties": properties, "required": required}),
    }
}

/// The tools for native function calling, with positional parameter order
/// matching the text form `Name[arg1, arg2, ...]`.
pub fn tool_specs() -> Vec<ToolSpec> {
    let city = |what: &str| {
        param(
            "city",
            &format!("The city to search {what} in, e.g. Rockford."),
        )
    };
    let mut mode = param("mode", "How to travel: \"self-driving\" or \"taxi\".");
    mode.1["enum"] = json!(["self-driving", "taxi"]);
    vec![
        spec(FLIGHT_SEARCH, "Flights from one city to another on a date, with number, price, times and distance.", vec![
            param("origin", "The departure city."),
            param("destination", "The arrival city."),
            param("date", "The date, YYYY-MM-DD."),
        ]),
        spec(DISTANCE_MATRIX, "Driving duration, distance and cost between two cities, for self-driving or taxi.", vec![
            param("origin", "The city to start from."),
            param("destination", "The city to go to."),
            mode,
        ]),
        spec(ACCOMMODATION_SEARCH, "Places to stay in a city: price per night, room type, house rules, minimum nights, maximum occupancy, rating.", vec![city("accommodations")]),
        spec(RESTAURANT_SEARCH, "Restaurants in a city: average cost per person, cuisines, rating.", vec![city("restaurants")]),
        spec(ATTRACTION_SEARCH, "Attractions in a city: address, phone, website.", vec![city("attractions")]),
        spec(CITY_SEARCH, "The cities of a state that the other tools know.", vec![param("state", "The state, e.g. Texas.")]),
    ]
}

/// The parameter names of a tool, in positional order.
pub fn parameter_names(tool: &str) -> Option<&'static [&'static str]> {
    Some(match tool {
        FLIGHT_SEARCH => &["origin", "destination", "date"],
        DISTANCE_MATRIX => &["origin", "destination", "mode"],
        ACCOMMODATION_SEARCH | RESTAURANT_SEARCH | ATTRACTION_SEARCH => &["city"],
        CITY_SEARCH => &["state"],
        _ => return None,
    })
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

/// `validate_city_format`: the agent's check against the city list.
fn city_error(db: &TravelDb, city: &str) -> Option<String> {
    if db.is_city(city) {
        return None;
    }
    let all: Vec<&str> = db.cities.iter().map(|c| c.city.as_str()).collect();
    Some(format!(
        "{city} is not valid city in {}.",
        py_repr_list(&all)
    ))
}

fn flight_search(db: &TravelDb, args: &[String]) -> ToolResult {
    let [origin, dest, date, ..] = args else {
        return ToolResult::nothing("Illegal Flight Search. Please try again.");
    };
    if !is_date(date) {
        return ToolResult::nothing(format!("'{date}' is not in the format YYYY-MM-DD"));
    }
    if let Some(e) = city_error(db, origin).or_else(|| city_error(db, dest)) {
        return ToolResult::nothing(e);
    }
    let rows: Vec<Flight> = db
        .flights_on(origin, dest, date)
        .into_iter()
        .cloned()
        .collect();
    if rows.is_empty() {
        return ToolResult::nothing(format!(
            "There is no flight from {origin} to {dest} on {date}."
        ));
    }
    ToolResult::found(table_text::flights(&rows), ToolRows::Flights(rows))
}

fn distance_matrix(db: &TravelDb, args: &[String]) -> ToolResult {
    let [origin, dest, mode, ..] = args else {
        return ToolResult::nothing("Illegal GoogleDistanceMatrix. Please try again.");
    };
    let (o, d) = (before_paren(origin), before_paren(dest));
    let no_info = format!("{mode}, from {o} to {d}, no valid information.");
    let Some(road) = db.road(o, d) else {
        return ToolResult::nothing(no_info);
    };
    let (Some(duration), Some(distance)) = (&road.duration, &road.distance) else {
        return ToolResult::nothing("No valid information.");
    };
    let Ok(km) = distance_km(distance) else {
        return ToolResult::nothing("Illegal GoogleDistanceMatrix. Please try again.");
    };
    if duration.contains("day") {
        return ToolResult::nothing("No valid information.");
    }
    let cost = cost_for_mode(km, mode);
    let cost_text = cost.map_or("None".to_string(), |c| c.to_string());
    let text = format!(
        "{mode}, from {o} to {d}, duration: {duration}, distance: {distance}, cost: {cost_text}"
    );
    let info = RoadInfo {
        origin: o.to_string(),
        destination: d.to_string(),
        mode: mode.clone(),
        duration: duration.clone(),
        distance: distance.clone(),
        cost,
    };
    ToolResult::found(text, ToolRows::Road(info))
}

fn in_city<T: Clone>(
    db: &TravelDb,
    city: &str,
    rows: impl Iterator<Item = T>,
    empty: &str,
    render: fn(&[T]) -> String,
    wrap: fn(Vec<T>) -> ToolRows,
) -> ToolResult {
    if let Some(e) = city_error(db, city) {
        return ToolResult::nothing(e);
    }
    let rows: Vec<T> = rows.collect();
    if rows.is_empty() {
        return ToolResult::nothing(empty);
    }
    ToolResult::found(render(&rows).trim().to_string(), wrap(rows))
}

/// Runs a tool by name with positional string arguments and returns the
/// text the official agent would show, or its error text.
pub fn execute(db: &TravelDb, name: &str, args: &[String]) -> ToolResult {
    // The official agent passes a one-argument tool everything inside the
    // brackets, commas included ("Washington, D.C.").
    let joined = args.join(", ");
    if args.is_empty() || joined.is_empty() {
        return ToolResult::nothing(INVALID_ACTION);
    }
    match name {
        FLIGHT_SEARCH => flight_search(db, args),
        DISTANCE_MATRIX => distance_matrix(db, args),
        ACCOMMODATION_SEARCH => in_city(
            db,
            &joined,
            db.accommodations_in(&joined).cloned(),
            "There is no attraction in this city.",
            table_text::accommodations,
            ToolRows::Accommodations,
        ),
        RESTAURANT_SEARCH => in_city(
            db,
            &joined,
            db.restaurants_in(&joined).cloned(),
            "There is no restaurant in this city.",
            table_text::restaurants,
            ToolRows::Restaurants,
        ),
        ATTRACTION_SEARCH => in_city(
            db,
            &joined,
            db.attractions_in(&joined).cloned(),
            "There is no attraction in this city.",
            table_text::attractions,
            ToolRows::Attractions,
        ),
        CITY_SEARCH => match db.cities_in_state(&joined) {
            Some(cities) => {
                ToolResult::found(py_repr_list(cities), ToolRows::Cities(cities.to_vec()))
            }
            None => ToolResult::nothing("Invalid State"),
        },
        _ => ToolResult::nothing(INVALID_ACTION),
    }
}

/// Runs a native function call: `arguments` is the model's raw JSON object.
pub fn execute_json(db: &TravelDb, name: &str, arguments: &str) -> ToolResult {
    let Some(names) = parameter_names(name) else {
        return ToolResult::nothing(INVALID_ACTION);
    };
    let parsed: Result<serde_json::Map<String, Value>, String> =
        match serde_json::from_str::<Value>(if arguments.trim().is_empty() {
            "{}"
        } else {
            arguments
        }) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err("the arguments must be a JSON object".into()),
            Err(e) => Err(format!("the arguments are not valid JSON: {e}")),
        };
    let map = match parsed {
        Ok(m) => m,
        Err(e) => return ToolResult::nothing(format!("Illegal {name} call: {e}.")),
    };
    let mut args = Vec::with_capacity(names.len());
    for n in names {
        match map.get(*n) {
            Some(Value::String(s)) => args.push(s.trim().to_string()),
            Some(Value::Number(x)) => args.push(x.to_string()),
            _ => break,
        }
    }
    execute(db, name, &args)
}

/// Finds the first `Tool[args]` call of a known tool in model text and runs
/// it; None when the text has no such call.
pub fn execute_text(db: &TravelDb, text: &str) -> Option<(TextToolCall, ToolResult)> {
    let call = parse_first(text, &TOOL_NAMES)?;
    let result = execute(db, &call.name, &call.args);
    Some((call, result))
}
