//! Logging through `tracing`: to stderr (warnings, or everything from debug
//! up with `--verbose`) and, for the app, to a daily-rotated file in the
//! app's data directory (`logs/vmd-studio.YYYY-MM-DD.log`, the last 7 kept).
//!
//! Command-line verbs log to stderr only when `--verbose` is given, so a
//! failing verb still prints exactly one line.

use std::path::Path;

use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::prelude::*;

/// Keeps the file writer flushing until dropped (hold it for the whole run).
pub struct LogGuard {
    _flush_on_drop: Option<tracing_appender::non_blocking::WorkerGuard>,
}

/// Starts logging. `log_dir`: where the rotating log file goes (the app);
/// `None` logs to stderr only. A failure to open the log file is reported
/// on stderr and logging goes on without it.
pub fn init(verbose: bool, stderr: bool, log_dir: Option<&Path>) -> LogGuard {
    let level = if verbose {
        LevelFilter::DEBUG
    } else {
        LevelFilter::WARN
    };
    let stderr_layer = stderr.then(|| {
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_target(false)
            .with_filter(level)
    });
    let appender = log_dir.and_then(|dir| {
        std::fs::create_dir_all(dir)
            .map_err(|e| eprintln!("note: no log file in {}: {e}", dir.display()))
            .ok()?;
        tracing_appender::rolling::RollingFileAppender::builder()
            .rotation(tracing_appender::rolling::Rotation::DAILY)
            .filename_prefix("vmd-studio")
            .filename_suffix("log")
            .max_log_files(7)
            .build(dir)
            .map_err(|e| eprintln!("note: no log file in {}: {e}", dir.display()))
            .ok()
    });
    let (file_layer, guard) = match appender {
        Some(a) => {
            let (writer, guard) = tracing_appender::non_blocking(a);
            let layer = tracing_subscriber::fmt::layer()
                .with_writer(writer)
                .with_ansi(false)
                .with_filter(if verbose {
                    LevelFilter::DEBUG
                } else {
                    LevelFilter::INFO
                });
            (Some(layer), Some(guard))
        }
        None => (None, None),
    };
    // A second init (tests) keeps the first subscriber.
    let _already_set = tracing_subscriber::registry()
        .with(stderr_layer)
        .with(file_layer)
        .try_init();
    LogGuard {
        _flush_on_drop: guard,
    }
}
