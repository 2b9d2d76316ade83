//! What an operation did, in plain words, and why it could not run.

use std::fmt;

use thiserror::Error;

/// The result summary of a toolbox operation.
///
/// `lines` holds one sentence per item (one per dropped key, refusal, …);
/// the counters total them for a dialog's headline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// One plain-language line per item, in the order they happened.
    pub lines: Vec<String>,
    /// Keys removed (merged into another key or cut away).
    pub dropped: usize,
    /// Keys created.
    pub added: usize,
    /// Keys whose bytes changed (frame, name, values or curve).
    pub changed: usize,
    /// Names or edits the operation refused to make (the old value is kept).
    pub refused: usize,
    /// Lines that flag a loss of precision or a changed playback.
    pub warnings: usize,
}

impl Report {
    pub fn new() -> Report {
        Report::default()
    }
    /// Adds a plain information line.
    pub fn note(&mut self, line: impl Into<String>) {
        self.lines.push(line.into());
    }
    /// Adds a line about a dropped key and counts it.
    pub fn drop_key(&mut self, line: impl Into<String>) {
        self.dropped += 1;
        self.lines.push(line.into());
    }
    /// Adds a line about a refusal and counts it.
    pub fn refuse(&mut self, line: impl Into<String>) {
        self.refused += 1;
        self.lines.push(line.into());
    }
    /// Adds a warning line and counts it.
    pub fn warn(&mut self, line: impl Into<String>) {
        self.warnings += 1;
        self.lines.push(line.into());
    }
    /// A one-line headline with the counters.
    pub fn headline(&self) -> String {
        format!(
            "{} added, {} changed, {} dropped, {} refused, {} warnings",
            self.added, self.changed, self.dropped, self.refused, self.warnings
        )
    }
}

impl fmt::Display for Report {
    /// One line per item, then the headline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for l in &self.lines {
            writeln!(f, "{l}")?;
        }
        write!(f, "{}", self.headline())
    }
}

/// Why an operation could not run at all. Nothing is changed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OpError {
    /// A parameter is out of range (factor ≤ 0, A > B, …).
    #[error("bad parameter: {0}")]
    BadParameter(String),
    /// A frame would not fit the 32-bit frame field.
    #[error("frame overflow: {0}")]
    FrameOverflow(String),
    /// A rename map or JSON document that cannot be read.
    #[error("{0}")]
    BadInput(String),
}
