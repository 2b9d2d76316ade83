//! 3D preview: the skeleton posed by the open motion, seen through the VMD
//! camera or from a free orbit view, drawn with egui's painter (no GPU code).
//!
//! Coordinates are MMD's: left-handed, Y up, a model faces −Z (its left side
//! at +X), in model units (a character is about 20 tall); camera angles in
//! radians, field of view in degrees, frames at 30 per second.
//!
//! Both views are MMD cameras (target, Euler rotation, distance, fov), so the
//! free view and the VMD camera share one projection path:
//! [`ViewCamera::view_proj`] (`vmd::camera::projection_matrix ·
//! view_matrix`, left-handed, +Z forward) then [`project_point`] /
//! [`project_segment`], which put view-space +X on the right of the screen
//! and +Y up. Seen from the front (eye at −Z looking towards +Z) the model's
//! left hand (+X) is therefore on the viewer's right, as in MMD.

use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, pos2};
use glam::{Mat4, Quat, Vec3, Vec4};

use super::Shared;
use super::gizmo::{self, PoseTool};
use super::model_view;
use super::shots::{self, NearCut, Shot};
use crate::app::document::{Document, Edit, EditRequest, KeyChanges};
use crate::model::{BoneTail, Skeleton};
use crate::model::{Model, PoseEngine, replace_bone};
use crate::vmd::evaluate::{self, CameraState};
use crate::vmd::{MotionRef, camera};

mod draw;
mod input;

use draw::*;
use input::*;

// ------------------------------------------------------------------ camera

/// A camera in MMD's own terms; used for the VMD camera and the free view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewCamera {
    /// Look-at point, MMD coordinates.
    pub target: [f32; 3],
    /// Euler angles x, y, z in radians (MMD camera convention).
    pub rotation: [f32; 3],
    /// Distance from the target; negative = pulled back (MMD's usual sign).
    pub distance: f32,
    /// Vertical field of view in degrees.
    pub fov: f32,
    pub perspective: bool,
}

impl ViewCamera {
    /// The default free view: MMD's default camera, in front of the model
    /// (eye at (0, 10, −45) looking towards +Z, at the model's front).
    pub const FRONT: ViewCamera = ViewCamera {
        target: [0.0, 10.0, 0.0],
        rotation: [0.0, 0.0, 0.0],
        distance: -45.0,
        fov: 30.0,
        perspective: true,
    };

    /// The evaluated VMD camera.
    pub fn from_state(c: &CameraState) -> Self {
        ViewCamera {
            target: c.target,
            rotation: c.rotation,
            distance: c.distance,
            fov: c.fov,
            perspective: c.perspective,
        }
    }

    /// Eye position (MMD coordinates): `target + Ry(−ry)·Rx(−rx)·Rz(−rz)·(0, 0, distance)`.
    pub fn eye(&self) -> Vec3 {
        Vec3::from(camera::eye_position(
            self.target,
            self.rotation,
            self.distance,
        ))
    }

    /// Camera right, up and forward directions in MMD space (unit vectors).
    pub fn basis(&self) -> (Vec3, Vec3, Vec3) {
        let r = camera::camera_rotation(self.rotation);
        (r * Vec3::X, r * Vec3::Y, r * Vec3::Z)
    }

    /// MMD space → clip space for a viewport of `aspect` = width / height.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        camera::projection_matrix(self.fov, aspect, self.perspective, self.distance)
            * camera::view_matrix(self.target, self.rotation, self.distance)
    }

    /// World units per screen pixel at the target's depth, for a viewport
    /// `height` pixels tall.
    fn units_per_pixel(&self, height: f32) -> f32 {
        let half = (self.fov.to_radians() * 0.5).tan();
        (2.0 * self.distance.abs().max(0.05) * half / height.max(1.0)).max(1e-5)
    }

    /// Orbit by a pointer movement of (`dx`, `dy`) pixels: the scene follows
    /// the pointer (drag right → the eye swings to the camera's left).
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        const RAD_PER_PX: f32 = 0.008;
        self.rotation[1] -= dx * RAD_PER_PX;
        self.rotation[0] -= dy * RAD_PER_PX;
    }

    /// Pan by a pointer movement of (`dx`, `dy`) pixels in a viewport
    /// `height` pixels tall: the point under the pointer stays under it.
    pub fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let (right, up, _) = self.basis();
        let s = self.units_per_pixel(height);
        let t = Vec3::from(self.target) - right * (dx * s) + up * (dy * s);
        self.target = t.to_array();
    }

    /// Zoom by a wheel movement of `scroll` points (positive = closer).
    pub fn zoom(&mut self, scroll: f32) {
        let factor = (-scroll * 0.0015).exp();
        let base = if self.distance.abs() < 0.05 {
            -0.05
        } else {
            self.distance
        };
        let d = base * factor;
        self.distance = d.signum() * d.abs().clamp(0.05, 50_000.0);
    }
}

// -------------------------------------------------------------- projection

/// Clip-space point → screen point in `rect`: NDC x to the right, NDC y up.
fn clip_to_screen(c: Vec4, rect: Rect) -> Option<Pos2> {
    if c.w.abs() < 1e-12 {
        return None;
    }
    let (x, y) = (c.x / c.w, c.y / c.w);
    let p = pos2(
        rect.center().x + x * rect.width() * 0.5,
        rect.center().y - y * rect.height() * 0.5,
    );
    (p.x.is_finite() && p.y.is_finite()).then_some(p)
}

/// Screen position of MMD-space point `p`, or `None` behind the near plane.
pub fn project_point(view_proj: &Mat4, p: Vec3, rect: Rect) -> Option<Pos2> {
    let c = *view_proj * p.extend(1.0);
    if !(c.z >= 0.0 && c.w > 0.0) {
        return None;
    }
    clip_to_screen(c, rect)
}

/// Screen end points of the segment `a`–`b`, clipped against the near plane
/// (clip z ≥ 0), or `None` when it lies wholly behind it.
pub fn project_segment(view_proj: &Mat4, a: Vec3, b: Vec3, rect: Rect) -> Option<[Pos2; 2]> {
    let ca = *view_proj * a.extend(1.0);
    let cb = *view_proj * b.extend(1.0);
    let (da, db) = (ca.z, cb.z);
    if !(da >= 0.0 || db >= 0.0) {
        return None;
    }
    let cut = |from: Vec4, to: Vec4, df: f32, dt: f32| {
        let t = df / (df - dt);
        from + (to - from) * t
    };
    let ca2 = if da < 0.0 { cut(ca, cb, da, db) } else { ca };
    let cb2 = if db < 0.0 { cut(cb, ca, db, da) } else { cb };
    if ca2.w <= 0.0 || cb2.w <= 0.0 {
        return None;
    }
    Some([clip_to_screen(ca2, rect)?, clip_to_screen(cb2, rect)?])
}

// ------------------------------------------------------- which documents

/// The document to take something from: the active one if it qualifies,
/// else the first that does.
pub fn pick_source(active: usize, qualifies: &[bool]) -> Option<usize> {
    if qualifies.get(active).copied().unwrap_or(false) {
        return Some(active);
    }
    qualifies.iter().position(|&q| q)
}

// ----------------------------------------------------------- the scene

/// One actor as the viewport sees it.
#[derive(Debug, Clone, Copy)]
pub struct ActorView<'a> {
    pub name: &'a str,
    /// The model file (`None`: the built-in skeleton, rendered as the demo mannequin).
    pub model_path: Option<&'a std::path::Path>,
    /// The model file, once loaded (models load in the background).
    pub model: Option<&'a std::sync::Arc<model_view::ModelAsset>>,
    /// The model the actor is posed with: its file's once loaded, else the
    /// built-in skeleton (a model with no mesh). Skeleton, joints and gizmo
    /// come from its pose.
    pub rig: &'a Model,
    /// The motion it wears (none: rest pose).
    pub motion: Option<&'a Document>,
    /// Scene frame − offset = the motion's frame.
    pub offset: i32,
}

impl<'a> ActorView<'a> {
    /// The bones of [`ActorView::rig`].
    pub fn skeleton(&self) -> &'a Skeleton {
        &self.rig.skeleton
    }
}

/// What the viewport shows: which actors, which camera; the frame comes
/// from the transport. A renderer hooks in here: everything it needs to
/// draw a frame is in this value and [`posed_world`].
#[derive(Debug, Clone, Default)]
pub struct SceneView<'a> {
    pub actors: Vec<ActorView<'a>>,
    pub camera: Option<&'a Document>,
    pub light: Option<&'a Document>,
    /// The actor selected in the scene panel.
    pub selected: Option<usize>,
}

// ---------------------------------------------------------------- posing

/// Bone world matrices (MMD model space) of `rig` wearing `motion` (rest
/// pose without one; a document's is [`Document::source`]) at motion frame `frame`, through the one pose engine: the
/// document's evaluation cache, MMD's name binding, the poser (bone morphs,
/// append, IK switched by the motion's IK keys). The viewport keeps an
/// engine per actor; this builds one for a single look (tests, tools).
pub fn posed_world(rig: &Model, motion: Option<MotionRef<'_>>, frame: f64) -> Vec<Mat4> {
    let mut engine = PoseEngine::new(rig);
    engine.bind(rig, motion.map(|m| m.index));
    engine.pose_bones(rig, motion, frame, |_| {});
    std::mem::take(&mut engine.posed.bone_world)
}

// ----------------------------------------------------------------- state

/// Which camera the viewport looks through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ViewMode {
    /// The evaluated camera of the open camera file (free view if none).
    #[default]
    VmdCamera,
    /// The user's own orbit / pan / zoom view.
    Free,
}

/// A bone's local values replaced by the posing tool: (bone, translation, rotation).
type Override = Option<(usize, Vec3, Quat)>;

/// One actor's pose engine, made again for a new model and rebound when
/// its document changes.
#[derive(Debug)]
struct ActorPose {
    /// The model's address: a new model is a new engine.
    rig: usize,
    engine: PoseEngine,
    /// The document (id, revision) the engine is bound to.
    bound: Option<(u64, u64)>,
    /// The last pose's frame and override (its matrices are
    /// `engine.posed.bone_world`).
    last: Option<(f64, Override)>,
}

/// Cached shots of the camera document.
#[derive(Debug)]
struct ShotCache {
    doc_id: u64,
    revision: u64,
    shots: Vec<Shot>,
    near: Vec<NearCut>,
}

/// Persistent UI state of the viewport.
#[derive(Debug)]
pub struct State {
    /// VMD camera or free view.
    pub mode: ViewMode,
    /// The free orbit view.
    pub free: ViewCamera,
    /// In VMD-camera view, dragging edits the camera key at the playhead.
    pub edit_camera: bool,
    pub show_grid: bool,
    /// One pose engine per actor, by actor index.
    poses: Vec<Option<ActorPose>>,
    shots: Option<ShotCache>,
    /// Merge id of the camera-key drag in progress.
    drag_merge: Option<u64>,
    /// Merge id of wheel zooming on the camera key, and whether it scrolled last frame.
    wheel_merge: Option<u64>,
    last_shot: Option<usize>,
    /// Posing: the selected bone, the gizmo, unregistered poses.
    pub pose: PoseTool,
}

impl State {
    /// Sets the view from the `--view` flag: `camera`, `free`, or
    /// `free:RX,RY,DISTANCE[,TX,TY,TZ]` (degrees, degrees, units, look-at
    /// point) to orbit the free view.
    pub fn set_view_mode(&mut self, spec: &str) {
        apply_view_override(self, spec);
    }
}

impl Default for State {
    fn default() -> Self {
        State {
            mode: ViewMode::default(),
            free: ViewCamera::FRONT,
            edit_camera: false,
            show_grid: true,
            poses: Vec::new(),
            shots: None,
            drag_merge: None,
            wheel_merge: None,
            last_shot: None,
            pose: PoseTool::default(),
        }
    }
}

impl State {
    fn merge_id(&mut self) -> u64 {
        crate::workspace::merge_id()
    }
}

// ---------------------------------------------------------------- colours

const BG: Color32 = Color32::from_rgb(24, 26, 30);
const GRID: Color32 = Color32::from_rgb(52, 56, 62);
const GRID_MAJOR: Color32 = Color32::from_rgb(72, 77, 85);
const X_RED: Color32 = Color32::from_rgb(230, 70, 70);
const Y_GREEN: Color32 = Color32::from_rgb(90, 200, 90);
const Z_BLUE: Color32 = Color32::from_rgb(80, 130, 250);
const BONE: Color32 = Color32::from_rgb(225, 225, 215);
const BONE_LEFT: Color32 = Color32::from_rgb(120, 210, 235);
const BONE_RIGHT: Color32 = Color32::from_rgb(240, 150, 190);
const IK: Color32 = Color32::from_rgb(255, 165, 40);
const FRUSTUM: Color32 = Color32::from_rgb(250, 220, 90);
const TEXT: Color32 = Color32::from_rgb(210, 210, 210);

/// Side of a bone from its Japanese name: 左 = the model's left (+X).
fn side_colour(name: &str) -> Color32 {
    if name.starts_with('左') {
        BONE_LEFT
    } else if name.starts_with('右') {
        BONE_RIGHT
    } else {
        BONE
    }
}

struct Canvas<'a> {
    painter: &'a egui::Painter,
    vp: Mat4,
    rect: Rect,
}

impl Canvas<'_> {
    fn line(&self, a: Vec3, b: Vec3, stroke: Stroke) {
        if let Some(seg) = project_segment(&self.vp, a, b, self.rect) {
            self.painter.line_segment(seg, stroke);
        }
    }
    fn dot(&self, p: Vec3, radius: f32, colour: Color32) {
        if let Some(s) = project_point(&self.vp, p, self.rect) {
            self.painter.circle_filled(s, radius, colour);
        }
    }
    fn label(&self, p: Vec3, text: &str, colour: Color32) {
        if let Some(s) = project_point(&self.vp, p, self.rect)
            && self.rect.expand(40.0).contains(s)
        {
            self.painter.text(
                s + egui::vec2(4.0, -4.0),
                Align2::LEFT_BOTTOM,
                text,
                FontId::proportional(13.0),
                colour,
            );
        }
    }
}

// -------------------------------------------------------------------- ui

/// Draws the viewport: every actor of the scene posed at the playhead
/// (each at its own offset), seen through the scene camera or the free view,
/// with the posing tool on top. `edits` are (document id, request): the
/// scene camera's keys and the actors' motions.
pub fn ui(
    ui: &mut egui::Ui,
    scene: &SceneView,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
    state: &mut State,
) {
    let eval = shared.transport.eval_frame();

    // Camera at the playhead.
    let vmd_cam = scene
        .camera
        .and_then(|d| evaluate::camera_at(&d.motion, &d.index, eval));

    // Shots of the camera document.
    refresh_shots(state, scene.camera);

    toolbar(ui, scene, vmd_cam.is_some(), edits, shared, state);

    // Pose engines, one per actor.
    state.poses.resize_with(scene.actors.len(), || None);
    for (slot, a) in state.poses.iter_mut().zip(&scene.actors) {
        refresh_engine(slot, a);
    }
    let playhead = shared.transport.frame;
    state.pose.sync(scene, playhead);

    egui::Panel::right("viewport-side")
        .resizable(true)
        .default_size(250.0)
        .show(ui, |ui| side_panel(ui, scene, edits, shared, state));

    // Poses at the evaluated frame, each actor at its own offset (with the
    // posing tool's unregistered pose, if it has one for the actor).
    let worlds: Vec<Vec<Mat4>> = scene
        .actors
        .iter()
        .zip(state.poses.iter_mut())
        .enumerate()
        .map(|(i, (a, slot))| {
            let frame = eval - f64::from(a.offset);
            let replace = a.motion.and_then(|d| {
                let (name, t, q) =
                    state
                        .pose
                        .override_for(i, d, gizmo::motion_frame(playhead, a.offset))?;
                Some((a.skeleton().find(name)?, t, q))
            });
            match slot {
                Some(p) => pose(p, a, frame, replace).to_vec(),
                None => Vec::new(),
            }
        })
        .collect();

    let size = ui.available_size();
    let (response, painter) = ui.allocate_painter(size, Sense::click_and_drag());
    let rect = response.rect;
    painter.rect_filled(rect, 0.0, BG);

    let through_vmd = state.mode == ViewMode::VmdCamera && vmd_cam.is_some();
    let view = match (through_vmd, vmd_cam) {
        (true, Some(c)) => ViewCamera::from_state(&c),
        _ => state.free,
    };
    // Through the VMD camera the picture has the output's shape (16:9 …),
    // centred, and the field of view applies to its height, as in the video.
    let look = model_view::settings(ui.ctx());
    let pic_rect = if through_vmd {
        model_view::frame_rect(rect, look.aspect_ratio())
    } else {
        rect
    };
    let aspect = pic_rect.width() / pic_rect.height().max(1.0);
    let pose_frame = gizmo::Frame {
        scene,
        worlds: &worlds,
        screen: crate::model::gizmo::Screen {
            view_proj: view.view_proj(aspect),
            min: glam::Vec2::new(pic_rect.min.x, pic_rect.min.y),
            size: glam::Vec2::new(pic_rect.width(), pic_rect.height()),
        },
        view,
        pic_rect,
        scene_frame: playhead,
    };

    // The posing tool takes clicks on joints and drags on the gizmo; the
    // view orbits (or edits the camera key) otherwise.
    let posing = gizmo::interact(&response, &pose_frame, edits, shared, &mut state.pose);
    if !posing {
        interact(
            ui,
            &response,
            scene.camera,
            through_vmd,
            edits,
            shared,
            state,
        );
    }
    // Enter registers (as in MMD): the selected bone's pose, or in the
    // free view with no bone selected, the view as a camera key.
    if !ui.ctx().egui_wants_keyboard_input()
        && ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Enter))
    {
        if state.pose.selected.is_some() {
            gizmo::register_bone_key(scene, playhead, edits, shared, &mut state.pose);
        } else if !through_vmd {
            gizmo::register_camera_key(scene.camera, &state.free, playhead, edits, shared);
        }
    }

    // The models, rendered (wgpu); skeletons stay as the fallback or overlay.
    let hook_actors: Vec<model_view::HookActor> = scene
        .actors
        .iter()
        .enumerate()
        .map(|(i, a)| model_view::HookActor {
            model_path: a.model_path,
            model: a.model,
            motion: a.motion,
            offset: a.offset,
            pose_override: a.motion.and_then(|d| {
                state
                    .pose
                    .override_for(i, d, gizmo::motion_frame(playhead, a.offset))
            }),
        })
        .collect();
    let rendered = model_view::draw_scene(
        ui,
        &painter.with_clip_rect(pic_rect),
        pic_rect,
        &hook_actors,
        (
            &view.target,
            &view.rotation,
            view.distance,
            view.fov,
            view.perspective,
        ),
        scene.light,
        scene.camera,
        eval,
        state.show_grid,
    );

    let canvas = Canvas {
        painter: &painter.with_clip_rect(pic_rect),
        vp: view.view_proj(aspect),
        rect: pic_rect,
    };
    if state.show_grid && !rendered.drawn {
        draw_grid(&canvas);
    }
    draw_axes(&canvas);
    if !rendered.drawn || look.skeleton_overlay {
        for (a, world) in scene.actors.iter().zip(&worlds) {
            draw_skeleton(&canvas, a.skeleton(), world);
        }
    }
    if !through_vmd && let Some(c) = vmd_cam {
        draw_frustum(&canvas, &ViewCamera::from_state(&c), look.aspect_ratio());
    }
    gizmo::draw(
        &painter.with_clip_rect(pic_rect),
        &pose_frame,
        &mut state.pose,
    );
    if through_vmd {
        model_view::frame_overlays(&painter, rect, pic_rect, &look, &rendered);
    }
    overlay(
        &painter,
        rect,
        state,
        through_vmd,
        &view,
        eval,
        scene.actors.iter().any(|a| a.motion.is_some()),
    );
    let mut notes: Vec<String> = rendered.problems.clone();
    if let model_view::Status::Unavailable(why) = model_view::status(ui.ctx()) {
        notes.push(why);
    }
    if !notes.is_empty() {
        model_view::notice(
            &painter,
            rect,
            egui::pos2(rect.center().x, rect.max.y - 24.0),
            &notes.join("\n"),
        );
    }
}

/// `free`, `free:RX,RY,DISTANCE` or `free:RX,RY,DISTANCE,TX,TY,TZ` (the
/// `--view` flag); anything else is ignored.
fn apply_view_override(state: &mut State, spec: &str) {
    if spec == "camera" {
        state.mode = ViewMode::VmdCamera;
        return;
    }
    let Some(rest) = spec.strip_prefix("free") else {
        return;
    };
    state.mode = ViewMode::Free;
    let nums: Vec<f32> = rest
        .trim_start_matches(':')
        .split(',')
        .filter_map(|t| t.trim().parse().ok())
        .filter(|x: &f32| x.is_finite())
        .collect();
    match nums[..] {
        [rx, ry, d] => {
            state.free.rotation = [rx.to_radians(), ry.to_radians(), 0.0];
            state.free.distance = d;
        }
        [rx, ry, d, x, y, z] => {
            state.free.rotation = [rx.to_radians(), ry.to_radians(), 0.0];
            state.free.distance = d;
            state.free.target = [x, y, z];
        }
        _ => {}
    }
}

/// A new engine for a new model; rebinds after the document changed.
fn refresh_engine(slot: &mut Option<ActorPose>, actor: &ActorView) {
    let rig = std::ptr::from_ref(actor.rig) as usize;
    if slot.as_ref().is_none_or(|p| p.rig != rig) {
        *slot = Some(ActorPose {
            rig,
            engine: PoseEngine::new(actor.rig),
            bound: None,
            last: None,
        });
    }
    let Some(p) = slot.as_mut() else { return };
    let want = actor.motion.map(|d| (d.id, d.revision));
    if p.bound != want || (want.is_none() && p.engine.binding().is_some()) {
        p.engine.bind(actor.rig, actor.motion.map(|d| &d.index));
        p.bound = want;
        p.last = None;
    }
}

/// An actor's bone world matrices at motion frame `frame` (rest pose
/// without a motion), with the posing tool's override; the last pose is
/// reused while nothing changed.
fn pose<'p>(p: &'p mut ActorPose, actor: &ActorView, frame: f64, replace: Override) -> &'p [Mat4] {
    if p.last != Some((frame, replace)) || p.engine.posed.bone_world.is_empty() {
        p.engine.pose_bones(
            actor.rig,
            actor.motion.map(Document::source),
            frame,
            replace_bone(replace),
        );
        p.last = Some((frame, replace));
    }
    &p.engine.posed.bone_world
}

fn refresh_shots(state: &mut State, doc: Option<&Document>) {
    let Some(doc) = doc else {
        state.shots = None;
        return;
    };
    if state
        .shots
        .as_ref()
        .is_some_and(|s| s.doc_id == doc.id && s.revision == doc.revision)
    {
        return;
    }
    state.shots = Some(ShotCache {
        doc_id: doc.id,
        revision: doc.revision,
        shots: shots::shots(&doc.motion, &doc.index),
        near: shots::near_cuts(&doc.motion, &doc.index),
    });
}

fn toolbar(
    ui: &mut egui::Ui,
    scene: &SceneView,
    has_cam: bool,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
    state: &mut State,
) {
    ui.horizontal_wrapped(|ui| {
        ui.add_enabled_ui(has_cam, |ui| {
            ui.selectable_value(&mut state.mode, ViewMode::VmdCamera, "VMD camera")
                .on_hover_text("Look through the camera of the open camera file at the playhead")
                .on_disabled_hover_text("No open file has camera keys");
        });
        ui.selectable_value(&mut state.mode, ViewMode::Free, "Free view")
            .on_hover_text("Drag: orbit. Right or middle drag: pan. Wheel: zoom.");
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
        ui.separator();
        let rate = shared.transport.preview_rate;
        let rate_text = |r: u32| {
            if r == 30 {
                "30 fps (as MMD)".to_owned()
            } else {
                format!("{r} fps")
            }
        };
        egui::ComboBox::from_label("Preview rate")
            .selected_text(rate_text(rate))
            .show_ui(ui, |ui| {
                for r in [30, 60, 120] {
                    ui.selectable_value(&mut shared.transport.preview_rate, r, rate_text(r));
                }
            })
            .response
            .on_hover_text(
                "Cuts stay hard at every rate: between keys A and A+1 the camera holds key A \
                 for every sub-frame.",
            );
        ui.separator();
        ui.checkbox(&mut state.show_grid, "Grid");
        model_view::settings_ui(ui);
        if has_cam && state.mode == ViewMode::VmdCamera {
            ui.checkbox(&mut state.edit_camera, "Drag edits camera key")
                .on_hover_text(
                    "In VMD-camera view, orbit / pan / wheel change the scene camera's key at \
                     the playhead. One undo step per drag.",
                );
        }
    });
    ui.horizontal_wrapped(|ui| {
        for a in &scene.actors {
            let motion = a
                .motion
                .map_or("no motion (rest pose)".to_owned(), |d| d.title());
            let offset = if a.offset != 0 {
                format!(", offset {:+}", a.offset)
            } else {
                String::new()
            };
            ui.weak(format!(
                "{}: {motion} on {} bones{offset}",
                a.name,
                a.skeleton().bones.len()
            ));
        }
        match scene.camera {
            Some(d) => ui.weak(format!("Camera: {}", d.title())),
            None => ui.weak("Camera: none"),
        };
    });
}

fn side_panel(
    ui: &mut egui::Ui,
    scene: &SceneView,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
    state: &mut State,
) {
    let eval = shared.transport.eval_frame();
    egui::ScrollArea::vertical()
        .id_salt("viewport-side-scroll")
        .show(ui, |ui| {
            let playhead = shared.transport.frame;
            gizmo::side_ui(ui, scene, playhead, edits, shared, &mut state.pose);
            ui.separator();
            match (&state.shots, scene.camera) {
                (Some(cache), Some(doc)) => {
                    ui.strong(format!("Shots ({})", cache.shots.len()));
                    ui.weak(format!("camera: {}", doc.title()));
                    let current = shots::shot_at(&cache.shots, eval);
                    let changed = current != state.last_shot;
                    super::beat_cuts::filter_ui(ui, &mut shared.song);
                    egui::ScrollArea::vertical()
                        .id_salt("viewport-shots")
                        .max_height(320.0)
                        .show(ui, |ui| {
                            for (i, s) in cache.shots.iter().enumerate() {
                                if !super::beat_cuts::keep(&shared.song, s) {
                                    continue;
                                }
                                let is_current = Some(i) == current;
                                let r = ui.selectable_label(
                                    is_current,
                                    super::beat_cuts::label(&shared.song, s),
                                );
                                if r.clicked() {
                                    shared.transport.frame = f64::from(s.first);
                                }
                                if is_current && changed {
                                    r.scroll_to_me(None);
                                }
                            }
                        });
                    state.last_shot = current;
                    ui.add_space(4.0);
                    ui.weak(
                        "Cuts stay hard at every preview rate: between keys A and A+1 the \
                         camera holds key A for every sub-frame.",
                    );
                    if !cache.near.is_empty() {
                        ui.add_space(4.0);
                        egui::CollapsingHeader::new(format!("Near-cuts ({})", cache.near.len()))
                            .id_salt("viewport-near-cuts")
                            .default_open(false)
                            .show(ui, |ui| {
                                for n in &cache.near {
                                    let r = ui.add(
                                        egui::Label::new(
                                            egui::RichText::new(format!(
                                                "near-cut at frame {}",
                                                n.from
                                            ))
                                            .color(ui.visuals().warn_fg_color),
                                        )
                                        .sense(Sense::click()),
                                    );
                                    if r.on_hover_text(n.message()).clicked() {
                                        shared.transport.frame = f64::from(n.from);
                                    }
                                }
                            });
                    }
                }
                _ => {
                    ui.strong("Shots");
                    ui.weak("No open file has camera keys.");
                }
            }
            ui.separator();
            if scene.actors.is_empty() {
                ui.weak("No actors in the scene.");
            }
            for (i, (a, p)) in scene.actors.iter().zip(&state.poses).enumerate() {
                if scene.actors.len() > 1 {
                    ui.strong(a.name);
                }
                match p.as_ref().and_then(|p| p.engine.binding()) {
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
            ui.weak("Colours: left-side bones blue, right-side pink, IK bones orange.");
        });
}
