//! Results of toolbox runs: what a run hands back ([`Done`]), and how a
//! finished run becomes a dialog summary and a queued request.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::BakeOffer;
use super::run::status_lines;
use super::state::State;
use super::{Computed, Outcome, Request, Summary, Tool};
use crate::app::jobs::Polled;
use crate::app::panels::Shared;
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
            },
            report,
            changed,
            baked: None,
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

impl State {
    /// Checks the background job; applies what it finished.
    pub(super) fn poll(&mut self, shared: &mut Shared) {
        if self.job.is_none() {
            return;
        }
        let result = match self.lane.poll(&shared.jobs) {
            None => return,
            Some(Polled::Done(f)) => f.value,
            Some(Polled::Lost(_)) => Err("the operation stopped unexpectedly".to_owned()),
        };
        let Some(job) = self.job.take() else { return };
        self.finish(job.tool, job.doc_id, job.revision, result, shared);
    }

    /// Shows the result in the dialog and queues what it asks for.
    pub(super) fn finish(
        &mut self,
        tool: Tool,
        doc_id: u64,
        revision: u64,
        result: Result<Done, String>,
        shared: &mut Shared,
    ) {
        match result {
            Ok(Done::Replace {
                report,
                changed: false,
                ..
            }) => {
                let mut s = summary_of(tool, &report);
                s.lines
                    .push("The motion is unchanged: no undo step was added.".to_owned());
                shared.info(format!("{}: no change", tool.title()));
                self.summary = Some(s);
            }
            Ok(Done::Replace {
                outcome,
                report,
                baked,
                ..
            }) => {
                self.summary = Some(summary_of(tool, &report));
                self.bake_physics.offer = baked.map(|scope| BakeOffer { doc_id, scope });
                self.request = Some(Request::Computed(Computed {
                    doc_id,
                    revision,
                    slot: Arc::new(Mutex::new(Some(outcome))),
                }));
            }
            Ok(Done::NewDocument {
                motion,
                name,
                report,
            }) => {
                self.summary = Some(summary_of(tool, &report));
                shared.info(format!("Imported {name}: {}", report.headline()));
                self.new_document = Some((motion, name));
            }
            Ok(Done::Wrote { path, report }) => {
                self.summary = Some(summary_of(tool, &report));
                shared.info(format!("Wrote {}: {}", path.display(), report.headline()));
            }
            Err(e) => {
                shared.error(format!("{}: {e}", tool.title()));
                self.summary = Some(Summary {
                    tool,
                    ok: false,
                    headline: e,
                    lines: Vec::new(),
                });
            }
        }
    }
}

fn summary_of(tool: Tool, r: &Report) -> Summary {
    Summary {
        tool,
        ok: true,
        headline: r.headline(),
        lines: r.lines.clone(),
    }
}
