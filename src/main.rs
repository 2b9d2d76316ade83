//! `vmd-studio`: CLI verbs, or the desktop app when no verb is given.
#![forbid(unsafe_code)]

use clap::Parser;
use vmd_studio::cli::{self, Cli};

fn main() {
    let args = match Cli::try_parse() {
        Ok(a) => a,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                std::process::exit(0);
            }
            // One line, like every other failure, with clap's possible
            // values and its "a similar value exists" tip kept.
            eprintln!("error: {}", cli::one_line_error(&e));
            std::process::exit(1);
        }
    };
    let result = match args.command {
        Some(cmd) => {
            let _log = vmd_studio::logging::init(args.verbose, args.verbose, None);
            cli::run(cmd)
        }
        None => {
            let logs = vmd_studio::data_dir().map(|d| d.join("logs"));
            let _log = vmd_studio::logging::init(args.verbose, true, logs.as_deref());
            tracing::info!("VMD Studio {} starting", env!("CARGO_PKG_VERSION"));
            run_gui(args)
        }
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
