//! `roundtable run --coordinator mael`: picks the task (built-in or a
//! dataset file, `--task-idx`), the mode, the team and the pool, fills the
//! run's options, and after the run writes the pool back (when it learned).

use super::super::common::Common;
use super::super::flags::Flags;
use super::super::paper::Prepared;
use super::MaelArgs;
use roundtable::engine::coordinators::mael::contract::Mode;
use roundtable::engine::coordinators::mael::memory::Memory;
use roundtable::engine::coordinators::mael::setup::configure;
use roundtable::engine::domains::srdd;
use roundtable::engine::run::config::ModelBinding;
use roundtable::engine::run::{RunConfig, RunCtx};
use std::rc::Rc;

/// The run's pool, written back after it when it learned.
struct Pooled {
    memory: Rc<Memory>,
    save_to: Option<String>,
    /// SRDD: the Python its project runs in.
    projects: Option<Rc<srdd::run::Runner>>,
}

impl Prepared for Pooled {
    fn attach(&self, ctx: &RunCtx) {
        ctx.insert_resource(self.memory.clone());
        ctx.insert_resource(super::python());
        if let Some(p) = &self.projects {
            ctx.insert_resource(p.clone());
        }
    }

    fn finish(&self) -> Result<(), String> {
        match &self.save_to {
            Some(path) => super::write_pool(path, &self.memory),
            None => Ok(()),
        }
    }
}

pub fn prepare(
    f: &Flags,
    common: &Common,
    config: &mut RunConfig,
) -> Result<Box<dyn Prepared>, String> {
    let a = MaelArgs::read(f)?;
    let tasks = a.run_tasks()?;
    let idx = f.number::<usize>("task-idx")?.unwrap_or(0);
    let task = tasks.get(idx).cloned().ok_or_else(|| {
        format!(
            "--task-idx {idx}: the set has {} tasks (0 to {})",
            tasks.len(),
            tasks.len().saturating_sub(1)
        )
    })?;
    let mode = super::mode(f, config.variant.as_deref(), Mode::Step)?;
    let options = a.options(task.clone())?;
    let pool = f.text("pool")?;
    let memory = super::memory(pool.as_deref(), common.embedder()?)?;
    if !config.task.trim().is_empty() {
        // A free task has no gold answer to score: say so.
        return Err("MAEL runs a task of a set with a gold answer: use --dataset (builtin by default) and --task-idx instead of --task".into());
    }
    configure(config, task, mode);
    config.options = serde_json::to_value(&options).map_err(|e| e.to_string())?;
    for agent in &options.team.agents {
        if let Some(model) = &agent.model {
            config.models.push(ModelBinding {
                role: agent.id.clone(),
                spec: roundtable::engine::run::ModelSpec {
                    model: model.clone(),
                    ..common.spec.clone()
                },
            });
        }
    }
    Ok(Box::new(Pooled {
        memory,
        save_to: pool.filter(|_| options.learn),
        projects: a.projects()?,
    }))
}
