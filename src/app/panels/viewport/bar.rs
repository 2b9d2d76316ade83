//! A view's toolbar (camera, options, mouse) and the side panel (posing,
//! shots, bindings).

use super::{MouseMap, Posing, SceneView, ViewMode, ViewState};
use crate::app::panels::{Shared, gizmo, model_view};
use crate::model::physics::SimulationMode;

use crate::scene::view::ViewCamera;
use crate::workspace::document::EditRequest;

/// The view's toolbar, one row where it fits: which camera, Reset view,
/// Register camera key, Drag edits camera key, and the Options menu.
pub(super) fn toolbar(
    ui: &mut egui::Ui,
    scene: &SceneView,
    has_cam: bool,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
    posing: &mut Posing,
    state: &mut ViewState,
) {
    ui.horizontal_wrapped(|ui| {
        ui.add_enabled_ui(has_cam, |ui| {
            ui.selectable_value(&mut state.mode, ViewMode::VmdCamera, "VMD camera")
                .on_hover_text("Look through the camera of the open camera file at the playhead")
                .on_disabled_hover_text("No open file has camera keys");
        });
        ui.selectable_value(&mut state.mode, ViewMode::Free, "Free view")
            .on_hover_text(state.mouse.hint());
        if ui
            .button("Reset view")
            .on_hover_text("Free view from the front, at MMD's default camera")
            .clicked()
        {
            state.free = ViewCamera::FRONT;
            state.mode = ViewMode::Free;
        }
        if state.mode == ViewMode::Free
            && ui
                .add_enabled(
                    scene.camera.is_some(),
                    egui::Button::new("Register camera key"),
                )
                .on_hover_text(
                    "Write this view (target, angles, distance, field of view) as a camera key \
                     at the playhead in the scene's camera file. One undo step. Enter does the \
                     same when no bone is selected.",
                )
                .on_disabled_hover_text("The scene has no camera file")
                .clicked()
        {
            let frame = shared.transport.frame;
            gizmo::register_camera_key(scene.camera, &state.free, frame, edits, shared);
        }
        if has_cam && state.mode == ViewMode::VmdCamera {
            ui.checkbox(&mut state.edit_camera, "Drag edits camera key")
                .on_hover_text(
                    "In VMD-camera view, orbit / pan / wheel change the scene camera's key at \
                     the playhead. One undo step per drag.",
                );
        }
        ui.menu_button("Options", |ui| options(ui, shared, posing, state))
            .response
            .on_hover_text(
                "Preview rate, physics, Fast preview, grid, frame, guides, skeleton, shadows and \
                 the mouse",
            );
    });
}

/// The Options menu: the preview rate, physics and Fast preview (shared by
/// the views), then this view's grid, frame, guides, skeleton, shadows and
/// mouse.
fn options(ui: &mut egui::Ui, shared: &mut Shared, posing: &mut Posing, state: &mut ViewState) {
    let rate_text = |r: u32| {
        if r == 30 {
            "30 fps (as MMD)".to_owned()
        } else {
            format!("{r} fps")
        }
    };
    let rate = shared.transport.preview_rate;
    ui.menu_button(format!("Preview rate: {}", rate_text(rate)), |ui| {
        for r in [30, 60, 120] {
            ui.radio_value(&mut shared.transport.preview_rate, r, rate_text(r));
        }
    })
    .response
    .on_hover_text(
        "Cuts stay hard at every rate: between keys A and A+1 the camera holds key A for every \
         sub-frame.",
    );
    ui.menu_button(format!("Physics: {}", posing.physics.label()), |ui| {
        for m in SimulationMode::ALL {
            ui.radio_value(&mut posing.physics, m, m.label());
        }
    })
    .response
    .on_hover_text(
        "When hair, skirts and accessories are simulated (MMD's physics menu): Off; While \
         playing (MMD's default; a frame picked while stopped shows the bodies settled there); \
         Always (also while stopped); Trace (forward while scrubbing forward; a jump back or far \
         ahead resets). Dragging a bone with the gizmo poses its actor without physics.",
    );
    ui.checkbox(&mut posing.collide_actors, Posing::COLLIDE_ACTORS)
        .on_hover_text(Posing::COLLIDE_ACTORS_TIP);
    ui.checkbox(&mut posing.fast_preview, Posing::FAST_PREVIEW)
        .on_hover_text(Posing::FAST_PREVIEW_TIP);
    ui.menu_button(format!("Mouse: {}", state.mouse.short()), |ui| {
        for m in MouseMap::ALL {
            ui.radio_value(&mut state.mouse, m, m.label());
        }
    })
    .response
    .on_hover_text(format!(
        "What the mouse does in this view. Now: {}",
        state.mouse.hint()
    ));
    ui.separator();
    ui.checkbox(&mut state.show_grid, "Grid");
    model_view::settings_ui(ui, &mut state.look);
}

/// The side panel: posing, the shot list, each actor's binding.
pub(super) fn side_panel(
    ui: &mut egui::Ui,
    scene: &SceneView,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
    state: &mut Posing,
) {
    let eval = shared.transport.eval_frame();
    egui::ScrollArea::vertical()
        .id_salt("viewport-side-scroll")
        .show(ui, |ui| {
            let playhead = shared.transport.frame;
            gizmo::side_ui(ui, scene, playhead, edits, shared, &mut state.pose);
            ui.separator();
            state.shots.ui(ui, scene.camera, eval, shared);
            ui.separator();
            if scene.actors.is_empty() {
                ui.weak("No actors in the scene.");
            }
            match scene.camera {
                Some(d) => ui.weak(format!("Camera: {}", d.title())),
                None => ui.weak("Camera: none"),
            };
            for (i, a) in scene.actors.iter().enumerate() {
                let motion = a
                    .motion
                    .map_or("no motion (rest pose)".to_owned(), |d| d.title());
                let offset = if a.offset != 0 {
                    format!(", offset {:+}", a.offset)
                } else {
                    String::new()
                };
                ui.strong(a.name);
                ui.weak(format!(
                    "{motion} on {} bones{offset}",
                    a.skeleton().bones.len()
                ));
                match state.binding(i) {
                    Some(b) => {
                        let mapped = b.bound_bones();
                        let unknown = &b.missing.bones;
                        ui.weak(format!("{mapped} skeleton bones driven by the motion"));
                        egui::CollapsingHeader::new(format!("Not in skeleton ({})", unknown.len()))
                            .id_salt(("viewport-unknown-bones", i))
                            .default_open(false)
                            .show(ui, |ui| {
                                if unknown.is_empty() {
                                    ui.weak("Every bone of the motion is in the skeleton.");
                                }
                                for n in unknown {
                                    ui.label(n);
                                }
                            });
                    }
                    None => {
                        ui.weak("No motion: the skeleton shows its rest pose.");
                    }
                }
            }
            ui.separator();
            ui.weak("Bone colours (?)")
                .on_hover_text("Left-side bones blue, right-side pink, IK bones orange.");
        });
}
