//! Drawing one view's picture: the rendered models, then with egui's
//! painter the grid, axes, skeleton, the overlays in world space (the VMD
//! camera's frustum …), the gizmo, the frame and the read-out.

use egui::{Color32, FontId, Rect, Stroke};
use glam::{Mat4, Vec3};

use super::canvas::{Canvas, WorldOverlays};
use super::{Moment, SceneView, Shot, ViewState};
use crate::app::panels::gizmo::{self, PoseTool};
use crate::app::panels::model_view::{self, ActorFrame};
use crate::app::panels::shots::ShotList;
use crate::model::{BoneTail, Skeleton};
use crate::scene::view::{self, ViewCamera};

/// What one view draws this frame.
pub(super) struct Picture<'a> {
    pub shot: &'a Shot,
    pub view: &'a ViewState,
    pub scene: &'a SceneView<'a>,
    /// The posing tool's view of the frame (joints, gizmo).
    pub frame: &'a gizmo::Frame<'a>,
    /// The posed meshes.
    pub meshes: Vec<ActorFrame>,
    /// The set's bounds: the far plane reaches them.
    pub set_bounds: Option<(glam::Vec3, glam::Vec3)>,
    /// Fast preview (no MSAA, a smaller shadow map, fewer pixels).
    pub fast: bool,
    pub now: &'a Moment,
    /// The VMD camera during playback: the picture only (no gizmo, joints
    /// or axes), as in MMD.
    pub picture_only: bool,
    /// Width / height of the VMD camera's picture (its frustum's shape).
    pub picture_aspect: f32,
    pub shots: &'a ShotList,
    pub problems: &'a [String],
}

/// Draws the view: models (wgpu), grid and skeleton (when the models are
/// not drawn, or on request), world-space overlays, gizmo, frame, read-out
/// and notices.
pub(super) fn picture(ui: &egui::Ui, painter: &egui::Painter, p: Picture, tool: &mut PoseTool) {
    let Picture {
        shot,
        view,
        scene,
        frame,
        meshes,
        set_bounds,
        fast,
        now,
        picture_only,
        picture_aspect,
        shots,
        problems,
    } = p;
    let look = view.look;
    let clip = painter.with_clip_rect(shot.pic_rect);
    let rendered = model_view::draw_scene(
        ui,
        &clip,
        shot.pic_rect,
        view.number,
        meshes,
        &shot.camera,
        scene.light,
        scene.camera,
        now.eval,
        view.show_grid,
        fast,
        &look,
        set_bounds,
        model_view::SceneBackground {
            colour: scene.background,
            image: scene.background_image,
            video: scene.background_video,
        },
    );
    let canvas = Canvas {
        painter: &clip,
        vp: shot.view_proj(),
        rect: shot.pic_rect,
    };
    if view.show_grid && !rendered.drawn {
        draw_grid(&canvas);
    }
    if !picture_only {
        draw_axes(&canvas);
    }
    // Without the renderer the skeleton is the picture.
    if !rendered.drawn || look.skeleton_overlay && !picture_only {
        for (a, world) in scene.actors.iter().zip(frame.worlds) {
            draw_skeleton(&canvas, a.skeleton(), world);
        }
    }
    world_overlays(&WorldOverlays {
        canvas: &canvas,
        shot,
        now,
        picture_aspect,
        ctx: ui.ctx(),
        scene,
        selected: tool.selected.as_ref(),
        view_number: view.number,
    });
    if picture_only {
        tool.clear_drawn(view.number);
    } else {
        gizmo::draw(&clip, frame, tool);
    }
    if shot.through_vmd {
        model_view::frame_overlays(painter, shot.rect, shot.pic_rect, &look, &rendered);
    }
    overlay(
        painter,
        shot.rect,
        view,
        shots,
        shot.through_vmd,
        &shot.camera,
        now.eval,
        scene.actors.iter().any(|a| a.motion.is_some()),
        fast && rendered.drawn,
    );
    let mut notes: Vec<String> = problems.to_vec();
    if let model_view::Status::Unavailable(why) = model_view::status(ui.ctx()) {
        notes.push(why);
    }
    if !notes.is_empty() {
        model_view::notice(
            painter,
            shot.rect,
            egui::pos2(shot.rect.center().x, shot.rect.max.y - 24.0),
            &notes.join("\n"),
        );
    }
}

/// Overlays placed in the scene (MMD space), drawn with this view's
/// projection after the models and skeletons, before the gizmo: the VMD
/// camera's frustum in the free view. Further world-space overlays
/// (motion paths …) go here, one call each.
fn world_overlays(w: &WorldOverlays) {
    if !w.shot.through_vmd
        && let Some(c) = &w.now.camera
    {
        draw_frustum(w.canvas, &ViewCamera::from_state(c), w.picture_aspect);
    }
    super::path::overlay(w);
    super::source_ghost::overlay(w);
}

// ---------------------------------------------------------------- colours

pub(super) const GRID: Color32 = Color32::from_rgb(52, 56, 62);
pub(super) const GRID_MAJOR: Color32 = Color32::from_rgb(72, 77, 85);
pub(super) const X_RED: Color32 = Color32::from_rgb(230, 70, 70);
pub(super) const Y_GREEN: Color32 = Color32::from_rgb(90, 200, 90);
pub(super) const Z_BLUE: Color32 = Color32::from_rgb(80, 130, 250);
pub(super) const BONE: Color32 = Color32::from_rgb(225, 225, 215);
pub(super) const BONE_LEFT: Color32 = Color32::from_rgb(120, 210, 235);
pub(super) const BONE_RIGHT: Color32 = Color32::from_rgb(240, 150, 190);
pub(super) const IK: Color32 = Color32::from_rgb(255, 165, 40);
pub(super) const FRUSTUM: Color32 = Color32::from_rgb(250, 220, 90);
pub(super) const TEXT: Color32 = Color32::from_rgb(210, 210, 210);

/// Side of a bone from its Japanese name: 左 = the model's left (+X).
pub(super) fn side_colour(name: &str) -> Color32 {
    if name.starts_with('左') {
        BONE_LEFT
    } else if name.starts_with('右') {
        BONE_RIGHT
    } else {
        BONE
    }
}

fn draw_grid(c: &Canvas) {
    const HALF: i32 = 20;
    const STEP: f32 = 2.0;
    let extent = HALF as f32 * STEP;
    for i in -HALF..=HALF {
        let v = i as f32 * STEP;
        let colour = if i % 5 == 0 { GRID_MAJOR } else { GRID };
        let stroke = Stroke::new(1.0, colour);
        if i != 0 {
            c.line(
                Vec3::new(v, 0.0, -extent),
                Vec3::new(v, 0.0, extent),
                stroke,
            );
            c.line(
                Vec3::new(-extent, 0.0, v),
                Vec3::new(extent, 0.0, v),
                stroke,
            );
        } else {
            // The axes cover the positive halves.
            c.line(Vec3::new(0.0, 0.0, -extent), Vec3::ZERO, stroke);
            c.line(Vec3::new(-extent, 0.0, 0.0), Vec3::ZERO, stroke);
            c.line(
                Vec3::new(0.0, 0.0, 6.0),
                Vec3::new(0.0, 0.0, extent),
                stroke,
            );
            c.line(
                Vec3::new(6.0, 0.0, 0.0),
                Vec3::new(extent, 0.0, 0.0),
                stroke,
            );
        }
    }
}

fn draw_axes(c: &Canvas) {
    const LEN: f32 = 6.0;
    for (dir, colour, name) in [
        (Vec3::X, X_RED, "X"),
        (Vec3::Y, Y_GREEN, "Y"),
        (Vec3::Z, Z_BLUE, "Z"),
    ] {
        c.line(Vec3::ZERO, dir * LEN, Stroke::new(2.0, colour));
        c.label(dir * LEN, name, colour);
    }
}

fn draw_skeleton(c: &Canvas, skel: &Skeleton, world: &[Mat4]) {
    if world.len() != skel.bones.len() {
        return;
    }
    let pos: Vec<Vec3> = world.iter().map(|m| m.w_axis.truncate()).collect();
    let is_ik = |i: usize| skel.bones[i].flags.ik || skel.iks.iter().any(|ch| ch.ik_bone == i);
    for (i, bone) in skel.bones.iter().enumerate() {
        let colour = if is_ik(i) {
            IK
        } else {
            side_colour(&bone.name)
        };
        if let Some(p) = bone.parent.filter(|&p| p < pos.len()) {
            // IK bones hang off the root: a line to it would only clutter.
            let draw = !is_ik(i) || is_ik(p);
            if draw && (bone.flags.visible || !is_ik(i)) {
                c.line(pos[p], pos[i], Stroke::new(2.0, colour));
            }
        }
        if let Some(BoneTail::Offset(off)) = bone.tail
            && bone.flags.visible
            && off.length_squared() > 1e-6
        {
            let end = world[i].transform_point3(off);
            c.line(pos[i], end, Stroke::new(1.0, colour.gamma_multiply(0.6)));
        }
    }
    for (i, bone) in skel.bones.iter().enumerate() {
        if is_ik(i) {
            c.dot(pos[i], 4.5, IK);
        } else if bone.flags.visible {
            c.dot(pos[i], 2.5, side_colour(&bone.name));
        }
    }
}

/// The VMD camera as a wire pyramid from its eye (a box for an
/// orthographic camera) with its field of view and the picture's aspect
/// ([`view::Frustum`]), its up mark, line of sight and target.
fn draw_frustum(c: &Canvas, cam: &ViewCamera, aspect: f32) {
    let depth = (cam.distance.abs() * 0.3).clamp(2.0, 8.0);
    let f = view::Frustum::of(cam, aspect, depth);
    let eye = f.eye;
    let stroke = Stroke::new(1.5, FRUSTUM);
    for [a, b] in f.edges() {
        c.line(a, b, stroke);
    }
    c.line(f.up_mark[0], f.up_mark[1], stroke);
    c.line(f.up_mark[1], f.up_mark[2], stroke);
    // Line of sight to the target, and the target itself.
    let target = Vec3::from(cam.target);
    c.line(eye, target, Stroke::new(1.0, FRUSTUM.gamma_multiply(0.6)));
    let s = 0.6;
    for d in [Vec3::X, Vec3::Y, Vec3::Z] {
        c.line(target - d * s, target + d * s, stroke);
    }
    c.dot(eye, 3.0, FRUSTUM);
    c.label(eye, "VMD camera", FRUSTUM);
}

/// The view's read-out, in the canvas's bottom-left corner on a dark
/// backing (the model's head is at the top; the floor reads fine under
/// it). Compact in a small canvas (≤ 3 short lines; the mouse hints are on
/// the toolbar's tooltips), wrapped to the canvas so it is never clipped.
/// Says when the picture is Fast preview's (`fast`).
#[allow(clippy::too_many_arguments)]
fn overlay(
    painter: &egui::Painter,
    rect: Rect,
    state: &ViewState,
    shots: &ShotList,
    through_vmd: bool,
    view: &ViewCamera,
    eval: f64,
    has_motion: bool,
    fast: bool,
) {
    let compact = rect.width() < 760.0 || rect.height() < 360.0;
    let font = FontId::monospace(if compact { 11.0 } else { 12.0 });
    let mut head = format!(
        "{}  frame {eval:.2}",
        if through_vmd {
            "VMD camera"
        } else {
            "Free view"
        }
    );
    if let Some((s, count)) = shots.current(eval) {
        head.push_str(&format!(
            "  shot {}/{count} ({}-{})",
            s.number, s.first, s.last
        ));
    }
    if fast {
        head.push_str("  (fast preview)");
    }
    let mut lines = vec![head];
    if !compact {
        lines.push(if through_vmd && state.edit_camera {
            format!(
                "{} (the key at the playhead)",
                state.mouse.hint().trim_end_matches('.')
            )
        } else if through_vmd {
            "the camera's view of the scene".to_owned()
        } else {
            state.mouse.hint().to_owned()
        });
    }
    let deg = view.rotation.map(f32::to_degrees);
    lines.push(format!(
        "target {:.2} {:.2} {:.2}  rot {:.1} {:.1} {:.1} deg",
        view.target[0], view.target[1], view.target[2], deg[0], deg[1], deg[2]
    ));
    lines.push(format!(
        "distance {:.2}  fov {:.0}  {}",
        view.distance,
        view.fov,
        if view.perspective {
            "perspective"
        } else {
            "orthographic"
        }
    ));
    if !has_motion {
        lines.push("rest pose (no bone keys open)".to_owned());
    }
    let wrap = (rect.width() - 16.0).max(40.0);
    let galley = painter.layout(lines.join("\n"), font, TEXT, wrap);
    let size = galley.size();
    let at = egui::pos2(
        rect.left() + 8.0,
        (rect.bottom() - 6.0 - size.y).max(rect.top() + 4.0),
    );
    painter.rect_filled(
        egui::Rect::from_min_size(at - egui::vec2(4.0, 2.0), size + egui::vec2(8.0, 4.0)),
        4.0,
        Color32::from_black_alpha(170),
    );
    painter.galley(at, galley, TEXT);
}
