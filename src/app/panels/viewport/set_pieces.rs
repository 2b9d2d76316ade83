//! The set's stages, props and accessories as the viewport draws them: each
//! piece's vertices placed on the CPU when its placement changes (a stage
//! once; an accessory when its keys, panel values or parent bone move it),
//! handed to the model renderer beside the actors' meshes. A static stage
//! costs a pass no work proportional to its vertices; a stage with its own
//! motion (moving parts) is posed and skinned on the CPU when the frame or
//! the motion changes (no physics: MMD's props rarely have any).

use std::sync::Arc;

use glam::Mat4;

use super::super::model_view::{ActorFrame, FrameMesh};
use super::SetPieceView;
use crate::model::PoseEngine;
use crate::render::from_model::{
    placed_materials, placed_vertices, posed_materials, posed_vertices,
};
use crate::render::{MeshTemplate, RenderMaterial, RenderVertex};
use crate::scene::set::{DrawOrder, PiecePlacement};
use crate::workspace::document::Document;

/// One piece's placed buffers.
struct SetMesh {
    /// The asset's generation: a reloaded file is a new mesh.
    id: u64,
    order: DrawOrder,
    visible: bool,
    /// World matrix, opacity and ground shadow the buffers hold.
    placed: Option<(Mat4, f32, bool)>,
    /// Bumped when the buffers change (a generation is uploaded once).
    generation: u64,
    /// The placed vertices' axis-aligned bounds (found when placed).
    bounds: Option<(glam::Vec3, glam::Vec3)>,
    /// A stage's own motion: its pose engine and what was posed (motion
    /// document id and revision, frame).
    posing: Option<(PoseEngine, (u64, u64), f64)>,
    template: Arc<MeshTemplate>,
    vertices: Arc<Vec<RenderVertex>>,
    materials: Arc<Vec<RenderMaterial>>,
}

/// The set's meshes, in the scene's order (stages, then accessories).
#[derive(Default)]
pub struct SetMeshes {
    meshes: Vec<SetMesh>,
    /// Times any piece's buffers were placed (tests: a static stage once).
    placements: u64,
}

impl std::fmt::Debug for SetMeshes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SetMeshes")
            .field("meshes", &self.meshes.len())
            .field("placements", &self.placements)
            .finish()
    }
}

impl SetMeshes {
    /// Brings the pieces up to date for scene frame `frame`;
    /// `bone_world(actor, bone)` answers an accessory's parent bone's world
    /// matrix as the actor is drawn now (`None`: not found, the world).
    pub fn update(
        &mut self,
        pieces: &[SetPieceView],
        frame: f64,
        bone_world: impl Fn(usize, &str) -> Option<Mat4>,
    ) {
        self.meshes.truncate(pieces.len());
        for (k, piece) in pieces.iter().enumerate() {
            let id = piece.asset.generation();
            if self.meshes.get(k).is_none_or(|m| m.id != id) {
                let template = Arc::clone(&piece.asset.template);
                let mesh = SetMesh {
                    id,
                    order: piece.order,
                    visible: true,
                    placed: None,
                    generation: 0,
                    bounds: None,
                    posing: None,
                    vertices: Arc::new(template.mesh.vertices.clone()),
                    materials: Arc::new(template.mesh.materials.clone()),
                    template,
                };
                if k < self.meshes.len() {
                    self.meshes[k] = mesh;
                } else {
                    self.meshes.push(mesh);
                }
            }
            let m = &mut self.meshes[k];
            m.order = piece.order;
            if let (Some(doc), None) = (piece.motion, piece.accessory) {
                m.visible = piece.shown;
                if m.visible && pose_stage(m, &piece.asset.loaded.model, doc, frame) {
                    m.generation += 1;
                    self.placements += 1;
                }
                continue;
            }
            m.posing = None;
            let p = match piece.accessory {
                None => PiecePlacement {
                    shown: piece.shown,
                    ..PiecePlacement::STAGE
                },
                Some(a) => a.placement_at(frame, &bone_world),
            };
            let (world, opacity, ground, shown) = (p.world, p.opacity, p.ground_shadow, p.shown);
            m.visible = shown && world.is_finite();
            if !m.visible || m.placed == Some((world, opacity, ground)) {
                continue;
            }
            placed_vertices(
                &m.template.mesh.vertices,
                world,
                Arc::make_mut(&mut m.vertices),
            );
            placed_materials(
                &m.template.mesh.materials,
                opacity,
                ground,
                Arc::make_mut(&mut m.materials),
            );
            m.placed = Some((world, opacity, ground));
            m.bounds = bounds_of(&m.vertices);
            m.generation += 1;
            self.placements += 1;
        }
    }

    /// The visible pieces drawn in `order`, as frames for the renderer
    /// (keys apart from the actors': `usize::MAX − piece`).
    pub fn frames(&self, order: DrawOrder) -> impl Iterator<Item = ActorFrame> + '_ {
        self.meshes
            .iter()
            .enumerate()
            .filter(move |(_, m)| m.visible && m.order == order)
            .map(|(k, m)| ActorFrame {
                key: (usize::MAX - k, m.id),
                generation: m.generation,
                template: Arc::clone(&m.template),
                mesh: FrameMesh::Vertices {
                    vertices: Arc::clone(&m.vertices),
                    materials: Arc::clone(&m.materials),
                },
            })
    }

    /// The visible pieces' bounds together (for the far plane), or `None`.
    pub fn bounds(&self) -> Option<(glam::Vec3, glam::Vec3)> {
        self.meshes
            .iter()
            .filter(|m| m.visible)
            .filter_map(|m| m.bounds)
            .reduce(|(lo, hi), (a, b)| (lo.min(a), hi.max(b)))
    }

    /// Times any piece was placed since the start.
    pub fn placements(&self) -> u64 {
        self.placements
    }
}

/// Poses and skins a stage with its own motion at scene `frame` (its
/// bones as keyed, IK and morphs, no physics) unless that frame of that
/// motion is what the mesh holds; returns whether the mesh changed.
fn pose_stage(m: &mut SetMesh, model: &crate::model::Model, doc: &Document, frame: f64) -> bool {
    let key = (doc.id, doc.revision);
    if m.posing
        .as_ref()
        .is_some_and(|p| p.1 == key && p.2 == frame)
    {
        return false;
    }
    let (engine, seen, at) = m.posing.get_or_insert_with(|| {
        let mut e = PoseEngine::new(model);
        e.bind(model, Some(&doc.index));
        (e, key, f64::NAN)
    });
    if *seen != key {
        // Another motion, or the same one edited (its tracks may differ).
        engine.bind(model, Some(&doc.index));
    }
    engine.pose(model, Some(doc.source()), frame);
    posed_vertices(model, &engine.posed, Arc::make_mut(&mut m.vertices));
    posed_materials(
        &m.template.mesh.materials,
        &engine.posed,
        Arc::make_mut(&mut m.materials),
    );
    (*seen, *at) = (key, frame);
    m.placed = None;
    m.bounds = bounds_of(&m.vertices);
    true
}

/// The finite vertices' axis-aligned bounds, or `None`.
fn bounds_of(vertices: &[RenderVertex]) -> Option<(glam::Vec3, glam::Vec3)> {
    let mut finite = vertices
        .iter()
        .map(|v| glam::Vec3::from(v.position))
        .filter(|v| v.is_finite());
    finite
        .next()
        .map(|first| finite.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
}
