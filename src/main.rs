//! `vmd-studio`: CLI verbs, or the desktop app when no verb is given.
#![forbid(unsafe_code)]

use clap::Parser;
use vmd_studio::cli::{self, Cli};

fn main() {
    let args = Cli::parse();
    let result = match args.command {
        Some(cmd) => cli::run(cmd),
        None => run_gui(args),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

#[cfg(feature = "gui")]
fn run_gui(args: Cli) -> cli::CliResult {
    vmd_studio::app::run(args)
}

#[cfg(not(feature = "gui"))]
fn run_gui(_args: Cli) -> cli::CliResult {
    Err(cli::CliError(
        "this build has no GUI (built without the `gui` feature); use a verb, see --help".into(),
    ))
}
