//! What the mouse does in a view: orbit, pan, zoom — the free view, or
//! the camera key at the playhead — with the view's [`MouseMap`] (input;
//! returns edits, never draws the scene). Picking and gizmo drags are the
//! posing tool's.

use super::{MouseMap, ViewState};
use crate::app::panels::Shared;
use crate::scene::view::ViewCamera;
use crate::workspace::document::{Document, Edit, EditRequest, KeyChanges};

/// Orbit / pan / zoom: the free view, or (when enabled) the camera key at the playhead.
#[allow(clippy::too_many_arguments)]
pub(super) fn interact(
    ui: &egui::Ui,
    response: &egui::Response,
    cam_doc: Option<&Document>,
    through_vmd: bool,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
    state: &mut ViewState,
) {
    let height = response.rect.height();
    let (orbit, pan) = gesture(response, state.mouse);
    let delta = response.drag_delta();
    let scroll = if response.hovered() {
        ui.input(|i| i.smooth_scroll_delta.y)
    } else {
        0.0
    };
    let apply = |c: &mut ViewCamera| {
        if orbit {
            c.orbit(delta.x, delta.y);
        } else if pan {
            c.pan(delta.x, delta.y, height);
        }
        if scroll != 0.0 {
            c.zoom(scroll);
        }
    };

    if !through_vmd {
        if response.double_clicked() {
            state.free = ViewCamera::FRONT;
        }
        apply(&mut state.free);
        return;
    }
    // VMD camera view: gestures edit the key at the playhead, if allowed.
    let moving = (orbit || pan) && delta != egui::Vec2::ZERO || scroll != 0.0;
    let ended = response.drag_stopped();
    let Some(doc) = cam_doc else {
        return;
    };
    if !state.edit_camera || shared.transport.playing {
        if state.edit_camera && response.drag_started() {
            shared.info("Camera editing needs playback stopped");
        }
        return;
    }
    let frame = shared.transport.frame.round().max(0.0) as u32;
    let key_index = doc.index.camera.iter().rev().copied().find(|&i| {
        doc.motion
            .cameras
            .get(i as usize)
            .is_some_and(|k| k.frame() == frame)
    });
    if moving {
        let Some(ki) = key_index else {
            if response.drag_started() || scroll != 0.0 {
                shared.info(format!("No camera key at frame {frame} to edit"));
            }
            return;
        };
        let Some(key) = doc.motion.cameras.get(ki as usize) else {
            return;
        };
        let mut c = ViewCamera {
            target: key.target(),
            rotation: key.rotation(),
            distance: key.distance(),
            fov: key.fov() as f32,
            perspective: key.perspective(),
        };
        // Edit the key itself (inside a cut the view may show the previous key).
        apply(&mut c);
        let mut new = *key;
        new.set_target(c.target);
        new.set_rotation(c.rotation);
        new.set_distance(c.distance);
        // One undo step per drag, and one per run of wheel turns.
        let id = if orbit || pan {
            *state
                .drag_merge
                .get_or_insert_with(crate::workspace::merge_id)
        } else {
            *state
                .wheel_merge
                .get_or_insert_with(crate::workspace::merge_id)
        };
        let label = gesture_label(orbit, pan);
        edits.push((
            doc.id,
            EditRequest::merge(
                Edit::SetKeys(KeyChanges {
                    cameras: vec![(ki, new)],
                    ..Default::default()
                }),
                label,
                id,
            ),
        ));
    }
    if ended && state.drag_merge.take().is_some() {
        edits.push((doc.id, EditRequest::EndMerge));
    }
    if scroll == 0.0 && !(orbit || pan) && state.wheel_merge.take().is_some() {
        edits.push((doc.id, EditRequest::EndMerge));
    }
}

/// The undo label of a camera-key gesture.
fn gesture_label(orbit: bool, pan: bool) -> &'static str {
    if orbit {
        "Orbit camera key"
    } else if pan {
        "Pan camera key"
    } else {
        "Zoom camera key"
    }
}

/// Whether the pointer drags to (orbit, pan) under `map`.
fn gesture(response: &egui::Response, map: MouseMap) -> (bool, bool) {
    let (orbit, pan) = map.buttons();
    let by = |buttons: &[egui::PointerButton]| buttons.iter().any(|&b| response.dragged_by(b));
    (by(orbit), by(pan))
}
