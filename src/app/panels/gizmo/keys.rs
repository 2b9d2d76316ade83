//! Registering keys from the viewport: the selected bone's pose as a bone
//! key at the playhead (Enter), the free view as a camera key.

use std::collections::BTreeSet;

use super::drag::current_local;
use super::{PoseTool, bone_key_at, motion_frame};
use crate::app::panels::Shared;
use crate::app::panels::viewport::scene_view::SceneView;
use crate::scene::view::ViewCamera;
use crate::vmd::{BoneKey, CameraKey};
use crate::workspace::document::{Document, Edit, EditRequest, KeyChanges, KeyRef};

/// Registers the selected bone's pose as a key at the playhead (Enter).
/// A frame that already has a key keeps it (drags edit it directly).
pub fn register_bone_key(
    scene: &SceneView,
    scene_frame: f64,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
    tool: &mut PoseTool,
) {
    let Some(s) = tool.selected.clone() else {
        shared.info("Register key: click a bone's joint in the view first");
        return;
    };
    let Some(a) = scene.actors.get(s.actor) else {
        return;
    };
    let Some(doc) = a.motion else {
        shared.info(format!(
            "{} has no motion to key: give the actor a motion (scene panel) first",
            a.name
        ));
        return;
    };
    let Some(frame) = motion_frame(scene_frame, a.offset) else {
        shared.info("The playhead is before the motion's frame 0");
        return;
    };
    if bone_key_at(doc, &s.name, frame).is_some() {
        shared.info(format!(
            "{} already has a key on frame {frame}; dragging the gizmo edits it directly",
            s.name
        ));
        return;
    }
    let (t, q, _) = current_local(tool, doc, s.actor, &s.name, frame);
    let m0 = &doc.motion;
    // A new key as "Insert key" makes one: default curves, and the name
    // bytes of the track that drives the bone (MMD's name rule) when the
    // motion has one.
    let key = match crate::model::bone_track(&doc.index, &s.name)
        .and_then(|t| doc.index.bones.get(t))
        .and_then(|tr| tr.keys.first())
    {
        Some(&first) => {
            let Some(src) = m0.bones.get(first as usize) else {
                return;
            };
            let Ok(mut k) = BoneKey::new("", m0.name_encoding(), frame, t.to_array(), q.to_array())
            else {
                return;
            };
            let mut field = [0u8; 15];
            field.copy_from_slice(src.name_field());
            k.set_name_field(&field);
            k
        }
        None => match BoneKey::new(
            &s.name,
            m0.name_encoding(),
            frame,
            t.to_array(),
            q.to_array(),
        ) {
            Ok(k) => k,
            Err(e) => {
                shared.error(format!(
                    "Register key refused: bone name \"{}\": {e}",
                    s.name
                ));
                return;
            }
        },
    };
    let mut m = m0.clone();
    let sel = BTreeSet::from([KeyRef::Bone(m.bones.len() as u32)]);
    m.bones.push(key);
    edits.push((
        doc.id,
        EditRequest::apply(
            Edit::ReplaceMotion {
                motion: Box::new(m),
                selection: Some(sel),
            },
            format!("Register {} key at frame {frame}", s.name),
        ),
    ));
    tool.pending = None;
    shared.info(format!("Registered {} at frame {frame}", s.name));
}

/// Writes the free view as a camera key at the playhead of the scene's
/// camera document: the key there gets the view's target, angles, distance,
/// field of view and projection (its curves stay); else a new key is added
/// with the curves "Insert key" gives. One undo step.
pub fn register_camera_key(
    cam: Option<&Document>,
    view: &ViewCamera,
    scene_frame: f64,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
) {
    let Some(doc) = cam else {
        shared.info("Register camera key: the scene has no camera file (open one or add it in the scene panel)");
        return;
    };
    let Some(frame) = motion_frame(scene_frame, 0) else {
        return;
    };
    let fov = view.fov.round().clamp(1.0, 180.0) as u32;
    let m = &doc.motion;
    let existing = doc.index.camera.iter().rev().copied().find(|&i| {
        m.cameras
            .get(i as usize)
            .is_some_and(|k| k.frame() == frame)
    });
    let edit = match existing.and_then(|i| m.cameras.get(i as usize).map(|k| (i, k))) {
        Some((i, k)) => {
            let mut k = *k;
            k.set_target(view.target);
            k.set_rotation(view.rotation);
            k.set_distance(view.distance);
            k.set_fov(fov);
            k.set_perspective(view.perspective);
            Edit::SetKeys(KeyChanges {
                cameras: vec![(i, k)],
                ..Default::default()
            })
        }
        None => {
            let mut m2 = m.clone();
            let sel = BTreeSet::from([KeyRef::Camera(m2.cameras.len() as u32)]);
            m2.cameras.push(CameraKey::new(
                frame,
                view.distance,
                view.target,
                view.rotation,
                fov,
                view.perspective,
            ));
            Edit::ReplaceMotion {
                motion: Box::new(m2),
                selection: Some(sel),
            }
        }
    };
    edits.push((
        doc.id,
        EditRequest::apply(edit, format!("Register camera key at frame {frame}")),
    ));
    shared.info(format!("Camera key registered at frame {frame}"));
}
