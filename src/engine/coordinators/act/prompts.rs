//! ACT's prompts, written for Roundtable after the structure of the
//! paper's appendix (Tables 21–27) and its method section for the steps it
//! gives no prompt for. Each returns the system message and the user
//! message; the user message is a list of `# Heading` sections (contract).

use super::contract::*;
use crate::engine::domains::creative::ComplexTask;

/// Who is speaking, as a prompt shows them.
pub struct Speaker {
    pub name: String,
    pub expertise: Vec<String>,
    pub initial: AgentTask,
    pub current: AgentTask,
    /// The knowledge block (expertise + top-c), or None when the variant
    /// gives no knowledge beyond the expertise.
    pub knowledge: String,
}

fn task_text(t: &AgentTask) -> String {
    if t.details.is_empty() {
        t.subject.clone()
    } else {
        format!("{}\n{}", t.subject, t.details.join("\n"))
    }
}

fn who(s: &Speaker) -> String {
    format!(
        "{H_NAME}\n{}\n\n{H_INITIAL}\n{}\n\n{H_CURRENT}\n{}\n\n{H_KNOWLEDGE}\n{}",
        s.name,
        task_text(&s.initial),
        s.current.subject,
        s.knowledge
    )
}

pub type Prompt = (String, String);

const MEMBER: &str = "You are a member of a small design team. Speak for your own task, use your knowledge, stay concrete and brief.";

pub fn decompose(task: &str, agents: usize) -> Prompt {
    (
        "You plan the work of a team before it meets.".into(),
        format!(
            "{H_TEAM_TASK}\n{task}\n\nClarify what the task asks for, then split it into exactly {agents} distinct tasks that overlap as little as possible, one per team member. Each has a short subject and the details it must respect.\nReply with JSON: {{\"tasks\": [{{\"subject\": \"...\", \"details\": [\"...\"]}}]}}"
        ),
    )
}

pub fn expertise(name: &str, team: &str, task: &AgentTask, max: usize) -> Prompt {
    (
        "You define what an agent knows before it starts working.".into(),
        format!(
            "{H_NAME}\n{name}, in {team}\n\n{H_INITIAL}\n{}\n\nList up to {max} expertise keywords this agent needs for its task: short noun phrases, most useful first.\nReply with JSON: {{\"expertise\": [\"...\"]}}",
            task_text(task)
        ),
    )
}

pub fn team_opinion(s: &Speaker, draft: &str) -> Prompt {
    (
        MEMBER.into(),
        format!(
            "{}\n\n{H_TEAM_TASK}\n{draft}\n\nThe team is designing its complex task. Explain in a few sentences how your task contributes to it and what it should include.",
            who(s)
        ),
    )
}

pub fn team_advice(s: &Speaker, draft: &str, opinions: &str) -> Prompt {
    (
        MEMBER.into(),
        format!(
            "{}\n\n{H_TEAM_TASK}\n{draft}\n\n{H_OPINIONS}\n{opinions}\n\nYou have heard every opinion. Using your knowledge, advise how to refine the team's complex task so that it is feasible and hangs together. Two or three sentences.",
            who(s)
        ),
    )
}

pub fn fuse(s: &Speaker, tasks: &str, opinions: &str, advice: &str) -> Prompt {
    (
        "You lead a design team. You fuse its members' tasks into one feasible complex task.".into(),
        format!(
            "{}\n\n{H_TASKS}\n{tasks}\n\n{H_OPINIONS}\n{opinions}\n\n{H_ADVICE}\n{advice}\n\nDesign the team's complex task from the point of view of feasibility. Fuse the tasks rather than listing them side by side: add whatever connects them. Keep every member's subject and details in it.\nReply with JSON: {{\"subject\": \"one sentence\", \"detail\": \"the fused details\", \"description\": \"how the parts work together\"}}",
            who(s)
        ),
    )
}

pub fn explore(s: &Speaker, team_task: &str, transcript: &str) -> Prompt {
    (
        MEMBER.into(),
        format!(
            "{}\n\n{H_TEAM_TASK}\n{team_task}\n\n{H_TRANSCRIPT}\n{transcript}\n\nAfter this meeting, restate your current task so that it serves the team's complex task better. Stay close to your initial task: sharpen it, do not replace it. If it needs no change, repeat it.\nReply with JSON: {{\"task\": \"your specified task in one sentence\"}}",
            who(s)
        ),
    )
}

pub fn acquire(s: &Speaker, speakers: &[String], transcript: &str, limits: &Limits) -> Prompt {
    (
        "You keep notes on what other people in a meeting said that can help your work.".into(),
        format!(
            "{}\n\n{H_SPEAKERS}\n{}\n\n{H_TRANSCRIPT}\n{transcript}\n\nFor each speaker listed (never yourself), write up to {} episodes of at most {} words each (what the speaker did and how they behaved), and up to {} knowledge entries: a brief summary in the form \"<subject> is <definition>. <more>\", two to four keywords, and an importance from 0 to 10 for your task and for later reuse.\nReply with JSON: {{\"episodes\": [{{\"subject\": \"speaker name\", \"text\": \"...\"}}], \"knowledge\": [{{\"subject\": \"speaker name\", \"summary\": \"...\", \"keywords\": [\"...\"], \"importance\": 7}}]}}",
            who(s),
            speakers.join(", "),
            limits.episodes,
            limits.episode_words,
            limits.entries
        ),
    )
}

pub fn reflect(s: &Speaker, team_task: &str, transcript: &str) -> Prompt {
    (
        MEMBER.into(),
        format!(
            "{}\n\n{H_TEAM_TASK}\n{team_task}\n\n{H_TRANSCRIPT}\n{transcript}\n\nIt is break time. Reflect: did your task contribute to the team's complex task in the meeting? What knowledge do you lack? Name one topic to deepen with an expert and your first question.\nReply with JSON: {{\"reflection\": \"...\", \"deepen\": \"the topic\", \"questions\": [\"...\"]}}",
            who(s)
        ),
    )
}

pub fn followup(s: &Speaker, deepen: &str, conversation: &str) -> Prompt {
    (
        MEMBER.into(),
        format!(
            "{}\n\n{H_DEEPEN}\n{deepen}\n\n{H_CONVERSATION}\n{conversation}\n\nDo you have a further, deeper question for the expert? Ask it, or say you have none.\nReply with JSON: {{\"question\": \"...\"}} or {{\"done\": true}}",
            who(s)
        ),
    )
}

pub fn answer(name: &str, expertise: &[String], task: &AgentTask, conversation: &str) -> Prompt {
    (
        "You are an expert consulted one to one. Answer from your expertise, concretely and briefly.".into(),
        format!(
            "{H_NAME}\n{name}\n\n{H_EXPERTISE}\n{}\n\n{H_INITIAL}\n{}\n\n{H_CONVERSATION}\n{conversation}\n\nAnswer the last question.",
            expertise.join(", "),
            task_text(task)
        ),
    )
}

pub fn production_opinion(s: &Speaker, team_task: &str, deliverable: &str) -> Prompt {
    (
        MEMBER.into(),
        format!(
            "{}\n\n{H_TEAM_TASK}\n{team_task}\n\n{H_DELIVERABLE}\n{deliverable}\n\nThe team now writes its {deliverable}. First write your solution to your current task, then how it contributes to the team's complex task, then the concrete content you want in the {deliverable}, using your knowledge.",
            who(s)
        ),
    )
}

pub fn instruct(s: &Speaker, opinion: &str, tools: &[String]) -> Prompt {
    (
        MEMBER.into(),
        format!(
            "{}\n\n{H_TOOLS}\n{}\n\n{H_DRAFT}\n{opinion}\n\nIf a tool would improve your contribution, plan at most three sub-tasks, each on a different tool.\nReply with JSON: {{\"subtasks\": [{{\"tool\": \"...\", \"input\": \"...\"}}]}}",
            who(s),
            tools.join(", ")
        ),
    )
}

pub fn draft(
    s: &Speaker,
    task: &ComplexTask,
    team_task: &str,
    tasks: &str,
    opinions: &str,
    issues: Option<(&str, &str)>,
) -> Prompt {
    let limit = task
        .word_limit
        .map(|w| format!(" Stay within {w} words."))
        .unwrap_or_default();
    let revise = issues
        .map(|(draft, issues)| format!("\n\n{H_DRAFT}\n{draft}\n\n{H_ISSUES}\n{issues}"))
        .unwrap_or_default();
    (
        "You lead a design team and write its deliverable from the members' opinions.".into(),
        format!(
            "{}\n\n{H_TEAM_TASK}\n{team_task}\n\n{H_TASKS}\n{tasks}\n\n{H_DELIVERABLE}\n{}\n\n{H_OPINIONS}\n{opinions}{revise}\n\nWrite the team's {} from these opinions. Cover every member's initial task, make it serve the complex task, keep it clear.{limit}",
            who(s),
            task.deliverable,
            task.deliverable
        ),
    )
}

pub fn check(s: &Speaker, team_task: &str, tasks: &str, draft: &str) -> Prompt {
    (
        "You lead a design team and check its draft before it is handed in.".into(),
        format!(
            "{}\n\n{H_TEAM_TASK}\n{team_task}\n\n{H_TASKS}\n{tasks}\n\n{H_DRAFT}\n{draft}\n\nCheck the draft: does it answer every member's initial task, contribute to the complex task, and read clearly? List the issues, if any.\nReply with JSON: {{\"ok\": true|false, \"issues\": [\"...\"]}}",
            who(s)
        ),
    )
}

pub fn reassert(s: &Speaker, team_task: &str, opinion: &str, draft: &str, issues: &str) -> Prompt {
    (
        MEMBER.into(),
        format!(
            "{}\n\n{H_TEAM_TASK}\n{team_task}\n\n{H_OPINIONS}\n{opinion}\n\n{H_DRAFT}\n{draft}\n\n{H_ISSUES}\n{issues}\n\nThe leader found these issues in the draft. Restate your opinion (above: what you said before) so that the next draft fixes them, using your knowledge.",
            who(s)
        ),
    )
}

pub fn rescore(s: &Speaker, entries: &str) -> Prompt {
    (
        "You review your notes for a new task.".into(),
        format!(
            "{}\n\n{H_ENTRIES}\n{entries}\n\nScore each stored entry again from 0 to 10 for your new task and for later reuse.\nReply with JSON: {{\"scores\": {{\"<id>\": 7}}}}",
            who(s)
        ),
    )
}

pub fn judge(output: &str, components: &[String]) -> Prompt {
    let list: Vec<String> = components
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{}. {c}", i + 1))
        .collect();
    (
        "You grade a team's deliverable against the components it was expected to contain.".into(),
        format!(
            "{H_COMPONENTS}\n{}\n\n{H_OUTPUT}\n{output}\n\nCount the expected components the output contains, in its words or in meaning (alternatives of a component are separated by \" | \"; any of them counts). Explain briefly, then end with \"Score: N\" (0 to {}).",
            list.join("\n"),
            components.len()
        ),
    )
}

pub fn single(step: &str, task: &ComplexTask) -> Prompt {
    let ask = &task.text;
    let body = match step {
        STEP_COT => format!("{H_TEAM_TASK}\n{ask}\n\nFirst plan step by step how to meet every requirement (write \"Plan:\"), then write the result after \"Final answer:\"."),
        STEP_SPP => format!("{H_TEAM_TASK}\n{ask}\n\nWork as a group of personas you imagine: name the personas the task needs, let each contribute what it knows in a short discussion, let them check the draft together, then write the result after \"Final answer:\". For example, for a story that must mention a capital and a composer, a geographer and a music historian would each supply their answer before the story is written."),
        _ => format!("{H_TEAM_TASK}\n{ask}"),
    };
    ("You write what is asked, well and completely.".into(), body)
}

pub fn self_feedback(task: &ComplexTask, draft: &str) -> Prompt {
    (
        "You review a draft against its task.".into(),
        format!(
            "{H_TEAM_TASK}\n{}\n\n{H_DRAFT}\n{draft}\n\nList what the draft misses or gets wrong, briefly.",
            task.text
        ),
    )
}

pub fn self_refine(task: &ComplexTask, draft: &str, feedback: &str) -> Prompt {
    (
        "You write what is asked, well and completely.".into(),
        format!(
            "{H_TEAM_TASK}\n{}\n\n{H_DRAFT}\n{draft}\n\n{H_FEEDBACK}\n{feedback}\n\nRewrite the draft to fix the feedback. Reply with the new version only.",
            task.text
        ),
    )
}
