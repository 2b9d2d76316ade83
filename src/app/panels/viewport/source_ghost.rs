//! Tools ▸ Size motion to model…'s preview, "the target over the source as
//! a ghost" (issue 36): while the sized motion plays on the actor, the
//! source body wearing the motion as it was made (unsized) is drawn as a
//! faint skeleton at the actor's place, so the user sees what the sizing
//! changed (feet planted, hands meeting, arms clearing the body) while
//! scrubbing, through the scene's camera or the free view.

use std::sync::Arc;

use egui::mutex::Mutex;
use egui::{Color32, Stroke};
use glam::{Mat4, Vec3};

use super::canvas::WorldOverlays;
use super::scene_view::SourceGhost;
use crate::model::PoseEngine;

const GHOST: Color32 = Color32::from_rgba_premultiplied(150, 60, 200, 170);

/// The bone lines last posed: what they were posed for (model address,
/// document id and revision, motion frame) and the lines in model space.
#[derive(Default)]
struct Memory {
    engine: Option<(usize, PoseEngine)>,
    key: Option<(usize, u64, u64, u64)>,
    lines: Vec<[Vec3; 2]>,
    /// The lines last drawn, placed (tests).
    drawn: Option<Vec<[Vec3; 2]>>,
}

type Shared = Arc<Mutex<Memory>>;

fn memory(ctx: &egui::Context) -> Shared {
    ctx.data_mut(|d| {
        d.get_temp_mut_or_default::<Shared>(egui::Id::unique("vmd-studio-source-ghost"))
            .clone()
    })
}

/// The ghost's bone lines (model space) at motion frame `frame`, posed
/// again only when the model, the motion or the frame changed; the engine
/// is bound again only when the model or the motion changed (not at every
/// frame of playback).
fn lines<'m>(m: &'m mut Memory, g: &SourceGhost, frame: f64) -> &'m [[Vec3; 2]] {
    let model_id = std::ptr::from_ref(g.model) as usize;
    let key = (model_id, g.motion.id, g.motion.revision, frame.to_bits());
    if m.key == Some(key) {
        return &m.lines;
    }
    let rebind = m
        .key
        .is_none_or(|k| (k.0, k.1, k.2) != (key.0, key.1, key.2));
    if m.engine.as_ref().is_none_or(|(id, _)| *id != model_id) {
        m.engine = Some((model_id, PoseEngine::new(g.model)));
    }
    let Some((_, e)) = m.engine.as_mut() else {
        return &[];
    };
    if rebind {
        e.bind(g.model, Some(&g.motion.index));
    }
    e.pose_bones(g.model, Some(g.motion.source()), frame, |_| {});
    m.lines = super::path::skeleton_lines(g.model, &e.posed.bone_world);
    m.key = Some(key);
    &m.lines
}

/// The ghost's bone lines (scene space) as last drawn, if one was.
pub fn last_drawn(ctx: &egui::Context) -> Option<Vec<[Vec3; 2]>> {
    memory(ctx).lock().drawn.clone()
}

/// Draws the ghost, if the scene has one: the source's skeleton posed at
/// the actor's motion frame, placed where the actor stands.
pub(super) fn overlay(w: &WorldOverlays) {
    let mem = memory(w.ctx);
    let mut m = mem.lock();
    m.drawn = None;
    let Some(g) = w.scene.source_ghost else {
        return;
    };
    let Some(a) = w.scene.actors.get(g.actor) else {
        return;
    };
    let frame = (w.now.eval - f64::from(a.offset)).max(0.0);
    let placement = a.placement.matrix().unwrap_or(Mat4::IDENTITY);
    let placed: Vec<[Vec3; 2]> = lines(&mut m, &g, frame)
        .iter()
        .map(|l| l.map(|p| placement.transform_point3(p)))
        .collect();
    let stroke = Stroke::new(2.0, GHOST);
    let mut top: Option<Vec3> = None;
    for &[p, q] in &placed {
        w.canvas.line(p, q, stroke);
        top = Some(top.map_or(q, |t| if q.y > t.y { q } else { t }));
    }
    m.drawn = Some(placed);
    if let Some(t) = top {
        w.canvas.label(t + Vec3::Y * 1.5, "source, unsized", GHOST);
    }
}
