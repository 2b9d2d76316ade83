//! What the viewport's overlays draw on: the [`Canvas`] (MMD space onto a
//! view's picture) and what every overlay placed in the scene gets
//! ([`WorldOverlays`]); below the drawing code and the motion paths alike.

use egui::{Align2, Color32, FontId, Rect, Stroke};
use glam::{Mat4, Vec3};

use super::{Moment, SceneView, Shot, project_point, project_segment};
use crate::app::panels::gizmo;

/// Where the scene's lines go: the painter, MMD space → clip space, and
/// the picture's rectangle.
pub(super) struct Canvas<'a> {
    pub(super) painter: &'a egui::Painter,
    pub(super) vp: Mat4,
    pub(super) rect: Rect,
}

impl Canvas<'_> {
    /// A segment in MMD space (clipped at the eye plane).
    pub(super) fn line(&self, a: Vec3, b: Vec3, stroke: Stroke) {
        if let Some(seg) = project_segment(&self.vp, a, b, self.rect) {
            self.painter.line_segment(seg, stroke);
        }
    }
    /// A dot at a point in MMD space.
    pub(super) fn dot(&self, p: Vec3, radius: f32, colour: Color32) {
        if let Some(s) = project_point(&self.vp, p, self.rect) {
            self.painter.circle_filled(s, radius, colour);
        }
    }
    /// Text beside a point in MMD space.
    pub(super) fn label(&self, p: Vec3, text: &str, colour: Color32) {
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

/// What overlays placed in the scene get: this view's canvas (MMD space →
/// its picture, clipped), how it looks and the moment. An overlay that
/// needs more (the scene, the poses in `Picture::frame.worlds`) adds a
/// field here.
pub(super) struct WorldOverlays<'a> {
    pub canvas: &'a Canvas<'a>,
    pub shot: &'a Shot,
    pub now: &'a Moment,
    /// Width / height of the VMD camera's picture.
    pub picture_aspect: f32,
    /// For overlays that keep state or draw controls (motion paths).
    pub ctx: &'a egui::Context,
    pub scene: &'a SceneView<'a>,
    /// The posing tool's bone.
    pub selected: Option<&'a gizmo::Selected>,
    pub view_number: u32,
}
