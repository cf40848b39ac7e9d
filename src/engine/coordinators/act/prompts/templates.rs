//! The declaration of every ACT template: its name, what it is for, and
//! the variables its step gives (required or optional), checked against
//! `act.prompts` and any edit before a run starts.

use crate::engine::prompts::{TemplateSpec, Var};

const WHO: Var = Var::required("who", "who is speaking: the act.speaker block");
const TEAM_TASK: Var = Var::required("team_task", "the team's complex task");
const TASKS: Var = Var::required(
    "tasks",
    "every member's task, \"- Name: subject\" and its details",
);

const fn req(name: &'static str, about: &'static str) -> Var {
    Var::required(name, about)
}
const fn opt(name: &'static str, about: &'static str) -> Var {
    Var::optional(name, about)
}
const fn spec(name: &'static str, about: &'static str, vars: &'static [Var]) -> TemplateSpec {
    TemplateSpec::new(name, about, vars)
}

/// Every template of ACT, with the variables its step gives.
pub static TEMPLATES: [TemplateSpec; 38] = [
    spec(
        "act.speaker",
        "Who is speaking: the block every member's request starts with",
        &[
            req("name", "the member's name"),
            req("initial", "its initial task (subject, then details)"),
            opt("current", "its current task's subject"),
            opt("knowledge", "its expertise and top-c knowledge entries"),
        ],
    ),
    spec(
        "act.member.system",
        "The system prompt of every member's step",
        &[],
    ),
    spec(
        "act.decompose.system",
        "Splitting the task before the team meets",
        &[],
    ),
    spec(
        "act.decompose.user",
        "The task to split, one task per member (JSON)",
        &[
            req("task", "the complex task"),
            req("agents", "how many members").number(),
        ],
    ),
    spec("act.expertise.system", "Agent generation (Table 21)", &[]),
    spec(
        "act.expertise.user",
        "A member's expertise keywords from its task (JSON)",
        &[
            req("name", "the member's name"),
            opt("team", "the team's name"),
            req("task", "its initial task"),
            opt("max", "the most keywords").number(),
        ],
    ),
    spec(
        "act.team.opinion.user",
        "A member's opinion in the team meeting",
        &[WHO, req("draft", "the team's task so far")],
    ),
    spec(
        "act.team.advice.user",
        "A member's advice after hearing every opinion",
        &[
            WHO,
            req("draft", "the team's task so far"),
            req("opinions", "the opinions"),
        ],
    ),
    spec(
        "act.team.fuse.system",
        "The leader who fuses the tasks (Table 22)",
        &[],
    ),
    spec(
        "act.team.fuse.user",
        "The fusion of every member's task into the team's complex task (JSON)",
        &[
            WHO,
            req("opinions", "the opinions"),
            opt("advice", "the advice"),
            TASKS,
            opt("names", "the members' names, \"A, B and C\""),
        ],
    ),
    spec(
        "act.explore.user",
        "Task exploration after a meeting (Table 23, JSON)",
        &[
            WHO,
            opt("team", "the team's name"),
            TEAM_TASK,
            opt(
                "deliverable",
                "what the team delivers (a proposal, a story, …)",
            ),
            req("transcript", "the meeting's transcript"),
        ],
    ),
    spec(
        "act.acquire.system",
        "Knowledge acquisition (Table 24)",
        &[],
    ),
    spec(
        "act.acquire.user",
        "Episodes and knowledge from a meeting, by speaker (JSON)",
        &[
            WHO,
            req("speakers", "the speakers to take notes on"),
            req("transcript", "the meeting's transcript"),
            opt("episodes", "the most episodes per speaker").number(),
            opt("episode_words", "the most words per episode").number(),
            opt("entries", "the most knowledge entries per speaker").number(),
        ],
    ),
    spec(
        "act.break.reflect.user",
        "The reflection before break time: what to deepen, the questions to ask (JSON)",
        &[
            WHO,
            TEAM_TASK,
            req("transcript", "the team meeting's transcript"),
            opt("cap", "the most question / answer pairs of a 1:1").number(),
        ],
    ),
    spec(
        "act.break.followup.user",
        "A member's turn after an expert's answer: a deeper question, or done (JSON)",
        &[
            WHO,
            opt("deepen", "the knowledge to deepen"),
            req("conversation", "the 1:1 so far"),
            opt("left", "how many questions the cap still allows").number(),
        ],
    ),
    spec(
        "act.break.answer.system",
        "The expert consulted in break time",
        &[],
    ),
    spec(
        "act.break.answer.user",
        "The expert's answer to the last question",
        &[
            opt("name", "the expert's name"),
            opt("expertise", "its expertise keywords"),
            opt(
                "task",
                "its task: the knowledge to deepen, and the member's questions",
            ),
            req("conversation", "the 1:1 so far"),
        ],
    ),
    spec(
        "act.production.opinion.user",
        "A member's opinion in the production meeting (Table 25)",
        &[WHO, TEAM_TASK, req("deliverable", "what the team delivers")],
    ),
    spec(
        "act.production.instruct.user",
        "A member's tool sub-tasks (eq. 9, Table 26, JSON)",
        &[
            WHO,
            req(
                "tools",
                "the tools offered with their arguments, and those not offered and why",
            ),
            req("opinion", "its opinion"),
        ],
    ),
    spec(
        "act.production.draft.system",
        "The leader who writes the deliverable",
        &[],
    ),
    spec(
        "act.production.draft.user",
        "The leader's draft from the opinions (a revision also sees the last draft and its issues)",
        &[
            WHO,
            TEAM_TASK,
            TASKS,
            req("deliverable", "what the team delivers"),
            req("opinions", "the members' opinions"),
            opt(
                "revising",
                "true for a revision, which sees the last draft and its issues",
            )
            .flag(),
            opt("draft", "the last draft, when revising"),
            opt("issues", "its issues, when revising"),
            opt(
                "proposal",
                "true when the deliverable is a proposal (the paper's framework)",
            )
            .flag(),
            opt("word_limit", "the task's word limit, if any").number(),
        ],
    ),
    spec(
        "act.production.check.system",
        "The leader who checks the draft",
        &[],
    ),
    spec(
        "act.production.check.user",
        "The leader's check of the draft (JSON)",
        &[WHO, TEAM_TASK, TASKS, req("draft", "the draft")],
    ),
    spec(
        "act.production.reassert.user",
        "A member's opinion restated after the leader's issues",
        &[
            WHO,
            TEAM_TASK,
            req("opinion", "its earlier opinion"),
            req("draft", "the draft"),
            req("issues", "the leader's issues"),
        ],
    ),
    spec(
        "act.plus.rescore.system",
        "ACT+'s re-scoring of stored knowledge",
        &[],
    ),
    spec(
        "act.plus.rescore.user",
        "The stored entries to score again for the new task (JSON)",
        &[
            WHO,
            req("entries", "the entries shown, one line each").number(),
            opt("shown", "how many are shown").number(),
            opt("held", "how many the member holds").number(),
            opt("batch", "how many re-scoring prompts came before this one").number(),
        ],
    ),
    spec(
        "act.judge.system",
        "The LLM judge of the deliverable (Table 27)",
        &[],
    ),
    spec(
        "act.judge.user",
        "The expected components and the output to count them in (JSON)",
        &[
            req("components", "the expected components, numbered"),
            req("output", "the deliverable"),
            opt("n", "how many components").number(),
        ],
    ),
    spec(
        "act.tool_judge.system",
        "A tool task's judge: the question's sub-tasks, each checked (§4.3, App. B)",
        &[],
    ),
    spec(
        "act.tool_judge.user",
        "The question and the output to check its sub-tasks in (JSON)",
        &[
            req("question", "the task's question"),
            req("output", "the deliverable"),
        ],
    ),
    spec(
        "act.single.system",
        "The one-model baselines (standard, CoT, SPP, Self-Refine)",
        &[],
    ),
    spec(
        "act.single.standard.user",
        "The standard baseline's request",
        &[req("task", "the task")],
    ),
    spec(
        "act.single.cot.user",
        "The chain-of-thought baseline's request",
        &[req("task", "the task")],
    ),
    spec(
        "act.single.spp.user",
        "The solo-performance-prompting baseline's request",
        &[req("task", "the task")],
    ),
    spec("act.single.feedback.system", "Self-Refine's reviewer", &[]),
    spec(
        "act.single.feedback.user",
        "Self-Refine's feedback on a draft",
        &[req("task", "the task"), req("draft", "the draft")],
    ),
    spec(
        "act.single.refine.user",
        "Self-Refine's rewrite from the feedback",
        &[
            req("task", "the task"),
            req("draft", "the draft"),
            req("feedback", "the feedback"),
        ],
    ),
    spec(
        "act.ask_again",
        "Added to a request whose JSON reply could not be read, asked once more",
        &[],
    ),
];
