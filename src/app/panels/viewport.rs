//! The 3D viewport: the scene's actors posed at the playhead, seen through
//! the VMD camera or from a free orbit view, in as many views as the
//! layout shows.
//!
//! Two kinds of state: the **shared posing** ([`Posing`], `posing`): one
//! pose engine per actor, posed once per frame whatever the number of
//! views (mesh, skeleton, joints and gizmo from that one result), the
//! physics clock, the posing tool and the shot list; and a **view**
//! ([`ViewState`]): its camera (VMD or free), free orbit, overlays, mouse
//! mapping and options. [`ui`] draws one view into the `Ui` it is given,
//! at any size; call it once per view with the same `Posing`.
//!
//! The models are drawn by the wgpu renderer ([`super::model_view`]); the
//! skeleton overlay, grid, frustum and read-out with egui's painter
//! (`draw`); the mouse (orbit, pan, zoom) in `input`; the toolbar and the
//! side panel in `bar`.
//!
//! The camera and its projection are pure ([`crate::scene::view`]); this
//! module only converts between its screen rectangles and egui's.
//! Coordinates are MMD's: left-handed, Y up, a model faces −Z (its left
//! side at +X), in model units (a character is about 20 tall); camera
//! angles in radians, field of view in degrees, frames at 30 per second.

use egui::{Color32, Rect, Sense};
use glam::{Mat4, Vec2};

use super::Shared;
use super::gizmo;
use super::model_view;
use crate::scene::view::ViewCamera;
use crate::workspace::document::EditRequest;

mod actor_pose;
mod bar;
mod canvas;
mod draw;
mod input;
pub mod path;
mod posing;
pub mod scene_view;
mod set_pieces;
mod settings;
mod source_ghost;

pub use posing::{Moment, Posing};
pub use scene_view::SourceGhost;
pub use scene_view::{
    ActorView, SceneView, SetPieceView, pick_source, posed_world, project_point, project_segment,
    screen_rect,
};
pub use settings::SETTINGS_KEY;
pub use source_ghost::last_drawn as last_source_ghost;

// ----------------------------------------------------------------- state

/// Which camera a view looks through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum ViewMode {
    /// The evaluated camera of the open camera file (free view if none).
    #[default]
    VmdCamera,
    /// The user's own orbit / pan / zoom view.
    Free,
}

/// What the mouse buttons do in a view (on empty space; clicks on joints
/// and drags on the gizmo are the posing tool's either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum MouseMap {
    /// MikuMikuDance's: right drag rotates, middle drag pans, the wheel
    /// zooms; a left drag on empty space does nothing to the view.
    #[default]
    Mmd,
    /// Left drag rotates, right or middle drag pans, the wheel zooms.
    LeftOrbit,
}

impl MouseMap {
    pub const ALL: [MouseMap; 2] = [MouseMap::Mmd, MouseMap::LeftOrbit];

    pub fn label(self) -> &'static str {
        match self {
            MouseMap::Mmd => "MMD (right rotate, middle pan)",
            MouseMap::LeftOrbit => "Left rotate, right/middle pan",
        }
    }

    /// A word for the toolbar.
    pub fn short(self) -> &'static str {
        match self {
            MouseMap::Mmd => "MMD",
            MouseMap::LeftOrbit => "Left rotate",
        }
    }

    /// The toolbar's hint for the free view.
    pub fn hint(self) -> &'static str {
        match self {
            MouseMap::Mmd => "Right drag: rotate. Middle drag: pan. Wheel: zoom.",
            MouseMap::LeftOrbit => "Drag: rotate. Right or middle drag: pan. Wheel: zoom.",
        }
    }

    /// The buttons that (rotate, pan).
    pub fn buttons(
        self,
    ) -> (
        &'static [egui::PointerButton],
        &'static [egui::PointerButton],
    ) {
        use egui::PointerButton::{Middle, Primary, Secondary};
        match self {
            MouseMap::Mmd => (&[Secondary], &[Middle]),
            MouseMap::LeftOrbit => (&[Primary], &[Secondary, Middle]),
        }
    }
}

/// One view's own state: which camera it looks through, the free orbit,
/// overlays, options and its gestures in progress. Any number of views
/// share one [`Posing`].
#[derive(Debug, Clone)]
pub struct ViewState {
    /// Tells this view's widgets, GPU target and gizmo drags from the
    /// others' (unique per view).
    pub number: u32,
    /// VMD camera or free view.
    pub mode: ViewMode,
    /// The free orbit view.
    pub free: ViewCamera,
    /// In VMD-camera view, dragging edits the camera key at the playhead.
    pub edit_camera: bool,
    pub show_grid: bool,
    /// The model view's options (frame, guides, skeleton overlay, shadows).
    pub look: model_view::Settings,
    /// What the mouse buttons do (MMD's mapping by default).
    pub mouse: MouseMap,
    /// This view shows the side panel (posing, shots, bindings); one view
    /// of a layout should.
    pub side_panel: bool,
    /// Merge id of the camera-key drag in progress.
    drag_merge: Option<u64>,
    /// Merge id of wheel zooming on the camera key, and whether it scrolled last frame.
    wheel_merge: Option<u64>,
}

impl ViewState {
    /// A view numbered `number` looking through `mode`, with the default
    /// options and the side panel.
    pub fn new(number: u32, mode: ViewMode) -> ViewState {
        ViewState {
            number,
            mode,
            free: ViewCamera::FRONT,
            edit_camera: false,
            show_grid: true,
            look: model_view::Settings::default(),
            mouse: MouseMap::default(),
            side_panel: true,
            drag_merge: None,
            wheel_merge: None,
        }
    }

    /// Sets the view from the `--view` flag: `camera`, `free`, or
    /// `free:RX,RY,DISTANCE[,TX,TY,TZ]` (degrees, degrees, units, look-at
    /// point) to orbit the free view. A positive distance is a length (the
    /// eye that far in front of the target, as `-DISTANCE`: MMD's negative
    /// sign is for camera keys); anything else is ignored.
    pub fn set_view_mode(&mut self, spec: &str) {
        if spec == "camera" {
            self.mode = ViewMode::VmdCamera;
            return;
        }
        let Some(rest) = spec.strip_prefix("free") else {
            return;
        };
        self.mode = ViewMode::Free;
        let nums: Vec<f32> = rest
            .trim_start_matches(':')
            .split(',')
            .filter_map(|t| t.trim().parse().ok())
            .filter(|x: &f32| x.is_finite())
            .collect();
        match nums[..] {
            [rx, ry, d] => self.free = ViewCamera::orbiting(rx, ry, d, self.free.target),
            [rx, ry, d, x, y, z] => self.free = ViewCamera::orbiting(rx, ry, d, [x, y, z]),
            _ => {}
        }
    }
}

/// The viewport's state: the shared posing and the views it feeds — the
/// main one (through the VMD camera by default, with the side panel) and
/// a second one (the free view by default) for layouts that show both.
#[derive(Debug)]
pub struct State {
    pub posing: Posing,
    /// The main view.
    pub view: ViewState,
    /// The second view (number 1): the free view, without the side panel.
    pub second: ViewState,
}

impl Default for State {
    fn default() -> Self {
        let mut second = ViewState::new(1, ViewMode::Free);
        second.side_panel = false;
        State {
            posing: Posing::default(),
            view: ViewState::new(0, ViewMode::VmdCamera),
            second,
        }
    }
}

impl State {
    /// Actor `actor`'s last pose in the viewport: its motion frame and bone
    /// world matrices (skeleton, joints and gizmo; physics included), if it
    /// was posed.
    pub fn posed_bones(&self, actor: usize) -> Option<(f64, &[Mat4])> {
        self.posing.posed_bones(actor)
    }

    /// Sets the main view from the `--view` flag (see
    /// [`ViewState::set_view_mode`]).
    pub fn set_view_mode(&mut self, spec: &str) {
        self.view.set_view_mode(spec);
    }
}

/// The canvas behind the picture.
const BG: Color32 = Color32::from_rgb(24, 26, 30);

// -------------------------------------------------------------------- ui

/// What one view asks for in one frame.
pub struct Output {
    /// Its edits (the scene camera's keys, the actors' motions), each a
    /// workspace event, in the order made.
    pub events: Vec<crate::workspace::Event>,
    /// The bone the user clicked in this view, if any.
    pub picked: Option<gizmo::Selected>,
}

/// Draws one view into `ui` (any size): its toolbar, its side panel if it
/// has one, and the picture: every actor of the scene posed at the
/// playhead (each at its own offset, posed once per frame in `posing`
/// whatever the number of views), seen through the scene camera or the
/// view's free camera, with the posing tool on top. Returns the events it
/// asks for and the bone the user clicked in this view this frame, if any.
pub fn ui(
    ui: &mut egui::Ui,
    posing: &mut Posing,
    view: &mut ViewState,
    scene: &SceneView,
    shared: &mut Shared,
) -> Output {
    let mut edits = Vec::new();
    let pointer = draw(ui, posing, view, scene, &mut edits, shared);
    let mut events: Vec<_> = edits
        .into_iter()
        .map(|(id, e)| crate::workspace::Event::edit(id, e))
        .collect();
    if let Some((actor, p)) = pointer.placed {
        events.push(crate::workspace::Event::Scene(
            crate::workspace::SceneEvent::SetPlacement(actor, p),
        ));
    }
    if let Some((i, frame, state)) = pointer.accessory {
        use crate::scene::set::AccessoryKey;
        use crate::workspace::SceneEvent;
        // Keyed: the key at the playhead (MMD edits the frame shown).
        let keyed = scene.accessories.get(i).is_some_and(|a| !a.keys.is_empty());
        events.push(crate::workspace::Event::Scene(if keyed {
            SceneEvent::SetAccessoryKey(i, Box::new(AccessoryKey { frame, state }))
        } else {
            SceneEvent::SetAccessoryState(i, Box::new(state))
        }));
    }
    if pointer.scene_drag_ended {
        events.push(crate::workspace::Event::Scene(
            crate::workspace::SceneEvent::EndMerge,
        ));
    }
    Output {
        events,
        picked: pointer.picked,
    }
}

/// The posing tool's controls, the shot list and each actor's binding, in
/// a tile of their own (`ui` any size); returns the edits they ask for.
pub fn side_ui(
    ui: &mut egui::Ui,
    posing: &mut Posing,
    scene: &SceneView,
    shared: &mut Shared,
) -> Vec<crate::workspace::Event> {
    let mut edits = Vec::new();
    bar::side_panel(ui, scene, &mut edits, shared, posing);
    edits
        .into_iter()
        .map(|(id, e)| crate::workspace::Event::edit(id, e))
        .collect()
}

/// The narrowest view (points) that still shows the Posing/Shots side
/// panel beside its picture.
const SIDE_PANEL_MIN_VIEW_WIDTH: f32 = 720.0;

/// [`ui`]'s drawing: `edits` are (document id, request).
fn draw(
    ui: &mut egui::Ui,
    posing: &mut Posing,
    view: &mut ViewState,
    scene: &SceneView,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
) -> gizmo::Pointer {
    posing.prepare(ui, scene, shared);
    let has_cam = posing.now.camera.is_some();
    bar::toolbar(ui, scene, has_cam, edits, shared, posing, view);
    // A narrow view (two side by side in the Camera layout) keeps its
    // width for the picture: the side panel would leave it a strip.
    if view.side_panel && ui.available_width() >= SIDE_PANEL_MIN_VIEW_WIDTH {
        egui::Panel::right(("viewport-side", view.number))
            .resizable(true)
            .default_size(250.0)
            .show(ui, |ui| bar::side_panel(ui, scene, edits, shared, posing));
    }
    let size = ui.available_size();
    let (response, painter) = ui.allocate_painter(size, Sense::click_and_drag());
    painter.rect_filled(response.rect, 0.0, BG);
    let shot = Shot::new(posing.now.camera.as_ref(), view, response.rect);
    if shot.through_vmd {
        posing.picture_aspect = view.look.aspect_ratio();
    }
    // What the GPU draws (the posing's buffers, shared), taken before the
    // posing tool borrows the posing.
    let meshes = posing.frames();
    let set_bounds = posing.set_bounds();
    let fast = posing.fast_preview;
    let parts = posing.parts();
    let frame = gizmo::Frame {
        view_number: view.number,
        scene,
        worlds: &parts.worlds,
        screen: shot.screen(),
        view: shot.camera,
        pic_rect: shot.pic_rect,
        scene_frame: parts.now.playhead,
    };
    // During playback the camera's view is the picture only (as in MMD):
    // no gizmo, no joints to pick.
    let picture_only = shot.through_vmd && parts.now.playing;

    // The posing tool takes clicks on joints and drags on the gizmo; the
    // view orbits (or edits the camera key) otherwise.
    let pointer = if picture_only {
        gizmo::Pointer::default()
    } else {
        gizmo::interact(&response, &frame, edits, shared, parts.tool)
    };
    if !pointer.took {
        input::interact(
            ui,
            &response,
            scene.camera,
            shot.through_vmd,
            edits,
            shared,
            view,
        );
    }
    enter_registers(ui, scene, &shot, view, edits, shared, parts.tool);

    draw::picture(
        ui,
        &painter,
        draw::Picture {
            shot: &shot,
            view,
            scene,
            frame: &frame,
            meshes,
            set_bounds,
            fast,
            now: &parts.now,
            picture_only,
            picture_aspect: parts.picture_aspect,
            shots: parts.shots,
            problems: parts.problems,
        },
        parts.tool,
    );
    pointer
}

/// How a view takes its picture this frame: through which camera, into
/// which rectangle.
pub(super) struct Shot {
    /// The whole canvas.
    pub rect: Rect,
    /// The picture: through the VMD camera the output's shape (16:9 …),
    /// centred, the field of view applying to its height as in the video;
    /// the whole canvas in the free view.
    pub pic_rect: Rect,
    pub camera: ViewCamera,
    pub through_vmd: bool,
}

impl Shot {
    fn new(
        vmd_cam: Option<&crate::vmd::evaluate::CameraState>,
        view: &ViewState,
        rect: Rect,
    ) -> Shot {
        let vmd = vmd_cam.filter(|_| view.mode == ViewMode::VmdCamera);
        let pic_rect = match vmd {
            Some(_) => model_view::frame_rect(rect, view.look.aspect_ratio()),
            None => rect,
        };
        Shot {
            rect,
            pic_rect,
            camera: vmd.map_or(view.free, ViewCamera::from_state),
            through_vmd: vmd.is_some(),
        }
    }

    /// Width / height of the picture.
    pub fn aspect(&self) -> f32 {
        self.pic_rect.width() / self.pic_rect.height().max(1.0)
    }

    /// MMD space → clip space for the picture.
    pub fn view_proj(&self) -> Mat4 {
        self.camera.view_proj(self.aspect())
    }

    fn screen(&self) -> crate::model::gizmo::Screen {
        crate::model::gizmo::Screen {
            view_proj: self.view_proj(),
            min: Vec2::new(self.pic_rect.min.x, self.pic_rect.min.y),
            size: Vec2::new(self.pic_rect.width(), self.pic_rect.height()),
        }
    }
}

/// Enter registers (as in MMD): the selected bone's pose, or in the free
/// view with no bone selected, the view as a camera key. The first view
/// with something to register takes the key.
#[allow(clippy::too_many_arguments)]
fn enter_registers(
    ui: &egui::Ui,
    scene: &SceneView,
    shot: &Shot,
    view: &ViewState,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
    tool: &mut gizmo::PoseTool,
) {
    let bone = tool.selected.is_some();
    // Nothing to register: a camera view with no bone selected.
    let nothing = !bone && shot.through_vmd;
    if ui.ctx().egui_wants_keyboard_input() || shared.typing || nothing {
        return;
    }
    if !ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Enter)) {
        return;
    }
    let playhead = shared.transport.frame;
    if bone {
        gizmo::register_bone_key(scene, playhead, edits, shared, tool);
    } else {
        gizmo::register_camera_key(scene.camera, &view.free, playhead, edits, shared);
    }
}

#[cfg(test)]
mod tests;
