//! A software step's reply (solve or aggregate on an SRDD task): the files
//! it writes, from its JSON (`{"files": [{"path", "content"}]}`), else from
//! its text's fenced blocks, each under a line that names its file
//! (ChatDev's layout: `main.py`, then a fence), read with a `Shape` repair.
//! Whether a path may be written is the workspace's to say, not this file's.

use crate::engine::coordinators::mael::contract::FileWrite;
use crate::engine::model::reply::{read_json, Read, Repair, RepairKind, Unreadable};
use serde::Deserialize;
use serde_json::Value;

const PATH_KEYS: [&str; 4] = ["path", "name", "file", "filename"];
const CONTENT_KEYS: [&str; 4] = ["content", "code", "text", "source"];

/// The files of a software step's reply (possibly none).
pub fn files(reply: &str) -> Result<Read<Vec<FileWrite>>, Unreadable> {
    #[derive(Deserialize)]
    struct Loose {
        files: Value,
    }
    let why = match read_json::<Loose>(reply) {
        Ok(read) => match read.value.files.as_array() {
            Some(items) => {
                let mut repairs = read.repairs;
                return Ok(Read {
                    value: objects(items, &mut repairs),
                    repairs,
                });
            }
            None => "\"files\" is not a list".to_string(),
        },
        Err(e) => e.0,
    };
    let fenced = fenced_files(reply);
    if fenced.is_empty() {
        return Err(Unreadable(format!(
            "{why}, and the text has no fenced block under a file's name"
        )));
    }
    Ok(Read {
        value: fenced,
        repairs: vec![Repair::new(
            RepairKind::Shape,
            format!("the reply was not the files' JSON ({why}); its fenced blocks were read as the files they are under"),
        )],
    })
}

/// The files of a JSON list of objects; another key for the path or the
/// text is a `Shape` repair, an item with neither is dropped (one too).
fn objects(items: &[Value], repairs: &mut Vec<Repair>) -> Vec<FileWrite> {
    let (mut mapped, mut dropped) = (false, false);
    let mut out = Vec::new();
    for item in items {
        let field = |keys: &[&str]| {
            keys.iter().enumerate().find_map(|(i, k)| {
                item.get(*k)
                    .and_then(Value::as_str)
                    .map(|v| (i > 0, v.to_string()))
            })
        };
        match (field(&PATH_KEYS), field(&CONTENT_KEYS)) {
            (Some((p_mapped, path)), Some((c_mapped, content))) => {
                mapped |= p_mapped || c_mapped;
                out.push(FileWrite { path, content });
            }
            _ => dropped = true,
        }
    }
    if mapped {
        repairs.push(Repair::new(
            RepairKind::Shape,
            "a file was given under another key than \"path\" / \"content\"",
        ));
    }
    if dropped {
        repairs.push(Repair::new(
            RepairKind::Shape,
            "items without a path and a text were dropped",
        ));
    }
    out
}

/// A line that names a file: `main.py`, `**main.py**`, `# game/board.py`,
/// `File: main.py`, `main.py:`. Its last part must have an extension.
fn file_name(line: &str) -> Option<String> {
    let mut l = line.trim();
    for prefix in ["File:", "file:", "Filename:", "filename:"] {
        if let Some(rest) = l.strip_prefix(prefix) {
            l = rest;
        }
    }
    let l =
        l.trim_matches(|c: char| c == '#' || c == '*' || c == '`' || c == ':' || c.is_whitespace());
    let ok = !l.is_empty()
        && !l.contains(' ')
        && l.rsplit('/')
            .next()
            .and_then(|name| name.rsplit_once('.'))
            .is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && !ext.is_empty()
                    && ext.chars().all(|c| c.is_ascii_alphanumeric())
            });
    ok.then(|| l.to_string())
}

/// Each fenced block whose nearest line above (blank lines aside) names a
/// file; an unclosed block runs to the end.
fn fenced_files(reply: &str) -> Vec<FileWrite> {
    let lines: Vec<&str> = reply.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].trim_start().starts_with("```") {
            i += 1;
            continue;
        }
        let name = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| file_name(l));
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && !lines[end].trim_start().starts_with("```") {
            end += 1;
        }
        if let Some(path) = name {
            let mut content = lines[start..end].join("\n");
            content.push('\n');
            out.push(FileWrite { path, content });
        }
        i = end + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::coordinators::mael::read::tests::kinds;

    fn paths(r: &Read<Vec<FileWrite>>) -> Vec<&str> {
        r.value.iter().map(|f| f.path.as_str()).collect()
    }

    #[test]
    fn files_are_read_from_json_or_from_blocks_under_their_names() {
        let json =
            files(r#"{"files": [{"path": "main.py", "content": "print(1)\n"}]}"#).expect("json");
        assert_eq!(paths(&json), ["main.py"]);
        assert_eq!(json.value[0].content, "print(1)\n");
        assert!(!json.repaired());
        let none = files(r#"{"files": []}"#).expect("none");
        assert!(none.value.is_empty() && !none.repaired());
        let odd = files(r#"{"files": [{"name": "a.py", "code": "x"}, {"path": "b.py"}, 3]}"#)
            .expect("mapped");
        assert_eq!(paths(&odd), ["a.py"]);
        assert_eq!(kinds(&odd), [RepairKind::Shape, RepairKind::Shape]);
        let text = "Here it is.\n\n**game/board.py**\n```python\nclass Board:\n    size = 3\n```\n\nmain.py\n\n```\nfrom game.board import Board\n```\n```\nno name above\n```\n";
        let fenced = files(text).expect("fenced");
        assert_eq!(paths(&fenced), ["game/board.py", "main.py"]);
        assert_eq!(fenced.value[0].content, "class Board:\n    size = 3\n");
        assert_eq!(kinds(&fenced), [RepairKind::Shape]);
        assert!(files("I would write a class.").is_err());
        assert!(files("Some words\n```python\nprint(1)\n```").is_err());
        assert_eq!(file_name("File: `util.py`:").as_deref(), Some("util.py"));
        assert_eq!(file_name("the main file"), None);
        assert_eq!(file_name("v1."), None);
    }
}
