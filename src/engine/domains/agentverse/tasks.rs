//! AgentVerse's ten tool-using tasks (ACT §4.3), as the dataset's
//! `tasks.jsonl` gives them (`{id, task, agents, tool_agents, max_rounds}`):
//! each an open question the team splits itself, with every tool offered.
//! Seven need the web (the dataset's README names them; a file of other
//! tasks may say so itself, `"needs_web": true`); a run of one without a
//! search endpoint is refused before it starts, saying so. `builtin`: a few
//! of our own, for the page without the dataset.

use crate::engine::domains::creative::ComplexTask;
use serde_json::Value;

/// The tasks the dataset's README says need the web.
pub const NEEDS_WEB: [&str; 7] = [
    "bookclub", "car", "date", "diy", "party", "trending", "vacation",
];

/// One task of the set.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolTask {
    pub id: String,
    pub question: String,
    /// AgentVerse's team size for it.
    pub agents: usize,
    pub needs_web: bool,
}

impl ToolTask {
    /// The complex task an ACT run takes on: the question, split by the
    /// team (no references: the run is judged on the sub-tasks it asks).
    pub fn complex_task(&self) -> ComplexTask {
        ComplexTask {
            id: format!("agentverse:{}", self.id),
            deliverable: "answer".into(),
            word_limit: None,
            ..ComplexTask::free(&self.question)
        }
    }

    /// Why it cannot run without the web, when it needs it and there is
    /// none; `fix` says how to give one (the CLI's flag, the page's field).
    pub fn refusal(&self, has_web: bool, fix: &str) -> Option<String> {
        (self.needs_web && !has_web).then(|| {
            format!(
                "The task \"{}\" needs the web (searching and browsing), and no search endpoint is set: {fix}, or pick a task that needs no web.",
                self.id
            )
        })
    }
}

/// How the CLI gives the web tools an endpoint.
pub const CLI_FIX: &str = "give --search-url (a SearXNG instance's address)";

/// The tasks of a `tasks.jsonl`; errors name the line.
pub fn parse(text: &str, file: &str) -> Result<Vec<ToolTask>, String> {
    let mut out = Vec::new();
    for row in crate::engine::domains::jsonl_rows(text, file) {
        let (line, v) = row?;
        let at = |why: String| format!("{file} line {line}: {why}");
        let field = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .ok_or_else(|| at(format!("no \"{k}\" text")))
        };
        let id = field("id")?;
        let agents = v
            .get("agents")
            .and_then(Value::as_u64)
            .map_or(4, |n| n.clamp(2, 8) as usize);
        let needs_web = match v.get("needs_web") {
            None => NEEDS_WEB.contains(&id.as_str()),
            Some(b) => b
                .as_bool()
                .ok_or_else(|| at("\"needs_web\" is not true or false".into()))?,
        };
        out.push(ToolTask {
            needs_web,
            question: field("task")?,
            id,
            agents,
        });
    }
    if out.is_empty() {
        return Err(format!("{file} holds no tasks"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tasks_are_read_and_a_web_task_without_the_web_is_refused() {
        let text = "{\"id\": \"bmi\", \"task\": \"Calculate my BMI.\", \"agents\": 3}\n\n{\"id\": \"car\", \"task\": \"Compare cars.\", \"agents\": 40}\n";
        let t = parse(text, "tasks.jsonl").expect("read");
        assert_eq!(t.len(), 2);
        assert_eq!((t[0].agents, t[0].needs_web), (3, false));
        assert_eq!((t[1].agents, t[1].needs_web), (8, true));
        assert_eq!(t[0].refusal(false, CLI_FIX), None);
        assert!(t[1]
            .refusal(false, CLI_FIX)
            .is_some_and(|r| r.contains("\"car\" needs the web") && r.contains("--search-url")));
        assert_eq!(t[1].refusal(true, CLI_FIX), None);
        let c = t[0].complex_task();
        assert_eq!(
            (c.id.as_str(), c.text.as_str()),
            ("agentverse:bmi", "Calculate my BMI.")
        );
        assert!(c.parts.is_empty(), "the team splits it");
        assert!(parse("{\"id\": \"x\"}", "f")
            .unwrap_err()
            .contains("line 1: no \"task\""));
        assert!(parse("\n", "f").is_err());
        // A file's own say on the web wins over the dataset's list.
        let own = parse(
            "{\"id\": \"car\", \"task\": \"t\", \"needs_web\": false}\n{\"id\": \"x\", \"task\": \"t\", \"needs_web\": true}",
            "f",
        )
        .expect("read");
        assert_eq!((own[0].needs_web, own[1].needs_web), (false, true));
        assert!(parse(
            "{\"id\": \"x\", \"task\": \"t\", \"needs_web\": \"yes\"}",
            "f"
        )
        .unwrap_err()
        .contains("line 1: \"needs_web\" is not true or false"));
    }
}
