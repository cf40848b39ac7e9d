//! The command line's coordinator table, like the app's
//! (`ui/coordinators.rs`): one row per paper with what `run --coordinator
//! <id>` needs of it and the commands it adds. `run_cmd.rs` and `args.rs`
//! read this table and name no paper.

use super::paper::{CliCoordinator, PaperCommand};

pub const CLIS: &[CliCoordinator] = &[super::travel::CLI, super::act::CLI, super::mael::CLI];

pub fn cli_of(id: &str) -> Option<&'static CliCoordinator> {
    CLIS.iter().find(|c| c.id == id)
}

pub fn command(name: &str) -> Option<&'static PaperCommand> {
    CLIS.iter()
        .flat_map(|c| c.commands.iter())
        .find(|c| c.name == name)
}
