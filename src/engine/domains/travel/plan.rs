//! A travel plan as the evaluator sees it: a list of day objects. Keys are
//! kept exactly as written, so a missing key stays distinguishable from "-"
//! and from null (the official checks treat the three differently).

use serde::Serialize;
use serde_json::Value;

/// The eight keys of a plan day.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Days,
    CurrentCity,
    Transportation,
    Breakfast,
    Attraction,
    Lunch,
    Dinner,
    Accommodation,
}

impl Field {
    pub const ALL: [Field; 8] = [
        Field::Days,
        Field::CurrentCity,
        Field::Transportation,
        Field::Breakfast,
        Field::Attraction,
        Field::Lunch,
        Field::Dinner,
        Field::Accommodation,
    ];
    pub const MEALS: [Field; 3] = [Field::Breakfast, Field::Lunch, Field::Dinner];

    /// The JSON key.
    pub fn key(self) -> &'static str {
        match self {
            Field::Days => "days",
            Field::CurrentCity => "current_city",
            Field::Transportation => "transportation",
            Field::Breakfast => "breakfast",
            Field::Attraction => "attraction",
            Field::Lunch => "lunch",
            Field::Dinner => "dinner",
            Field::Accommodation => "accommodation",
        }
    }

    pub fn from_key(key: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| f.key() == key)
    }
}

/// One value of a day object.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Text(String),
    /// JSON null / Python None.
    Null,
    /// A number, boolean, list or object, kept as JSON text with its Python truthiness.
    Other {
        json: String,
        truthy: bool,
    },
}

impl Cell {
    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text(s.into())
    }

    /// Python truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Cell::Text(s) => !s.is_empty(),
            Cell::Null => false,
            Cell::Other { truthy, .. } => *truthy,
        }
    }

    /// `value in ['', '-']`.
    pub fn is_blank(&self) -> bool {
        matches!(self, Cell::Text(s) if s.is_empty() || s == "-")
    }

    /// `value and value != '-'`: the guard the checks put before an entry.
    pub fn is_filled(&self) -> bool {
        self.truthy() && !matches!(self, Cell::Text(s) if s == "-")
    }

    pub fn as_text(&self) -> Option<&str> {
        match self {
            Cell::Text(s) => Some(s),
            _ => None,
        }
    }

    /// How Python's `str()` would print it (for messages).
    pub fn display(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Null => "None".into(),
            Cell::Other { json, .. } => json.clone(),
        }
    }

    pub fn from_json(v: &Value) -> Cell {
        match v {
            Value::String(s) => Cell::Text(s.clone()),
            Value::Null => Cell::Null,
            Value::Bool(b) => Cell::Other {
                json: if *b { "True".into() } else { "False".into() },
                truthy: *b,
            },
            Value::Number(n) => Cell::Other {
                json: n.to_string(),
                truthy: n.as_f64().is_some_and(|x| x != 0.0),
            },
            Value::Array(a) => Cell::Other {
                json: v.to_string(),
                truthy: !a.is_empty(),
            },
            Value::Object(o) => Cell::Other {
                json: v.to_string(),
                truthy: !o.is_empty(),
            },
        }
    }

    pub fn to_json(&self) -> Value {
        match self {
            Cell::Text(s) => Value::String(s.clone()),
            Cell::Null => Value::Null,
            Cell::Other { json, .. } => serde_json::from_str(json).unwrap_or(Value::Null),
        }
    }
}

/// One day object: its keys in the order written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlanDay {
    pub entries: Vec<(String, Cell)>,
}

impl PlanDay {
    /// A day with all eight keys, as a planner writes it.
    #[allow(clippy::too_many_arguments)]
    pub fn standard(
        day: u32,
        current_city: &str,
        transportation: &str,
        breakfast: &str,
        attraction: &str,
        lunch: &str,
        dinner: &str,
        accommodation: &str,
    ) -> PlanDay {
        let mut d = PlanDay::default();
        d.set_key(
            "days",
            Cell::Other {
                json: day.to_string(),
                truthy: day != 0,
            },
        );
        for (f, v) in [
            (Field::CurrentCity, current_city),
            (Field::Transportation, transportation),
            (Field::Breakfast, breakfast),
            (Field::Attraction, attraction),
            (Field::Lunch, lunch),
            (Field::Dinner, dinner),
            (Field::Accommodation, accommodation),
        ] {
            d.set(f, Cell::text(v));
        }
        d
    }

    pub fn get(&self, f: Field) -> Option<&Cell> {
        self.get_key(f.key())
    }

    /// The value under a key; with repeated keys the last one wins (as in JSON).
    pub fn get_key(&self, key: &str) -> Option<&Cell> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    pub fn has(&self, f: Field) -> bool {
        self.get(f).is_some()
    }

    /// The text of a key when it is a string.
    pub fn text(&self, f: Field) -> Option<&str> {
        self.get(f).and_then(Cell::as_text)
    }

    /// The value when present and filled (`unit[k] and unit[k] != '-'`).
    pub fn filled(&self, f: Field) -> Option<&Cell> {
        self.get(f).filter(|c| c.is_filled())
    }

    pub fn set(&mut self, f: Field, value: Cell) {
        self.set_key(f.key(), value);
    }

    pub fn set_key(&mut self, key: &str, value: Cell) {
        match self.entries.iter_mut().find(|(k, _)| k == key) {
            Some(e) => e.1 = value,
            None => self.entries.push((key.to_string(), value)),
        }
    }

    pub fn remove(&mut self, f: Field) {
        self.entries.retain(|(k, _)| k != f.key());
    }

    /// Keys with distinct names (what `for key in unit` visits).
    pub fn distinct_values(&self) -> Vec<&Cell> {
        let mut seen: Vec<&str> = Vec::new();
        let mut out = Vec::new();
        for (k, _) in &self.entries {
            if !seen.contains(&k.as_str()) {
                seen.push(k);
                if let Some(v) = self.get_key(k) {
                    out.push(v);
                }
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn from_json_object(obj: &serde_json::Map<String, Value>) -> PlanDay {
        PlanDay {
            entries: obj
                .iter()
                .map(|(k, v)| (k.clone(), Cell::from_json(v)))
                .collect(),
        }
    }

    /// The day as a JSON object (keys sorted by serde_json's map).
    pub fn to_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        for (k, v) in &self.entries {
            m.insert(k.clone(), v.to_json());
        }
        Value::Object(m)
    }
}

/// A plan: the days in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    pub days: Vec<PlanDay>,
}

impl Plan {
    /// A plan from a JSON array of day objects. An element that is not an
    /// object is an error (the official code would raise on it).
    pub fn from_json(v: &Value) -> Result<Plan, String> {
        let Value::Array(items) = v else {
            return Err(format!(
                "a plan must be a JSON array of day objects, got {}",
                kind(v)
            ));
        };
        let mut days = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match item {
                Value::Object(o) => days.push(PlanDay::from_json_object(o)),
                other => {
                    return Err(format!(
                        "day {} of the plan must be an object, got {}",
                        i + 1,
                        kind(other)
                    ))
                }
            }
        }
        Ok(Plan { days })
    }

    pub fn to_json(&self) -> Value {
        Value::Array(self.days.iter().map(PlanDay::to_json).collect())
    }

    pub fn is_empty(&self) -> bool {
        self.days.is_empty()
    }
}

pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn missing_dash_and_null_stay_distinct() {
        let p = Plan::from_json(&json!([{"breakfast": "-", "lunch": null, "days": 1}])).unwrap();
        let d = &p.days[0];
        assert!(d.get(Field::Dinner).is_none());
        assert!(d
            .get(Field::Breakfast)
            .is_some_and(|c| c.is_blank() && !c.is_filled()));
        assert!(d
            .get(Field::Lunch)
            .is_some_and(|c| !c.is_blank() && !c.is_filled()));
        assert!(d.get(Field::Days).is_some_and(Cell::truthy));
    }

    #[test]
    fn non_object_days_are_rejected() {
        assert!(Plan::from_json(&json!([1])).unwrap_err().contains("day 1"));
        assert!(Plan::from_json(&json!({"a": 1})).is_err());
    }

    #[test]
    fn standard_days_round_trip() {
        let d = PlanDay::standard(2, "A", "-", "x, A", "y, A;", "-", "-", "-");
        assert_eq!(d.text(Field::Attraction), Some("y, A;"));
        let back = Plan::from_json(
            &Plan {
                days: vec![d.clone()],
            }
            .to_json(),
        )
        .unwrap();
        assert_eq!(back.days[0].get(Field::Breakfast), d.get(Field::Breakfast));
    }
}
