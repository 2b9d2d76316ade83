//! The edits the curve editor sends: which keys and channels an edit goes
//! to (the active key, "Link X/Y/Z", "Apply to selected keys"), the edit
//! itself (through the core's curve planners, so only interpolation bytes
//! change) and "Copy all curves to the selection".

use super::{State, Target};
use crate::app::panels::PanelCtx;
use crate::vmd::curve_edit::{self, plan_bone_curve, plan_camera_curve};
use crate::vmd::{BoneChannel, CameraChannel, Curve};
use crate::workspace::document::{Document, Edit, EditRequest, KeyChanges, KeyRef};

/// The keys an edit of the active key goes to: the active one, plus every
/// selected key of the same kind when "apply to selected keys" is on.
pub(super) fn edit_targets(cx: &PanelCtx, target: Target, to_selection: bool) -> Vec<usize> {
    let mut keys = vec![match target {
        Target::Bone(i) | Target::Camera(i) => i as usize,
    }];
    if to_selection {
        for k in &cx.view.selection {
            match (target, k) {
                (Target::Bone(_), KeyRef::Bone(i)) | (Target::Camera(_), KeyRef::Camera(i)) => {
                    keys.push(*i as usize)
                }
                _ => {}
            }
        }
    }
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The channels an edit of channel `c` goes to.
fn edit_channels(c: usize, link_xyz: bool) -> Vec<usize> {
    if link_xyz && c < 3 {
        vec![0, 1, 2]
    } else {
        vec![c]
    }
}

/// The edit that sets `curve` on `channels` of `keys`, holding only the keys
/// whose bytes change; `None` when nothing would change.
pub fn curve_edit_for(
    doc: &Document,
    camera: bool,
    keys: &[usize],
    channels: &[usize],
    curve: Curve,
) -> Option<Edit> {
    let mut changes = KeyChanges::default();
    if camera {
        let chans: Vec<CameraChannel> = channels
            .iter()
            .filter_map(|&c| CameraChannel::ALL.get(c).copied())
            .collect();
        let plan = plan_camera_curve(&doc.motion, keys, &chans, curve).ok()?;
        for ch in plan.into_iter().filter(|c| !c.is_noop()) {
            let mut k = doc.motion.cameras[ch.key];
            k.set_interpolation_block(ch.after);
            changes.cameras.push((ch.key as u32, k));
        }
    } else {
        let chans: Vec<BoneChannel> = channels
            .iter()
            .filter_map(|&c| BoneChannel::ALL.get(c).copied())
            .collect();
        let plan = plan_bone_curve(&doc.motion, keys, &chans, curve).ok()?;
        for ch in plan.into_iter().filter(|c| !c.is_noop()) {
            let mut k = doc.motion.bones[ch.key];
            k.set_interpolation_block(ch.after);
            changes.bones.push((ch.key as u32, k));
        }
    }
    (!changes.is_empty()).then_some(Edit::SetKeys(changes))
}

/// How a change is sent to the document.
#[derive(Debug, Clone, Copy)]
pub(super) enum Send {
    /// Its own undo step.
    Step,
    /// Merged into the open step `merge_id` (a drag in progress).
    Merge(u64),
}

pub(super) fn send_curve(
    cx: &mut PanelCtx,
    state: &State,
    target: Target,
    c: usize,
    curve: Curve,
    how: Send,
) {
    let keys = edit_targets(cx, target, state.apply_to_selection);
    let channels = edit_channels(c, state.link_xyz);
    let camera = matches!(target, Target::Camera(_));
    let Some(edit) = curve_edit_for(cx.doc, camera, &keys, &channels, curve) else {
        return;
    };
    let names: Vec<&str> = channels.iter().map(|&c| target.label(c)).collect();
    let label = format!(
        "Curve {} → {} on {} key{}",
        names.join("/"),
        curve_edit::format_curve(curve),
        keys.len(),
        if keys.len() == 1 { "" } else { "s" }
    );
    cx.push(match how {
        Send::Step => EditRequest::apply(edit, label),
        Send::Merge(id) => EditRequest::merge(edit, label, id),
    });
}

/// Writes every channel of the active key to all selected keys of its kind.
pub(super) fn copy_all_to_selection(cx: &mut PanelCtx, target: Target) {
    let Some(curves) = target.curves(cx.doc) else {
        return;
    };
    let keys = edit_targets(cx, target, true);
    let camera = matches!(target, Target::Camera(_));
    // Compose per channel on a scratch copy of the changed records.
    let mut changes = KeyChanges::default();
    let mut scratch = cx.doc.clone();
    for (c, &curve) in curves.iter().enumerate() {
        if let Some(Edit::SetKeys(k)) = curve_edit_for(&scratch, camera, &keys, &[c], curve) {
            for (i, key) in &k.bones {
                scratch.motion.bones[*i as usize] = *key;
            }
            for (i, key) in &k.cameras {
                scratch.motion.cameras[*i as usize] = *key;
            }
            changes.bones.extend(k.bones);
            changes.cameras.extend(k.cameras);
        }
    }
    // Keep the last version of each record.
    changes.bones.reverse();
    let mut seen = std::collections::HashSet::new();
    changes.bones.retain(|(i, _)| seen.insert(*i));
    changes.cameras.reverse();
    seen.clear();
    changes.cameras.retain(|(i, _)| seen.insert(*i));
    let n = changes.bones.len() + changes.cameras.len();
    if n > 0 {
        cx.push(EditRequest::apply(
            Edit::SetKeys(changes),
            format!("Copy curves to {n} keys"),
        ));
    }
}
