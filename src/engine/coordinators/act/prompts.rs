//! ACT's prompts, written for Roundtable after the structure of the
//! paper's appendix (Tables 21–27) and its method section for the steps it
//! gives no prompt for. Each returns the system message and the user
//! message; the user message is a list of `# Heading` sections (contract)
//! and ends with one instruction paragraph (steps on lines of their own, no
//! blank line: the demo model reads its numbers there).

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

/// Agent generation (Table 21): the agent, the team it belongs to (by its
/// name) and its task; up to `max` expertise keywords.
pub fn expertise(name: &str, team: &str, task: &AgentTask, max: usize) -> Prompt {
    (
        "You define what an agent knows before it starts working.".into(),
        format!(
            "{H_NAME}\n{name}, in the team {team}\n\n{H_INITIAL}\n{}\n\n{name} is a member of the team {team}, which is designing a complex task together, and has taken on the task above (its subject, then its details). Given that task, what expertise does {name} bring? List up to {max} expertise keywords: short noun phrases, most useful first.\nReply with JSON: {{\"expertise\": [\"...\"]}}",
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

/// The leader's fusion (Table 22): the opinions, its knowledge, the advice,
/// then every member's task; G's subject is every member's subject with
/// what connects them, its detail every member's details likewise, and a
/// description that integrates both.
pub fn fuse(s: &Speaker, tasks: &[(String, AgentTask)], opinions: &str, advice: &str) -> Prompt {
    let names: Vec<&str> = tasks.iter().map(|(n, _)| n.as_str()).collect();
    (
        "You lead a design team. You fuse its members' tasks into one feasible complex task.".into(),
        format!(
            "{}\n\n{H_OPINIONS}\n{opinions}\n\n{H_ADVICE}\n{advice}\n\n{H_TASKS}\n{}\n\nDesign the team's complex task from these tasks so that the team can carry it out: fuse them, do not set them side by side.\n1. Subject: give the subjects of {}, in that order and each kept in substance, and add the information that connects them (a bridge between one subject and the next, or a framing sentence before or after them), drawn from the opinions and the advice, so that they read as the subjects of one task.\n2. Detail: do the same with every member's details: all of them, with connecting information between or around them.\n3. Description: merge the fused subject and detail into one description of the complex task that every member can understand and act on.\nReply with JSON: {{\"subject\": \"every member's subject, connected\", \"detail\": \"every member's details, connected\", \"description\": \"the complex task as one description\"}}",
            who(s),
            task_list(tasks),
            and_list(&names)
        ),
    )
}

/// Members' tasks as the fuse, draft and check prompts show them: "- Name:
/// subject", then each detail indented on a line of its own.
pub fn task_list(tasks: &[(String, AgentTask)]) -> String {
    tasks
        .iter()
        .map(|(name, t)| {
            let mut s = format!("- {name}: {}", t.subject);
            for d in &t.details {
                s.push_str(&format!("\n  {d}"));
            }
            s
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// "A", "A and B", "A, B and C".
fn and_list(items: &[&str]) -> String {
    match items {
        [] => "every member".into(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Task exploration (Table 23): benefits and a persona, daily-life scenes,
/// the specified task, the meeting's issues, an insight from outside the
/// agent's specialty, and the task reflected in the deliverable.
pub fn explore(
    s: &Speaker,
    team: &str,
    team_task: &str,
    deliverable: &str,
    transcript: &str,
) -> Prompt {
    (
        MEMBER.into(),
        format!(
            "{}\n\n{H_TEAM_TASK}\n{team_task}\n\n{H_TRANSCRIPT}\n{transcript}\n\nYou are a member of the team {team}; the complex task above is your team's mission. Your current task is the specified task through which you fulfil your initial task. Improve it after this meeting, step by step:\n1. Benefits and persona: what does fulfilling your initial task give people? Picture the person (persona) who receives that benefit.\n2. Daily-life scenes: picture moments of that persona's everyday life where the benefit helps: what happens, when, and how.\n3. Specified task: within those scenes, devise the task that suits the persona, and the experience it gives them.\n4. Issues: for each issue the meeting raised about your current task, build a remedy into the task.\n5. Outside insight: use your knowledge, including what others taught you, to bring in an idea from outside your own specialty.\n6. Proposal: above all, the task must fulfil your initial task and be reflected in the team's {deliverable}; take in feedback without drifting from your initial task (if nothing needs to change, keep your current task).\nReply with JSON: {{\"persona\": \"...\", \"scenes\": \"...\", \"task\": \"your specified task, said plainly in one sentence\"}}",
            who(s)
        ),
    )
}

/// Knowledge acquisition (Table 24): a worked example, then episodes, at
/// least one brief summary per episode, keywords, the source apart from
/// the speaker, and importance judged from the agent's expertise.
pub fn acquire(s: &Speaker, speakers: &[String], transcript: &str, limits: &Limits) -> Prompt {
    (
        "You keep notes on what other people in a meeting said that can help your work.".into(),
        format!(
            "{}\n\n{H_SPEAKERS}\n{}\n\n{H_EXAMPLE}\n{ACQUISITION_EXAMPLE}\n\n{H_TRANSCRIPT}\n{transcript}\n\nThe meeting is over. Turn what the speakers listed said into memory, as people do: first episodes, then knowledge general enough to reuse, shaped like the worked example.\n1. Episodes: for each speaker listed (never yourself), write up to {} episodes of at most {} words each: what the speaker did, and how they behaved.\n2. Brief summaries: write at least one brief summary per episode, from what the episode rests on, in the form \"<subject> is <definition>. <more explanation>\"; keep at most {} entries per speaker.\n3. Keywords: two to four per summary, to find it again later.\n4. Source: who the information came from: the speaker, or whoever the speaker passed it on from (the speaker stays in \"subject\").\n5. Importance: 0 to 10, judged from your expertise: how much the entry is worth to your task, and how likely you are to reuse it.\nGroup the entries by speaker.\nReply with JSON: {{\"episodes\": [{{\"subject\": \"speaker name\", \"text\": \"...\"}}], \"knowledge\": [{{\"subject\": \"speaker name\", \"summary\": \"...\", \"keywords\": [\"...\"], \"source\": \"...\", \"importance\": 7}}]}}",
            who(s),
            speakers.join(", "),
            limits.episodes,
            limits.episode_words,
            limits.entries
        ),
    )
}

/// The acquisition prompt's worked example: a line of a meeting, and the
/// episode and entry it becomes (the speaker passes on someone else's
/// knowledge, so its source is not the speaker).
const ACQUISITION_EXAMPLE: &str = r#"Said in a meeting: "Mia: Omar at the bakery told me sourdough stays fresh longer because its acidity slows mould, so we could sell half-loaves to people who live alone."
Noted by a member working on a cafe's bread menu (speaker Mia, source Omar; important to that task, so 8):
{"episodes": [{"subject": "Mia", "text": "Mia proposed sourdough half-loaves for people living alone, passing on Omar's point about shelf life, briefly and practically."}], "knowledge": [{"subject": "Mia", "summary": "Sourdough is bread raised by a starter of wild yeast and lactic bacteria. Its acidity slows mould, so it keeps longer than bread made with baker's yeast.", "keywords": ["sourdough", "shelf life", "bread leavening"], "source": "Omar", "importance": 8}]}"#;

/// The member's reflection before break time (§3.5 (1)): what it lacks,
/// one topic to deepen, and the questions it will put to the expert (at
/// most `cap`, the pairs a 1:1 allows: they are asked in order, then
/// deeper ones while the cap allows).
pub fn reflect(s: &Speaker, team_task: &str, transcript: &str, cap: usize) -> Prompt {
    let how_many = if cap == 1 {
        "your question".to_string()
    } else {
        format!("the questions you want to ask about it (at most {cap}, the most important first: the expert answers them in this order, and after the answers you may ask deeper ones)")
    };
    (
        MEMBER.into(),
        format!(
            "{}\n\n{H_TEAM_TASK}\n{team_task}\n\n{H_TRANSCRIPT}\n{transcript}\n\nIt is break time. Reflect: did your task contribute to the team's complex task in the meeting? What knowledge do you lack? Name one topic to deepen with an expert and {how_many}.\nReply with JSON: {{\"reflection\": \"...\", \"deepen\": \"the topic\", \"questions\": [\"...\"]}}",
            who(s)
        ),
    )
}

/// The member's turn after an answer in break time: one more, deeper
/// question, or done. `left` is how many questions the cap still allows
/// (at least one: the turn is not asked when none is left).
pub fn followup(s: &Speaker, deepen: &str, conversation: &str, left: usize) -> Prompt {
    let more = if left == 1 {
        "one more question".to_string()
    } else {
        format!("up to {left} more questions, one at a time")
    };
    (
        MEMBER.into(),
        format!(
            "{}\n\n{H_DEEPEN}\n{deepen}\n\n{H_CONVERSATION}\n{conversation}\n\nRead the expert's last answer. Is anything still unclear or missing for your task? If so, ask one further, deeper question that builds on the answers so far; if not, say you are done. You may ask {more}.\nReply with JSON: {{\"question\": \"...\"}} to ask, or {{\"done\": true}} when you have no further questions",
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

/// A production-meeting opinion (Table 25): solution, contribution,
/// elements for the deliverable, and how they fit it with coherence and
/// synergy.
pub fn production_opinion(s: &Speaker, team_task: &str, deliverable: &str) -> Prompt {
    (
        MEMBER.into(),
        format!(
            "{}\n\n{H_TEAM_TASK}\n{team_task}\n\n{H_DELIVERABLE}\n{deliverable}\n\nThe team now writes its {deliverable}; the leader decides it from the members' opinions. Say which elements you want in it, step by step:\n1. Solution: give your solution to your current task (how you fulfil your initial task).\n2. Contribution: say how that solution contributes to the team's complex task above, and argue for it.\n3. Elements: name the specific elements (items, products, services) from your solution that the {deliverable} must include, concretely, for the leader to bring the opinions together.\n4. Coherence and synergy: say how each part of your solution fits into the {deliverable} as a whole, so that it hangs together with the other members' parts and strengthens them.\nUse your knowledge, and end with your plan for carrying out the team's complex task, stated clearly.",
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

/// The leader's draft of the deliverable from the opinions (a revision also
/// sees the last draft and its issues); a proposal is laid out in the
/// paper's proposal framework.
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
    let layout = if task.deliverable.to_lowercase().contains("proposal") {
        PROPOSAL_FRAMEWORK
    } else {
        ""
    };
    (
        "You lead a design team and write its deliverable from the members' opinions.".into(),
        format!(
            "{}\n\n{H_TEAM_TASK}\n{team_task}\n\n{H_TASKS}\n{tasks}\n\n{H_DELIVERABLE}\n{}\n\n{H_OPINIONS}\n{opinions}{revise}\n\nWrite the team's {} from these opinions.{layout}\nCover every member's initial task, make it serve the complex task, keep it clear.{limit}",
            who(s),
            task.deliverable,
            task.deliverable
        ),
    )
}

/// How the leader lays out a proposal (the paper's proposal framework).
const PROPOSAL_FRAMEWORK: &str = " Lay it out in these parts, in this order:\n1. Service name.\n2. Target persona: who it is for, and what they need.\n3. Executive summary: the service and its value, as the complex task describes it.\n4. Specific offerings: concrete ones, from the elements the members named, at least one for each member's initial task.\n5. Revenue model: how the service earns money.";

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

/// ACT+'s re-scoring: the `shown` entries (of the `held` the agent
/// keeps) scored again for the new task; `batch` counts the prompts
/// before this one (entries already re-scored are not shown again).
pub fn rescore(s: &Speaker, entries: &str, shown: usize, held: usize, batch: usize) -> Prompt {
    let which = match (batch, shown < held) {
        (0, false) => String::new(),
        (0, true) => format!(" These are the {shown} of your {held} entries that ranked highest so far; more may follow."),
        _ => format!(" These are the next {shown} of your {held} entries by their old scores; those you re-scored already are not shown again."),
    };
    (
        "You review your notes for a new task.".into(),
        format!(
            "{}\n\n{H_ENTRIES}\n{entries}\n\nYou have a new task. Score each stored entry above again from 0 to 10: how much it helps your new task, and how likely you are to reuse it.{which}\nReply with JSON, one item for each entry: {{\"scores\": [{{\"id\": \"<id>\", \"score\": 7}}]}}",
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
            "{H_COMPONENTS}\n{}\n\n{H_OUTPUT}\n{output}\n\nCount the expected components the output contains, in its words or in meaning (alternatives of a component are separated by \" | \"; any of them counts). An output with none of them scores 0; one with all {n} scores {n}, the number of expected components. Reply with one JSON object: {{\"reasoning\": \"which components are there, briefly\", \"score\": N}}, N the count (0 to {n}).",
            list.join("\n"),
            n = components.len()
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

#[cfg(test)]
mod tests;
