//! `model-info` for accessories: a DirectX text `.x` or a `.vac`, described
//! in the same shape as a model (`counts.vertices`, `counts.faces` =
//! triangles, `counts.materials`, missing textures, warnings), plus the
//! placement and bone for a `.vac`.

use std::path::Path;

use serde::Serialize;

use super::model::ModelInfoArgs;
use super::{CliError, CliResult};
use crate::model::xfile::{Accessory, VacFile};
use crate::model::{MorphCounts, TextureProblem, load_textures};

/// Whether `model-info` should read `path` as an accessory (`.x` or `.vac`,
/// any letter case).
pub fn is_accessory_path(path: &Path) -> bool {
    path.extension().is_some_and(|e| {
        let e = e.to_string_lossy();
        e.eq_ignore_ascii_case("x") || e.eq_ignore_ascii_case("vac")
    })
}

#[derive(Debug, Serialize)]
struct Counts {
    vertices: usize,
    /// Triangles, after polygons are split.
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
    /// `Mesh` objects merged.
    meshes: usize,
    /// Faces as the file lists them.
    polygons: usize,
}

#[derive(Debug, Serialize)]
struct MaterialInfo {
    name: String,
    triangles: usize,
    diffuse: [f32; 4],
    specular: [f32; 3],
    power: f32,
    /// Emissive, drawn as the ambient colour.
    ambient: [f32; 3],
    texture: Option<String>,
    sphere: Option<String>,
    /// "none", "multiply" (.sph) or "add" (.spa).
    sphere_mode: &'static str,
    /// Uses MMD's live screen capture (screen.bmp), drawn plain.
    screen: bool,
    double_sided: bool,
}

#[derive(Debug, Serialize)]
struct VacInfo {
    name: String,
    /// As written in the .vac.
    x_file: String,
    /// Where it was found (`null`: not found).
    x_resolved: Option<String>,
    scale: f32,
    position: [f32; 3],
    rotation_degrees: [f32; 3],
    bone: Option<String>,
}

#[derive(Debug, Serialize)]
struct AccessoryInfo {
    format: String,
    name: String,
    name_en: String,
    counts: Counts,
    missing_textures: Vec<String>,
    broken_textures: Vec<String>,
    warnings: Vec<String>,
    materials: Vec<MaterialInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vac: Option<VacInfo>,
}

/// `model-info FILE.x` / `model-info FILE.vac`.
pub fn accessory_info(a: &ModelInfoArgs) -> CliResult {
    if a.motion.is_some() {
        return Err(CliError(format!(
            "{}: --motion applies to PMX/PMD models, not to accessories",
            a.model.display()
        )));
    }
    let shown = |p: &Path| p.display().to_string();
    let is_vac = a
        .model
        .extension()
        .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case("vac"));
    let (x_path, vac) = if is_vac {
        let v =
            VacFile::open(&a.model).map_err(|e| CliError(format!("{}: {e}", shown(&a.model))))?;
        let dir = a.model.parent().unwrap_or(Path::new("."));
        let Some(x) = v.resolve_x(dir) else {
            return Err(CliError(format!(
                "{}: its .x file `{}` is not in {}",
                shown(&a.model),
                v.x_file,
                shown(dir)
            )));
        };
        (x, Some(v))
    } else {
        (a.model.clone(), None)
    };
    let x = Accessory::open(&x_path).map_err(|e| CliError(format!("{}: {e}", shown(&x_path))))?;
    let info = describe(&x, &x_path, vac);
    if a.json {
        out!("{}", serde_json::to_string_pretty(&info)?);
        return Ok(());
    }
    print_text(&info);
    Ok(())
}

fn describe(x: &Accessory, x_path: &Path, vac: Option<VacFile>) -> AccessoryInfo {
    let stem = x_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = vac.as_ref().map_or(stem, |v| v.name.clone());
    let model = x.to_model(&name);
    let dir = x_path.parent().unwrap_or(Path::new("."));
    let textures = load_textures(&model, dir);
    let (mut missing, mut broken) = (Vec::new(), Vec::new());
    for (_, name, problem) in &textures.problems {
        match problem {
            TextureProblem::Missing => missing.push(name.clone()),
            TextureProblem::Broken(why) => broken.push(format!("{name}: {why}")),
        }
    }
    let mut warnings: Vec<String> = x.warnings.iter().map(|w| w.to_string()).collect();
    warnings.extend(textures.warnings.iter().map(|w| w.to_string()));
    AccessoryInfo {
        format: format!("DirectX .x ({})", x.version),
        name,
        name_en: String::new(),
        counts: Counts {
            vertices: x.vertex_count(),
            faces: x.triangle_count(),
            materials: x.materials.len(),
            textures: model.textures.len(),
            bones: model.skeleton.bones.len(),
            ik_chains: 0,
            morphs: MorphCounts::default(),
            rigid_bodies: 0,
            joints: 0,
            soft_bodies: 0,
            display_frames: 0,
            meshes: x.mesh_count,
            polygons: x.polygon_count,
        },
        missing_textures: missing,
        broken_textures: broken,
        warnings,
        materials: x
            .materials
            .iter()
            .zip(&model.materials)
            .map(|(m, mm)| MaterialInfo {
                name: mm.name.clone(),
                triangles: m.index_count / 3,
                diffuse: m.face_colour.to_array(),
                specular: m.specular.to_array(),
                power: m.power,
                ambient: m.emissive.to_array(),
                texture: m.texture.clone(),
                sphere: m.sphere.clone(),
                sphere_mode: match mm.sphere_mode {
                    crate::model::SphereMode::Multiply => "multiply",
                    crate::model::SphereMode::Add => "add",
                    _ => "none",
                },
                screen: m.screen,
                double_sided: mm.flags.double_sided,
            })
            .collect(),
        vac: vac.map(|v| VacInfo {
            x_resolved: Some(x_path.display().to_string()),
            name: v.name,
            x_file: v.x_file,
            scale: v.placement.scale,
            position: v.placement.position.to_array(),
            rotation_degrees: v.placement.rotation_degrees.to_array(),
            bone: v.bone,
        }),
    }
}

fn print_text(info: &AccessoryInfo) {
    let c = &info.counts;
    out!("{} \"{}\"", info.format, info.name);
    out!(
        "vertices {}  faces {} (from {} polygons in {} meshes)  materials {}  textures {}",
        c.vertices,
        c.faces,
        c.polygons,
        c.meshes,
        c.materials,
        c.textures
    );
    for (i, m) in info.materials.iter().enumerate() {
        let tex = [m.texture.as_deref(), m.sphere.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" * ");
        out!(
            "  material {i} \"{}\": {} triangles, diffuse {:?}{}{}",
            m.name,
            m.triangles,
            m.diffuse,
            if tex.is_empty() {
                String::new()
            } else {
                format!(", texture {tex}")
            },
            if m.screen {
                " (screen.bmp: drawn plain)"
            } else {
                ""
            }
        );
    }
    if let Some(v) = &info.vac {
        out!(
            "placement: scale {}  position {:?}  rotation {:?} degrees  bone {}",
            v.scale,
            v.position,
            v.rotation_degrees,
            v.bone.as_deref().unwrap_or("(world)")
        );
    }
    if info.missing_textures.is_empty() {
        out!("missing textures: none");
    } else {
        out!(
            "missing textures ({}): {}",
            info.missing_textures.len(),
            info.missing_textures.join(", ")
        );
    }
    for b in &info.broken_textures {
        out!("broken texture: {b}");
    }
    for w in &info.warnings {
        out!("warning: {w}");
    }
}
