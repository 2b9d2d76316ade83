//! The built-in standard MMD skeleton, used to preview a motion when no model
//! is loaded: a [`Model`] with bones and IK chains and no mesh, posed by the
//! same engine as any model ([`super::PoseEngine`]).
//!
//! The data lives in `assets/standard_skeleton.json` (VMD Studio's own,
//! hand-made: about 20 units tall, MMD left-handed Y-up coordinates, facing
//! −Z, left side at +X). Bones refer to each other by name there.

use glam::Vec3;
use serde::Deserialize;

use super::data::{Format, Model};
use super::skeleton::{Bone, BoneFlags, BoneTail, IkChain, IkLink, Inherit, Skeleton};

/// The asset text, compiled into the binary.
pub const STANDARD_SKELETON_JSON: &str = include_str!("../../assets/standard_skeleton.json");

#[derive(Deserialize)]
struct FileJson {
    bones: Vec<BoneJson>,
    iks: Vec<IkJson>,
}

#[derive(Deserialize)]
struct BoneJson {
    name: String,
    parent: Option<String>,
    position: [f32; 3],
    #[serde(default)]
    tail: Option<String>,
    #[serde(default)]
    tail_offset: Option<[f32; 3]>,
    #[serde(default)]
    movable: bool,
    #[serde(default)]
    inherit: Option<InheritJson>,
}

#[derive(Deserialize)]
struct InheritJson {
    source: String,
    ratio: f32,
    #[serde(default)]
    rotation: bool,
    #[serde(default)]
    translation: bool,
}

#[derive(Deserialize)]
struct IkJson {
    bone: String,
    target: String,
    loops: u32,
    /// Radians per CCD step.
    limit_angle: f32,
    links: Vec<IkLinkJson>,
}

#[derive(Deserialize)]
struct IkLinkJson {
    bone: String,
    /// Radians, Euler X/Y/Z.
    #[serde(default)]
    min: Option<[f32; 3]>,
    #[serde(default)]
    max: Option<[f32; 3]>,
}

/// Parses skeleton JSON in the asset's format (bones and IK chains referring
/// to bones by name). Errors name the unknown bone or the JSON problem.
pub fn parse_skeleton_json(text: &str) -> Result<Skeleton, String> {
    let file: FileJson = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let index = |name: &str, what: &str| -> Result<usize, String> {
        file.bones
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| format!("{what}: no bone called {name}"))
    };
    let mut bones = Vec::with_capacity(file.bones.len());
    for b in &file.bones {
        let parent = match &b.parent {
            Some(p) => Some(index(p, &format!("parent of {}", b.name))?),
            None => None,
        };
        let tail = match (&b.tail, b.tail_offset) {
            (Some(t), _) => Some(BoneTail::Bone(index(t, &format!("tail of {}", b.name))?)),
            (None, Some(o)) => Some(BoneTail::Offset(Vec3::from(o))),
            (None, None) => None,
        };
        let inherit = match &b.inherit {
            Some(i) => Some(Inherit {
                source: index(&i.source, &format!("inherit source of {}", b.name))?,
                ratio: i.ratio,
                rotation: i.rotation,
                translation: i.translation,
                local: false,
            }),
            None => None,
        };
        bones.push(Bone {
            name: b.name.clone(),
            parent,
            rest_position: Vec3::from(b.position),
            tail,
            flags: BoneFlags {
                rotatable: true,
                movable: b.movable,
                visible: true,
                ik: false,
                operable: true,
                after_physics: false,
            },
            inherit,
            layer: 0,
            name_en: String::new(),
            fixed_axis: None,
            local_axes: None,
            external_parent: None,
        });
    }
    let mut iks = Vec::with_capacity(file.iks.len());
    for ik in &file.iks {
        let ik_bone = index(&ik.bone, "IK bone")?;
        let mut links = Vec::with_capacity(ik.links.len());
        for link in &ik.links {
            let limits = match (link.min, link.max) {
                (Some(a), Some(b)) => Some((Vec3::from(a), Vec3::from(b))),
                (None, None) => None,
                _ => return Err(format!("IK link {}: give both min and max", link.bone)),
            };
            links.push(IkLink {
                bone: index(&link.bone, &format!("IK link of {}", ik.bone))?,
                limits,
            });
        }
        bones[ik_bone].flags.ik = true;
        iks.push(IkChain {
            ik_bone,
            target: index(&ik.target, &format!("IK target of {}", ik.bone))?,
            loops: ik.loops,
            limit_angle: ik.limit_angle,
            links,
        });
    }
    Ok(Skeleton { bones, iks })
}

/// VMD Studio's standard MMD skeleton: 全ての親, センター, グルーブ, 腰, upper
/// and lower body, neck, head, eyes, shoulders, arms with twist bones,
/// fingers, legs, and the leg and toe IK chains (leg IK: 40 loops, 2 rad per
/// step, knee X-only in [−π, −0.5°]; toe IK: 3 loops, 4 rad per step).
pub fn standard_skeleton() -> Skeleton {
    // The asset is compiled in and checked by the tests; should it ever be
    // broken, an empty skeleton is a safe fallback for a preview.
    parse_skeleton_json(STANDARD_SKELETON_JSON).unwrap_or_default()
}

/// The standard skeleton as a model with no mesh and no morphs (a PMX 2.0,
/// so IK chains solve in deform order as PMX models do).
pub fn standard_model() -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    m.name = "Standard skeleton".into();
    m.skeleton = standard_skeleton();
    m
}
