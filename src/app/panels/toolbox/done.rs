//! What a toolbox run hands back ([`Done`]): below the toolbox's state, its
//! plans and the handling of results alike.

use std::path::PathBuf;

use super::Outcome;
use super::run::status_lines;
use crate::vmd::Motion;
use crate::vmd::ops::{Report, SimplifyScope};

/// What a finished operation hands back.
#[derive(Debug)]
pub(super) enum Done {
    /// The document's new motion (`changed`: it differs from the old one;
    /// `baked`: the keys a physics bake wrote, offered to Simplify).
    Replace {
        outcome: Outcome,
        report: Report,
        changed: bool,
        baked: Option<SimplifyScope>,
    },
    /// A motion for a new tab.
    NewDocument {
        motion: Motion,
        name: String,
        report: Report,
    },
    /// A file was written; the document is unchanged.
    Wrote { path: PathBuf, report: Report },
}

impl Done {
    /// The document's new motion, labelled for the undo history; `changed`
    /// compares it with `first`, the motion the run started from.
    pub(super) fn replace(motion: Motion, first: &Motion, label: String, report: Report) -> Done {
        let changed = motion != *first;
        let report_lines = status_lines(&label, &report);
        Done::Replace {
            outcome: Outcome {
                motion,
                report_lines,
                label,
                also: Vec::new(),
            },
            report,
            changed,
            baked: None,
        }
    }

    /// Another document changed in the same undo step (the scene camera
    /// a sizing keeps framed).
    pub(super) fn also(&mut self, a: super::AlsoChanged) {
        if let Done::Replace { outcome, .. } = self {
            outcome.also.push(a);
        }
    }

    /// Marks a replacement as a physics bake that wrote `scope`.
    pub(super) fn with_baked(mut self, scope: SimplifyScope) -> Done {
        if let Done::Replace { baked, .. } = &mut self {
            *baked = Some(scope);
        }
        self
    }
}
