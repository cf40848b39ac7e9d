//! The reply shape of each of ACT's structured steps: its JSON Schema is
//! made from the reply's type (those in `mod.rs`, and the ones here that
//! only a reply has), sent in the provider's structured mode, and checked
//! when the reply is read (`RunCtx::repaired` flags one that does not fit).
//! Steps that speak (free text) have none.

use super::keyword::Keyword;
use super::{
    AgentTask, Check, Reflection, TeamTask, ToolSubtask, STEP_ACQUIRE, STEP_CHECK, STEP_DECOMPOSE,
    STEP_EXPERTISE, STEP_EXPLORE, STEP_FOLLOWUP, STEP_FUSE, STEP_INSTRUCT, STEP_JUDGE,
    STEP_REFLECT, STEP_RESCORE, STEP_TOOL_JUDGE,
};
use crate::engine::model::shape::ReplySchema;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// act.decompose: one task per member.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Decomposition {
    /// One per member (each request narrows it to the team's size).
    #[schemars(length(min = 1, max = 8))]
    pub tasks: Vec<AgentTask>,
}

/// act.expertise: keywords, most useful first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExpertiseReply {
    #[schemars(length(min = 1, max = 12))]
    pub expertise: Vec<Keyword>,
}

/// act.explore: the persona and scenes the member pictured, and its
/// specified task (the one kept).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExploreReply {
    #[serde(default)]
    #[schemars(length(max = 240))]
    pub persona: String,
    #[serde(default)]
    #[schemars(length(max = 360))]
    pub scenes: String,
    /// The specified task, in one sentence.
    #[schemars(length(max = 400))]
    pub task: String,
}

/// act.acquire: episodes and knowledge, grouped by speaker.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AcquireReply {
    #[schemars(length(max = 12))]
    pub episodes: Vec<EpisodeReply>,
    #[schemars(length(max = 12))]
    pub knowledge: Vec<KnowledgeReply>,
}

/// One episode: what a speaker did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EpisodeReply {
    /// The speaker's name (narrowed per request to the speakers listed).
    #[schemars(length(max = 60))]
    pub subject: String,
    #[schemars(length(max = 400))]
    pub text: String,
}

/// One knowledge entry drawn from a speaker.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KnowledgeReply {
    /// The speaker's name (narrowed per request to the speakers listed).
    #[schemars(length(max = 60))]
    pub subject: String,
    #[schemars(length(max = 400))]
    pub summary: String,
    #[schemars(length(min = 1, max = 4))]
    pub keywords: Vec<Keyword>,
    /// Who the information came from.
    #[schemars(length(max = 60))]
    pub source: String,
    #[schemars(range(min = 0, max = 10))]
    pub importance: u8,
}

/// act.break.followup: a further question, or done.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FollowUpReply {
    #[serde(default)]
    #[schemars(length(max = 400))]
    pub question: Option<String>,
    #[serde(default)]
    pub done: Option<bool>,
}

/// act.production.instruct: at most three tool sub-tasks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolPlan {
    #[schemars(length(max = 3))]
    pub subtasks: Vec<ToolSubtask>,
}

/// act.judge: why, briefly, then how many expected components the output
/// contains (the reader clamps a count above the task's components).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JudgeReply {
    #[schemars(length(max = 400))]
    pub reasoning: String,
    pub score: u32,
}

/// act.plus.rescore: each entry shown scored again for the new task (the
/// ids narrowed per request to the entries shown, one item each).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RescoreReply {
    /// At most a batch (`plus::RESCORE_ENTRIES`, 40).
    #[schemars(length(min = 1, max = 40))]
    pub scores: Vec<EntryScore>,
}

/// One entry's new score (0–10).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EntryScore {
    /// The entry's id as the prompt shows it (narrowed per request).
    #[schemars(length(max = 64))]
    pub id: String,
    #[schemars(range(min = 0, max = 10))]
    pub score: u8,
}

/// act.tool_judge (§4.3, App. B): the sub-tasks the query asks for, each
/// with whether the output completes it; the rate is counted here.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolJudgeReply {
    #[schemars(length(min = 1, max = 8))]
    pub subtasks: Vec<SubtaskCheck>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SubtaskCheck {
    /// What the query asks for, briefly.
    #[schemars(length(max = 200))]
    pub subtask: String,
    pub done: bool,
}

/// ACT's steps that ask for a reply shape.
pub const STRUCTURED_STEPS: [&str; 12] = [
    STEP_DECOMPOSE,
    STEP_EXPERTISE,
    STEP_FUSE,
    STEP_EXPLORE,
    STEP_ACQUIRE,
    STEP_REFLECT,
    STEP_FOLLOWUP,
    STEP_INSTRUCT,
    STEP_CHECK,
    STEP_JUDGE,
    STEP_RESCORE,
    STEP_TOOL_JUDGE,
];

/// The reply shape step `step` asks for, if it is structured.
pub fn reply_shape(step: &str) -> Option<ReplySchema> {
    Some(match step {
        STEP_DECOMPOSE => ReplySchema::of::<Decomposition>(step),
        STEP_EXPERTISE => ReplySchema::of::<ExpertiseReply>(step),
        STEP_FUSE => ReplySchema::of::<TeamTask>(step),
        STEP_EXPLORE => ReplySchema::of::<ExploreReply>(step),
        STEP_ACQUIRE => ReplySchema::of::<AcquireReply>(step),
        STEP_REFLECT => ReplySchema::of::<Reflection>(step),
        STEP_FOLLOWUP => ReplySchema::of::<FollowUpReply>(step),
        STEP_INSTRUCT => crate::engine::coordinators::act::tools::widest_plan_schema(),
        // The issues before the verdict, which agrees with them.
        STEP_CHECK => ReplySchema::of::<Check>(step)
            .in_order(&["issues", "ok"])
            .with_agreeing("ok", "issues"),
        STEP_JUDGE => ReplySchema::of::<JudgeReply>(step),
        STEP_TOOL_JUDGE => ReplySchema::of::<ToolJudgeReply>(step)
            .in_order_at("/properties/subtasks/items", &["subtask", "done"]),
        STEP_RESCORE => ReplySchema::of::<RescoreReply>(step),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_structured_step_has_the_shape_its_prompt_asks_for() {
        let fits = |step: &str, v: serde_json::Value| {
            reply_shape(step)
                .unwrap_or_else(|| panic!("{step} has a shape"))
                .check(&v)
        };
        assert_eq!(
            fits(
                STEP_DECOMPOSE,
                json!({"tasks": [{"subject": "s", "details": ["d"]}]})
            ),
            Ok(())
        );
        assert_eq!(fits(STEP_EXPERTISE, json!({"expertise": ["tea"]})), Ok(()));
        assert_eq!(
            fits(
                STEP_FUSE,
                json!({"subject": "s", "detail": "d", "description": "x"})
            ),
            Ok(())
        );
        assert_eq!(
            fits(
                STEP_EXPLORE,
                json!({"persona": "p", "scenes": "s", "task": "t"})
            ),
            Ok(())
        );
        let acquired = json!({"episodes": [{"subject": "Agent B", "text": "spoke"}],
            "knowledge": [{"subject": "Agent B", "summary": "x is y.", "keywords": ["x"], "source": "Agent B", "importance": 7}]});
        assert_eq!(fits(STEP_ACQUIRE, acquired), Ok(()));
        assert_eq!(
            fits(
                STEP_REFLECT,
                json!({"reflection": "r", "deepen": "d", "questions": ["q"]})
            ),
            Ok(())
        );
        assert_eq!(fits(STEP_FOLLOWUP, json!({"question": "why?"})), Ok(()));
        assert_eq!(fits(STEP_FOLLOWUP, json!({"done": true})), Ok(()));
        assert_eq!(
            fits(
                STEP_INSTRUCT,
                json!({"subtasks": [{"task": "the file holds the notes", "tool": "FileSystemEnv_write_to_file", "arguments": {"filepath": "a.md", "content": "x"}}]})
            ),
            Ok(())
        );
        assert_eq!(fits(STEP_CHECK, json!({"ok": true, "issues": []})), Ok(()));
        assert_eq!(
            fits(STEP_JUDGE, json!({"reasoning": "1 and 3.", "score": 2})),
            Ok(())
        );
        assert!(fits(STEP_JUDGE, json!({"reasoning": "r", "score": -1})).is_err());
        assert_eq!(
            fits(
                STEP_RESCORE,
                json!({"scores": [{"id": "a1.k3", "score": 7}]})
            ),
            Ok(())
        );
        // The old form (a map by id) no strict schema mode takes.
        assert!(fits(STEP_RESCORE, json!({"scores": {"a1.k3": 7}})).is_err());
        assert!(fits(
            STEP_RESCORE,
            json!({"scores": [{"id": "a1.k3", "score": 11}]})
        )
        .is_err());
        // What the readers would have to repair does not fit.
        assert!(fits(STEP_CHECK, json!({"ok": "yes"})).is_err());
        assert!(fits(STEP_EXPERTISE, json!(["tea"])).is_err());
        let too_important = json!({"episodes": [], "knowledge": [{"subject": "B", "summary": "s",
            "keywords": ["k"], "source": "B", "importance": 12}]});
        assert!(fits(STEP_ACQUIRE, too_important).is_err());
        assert!(
            reply_shape(super::super::STEP_DRAFT).is_none(),
            "speech is free"
        );
        assert!(STRUCTURED_STEPS.iter().all(|s| reply_shape(s).is_some()));
        // A keyword is no longer than the memory keeps one.
        let long = "k".repeat(super::super::keyword::KEYWORD_CHARS + 1);
        assert!(fits(STEP_EXPERTISE, json!({"expertise": [long]})).is_err());
    }
}
