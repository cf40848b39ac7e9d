//! `roundtable run --coordinator act`: the task (a trial of a set, or a
//! free `--task` the team splits itself), the variant, and for ACT+ the
//! knowledge bank (`--bank`, read before the run and written after).

use super::super::common::Common;
use super::super::flags::Flags;
use super::super::paper::Prepared;
use super::ActArgs;
use roundtable::engine::coordinators::act::contract::{ActOptions, Variant};
use roundtable::engine::coordinators::act::plus::Bank;
use roundtable::engine::domains::creative::ComplexTask;
use roundtable::engine::run::{RunConfig, RunCtx};
use std::rc::Rc;

/// ACT+'s bank: read before the run, written back after.
struct Banked {
    bank: Option<Rc<Bank>>,
    save_to: Option<String>,
    /// The notebook's Python and the web, as the run's tools need them.
    tools: super::ToolKit,
}

impl Prepared for Banked {
    fn attach(&self, ctx: &RunCtx) {
        if let Some(b) = &self.bank {
            ctx.insert_resource(b.clone());
        }
        self.tools.attach(ctx);
    }

    fn finish(&self) -> Result<(), String> {
        match (&self.save_to, &self.bank) {
            (Some(path), Some(bank)) => super::write_bank(path, bank),
            _ => Ok(()),
        }
    }
}

pub fn prepare(
    f: &Flags,
    common: &Common,
    config: &mut RunConfig,
) -> Result<Box<dyn Prepared>, String> {
    let a = ActArgs::read(f)?;
    let variant = super::variant(config.variant.as_deref())?;
    let task_idx = f.number::<u32>("task-idx")?;
    let mut team = None;
    let task = if config.task.trim().is_empty() && a.is_tool_tasks() {
        let t = a.tool_task(task_idx.unwrap_or(0))?;
        team = Some(t.agents);
        t.complex_task()
    } else if config.task.trim().is_empty() {
        a.task(task_idx.unwrap_or(0))?
    } else {
        if ["dataset", "community", "mixed-communities"]
            .iter()
            .any(|n| f.has(n))
            || task_idx.is_some()
        {
            return Err(
                "give either --task TEXT or a set's trial (--dataset, --task-idx, --community, --mixed-communities), not both"
                    .into(),
            );
        }
        ComplexTask::free(&config.task)
    };
    let mut options: ActOptions = a.options(task.clone());
    if let (Some(n), false) = (team, f.has("team-size")) {
        options.team_size = n;
    }
    config.task = task.text.clone();
    config.variant = Some(variant.id().into());
    config.options = serde_json::to_value(&options).map_err(|e| e.to_string())?;
    if a.bank.is_some() && variant != Variant::ActPlus {
        return Err("--bank goes with --variant act-plus".into());
    }
    let bank = match variant {
        Variant::ActPlus => Some(Rc::new(super::read_bank(
            a.bank.as_deref(),
            common.embedder()?,
        )?)),
        _ => None,
    };
    Ok(Box::new(Banked {
        bank,
        save_to: a.bank.clone(),
        tools: a.tool_kit()?,
    }))
}

/// An ACT+ run cannot be continued: its bank has moved on since it began.
pub fn cannot_continue(config: &RunConfig) -> Option<&'static str> {
    (config.variant.as_deref() == Some(Variant::ActPlus.id())).then_some(
        "an ACT+ run cannot be continued: its knowledge bank has changed since the run began, so it could not go on from what the run knew. Start a new ACT+ run instead.",
    )
}
