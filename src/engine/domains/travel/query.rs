//! TravelPlanner queries in the `train_queries.jsonl` format (the fields of
//! the official data set). `local_constraint` and `date` may also be the
//! Python-literal strings the Hugging Face release uses.

use super::error::DataError;
use super::plan::{kind, Plan};
use super::pylit::parse_whole;
use serde::Serialize;
use serde_json::{Map, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Easy,
    Medium,
    Hard,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }
}

/// The user's local constraints; None = not asked for.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LocalConstraint {
    /// "smoking", "parties", "children under 10", "visitors" or "pets".
    pub house_rule: Option<String>,
    pub cuisine: Option<Vec<String>>,
    /// "not shared room", "shared room", "private room" or "entire room".
    pub room_type: Option<String>,
    /// "no flight" or "no self-driving".
    pub transportation: Option<String>,
}

impl LocalConstraint {
    /// How many of the four constraints are present (eval.py: `!= None`).
    pub fn count(&self) -> usize {
        [
            self.house_rule.is_some(),
            self.cuisine.is_some(),
            self.room_type.is_some(),
            self.transportation.is_some(),
        ]
        .iter()
        .filter(|b| **b)
        .count()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub idx: u32,
    pub query: String,
    pub org: String,
    /// A city for 3-day trips, a state for 5- and 7-day trips.
    pub dest: String,
    pub days: u32,
    pub visiting_city_number: u32,
    pub date: Vec<String>,
    pub people_number: u32,
    pub local_constraint: LocalConstraint,
    pub budget: f64,
    pub level: Level,
    pub annotated_plan: Option<Plan>,
}

type Obj = Map<String, Value>;

fn field<'a>(o: &'a Obj, name: &str) -> Result<&'a Value, String> {
    o.get(name)
        .ok_or_else(|| format!("the field \"{name}\" is missing"))
}

fn string(o: &Obj, name: &str) -> Result<String, String> {
    match field(o, name)? {
        Value::String(s) => Ok(s.clone()),
        other => Err(format!("\"{name}\" must be a string, got {}", kind(other))),
    }
}

fn whole(o: &Obj, name: &str) -> Result<u32, String> {
    let v = field(o, name)?;
    v.as_u64()
        .or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        })
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("\"{name}\" must be a whole number, got {v}"))
}

/// A value that may be a Python-literal string (`"['a', 'b']"`).
fn literal(v: &Value) -> Result<Value, String> {
    match v {
        Value::String(s) => parse_whole(s).map_err(|e| format!("cannot read \"{s}\": {e}")),
        other => Ok(other.clone()),
    }
}

fn optional_text(o: &Obj, name: &str) -> Result<Option<String>, String> {
    match o.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!(
            "local_constraint \"{name}\" must be a string or null, got {}",
            kind(other)
        )),
    }
}

fn strings(v: &Value, what: &str) -> Result<Vec<String>, String> {
    match v {
        Value::Array(items) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{what} must hold strings, got {}", kind(i)))
            })
            .collect(),
        other => Err(format!("{what} must be a list, got {}", kind(other))),
    }
}

fn local_constraint(v: &Value) -> Result<LocalConstraint, String> {
    let v = literal(v)?;
    let Value::Object(o) = &v else {
        return Err(format!(
            "\"local_constraint\" must be an object, got {}",
            kind(&v)
        ));
    };
    let cuisine = match o.get("cuisine") {
        None | Some(Value::Null) => None,
        Some(c) => Some(strings(&literal(c)?, "local_constraint \"cuisine\"")?),
    };
    Ok(LocalConstraint {
        house_rule: optional_text(o, "house rule")?,
        cuisine,
        room_type: optional_text(o, "room type")?,
        transportation: optional_text(o, "transportation")?,
    })
}

fn level(o: &Obj) -> Result<Level, String> {
    match string(o, "level")?.as_str() {
        "easy" => Ok(Level::Easy),
        "medium" => Ok(Level::Medium),
        "hard" => Ok(Level::Hard),
        other => Err(format!(
            "\"level\" must be easy, medium or hard, got \"{other}\""
        )),
    }
}

impl Query {
    /// Reads one query object. `default_idx` is used when it has no "idx".
    pub fn from_json(v: &Value, default_idx: u32) -> Result<Query, String> {
        let Value::Object(o) = v else {
            return Err(format!("a query must be a JSON object, got {}", kind(v)));
        };
        let idx = if o.contains_key("idx") {
            whole(o, "idx")?
        } else {
            default_idx
        };
        let days = whole(o, "days")?;
        if days == 0 {
            return Err("\"days\" must be at least 1".into());
        }
        let budget = field(o, "budget")?;
        let budget = budget
            .as_f64()
            .ok_or_else(|| format!("\"budget\" must be a number, got {budget}"))?;
        let annotated_plan = match o.get("annotated_plan") {
            None | Some(Value::Null) => None,
            Some(p) => Some(
                Plan::from_json(&literal(p)?).map_err(|e| format!("\"annotated_plan\": {e}"))?,
            ),
        };
        Ok(Query {
            idx,
            query: o
                .get("query")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            org: string(o, "org")?,
            dest: string(o, "dest")?,
            days,
            visiting_city_number: whole(o, "visiting_city_number")?,
            date: strings(&literal(field(o, "date")?)?, "\"date\"")?,
            people_number: whole(o, "people_number")?,
            local_constraint: local_constraint(field(o, "local_constraint")?)?,
            budget,
            level: level(o)?,
            annotated_plan,
        })
    }
}

/// Reads a JSONL file of queries; `file` names it in errors. Blank lines are
/// skipped; a query without "idx" gets its line number.
pub fn parse_queries_jsonl(text: &str, file: &str) -> Result<Vec<Query>, DataError> {
    let mut out: Vec<Query> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let n = i + 1;
        let v: Value = serde_json::from_str(line)
            .map_err(|e| DataError::at(file, n, format!("not valid JSON: {e}")))?;
        let q = Query::from_json(&v, n as u32).map_err(|e| DataError::at(file, n, e))?;
        if out.iter().any(|o| o.idx == q.idx) {
            return Err(DataError::at(
                file,
                n,
                format!("idx {} appears twice", q.idx),
            ));
        }
        out.push(q);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"idx": 3, "query": "q", "org": "A", "dest": "B", "days": 3, "visiting_city_number": 1, "date": ["2022-03-16", "2022-03-17", "2022-03-18"], "people_number": 2, "local_constraint": {"house rule": "pets", "cuisine": ["Chinese"], "room type": null, "transportation": null}, "budget": 1700, "level": "medium"}"#;

    #[test]
    fn reads_the_official_format() {
        let qs = parse_queries_jsonl(LINE, "q.jsonl").unwrap();
        let q = &qs[0];
        assert_eq!((q.idx, q.days, q.people_number), (3, 3, 2));
        assert_eq!(q.local_constraint.house_rule.as_deref(), Some("pets"));
        assert_eq!(
            q.local_constraint.cuisine,
            Some(vec!["Chinese".to_string()])
        );
        assert_eq!(q.local_constraint.count(), 2);
        assert_eq!(q.level, Level::Medium);
    }

    #[test]
    fn reads_python_literal_strings() {
        let line = LINE
            .replace(
                r#"{"house rule": "pets", "cuisine": ["Chinese"], "room type": null, "transportation": null}"#,
                r#""{'house rule': None, 'cuisine': None, 'room type': 'entire room', 'transportation': None}""#,
            )
            .replace(
                r#"["2022-03-16", "2022-03-17", "2022-03-18"]"#,
                r#""['2022-03-16', '2022-03-17', '2022-03-18']""#,
            );
        let q = &parse_queries_jsonl(&line, "q.jsonl").unwrap()[0];
        assert_eq!(q.local_constraint.room_type.as_deref(), Some("entire room"));
        assert_eq!(q.date.len(), 3);
    }

    #[test]
    fn errors_name_line_and_problem() {
        let text = format!(
            "{LINE}\n\n{}",
            LINE.replace("\"days\": 3", "\"days\": \"three\"")
        );
        let e = parse_queries_jsonl(&text, "q.jsonl").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("\"days\" must be a whole number"), "{e}");
        let e = parse_queries_jsonl(&LINE.replace("\"days\": 3", "\"days\": 0"), "q").unwrap_err();
        assert!(e.message.contains("at least 1"));
        let e = parse_queries_jsonl("{not json", "q.jsonl").unwrap_err();
        assert!(e.to_string().starts_with("q.jsonl line 1: not valid JSON"));
        let e = parse_queries_jsonl(&LINE.replace("\"medium\"", "\"extreme\""), "q").unwrap_err();
        assert!(e.message.contains("easy, medium or hard"));
        let e = parse_queries_jsonl(&format!("{LINE}\n{LINE}"), "q").unwrap_err();
        assert!(e.message.contains("appears twice"));
    }
}
