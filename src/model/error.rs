//! What can go wrong reading a model: [`ModelError`] (fatal: the file cannot
//! be used) and [`Warning`] (tolerated: the model loads, the problem is
//! reported, e.g. a bad texture index or a missing texture file).

/// Why a model file could not be read. Every message names the byte offset
/// (hex and decimal) where reading stopped and what was expected there.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The first bytes are neither `"PMX "` nor `"Pmd"`.
    #[error("not a PMX or PMD model (starts with {start})")]
    UnknownFormat {
        /// The first bytes, as hex and printable ASCII.
        start: String,
    },
    /// The file ends before a field it declares.
    #[error(
        "unexpected end of data at offset {offset:#x} ({offset}): expected {expected} \
         ({needed} bytes), only {available} left"
    )]
    Truncated {
        /// Byte offset of the field that did not fit.
        offset: usize,
        /// What was being read, e.g. `"bone 12: position"`.
        expected: String,
        /// Bytes the field needs.
        needed: u64,
        /// Bytes left in the file at `offset`.
        available: usize,
    },
    /// The model file could not be read from disk.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The path as given.
        path: String,
        /// The system's reason.
        message: String,
    },
    /// A field holds a value the format does not allow.
    #[error("invalid data at offset {offset:#x} ({offset}): {what}")]
    Invalid {
        /// Byte offset of the bad field.
        offset: usize,
        /// What was wrong, e.g. `"bone index size 3 (expected 1, 2 or 4)"`.
        what: String,
    },
}

impl ModelError {
    /// Prefixes the error's description with a record name and index, e.g.
    /// `"bone 12: "`. Called on the error path only, so reading stays
    /// allocation-free when nothing goes wrong.
    pub(crate) fn within(self, record: &str, index: usize) -> Self {
        match self {
            ModelError::Truncated {
                offset,
                expected,
                needed,
                available,
            } => ModelError::Truncated {
                offset,
                expected: format!("{record} {index}: {expected}"),
                needed,
                available,
            },
            ModelError::Invalid { offset, what } => ModelError::Invalid {
                offset,
                what: format!("{record} {index}: {what}"),
            },
            other => other,
        }
    }
}

/// A tolerated problem: the model still loads. `offset` is the byte offset
/// of the field in the model file, when the problem is in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Byte offset in the model file, if the problem is one of its fields.
    pub offset: Option<usize>,
    /// What is wrong and what was done about it.
    pub message: String,
}

impl Warning {
    /// A warning about the field at `offset`.
    pub fn at(offset: usize, message: impl Into<String>) -> Self {
        Warning {
            offset: Some(offset),
            message: message.into(),
        }
    }

    /// A warning not tied to a byte of the file (e.g. a missing texture).
    pub fn general(message: impl Into<String>) -> Self {
        Warning {
            offset: None,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.offset {
            Some(o) => write!(f, "at offset {o:#x} ({o}): {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}
