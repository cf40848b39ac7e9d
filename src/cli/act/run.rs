//! `roundtable run --coordinator act`: the task (a trial of a set, or a
//! free `--task` the team splits itself), the variant, and for ACT+ the
//! knowledge bank (`--bank`, read before the run and written after).

use crate::cli::args::RunArgs;
use roundtable::engine::coordinators::act::contract::{ActOptions, Variant};
use roundtable::engine::coordinators::act::plus::Bank;
use roundtable::engine::domains::creative::ComplexTask;
use roundtable::engine::run::RunConfig;
use std::rc::Rc;

pub struct Prepared {
    pub bank: Option<Rc<Bank>>,
    save_to: Option<String>,
}

pub fn prepare(
    a: &RunArgs,
    config: &mut RunConfig,
    key: Option<String>,
) -> Result<Prepared, String> {
    let variant = super::variant(a.variant.as_deref())?;
    let task = if a.task.trim().is_empty() {
        super::task(a, a.task_idx.unwrap_or(0))?
    } else {
        if a.dataset.is_some() || a.task_idx.is_some() {
            return Err("give either --task TEXT or --dataset/--task-idx, not both".into());
        }
        ComplexTask::free(&a.task)
    };
    let options: ActOptions = super::options(a, task.clone());
    config.task = task.text.clone();
    config.variant = Some(variant.id().into());
    config.options = serde_json::to_value(&options).map_err(|e| e.to_string())?;
    if a.bank.is_some() && variant != Variant::ActPlus {
        return Err("--bank goes with --variant act-plus".into());
    }
    let bank = match variant {
        Variant::ActPlus => {
            let spec = config
                .model_for("*")
                .cloned()
                .unwrap_or_else(roundtable::engine::run::ModelSpec::demo);
            let embedder = crate::cli::run_cmd::embedder(a, &spec, key)?;
            Some(Rc::new(super::read_bank(a.bank.as_deref(), embedder)?))
        }
        _ => None,
    };
    Ok(Prepared {
        bank,
        save_to: a.bank.clone(),
    })
}

impl Prepared {
    pub fn finish(&self) -> Result<(), String> {
        match (&self.save_to, &self.bank) {
            (Some(path), Some(bank)) => super::write_bank(path, bank),
            _ => Ok(()),
        }
    }
}
