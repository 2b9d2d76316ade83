//! The value graph's pointer: press on a handle or a key to drag it (one
//! merged undo step per drag), click a key to select it or the background
//! to move the playhead.

use egui::Pos2;

use super::{
    Drag, GraphLayout, GraphTarget, PICK, Pick, State, Unwrap, Value, also_keys, handle_edit,
    key_point, key_ref,
};
use crate::app::panels::PanelCtx;
use crate::scene::value_graph::{self as vg, bone_key_with_value, camera_key_with_value};
use crate::vmd::Motion;
use crate::workspace::document::{Edit, EditRequest, KeyChanges};

/// What the pointer can act on this frame.
pub(super) struct Grab<'a> {
    pub target: GraphTarget,
    pub layout: GraphLayout,
    /// Where each handle and key was drawn.
    pub picks: &'a [(Pos2, Pick)],
    /// The track's selected keys.
    pub selected: &'a [u32],
    pub unwrap: &'a Unwrap<'a>,
}

/// Turns this frame's pointer into a drag, edits, a selection or a seek.
pub(super) fn pointer(
    ui: &egui::Ui,
    resp: &egui::Response,
    cx: &mut PanelCtx,
    state: &mut State,
    g: &Grab,
) {
    let pointer = ui.input(|i| i.pointer.interact_pos());
    if resp.drag_started()
        && let Some(origin) = ui.input(|i| i.pointer.press_origin())
    {
        state.drag = start_drag(&cx.doc.motion, g, origin);
    }
    if resp.dragged()
        && let Some(p) = pointer
        && let Some(drag) = &state.drag
    {
        drag_to(cx, g.target, drag, p);
    }
    if resp.drag_stopped() && state.drag.take().is_some() {
        cx.push(EditRequest::EndMerge);
    }
    if resp.clicked()
        && let Some(p) = pointer
    {
        click(ui, cx, g, p);
    }
}

/// The drag a press at `origin` starts: handles first (they sit over the
/// line), the nearest within reach; a key drags the selection with it.
fn start_drag(m: &Motion, g: &Grab, origin: Pos2) -> Option<Drag> {
    // Handles first (they sit over the line), the nearest within reach.
    let hit = g
        .picks
        .iter()
        .filter(|(p, _)| p.distance(origin) <= PICK)
        .min_by(|a, b| {
            let pri = |k: &Pick| matches!(k, Pick::Key(..)) as u8;
            (pri(&a.1), a.0.distance(origin))
                .partial_cmp(&(pri(&b.1), b.0.distance(origin)))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    match hit.map(|h| h.1) {
        Some(Pick::Handle(value, segment, which)) => Some(Drag::Handle {
            value,
            segment,
            which,
            merge_id: crate::workspace::merge_id(),
            layout: g.layout,
        }),
        Some(Pick::Key(value, k)) => {
            let moved: Vec<u32> = if g.selected.contains(&k) {
                g.selected.to_vec()
            } else {
                vec![k]
            };
            let start = key_point(m, value, k)
                .map(|mut p| {
                    p[1] += g.unwrap.turns(value, p[0], p[1]);
                    p
                })
                .unwrap_or(g.layout.from_screen(origin));
            let (mut bones, mut cameras) = (Vec::new(), Vec::new());
            for i in moved {
                match g.target {
                    GraphTarget::Bone(_) => bones.extend(m.bones.get(i as usize).map(|k| (i, *k))),
                    GraphTarget::Camera(_) => {
                        cameras.extend(m.cameras.get(i as usize).map(|k| (i, *k)))
                    }
                }
            }
            Some(Drag::Key {
                value,
                start,
                bones,
                cameras,
                merge_id: crate::workspace::merge_id(),
                layout: g.layout,
            })
        }
        None => None,
    }
}

/// The edits a drag with the pointer at `p` asks for.
fn drag_to(cx: &mut PanelCtx, target: GraphTarget, drag: &Drag, p: Pos2) {
    match drag {
        Drag::Handle {
            value,
            segment,
            which,
            merge_id,
            layout,
        } => {
            let at = layout.from_screen(p);
            let also = also_keys(&cx.view.selection, target);
            if let Some(edit) = handle_edit(cx.doc, *value, segment, *which, at, &also) {
                let label = format!("Curve {} (value graph)", value.label());
                cx.push(EditRequest::merge(edit, label, *merge_id));
            }
        }
        Drag::Key {
            value,
            start,
            bones,
            cameras,
            merge_id,
            layout,
        } => {
            let now = layout.from_screen(p);
            let df = (now[0] - start[0]).round();
            let dv = now[1] - start[1];
            let mut changes = KeyChanges::default();
            for (i, k) in bones {
                if let Value::Bone(v) = value {
                    let mut n = bone_key_with_value(k, *v, vg::bone_value(*v, k) + dv);
                    n.set_frame(shift(k.frame(), df));
                    changes.bones.push((*i, n));
                }
            }
            for (i, k) in cameras {
                if let Value::Camera(v) = value {
                    let mut n = camera_key_with_value(k, *v, vg::camera_value(*v, k) + dv);
                    n.set_frame(shift(k.frame(), df));
                    changes.cameras.push((*i, n));
                }
            }
            // Only what differs from the document now.
            changes
                .bones
                .retain(|(i, k)| cx.doc.motion.bones.get(*i as usize) != Some(k));
            changes
                .cameras
                .retain(|(i, k)| cx.doc.motion.cameras.get(*i as usize) != Some(k));
            if !changes.is_empty() {
                let n = changes.bones.len() + changes.cameras.len();
                let label = format!(
                    "Move {n} key{} (value graph)",
                    if n == 1 { "" } else { "s" }
                );
                cx.push(EditRequest::merge(Edit::SetKeys(changes), label, *merge_id));
            }
        }
    }
}

/// A click: a key selects it (Shift or Ctrl adds to the selection), the
/// background moves the playhead.
fn click(ui: &egui::Ui, cx: &mut PanelCtx, g: &Grab, p: Pos2) {
    let hit = g
        .picks
        .iter()
        .filter(|(q, _)| q.distance(p) <= PICK)
        .min_by(|a, b| {
            a.0.distance(p)
                .partial_cmp(&b.0.distance(p))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    match hit.map(|h| h.1) {
        Some(Pick::Key(_, k)) => {
            let r = key_ref(g.target, k);
            if !ui.input(|i| i.modifiers.shift || i.modifiers.command) {
                cx.view.selection.clear();
            }
            cx.view.selection.insert(r);
            cx.view.active = Some(r);
        }
        Some(Pick::Handle(..)) => {}
        None => {
            let f = g.layout.from_screen(p)[0].round().max(0.0);
            cx.shared.transport.frame = f;
        }
    }
}

/// `frame` moved by `df` whole frames, kept in 0..=u32::MAX.
fn shift(frame: u32, df: f64) -> u32 {
    (f64::from(frame) + df).clamp(0.0, f64::from(u32::MAX)) as u32
}
