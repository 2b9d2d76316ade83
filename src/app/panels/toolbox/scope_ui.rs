//! The "which keys" part of the Mirror and Speed dialogs: every frame or a
//! range (typed, or the loop range, or the selected keys' span), every
//! track or the bones of the selected keys ([`KeyScope`]); and the other
//! motions of the scene a speed change can take along.

use std::collections::BTreeSet;

use crate::vmd::ops::{KeyScope, SpeedSpan};
use crate::workspace::Workspace;
use crate::workspace::document::{Document, KeyRef};

/// A dialog's choice of keys.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopeForm {
    /// Only frames `from..=to` (this motion's frames).
    pub range: bool,
    pub from: u32,
    pub to: u32,
    /// Only the bones of the selected keys.
    pub selected_bones: bool,
}

/// Another motion of the scene, for a scene-wide speed change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SceneMotion {
    pub id: u64,
    pub name: String,
    /// Scene frame = motion frame + offset.
    pub offset: i32,
}

/// The bones (name keys) of the document's selected bone keys.
pub fn selected_bones(doc: &Document) -> BTreeSet<Vec<u8>> {
    doc.view
        .selection
        .iter()
        .filter_map(|k| match k {
            KeyRef::Bone(i) => doc.motion.bones.get(*i as usize),
            _ => None,
        })
        .map(|k| k.name_key().to_vec())
        .collect()
}

/// The keys the form names, or why it names none.
pub fn key_scope(doc: &Document, f: &ScopeForm) -> Result<KeyScope, String> {
    let frames = if f.range {
        if f.from > f.to {
            return Err(format!(
                "From ({}) is after To ({}): the range must run forwards",
                f.from, f.to
            ));
        }
        Some((f.from, f.to))
    } else {
        None
    };
    let bones = if f.selected_bones {
        let set = selected_bones(doc);
        if set.is_empty() {
            return Err(
                "no bone keys are selected: select keys of the bones in the timeline, \
                        or choose every track"
                    .to_owned(),
            );
        }
        Some(set)
    } else {
        None
    };
    Ok(KeyScope { bones, frames })
}

/// Where a scene-wide speed change reaches another motion: the target's
/// span moved into that motion's frames (its offset against the target's).
/// The whole target from its frame 0 is the span from that scene frame on.
pub fn span_for(scope: &KeyScope, target_offset: i32, other_offset: i32) -> SpeedSpan {
    let shift = i64::from(target_offset) - i64::from(other_offset);
    match scope.frames {
        Some((a, b)) => SpeedSpan {
            from: i64::from(a) + shift,
            to: Some(i64::from(b) + shift),
        },
        None => SpeedSpan {
            from: shift,
            to: None,
        },
    }
}

/// Draws the form: frames, then bones. `loop_range`: the timeline's loop
/// range (scene frames), offered as a range in this motion's frames.
pub fn scope_ui(
    ui: &mut egui::Ui,
    doc: &Document,
    f: &mut ScopeForm,
    loop_range: Option<(u32, u32)>,
    offset: i32,
) {
    let last = doc.motion.last_frame().unwrap_or(0);
    ui.horizontal(|ui| {
        ui.label("Frames");
        ui.radio_value(&mut f.range, false, "Every frame");
        if ui.radio_value(&mut f.range, true, "From").changed() && f.from == 0 && f.to == 0 {
            f.to = last;
        }
        ui.add_enabled(f.range, egui::DragValue::new(&mut f.from).speed(0.5));
        ui.label("to");
        ui.add_enabled(f.range, egui::DragValue::new(&mut f.to).speed(0.5));
    });
    ui.horizontal(|ui| {
        if let Some((a, b)) = loop_range.and_then(|r| motion_range(r, offset, last))
            && ui
                .button(format!("Loop range {a}–{b}"))
                .on_hover_text("The timeline's loop range, in this motion's frames")
                .clicked()
        {
            (f.range, f.from, f.to) = (true, a, b);
        }
        if let Some((lo, hi)) = selection_range(doc)
            && ui
                .button(format!("Selected keys {lo}–{hi}"))
                .on_hover_text("The frames the selected keys span")
                .clicked()
        {
            (f.range, f.from, f.to) = (true, lo, hi);
        }
    });
    let bones = selected_bones(doc);
    ui.horizontal(|ui| {
        ui.label("Tracks");
        ui.radio_value(&mut f.selected_bones, false, "Every track");
        let names: Vec<String> = bones
            .iter()
            .take(3)
            .map(|b| crate::vmd::name::name_text(b))
            .collect();
        let label = match bones.len() {
            0 => "Bones of the selected keys (none selected)".to_owned(),
            n if n > names.len() => format!("{n} selected bones ({}, …)", names.join(", ")),
            n => format!(
                "{n} selected bone{} ({})",
                if n == 1 { "" } else { "s" },
                names.join(", ")
            ),
        };
        ui.add_enabled_ui(!bones.is_empty() || f.selected_bones, |ui| {
            ui.radio_value(&mut f.selected_bones, true, label);
        });
    });
}

/// The scene's motions besides document `id` (the actors' motions, the
/// camera and the light, each once), when `id` is one of them; none when
/// it is a file outside the scene.
pub fn scene_motions(ws: &Workspace, id: u64) -> Vec<SceneMotion> {
    let s = ws.scene();
    let ids: Vec<u64> = (s.actors.iter().filter_map(|a| a.motion))
        .chain(s.camera)
        .chain(s.light)
        .collect();
    if !ids.contains(&id) {
        return Vec::new();
    }
    let mut out: Vec<SceneMotion> = Vec::new();
    for other in ids {
        if other == id || out.iter().any(|m| m.id == other) {
            continue;
        }
        if let Some(d) = ws.doc(other) {
            out.push(SceneMotion {
                id: other,
                name: d.title(),
                offset: ws.offset_of(other),
            });
        }
    }
    out
}

/// A scene-frame range as this motion's frames (`motion = scene − offset`),
/// cut to the motion `0..=last`; `None` when nothing of it is left.
pub fn motion_range((a, b): (u32, u32), offset: i32, last: u32) -> Option<(u32, u32)> {
    let to_motion = |f: u32| (i64::from(f) - i64::from(offset)).clamp(0, i64::from(last)) as u32;
    let (ma, mb) = (to_motion(a.min(b)), to_motion(a.max(b)));
    let outside = i64::from(a.max(b)) - i64::from(offset) < 0
        || i64::from(a.min(b)) - i64::from(offset) > i64::from(last);
    (!outside).then_some((ma, mb))
}

/// The range the selected keys span, when they span more than one frame.
pub fn selection_range(doc: &Document) -> Option<(u32, u32)> {
    let frames = doc
        .view
        .selection
        .iter()
        .filter_map(|&k| doc.motion.key_frame(k));
    let (lo, hi) = frames.fold((u32::MAX, 0), |(lo, hi), f| (lo.min(f), hi.max(f)));
    (lo < hi).then_some((lo, hi))
}
