//! Reading a request: its `# Heading` sections, the transcripts, task
//! lists and knowledge blocks the prompts lay out. Request text is
//! untrusted: everything here returns something sensible (often empty)
//! for any input, never panics.

use crate::engine::coordinators::act::contract::section;

/// A section's text, or "" when the request has none.
pub fn sec<'a>(text: &'a str, heading: &str) -> &'a str {
    section(text, heading).unwrap_or("")
}

/// A section that ends the request, without the instruction paragraph
/// every prompt puts after it (its last blank-line-separated block).
pub fn last_sec<'a>(text: &'a str, heading: &str) -> &'a str {
    let s = sec(text, heading);
    s.rsplit_once("\n\n").map_or("", |(head, _)| head.trim())
}

/// The instruction paragraph that ends every prompt (its last
/// blank-line-separated block): where the prompt states its numbers.
pub fn instruction(text: &str) -> &str {
    text.rsplit_once("\n\n").map_or(text, |(_, t)| t)
}

/// The first line of a section (a task's subject).
pub fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

/// The utterances of a transcript ("Name: text" blocks separated by blank
/// lines; a block that names no known speaker continues the one before).
/// `known` are names the caller expects; "Agent X" and "Expert on …" are
/// always recognised.
pub fn utterances(transcript: &str, known: &[String]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for block in transcript.split("\n\n") {
        let block = block.trim();
        if block.is_empty() {
            continue;
        }
        let speaker = block.split_once(": ").and_then(|(name, rest)| {
            let name = name.trim();
            let ok = known.iter().any(|k| k == name)
                || (name.starts_with("Agent ") && name.len() <= 12)
                || (name.starts_with("Expert on ") && !name.contains('\n'));
            ok.then(|| (name.to_string(), rest.trim().to_string()))
        });
        match (speaker, out.last_mut()) {
            (Some(said), _) => out.push(said),
            (None, Some(last)) => {
                last.1.push_str("\n\n");
                last.1.push_str(block);
            }
            (None, None) => out.push((String::new(), block.to_string())),
        }
    }
    out
}

/// The lines "- Name: subject" of an `# Everyone's tasks` section, as
/// (name, subject, details).
pub fn task_list(text: &str) -> Vec<(String, String, Vec<String>)> {
    let mut out: Vec<(String, String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("- ") {
            if let Some((name, subject)) = rest.split_once(": ") {
                out.push((name.trim().into(), subject.trim().into(), Vec::new()));
                continue;
            }
        }
        if let Some(last) = out.last_mut() {
            if !line.trim().is_empty() {
                last.2.push(line.trim().to_string());
            }
        }
    }
    out
}

/// One acquired entry of a knowledge block, as a prompt shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub id: String,
    pub summary: String,
    pub source: String,
    pub importance: u8,
    pub keywords: Vec<String>,
}

/// A `# Your knowledge` block: the expertise keywords and the acquired
/// entries, best first as the block lists them.
pub fn knowledge(block: &str) -> (Vec<String>, Vec<Entry>) {
    let mut expertise = Vec::new();
    let mut entries = Vec::new();
    for line in block.lines() {
        if let Some(list) = line.strip_prefix("Expertise:") {
            expertise = list
                .split(',')
                .map(|k| k.trim().to_string())
                .filter(|k| !k.is_empty())
                .collect();
        } else if let Some(rest) = line.strip_prefix("- [") {
            let Some((id, rest)) = rest.split_once("] ") else {
                continue;
            };
            let (body, keywords) = match rest.rsplit_once(" — keywords: ") {
                Some((b, k)) => (b, k.split(',').map(|k| k.trim().to_string()).collect()),
                None => (rest, Vec::new()),
            };
            let (summary, meta) = body.rsplit_once(" (from ").unwrap_or((body, ""));
            let (source, importance) = meta.rsplit_once(", importance ").unwrap_or(("", ""));
            entries.push(Entry {
                id: id.to_string(),
                summary: summary.trim().to_string(),
                source: source.trim().to_string(),
                importance: importance.trim_end_matches(')').trim().parse().unwrap_or(0),
                keywords,
            });
        }
    }
    (expertise, entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_defensively() {
        let t = "Agent A: hi.\nmore\n\nAgent B: yes: sure\n\ncontinued";
        let u = utterances(t, &[]);
        assert_eq!(u.len(), 2);
        assert_eq!(u[1], ("Agent B".into(), "yes: sure\n\ncontinued".into()));
        let tasks = task_list("- Agent A: Tea\n  d1\n- Agent B: Cafe");
        assert_eq!(tasks[0].2, ["d1"]);
        let (e, k) = knowledge("Expertise: tea, milk\n- [a1.k0] Oolong is a tea. (from Agent B, importance 8) — keywords: oolong, tea\n- broken");
        assert_eq!(e, ["tea", "milk"]);
        assert_eq!(k[0].importance, 8);
        assert_eq!(k[0].source, "Agent B");
        assert_eq!(k[0].keywords, ["oolong", "tea"]);
        assert_eq!(last_sec("# A\nbody\n\nInstruction.", "# A"), "body");
        assert_eq!(last_sec("# A\nInstruction only.", "# A"), "");
        assert_eq!(sec("nothing", "# A"), "");
    }
}
