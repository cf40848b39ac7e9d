//! Reads a plan out of what an LLM wrote: a JSON array, an object wrapping
//! it (`{"plan": [...]}`), JSON inside prose or ```code fences```, Python
//! literals (single quotes, True/False/None), or the official planner's text
//! format (`Day 1:` / `Current City: ...`). Whatever cannot be read is "not
//! delivered", with the reason.
//!
//! On this LLM path, day keys are normalised (`Current City` →
//! `current_city`, `attractions` → `attraction`); plans given as JSON values
//! ([`super::plan::Plan::from_json`]) keep their keys exactly.

use super::plan::{kind, Cell, Field, Plan, PlanDay};
use super::pylit::{parse_at, parse_whole};
use serde_json::Value;

/// Why no plan could be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotDelivered {
    pub reason: String,
}

impl std::fmt::Display for NotDelivered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not delivered: {}", self.reason)
    }
}

fn not_delivered(reason: impl Into<String>) -> NotDelivered {
    NotDelivered {
        reason: reason.into(),
    }
}

/// How many bracket positions are tried in long prose.
const MAX_CANDIDATES: usize = 400;

/// Reads a plan from LLM output.
pub fn parse_plan_text(text: &str) -> Result<Plan, NotDelivered> {
    parse_plan_text_depth(text, 0)
}

fn parse_plan_text_depth(text: &str, depth: usize) -> Result<Plan, NotDelivered> {
    if text.trim().is_empty() {
        return Err(not_delivered("the output is empty"));
    }
    let mut first_problem: Option<String> = None;
    // A lone day object counts only when it is the whole text or a whole
    // fenced block, so a truncated list does not pass as a one-day plan.
    let mut consider = |v: &Value, whole: bool| -> Option<Result<Plan, NotDelivered>> {
        match interpret(v, depth, whole) {
            Interpretation::Plan(p) => Some(Ok(p)),
            Interpretation::Empty => Some(Err(not_delivered("the plan is an empty list"))),
            Interpretation::NotAPlan(why) => {
                first_problem.get_or_insert(why);
                None
            }
        }
    };
    if let Ok(v) = parse_whole(text.trim()) {
        if let Some(r) = consider(&v, true) {
            return r;
        }
    }
    for block in code_fences(text) {
        if let Ok(v) = parse_whole(block.trim()) {
            if let Some(r) = consider(&v, true) {
                return r;
            }
        }
    }
    for start in bracket_positions(text).take(MAX_CANDIDATES) {
        if let Ok((v, _)) = parse_at(text, start) {
            if let Some(r) = consider(&v, false) {
                return r;
            }
        }
    }
    if let Some(plan) = parse_day_format(text) {
        return Ok(plan);
    }
    Err(not_delivered(first_problem.unwrap_or_else(|| {
        "no JSON or Python list of day objects and no \"Day 1:\" text plan found".into()
    })))
}

/// Reads the plan out of a JSON value: an array of days, an object wrapping
/// one, or a string holding LLM text (parsed with [`parse_plan_text`]).
pub fn plan_from_value(v: &Value) -> Result<Plan, NotDelivered> {
    match interpret(v, 0, true) {
        Interpretation::Plan(p) => Ok(p),
        Interpretation::Empty => Err(not_delivered("the plan is an empty list")),
        Interpretation::NotAPlan(why) => Err(not_delivered(why)),
    }
}

/// The `plan` field of a submission line, as eval.py treats it: a falsy
/// value (empty list, null, "", false) is not delivered; a list of day
/// objects is evaluated with its keys exactly as written; a string is LLM
/// output to read with [`parse_plan_text`]; an object may wrap the list.
pub fn plan_field(v: &Value) -> Result<Plan, NotDelivered> {
    match v {
        Value::Null | Value::Bool(false) => Err(not_delivered("no plan was given")),
        Value::Array(a) if a.is_empty() => Err(not_delivered("the plan is an empty list")),
        Value::String(s) if s.is_empty() => Err(not_delivered("the plan is an empty string")),
        Value::Array(_) => Plan::from_json(v).map_err(not_delivered),
        Value::String(s) => parse_plan_text(s),
        Value::Object(_) => plan_from_value(v),
        other => Err(not_delivered(format!("the plan is {}", kind(other)))),
    }
}

enum Interpretation {
    Plan(Plan),
    Empty,
    NotAPlan(String),
}

fn interpret(v: &Value, depth: usize, single_day: bool) -> Interpretation {
    match v {
        Value::Array(items) if items.is_empty() => Interpretation::Empty,
        Value::Array(items) => {
            if items
                .iter()
                .all(|d| d.as_object().is_some_and(looks_like_day))
            {
                let days = items
                    .iter()
                    .filter_map(Value::as_object)
                    .map(normalized_day)
                    .collect();
                Interpretation::Plan(Plan { days })
            } else {
                Interpretation::NotAPlan("found a list, but not a list of day objects".into())
            }
        }
        Value::Object(o) => {
            let wrapped = o
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("plan"))
                .map(|(_, v)| v)
                .or_else(|| o.values().find(|v| is_day_list(v)));
            match wrapped {
                Some(inner) => interpret(inner, depth, true),
                None if single_day && looks_like_day(o) => Interpretation::Plan(Plan {
                    days: vec![normalized_day(o)],
                }),
                None if looks_like_day(o) => Interpretation::NotAPlan(
                    "found a single day object, not a list of days (is the output cut off?)".into(),
                ),
                None => Interpretation::NotAPlan("found an object without a plan in it".into()),
            }
        }
        Value::String(s) if depth < 2 => match parse_plan_text_depth(s, depth + 1) {
            Ok(p) => Interpretation::Plan(p),
            Err(e) if e.reason == "the plan is an empty list" => Interpretation::Empty,
            Err(e) => Interpretation::NotAPlan(e.reason),
        },
        other => Interpretation::NotAPlan(format!("found {}, not a plan", kind(other))),
    }
}

fn is_day_list(v: &Value) -> bool {
    matches!(v, Value::Array(a) if !a.is_empty() && a.iter().all(|d| d.as_object().is_some_and(looks_like_day)))
}

fn looks_like_day(o: &serde_json::Map<String, Value>) -> bool {
    o.keys().any(|k| canonical_key(k).is_some())
}

/// The canonical key for a loosely written one.
fn canonical_key(key: &str) -> Option<Field> {
    let norm: String = key
        .trim()
        .trim_matches(|c| c == '*' || c == '_')
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c == ' ' || c == '-' { '_' } else { c })
        .collect();
    let field = match norm.as_str() {
        "day" | "days" => Field::Days,
        "current_city" | "currentcity" | "city" => Field::CurrentCity,
        "transportation" | "transport" => Field::Transportation,
        "breakfast" => Field::Breakfast,
        "attraction" | "attractions" => Field::Attraction,
        "lunch" => Field::Lunch,
        "dinner" => Field::Dinner,
        "accommodation" | "accommodations" => Field::Accommodation,
        _ => return None,
    };
    Some(field)
}

fn normalized_day(o: &serde_json::Map<String, Value>) -> PlanDay {
    let mut day = PlanDay::default();
    for (k, v) in o {
        match canonical_key(k) {
            Some(f) => day.set(f, Cell::from_json(v)),
            None => day.set_key(k, Cell::from_json(v)),
        }
    }
    day
}

/// The contents of ``` fenced blocks, in order.
fn code_fences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let body_start = after.find('\n').map(|i| i + 1).unwrap_or(0);
        let body = &after[body_start..];
        match body.find("```") {
            Some(close) => {
                out.push(&body[..close]);
                rest = &body[close + 3..];
            }
            None => {
                out.push(body);
                break;
            }
        }
    }
    out
}

fn bracket_positions(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.char_indices()
        .filter(|(_, c)| *c == '[' || *c == '{')
        .map(|(i, _)| i)
}

/// The official planner's text format:
/// ```text
/// Day 1:
/// Current City: from A to B
/// Transportation: ...
/// ```
fn parse_day_format(text: &str) -> Option<Plan> {
    let mut days: Vec<PlanDay> = Vec::new();
    for raw in text.lines() {
        let line = raw
            .trim()
            .trim_start_matches(['-', '*', '#', '>', ' '])
            .trim();
        if let Some(n) = day_header(line) {
            let mut d = PlanDay::default();
            d.set(
                Field::Days,
                Cell::Other {
                    json: n.to_string(),
                    truthy: n != 0,
                },
            );
            days.push(d);
            continue;
        }
        let (Some(day), Some((label, value))) = (days.last_mut(), line.split_once(':')) else {
            continue;
        };
        if let Some(f) = canonical_key(label).filter(|f| *f != Field::Days) {
            let value = value.trim().trim_matches('*').trim();
            day.set(f, Cell::text(value));
        }
    }
    days.retain(|d| d.has(Field::CurrentCity));
    (!days.is_empty()).then_some(Plan { days })
}

fn day_header(line: &str) -> Option<u32> {
    let l = line.trim_matches('*').trim();
    let rest = l.strip_prefix("Day").or_else(|| l.strip_prefix("DAY"))?;
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let after = rest.trim_start()[digits.len()..].trim().trim_matches('*');
    (!digits.is_empty() && (after.is_empty() || after == ":"))
        .then(|| digits.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day1(p: &Plan) -> Option<&str> {
        p.days[0].text(Field::CurrentCity)
    }

    #[test]
    fn reads_each_style() {
        let arr = r#"[{"days": 1, "current_city": "from A to B", "breakfast": "-"}]"#;
        assert_eq!(day1(&parse_plan_text(arr).unwrap()), Some("from A to B"));
        let obj = r#"{"plan": [{"days": 1, "current_city": "A"}]}"#;
        assert_eq!(day1(&parse_plan_text(obj).unwrap()), Some("A"));
        let fenced = "Here it is:\n```json\n[{\"current_city\": \"C\"}]\n```\nEnjoy!";
        assert_eq!(day1(&parse_plan_text(fenced).unwrap()), Some("C"));
        let prose = "Sure [see below]. The plan: [{'days': 1, 'current_city': 'D', 'lunch': None, 'x': True}] done";
        let p = parse_plan_text(prose).unwrap();
        assert_eq!(day1(&p), Some("D"));
        assert_eq!(p.days[0].get(Field::Lunch), Some(&Cell::Null));
        let text = "**Day 1:**\nCurrent City: from A to B\nTransportation: Flight Number: F1, from A to B\nBreakfast: -\n\nDay 2:\nCurrent City: B\n";
        let p = parse_plan_text(text).unwrap();
        assert_eq!(p.days.len(), 2);
        assert_eq!(
            p.days[0].text(Field::Transportation),
            Some("Flight Number: F1, from A to B")
        );
    }

    #[test]
    fn keys_are_normalised_on_the_llm_path() {
        let p = parse_plan_text(r#"[{"Current City": "A", "Attractions": "x, A;"}]"#).unwrap();
        assert_eq!(p.days[0].text(Field::CurrentCity), Some("A"));
        assert_eq!(p.days[0].text(Field::Attraction), Some("x, A;"));
    }

    #[test]
    fn garbage_and_empty_are_not_delivered() {
        assert!(parse_plan_text("").is_err());
        assert!(parse_plan_text("I could not find any flights, sorry.")
            .unwrap_err()
            .reason
            .contains("no JSON"));
        assert_eq!(
            parse_plan_text("```json\n[]\n```").unwrap_err().reason,
            "the plan is an empty list"
        );
        assert!(parse_plan_text("[1, 2, 3]")
            .unwrap_err()
            .reason
            .contains("not a list of day objects"));
        assert!(parse_plan_text("[{\"current_city\": \"A\"").is_err());
        // A truncated list is not a one-day plan.
        let cut = "Plan: [{\"days\": 1, \"current_city\": \"A\"}, {\"days\": 2, \"current";
        assert!(parse_plan_text(cut).unwrap_err().reason.contains("cut off"));
        assert!(parse_plan_text("{\"days\": 1, \"current_city\": \"A\"}").is_ok());
    }

    #[test]
    fn submission_fields_follow_eval_py() {
        use serde_json::json;
        assert!(plan_field(&json!([])).is_err());
        assert!(plan_field(&json!(null)).is_err());
        assert!(plan_field(&json!("")).is_err());
        assert!(plan_field(&json!(3))
            .unwrap_err()
            .reason
            .contains("a number"));
        // Exact keys on the JSON path: "Current City" stays as written.
        let p = plan_field(&json!([{"Current City": "A"}])).unwrap();
        assert_eq!(p.days[0].text(Field::CurrentCity), None);
        assert!(plan_field(&json!([{"a": 1}, 2]))
            .unwrap_err()
            .reason
            .contains("day 2"));
        let p = plan_field(&json!("[{'current_city': 'B'}]")).unwrap();
        assert_eq!(day1(&p), Some("B"));
    }

    #[test]
    fn plan_values_may_be_strings_of_llm_text() {
        let v = Value::String("```\n[{'current_city': 'Z'}]\n```".into());
        assert_eq!(day1(&plan_from_value(&v).unwrap()), Some("Z"));
    }
}
