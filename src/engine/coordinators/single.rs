//! The single-agent coordinator: a system prompt and the user's task, one
//! streamed answer.

use crate::engine::model::demo::{general, Reply};
use crate::engine::model::{ChatRequest, ChatResponse, Message};
use crate::engine::prompts::{vars, Prompts, TemplateSpec};
use crate::engine::run::{Audience, Outcome, RunCtx, RunError};

pub const ID: &str = "single";
pub const AGENT: &str = "assistant";
pub const STEP: &str = "single.answer";
pub const EXAMPLE_TASK: &str =
    "Plan a three-day study schedule for learning the basics of Rust, and estimate 3 * (2 + 4) hours of practice.";

/// The default template (`roundtable prompts --coordinator single`).
pub const DEFAULTS: &str = include_str!("single.prompts");

/// The single agent's one template.
pub static TEMPLATES: [TemplateSpec; 1] = [TemplateSpec::new(
    "single.system",
    "The assistant's system prompt; the user's task follows as it is",
    &[],
)];

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
    let options = &ctx.config().options;
    let prompts = Prompts::new(DEFAULTS, &TEMPLATES, &ctx.config().prompts)?;
    // `system_prompt` (runs written before templates) still sets it.
    let system = match options
        .get("system_prompt")
        .and_then(|s| s.as_str())
        .filter(|s| !s.trim().is_empty())
    {
        Some(s) => s.to_string(),
        None => prompts.render("single.system", vars! {})?,
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_template_is_declared_and_renders() {
        let p = Prompts::new(DEFAULTS, &TEMPLATES, &Default::default()).expect("valid");
        let s = p.render("single.system", vars! {}).expect("rendered");
        assert!(
            s.starts_with("You are a capable, concise assistant."),
            "{s}"
        );
    }
}
