//! The compact form of a run, before compression. Lossless transforms that
//! remove what the log repeats:
//! - `seq` (dense 0..n) is dropped, `t_ms` becomes the delta from the previous event;
//! - `run_started.config` is dropped when it equals the document's config;
//! - streamed `llm_delta` texts that add up to the call's final answer are
//!   replaced by their byte lengths (the text is cut back out of the answer);
//! - repeated strings go to a table (see `intern`).

use super::intern;
use crate::engine::run::{json, LoggedEvent, RunConfig, RunDoc, RunEvent};
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};

/// For each call, the index range (in `events`) of its final attempt's deltas
/// when they concatenate exactly to the response text.
fn reconstructible_deltas(events: &[LoggedEvent]) -> HashMap<u32, Vec<usize>> {
    use crate::engine::run::RunEvent::*;
    let mut deltas: HashMap<u32, Vec<usize>> = HashMap::new();
    let mut out = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        match &e.event {
            LlmDelta { call, .. } => deltas.entry(*call).or_default().push(i),
            LlmRetry { call, .. } => {
                deltas.remove(call);
            }
            LlmResponse { call, response, .. } => {
                if let Some(idx) = deltas.remove(call) {
                    let joined: String = idx
                        .iter()
                        .filter_map(|&j| match &events[j].event {
                            LlmDelta { text, .. } => Some(text.as_str()),
                            _ => None,
                        })
                        .collect();
                    if joined == response.text {
                        out.insert(*call, idx);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Keys the compact form adds to an event's fields (no event field uses them).
const RESERVED: [&str; 4] = ["t", "d", "q", "n"];

/// One event as `(kind, fields)`, from its serialized `{"seq", "t_ms", "event": {kind: fields}}`.
fn split_event(v: Value) -> Result<(String, Map<String, Value>), String> {
    let inner = match v {
        Value::Object(mut o) => o.remove("event"),
        _ => None,
    };
    match inner {
        Some(Value::Object(o)) if o.len() == 1 => {
            let (kind, fields) = o.into_iter().next().ok_or("an event has no kind")?;
            match fields {
                Value::Object(f) => Ok((kind, f)),
                _ => Err(format!("event {kind} has no fields")),
            }
        }
        _ => Err("an event did not serialize as {kind: fields}".into()),
    }
}

/// RunDoc → compact JSON tree: each event is its fields plus `t` (kind),
/// `d` (ms since the previous event, when not 0), `q` (sequence number,
/// only when the log is not dense) and `n` (length of a cut-out delta).
pub fn to_compact(doc: &RunDoc) -> Result<Value, String> {
    let config = json::to_tree(&doc.config).map_err(|e| e.to_string())?;
    let dense = doc
        .events
        .iter()
        .enumerate()
        .all(|(i, e)| e.seq == i as u64);
    let cut: HashMap<usize, usize> = reconstructible_deltas(&doc.events)
        .into_values()
        .flatten()
        .filter_map(|i| match &doc.events[i].event {
            crate::engine::run::RunEvent::LlmDelta { text, .. } => Some((i, text.len())),
            _ => None,
        })
        .collect();
    let mut prev_t = 0u64;
    let mut events = Vec::with_capacity(doc.events.len());
    for (i, e) in doc.events.iter().enumerate() {
        let (kind, mut o) = split_event(json::to_tree(e).map_err(|e| e.to_string())?)?;
        if let Some(k) = RESERVED.iter().find(|k| o.contains_key(**k)) {
            return Err(format!(
                "event {kind} has a field named {k}, which the link format reserves"
            ));
        }
        if kind == "run_started" && o.get("config") == Some(&config) {
            o.remove("config");
        }
        if let Some(len) = cut.get(&i) {
            o.remove("text");
            o.insert("n".into(), json!(len));
        }
        o.insert("t".into(), Value::String(kind));
        if !dense {
            o.insert("q".into(), json!(e.seq));
        }
        let dt = e.t_ms.wrapping_sub(prev_t);
        prev_t = e.t_ms;
        if dt != 0 {
            o.insert("d".into(), json!(dt));
        }
        events.push(Value::Object(o));
    }
    let mut tree = json!({ "s": doc.schema_version, "c": config, "e": events });
    let table = intern::intern(&mut tree);
    if !table.is_empty() {
        if let Some(o) = tree.as_object_mut() {
            o.insert("S".into(), json!(table));
        }
    }
    Ok(tree)
}

/// Compact JSON tree → RunDoc, checking every step. The tree is rebuilt in
/// place (no copies of the events). A streamed delta cut out of its call's
/// answer becomes its typed event at once (most of a run's events are
/// deltas); every other event, and the config, is read into its typed value
/// on its own, so an error names the part that is not valid.
pub fn from_compact(mut tree: Value) -> Result<RunDoc, String> {
    let table = string_table(&tree)?;
    intern::expand(&mut tree, &table)?;
    let top = tree.as_object_mut().ok_or("the run is not an object")?;
    let schema_version = top
        .get("s")
        .and_then(Value::as_u64)
        .ok_or("the run has no schema version")?;
    let schema_version =
        u32::try_from(schema_version).map_err(|_| "the schema version is out of range")?;
    let config_tree = top.remove("c").ok_or("the run has no config")?;
    let config: RunConfig =
        json::from_tree(&config_tree).map_err(|e| format!("the config is not valid: {e}"))?;
    let compact_events = match top.remove("e") {
        Some(Value::Array(a)) => a,
        _ => return Err("the run has no event list".into()),
    };
    let mut reader = EventReader {
        answers: cut_answers(&compact_events),
        config_tree,
        offsets: HashMap::new(),
        t: 0,
    };
    let mut events = Vec::with_capacity(compact_events.len());
    for (i, e) in compact_events.into_iter().enumerate() {
        events.push(reader.event(i, e)?);
    }
    let doc = RunDoc {
        format: crate::engine::run::log::FORMAT.to_string(),
        schema_version,
        config,
        events,
    };
    doc.validate()?;
    Ok(doc)
}

/// The string table (`S`) repeated strings were moved to; empty without one.
fn string_table(tree: &Value) -> Result<Vec<String>, String> {
    Ok(match tree.get("S") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|s| {
                s.as_str()
                    .map(str::to_string)
                    .ok_or("the string table holds a non-string")
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("the string table is not a list".into()),
    })
}

/// Final answers of the calls whose streamed deltas were cut out.
fn cut_answers(compact_events: &[Value]) -> HashMap<u64, String> {
    let cut_calls: HashSet<u64> = compact_events
        .iter()
        .filter(|e| e.get("n").is_some())
        .filter_map(|e| e.get("call").and_then(Value::as_u64))
        .collect();
    let mut answers: HashMap<u64, String> = HashMap::new();
    for e in compact_events {
        if e.get("t").and_then(Value::as_str) == Some("llm_response") {
            if let (Some(call), Some(text)) = (
                e.get("call").and_then(Value::as_u64),
                e.pointer("/response/text").and_then(Value::as_str),
            ) {
                if cut_calls.contains(&call) {
                    answers.insert(call, text.to_string());
                }
            }
        }
    }
    answers
}

/// Reads compact events in order: the time runs on from event to event,
/// and each call's cut-out deltas are taken from its answer in turn.
struct EventReader {
    answers: HashMap<u64, String>,
    /// The document's config, for a `run_started` that dropped its own.
    config_tree: Value,
    /// How much of each call's answer the deltas so far took.
    offsets: HashMap<u64, usize>,
    t: u64,
}

impl EventReader {
    /// Compact event `i` as its typed event.
    fn event(&mut self, i: usize, e: Value) -> Result<LoggedEvent, String> {
        let Value::Object(mut o) = e else {
            return Err(format!("event {i} is not an object"));
        };
        let seq = match o.remove("q") {
            Some(q) => q
                .as_u64()
                .ok_or_else(|| format!("event {i} has a bad sequence number"))?,
            None => i as u64,
        };
        let dt = match o.remove("d") {
            Some(d) => d
                .as_u64()
                .ok_or_else(|| format!("event {i} has a bad time"))?,
            None => 0,
        };
        self.t = self.t.wrapping_add(dt);
        let t = self.t;
        let kind = match o.remove("t") {
            Some(Value::String(k)) => k,
            _ => return Err(format!("event {i} has no kind")),
        };
        if kind == "run_started" && !o.contains_key("config") {
            o.insert("config".into(), self.config_tree.clone());
        }
        if let Some(n) = o.remove("n") {
            let (call, piece) = self.cut_piece(i, &o, n)?;
            // A delta holding nothing but its call: the typed event as
            // reading it would make it.
            if let (true, Ok(call)) = (kind == "llm_delta" && o.len() == 1, u32::try_from(call)) {
                return Ok(LoggedEvent {
                    seq,
                    t_ms: t,
                    event: RunEvent::LlmDelta { call, text: piece },
                });
            }
            o.insert("text".into(), json!(piece));
        }
        let mut inner = Map::new();
        inner.insert(kind, Value::Object(o));
        let event = json!({ "seq": seq, "t_ms": t, "event": inner });
        json::from_tree(&event).map_err(|e| format!("event {i} is not valid: {e}"))
    }

    /// The call of a cut-out delta (fields `o`, length `n`) and its text:
    /// the next `n` bytes of the call's answer.
    fn cut_piece(
        &mut self,
        i: usize,
        o: &Map<String, Value>,
        n: Value,
    ) -> Result<(u64, String), String> {
        let n = n
            .as_u64()
            .ok_or_else(|| format!("event {i} has a bad delta length"))? as usize;
        let call = o
            .get("call")
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("event {i} has no call"))?;
        let answer = self
            .answers
            .get(&call)
            .ok_or_else(|| format!("event {i}: call {call} has no answer to cut from"))?;
        let start = self.offsets.entry(call).or_insert(0);
        let piece = start
            .checked_add(n)
            .and_then(|end| answer.get(*start..end))
            .ok_or_else(|| format!("event {i}: delta length does not fit call {call}'s answer"))?;
        *start += n;
        Ok((call, piece.to_string()))
    }
}
