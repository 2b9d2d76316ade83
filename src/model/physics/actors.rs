//! Several actors in one world (issue 21 item 3): their skeletons, bodies
//! and joints joined into one list, each actor's bones, bodies and joints
//! one after another, so the world steps them together. Which bodies of
//! different actors may touch is the world's business
//! ([`PhysicsWorld::set_collide_across_actors`](super::PhysicsWorld::set_collide_across_actors)).

use std::ops::Range;

use super::setup::world_setup;
use crate::model::data::Model;
use crate::model::skeleton::Bone;

/// Where one actor's bones and bodies sit in the joined lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ActorSpan {
    pub bones: Range<usize>,
    pub bodies: Range<usize>,
}

/// The actors joined into one model holding only what the world reads
/// (bones with their parents and rest positions, bodies, joints), with each
/// actor's spans and its own warnings, prefixed `actor N: ` (1-based).
/// An index that points outside its own actor becomes none, so that it can
/// never reach another actor's bones or bodies.
pub(super) fn join(models: &[&Model]) -> (Model, Vec<ActorSpan>, Vec<String>) {
    let mut joined = Model::empty(
        models
            .first()
            .map_or(crate::model::data::Format::Pmx { version: 2.0 }, |m| {
                m.format
            }),
    );
    let mut spans = Vec::with_capacity(models.len());
    let mut warnings = Vec::new();
    for (k, model) in models.iter().enumerate() {
        let bone0 = joined.skeleton.bones.len();
        let body0 = joined.rigid_bodies.len();
        let bones = &model.skeleton.bones;
        let n_bones = bones.len();
        let n_bodies = model.rigid_bodies.len();
        for b in bones {
            let parent = b.parent.filter(|&p| p < n_bones).map(|p| p + bone0);
            joined
                .skeleton
                .bones
                .push(Bone::new(b.name.clone(), parent, b.rest_position));
        }
        for rb in &model.rigid_bodies {
            let mut rb = rb.clone();
            rb.bone = rb.bone.filter(|&b| b < n_bones).map(|b| b + bone0);
            joined.rigid_bodies.push(rb);
        }
        for j in &model.joints {
            let mut j = j.clone();
            for r in &mut j.rigid_bodies {
                *r = r.filter(|&i| i < n_bodies).map(|i| i + body0);
            }
            joined.joints.push(j);
        }
        warnings.extend(
            world_setup(model)
                .warnings
                .into_iter()
                .map(|w| format!("actor {}: {w}", k + 1)),
        );
        spans.push(ActorSpan {
            bones: bone0..joined.skeleton.bones.len(),
            bodies: body0..joined.rigid_bodies.len(),
        });
    }
    (joined, spans, warnings)
}
