//! The single-agent coordinator: a system prompt and the user's task, one
//! streamed answer.

use crate::engine::model::demo::{general, Reply};
use crate::engine::model::{ChatRequest, ChatResponse, Message};
use crate::engine::run::{Audience, Outcome, RunCtx, RunError};

pub const ID: &str = "single";
pub const AGENT: &str = "assistant";
pub const STEP: &str = "single.answer";
pub const EXAMPLE_TASK: &str =
    "Plan a three-day study schedule for learning the basics of Rust, and estimate 3 * (2 + 4) hours of practice.";

const SYSTEM_PROMPT: &str = "You are a capable, concise assistant. Answer the user's task \
directly. Use Markdown for structure when it helps (short headings, lists, tables). If the task \
is ambiguous, state the assumption you make and continue.";

/// The single agent as a [`crate::engine::run::CoordinatorFn`].
pub fn entry(ctx: &RunCtx) -> futures::future::LocalBoxFuture<'_, Result<Outcome, RunError>> {
    Box::pin(run(ctx))
}

pub async fn run(ctx: &RunCtx) -> Result<Outcome, RunError> {
    let task = ctx.config().task.trim().to_string();
    if task.is_empty() {
        return Err(RunError::new(
            "config",
            "The task is empty. Write what the agent should do, then press Run.",
        ));
    }
    let system = ctx
        .config()
        .options
        .get("system_prompt")
        .and_then(|s| s.as_str())
        .filter(|s| !s.trim().is_empty())
        .unwrap_or(SYSTEM_PROMPT)
        .to_string();
    ctx.add_agent(AGENT, "assistant", "Assistant");
    let response = ctx
        .phase("answer", "Answer", answer(ctx, system, task))
        .await?;
    Ok(Outcome {
        output: Some(response.text),
    })
}

/// The demo model's part: the general answer to the task.
pub fn demo_script(req: &ChatRequest) -> Option<Reply> {
    (req.step.as_deref() == Some(STEP)).then(|| Reply::text(general::answer(req)))
}

/// The one step: the task in, the answer out, both posted.
async fn answer(ctx: &RunCtx, system: String, task: String) -> Result<ChatResponse, RunError> {
    ctx.post("user", Audience::To(vec![AGENT.into()]), &task, None);
    let req = ChatRequest::new(vec![Message::system(system), Message::user(task)]).with_step(STEP);
    let (call, response) = ctx.chat(AGENT, req).await?;
    ctx.post(
        AGENT,
        Audience::To(vec!["user".into()]),
        &response.text,
        Some(call),
    );
    Ok(response)
}
