//! Errors of the VMD layer. Every read error names the byte offset.

use thiserror::Error;

/// A file that cannot be read. `offset` is where reading stopped.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{kind} (at byte offset {offset})")]
pub struct ReadError {
    pub offset: usize,
    pub kind: ReadErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReadErrorKind {
    #[error("not a VMD file: the header does not start with \"Vocaloid Motion Data\"")]
    NotVmd,
    #[error("file ends inside the {what}: needs {needed} bytes, {remaining} remain")]
    Truncated {
        what: &'static str,
        needed: usize,
        remaining: usize,
    },
    #[error("{section} section claims {count} keys ({bytes} bytes) but {remaining} bytes remain")]
    CountTooLarge {
        section: &'static str,
        count: u64,
        bytes: u64,
        remaining: usize,
    },
}

/// A name that cannot be stored in its fixed-length field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NameError {
    #[error("name \"{name}\" is {len} bytes in {encoding} but the field holds {max}")]
    TooLong {
        name: String,
        len: usize,
        max: usize,
        encoding: &'static str,
    },
    #[error("name \"{name}\" has characters that {encoding} cannot encode")]
    Unencodable {
        name: String,
        encoding: &'static str,
    },
    #[error("name \"{name}\" contains a NUL character")]
    ContainsNul { name: String },
}

/// Saving failed; the original file is untouched.
#[derive(Debug, Error)]
pub enum WriteError {
    #[error("cannot save {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{what} has {count} records, more than a VMD count field can hold")]
    TooManyRecords { what: &'static str, count: usize },
    #[error(
        "cannot save {path}: the file reads back differently from what was written \
         ({written} bytes written, {read} read, first difference at byte {first_difference})"
    )]
    Verify {
        path: String,
        written: usize,
        read: usize,
        first_difference: usize,
    },
    #[error("{path} changed on disk since it was opened or last saved")]
    ChangedOnDisk { path: String },
}
