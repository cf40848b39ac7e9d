//! `roundtable run --coordinator mael`: picks the task (built-in or a
//! dataset file, `--task-idx`), the mode, the team and the pool, fills the
//! run's options, and after the run writes the pool back (when it learned).

use crate::cli::args::RunArgs;
use roundtable::engine::coordinators::mael::memory::Memory;
use roundtable::engine::coordinators::mael::setup::configure;
use roundtable::engine::domains::tasks::builtin::Split;
use roundtable::engine::run::config::ModelBinding;
use roundtable::engine::run::RunConfig;
use std::rc::Rc;

pub struct Prepared {
    pub memory: Rc<Memory>,
    /// Where to write the pool after the run (`--pool`, when it learns).
    pub save_to: Option<String>,
}

pub fn prepare(
    a: &RunArgs,
    config: &mut RunConfig,
    key: Option<String>,
) -> Result<Prepared, String> {
    let tasks = super::tasks(a, Split::Test)?;
    let idx = a.task_idx.unwrap_or(0) as usize;
    let task = tasks.get(idx).cloned().ok_or_else(|| {
        format!(
            "--task-idx {idx}: the set has {} tasks (0 to {})",
            tasks.len(),
            tasks.len().saturating_sub(1)
        )
    })?;
    let mode = super::mode(a)?;
    let options = super::options(a, task.clone())?;
    let spec = config
        .model_for("*")
        .cloned()
        .unwrap_or_else(roundtable::engine::run::ModelSpec::demo);
    let embedder = super::embedder(a, &spec, key)?;
    let memory = super::memory(a.pool.as_deref(), embedder)?;
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
                    ..spec.clone()
                },
            });
        }
    }
    Ok(Prepared {
        memory,
        save_to: a.pool.clone().filter(|_| options.learn),
    })
}

impl Prepared {
    pub fn finish(&self) -> Result<(), String> {
        match &self.save_to {
            Some(path) => super::write_pool(path, &self.memory),
            None => Ok(()),
        }
    }
}
