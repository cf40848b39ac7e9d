//! What a paper's row in the command line's coordinator table holds
//! (`coordinators.rs` lists the rows): what `run --coordinator <id>` needs
//! of it, and the commands it adds. A paper's folder builds its row from
//! these types; the table names the papers, these name none.

use super::common::Common;
use super::flags::Flags;
use roundtable::engine::run::{RunConfig, RunCtx};
use std::ffi::OsString;

/// What a paper adds to one run: resources for its context, and work
/// after it (write a pool or a bank back).
pub trait Prepared {
    fn attach(&self, ctx: &RunCtx) {
        let _ = ctx;
    }
    fn finish(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Nothing to add (a coordinator without options of its own).
pub struct Nothing;
impl Prepared for Nothing {}

/// Every run of the paper can be continued.
pub fn always_continues(_: &RunConfig) -> Option<&'static str> {
    None
}

/// Fills a run's config from the paper's own options.
pub type Prepare = fn(&Flags, &Common, &mut RunConfig) -> Result<Box<dyn Prepared>, String>;

/// A command of a paper's own (`travel-batch`, `mael-learn`…): it reads
/// its arguments itself.
#[derive(Debug)]
pub struct PaperCommand {
    pub name: &'static str,
    pub run: fn(Vec<OsString>) -> Result<i32, String>,
}

/// A command is its name (the table holds each name once).
impl PartialEq for PaperCommand {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

pub struct CliCoordinator {
    pub id: &'static str,
    /// `run --coordinator <id>`: its options, read into the run's config
    /// (the single agent has no row: only the common options).
    pub prepare: Prepare,
    pub commands: &'static [PaperCommand],
    /// Why a stopped run of this paper cannot be continued
    /// (`run --continue`), if it cannot: ACT+'s bank has moved on.
    pub cannot_continue: fn(&RunConfig) -> Option<&'static str>,
    /// Its commands' and options' part of `roundtable help`.
    pub usage: &'static str,
}
