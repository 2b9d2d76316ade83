//! Errors and warnings of the PMM reader. Every error names the byte
//! offset where reading stopped; every warning names the offset of the
//! record it is about.

use thiserror::Error;

/// A project file that cannot be read at all. `offset` is where reading
/// stopped (bytes from the start of the file).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{kind} (at byte offset {offset})")]
pub struct PmmError {
    pub offset: usize,
    pub kind: PmmErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PmmErrorKind {
    #[error(
        "not an MMD project: the header does not start with \"Polygon Movie maker 0001\" or \"0002\""
    )]
    NotPmm,
    #[error("file ends inside the {what}: needs {needed} bytes, {remaining} remain")]
    Truncated {
        what: &'static str,
        needed: usize,
        remaining: usize,
    },
    #[error("{what} claims {count} records ({bytes} bytes at least) but {remaining} bytes remain")]
    CountTooLarge {
        what: &'static str,
        count: i64,
        bytes: u64,
        remaining: usize,
    },
    #[error("{what} is negative ({count})")]
    NegativeCount { what: &'static str, count: i32 },
}

/// Something read but not taken as it stands: a broken link, a frame out
/// of order, a value that is not a number, data that has no place in the
/// scene. `offset` is the byte offset of the record concerned.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    pub offset: usize,
    pub kind: WarningKind,
}

/// What a [`Warning`] is about. `track` texts read like "model 0 bone
/// センター" or "camera".
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WarningKind {
    /// A key's `next` names no record of the pool: the list ends there.
    LinkOutOfRange { track: String, next: i32 },
    /// A key's `next` names a record already in a list (a cycle, or two
    /// lists sharing a record): the list ends there.
    LinkCycle { track: String, next: i32 },
    /// The next key's frame is not after this one's: the list ends there.
    FrameNotIncreasing { track: String, from: i32, to: i32 },
    /// Two pool records carry the same id; the first is used.
    DuplicateId { track: String, id: i32 },
    /// A key's frame is negative (VMD frames are unsigned): left out.
    NegativeFrame { track: String, frame: i32 },
    /// Non-finite numbers in a key were replaced (positions and weights
    /// by 0, rotations by the identity).
    NonFinite { track: String, frame: i32 },
    /// A v1 (MMD 7) project stores no bone or morph counts: they come from
    /// the model file. Without it nothing after this model can be read.
    V1ModelShapeUnknown { model: usize, path: String },
    /// An index names no bone of the model (an IK bone, a name list).
    BoneIndexOutOfRange { track: String, index: i32 },
    /// Bytes after the last field this reader knows, kept raw.
    TrailingBytes { len: usize },
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use WarningKind::*;
        match &self.kind {
            LinkOutOfRange { track, next } => write!(
                f,
                "{track}: a key links to record {next}, which does not exist; the list ends there"
            ),
            LinkCycle { track, next } => write!(
                f,
                "{track}: a key links back to record {next} (a cycle); the list ends there"
            ),
            FrameNotIncreasing { track, from, to } => write!(
                f,
                "{track}: the key after frame {from} is at frame {to} (not later); the list ends there"
            ),
            DuplicateId { track, id } => {
                write!(f, "{track}: two records carry id {id}; the first is used")
            }
            NegativeFrame { track, frame } => {
                write!(f, "{track}: a key at negative frame {frame} was left out")
            }
            NonFinite { track, frame } => write!(
                f,
                "{track}: the key at frame {frame} holds a value that is not a number; it was replaced"
            ),
            V1ModelShapeUnknown { model, path } => write!(
                f,
                "model {model} ({path}): an MMD 7 project keeps its bone and morph counts in the \
                 model file, which is not available; this model and everything after it were not read"
            ),
            BoneIndexOutOfRange { track, index } => {
                write!(f, "{track}: bone index {index} names no bone of the model")
            }
            TrailingBytes { len } => {
                write!(f, "{len} bytes after the last known field were kept unread")
            }
        }?;
        write!(f, " (at byte offset {})", self.offset)
    }
}
