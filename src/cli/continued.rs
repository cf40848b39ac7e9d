//! `roundtable run --continue FILE`: finishes a run that stopped (a signal,
//! a Stop, a failed call) as the page's Continue does. Its completed calls
//! are answered from its file at no cost; the rest go to the model — the
//! run's own (its provider and model, the key from the environment) unless
//! `--model` / `--provider` / `--model-file` name another. The new run
//! names the old one as its parent.

use super::coordinators::cli_of;
use roundtable::engine::model::ChatModel;
use roundtable::engine::run::config::{ModelBinding, ParentRef};
use roundtable::engine::run::fork::{continue_point, fork_spec, ForkEdit, ForkModel};
use roundtable::engine::run::{ModelRouter, ModelSpec, RunConfig, RunDoc, RunStatus};
use std::rc::Rc;

/// Reads the run to continue, with a clear message for anything wrong.
pub fn read(path: &str) -> Result<RunDoc, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let doc = RunDoc::from_json(&text).map_err(|e| format!("{path}: {e}"))?;
    if doc.status() == RunStatus::Finished {
        return Err(format!(
            "{path}: this run finished; there is nothing to continue (start a new run, or fork it in the page to change it)"
        ));
    }
    let refusal = cli_of(&doc.config.coordinator).and_then(|c| (c.cannot_continue)(&doc.config));
    if let Some(why) = refusal {
        return Err(format!("{path}: {why}"));
    }
    Ok(doc)
}

/// The model the run used, when the command names none.
pub fn model_of(parent: &RunDoc) -> Result<ModelSpec, String> {
    let spec = parent
        .config
        .main_model()
        .cloned()
        .ok_or("the run names no model: give --model / --provider")?;
    if spec.is_local() {
        return Err(format!(
            "this run used the local model {}: give --provider local --model-file F.gguf",
            spec.model
        ));
    }
    Ok(spec)
}

/// Makes `config` the continuation of `parent` (its task, variant, options
/// and seed; the parent named with the call it goes on from) and returns
/// its model: the parent's log first, then `build`'s model.
pub fn router(
    parent: &RunDoc,
    config: &mut RunConfig,
    build: impl FnOnce(&ModelSpec) -> Result<Rc<dyn ChatModel>, String>,
) -> Result<ModelRouter, String> {
    let chosen = config
        .main_model()
        .cloned()
        .ok_or("no model to continue with")?;
    let spec = fork_spec(&parent.config, chosen);
    let k = continue_point(&parent.events);
    let p = &parent.config;
    config.task = p.task.clone();
    config.variant = p.variant.clone();
    config.options = p.options.clone();
    config.prompts = p.prompts.clone();
    config.seed = p.seed;
    config.parent = Some(ParentRef {
        run_id: p.run_id.clone(),
        fork_call: k,
    });
    // One model answers every agent, as in the page's Continue: the log
    // answers by request, whichever agent asks.
    config.models = vec![ModelBinding {
        role: "*".into(),
        spec: spec.clone(),
    }];
    let live = build(&spec)?;
    let model = ForkModel::new(&parent.events, k as usize, ForkEdit::None, live);
    Ok(ModelRouter::single(Rc::new(model)))
}
