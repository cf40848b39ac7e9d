//! The JSON of an acquisition reply, mapped from the shapes models write
//! it in to `{"episodes": [...], "knowledge": [...]}`.

use crate::engine::coordinators::act::reading;
use crate::engine::model::reply::{read_value, Read, Unreadable};
use serde_json::Value;

/// The JSON of an acquisition reply as `{"episodes": [...], "knowledge":
/// [...]}`, each item naming its speaker in `"subject"`. Other shapes are
/// mapped (a [`RepairKind::Shape`] repair each): the object wrapped in a
/// one-key object; a list of per-speaker groups (`[{"subject", "episodes",
/// "knowledge"}]`, also wrapped: `{"result": [...]}`), whose items take the
/// group's speaker and whose episodes may be texts; a list of bare
/// episodes and entries; episodes or knowledge keyed by speaker
/// (`{"episodes": {"Agent B": [...]}}`). Anything else is unreadable.
///
/// [`RepairKind::Shape`]: crate::engine::model::reply::RepairKind::Shape
pub fn read_acquisition_json(text: &str) -> Result<Read<Value>, Unreadable> {
    let Read {
        mut value,
        mut repairs,
    } = read_value(text)?;
    let has = |v: &Value| v.get("episodes").is_some() || v.get("knowledge").is_some();
    if !has(&value) {
        if let Some((key, inner)) = reading::only_entry(&value) {
            if inner.is_object() || inner.is_array() {
                repairs.push(reading::shape(format!(
                    "the answer was wrapped in \"{}\": unwrapped",
                    reading::key_of(key)
                )));
                value = inner.clone();
            }
        }
    }
    if value.is_object() && has(&value) {
        let mut out = serde_json::Map::new();
        for key in ["episodes", "knowledge"] {
            let items = match value.get(key) {
                Some(Value::Array(a)) => a.clone(),
                Some(Value::Object(by_speaker)) => {
                    repairs.push(reading::shape(format!(
                        "the {key} were keyed by speaker: each took its key as its speaker"
                    )));
                    let mut items = Vec::new();
                    for (speaker, list) in by_speaker {
                        let list = match list {
                            Value::Array(a) => a.clone(),
                            other => vec![other.clone()],
                        };
                        items.extend(list.into_iter().map(|x| item_of(key, x, speaker)));
                    }
                    items
                }
                Some(Value::Null) | None => Vec::new(),
                Some(_) => {
                    repairs.push(reading::dropped(format!(
                        "the \"{key}\" were not a list: dropped"
                    )));
                    Vec::new()
                }
            };
            out.insert(key.into(), Value::Array(items));
        }
        return Ok(Read {
            value: Value::Object(out),
            repairs,
        });
    }
    if let Some(groups) = value.as_array() {
        let mut episodes = Vec::new();
        let mut knowledge = Vec::new();
        for g in groups {
            let speaker = speaker_of(g).unwrap_or_default();
            if has(g) {
                for (key, out) in [("episodes", &mut episodes), ("knowledge", &mut knowledge)] {
                    let list = match g.get(key) {
                        Some(Value::Array(a)) => a.clone(),
                        Some(Value::Null) | None => Vec::new(),
                        Some(other) => vec![other.clone()],
                    };
                    out.extend(list.into_iter().map(|x| item_of(key, x, &speaker)));
                }
            } else if g.get("summary").is_some() || g.get("brief_summary").is_some() {
                knowledge.push(g.clone());
            } else if g.get("text").is_some() {
                episodes.push(g.clone());
            }
        }
        if episodes.is_empty() && knowledge.is_empty() {
            return Err(Unreadable(
                "the JSON list holds no episode or knowledge entry".into(),
            ));
        }
        repairs.push(reading::shape(format!(
            "the reply was a list of {}, not {{\"episodes\", \"knowledge\"}}: its episodes and entries were gathered",
            groups.len()
        )));
        return Ok(Read {
            value: serde_json::json!({"episodes": episodes, "knowledge": knowledge}),
            repairs,
        });
    }
    Err(Unreadable(
        "the JSON has neither \"episodes\" nor \"knowledge\"".into(),
    ))
}

/// The keys an item or group names its speaker under, preferred first.
/// `"source"` comes after the keys that can only name a speaker: an
/// entry's source is where its information came from, which may be
/// someone the speaker quoted (it names the speaker only when nothing
/// before it does; an entry's reader flags that).
const SPEAKER_KEYS: [&str; 6] = ["subject", "speaker", "agent", "source", "name", "about"];

/// The speaker an item or group names, and the key it is named under.
pub(super) fn speaker_key(v: &Value) -> Option<(&'static str, String)> {
    SPEAKER_KEYS
        .iter()
        .find_map(|&k| v.get(k).and_then(Value::as_str).map(|n| (k, n.to_string())))
}

/// The speaker an item or group names.
pub(super) fn speaker_of(v: &Value) -> Option<String> {
    speaker_key(v).map(|(_, n)| n)
}

/// An episode or entry of `speaker`'s group: a text becomes the episode's
/// text (the entry's summary); an object keeps its own speaker if it names
/// one (its `"source"` is not a speaker: an entry of Mia's group whose
/// source is Omar stays Mia's).
fn item_of(key: &str, item: Value, speaker: &str) -> Value {
    match item {
        Value::String(t) if key == "episodes" => serde_json::json!({"subject": speaker, "text": t}),
        Value::String(t) => serde_json::json!({"subject": speaker, "summary": t}),
        Value::Object(mut o) => {
            let own = speaker_key(&Value::Object(o.clone())).filter(|(k, _)| *k != "source");
            if own.is_none() && !speaker.is_empty() {
                o.insert("subject".into(), Value::String(speaker.to_string()));
            }
            Value::Object(o)
        }
        other => other,
    }
}
