//! PMD reader: every section, into a [`Model`].
//!
//! Layout (little-endian, text Shift_JIS in fixed fields cut at the first
//! NUL; see `shared/spec/model-bones.md`): `"Pmd"` + version f32, model name
//! 20 + comment 256, vertices u32 × 38, face indices u32 × u16, materials
//! u32 × 70, bones u16 × 39, IK u16 × (11 + 2 × chain length), skins u16 ×
//! (25 + 16 × vertices), skin display u8 × 2, bone frame names u8 × 50, bone
//! display u32 × 3, then the optional extensions: English names (flag u8,
//! 20 + 256 + 20 × bones + 20 × (skins − 1) + 50 × frames), toon texture
//! names 10 × 100, rigid bodies u32 × 83, joints u32 × 124.
//!
//! PMD ideas are mapped onto the PMX-shaped [`Model`]: two-bone vertices
//! become BDEF2 with weight `w / 100`; `texture*sphere` names are split and
//! the `.sph`/`.spa` part becomes the sphere texture (multiply/add); the toon
//! index picks from the toon list (MMD's default `toonNN.bmp` names become
//! [`Toon::Shared`]); skins become vertex morphs holding model vertex
//! indices (the base skin is folded in and not listed); rigid-body
//! positions, stored relative to their bone, become model space.

use glam::Vec3;

use super::cursor::Cursor;
use super::data::{
    Deform, DisplayFrame, DisplayItem, Format, Joint, Material, MaterialFlags, Model, Morph,
    MorphKind, RigidBody, Shape, SphereMode, Toon, VertexOffset,
};
use super::error::{ModelError, Warning};
use super::skeleton::{Bone, BoneFlags, BoneTail, IkChain, IkLink, Inherit, Skeleton};

/// Header: signature 3 + version 4 + model name 20 + comment 256.
const HEADER_SIZE: u64 = 3 + 4 + 20 + 256;
/// Vertex: position 12 + normal 12 + uv 8 + bones 2×2 + weight 1 + edge 1.
const VERTEX_SIZE: u64 = 12 + 12 + 8 + 2 * 2 + 1 + 1;
/// Material: diffuse 16 + specular power 4 + specular 12 + ambient 12
/// + toon 1 + edge 1 + face count 4 + texture name 20.
const MATERIAL_SIZE: u64 = 16 + 4 + 12 + 12 + 1 + 1 + 4 + 20;
/// Bone: name 20 + parent 2 + tail 2 + type 1 + IK parent 2 + position 12.
const BONE_SIZE: u64 = 20 + 2 + 2 + 1 + 2 + 12;
/// IK record without its chain: IK bone 2 + target 2 + chain length 1
/// + iterations 2 + limit 4.
const IK_FIXED_SIZE: u64 = 2 + 2 + 1 + 2 + 4;
/// Skin without its vertices: name 20 + vertex count 4 + type 1.
const SKIN_FIXED_SIZE: u64 = 20 + 4 + 1;
/// Rigid body: name 20 + bone 2 + group 1 + mask 2 + shape 1 + size 12
/// + position 12 + rotation 12 + mass, damping ×2, restitution, friction 20
/// + mode 1.
const RIGID_SIZE: u64 = 20 + 2 + 1 + 2 + 1 + 12 + 12 + 12 + 20 + 1;
/// Joint: name 20 + bodies 2×4 + 8 × vec3.
const JOINT_SIZE: u64 = 20 + 8 + 8 * 12;

/// PMD's IK limit unit: public solvers (saba) multiply by 4 to get radians
/// per CCD step.
pub const PMD_IK_LIMIT_TO_RADIANS: f32 = 4.0;
/// Smallest knee bend (radians) the solver allows: 0.5°.
pub const KNEE_MIN_BEND: f32 = 0.5 * std::f32::consts::PI / 180.0;

/// Limits given to a PMD knee (a chain bone whose name contains ひざ):
/// rotation about X only, `x ∈ [−π, −0.5°]`. In MMD's left-handed
/// coordinates a negative X rotation swings the shin backwards (+Z), so the
/// knee bends forward and never backwards.
pub fn knee_limits() -> (Vec3, Vec3) {
    (
        Vec3::new(-std::f32::consts::PI, 0.0, 0.0),
        Vec3::new(-KNEE_MIN_BEND, 0.0, 0.0),
    )
}

/// A fixed-size Shift_JIS name, cut at the first NUL.
pub(crate) fn sjis_name(raw: &[u8]) -> String {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    encoding_rs::SHIFT_JIS
        .decode_without_bom_handling(&raw[..end])
        .0
        .into_owned()
}

/// MMD's default toon list, `toon01.bmp`…`toon10.bmp`.
fn default_toon_name(i: usize) -> String {
    format!("toon{:02}.bmp", i + 1)
}

/// Reads a whole PMD file.
pub(crate) fn read_pmd(bytes: &[u8]) -> Result<Model, ModelError> {
    let mut c = Cursor::new(bytes);
    c.bytes(3, "signature \"Pmd\"")?;
    let version_at = c.offset();
    let version = c.f32("version")?;
    if !(0.999..=1.001).contains(&version) {
        return Err(Cursor::invalid_at(
            version_at,
            format!("PMD version {version} (expected 1.0)"),
        ));
    }
    let name = sjis_name(c.bytes(20, "model name")?);
    let comment = sjis_name(c.bytes(256, "comment")?);
    debug_assert_eq!(c.offset() as u64, HEADER_SIZE);
    let mut warnings = Vec::new();
    let mut model = Model::empty(Format::Pmd);
    model.name = name;
    model.comment = comment;

    let raw_bones = vertices(&mut c, &mut model)?;
    faces(&mut c, &mut model, &mut warnings)?;
    let toon_indices = materials(&mut c, &mut model)?;
    model.skeleton = bones(&mut c)?;
    let skin_count = skins(&mut c, &mut model, &mut warnings)?;
    super::check::fix_deform_bones(&mut model, &raw_bones, &mut warnings);
    let frame_names = display(&mut c, &mut model)?;

    // Optional extensions, each present only if bytes remain.
    if c.remaining() > 0 && c.u8("English names flag")? != 0 {
        english(&mut c, &mut model, skin_count, frame_names)?;
    }
    let mut toon_names: Vec<String> = (0..10).map(default_toon_name).collect();
    if c.remaining() > 0 {
        c.check_count(10, 100, "toon texture name")?;
        for name in &mut toon_names {
            *name = sjis_name(c.bytes(100, "toon texture name")?);
        }
    }
    resolve_toons(&mut model, &toon_indices, &toon_names, &mut warnings);
    if c.remaining() > 0 {
        rigid_bodies(&mut c, &mut model)?;
    }
    if c.remaining() > 0 {
        joints(&mut c, &mut model)?;
    }
    if c.remaining() > 0 {
        let at = c.offset();
        warnings.push(Warning::at(
            at,
            format!(
                "{} bytes after the last section were ignored",
                c.remaining()
            ),
        ));
    }
    super::check::check_model(&mut model, &mut warnings);
    model.warnings = warnings;
    Ok(model)
}

fn vertices(c: &mut Cursor, m: &mut Model) -> Result<Vec<[i64; 4]>, ModelError> {
    let count = c.u32("vertex count")? as usize;
    c.check_count(count as u64, VERTEX_SIZE, "vertex")?;
    m.positions.reserve_exact(count);
    m.normals.reserve_exact(count);
    m.uvs.reserve_exact(count);
    m.deforms.reserve_exact(count);
    m.edge_scale.reserve_exact(count);
    let mut raw = Vec::with_capacity(count);
    for i in 0..count {
        let mut one = || -> Result<(), ModelError> {
            m.positions.push(c.vec3("position")?);
            m.normals.push(c.vec3("normal")?);
            m.uvs.push(c.vec2("uv")?);
            let b0 = c.u16("bone index 1")?;
            let b1 = c.u16("bone index 2")?;
            let w = c.u8("weight")?;
            let edge = c.u8("edge flag")?;
            let weight = f32::from(w.min(100)) / 100.0;
            m.deforms.push(Deform::Bdef2 {
                bones: [0, 0],
                weight,
            });
            let idx = |b: u16| if b == 0xFFFF { -1 } else { i64::from(b) };
            raw.push([idx(b0), idx(b1), -1, -1]);
            m.edge_scale.push(if edge == 0 { 1.0 } else { 0.0 });
            Ok(())
        };
        one().map_err(|e| e.within("vertex", i))?;
    }
    Ok(raw)
}

fn faces(c: &mut Cursor, m: &mut Model, warnings: &mut Vec<Warning>) -> Result<(), ModelError> {
    let count = c.u32("face index count")? as usize;
    c.check_count(count as u64, 2, "face vertex index")?;
    let start = c.offset();
    let vertices = m.vertex_count();
    m.indices.reserve_exact(count);
    let mut bad = 0usize;
    for _ in 0..count {
        let v = c.u16("face vertex index")?;
        if usize::from(v) < vertices {
            m.indices.push(u32::from(v));
        } else {
            bad += 1;
            m.indices.push(0);
        }
    }
    if bad > 0 {
        warnings.push(Warning::at(
            start,
            format!("{bad} face vertex indices point past the {vertices} vertices; vertex 0 used instead"),
        ));
    }
    if !count.is_multiple_of(3) {
        warnings.push(Warning::at(
            start,
            format!(
                "face index count {count} is not a multiple of 3; the last {} ignored",
                count % 3
            ),
        ));
        m.indices.truncate(count - count % 3);
    }
    Ok(())
}

/// Index of `name` in the model's texture list, adding it if new.
fn texture_slot(m: &mut Model, name: &str) -> usize {
    match m.textures.iter().position(|t| t == name) {
        Some(i) => i,
        None => {
            m.textures.push(name.to_owned());
            m.textures.len() - 1
        }
    }
}

/// Reads the materials; returns each one's raw toon index (resolved once
/// the toon list is known).
fn materials(c: &mut Cursor, m: &mut Model) -> Result<Vec<u8>, ModelError> {
    let count = c.u32("material count")? as usize;
    c.check_count(count as u64, MATERIAL_SIZE, "material")?;
    let mut toons = Vec::with_capacity(count);
    for i in 0..count {
        let mut one = || -> Result<Material, ModelError> {
            let diffuse = c.vec4("diffuse")?;
            let specular_power = c.f32("specular power")?;
            let specular = c.vec3("specular")?;
            let ambient = c.vec3("ambient")?;
            toons.push(c.u8("toon index")?);
            let edge = c.u8("edge flag")? != 0;
            let index_count = c.u32("face index count")? as usize;
            let names = sjis_name(c.bytes(20, "texture name")?);
            let (mut texture, mut sphere, mut sphere_mode) = (None, None, SphereMode::None);
            for part in names.split('*').filter(|p| !p.is_empty()) {
                let lower = part.to_ascii_lowercase();
                if lower.ends_with(".sph") {
                    sphere = Some(texture_slot(m, part));
                    sphere_mode = SphereMode::Multiply;
                } else if lower.ends_with(".spa") {
                    sphere = Some(texture_slot(m, part));
                    sphere_mode = SphereMode::Add;
                } else {
                    texture = Some(texture_slot(m, part));
                }
            }
            // MMD's PMD rules: translucent materials are drawn from both
            // sides; alpha 0.98 is the author's switch for "no self-shadow".
            let self_shadow = (diffuse.w - 0.98).abs() > 1e-6;
            Ok(Material {
                name: format!("材質{}", i + 1),
                name_en: String::new(),
                diffuse,
                specular,
                specular_power,
                ambient,
                flags: MaterialFlags {
                    double_sided: diffuse.w < 1.0,
                    ground_shadow: true,
                    self_shadow_map: self_shadow,
                    self_shadow,
                    edge,
                    ..MaterialFlags::default()
                },
                edge_colour: glam::Vec4::new(0.0, 0.0, 0.0, 1.0),
                edge_size: 1.0,
                texture,
                sphere,
                sphere_mode,
                toon: Toon::None,
                memo: String::new(),
                index_count,
            })
        };
        let mat = one().map_err(|e| e.within("material", i))?;
        m.materials.push(mat);
    }
    Ok(toons)
}

fn resolve_toons(m: &mut Model, raw: &[u8], names: &[String], warnings: &mut Vec<Warning>) {
    for (i, &t) in raw.iter().enumerate() {
        let toon = match names.get(usize::from(t)) {
            None if t == 255 => Toon::None,
            None => {
                warnings.push(Warning::general(format!(
                    "material {}: toon index {t} (expected 0 to 9 or 255); no toon",
                    i + 1
                )));
                Toon::None
            }
            Some(name) if name.is_empty() => Toon::None,
            Some(name) if name.eq_ignore_ascii_case(&default_toon_name(usize::from(t))) => {
                Toon::Shared(t)
            }
            Some(name) => {
                let name = name.clone();
                Toon::Texture(texture_slot(m, &name))
            }
        };
        if let Some(mat) = m.materials.get_mut(i) {
            mat.toon = toon;
        }
    }
}

fn bones(c: &mut Cursor) -> Result<Skeleton, ModelError> {
    let count = usize::from(c.u16("bone count")?);
    c.check_count(count as u64, BONE_SIZE, "bone")?;
    let mut bones = Vec::with_capacity(count);
    let index_in = |raw: u16| Some(usize::from(raw)).filter(|&i| i < count);
    let mut ik_bones = vec![false; count];
    for index in 0..count {
        let mut one = || -> Result<Bone, ModelError> {
            let name = sjis_name(c.bytes(20, "name")?);
            let parent = index_in(c.u16("parent index")?).filter(|&p| p != index);
            let tail_raw = c.u16("tail index")?;
            let kind = c.u8("bone type")?;
            let ik_parent = c.u16("IK parent index")?;
            let rest_position = c.vec3("position")?;
            let tail = index_in(tail_raw)
                .filter(|&t| t != 0 && t != index)
                .map(BoneTail::Bone);
            let (tail, inherit) = match kind {
                // 5: rotation influenced — copies the rotation of the bone in
                // the IK-parent field.
                5 => (
                    tail,
                    index_in(ik_parent).map(|source| Inherit {
                        source,
                        ratio: 1.0,
                        rotation: true,
                        translation: false,
                        local: false,
                    }),
                ),
                // 9: rotation linked — the tail field holds the source, the
                // IK-parent field the ratio in percent.
                9 => (
                    None,
                    index_in(tail_raw).map(|source| Inherit {
                        source,
                        ratio: f32::from(ik_parent) / 100.0,
                        rotation: true,
                        translation: false,
                        local: false,
                    }),
                ),
                _ => (tail, None),
            };
            let mut bone = Bone::new(name, parent, rest_position);
            bone.tail = tail;
            bone.flags = BoneFlags {
                rotatable: kind != 7,
                movable: matches!(kind, 1 | 2),
                visible: kind != 7,
                ik: false,
                operable: kind != 7,
                after_physics: false,
            };
            bone.inherit = inherit.filter(|i| i.source != index);
            Ok(bone)
        };
        bones.push(one().map_err(|e| e.within("bone", index))?);
    }

    let ik_count = c.u16("IK count")?;
    c.check_count(u64::from(ik_count), IK_FIXED_SIZE, "IK chain")?;
    let mut iks = Vec::with_capacity(usize::from(ik_count));
    for k in 0..usize::from(ik_count) {
        let mut one = || -> Result<Option<IkChain>, ModelError> {
            let ik_bone = index_in(c.u16("IK bone index")?);
            let target = index_in(c.u16("target bone index")?);
            let length = c.u8("chain length")?;
            let loops = c.u16("iterations")?;
            let limit = c.f32("angle limit")?;
            c.check_count(u64::from(length), 2, "chain bone index")?;
            let mut links = Vec::with_capacity(usize::from(length));
            for _ in 0..length {
                if let Some(bone) = index_in(c.u16("chain bone index")?) {
                    let limits = bones[bone].name.contains("ひざ").then(knee_limits);
                    links.push(IkLink { bone, limits });
                }
            }
            Ok(match (ik_bone, target) {
                (Some(ik_bone), Some(target)) => Some(IkChain {
                    ik_bone,
                    target,
                    loops: u32::from(loops),
                    limit_angle: limit * PMD_IK_LIMIT_TO_RADIANS,
                    links,
                }),
                _ => None,
            })
        };
        if let Some(chain) = one().map_err(|e| e.within("IK chain", k))? {
            ik_bones[chain.ik_bone] = true;
            iks.push(chain);
        }
    }
    for (bone, is_ik) in bones.iter_mut().zip(&ik_bones) {
        bone.flags.ik = *is_ik;
    }
    Ok(Skeleton { bones, iks })
}

/// Reads the skins. The base skin (type 0) lists model vertices; every
/// other skin's entries index into the base list. Returns the skin count
/// (base included), which the English section needs.
fn skins(c: &mut Cursor, m: &mut Model, warnings: &mut Vec<Warning>) -> Result<usize, ModelError> {
    let count = usize::from(c.u16("skin count")?);
    c.check_count(count as u64, SKIN_FIXED_SIZE, "skin")?;
    let vertices = m.vertex_count();
    let mut base: Vec<Option<u32>> = Vec::new();
    for i in 0..count {
        let mut one = || -> Result<Option<Morph>, ModelError> {
            let name = sjis_name(c.bytes(20, "name")?);
            let n = c.u32("vertex count")? as usize;
            let kind = c.u8("skin type")?;
            c.check_count(n as u64, 16, "skin vertex")?;
            if i == 0 && kind == 0 {
                base.reserve_exact(n);
                let mut bad = 0;
                for _ in 0..n {
                    let v = c.u32("base vertex index")?;
                    c.vec3("base position")?;
                    let ok = (v as usize) < vertices;
                    if !ok {
                        bad += 1;
                    }
                    base.push(ok.then_some(v));
                }
                if bad > 0 {
                    warnings.push(Warning::general(format!(
                        "base skin: {bad} entries name a vertex the model does not have; ignored"
                    )));
                }
                return Ok(None);
            }
            let mut offsets = Vec::with_capacity(n);
            let mut bad = 0;
            for _ in 0..n {
                let k = c.u32("skin vertex index")?;
                let offset = c.vec3("skin offset")?;
                match base.get(k as usize).copied().flatten() {
                    Some(vertex) => offsets.push(VertexOffset { vertex, offset }),
                    None => bad += 1,
                }
            }
            if bad > 0 {
                warnings.push(Warning::general(format!(
                    "skin {name}: {bad} entries point past the base skin; ignored"
                )));
            }
            Ok(Some(Morph {
                name,
                name_en: String::new(),
                panel: kind.min(4),
                kind: MorphKind::Vertex(offsets),
            }))
        };
        if let Some(morph) = one().map_err(|e| e.within("skin", i))? {
            m.morphs.push(morph);
        }
    }
    Ok(count)
}

/// Reads the display lists into display frames: "Root" (the first bone),
/// "表情" (the skin display list), then the named bone frames. Returns the
/// number of named bone frames (the English section needs it).
fn display(c: &mut Cursor, m: &mut Model) -> Result<usize, ModelError> {
    let morphs = m.morphs.len();
    let bones = m.skeleton.bones.len();
    let skin_n = c.u8("skin display count")?;
    c.check_count(u64::from(skin_n), 2, "skin display entry")?;
    let mut face_items = Vec::with_capacity(usize::from(skin_n));
    for _ in 0..skin_n {
        // Skin indices count the base skin, which is not a morph here.
        let k = usize::from(c.u16("skin display index")?);
        if let Some(morph) = k.checked_sub(1).filter(|&x| x < morphs) {
            face_items.push(DisplayItem::Morph(morph));
        }
    }
    let frame_n = usize::from(c.u8("bone frame name count")?);
    c.check_count(frame_n as u64, 50, "bone frame name")?;
    let mut frames: Vec<DisplayFrame> = Vec::with_capacity(frame_n + 2);
    frames.push(DisplayFrame {
        name: "Root".to_owned(),
        name_en: "Root".to_owned(),
        special: true,
        items: if bones > 0 {
            vec![DisplayItem::Bone(0)]
        } else {
            Vec::new()
        },
    });
    frames.push(DisplayFrame {
        name: "表情".to_owned(),
        name_en: "Exp".to_owned(),
        special: true,
        items: face_items,
    });
    for _ in 0..frame_n {
        let raw = c.bytes(50, "bone frame name")?;
        // Names often end in a newline.
        let name = sjis_name(raw).trim_end_matches(['\n', '\r']).to_owned();
        frames.push(DisplayFrame {
            name,
            name_en: String::new(),
            special: false,
            items: Vec::new(),
        });
    }
    let n = c.u32("bone display count")? as usize;
    c.check_count(n as u64, 3, "bone display entry")?;
    for _ in 0..n {
        let bone = usize::from(c.u16("bone display bone")?);
        let frame = usize::from(c.u8("bone display frame")?);
        // Frame numbers are 1-based over the named frames.
        if bone < bones
            && let Some(f) = frame.checked_sub(1).and_then(|f| frames.get_mut(f + 2))
        {
            f.items.push(DisplayItem::Bone(bone));
        }
    }
    m.display_frames = frames;
    Ok(frame_n)
}

fn english(
    c: &mut Cursor,
    m: &mut Model,
    skin_count: usize,
    frame_names: usize,
) -> Result<(), ModelError> {
    m.name_en = sjis_name(c.bytes(20, "English model name")?);
    m.comment_en = sjis_name(c.bytes(256, "English comment")?);
    let bones = m.skeleton.bones.len();
    c.check_count(bones as u64, 20, "English bone name")?;
    for bone in &mut m.skeleton.bones {
        bone.name_en = sjis_name(c.bytes(20, "English bone name")?);
    }
    let skins = skin_count.saturating_sub(1);
    c.check_count(skins as u64, 20, "English skin name")?;
    for k in 0..skins {
        let name = sjis_name(c.bytes(20, "English skin name")?);
        if let Some(morph) = m.morphs.get_mut(k) {
            morph.name_en = name;
        }
    }
    c.check_count(frame_names as u64, 50, "English bone frame name")?;
    for k in 0..frame_names {
        let name = sjis_name(c.bytes(50, "English bone frame name")?);
        if let Some(frame) = m.display_frames.get_mut(k + 2) {
            frame.name_en = name.trim_end_matches(['\n', '\r']).to_owned();
        }
    }
    Ok(())
}

fn rigid_bodies(c: &mut Cursor, m: &mut Model) -> Result<(), ModelError> {
    let count = c.u32("rigid body count")? as usize;
    c.check_count(count as u64, RIGID_SIZE, "rigid body")?;
    let bones = m.skeleton.bones.len();
    for i in 0..count {
        let mut one = || -> Result<RigidBody, ModelError> {
            let name = sjis_name(c.bytes(20, "name")?);
            let bone = Some(usize::from(c.u16("bone index")?)).filter(|&b| b < bones);
            let group = c.u8("group")?;
            let no_collision = c.u16("non-collision mask")?;
            let shape = match c.u8("shape")? {
                1 => Shape::Box,
                2 => Shape::Capsule,
                _ => Shape::Sphere,
            };
            let size = c.vec3("size")?;
            let relative = c.vec3("position")?;
            let rotation = c.vec3("rotation")?;
            let mass = c.f32("mass")?;
            let linear_damping = c.f32("linear damping")?;
            let angular_damping = c.f32("angular damping")?;
            let restitution = c.f32("restitution")?;
            let friction = c.f32("friction")?;
            let mode = super::pmx::physics_mode(c.u8("physics mode")?);
            // PMD stores the position relative to the bone (bone 0 when
            // there is none).
            let origin = bone
                .or((bones > 0).then_some(0))
                .map(|b| m.skeleton.bones[b].rest_position)
                .unwrap_or(Vec3::ZERO);
            Ok(RigidBody {
                name,
                name_en: String::new(),
                bone,
                group,
                no_collision,
                shape,
                size,
                position: origin + relative,
                rotation,
                mass,
                linear_damping,
                angular_damping,
                restitution,
                friction,
                mode,
            })
        };
        let body = one().map_err(|e| e.within("rigid body", i))?;
        m.rigid_bodies.push(body);
    }
    Ok(())
}

fn joints(c: &mut Cursor, m: &mut Model) -> Result<(), ModelError> {
    let count = c.u32("joint count")? as usize;
    c.check_count(count as u64, JOINT_SIZE, "joint")?;
    let bodies = m.rigid_bodies.len();
    for i in 0..count {
        let mut one = || -> Result<Joint, ModelError> {
            let name = sjis_name(c.bytes(20, "name")?);
            let a = Some(c.u32("rigid body A")? as usize).filter(|&b| b < bodies);
            let b = Some(c.u32("rigid body B")? as usize).filter(|&b| b < bodies);
            Ok(Joint {
                name,
                name_en: String::new(),
                kind: 0,
                rigid_bodies: [a, b],
                position: c.vec3("position")?,
                rotation: c.vec3("rotation")?,
                translation_limits: (c.vec3("translation min")?, c.vec3("translation max")?),
                rotation_limits: (c.vec3("rotation min")?, c.vec3("rotation max")?),
                spring_translation: c.vec3("spring translation")?,
                spring_rotation: c.vec3("spring rotation")?,
            })
        };
        let joint = one().map_err(|e| e.within("joint", i))?;
        m.joints.push(joint);
    }
    Ok(())
}
