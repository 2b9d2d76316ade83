//! Results of toolbox runs: how a finished run ([`Done`]) becomes a dialog
//! summary and a queued request.

use std::sync::{Arc, Mutex};

use super::BakeOffer;
use super::done::Done;
use super::state::State;
use super::{Computed, Request, Summary, Tool};
use crate::app::jobs::Polled;
use crate::app::panels::Shared;
use crate::vmd::ops::Report;

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
