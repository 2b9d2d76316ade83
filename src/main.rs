//! `vmd-studio`: CLI verbs, or the desktop app when no verb is given.
//!
//! On Windows a GUI-subsystem program (no console window on a
//! double-click) that takes its terminal back when started from one
//! ([`win_console`], the one module allowed `unsafe`).
#![cfg_attr(windows, windows_subsystem = "windows")]
#![deny(unsafe_code)]

use clap::Parser;
use vmd_studio::cli::{self, Cli};

#[cfg(windows)]
mod win_console;

fn main() {
    #[cfg(windows)]
    win_console::attach_parent();
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

/// The app's window; when the wgpu renderer cannot open it (no adapter, a
/// lost device, a surface error), the app starts again with the glow
/// renderer (the skeleton preview) and says why, on every OS. A new process,
/// because a window system's event loop cannot be made twice in one.
#[cfg(feature = "gui")]
fn run_gui(args: Cli) -> cli::CliResult {
    let wgpu = args.renderer == cli::GraphicsBackend::Wgpu;
    let result = vmd_studio::app::run(args);
    let Err(e) = result else { return Ok(()) };
    let given: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let retry = vmd_studio::app::glow_retry_args(&given).filter(|_| wgpu);
    let (Some(retry), Ok(exe)) = (retry, std::env::current_exe()) else {
        return Err(e);
    };
    eprintln!("warning: {e}; starting again with the glow renderer (skeleton preview)");
    tracing::warn!("wgpu window failed ({e}); starting again with --renderer glow");
    match std::process::Command::new(exe).args(retry).status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => std::process::exit(s.code().unwrap_or(1)),
        Err(spawn) => Err(cli::CliError(format!(
            "{e}; and the glow renderer could not be started: {spawn}"
        ))),
    }
}

#[cfg(not(feature = "gui"))]
fn run_gui(_args: Cli) -> cli::CliResult {
    Err(cli::CliError(
        "this build has no GUI (built without the `gui` feature); use a verb, see --help".into(),
    ))
}
