//! The 3D viewport panel: the scene's actors posed at the playhead, seen
//! through the VMD camera or from a free orbit view. The models are drawn
//! by the wgpu renderer ([`super::model_view`]); the skeleton overlay,
//! grid, frustum and read-out with egui's painter (`draw`); the mouse
//! (orbit, pan, zoom, picking, gizmo drags) in `input`.
//!
//! The camera and its projection are pure ([`crate::scene::view`]); this
//! module only converts between its screen rectangles and egui's.
//! Coordinates are MMD's: left-handed, Y up, a model faces −Z (its left
//! side at +X), in model units (a character is about 20 tall); camera
//! angles in radians, field of view in degrees, frames at 30 per second.

use egui::{Color32, Pos2, Rect, Sense, pos2};
use glam::{Mat4, Quat, Vec2, Vec3};

use super::Shared;
use super::gizmo::{self, PoseTool};
use super::model_view;
use super::shots::ShotList;
use crate::model::Skeleton;
use crate::model::physics::{SimulationMode, Transport};
use crate::model::{Model, PoseEngine, replace_bone};
use crate::scene::view::{self, ScreenRect, ViewCamera};
use crate::vmd::MotionRef;
use crate::vmd::evaluate;
use crate::workspace::document::{Document, EditRequest};

mod draw;
mod input;

use draw::{Canvas, draw_axes, draw_frustum, draw_grid, draw_skeleton, overlay};

// -------------------------------------------------------------- projection

/// egui's rectangle as the pure layer's.
pub fn screen_rect(rect: Rect) -> ScreenRect {
    ScreenRect::from_min_max(
        Vec2::new(rect.min.x, rect.min.y),
        Vec2::new(rect.max.x, rect.max.y),
    )
}

fn to_pos(p: Vec2) -> Pos2 {
    pos2(p.x, p.y)
}

/// [`view::project_point`] on an egui rectangle.
pub fn project_point(view_proj: &Mat4, p: Vec3, rect: Rect) -> Option<Pos2> {
    view::project_point(view_proj, p, screen_rect(rect)).map(to_pos)
}

/// [`view::project_segment`] on an egui rectangle.
pub fn project_segment(view_proj: &Mat4, a: Vec3, b: Vec3, rect: Rect) -> Option<[Pos2; 2]> {
    view::project_segment(view_proj, a, b, screen_rect(rect)).map(|s| s.map(to_pos))
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
    pub model: Option<&'a std::sync::Arc<crate::render::asset::ModelAsset>>,
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
    /// The rig's [`ModelAsset::generation`](crate::render::asset::ModelAsset::generation)
    /// (0: the built-in skeleton): a new model is a new engine.
    rig: u64,
    engine: PoseEngine,
    /// The document (id, revision) the engine is bound to.
    bound: Option<(u64, u64)>,
    /// The last pose's frame and override (its matrices are
    /// `engine.posed.bone_world`).
    last: Option<(f64, Override)>,
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
    /// The model view's options (frame, guides, skeleton overlay, shadows).
    pub look: model_view::Settings,
    /// The models drawn and each actor's pose engine for the model view.
    models: model_view::ModelCache,
    /// One pose engine per actor, by actor index.
    poses: Vec<Option<ActorPose>>,
    /// The camera document's shot list.
    shots: ShotList,
    /// Merge id of the camera-key drag in progress.
    drag_merge: Option<u64>,
    /// Merge id of wheel zooming on the camera key, and whether it scrolled last frame.
    wheel_merge: Option<u64>,
    /// Posing: the selected bone, the gizmo, unregistered poses.
    pub pose: PoseTool,
    /// When the actors' rigid bodies are simulated (MMD's default: while
    /// playing). Kept between runs.
    pub physics: SimulationMode,
}

impl State {
    /// Actor `actor`'s last pose in the viewport: its motion frame and bone
    /// world matrices (skeleton, joints and gizmo; physics included), if it
    /// was posed.
    pub fn posed_bones(&self, actor: usize) -> Option<(f64, &[Mat4])> {
        let p = self.poses.get(actor)?.as_ref()?;
        let (frame, _) = p.last?;
        Some((frame, &p.engine.posed.bone_world))
    }

    /// Sets the view from the `--view` flag: `camera`, `free`, or
    /// `free:RX,RY,DISTANCE[,TX,TY,TZ]` (degrees, degrees, units, look-at
    /// point) to orbit the free view.
    pub fn set_view_mode(&mut self, spec: &str) {
        apply_view_override(self, spec);
    }
}

/// Storage key of the viewport options kept between runs.
pub const SETTINGS_KEY: &str = "vmd-studio-viewport";

/// The viewport options kept between runs.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
struct Persisted {
    show_grid: bool,
    look: model_view::Settings,
    /// Missing in options stored before physics: the default mode.
    #[serde(default)]
    physics: PhysicsSetting,
}

/// [`SimulationMode`] as stored (the model layer's enum is not serde).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
enum PhysicsSetting {
    Off,
    #[default]
    Play,
    Always,
    Trace,
}

impl From<SimulationMode> for PhysicsSetting {
    fn from(m: SimulationMode) -> Self {
        match m {
            SimulationMode::Off => PhysicsSetting::Off,
            SimulationMode::Play => PhysicsSetting::Play,
            SimulationMode::Always => PhysicsSetting::Always,
            SimulationMode::Trace => PhysicsSetting::Trace,
        }
    }
}

impl From<PhysicsSetting> for SimulationMode {
    fn from(m: PhysicsSetting) -> Self {
        match m {
            PhysicsSetting::Off => SimulationMode::Off,
            PhysicsSetting::Play => SimulationMode::Play,
            PhysicsSetting::Always => SimulationMode::Always,
            PhysicsSetting::Trace => SimulationMode::Trace,
        }
    }
}

impl State {
    /// Takes the stored viewport options (grid, frame, guides, skeleton
    /// overlay, shadows), if any.
    pub fn restore(&mut self, storage: &dyn eframe::Storage) {
        if let Some(p) = eframe::get_value::<Persisted>(storage, SETTINGS_KEY) {
            self.show_grid = p.show_grid;
            self.look = p.look;
            self.physics = p.physics.into();
        }
    }

    /// Stores the viewport options.
    pub fn persist(&self, storage: &mut dyn eframe::Storage) {
        let p = Persisted {
            show_grid: self.show_grid,
            look: self.look,
            physics: self.physics.into(),
        };
        eframe::set_value(storage, SETTINGS_KEY, &p);
    }
}

impl Default for State {
    fn default() -> Self {
        State {
            mode: ViewMode::default(),
            free: ViewCamera::FRONT,
            edit_camera: false,
            show_grid: true,
            look: model_view::Settings::default(),
            models: model_view::ModelCache::default(),
            poses: Vec::new(),
            shots: ShotList::default(),
            drag_merge: None,
            wheel_merge: None,
            pose: PoseTool::default(),
            physics: SimulationMode::default(),
        }
    }
}

impl State {
    fn merge_id(&mut self) -> u64 {
        crate::workspace::merge_id()
    }
}

/// The canvas behind the picture.
const BG: Color32 = Color32::from_rgb(24, 26, 30);

// -------------------------------------------------------------------- ui

/// Draws the viewport: every actor of the scene posed at the playhead
/// (each at its own offset), seen through the scene camera or the free view,
/// with the posing tool on top. `edits` are (document id, request): the
/// scene camera's keys and the actors' motions. Returns the bone the user
/// clicked in the view this frame, if any.
pub fn ui(
    ui: &mut egui::Ui,
    scene: &SceneView,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
    state: &mut State,
) -> Option<gizmo::Selected> {
    let eval = shared.transport.eval_frame();

    // Camera at the playhead.
    let vmd_cam = scene
        .camera
        .and_then(|d| evaluate::camera_at(&d.motion, &d.index, eval));

    // Shots of the camera document.
    state.shots.refresh(scene.camera);

    toolbar(ui, scene, vmd_cam.is_some(), edits, shared, state);

    // Pose engines, one per actor.
    state.poses.resize_with(scene.actors.len(), || None);
    for (slot, a) in state.poses.iter_mut().zip(&scene.actors) {
        refresh_engine(slot, a);
    }
    let playhead = shared.transport.frame;
    state.pose.sync(scene, playhead);
    // Physics: the user's mode, the transport's state and the wall-clock
    // time since the last picture (Always runs on while stopped; capped so
    // a stall does not simulate seconds at once).
    let elapsed = ui.input(|i| i.unstable_dt);
    let transport = Transport {
        playing: shared.transport.playing,
        elapsed: if elapsed.is_finite() {
            elapsed.clamp(0.0, 0.1)
        } else {
            0.0
        },
    };
    let dragged = state
        .pose
        .selected
        .as_ref()
        .filter(|_| state.pose.dragging())
        .map(|s| s.actor);
    let mode = state.physics;
    let physics_of = move |i: usize| model_view::PhysicsRun {
        mode,
        dragging: dragged == Some(i),
        transport,
    };

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
                Some(p) => {
                    let world = pose(p, a, frame, replace, physics_of(i)).to_vec();
                    if let Some(m) = p.engine.take_physics_message() {
                        shared.error(format!("{}: {m}", a.name));
                    }
                    world
                }
                None => Vec::new(),
            }
        })
        .collect();

    // Always runs on while stopped: keep painting while a world exists.
    if state.physics == SimulationMode::Always
        && !shared.transport.playing
        && state
            .poses
            .iter()
            .flatten()
            .any(|p| p.engine.physics().is_some())
    {
        ui.ctx().request_repaint();
    }

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
    let look = state.look;
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
    let pointer = gizmo::interact(&response, &pose_frame, edits, shared, &mut state.pose);
    if !pointer.took {
        input::interact(
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
            physics: physics_of(i),
        })
        .collect();
    let rendered = model_view::draw_scene(
        ui,
        &painter.with_clip_rect(pic_rect),
        pic_rect,
        &hook_actors,
        &view,
        scene.light,
        scene.camera,
        eval,
        state.show_grid,
        &look,
        &mut state.models,
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
    pointer.picked
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
    // The rig is the loaded model's when there is one, else the built-in.
    let rig = actor.model.map_or(0, |m| m.generation());
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
/// without a motion), with the posing tool's override and physics as `run`
/// says; without physics the last pose is reused while nothing changed
/// (with it, every picture is posed: the clock decides what time does).
fn pose<'p>(
    p: &'p mut ActorPose,
    actor: &ActorView,
    frame: f64,
    replace: Override,
    run: model_view::PhysicsRun,
) -> &'p [Mat4] {
    model_view::apply_physics(&mut p.engine, actor.rig, run);
    let simulated = p.engine.physics().is_some();
    if simulated || p.last != Some((frame, replace)) || p.engine.posed.bone_world.is_empty() {
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
        egui::ComboBox::from_label("Physics")
            .selected_text(state.physics.label())
            .show_ui(ui, |ui| {
                for m in SimulationMode::ALL {
                    ui.selectable_value(&mut state.physics, m, m.label());
                }
            })
            .response
            .on_hover_text(
                "When hair, skirts and accessories are simulated (MMD's physics menu): \
                 Off; While playing (MMD's default; a frame picked while stopped shows the \
                 bodies settled there); Always (also while stopped); Trace (forward while \
                 scrubbing forward; a jump back or far ahead resets). Dragging a bone with \
                 the gizmo poses its actor without physics.",
            );
        ui.separator();
        ui.checkbox(&mut state.show_grid, "Grid");
        model_view::settings_ui(ui, &mut state.look);
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
            state.shots.ui(ui, scene.camera, eval, shared);
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::{SETTINGS_KEY, SimulationMode, State, model_view};

    /// eframe's storage in memory.
    #[derive(Default)]
    struct Memory(HashMap<String, String>);

    impl eframe::Storage for Memory {
        fn get_string(&self, key: &str) -> Option<String> {
            self.0.get(key).cloned()
        }
        fn set_string(&mut self, key: &str, value: String) {
            self.0.insert(key.to_owned(), value);
        }
        fn remove_string(&mut self, key: &str) {
            self.0.remove(key);
        }
        fn flush(&mut self) {}
    }

    #[test]
    fn viewport_options_survive_a_restart() {
        let s = State {
            show_grid: false,
            look: model_view::Settings {
                aspect: 2,
                custom: (640, 480),
                guides: true,
                skeleton_overlay: true,
                ground_shadow: false,
                self_shadow: false,
            },
            physics: SimulationMode::Trace,
            ..Default::default()
        };
        let mut storage = Memory::default();
        s.persist(&mut storage);
        let mut next = State::default();
        assert!(next.show_grid && next.look.ground_shadow, "defaults differ");
        next.restore(&storage);
        assert!(!next.show_grid);
        assert_eq!(next.look, s.look);
        assert_eq!(next.physics, SimulationMode::Trace);
        // Nothing stored: the defaults stay.
        let mut fresh = State::default();
        fresh.restore(&Memory::default());
        assert!(fresh.show_grid);
        assert_eq!(fresh.look, model_view::Settings::default());
        assert_eq!(fresh.physics, SimulationMode::Play, "MMD's default");
        // Options stored before physics existed keep the default mode.
        #[derive(serde::Serialize)]
        struct Before {
            show_grid: bool,
            look: model_view::Settings,
        }
        let mut old = Memory::default();
        let before = Before {
            show_grid: false,
            look: model_view::Settings::default(),
        };
        eframe::set_value(&mut old, SETTINGS_KEY, &before);
        let mut from_old = State::default();
        from_old.restore(&old);
        assert!(!from_old.show_grid, "the old options were read");
        assert_eq!(from_old.physics, SimulationMode::Play);
    }
}
