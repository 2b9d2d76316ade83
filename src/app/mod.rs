//! The desktop app (eframe/egui).

use crate::cli::{Cli, CliError, CliResult};

/// Opens the main window.
pub fn run(_args: Cli) -> CliResult {
    Err(CliError("the desktop app is not built yet".into()))
}
