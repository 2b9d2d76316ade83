//! Running a toolbox request on the documents: the operation, its report
//! and the lines the status bar shows (no drawing).

use std::path::Path;

use super::{JoinSecond, Outcome, Request, STATUS_LINES};
use crate::vmd::ops::{self, JoinPlacement, OpError, Report};
use crate::vmd::{self, Motion};
use crate::workspace::document::Document;

/// Reads a VMD file.
pub(super) fn load_vmd(path: &Path) -> Result<Motion, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    vmd::read_vec(bytes).map_err(|e| format!("{}: {e}", path.display()))
}

pub(super) fn op_error(e: OpError) -> String {
    e.to_string()
}

/// The report as status-bar lines: the first few items, then the headline.
pub(super) fn status_lines(label: &str, r: &Report) -> Vec<String> {
    let mut v: Vec<String> = r.lines.iter().take(STATUS_LINES).cloned().collect();
    if r.lines.len() > STATUS_LINES {
        v.push(format!(
            "… and {} more lines (see the dialog)",
            r.lines.len() - STATUS_LINES
        ));
    }
    v.push(format!("{label}: {}", r.headline()));
    v
}

/// Undo label of a request (`second_name`: the joined motion's name).
pub(super) fn label_of(req: &Request, second_name: &str) -> String {
    match req {
        Request::Mirror(s) if s.is_all() => "Mirror left/right".to_owned(),
        Request::Mirror(s) => format!("Mirror left/right ({})", s.describe()),
        Request::Trim(p) => format!(
            "Trim to {}..{}{}",
            p.from,
            p.to,
            if p.rebase { " (rebased)" } else { "" }
        ),
        Request::Join { params, .. } => match params.placement {
            JoinPlacement::At(f) => format!("Join {second_name} at frame {f}"),
            JoinPlacement::Gap(g) => format!("Join {second_name} after a {g}-frame gap"),
        },
        Request::Speed {
            params,
            scope,
            scene,
        } => {
            let mut l = format!("Change speed x{}", params.factor);
            if !scope.is_all() {
                l.push_str(&format!(" ({})", scope.describe()));
            }
            if !scene.is_empty() {
                let names: Vec<&str> = scene.iter().map(|s| s.name.as_str()).collect();
                l.push_str(&format!(" with {}", names.join(", ")));
            }
            l
        }
        Request::FillRest(_) => "Fill rest pose".to_owned(),
        Request::Rename(m) => format!("Rename tracks ({} pairs)", m.pairs.len()),
        Request::Bake(p) => format!("Bake every {} frame(s)", p.step),
        Request::Computed(_) => "Toolbox operation".to_owned(),
    }
}

/// Runs a parameter request on `first` (`second`: the join's other motion,
/// or `None` to read [`JoinSecond::Path`]).
pub(super) fn run_op(
    req: &Request,
    first: &Motion,
    second: Option<&Motion>,
    label: String,
) -> Result<(Outcome, Report), String> {
    let (motion, report) = match req {
        Request::Mirror(scope) => ops::mirror_scoped(first, scope).map_err(op_error)?,
        Request::Trim(p) => ops::trim(first, *p).map_err(op_error)?,
        Request::Join {
            second: which,
            params,
        } => {
            let loaded;
            let other = match (second, which) {
                (Some(m), _) => m,
                (None, JoinSecond::Path(p)) => {
                    loaded = load_vmd(p)?;
                    &loaded
                }
                (None, JoinSecond::Tab(_)) => {
                    return Err("the second tab is no longer open".to_owned());
                }
            };
            ops::join(first, other, *params).map_err(op_error)?
        }
        Request::Speed { params, scope, .. } => {
            ops::speed_scoped(first, *params, scope).map_err(op_error)?
        }
        Request::FillRest(p) => ops::fill_rest_with(first, p).map_err(op_error)?,
        Request::Rename(map) => ops::rename(first, map).map_err(op_error)?,
        Request::Bake(p) => ops::bake(first, *p).map_err(op_error)?,
        Request::Computed(_) => {
            return Err("a computed result cannot be run again".to_owned());
        }
    };
    let (also, report) = match req {
        Request::Speed { params, scene, .. } => scene_speed(*params, scene, report)?,
        _ => (Vec::new(), report),
    };
    let report_lines = status_lines(&label, &report);
    Ok((
        Outcome {
            motion,
            report_lines,
            label,
            also,
        },
        report,
    ))
}

/// The scene's other motions at the new speed (each over its own span),
/// said in the report; any one that cannot change stops the whole change.
fn scene_speed(
    params: ops::SpeedParams,
    scene: &[super::SceneSpan],
    mut report: Report,
) -> Result<(Vec<super::AlsoChanged>, Report), String> {
    let mut also = Vec::new();
    for s in scene {
        let (motion, r) = ops::speed_span(&s.motion, params, None, s.span)
            .map_err(|e| format!("{}: {e}; nothing was changed", s.name))?;
        report.note(format!(
            "also {}: {} keys moved, {} merged away (same undo step)",
            s.name, r.changed, r.dropped
        ));
        report.changed += r.changed;
        report.dropped += r.dropped;
        also.push(super::AlsoChanged {
            id: s.id,
            revision: s.revision,
            motion,
        });
    }
    Ok((also, report))
}

/// Runs a request on the active document (and others, for join).
///
/// [`Request::Computed`] hands back its stored result if the active
/// document is still the one (and at the revision) it was computed from;
/// otherwise nothing is applied and the error says why.
pub fn run_request(req: &Request, docs: &[&Document], active: usize) -> Result<Outcome, String> {
    let doc = docs
        .get(active)
        .ok_or_else(|| "no document is open".to_owned())?;
    match req {
        Request::Computed(c) => {
            if doc.id != c.doc_id {
                return Err("the result belongs to another tab; run the operation again".into());
            }
            if doc.revision != c.revision {
                return Err(
                    "the file changed while the operation ran; run the operation again".into(),
                );
            }
            let mut slot = c
                .slot
                .lock()
                .map_err(|_| "the result was lost; run the operation again".to_owned())?;
            slot.take()
                .ok_or_else(|| "this result was already applied".to_owned())
        }
        Request::Join {
            second: JoinSecond::Tab(id),
            ..
        } => {
            let other = docs
                .iter()
                .find(|d| d.id == *id)
                .ok_or_else(|| "the second tab is no longer open".to_owned())?;
            let label = label_of(req, &other.title());
            run_op(req, &doc.motion, Some(&other.motion), label).map(|(o, _)| o)
        }
        Request::Join {
            second: JoinSecond::Path(p),
            ..
        } => {
            let label = label_of(req, &file_name(p));
            run_op(req, &doc.motion, None, label).map(|(o, _)| o)
        }
        _ => {
            let label = label_of(req, "");
            run_op(req, &doc.motion, None, label).map(|(o, _)| o)
        }
    }
}

pub(super) fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}
