//! A project's accessories → the scene's set: each accessory with its
//! panel state and its keys, parented to a model's bone or the world,
//! drawn before or after the models as the project says.
//!
//! What the PMM fields mean (docs/pmm-format.md, from nanoem's
//! `nanoem/ext/document.c` / `document_p.h` and mmd-anim's `pmm.rs`):
//! - opacity and shown in one byte: bit 0 shown, bits 1–7 the
//!   transparency in percent ([`PmmAccessoryKey::opacity`]);
//! - parent: (model index, bone index into that model's bone list), `-1`
//!   for none: the world;
//! - position in MMD units, rotation as Euler angles in radians (the
//!   panel shows degrees), scale the panel's Si (1 = the `.x` at MMD's
//!   ×10);
//! - `accessory_index_after_models` (our `accessory_after_models`): the
//!   accessories from that draw-order index on are drawn after the models,
//!   `-1`: none (nanoem `emapp/src/internal/project/PMM.cc`,
//!   `PMM::Context::loadAllAccessories`, which also passes the scale factor
//!   and the translation through as stored and turns the Euler angles into
//!   the orientation).
//!
//! A key at a negative frame is left out and a non-finite number replaced
//! (0; Si 1), each with a warning naming the key's byte offset, as the
//! motions' keys are ([`super::convert`]).

use std::path::PathBuf;

use glam::Vec3;

use super::convert::{finite, non_finite, vmd_frame};
use super::document::{PmmAccessory, PmmAccessoryKey, Project, Record};
use super::error::Warning;
use super::links;
use super::paths::Resolver;
use crate::scene::set::{AccessoryKey, AccessoryState, DrawOrder, Parent, SetAccessory};

/// The project's accessories as set accessories.
#[derive(Debug, Default)]
pub struct ProjectSet {
    /// In the project's order. A file not found keeps its slot (and keys)
    /// under its path as stored, so the scene names it when it loads.
    pub accessories: Vec<SetAccessory>,
    /// Per accessory: whether its file was found.
    pub found: Vec<bool>,
    /// Accessory name and path as stored, for files not found.
    pub missing: Vec<(String, String)>,
    pub warnings: Vec<Warning>,
}

/// The accessories of `p`, their paths resolved with `r`.
pub fn accessories(p: &Project, r: &Resolver) -> ProjectSet {
    let mut out = ProjectSet::default();
    let after_from = p
        .settings
        .as_ref()
        .map_or(i32::MAX, |s| s.accessory_after_models);
    for a in &p.accessories {
        let resolved = r.resolve(&a.path.text).path;
        out.found.push(resolved.is_some());
        let path = match resolved {
            Some(f) => f,
            None => {
                out.missing.push((a.name.text.clone(), a.path.text.clone()));
                PathBuf::from(a.path.text.replace('\\', "/"))
            }
        };
        let mut acc = SetAccessory::new(path);
        if !a.name.text.trim().is_empty() {
            acc.name = a.name.text.trim().to_owned();
        }
        acc.order = if after_from > -1 && i32::from(a.draw_order) >= after_from {
            DrawOrder::AfterModels
        } else {
            DrawOrder::BeforeModels
        };
        let track = || format!("accessory {}", a.name.text);
        acc.state = state(p, &a.current);
        let lists = links::follow(&a.keys, |_| track());
        out.warnings.extend(lists.warnings.iter().cloned());
        for rec in lists
            .lists
            .iter()
            .flat_map(|l| super::convert::records(&a.keys, l))
        {
            if let Some(key) = key(p, a, rec, &mut out.warnings) {
                acc.set_key(key);
            }
        }
        out.accessories.push(acc);
    }
    out
}

/// One key record as a set key (`None`: left out, with a warning).
fn key(
    p: &Project,
    a: &PmmAccessory,
    rec: &Record<PmmAccessoryKey>,
    w: &mut Vec<Warning>,
) -> Option<AccessoryKey> {
    let track = || format!("accessory {}", a.name.text);
    let frame = vmd_frame(rec, &track, w)?;
    let mut v = rec.value;
    let mut s = [v.scale];
    if finite(&mut v.position) | finite(&mut v.rotation) | finite(&mut s) {
        if !v.scale.is_finite() {
            s[0] = 1.0;
        }
        w.push(non_finite(rec, &track));
    }
    v.scale = s[0];
    Some(AccessoryKey {
        frame,
        state: state(p, &v),
    })
}

/// The panel state a key (or the current state) holds.
fn state(p: &Project, k: &PmmAccessoryKey) -> AccessoryState {
    let r = k.rotation;
    AccessoryState {
        parent: parent(p, k.parent),
        position: Vec3::from_array(k.position),
        rotation_degrees: Vec3::new(r[0].to_degrees(), r[1].to_degrees(), r[2].to_degrees()),
        scale: k.scale,
        opacity: k.opacity().clamp(0.0, 1.0),
        shown: k.visible(),
        ground_shadow: k.shadow,
    }
}

/// A (model, bone) pair as the set's parent: the bone of that model's
/// actor (actors are the project's models, in order), or the world for
/// `-1` or an index the project does not have.
fn parent(p: &Project, (model, bone): (i32, i32)) -> Parent {
    let name = usize::try_from(model)
        .ok()
        .and_then(|m| Some((m, p.models.get(m)?)))
        .and_then(|(m, pm)| {
            let b = pm.bone_names.get(usize::try_from(bone).ok()?)?;
            Some((m, b.text.clone()))
        });
    match name {
        Some((actor, bone)) => Parent::Bone { actor, bone },
        None => Parent::World,
    }
}
