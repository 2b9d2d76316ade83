//! Motion paths and ghosts in the viewport (issue 25).
//!
//! * The selected bone's path over a range of frames around the playhead:
//!   a dot per frame, a larger mark at each of its keys, the segment the
//!   curve editor / value graph is editing (the active key's) highlighted.
//!   Points come from [`crate::scene::motion_path`] (the one pose engine);
//!   after a curve edit only the edited segment's frames are posed again
//!   ([`BonePaths::refresh`]).
//! * In the free view, the VMD camera's eye path with a mark at each cut.
//! * Ghosts: the skeleton, faint, at the previous and next keys of the
//!   selected bone's track, or at ±N frames (a toggle and a count).
//!
//! [`overlay`] is the viewport's one call: it keeps its settings and caches
//! in egui's memory, draws its controls in the picture's top-left corner,
//! gathers [`PathData`] and hands it to [`draw`].

use std::sync::Arc;

use egui::mutex::Mutex;
use egui::{Color32, Pos2, Rect, Stroke};
use glam::{Mat4, Vec3};

use super::canvas::WorldOverlays;
use super::{project_point, project_segment};
use crate::app::panels::gizmo::Selected;
use crate::model::{Model, PoseEngine};
use crate::scene::motion_path::{
    BonePaths, CameraPath, camera_path, curve_edit_frames, ghost_frames, motion_path,
    neighbour_keys,
};
use crate::vmd::{KeyRef, Motion};

const PATH: Color32 = Color32::from_rgb(120, 220, 255);
const PATH_EDITED: Color32 = Color32::from_rgb(255, 200, 60);
const CAMERA_PATH: Color32 = Color32::from_rgb(250, 220, 90);
const CUT: Color32 = Color32::from_rgb(255, 90, 90);
const GHOST_BEFORE: Color32 = Color32::from_rgba_premultiplied(60, 110, 170, 110);
const GHOST_AFTER: Color32 = Color32::from_rgba_premultiplied(170, 90, 60, 110);

/// Motions with more bone keys than this are not kept as a snapshot to
/// find what an edit changed: every edit poses the whole range again.
const SNAPSHOT_MAX_KEYS: usize = 200_000;

/// Where ghosts are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GhostMode {
    /// At the previous and next keys of the selected bone's track.
    #[default]
    Keys,
    /// At ±k·step frames, k = 1..=count.
    Frames,
}

/// The overlay's options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub path: bool,
    pub ghosts: bool,
    pub ghost_mode: GhostMode,
    /// Ghosts on each side (frames mode).
    pub count: u32,
    /// Frames between ghosts (frames mode).
    pub step: u32,
    /// The path spans the playhead ± this many frames.
    pub half_range: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            path: true,
            ghosts: false,
            ghost_mode: GhostMode::Keys,
            count: 2,
            step: 5,
            half_range: 30,
        }
    }
}

/// A ghost: the skeleton at one frame, as line segments (parent head →
/// head), model space.
#[derive(Debug, Clone, PartialEq)]
pub struct Ghost {
    /// Motion frame.
    pub frame: u32,
    /// Before the playhead (drawn cool) or after it (warm).
    pub before: bool,
    pub lines: Vec<[Vec3; 2]>,
}

/// What [`draw`] draws.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathData {
    /// The selected bone's path (one path), model space.
    pub bone: Option<BonePaths>,
    /// The segment being edited: (A frame, B frame), motion frames.
    pub edited: Option<(u32, u32)>,
    /// The camera's eye path (free view only).
    pub camera: Option<CameraPath>,
    pub ghosts: Vec<Ghost>,
    /// Where the selected bone's actor stands: the bone path and ghosts
    /// are posed unplaced and drawn through it.
    pub placement: Mat4,
}

/// Settings, caches and the last data drawn, kept in egui's memory.
#[derive(Default)]
struct Memory {
    settings: Settings,
    /// (actor, bone, document id, rig generation, first, last frame).
    key: Option<(usize, usize, u64, u64, u32, u32)>,
    revision: u64,
    snapshot: Option<Motion>,
    engine: Option<(u64, PoseEngine)>,
    paths: BonePaths,
    /// (revision, frames) the ghosts were posed for.
    ghost_key: Option<(u64, Vec<u32>)>,
    ghosts: Vec<Ghost>,
    /// (document id, revision, first, last frame) the camera path was
    /// evaluated for, and the path.
    camera_key: Option<(u64, u64, u32, u32)>,
    camera: Option<CameraPath>,
    last: Option<PathData>,
    /// How many frames the last update posed (for tests: a curve edit poses
    /// only its segment).
    posed_frames: usize,
}

type Shared = Arc<Mutex<Memory>>;

fn memory(ctx: &egui::Context) -> Shared {
    ctx.data_mut(|d| {
        d.get_temp_mut_or_default::<Shared>(egui::Id::unique("vmd-studio-motion-path"))
            .clone()
    })
}

/// The data drawn last frame (tests, screenshots).
pub fn last_drawn(ctx: &egui::Context) -> Option<PathData> {
    memory(ctx).lock().last.clone()
}

/// Frames the last update posed for the path (a full range, or only an
/// edited segment after a curve edit).
pub fn posed_frames(ctx: &egui::Context) -> usize {
    memory(ctx).lock().posed_frames
}

/// The overlay's options.
pub fn settings(ctx: &egui::Context) -> Settings {
    memory(ctx).lock().settings
}

/// Sets the overlay's options (tests, `--view`-like flags).
pub fn set_settings(ctx: &egui::Context, s: Settings) {
    memory(ctx).lock().settings = s;
}

/// The viewport's call (from `draw::world_overlays`): controls, data,
/// drawing, for one view.
pub(super) fn overlay(w: &WorldOverlays) {
    let scene = w.scene;
    let selected = w.selected;
    let playhead = w.now.playhead;
    let through_vmd = w.shot.through_vmd;
    let rect = w.shot.pic_rect;
    // Through the VMD camera while playing: the picture only, as in MMD.
    if through_vmd && w.now.playing {
        return;
    }
    let mem = memory(w.ctx);
    let mut m = mem.lock();
    controls(w.ctx, rect, w.view_number, &mut m.settings);
    let s = m.settings;
    let mut data = PathData::default();
    if let Some(sel) = selected
        && let Some(actor) = scene.actors.get(sel.actor)
        && let Some(doc) = actor.motion
        && (s.path || s.ghosts)
    {
        let rig = actor.rig;
        data.placement = actor.placement.matrix().unwrap_or(Mat4::IDENTITY);
        let rig_gen = actor.model.map_or(0, |a| a.generation());
        let frame = (playhead - f64::from(actor.offset)).round().max(0.0) as u32;
        let range = (
            frame.saturating_sub(s.half_range),
            frame.saturating_add(s.half_range),
        );
        update_paths(&mut m, sel, doc, rig, rig_gen, range);
        if s.path {
            data.bone = Some(m.paths.clone());
            data.edited = edited_segment(doc, sel);
        }
        if s.ghosts {
            let frames: Vec<u32> = match s.ghost_mode {
                GhostMode::Keys => {
                    let keys = track_frames(doc, &sel.name);
                    let (a, b) = neighbour_keys(&keys, frame);
                    a.into_iter().chain(b).collect()
                }
                GhostMode::Frames => ghost_frames(frame, s.step, s.count.min(20), u32::MAX),
            };
            update_ghosts(&mut m, doc, rig, &frames, frame);
            data.ghosts = m.ghosts.clone();
        }
    }
    if s.path
        && !through_vmd
        && let Some(cam) = scene.camera
    {
        let f = playhead.round().max(0.0) as u32;
        let (a, b) = (
            f.saturating_sub(s.half_range * 4),
            f.saturating_add(s.half_range * 4),
        );
        let key = (cam.id, cam.revision, a, b);
        if m.camera_key != Some(key) {
            m.camera = camera_path(&cam.motion, &cam.index, a..=b);
            m.camera_key = Some(key);
        }
        data.camera = m.camera.clone();
    }
    draw(w.canvas.painter, &w.canvas.vp, rect, &data);
    m.last = Some(data);
}

/// The frames of `name`'s track in `doc`, sorted.
fn track_frames(doc: &crate::workspace::document::Document, name: &str) -> Vec<u32> {
    let mut v: Vec<u32> = crate::model::bone_track(&doc.index, name)
        .and_then(|t| doc.index.bones.get(t))
        .map(|t| t.frames.clone())
        .unwrap_or_default();
    v.dedup();
    v
}

/// The active key's segment when it is a key of the selected bone.
fn edited_segment(
    doc: &crate::workspace::document::Document,
    sel: &Selected,
) -> Option<(u32, u32)> {
    let Some(KeyRef::Bone(i)) = doc.view.active else {
        return None;
    };
    let k = doc.motion.bones.get(i as usize)?;
    if k.name().text != sel.name {
        return None;
    }
    let b = k.frame();
    let a = track_frames(doc, &sel.name)
        .into_iter()
        .filter(|&f| f < b)
        .max()?;
    Some((a, b))
}

fn engine<'m>(m: &'m mut Memory, rig: &Model, rig_gen: u64) -> &'m mut PoseEngine {
    if m.engine.as_ref().is_some_and(|(g, _)| *g != rig_gen) {
        m.engine = None;
    }
    &mut m
        .engine
        .get_or_insert_with(|| (rig_gen, PoseEngine::new(rig)))
        .1
}

fn update_paths(
    m: &mut Memory,
    sel: &Selected,
    doc: &crate::workspace::document::Document,
    rig: &Model,
    rig_gen: u64,
    range: (u32, u32),
) {
    let key = (sel.actor, sel.bone, doc.id, rig_gen, range.0, range.1);
    if m.key == Some(key) && m.revision == doc.revision {
        m.posed_frames = 0;
        return;
    }
    // Only a curve edit since last time: pose just its segments again.
    let segments = (m.key == Some(key))
        .then(|| {
            m.snapshot
                .as_ref()
                .and_then(|before| curve_edit_frames(before, &doc.motion, &doc.index))
        })
        .flatten();
    let mut paths = std::mem::take(&mut m.paths);
    let e = engine(m, rig, rig_gen);
    e.bind(rig, Some(&doc.index));
    let mut posed = 0;
    let only_curves = segments.is_some();
    match segments {
        Some(ranges) => {
            for r in ranges {
                let a = (*r.start()).max(range.0);
                let b = (*r.end()).min(range.1);
                if a <= b {
                    posed += (b - a + 1) as usize;
                }
                paths.refresh(rig, e, doc.source(), r);
            }
        }
        None => {
            paths = motion_path(rig, e, doc.source(), &[sel.bone], range.0..=range.1);
            posed = (range.1 - range.0 + 1) as usize;
        }
    }
    m.paths = paths;
    m.posed_frames = posed;
    m.key = Some(key);
    m.revision = doc.revision;
    // After a curve edit only bone records changed: copy them into the
    // snapshot's allocation instead of cloning the whole motion again.
    match &mut m.snapshot {
        Some(s) if only_curves => s.bones.clone_from(&doc.motion.bones),
        _ => {
            m.snapshot = (doc.motion.bones.len() <= SNAPSHOT_MAX_KEYS).then(|| doc.motion.clone());
        }
    }
    // The ghosts follow the motion too.
    m.ghost_key = None;
}

fn update_ghosts(
    m: &mut Memory,
    doc: &crate::workspace::document::Document,
    rig: &Model,
    frames: &[u32],
    now: u32,
) {
    let key = (doc.revision, frames.to_vec());
    if m.ghost_key.as_ref() == Some(&key) {
        return;
    }
    let rig_gen = m.engine.as_ref().map_or(0, |(g, _)| *g);
    let e = engine(m, rig, rig_gen);
    let mut out = Vec::new();
    for &f in frames {
        e.pose_bones(rig, Some(doc.source()), f64::from(f), |_| {});
        let lines = skeleton_lines(rig, &e.posed.bone_world);
        out.push(Ghost {
            frame: f,
            before: f < now,
            lines,
        });
    }
    m.ghosts = out;
    m.ghost_key = Some(key);
}

/// A posed skeleton as lines, parent head to head (IK bones left out): what
/// a ghost draws.
pub(super) fn skeleton_lines(model: &Model, bone_world: &[Mat4]) -> Vec<[Vec3; 2]> {
    let heads: Vec<Vec3> = bone_world.iter().map(|w| w.w_axis.truncate()).collect();
    model
        .skeleton
        .bones
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            let p = b.parent?;
            (!b.flags.ik).then_some([*heads.get(p)?, *heads.get(i)?])
        })
        .filter(|[a, b]| a.is_finite() && b.is_finite())
        .collect()
}

/// The controls: a small frame in the picture's top-left corner.
fn controls(ctx: &egui::Context, rect: Rect, view: u32, s: &mut Settings) {
    egui::Area::new(egui::Id::unique(("vmd-studio-path-controls", view)))
        .fixed_pos(rect.left_top() + egui::vec2(8.0, 8.0))
        .order(egui::Order::Middle)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.checkbox(&mut s.path, "Motion path").on_hover_text(
                        "The selected bone's path around the playhead (a dot per frame, a \
                         larger mark per key, the edited segment in gold); in the free view \
                         also the camera's eye path with its cuts",
                    );
                    ui.add(
                        egui::DragValue::new(&mut s.half_range)
                            .range(1..=2000)
                            .prefix("±")
                            .suffix(" f"),
                    );
                    ui.checkbox(&mut s.ghosts, "Ghosts")
                        .on_hover_text("The skeleton, faint, at neighbouring keys or frames");
                    if s.ghosts {
                        egui::ComboBox::from_id_salt(("vmd-studio-ghost-mode", view))
                            .selected_text(match s.ghost_mode {
                                GhostMode::Keys => "prev/next key",
                                GhostMode::Frames => "± frames",
                            })
                            .show_ui(ui, |ui| {
                                ui.selectable_value(
                                    &mut s.ghost_mode,
                                    GhostMode::Keys,
                                    "prev/next key",
                                );
                                ui.selectable_value(
                                    &mut s.ghost_mode,
                                    GhostMode::Frames,
                                    "± frames",
                                );
                            });
                        if s.ghost_mode == GhostMode::Frames {
                            ui.add(
                                egui::DragValue::new(&mut s.count)
                                    .range(1..=20)
                                    .prefix("× "),
                            );
                            ui.add(
                                egui::DragValue::new(&mut s.step)
                                    .range(1..=300)
                                    .prefix("every ")
                                    .suffix(" f"),
                            );
                        }
                    }
                });
            });
        });
}

/// Draws `data` with `painter` through `view_proj` into `rect`.
pub fn draw(painter: &egui::Painter, view_proj: &Mat4, rect: Rect, data: &PathData) {
    let placed = *view_proj * data.placement;
    let at = |p: Vec3| project_point(view_proj, p, rect);
    let line = |a: Vec3, b: Vec3, st: Stroke| {
        if let Some(s) = project_segment(view_proj, a, b, rect) {
            painter.line_segment(s, st);
        }
    };
    let at_actor = |p: Vec3| project_point(&placed, p, rect);
    let actor_line = |a: Vec3, b: Vec3, st: Stroke| {
        if let Some(s) = project_segment(&placed, a, b, rect) {
            painter.line_segment(s, st);
        }
    };
    for g in &data.ghosts {
        let c = if g.before { GHOST_BEFORE } else { GHOST_AFTER };
        for [a, b] in &g.lines {
            actor_line(*a, *b, Stroke::new(1.5, c));
        }
    }
    if let Some(paths) = &data.bone {
        for p in &paths.paths {
            let frame_of = |i: usize| paths.first_frame + i as u32;
            let edited = |f: u32| data.edited.is_some_and(|(a, b)| f > a && f <= b);
            for (i, w) in p.points.windows(2).enumerate() {
                let f = frame_of(i + 1);
                let c = if edited(f) {
                    PATH_EDITED
                } else {
                    PATH.gamma_multiply(0.7)
                };
                actor_line(
                    Vec3::from(w[0]),
                    Vec3::from(w[1]),
                    Stroke::new(if edited(f) { 2.0 } else { 1.0 }, c),
                );
            }
            for (i, q) in p.points.iter().enumerate() {
                let f = frame_of(i);
                if let Some(s) = at_actor(Vec3::from(*q)) {
                    if p.key_frames.binary_search(&f).is_ok() {
                        key_mark(painter, s, if edited(f) { PATH_EDITED } else { PATH });
                    } else {
                        painter.circle_filled(s, 1.8, if edited(f) { PATH_EDITED } else { PATH });
                    }
                }
            }
        }
    }
    if let Some(cam) = &data.camera {
        for (i, w) in cam.eyes.windows(2).enumerate() {
            let f = cam.first_frame + i as u32 + 1;
            if cam.cuts.binary_search(&f).is_ok() {
                continue;
            }
            line(
                Vec3::from(w[0]),
                Vec3::from(w[1]),
                Stroke::new(1.0, CAMERA_PATH.gamma_multiply(0.8)),
            );
        }
        for (i, e) in cam.eyes.iter().enumerate() {
            let f = cam.first_frame + i as u32;
            let Some(s) = at(Vec3::from(*e)) else {
                continue;
            };
            if cam.cuts.binary_search(&f).is_ok() {
                painter.line_segment(
                    [s + egui::vec2(-5.0, -5.0), s + egui::vec2(5.0, 5.0)],
                    Stroke::new(2.0, CUT),
                );
                painter.line_segment(
                    [s + egui::vec2(-5.0, 5.0), s + egui::vec2(5.0, -5.0)],
                    Stroke::new(2.0, CUT),
                );
            } else if cam.key_frames.binary_search(&f).is_ok() {
                key_mark(painter, s, CAMERA_PATH);
            } else {
                painter.circle_filled(s, 1.5, CAMERA_PATH);
            }
        }
    }
}

/// A key's mark: a diamond.
fn key_mark(painter: &egui::Painter, s: Pos2, c: Color32) {
    let r = 4.5;
    painter.add(egui::Shape::convex_polygon(
        vec![
            s + egui::vec2(0.0, -r),
            s + egui::vec2(r, 0.0),
            s + egui::vec2(0.0, r),
            s + egui::vec2(-r, 0.0),
        ],
        c,
        Stroke::new(1.0, Color32::BLACK),
    ));
}
