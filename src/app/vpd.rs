//! VPD poses in the GUI: File ▸ Load pose (VPD)… onto the selected actor's
//! motion at the playhead (one undo step, mirrored on request) and File ▸
//! Save pose (VPD)… (the actor's pose at the playhead: what its motion's
//! keys give, before IK and physics, so loading it back there changes
//! nothing).
//!
//! [`load_pose_event`] and [`pose_file_bytes`] hold the logic and return a
//! workspace [`Event`] or bytes; [`load_pose_file`] and [`save_pose_file`]
//! only read and write files and report.

use std::path::Path;

use super::edits::apply;
use super::panels::Shared;
use crate::scene::ModelRef;
use crate::vmd::vpd;
use crate::workspace::document::{Edit, EditRequest};
use crate::workspace::{DocId, Event, Workspace};

/// The actor a pose goes to or comes from: the selected one, else the one
/// wearing the active file, else the first; with the document it wears.
pub fn pose_actor(ws: &Workspace) -> Result<(usize, DocId), String> {
    let actor = ws
        .selected_actor()
        .or_else(|| ws.active().and_then(|d| ws.wearer(d.id)))
        .unwrap_or(0);
    let a = ws
        .scene()
        .actors
        .get(actor)
        .ok_or("There is no actor in the scene: open a motion first")?;
    let doc = a.motion.ok_or_else(|| {
        format!(
            "Actor {:?} wears no motion: open or merge one first",
            a.name
        )
    })?;
    Ok((actor, doc))
}

/// The motion frame of actor `actor` at the playhead (its offset taken
/// off), whole frames, at least 0.
fn playhead_frame(ws: &Workspace, actor: usize) -> u32 {
    let scene_frame = ws.transport().frame;
    let f = ws
        .scene()
        .actors
        .get(actor)
        .map_or(scene_frame, |a| a.motion_frame(scene_frame));
    f.round().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// What loading a pose will do, for the status bar.
#[derive(Debug, Clone)]
pub struct PoseLoad {
    /// The edit (one undo step); `None` when the motion already holds the pose.
    pub event: Option<Event>,
    pub summary: String,
}

/// Loading VPD `bytes` onto the pose actor's motion at the playhead: the
/// keys [`vpd::apply_vpd`] makes, as one workspace edit. Errors name the
/// file's line (`line N: …`).
pub fn load_pose_event(ws: &Workspace, bytes: &[u8], mirror: bool) -> Result<PoseLoad, String> {
    let (actor, doc_id) = pose_actor(ws)?;
    let doc = ws.doc(doc_id).ok_or("The actor's motion is not open")?;
    let pose = vpd::read(bytes).map_err(|e| e.to_string())?;
    let frame = playhead_frame(ws, actor);
    let r =
        vpd::apply_vpd(&doc.motion, &doc.index, &pose, frame, mirror).map_err(|e| e.to_string())?;
    let mut summary = format!(
        "Pose at frame {frame}{}: {} keys added, {} changed, {} already so",
        if mirror { " (mirrored)" } else { "" },
        r.added,
        r.changed,
        r.unchanged
    );
    for n in &r.notes {
        summary.push_str("; ");
        summary.push_str(n);
    }
    let event = r.edit.map(|e| {
        let label = format!(
            "Load pose{} at frame {frame} ({} keys)",
            if mirror { " mirrored" } else { "" },
            r.added + r.changed
        );
        Event::edit(
            doc_id,
            EditRequest::apply(
                Edit::ReplaceMotion {
                    motion: Box::new(e.motion),
                    selection: Some(e.selection),
                },
                label,
            ),
        )
    });
    Ok(PoseLoad { event, summary })
}

/// The VPD text of the pose actor's pose at the playhead, and the tracks
/// left out (names Shift_JIS cannot hold). The parent-file line is the
/// model's file name with `.osm`, as MMD writes it.
pub fn pose_file_bytes(ws: &Workspace) -> Result<(Vec<u8>, u32, Vec<String>), String> {
    let (actor, doc_id) = pose_actor(ws)?;
    let doc = ws.doc(doc_id).ok_or("The actor's motion is not open")?;
    let frame = playhead_frame(ws, actor);
    let fits = |s: &str| !s.is_empty() && !s.contains(';') && !encoding_rs::SHIFT_JIS.encode(s).2;
    let stem = match ws.scene().actors.get(actor).map(|a| &a.model) {
        Some(ModelRef::File(p)) => p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        _ => doc.motion.model_name().text,
    };
    let model = format!("{}.osm", if fits(&stem) { stem.as_str() } else { "model" });
    let (pose, left_out) = vpd::pose_at(&doc.motion, &doc.index, f64::from(frame), &model);
    let bytes = vpd::write(&pose).map_err(|e| e.to_string())?;
    Ok((bytes, frame, left_out))
}

/// File ▸ Load pose (VPD)…: reads `path` and applies it (one undo step).
pub fn load_pose_file(ws: &mut Workspace, shared: &mut Shared, path: &Path, mirror: bool) {
    let name = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            shared.error(format!("{name}: {e}"));
            return;
        }
    };
    match load_pose_event(ws, &bytes, mirror) {
        Ok(PoseLoad { event, summary }) => {
            if let Some(e) = event {
                apply(ws, shared, e);
            }
            shared.info(format!("{name}: {summary}"));
        }
        Err(e) => shared.error(format!("{name}: {e}")),
    }
}

/// File ▸ Save pose (VPD)…: writes the pose at the playhead to `path`
/// (atomically: a temporary file renamed over it).
pub fn save_pose_file(ws: &Workspace, shared: &mut Shared, path: &Path) {
    let name = path.display().to_string();
    match pose_file_bytes(ws) {
        Ok((bytes, frame, left_out)) => match crate::vmd::write::save_bytes_atomic(path, &bytes) {
            Ok(()) => {
                let mut msg = format!("Pose at frame {frame} saved to {name}");
                if !left_out.is_empty() {
                    msg.push_str(&format!(
                        " ({} tracks left out: {})",
                        left_out.len(),
                        left_out.join("; ")
                    ));
                }
                shared.info(msg);
            }
            Err(e) => shared.error(format!("{name}: {e}")),
        },
        Err(e) => shared.error(format!("{name}: {e}")),
    }
}
