//! From findings to a plan: the plan summarizer P_S (no LLM) assembles a
//! brief from G and N; the plan compiler P_C writes the plan and posts it;
//! the plan critic P_R reviews it with P_C for a few rounds.

use super::contract::*;
use super::prompts;
use super::world::{Delivery, Halt, World};
use crate::engine::domains::travel::{parse_plan_text, plan_from_value, Plan};
use crate::engine::model::reply::{read_json, read_value, Repair, RepairKind};
use crate::engine::model::shape::ReplySchema;
use crate::engine::model::ChatRequest;
use crate::engine::run::{Audience, RunCtx, RunError};

/// What the critic said of the latest plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Review {
    Approved,
    /// It listed problems for the compiler to fix.
    Problems,
}

/// P_S: the planning brief (G, and N when the variant keeps a notebook).
pub fn summarize(ctx: &RunCtx, world: &World) -> String {
    let mut brief = world.goal_block();
    if let Some(notebook) = world.notebook_section() {
        brief.push('\n');
        brief.push_str(&notebook);
    }
    ctx.note(
        SUMMARIZER,
        STORE_BRIEF,
        None,
        &serde_json::json!({ "text": brief }),
    );
    ctx.handoff(SUMMARIZER, COMPILER, "planning brief");
    brief
}

/// P_C: writes (or rewrites) the plan from the brief and the conversation,
/// posts it, and records whether it could be read as a plan.
/// `has_plan`: a readable plan was delivered before (a revision that
/// cannot be read keeps it).
pub async fn compile(
    ctx: &RunCtx,
    world: &mut World,
    brief: &str,
    round: u32,
    has_plan: bool,
) -> Result<Delivery, RunError> {
    let days = (world.query.days as usize).clamp(1, 7);
    let mut req = ChatRequest::new(world.messages(
        prompts::compiler_system(&world.prompts)?,
        brief,
        &prompts::compiler_turn(&world.prompts)?,
    ))
    .with_step(STEP_COMPILER)
    // Held to the shape, the plan has exactly the trip's days.
    .with_schema(plan_schema().with_items("plan", days, days));
    // A plan cut short is no plan: the compiler's answer has room for the
    // whole of its shape, whatever the run's longest answer is.
    req.params.max_tokens = Some(plan_room(days));
    let (call, text) = say(ctx, world, COMPILER, req).await?;
    let unread = if has_plan {
        "the previous plan is kept"
    } else {
        "no plan from this reply"
    };
    Ok(record_plan(ctx, COMPILER, round, (call, &text), unread))
}

/// The tokens a compiler's answer may take for a plan of `days` days: a
/// day of the shape is at most ~1,200 characters (its texts' bounds and
/// its keys), its notes 1,500; at three characters a token or more.
pub fn plan_room(days: usize) -> u32 {
    const DAY_TOKENS: u32 = 400;
    const NOTES_TOKENS: u32 = 500;
    DAY_TOKENS * days.clamp(1, 7) as u32 + NOTES_TOKENS
}

/// A day's keys in the order the evaluator (and the prompt) lists them.
const DAY_KEYS: [&str; 8] = [
    "days",
    "current_city",
    "transportation",
    "breakfast",
    "attraction",
    "lunch",
    "dinner",
    "accommodation",
];

/// The compiler's reply shape, made from [`PlanReply`]: the plan first,
/// each day's keys in the evaluator's order.
pub fn plan_schema() -> ReplySchema {
    ReplySchema::of::<PlanReply>(STEP_COMPILER)
        .in_order(&["plan", "notes"])
        .in_order_at("/properties/plan/items", &DAY_KEYS)
}

/// Asks `agent`, and posts its reply (trimmed) to the conversation: the
/// call and the text.
async fn say(
    ctx: &RunCtx,
    world: &mut World,
    agent: &str,
    req: ChatRequest,
) -> Result<(u32, String), RunError> {
    let (call, response) = ctx.chat(agent, req).await?;
    let text = response.text.trim().to_string();
    ctx.post(agent, Audience::Public, &text, Some(call));
    world.post(agent, &text);
    Ok((call, text))
}

/// P_R and P_C in turn: the critic reviews the latest plan and, unless it
/// approves, the compiler revises it. A revision that cannot be read does
/// not replace a readable plan. Each review and each revision is a step.
pub async fn critic_rounds(
    ctx: &RunCtx,
    world: &mut World,
    brief: &str,
    rounds: u32,
    latest: &mut Delivery,
) -> Result<(), Halt> {
    for round in 1..=rounds {
        world.take_step()?;
        if critique(ctx, world).await? == Review::Approved {
            break;
        }
        world.take_step()?;
        let revised = compile(ctx, world, brief, round, latest.is_ok()).await?;
        if revised.is_ok() || latest.is_err() {
            *latest = revised;
        }
    }
    Ok(())
}

/// P_R: reviews the latest plan in the conversation.
pub async fn critique(ctx: &RunCtx, world: &mut World) -> Result<Review, RunError> {
    ctx.handoff(COMPILER, CRITIC, "review the plan");
    let req = ChatRequest::new(world.messages(
        prompts::critic_system(&world.prompts)?,
        &world.goal_block(),
        &prompts::critic_turn(&world.prompts)?,
    ))
    .with_step(STEP_CRITIC)
    .with_schema(critic_schema());
    let (call, text) = say(ctx, world, CRITIC, req).await?;
    let (review, repairs) = read_review(&text);
    ctx.repaired(call, &repairs);
    if review == Review::Approved {
        return Ok(Review::Approved);
    }
    ctx.handoff(CRITIC, COMPILER, "fix the problems found");
    Ok(Review::Problems)
}

/// The critic's reply shape, made from [`CriticReply`].
pub fn critic_schema() -> ReplySchema {
    ReplySchema::of::<CriticReply>(STEP_CRITIC)
        .in_order(&["summary", "problems", "approved"])
        .with_agreeing("approved", "problems")
}

/// The critic's verdict and what reading it needed: its JSON object
/// approves only with no problem listed (approved with problems, or with
/// an empty list and not approved, is flagged and taken as problems); a
/// reply without that object (a recorded run's prose, a provider that
/// ignored the shape) is read by its `APPROVED` line and flagged; an empty
/// one is not approved, flagged.
pub fn read_review(text: &str) -> (Review, Vec<Repair>) {
    if text.trim().is_empty() {
        let why = "the critic's reply was empty: taken as not approved";
        return (
            Review::Problems,
            vec![Repair::new(RepairKind::Default, why)],
        );
    }
    if let Ok(read) = read_json::<CriticReply>(text) {
        let mut repairs = read.repairs;
        let r = read.value;
        let review = if r.approved && r.problems.is_empty() {
            Review::Approved
        } else {
            Review::Problems
        };
        if r.approved && !r.problems.is_empty() {
            repairs.push(Repair::new(
                RepairKind::Shape,
                format!(
                    "approved, yet {} problem(s) listed: taken as not approved",
                    r.problems.len()
                ),
            ));
        } else if !r.approved && r.problems.is_empty() {
            repairs.push(Repair::new(
                RepairKind::Shape,
                "not approved, yet no problem listed: the compiler is asked to check the plan again",
            ));
        }
        repairs.retain(|r| !matches!(r.kind, RepairKind::Fence | RepairKind::AroundText));
        return (review, repairs);
    }
    let approved = text
        .lines()
        .any(|l| l.trim().trim_matches(|c: char| !c.is_alphanumeric()) == APPROVED);
    let verdict = if approved {
        "an APPROVED line"
    } else {
        "no APPROVED line: the problems in its text"
    };
    let review = if approved {
        Review::Approved
    } else {
        Review::Problems
    };
    let why = format!("the review was not a JSON object: read by its text ({verdict})");
    (review, vec![Repair::new(RepairKind::Shape, why)])
}

/// Reads a plan out of `agent`'s answer (the reply of LLM call `call`)
/// and records the attempt (the plan, or why it is not one) as round
/// `round` of the plan store. What reading it needed is recorded against
/// the call: nothing for a JSON list of days (bare or in the ```json block
/// the prompt asks for); the reader's repairs; a [`RepairKind::Shape`]
/// repair for a plan read from text that is not JSON; a
/// [`RepairKind::Default`] one for no plan (`unread` says what then holds).
/// A plan read without repair from a reply that does not fit the shape
/// its step asked for (a day missing a key) is flagged by
/// [`RunCtx::repaired`].
pub fn record_plan(
    ctx: &RunCtx,
    agent: &str,
    round: u32,
    (call, text): (u32, &str),
    unread: &str,
) -> Delivery {
    let delivery = parse_plan_text(text);
    let record = PlanRecord {
        round,
        plan: delivery.as_ref().ok().map(|p| p.to_json()),
        not_delivered: delivery.as_ref().err().map(|e| e.reason.clone()),
    };
    let repairs = match &delivery {
        Ok(plan) => plan_repairs(text, plan),
        Err(e) => vec![Repair::new(
            RepairKind::Default,
            format!("no plan could be read ({}): {unread}", e.reason),
        )],
    };
    ctx.repaired(call, &repairs);
    ctx.note(agent, STORE_PLAN, Some(&format!("round {round}")), &record);
    delivery
}

/// What reading `plan` out of `text` needed: the JSON reader's repairs on
/// the value that is the plan, without the fence and the text around it
/// (the prompt asks for a ```json block in prose); a plan read from text
/// that is not JSON (a "Day 1:" list) is another shape.
fn plan_repairs(text: &str, plan: &Plan) -> Vec<Repair> {
    let is_plan = |v: &serde_json::Value| plan_from_value(v).ok().as_ref() == Some(plan);
    let read = read_value(text)
        .ok()
        .filter(|r| is_plan(&r.value))
        .or_else(|| {
            read_json::<Vec<serde_json::Value>>(text)
                .ok()
                .map(|r| r.map(serde_json::Value::Array))
                .filter(|r| is_plan(&r.value))
        });
    match read {
        Some(r) => {
            // The compiler's shape is `{"plan": [...], ...}`; a bare list
            // of days is what the solo agent (and older runs) write.
            let wrapped = match &r.value {
                serde_json::Value::Array(_) => false,
                serde_json::Value::Object(o) => !o.contains_key("plan"),
                _ => true,
            };
            let mut repairs: Vec<Repair> = r
                .repairs
                .into_iter()
                .filter(|r| !matches!(r.kind, RepairKind::Fence | RepairKind::AroundText))
                .collect();
            if wrapped {
                repairs.push(Repair::new(
                    RepairKind::Shape,
                    "the plan was neither a list of days nor under \"plan\": the list inside it was taken",
                ));
            }
            repairs
        }
        None => vec![Repair::new(
            RepairKind::Shape,
            "the plan was not a JSON list of days: it was read from its text",
        )],
    }
}
