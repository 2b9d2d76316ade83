//! Crash recovery copies: the GUI-free part (naming, writing, listing,
//! reading, deleting). Pure: tested with `cargo test --no-default-features`.
//!
//! While a document has unsaved edits the app writes a copy of it to
//! `data_dir()/recovery/`:
//!
//! ```text
//! <session>-doc<id>-g<generation>.vmd   the VMD bytes, exactly as a save writes them
//! <session>-doc<id>.json                the sidecar (Meta): original path, time,
//!                                       edits since the last save, the scene, and
//!                                       the name of the .vmd it describes
//! <session>.lock                        held locked while the session runs
//! ```
//!
//! Every file is written to a unique temporary file in the same folder and
//! renamed over its name, so a crash never leaves a half-written copy. The
//! `.vmd` of each write gets a new generation number and the sidecar is
//! renamed last: at any moment the sidecar names a complete `.vmd`. Older
//! generations are deleted after the sidecar moved on.
//!
//! A session holds an exclusive lock on its `.lock` file for as long as it
//! runs; the operating system releases it when the process dies, however it
//! dies. Listing skips the caller's own session and every session whose lock
//! is still held (another running instance): only copies left by a crash
//! (or by a session that ended with unsaved edits) are offered.

use std::path::{Path, PathBuf};
use std::time::Duration;

mod copies;
mod session;
mod sidecar;
#[cfg(test)]
mod tests;

pub use copies::{Entry, Writer, write_atomic};
pub use session::Session;
pub use sidecar::{ActorRecord, DocInfo, Meta, Role, SceneRecord, SongRecord};

/// The folder inside the app's data directory.
pub const DIR_NAME: &str = "recovery";
/// The sidecar's `format` field.
pub const FORMAT: &str = "vmd-studio-recovery";
/// The sidecar version this program writes and reads.
pub const VERSION: u32 = 1;
/// How often a modified document's copy is refreshed.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(30);
/// A copy is also written on every this-many-th edit since the last save.
pub const EDIT_TRIGGER: u64 = 50;
/// Environment variable overriding [`DEFAULT_INTERVAL`], in seconds
/// (e.g. `0.2`; tests use it).
pub const INTERVAL_ENV: &str = "VMD_STUDIO_RECOVERY_INTERVAL";

/// The refresh interval: [`INTERVAL_ENV`] if it holds a positive number of
/// seconds, else [`DEFAULT_INTERVAL`].
pub fn interval() -> Duration {
    std::env::var(INTERVAL_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(|s| Duration::from_secs_f64(s.max(0.01)))
        .unwrap_or(DEFAULT_INTERVAL)
}

/// `data_dir()/recovery`.
pub fn default_dir() -> Option<PathBuf> {
    crate::data_dir().map(|d| d.join(DIR_NAME))
}

/// What went wrong with a recovery copy.
#[derive(Debug, thiserror::Error)]
pub enum RecoveryError {
    #[error("recovery folder {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("recovery copy {path} is damaged: {reason}")]
    Damaged { path: String, reason: String },
}

fn io_err(path: &Path, source: std::io::Error) -> RecoveryError {
    RecoveryError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// `unix_ms` as `YYYY-MM-DD HH:MM:SS UTC`.
pub fn format_utc(unix_ms: u64) -> String {
    let secs = unix_ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days to civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
