//! `model-info` and `pose`: describe a PMX/PMD model, and pose it with a
//! motion at a frame (MMD's rules: append, IK, morphs, skinning).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

pub use super::frame_range::parse_frame_range;
use super::{CliError, CliResult, load_indexed};
use crate::model::physics::SimulationMode;
use crate::model::{
    LoadedModel, Model, MorphCounts, PoseEngine, PoseInput, TextureProblem, missing_names,
};
use crate::vmd::IndexedMotion;

#[derive(Debug, Args)]
pub struct ModelInfoArgs {
    /// The model (PMX 2.0/2.1 or PMD), or an accessory (DirectX text .x or .vac).
    pub model: PathBuf,
    /// A VMD motion: also list its bone and morph names the model lacks.
    #[arg(long, value_name = "VMD")]
    pub motion: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct PoseArgs {
    /// The model (PMX 2.0/2.1 or PMD).
    pub model: PathBuf,
    /// The VMD motion.
    pub motion: PathBuf,
    /// Frame to pose (30 fps; fractional allowed).
    #[arg(
        long,
        allow_negative_numbers = true,
        required_unless_present = "frames",
        conflicts_with = "frames"
    )]
    pub frame: Option<f64>,
    /// Pose every frame of an inclusive range `A..B` in one run (one JSON
    /// line per frame with `--json`, the same keys as `--frame`).
    #[arg(long, value_name = "A..B")]
    pub frames: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Switch every IK chain off.
    #[arg(long)]
    pub no_ik: bool,
    /// Also print every vertex after morphs and skinning (model space).
    #[arg(long)]
    pub vertices: bool,
    /// Simulate the model's rigid bodies (hair, skirts): from frame 0,
    /// settled there, frame by frame to the frame asked (with --frames,
    /// through the range, one line per frame).
    #[arg(long)]
    pub physics: bool,
    /// Write the motion's pose at --frame as a VPD pose file instead (its
    /// keyed values, before IK and physics).
    #[arg(long, value_name = "OUT.vpd", conflicts_with = "frames")]
    pub vpd: Option<PathBuf>,
}

fn open_model(path: &Path) -> Result<Model, CliError> {
    Model::open(path).map_err(|e| CliError(format!("{}: {e}", path.display())))
}

#[derive(Debug, Serialize)]
struct Counts {
    vertices: usize,
    faces: usize,
    materials: usize,
    textures: usize,
    bones: usize,
    ik_chains: usize,
    morphs: MorphCounts,
    rigid_bodies: usize,
    joints: usize,
    soft_bodies: usize,
    display_frames: usize,
}

#[derive(Debug, Serialize)]
struct ModelInfo {
    format: String,
    name: String,
    name_en: String,
    counts: Counts,
    missing_textures: Vec<String>,
    broken_textures: Vec<String>,
    warnings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    motion_bones_missing: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    motion_morphs_missing: Option<Vec<String>>,
    physics: super::physics::PhysicsInfo,
}

pub fn model_info(a: ModelInfoArgs) -> CliResult {
    let loaded =
        LoadedModel::open(&a.model).map_err(|e| CliError(format!("{}: {e}", a.model.display())))?;
    let m = &loaded.model;
    let mut missing = Vec::new();
    let mut broken = Vec::new();
    for (_, name, problem) in &loaded.textures.problems {
        match problem {
            TextureProblem::Missing => missing.push(name.clone()),
            TextureProblem::Broken(why) => broken.push(format!("{name}: {why}")),
        }
    }
    let (bones_missing, morphs_missing) = match &a.motion {
        Some(path) => {
            let (_, index) = load_indexed(path)?;
            let missing = missing_names(m, &index);
            (Some(missing.bones), Some(missing.morphs))
        }
        None => (None, None),
    };
    let info = ModelInfo {
        format: match m.format {
            crate::model::Format::Pmx { version } => format!("PMX {version:.1}"),
            crate::model::Format::Pmd => "PMD".to_owned(),
        },
        name: m.name.clone(),
        name_en: m.name_en.clone(),
        counts: Counts {
            vertices: m.vertex_count(),
            faces: m.triangle_count(),
            materials: m.materials.len(),
            textures: m.textures.len(),
            bones: m.skeleton.bones.len(),
            ik_chains: m.skeleton.iks.len(),
            morphs: m.morph_counts(),
            rigid_bodies: m.rigid_bodies.len(),
            joints: m.joints.len(),
            soft_bodies: m.soft_bodies.len(),
            display_frames: m.display_frames.len(),
        },
        missing_textures: missing,
        broken_textures: broken,
        warnings: m.warnings.iter().map(|w| w.to_string()).collect(),
        motion_bones_missing: bones_missing,
        motion_morphs_missing: morphs_missing,
        physics: super::physics::physics_info(m),
    };
    if a.json {
        out!("{}", serde_json::to_string_pretty(&info)?);
        return Ok(());
    }
    print_model_info(&info);
    Ok(())
}

/// Prints [`ModelInfo`] as text lines.
fn print_model_info(info: &ModelInfo) {
    let c = &info.counts;
    let k = &c.morphs;
    out!("{} \"{}\" ({})", info.format, info.name, info.name_en);
    out!(
        "vertices {}  faces {}  materials {}  textures {}",
        c.vertices,
        c.faces,
        c.materials,
        c.textures
    );
    out!(
        "bones {}  IK chains {}  display frames {}",
        c.bones,
        c.ik_chains,
        c.display_frames
    );
    out!(
        "morphs: vertex {}  uv {}  additional uv {}  bone {}  material {}  group {}  flip {}  impulse {}",
        k.vertex,
        k.uv,
        k.additional_uv,
        k.bone,
        k.material,
        k.group,
        k.flip,
        k.impulse
    );
    out!(
        "rigid bodies {}  joints {}  soft bodies {}",
        c.rigid_bodies,
        c.joints,
        c.soft_bodies
    );
    if c.rigid_bodies > 0 || c.joints > 0 {
        super::physics::print_physics_info(&info.physics);
    }
    let list = |label: &str, v: &[String]| {
        if v.is_empty() {
            out!("{label}: none");
        } else {
            out!("{label} ({}): {}", v.len(), v.join(", "));
        }
    };
    list("missing textures", &info.missing_textures);
    if !info.broken_textures.is_empty() {
        list("broken textures", &info.broken_textures);
    }
    for w in &info.warnings {
        out!("warning: {w}");
    }
    if let Some(v) = &info.motion_bones_missing {
        list("motion bones not in the model", v);
    }
    if let Some(v) = &info.motion_morphs_missing {
        list("motion morphs not in the model", v);
    }
}

#[derive(Debug, Serialize)]
struct BoneOut {
    /// The bone's head in model space after posing.
    position: [f32; 3],
    /// Its world rotation (x, y, z, w).
    rotation: [f32; 4],
}

#[derive(Debug, Serialize)]
struct PoseOut {
    frame: f64,
    bones: BTreeMap<String, BoneOut>,
    morphs: BTreeMap<String, f32>,
    ik: BTreeMap<String, bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vertices: Option<Vec<[f32; 3]>>,
}

pub fn pose(a: PoseArgs) -> CliResult {
    // One frame, or every frame of a range.
    let (first, last, single) = match (&a.frames, a.frame) {
        (Some(range), _) => {
            let (x, y) = parse_frame_range(range)?;
            (f64::from(x), f64::from(y), false)
        }
        (None, Some(f)) if f.is_finite() => (f, f, true),
        (None, Some(f)) => return Err(CliError(format!("frame {f} is not a number"))),
        (None, None) => return Err(CliError("give --frame F or --frames A..B".to_owned())),
    };
    if let Some(out) = &a.vpd {
        return super::vpd::write_pose(&a.model, &a.motion, first, out);
    }
    let model = open_model(&a.model)?;
    let motion = IndexedMotion::new(super::load(&a.motion)?);
    let mut engine = PoseEngine::new(&model);
    engine.bind(&model, Some(&motion.index));
    let mut frame = first;
    if a.physics {
        if engine.enable_physics(&model, SimulationMode::Trace) {
            if let Some(world) = engine.physics() {
                for w in world.warnings() {
                    eprintln!("warning: {w}");
                }
            }
            // From frame 0, settled there, to the first frame asked.
            let start = first.min(0.0);
            let mut f = start;
            while f < first {
                engine.pose_bones(&model, Some(motion.as_ref()), f, |_| {});
                f += 1.0;
            }
        } else {
            eprintln!(
                "warning: {} has no rigid bodies: --physics changes nothing",
                a.model.display()
            );
        }
    }
    loop {
        let no_ik = |input: &mut PoseInput| {
            if a.no_ik {
                input.ik.iter_mut().for_each(|on| *on = false);
            }
        };
        if a.vertices {
            engine.pose_adjusted(&model, Some(motion.as_ref()), frame, no_ik);
        } else {
            engine.pose_bones(&model, Some(motion.as_ref()), frame, no_ik);
        }
        if let Some(m) = engine.take_physics_message() {
            eprintln!("warning: frame {frame}: {m}");
        }
        print_pose(&a, &model, &engine, frame)?;
        if single || frame >= last {
            return Ok(());
        }
        frame += 1.0;
    }
}

/// Prints one posed frame, as one JSON line or as text.
fn print_pose(a: &PoseArgs, model: &Model, engine: &PoseEngine, frame: f64) -> CliResult {
    let posed = &engine.posed;
    let bones = &model.skeleton.bones;
    let mut out = PoseOut {
        frame,
        bones: BTreeMap::new(),
        morphs: BTreeMap::new(),
        ik: BTreeMap::new(),
        vertices: a
            .vertices
            .then(|| posed.positions.iter().map(|p| p.to_array()).collect()),
    };
    for (i, b) in bones.iter().enumerate() {
        let (Some(p), Some(r)) = (posed.bone_position(i), posed.bone_rotation(i)) else {
            continue;
        };
        out.bones.entry(b.name.clone()).or_insert(BoneOut {
            position: p.to_array(),
            rotation: r.to_array(),
        });
    }
    for (m, morph) in model.morphs.iter().enumerate() {
        let w = engine.input().morphs.get(m).copied().unwrap_or(0.0);
        out.morphs.entry(morph.name.clone()).or_insert(w);
    }
    for (c, chain) in model.skeleton.iks.iter().enumerate() {
        if let Some(b) = bones.get(chain.ik_bone) {
            let on = posed.ik_enabled.get(c).copied().unwrap_or(false);
            out.ik.entry(b.name.clone()).or_insert(on);
        }
    }
    if a.json {
        out!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    out!("frame {}", out.frame);
    for (name, b) in &out.bones {
        let [x, y, z] = b.position;
        let [qx, qy, qz, qw] = b.rotation;
        out!("{name}\tposition {x:.4} {y:.4} {z:.4}\trotation {qx:.4} {qy:.4} {qz:.4} {qw:.4}");
    }
    for (name, w) in out.morphs.iter().filter(|(_, w)| **w != 0.0) {
        out!("morph {name}\t{w:.4}");
    }
    for (name, on) in &out.ik {
        out!("IK {name}\t{}", if *on { "on" } else { "off" });
    }
    if let Some(v) = &out.vertices {
        for [x, y, z] in v {
            out!("{x:.5} {y:.5} {z:.5}");
        }
    }
    Ok(())
}
