//! What the demo agent has seen: the tool results in its own context (native
//! tool messages, or text-protocol observations) and the notebook entries in
//! a planning brief, as (tool, arguments, text) triples.

use crate::engine::coordinators::travel::contract::{
    CONVERSATION_HEADING, NOTEBOOK_HEADING, OBSERVATION_PREFIX,
};
use crate::engine::domains::travel::tools::{parameter_names, TOOL_NAMES};
use crate::engine::model::text_tools::{parse_all, TextToolCall};
use crate::engine::model::{ChatRequest, Role, ToolCall};

/// One tool call and the text it returned.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    pub tool: String,
    pub args: Vec<String>,
    pub text: String,
}

/// Positional arguments of a native call, in the tool's parameter order.
pub fn native_args(call: &ToolCall) -> Vec<String> {
    let map = call.parsed_arguments().unwrap_or_default();
    match parameter_names(&call.name) {
        Some(names) => names
            .iter()
            .map(|n| match map.get(*n) {
                Some(serde_json::Value::String(s)) => s.trim().to_string(),
                Some(other) => other.to_string(),
                None => String::new(),
            })
            .collect(),
        None => Vec::new(),
    }
}

/// The tool results in a request, in order: native tool messages matched to
/// the calls that asked for them, and user messages holding observations.
pub fn observations(req: &ChatRequest) -> Vec<Observation> {
    let mut calls: Vec<&ToolCall> = Vec::new();
    let mut out = Vec::new();
    for m in &req.messages {
        match m.role {
            Role::Assistant => calls.extend(m.tool_calls.iter()),
            Role::Tool => {
                let call = m
                    .tool_call_id
                    .as_deref()
                    .and_then(|id| calls.iter().rev().find(|c| c.id == id));
                if let Some(c) = call {
                    out.push(Observation {
                        tool: c.name.clone(),
                        args: native_args(c),
                        text: m.content.clone(),
                    });
                }
            }
            Role::User if m.content.trim_start().starts_with(OBSERVATION_PREFIX) => {
                out.extend(text_observations(&m.content));
            }
            _ => {}
        }
    }
    out
}

/// `Observation: Tool[args]` headers, each followed by the tool's text up to
/// the next header.
pub fn text_observations(text: &str) -> Vec<Observation> {
    let mut out: Vec<Observation> = Vec::new();
    let mut current: Option<(Observation, Vec<&str>)> = None;
    for line in text.lines() {
        if let Some(head) = line.strip_prefix(OBSERVATION_PREFIX) {
            if let Some((o, body)) = current.take() {
                out.push(finish(o, &body));
            }
            let call = parse_all(head, &TOOL_NAMES).into_iter().next();
            current = call.map(opened);
            continue;
        }
        if let Some((_, body)) = current.as_mut() {
            body.push(line);
        }
    }
    if let Some((o, body)) = current {
        out.push(finish(o, &body));
    }
    out
}

/// An observation a header opens: its tool and arguments, its text to come.
fn opened<'a>(c: TextToolCall) -> (Observation, Vec<&'a str>) {
    let args = c.args.iter().map(|a| a.trim().to_string()).collect();
    let o = Observation {
        tool: c.name,
        args,
        text: String::new(),
    };
    (o, Vec::new())
}

fn finish(mut o: Observation, body: &[&str]) -> Observation {
    o.text = body.join("\n").trim().to_string();
    o
}

/// The notebook entries of a brief (`## N<i> · <author> · <Tool>[args]`
/// headings, each followed by the raw tool text).
pub fn notebook_entries(brief: &str) -> Option<Vec<Observation>> {
    let start = brief.find(NOTEBOOK_HEADING)?;
    let body = &brief[start + NOTEBOOK_HEADING.len()..];
    let body = match body.find(CONVERSATION_HEADING) {
        Some(end) => &body[..end],
        None => body,
    };
    let mut out = Vec::new();
    let mut current: Option<(Observation, Vec<&str>)> = None;
    for line in body.lines() {
        let entry = line
            .strip_prefix("## N")
            .and_then(|h| h.rsplit(" · ").next())
            .and_then(|call| parse_all(call, &TOOL_NAMES).into_iter().next());
        if let Some(c) = entry {
            if let Some((o, b)) = current.take() {
                out.push(finish(o, &b));
            }
            current = Some(opened(c));
            continue;
        }
        if let Some((_, b)) = current.as_mut() {
            b.push(line);
        }
    }
    if let Some((o, b)) = current {
        out.push(finish(o, &b));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::Message;

    #[test]
    fn native_and_text_results_are_read() {
        let call = ToolCall {
            id: "call_1".into(),
            name: "FlightSearch".into(),
            arguments: r#"{"origin": "A", "destination": "B", "date": "2024-01-01"}"#.into(),
        };
        let req = ChatRequest::new(vec![
            Message::user("go"),
            Message::assistant_with_tools("", vec![call]),
            Message::tool_result("call_1", "There is no flight from A to B on 2024-01-01."),
            Message::user(
                "Observation: CitySearch[Calder]\n['X', 'Y']\n\nObservation: AttractionSearch[X]\nName City\n   a    X",
            ),
        ]);
        let obs = observations(&req);
        assert_eq!(obs.len(), 3);
        assert_eq!(obs[0].args, vec!["A", "B", "2024-01-01"]);
        assert!(obs[0].text.starts_with("There is no flight"));
        assert_eq!(obs[1].tool, "CitySearch");
        assert_eq!(obs[1].text, "['X', 'Y']");
        assert_eq!(obs[2].text, "Name City\n   a    X");
    }

    #[test]
    fn notebook_entries_are_read_from_a_brief() {
        let brief = "# Goal\nq\n\n# Notebook\n## N1 · Transportation expert · CitySearch[Calder]\n['X']\n\n\
                     ## N2 · Hotel expert · AccommodationSearch[X]\nNAME price\n   a   1.0\n\n# Conversation so far\n(nothing yet)\n";
        let n = notebook_entries(brief).expect("notebook");
        assert_eq!(n.len(), 2);
        assert_eq!(n[1].args, vec!["X"]);
        assert_eq!(n[1].text, "NAME price\n   a   1.0");
        assert_eq!(notebook_entries("# Goal\nq"), None);
    }
}
