//! The shape a step's reply must have: a JSON Schema made from the reply's
//! Rust type (schemars), declared beside the step's reader, carried by the
//! request (recorded in the run, shown by the inspector), and sent to the
//! provider in its structured-output mode. [`ReplySchema::check`] tells
//! whether a reply fits it.

mod room;

use super::reply::{read_value, Repair, RepairKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A step's reply shape: its name (the step kind) and its JSON Schema.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplySchema {
    pub name: String,
    pub schema: Value,
    /// A verdict that must agree with its findings (approved only with no
    /// problem listed): what a provider's schema mode cannot say (its
    /// root must be one object), a model run here is held to
    /// ([`ReplySchema::decoding_form`]); a reply that disagrees anyway is
    /// read by its findings, flagged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agreeing: Option<Agreement>,
}

/// The boolean field `verdict` is true exactly when the field `findings`
/// (a text or a list) is empty.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agreement {
    pub verdict: String,
    pub findings: String,
}

/// How a provider was held to a step's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredMode {
    /// The prompt alone: the reply is read leniently.
    Prompt,
    /// The provider's JSON mode: a JSON object, of any shape.
    JsonMode,
    /// The step's schema itself (a provider's strict schema mode, a forced
    /// tool, or constrained decoding).
    Schema,
    /// The step's grammar (the text tool protocol's), by constrained
    /// decoding: a tool call whole or none.
    Grammar,
}

impl StructuredMode {
    /// The reply's mark in the transcript.
    pub fn label(self) -> &'static str {
        match self {
            StructuredMode::Schema => "held to schema",
            StructuredMode::JsonMode => "provider's JSON mode",
            StructuredMode::Prompt => "read leniently",
            StructuredMode::Grammar => "held to the tool grammar",
        }
    }
}

impl ReplySchema {
    /// The schema of `T`, every part inline (providers take no `$ref`s),
    /// without titles, formats or meta keys.
    pub fn of<T: JsonSchema>(name: &str) -> ReplySchema {
        let settings = schemars::gen::SchemaSettings::draft07().with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        });
        let root = settings.into_generator().into_root_schema_for::<T>();
        let mut schema = serde_json::to_value(root).unwrap_or(Value::Null);
        tidy(&mut schema);
        ReplySchema {
            name: name.to_string(),
            schema,
            agreeing: None,
        }
    }

    /// The shape with its boolean `verdict` agreeing with `findings`: true
    /// with none (an empty text or list), false with some.
    pub fn with_agreeing(mut self, verdict: &str, findings: &str) -> ReplySchema {
        self.agreeing = Some(Agreement {
            verdict: verdict.to_string(),
            findings: findings.to_string(),
        });
        self
    }

    /// The form a model run here is held to by constrained decoding: the
    /// strict form, or, with a verdict that must agree with its findings,
    /// its two cases (the verdict true and no findings; false and some).
    pub fn decoding_form(&self) -> Value {
        let strict = self.strict();
        let Some(a) = &self.agreeing else {
            return strict;
        };
        let case = |verdict: bool| {
            let mut c = strict.clone();
            let Some(props) = c.get_mut("properties").and_then(Value::as_object_mut) else {
                return c;
            };
            if let Some(v) = props.get_mut(&a.verdict) {
                *v = serde_json::json!({ "enum": [verdict] });
            }
            if let Some(Value::Object(f)) = props.get_mut(&a.findings) {
                let list = f.get("type").and_then(Value::as_str) == Some("array");
                let (min, max) = if list {
                    ("minItems", "maxItems")
                } else {
                    ("minLength", "maxLength")
                };
                if verdict {
                    f.insert(max.into(), Value::from(0));
                } else {
                    f.insert(min.into(), Value::from(1));
                }
            }
            c
        };
        serde_json::json!({ "anyOf": [case(true), case(false)] })
    }

    /// The shape with the list under the top-level property `field`
    /// holding at most `max` items (a limit the run sets, not the type).
    pub fn with_max_items(mut self, field: &str, max: usize) -> ReplySchema {
        if let Some(list) = self
            .schema
            .pointer_mut(&format!("/properties/{field}"))
            .and_then(Value::as_object_mut)
        {
            list.insert("maxItems".into(), Value::from(max));
        }
        self
    }

    /// The value at `pointer` (a JSON Pointer into the schema, e.g.
    /// `/properties/episodes/items/properties/subject`) narrowed to one of
    /// `values` (names the run knows, so a reply held to the shape cannot
    /// name another).
    pub fn with_enum(mut self, pointer: &str, values: &[String]) -> ReplySchema {
        if let Some(at) = self
            .schema
            .pointer_mut(pointer)
            .and_then(Value::as_object_mut)
        {
            at.insert("enum".into(), Value::from(values.to_vec()));
        }
        self
    }

    /// The top-level properties (and their `required` list) in `fields`'
    /// order, the others after them: schemars lists them by name, and a
    /// model held to the shape writes them in the listed order (e.g. its
    /// reasons before its verdict).
    pub fn in_order(self, fields: &[&str]) -> ReplySchema {
        self.in_order_at("", fields)
    }

    /// [`ReplySchema::in_order`] for the object schema at `pointer`.
    pub fn in_order_at(mut self, pointer: &str, fields: &[&str]) -> ReplySchema {
        let rank = |k: &str| fields.iter().position(|f| *f == k).unwrap_or(fields.len());
        let Some(at) = self.schema.pointer_mut(pointer) else {
            return self;
        };
        if let Some(Value::Object(props)) = at.get_mut("properties") {
            let mut all: Vec<(String, Value)> = std::mem::take(props).into_iter().collect();
            all.sort_by_key(|(k, _)| rank(k));
            props.extend(all);
        }
        if let Some(Value::Array(required)) = at.get_mut("required") {
            required.sort_by_key(|k| rank(k.as_str().unwrap_or("")));
        }
        self
    }

    /// The list under the top-level property `field` holding `min` to
    /// `max` items (a number the run sets, e.g. one per member).
    pub fn with_items(mut self, field: &str, min: usize, max: usize) -> ReplySchema {
        if let Some(list) = self
            .schema
            .pointer_mut(&format!("/properties/{field}"))
            .and_then(Value::as_object_mut)
        {
            list.insert("minItems".into(), Value::from(min));
            list.insert("maxItems".into(), Value::from(max));
        }
        self
    }

    /// The tokens a reply held to this shape may need to be whole (the
    /// form it is held to, [`decoding_form`](Self::decoding_form), written
    /// out at its longest, at `room::CHARS_PER_TOKEN`), or None when the
    /// shape leaves it unbounded.
    pub fn room(&self) -> Option<u32> {
        room::tokens(&self.decoding_form())
    }

    /// The strict form OpenAI-compatible servers enforce: every object
    /// closed (`additionalProperties: false`) and every property required
    /// (an optional one may still be null where its type allows it).
    pub fn strict(&self) -> Value {
        let mut s = self.schema.clone();
        close(&mut s);
        s
    }

    /// Whether `value` fits the schema; else the first place it does not.
    pub fn check(&self, value: &Value) -> Result<(), String> {
        fits(&self.schema, value, "reply")
    }

    /// A reply its reader took with no repair must fit the shape; one that
    /// does not (a type mapped, a value out of range, a field missing) is
    /// flagged, so nothing is taken in silence.
    pub fn flag_misfit(&self, reply: &str, repairs: &mut Vec<Repair>) {
        if !repairs.is_empty() {
            return;
        }
        let why = match read_value(reply) {
            Ok(read) => match self.check(&read.value) {
                Ok(()) => return,
                Err(why) => why,
            },
            Err(_) => "it holds no JSON".to_string(),
        };
        repairs.push(Repair::new(
            RepairKind::Shape,
            format!("the reply does not fit the step's shape ({why}); it was read as it stands"),
        ));
    }
}

/// Drops what providers reject or do not need: titles, formats
/// (`uint8`, `double`), the meta schema and empty definitions.
fn tidy(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for k in ["title", "format", "$schema", "definitions"] {
                o.remove(k);
            }
            o.values_mut().for_each(tidy);
        }
        Value::Array(a) => a.iter_mut().for_each(tidy),
        _ => {}
    }
}

fn close(v: &mut Value) {
    let Value::Object(o) = v else {
        if let Value::Array(a) = v {
            a.iter_mut().for_each(close);
        }
        return;
    };
    if let Some(Value::Object(props)) = o.get("properties") {
        let keys: Vec<Value> = props.keys().cloned().map(Value::String).collect();
        o.insert("required".into(), Value::Array(keys));
        o.insert("additionalProperties".into(), Value::Bool(false));
    }
    o.values_mut().for_each(close);
}

fn type_fits(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|x| x.fract() == 0.0),
        _ => true,
    }
}

/// The subset of JSON Schema [`ReplySchema::of`] makes: type (one or a
/// list), properties, required, additionalProperties, items, enum,
/// minimum, maximum, minItems, maxItems, minLength, maxLength, anyOf. A
/// `pattern` is the step's reader's to check (ACT's keywords: one with no
/// word in it is dropped, and said), so the app needs no regex engine.
fn fits(schema: &Value, v: &Value, at: &str) -> Result<(), String> {
    let Value::Object(s) = schema else {
        return Ok(());
    };
    if let Some(any) = s.get("anyOf").and_then(Value::as_array) {
        if !any.iter().any(|alt| fits(alt, v, at).is_ok()) {
            return Err(format!("{at} fits none of its allowed shapes"));
        }
    }
    match s.get("type") {
        Some(Value::String(t)) if !type_fits(t, v) => {
            return Err(format!("{at} is not {}", article(t)));
        }
        Some(Value::Array(ts))
            if !ts
                .iter()
                .any(|t| t.as_str().is_some_and(|t| type_fits(t, v))) =>
        {
            return Err(format!("{at} has the wrong type"));
        }
        _ => {}
    }
    if let Some(allowed) = s.get("enum").and_then(Value::as_array) {
        if !allowed.contains(v) {
            return Err(format!(
                "{at} is {v}, not one of {}",
                Value::Array(allowed.clone())
            ));
        }
    }
    if let Some(x) = v.as_f64() {
        if s.get("minimum")
            .and_then(Value::as_f64)
            .is_some_and(|m| x < m)
        {
            return Err(format!("{at} is {x}, below its minimum"));
        }
        if s.get("maximum")
            .and_then(Value::as_f64)
            .is_some_and(|m| x > m)
        {
            return Err(format!("{at} is {x}, above its maximum"));
        }
    }
    if let Value::String(text) = v {
        let n = text.chars().count() as u64;
        if s.get("minLength")
            .and_then(Value::as_u64)
            .is_some_and(|m| n < m)
        {
            return Err(format!("{at} is {n} characters, too short"));
        }
        if s.get("maxLength")
            .and_then(Value::as_u64)
            .is_some_and(|m| n > m)
        {
            return Err(format!("{at} is {n} characters, too long"));
        }
    }
    if let (Value::Object(o), Some(props)) = (v, s.get("properties").and_then(Value::as_object)) {
        object_fits(s, props, o, at)?;
    }
    if let Value::Array(items) = v {
        let n = items.len() as u64;
        if s.get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|m| n < m)
        {
            return Err(format!("{at} has {n} items, too few"));
        }
        if s.get("maxItems")
            .and_then(Value::as_u64)
            .is_some_and(|m| n > m)
        {
            return Err(format!("{at} has {n} items, too many"));
        }
        if let Some(each) = s.get("items") {
            for (i, item) in items.iter().enumerate() {
                fits(each, item, &format!("{at}[{i}]"))?;
            }
        }
    }
    Ok(())
}

fn object_fits(
    s: &Map<String, Value>,
    props: &Map<String, Value>,
    o: &Map<String, Value>,
    at: &str,
) -> Result<(), String> {
    for key in s
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(k) = key.as_str() {
            if !o.contains_key(k) {
                return Err(format!("{at} has no \"{k}\""));
            }
        }
    }
    let closed = s.get("additionalProperties") == Some(&Value::Bool(false));
    for (k, value) in o {
        match props.get(k) {
            Some(p) => fits(p, value, &format!("{at}.{k}"))?,
            None if closed => return Err(format!("{at} has \"{k}\", which it may not")),
            None => {}
        }
    }
    Ok(())
}

fn article(t: &str) -> String {
    match t {
        "object" | "array" | "integer" => format!("an {t}"),
        _ => format!("a {t}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Example {
        ok: bool,
        /// Each a short sentence.
        #[serde(default)]
        issues: Vec<String>,
        #[schemars(range(min = 0, max = 10))]
        score: u8,
        next: Next,
    }

    #[derive(JsonSchema)]
    #[serde(rename_all = "lowercase")]
    #[allow(dead_code)]
    enum Next {
        Hotel,
        Plan,
    }

    #[test]
    fn properties_can_be_put_in_the_order_a_reply_should_write_them() {
        let keys = |v: &Value| -> Vec<String> {
            v.as_object()
                .map_or(vec![], |o| o.keys().cloned().collect())
        };
        let s = ReplySchema::of::<Example>("example").in_order(&["score", "ok"]);
        assert_eq!(
            keys(&s.schema["properties"]),
            ["score", "ok", "issues", "next"]
        );
        let strict = s.strict();
        assert_eq!(
            keys(&strict["properties"]),
            ["score", "ok", "issues", "next"]
        );
        assert_eq!(strict["required"], json!(["score", "ok", "issues", "next"]));
        // What it checks is unchanged.
        assert!(s
            .check(&json!({"ok": true, "issues": [], "score": 3, "next": "plan"}))
            .is_ok());
    }

    #[test]
    fn a_schema_is_made_from_the_type_and_checks_replies() {
        let s = ReplySchema::of::<Example>("example");
        assert_eq!(s.schema["type"], "object");
        assert_eq!(
            s.schema["properties"]["next"]["enum"],
            json!(["hotel", "plan"])
        );
        assert!(
            s.schema.get("title").is_none()
                && s.schema["properties"]["score"].get("format").is_none()
        );
        let good = json!({"ok": true, "issues": [], "score": 7, "next": "plan"});
        assert_eq!(s.check(&good), Ok(()));
        // Missing a defaulted field is allowed; the strict form requires it.
        assert_eq!(
            s.check(&json!({"ok": true, "score": 7, "next": "plan"})),
            Ok(())
        );
        let capped = ReplySchema::of::<Example>("e").with_max_items("issues", 1);
        let two = json!({"ok": true, "issues": ["a", "b"], "score": 1, "next": "plan"});
        assert!(capped.check(&two).is_err_and(|e| e.contains("too many")));
        assert_eq!(s.check(&two), Ok(()));
        let strict = s.strict();
        assert_eq!(strict["additionalProperties"], false);
        assert_eq!(strict["required"].as_array().map(Vec::len), Some(4));
        for (bad, why) in [
            (
                json!({"ok": "yes", "score": 7, "next": "plan"}),
                "reply.ok is not a boolean",
            ),
            (
                json!({"ok": true, "score": 12, "next": "plan"}),
                "above its maximum",
            ),
            (
                json!({"ok": true, "score": 7, "next": "taxi"}),
                "not one of",
            ),
            (json!({"ok": true, "next": "plan"}), "has no \"score\""),
            (
                json!({"ok": true, "score": 7.5, "next": "plan"}),
                "not an integer",
            ),
            (
                json!({"ok": true, "score": 7, "next": "plan", "issues": [3]}),
                "reply.issues[0] is not a string",
            ),
            (json!([1]), "not an object"),
        ] {
            let err = s.check(&bad).expect_err("does not fit");
            assert!(err.contains(why), "{bad}: {err}");
        }
    }
}
