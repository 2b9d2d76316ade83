//! Model readers: every corpus model loads; Mei's counts and textures; a
//! generated PMX (both text encodings, every index size, every deform type
//! and morph kind) reads back the values it was written with; tolerated
//! problems are warnings; textures resolve and decode; toon ramps.
//!
//! Golden numbers for Mei come from the corpus README (8,983 vertices,
//! 14,637 triangles, 17 materials) and from a throw-away Python reader
//! (`struct.unpack_from` over the PMD layout, not part of the repository):
//! 16 distinct texture names, 29 skins (base + 28), 142 bones, 4 IK
//! chains, 28 skin display entries, 8 bone frame names, 31 rigid bodies,
//! 20 joints, and the file ends exactly after the joints.

mod common;
use common::corpus;

use std::path::{Path, PathBuf};

use glam::{Quat, Vec2, Vec3, Vec4};
use vmd_studio::model::{
    Deform, DisplayItem, Format, LoadedModel, MaterialOp, Model, ModelError, MorphKind,
    PhysicsMode, Shape, SphereMode, TOON_SIZE, Toon, builtin_toon, decode_texture,
    resolve_texture_path,
};

// ------------------------------------------------------------- corpus

fn model_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            model_files(&p, out);
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("pmx") || e.eq_ignore_ascii_case("pmd"))
        {
            out.push(p);
        }
    }
}

#[test]
fn every_corpus_model_loads_with_consistent_buffers() {
    let Some(dir) = corpus() else { return };
    let mut files = Vec::new();
    model_files(&dir, &mut files);
    // 4 at the top, mei/mei.pmd, 9 in pmx-babylonmmd, 20 in pmx-features.
    assert!(files.len() >= 34, "found only {} models", files.len());
    for path in &files {
        let loaded = LoadedModel::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let m = &loaded.model;
        let n = m.vertex_count();
        assert_eq!(m.normals.len(), n);
        assert_eq!(m.uvs.len(), n);
        assert_eq!(m.deforms.len(), n);
        assert_eq!(m.edge_scale.len(), n);
        for ch in &m.additional_uvs {
            assert_eq!(ch.len(), n);
        }
        assert_eq!(m.indices.len() % 3, 0);
        assert!(m.indices.iter().all(|&i| (i as usize) < n));
        let drawn: usize = m.materials.iter().map(|x| x.index_count).sum();
        assert!(drawn <= m.indices.len(), "{}", path.display());
        let bones = m.skeleton.bones.len();
        for d in &m.deforms {
            let (b, _) = d.bones_and_weights();
            assert!(b.iter().all(|&i| bones == 0 || (i as usize) < bones));
        }
        for mat in &m.materials {
            for t in [mat.texture, mat.sphere].into_iter().flatten() {
                assert!(t < m.textures.len());
            }
        }
        assert_eq!(loaded.textures.textures.len(), m.textures.len());
        // Every pmx-features model ships its textures.
        if path.to_string_lossy().contains("pmx-features") {
            assert!(
                loaded.textures.problems.is_empty(),
                "{}: {:?}",
                path.display(),
                loaded.textures.problems
            );
        }
    }
}

#[test]
fn mei_counts_textures_and_missing_blouse() {
    let Some(dir) = corpus() else { return };
    let loaded = LoadedModel::open(&dir.join("mei/mei.pmd")).expect("mei loads");
    let m = &loaded.model;
    assert_eq!(m.format, Format::Pmd);
    assert_eq!(m.vertex_count(), 8983);
    assert_eq!(m.triangle_count(), 14637);
    assert_eq!(m.materials.len(), 17);
    assert_eq!(m.textures.len(), 16);
    assert_eq!(m.skeleton.bones.len(), 142);
    assert_eq!(m.skeleton.iks.len(), 4);
    assert_eq!(m.morphs.len(), 28);
    assert!(
        m.morphs
            .iter()
            .all(|x| matches!(x.kind, MorphKind::Vertex(_)))
    );
    assert_eq!(m.morphs[0].name, "口_微笑");
    assert_eq!(m.rigid_bodies.len(), 31);
    assert_eq!(m.joints.len(), 20);
    // Root + 表情 + 8 named frames; 表情 lists the 28 displayed skins.
    assert_eq!(m.display_frames.len(), 10);
    assert_eq!(m.display_frames[1].items.len(), 28);
    assert!(
        m.display_frames[1]
            .items
            .iter()
            .all(|i| matches!(i, DisplayItem::Morph(_)))
    );
    // Material 2 names blouse.png, which is missing on purpose.
    assert_eq!(
        m.materials[2].texture.map(|t| m.textures[t].as_str()),
        Some("blouse.png")
    );
    assert_eq!(loaded.textures.missing(), vec!["blouse.png"]);
    assert_eq!(loaded.textures.warnings.len(), 1);
    assert!(loaded.textures.warnings[0].message.contains("blouse.png"));
    // The other 15 decode; face.png is shared by materials 10 and 11.
    let face = m
        .textures
        .iter()
        .position(|t| t == "face.png")
        .expect("face.png");
    assert_eq!(m.materials[10].texture, Some(face));
    assert_eq!(m.materials[11].texture, Some(face));
    let loaded_count = loaded.textures.textures.iter().flatten().count();
    assert_eq!(loaded_count, 15);
    for t in loaded.textures.textures.iter().flatten() {
        assert!(t.width > 0 && t.height > 0);
        assert_eq!(t.rgba.len(), (4 * t.width * t.height) as usize);
    }
    // Materials: alpha 0.9999 → drawn double-sided (MMD's PMD rule);
    // material 10 (alpha 1.0) is culled. Toon index 0 with the default
    // list is MMD's shared toon01.
    assert!(m.materials[0].flags.double_sided);
    assert!(!m.materials[10].flags.double_sided);
    assert_eq!(m.materials[0].toon, Toon::Shared(0));
    assert_eq!(m.materials[0].index_count, 888);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
}

#[test]
fn pmx_features_deforms_and_textures() {
    let Some(dir) = corpus() else { return };
    let dir = dir.join("pmx-features");
    let sdef = Model::open(&dir.join("sdef-two-bone-elbow.pmx")).expect("sdef");
    assert!(
        sdef.deforms
            .iter()
            .any(|d| matches!(d, Deform::Sdef { .. }))
    );
    let qdef = Model::open(&dir.join("qdef-twist-cylinder.pmx")).expect("qdef");
    assert!(
        qdef.deforms
            .iter()
            .any(|d| matches!(d, Deform::Qdef { .. }))
    );
    // QDEF is a 2.1 feature, but this file says 2.0: read it anyway.
    assert!(matches!(qdef.format, Format::Pmx { .. }));
    let add = Model::open(&dir.join("mmd-sphere-texture-add.pmx")).expect("sphere add");
    assert!(
        add.materials
            .iter()
            .any(|m| m.sphere_mode == SphereMode::Add && m.sphere.is_some())
    );
    let mul = Model::open(&dir.join("mmd-sphere-texture-multiply.pmx")).expect("sphere mul");
    assert!(
        mul.materials
            .iter()
            .any(|m| m.sphere_mode == SphereMode::Multiply && m.sphere.is_some())
    );
    let toon = Model::open(&dir.join("mmd-toon-ramp-lit-box.pmx")).expect("toon");
    assert!(
        toon.materials
            .iter()
            .any(|m| matches!(m.toon, Toon::Texture(_)))
    );
    let morph = Model::open(&dir.join("mmd-material-morph-alpha-opaque-depth.pmx")).expect("mm");
    assert!(
        morph
            .morphs
            .iter()
            .any(|m| matches!(m.kind, MorphKind::Material(_)))
    );
    // The TGA decodes through the extension (TGA has no magic bytes).
    let tga = LoadedModel::open(&dir.join("mmd-tga-regular-hair-alpha-opaque.pmx")).expect("tga");
    let t = tga
        .textures
        .textures
        .iter()
        .flatten()
        .next()
        .expect("a texture");
    assert!(t.path.to_string_lossy().ends_with(".tga"));
    assert!(t.width > 0);
}

// ------------------------------------------------------------- a PMX writer

/// Writes PMX bytes field by field (a separate encoder, not the reader's
/// inverse: every field is laid out here from the spec).
struct W {
    b: Vec<u8>,
    utf8: bool,
    vsize: u8,
    isize: u8,
}

impl W {
    fn f(&mut self, v: f32) {
        self.b.extend_from_slice(&v.to_le_bytes());
    }
    fn v2(&mut self, v: Vec2) {
        self.f(v.x);
        self.f(v.y);
    }
    fn v3(&mut self, v: Vec3) {
        self.f(v.x);
        self.f(v.y);
        self.f(v.z);
    }
    fn v4(&mut self, v: Vec4) {
        self.v3(v.truncate());
        self.f(v.w);
    }
    fn i32(&mut self, v: i32) {
        self.b.extend_from_slice(&v.to_le_bytes());
    }
    fn u8(&mut self, v: u8) {
        self.b.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.b.extend_from_slice(&v.to_le_bytes());
    }
    fn text(&mut self, s: &str) {
        let raw: Vec<u8> = if self.utf8 {
            s.as_bytes().to_vec()
        } else {
            s.encode_utf16().flat_map(|u| u.to_le_bytes()).collect()
        };
        self.i32(raw.len() as i32);
        self.b.extend_from_slice(&raw);
    }
    /// A signed index in `isize` bytes (all non-vertex indices here).
    fn idx(&mut self, v: i32) {
        match self.isize {
            1 => self.b.push(v as i8 as u8),
            2 => self.b.extend_from_slice(&(v as i16).to_le_bytes()),
            _ => self.i32(v),
        }
    }
    /// A vertex index: unsigned for 1 and 2 bytes.
    fn vidx(&mut self, v: u32) {
        match self.vsize {
            1 => self.b.push(v as u8),
            2 => self.b.extend_from_slice(&(v as u16).to_le_bytes()),
            _ => self.i32(v as i32),
        }
    }
}

/// A 2.1 model: 5 vertices (BDEF1, BDEF2, BDEF4, SDEF, QDEF), 4 additional
/// UVs, 1 triangle, 2 textures, 1 material, 3 bones (IK, append, fixed axis,
/// local axes, external parent), 11 morphs (one per kind), 2 display frames,
/// 2 rigid bodies, 1 joint, 1 soft body. `vsize` is the vertex index size;
/// `isize` every other index size. Vertex 200 exists only with `big`.
fn generated_pmx(utf8: bool, vsize: u8, isize: u8) -> Vec<u8> {
    let mut w = W {
        b: Vec::new(),
        utf8,
        vsize,
        isize,
    };
    w.b.extend_from_slice(b"PMX ");
    w.f(2.1);
    w.u8(8);
    w.b.extend_from_slice(&[u8::from(utf8), 4, vsize, isize, isize, isize, isize, isize]);
    w.text("テスト");
    w.text("test");
    w.text("コメント");
    w.text("comment");
    // Vertices.
    w.i32(5);
    for k in 0..5u8 {
        let kf = f32::from(k);
        w.v3(Vec3::new(kf, 1.0 + kf, 2.0 + kf));
        w.v3(Vec3::new(0.0, 1.0, 0.0));
        w.v2(Vec2::new(0.25 * kf, 0.5));
        for ch in 0..4 {
            w.v4(Vec4::new(kf, -kf, 0.5, ch as f32));
        }
        w.u8(k);
        match k {
            0 => w.idx(1),
            1 => {
                w.idx(0);
                w.idx(1);
                w.f(0.25);
            }
            2 | 4 => {
                for b in [0, 1, 2, -1] {
                    w.idx(b);
                }
                for x in [0.5, 0.25, 0.25, 0.0] {
                    w.f(x);
                }
            }
            _ => {
                w.idx(1);
                w.idx(2);
                w.f(0.75);
                w.v3(Vec3::new(0.0, 5.0, 0.0));
                w.v3(Vec3::new(0.0, 4.0, 0.0));
                w.v3(Vec3::new(0.0, 6.0, 0.0));
            }
        }
        w.f(0.5 * kf);
    }
    // Faces: one triangle.
    w.i32(3);
    for v in [0, 1, 4] {
        w.vidx(v);
    }
    // Textures.
    w.i32(2);
    w.text("tex\\Body.PNG");
    w.text("toon.bmp");
    // Material.
    w.i32(1);
    w.text("体");
    w.text("body");
    w.v4(Vec4::new(0.8, 0.7, 0.6, 0.5));
    w.v3(Vec3::new(0.1, 0.2, 0.3));
    w.f(12.0);
    w.v3(Vec3::new(0.4, 0.5, 0.6));
    w.u8(0x01 | 0x10 | 0x80);
    w.v4(Vec4::new(0.0, 0.1, 0.2, 1.0));
    w.f(1.5);
    w.idx(0);
    w.idx(-1);
    w.u8(0);
    w.u8(0);
    w.idx(1);
    w.text("memo");
    w.i32(3);
    // Bones: センター, 腕 (append from センター, ratio −1, local), IK.
    w.i32(3);
    w.text("センター");
    w.text("center");
    w.v3(Vec3::new(0.0, 8.0, 0.0));
    w.idx(-1);
    w.i32(0);
    w.u16(0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0800 | 0x2000);
    w.v3(Vec3::new(0.0, 1.0, 0.0)); // tail offset
    w.v3(Vec3::X);
    w.v3(Vec3::Z);
    w.i32(7); // external parent key
    w.text("腕");
    w.text("arm");
    w.v3(Vec3::new(1.0, 10.0, 0.0));
    w.idx(0);
    w.i32(1);
    w.u16(0x0001 | 0x0002 | 0x0080 | 0x0100 | 0x0200 | 0x0400 | 0x1000);
    w.idx(0); // tail bone
    w.idx(0);
    w.f(-1.0);
    w.v3(Vec3::new(1.0, 0.0, 0.0)); // fixed axis
    w.text("IK");
    w.text("ik");
    w.v3(Vec3::new(2.0, 9.0, 0.0));
    w.idx(-1);
    w.i32(2);
    w.u16(0x0001 | 0x0002 | 0x0004 | 0x0020);
    w.idx(-1); // no tail
    w.idx(1); // target
    w.i32(40);
    w.f(0.5);
    w.i32(2);
    w.idx(0);
    w.u8(1);
    w.v3(Vec3::new(-1.0, 0.0, 0.0));
    w.v3(Vec3::new(0.0, 0.0, 0.0));
    w.idx(1);
    w.u8(0);
    // Morphs: group, vertex, bone, uv, uv1..uv4, material, flip, impulse.
    w.i32(11);
    let head = |w: &mut W, name: &str, kind: u8, n: i32| {
        w.text(name);
        w.text("");
        w.u8(4);
        w.u8(kind);
        w.i32(n);
    };
    head(&mut w, "group", 0, 2);
    w.idx(1);
    w.f(0.5);
    w.idx(2);
    w.f(2.0);
    head(&mut w, "vertex", 1, 1);
    w.vidx(4);
    w.v3(Vec3::new(0.0, 0.0, 1.0));
    head(&mut w, "bone", 2, 1);
    w.idx(1);
    w.v3(Vec3::new(0.0, 1.0, 0.0));
    w.v4(Vec4::new(0.0, 0.0, 0.0, 1.0));
    for ch in 0..5u8 {
        head(&mut w, &format!("uv{ch}"), 3 + ch, 1);
        w.vidx(3);
        w.v4(Vec4::new(0.1, 0.2, 0.3, f32::from(ch)));
    }
    head(&mut w, "material", 8, 1);
    w.idx(-1);
    w.u8(1);
    w.v4(Vec4::splat(0.5)); // diffuse
    w.v3(Vec3::splat(0.5)); // specular
    w.f(0.5); // power
    w.v3(Vec3::splat(0.5)); // ambient
    w.v4(Vec4::splat(0.5)); // edge colour
    w.f(0.5); // edge size
    w.v4(Vec4::splat(0.5)); // texture tint
    w.v4(Vec4::splat(0.5)); // sphere tint
    w.v4(Vec4::splat(0.5)); // toon tint
    head(&mut w, "flip", 9, 1);
    w.idx(1);
    w.f(1.0);
    head(&mut w, "impulse", 10, 1);
    w.idx(1);
    w.u8(1);
    w.v3(Vec3::new(1.0, 2.0, 3.0));
    w.v3(Vec3::new(4.0, 5.0, 6.0));
    // Display frames.
    w.i32(2);
    w.text("Root");
    w.text("Root");
    w.u8(1);
    w.i32(1);
    w.u8(0);
    w.idx(0);
    w.text("表情");
    w.text("Exp");
    w.u8(1);
    w.i32(2);
    w.u8(1);
    w.idx(1);
    w.u8(1);
    w.idx(0);
    // Rigid bodies.
    w.i32(2);
    for k in 0..2 {
        w.text(&format!("剛体{k}"));
        w.text("");
        w.idx(k);
        w.u8(3);
        w.u16(0xFFFE);
        w.u8(2);
        w.v3(Vec3::new(1.0, 2.0, 0.0));
        w.v3(Vec3::new(0.0, 9.0, 0.0));
        w.v3(Vec3::ZERO);
        for x in [1.0, 0.5, 0.5, 0.0, 0.5] {
            w.f(x);
        }
        w.u8(k as u8);
    }
    // Joint.
    w.i32(1);
    w.text("ジョイント");
    w.text("");
    w.u8(0);
    w.idx(0);
    w.idx(1);
    for k in 0..8 {
        w.v3(Vec3::splat(k as f32));
    }
    // Soft body.
    w.i32(1);
    w.text("布");
    w.text("cloth");
    w.u8(0);
    w.idx(0);
    w.u8(0);
    w.u16(0);
    w.u8(0);
    w.i32(0);
    w.i32(0);
    w.f(1.0);
    w.f(0.1);
    w.i32(0);
    for _ in 0..(12 + 6) {
        w.f(0.0);
    }
    for _ in 0..4 {
        w.i32(1);
    }
    for _ in 0..3 {
        w.f(1.0);
    }
    w.i32(1); // one anchor
    w.idx(0);
    w.vidx(2);
    w.u8(0);
    w.i32(2); // two pins
    w.vidx(0);
    w.vidx(1);
    w.b
}

#[test]
fn generated_pmx_reads_back_what_was_written() {
    for utf8 in [false, true] {
        for vsize in [1u8, 2, 4] {
            for isize in [1u8, 2, 4] {
                let bytes = generated_pmx(utf8, vsize, isize);
                let m = Model::read(&bytes)
                    .unwrap_or_else(|e| panic!("utf8={utf8} vsize={vsize} isize={isize}: {e}"));
                let ctx = format!("utf8={utf8} vsize={vsize} isize={isize}");
                assert!(m.warnings.is_empty(), "{ctx}: {:?}", m.warnings);
                check_generated(&m, &ctx);
            }
        }
    }
}

fn check_generated(m: &Model, ctx: &str) {
    assert_eq!(m.utf8, ctx.contains("utf8=true"), "{ctx}");
    assert_eq!(m.name, "テスト");
    assert_eq!(m.name_en, "test");
    assert_eq!(m.comment, "コメント");
    assert_eq!(m.vertex_count(), 5);
    assert_eq!(m.positions[3], Vec3::new(3.0, 4.0, 5.0));
    assert_eq!(m.uvs[2], Vec2::new(0.5, 0.5));
    assert_eq!(m.additional_uvs.len(), 4);
    assert_eq!(m.additional_uvs[0][4], Vec4::new(4.0, -4.0, 0.5, 0.0));
    assert_eq!(m.additional_uvs[3][1], Vec4::new(1.0, -1.0, 0.5, 3.0));
    assert_eq!(m.edge_scale[4], 2.0);
    assert_eq!(m.deforms[0], Deform::Bdef1 { bone: 1 });
    assert_eq!(
        m.deforms[1],
        Deform::Bdef2 {
            bones: [0, 1],
            weight: 0.25
        }
    );
    let four = ([0, 1, 2, 0], [0.5, 0.25, 0.25, 0.0]);
    assert_eq!(
        m.deforms[2],
        Deform::Bdef4 {
            bones: four.0,
            weights: four.1
        }
    );
    assert_eq!(
        m.deforms[3],
        Deform::Sdef {
            bones: [1, 2],
            weight: 0.75,
            c: Vec3::new(0.0, 5.0, 0.0),
            r0: Vec3::new(0.0, 4.0, 0.0),
            r1: Vec3::new(0.0, 6.0, 0.0)
        }
    );
    assert_eq!(
        m.deforms[4],
        Deform::Qdef {
            bones: four.0,
            weights: four.1
        }
    );
    assert_eq!(m.indices, vec![0, 1, 4]);
    assert_eq!(m.textures, vec!["tex\\Body.PNG", "toon.bmp"]);
    let mat = &m.materials[0];
    assert_eq!(mat.name, "体");
    assert_eq!(mat.diffuse, Vec4::new(0.8, 0.7, 0.6, 0.5));
    assert_eq!(mat.specular, Vec3::new(0.1, 0.2, 0.3));
    assert_eq!(mat.specular_power, 12.0);
    assert_eq!(mat.ambient, Vec3::new(0.4, 0.5, 0.6));
    assert!(mat.flags.double_sided && mat.flags.edge && mat.flags.line);
    assert!(!mat.flags.ground_shadow && !mat.flags.point);
    assert_eq!(mat.flags.bits(), 0x91);
    assert_eq!(mat.edge_colour, Vec4::new(0.0, 0.1, 0.2, 1.0));
    assert_eq!(mat.edge_size, 1.5);
    assert_eq!(mat.texture, Some(0));
    assert_eq!(mat.sphere, None);
    assert_eq!(mat.sphere_mode, SphereMode::None);
    assert_eq!(mat.toon, Toon::Texture(1));
    assert_eq!(mat.memo, "memo");
    assert_eq!(mat.index_count, 3);
    // Bones.
    let b = &m.skeleton.bones;
    assert_eq!(b.len(), 3);
    assert_eq!(b[0].name_en, "center");
    assert_eq!(b[0].local_axes, Some((Vec3::X, Vec3::Z)));
    assert_eq!(b[0].external_parent, Some(7));
    assert!(b[0].flags.movable && b[0].flags.operable && !b[0].flags.after_physics);
    assert_eq!(b[1].parent, Some(0));
    assert_eq!(b[1].layer, 1);
    let inh = b[1].inherit.expect("append");
    assert_eq!((inh.source, inh.ratio), (0, -1.0));
    assert!(inh.rotation && inh.translation && inh.local);
    assert_eq!(b[1].fixed_axis, Some(Vec3::X));
    assert!(b[1].flags.after_physics);
    assert_eq!(b[2].layer, 2);
    let ik = &m.skeleton.iks[0];
    assert_eq!(
        (ik.ik_bone, ik.target, ik.loops, ik.limit_angle),
        (2, 1, 40, 0.5)
    );
    assert_eq!(ik.links.len(), 2);
    assert_eq!(
        ik.links[0].limits,
        Some((Vec3::new(-1.0, 0.0, 0.0), Vec3::ZERO))
    );
    assert_eq!(ik.links[1].limits, None);
    // Morphs.
    assert_eq!(m.morphs.len(), 11);
    let counts = m.morph_counts();
    assert_eq!(
        (
            counts.group,
            counts.vertex,
            counts.bone,
            counts.uv,
            counts.additional_uv
        ),
        (1, 1, 1, 1, 4)
    );
    assert_eq!((counts.material, counts.flip, counts.impulse), (1, 1, 1));
    match &m.morphs[0].kind {
        MorphKind::Group(r) => {
            assert_eq!(r.len(), 2);
            assert_eq!((r[1].morph, r[1].ratio), (2, 2.0));
        }
        other => panic!("{other:?}"),
    }
    match &m.morphs[1].kind {
        MorphKind::Vertex(v) => assert_eq!((v[0].vertex, v[0].offset), (4, Vec3::Z)),
        other => panic!("{other:?}"),
    }
    match &m.morphs[2].kind {
        MorphKind::Bone(v) => {
            assert_eq!((v[0].bone, v[0].translation), (1, Vec3::Y));
            assert_eq!(v[0].rotation, Quat::IDENTITY);
        }
        other => panic!("{other:?}"),
    }
    for ch in 0..5u8 {
        match &m.morphs[3 + usize::from(ch)].kind {
            MorphKind::Uv { channel, offsets } => {
                assert_eq!(*channel, ch);
                assert_eq!(offsets[0].vertex, 3);
                assert_eq!(offsets[0].offset.w, f32::from(ch));
            }
            other => panic!("{other:?}"),
        }
    }
    match &m.morphs[8].kind {
        MorphKind::Material(v) => {
            assert_eq!(v[0].material, None);
            assert_eq!(v[0].op, MaterialOp::Add);
            assert_eq!(v[0].toon_tint, Vec4::splat(0.5));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&m.morphs[9].kind, MorphKind::Flip(r) if r[0].morph == 1));
    match &m.morphs[10].kind {
        MorphKind::Impulse(v) => {
            assert_eq!(v[0].rigid_body, 1);
            assert!(v[0].local);
            assert_eq!(v[0].torque, Vec3::new(4.0, 5.0, 6.0));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.display_frames.len(), 2);
    assert_eq!(
        m.display_frames[1].items,
        vec![DisplayItem::Morph(1), DisplayItem::Morph(0)]
    );
    assert_eq!(m.rigid_bodies.len(), 2);
    let rb = &m.rigid_bodies[1];
    assert_eq!((rb.bone, rb.group, rb.no_collision), (Some(1), 3, 0xFFFE));
    assert_eq!(rb.shape, Shape::Capsule);
    assert_eq!(rb.mode, PhysicsMode::Physics);
    assert_eq!(rb.friction, 0.5);
    assert_eq!(m.joints.len(), 1);
    assert_eq!(m.joints[0].rigid_bodies, [Some(0), Some(1)]);
    assert_eq!(m.joints[0].spring_rotation, Vec3::splat(7.0));
    assert_eq!(m.soft_bodies.len(), 1);
    assert_eq!(m.soft_bodies[0].name_en, "cloth");
    assert_eq!((m.soft_bodies[0].anchors, m.soft_bodies[0].pins), (1, 2));
}

#[test]
fn every_truncation_of_the_generated_pmx_is_an_error_or_a_warning_never_a_panic() {
    let bytes = generated_pmx(false, 2, 2);
    let mut whole = 0;
    for cut in 0..=bytes.len() {
        match Model::read(&bytes[..cut]) {
            Err(ModelError::Truncated { offset, .. }) => assert!(offset <= cut),
            Err(ModelError::UnknownFormat { .. }) => assert!(cut < 4),
            Err(other) => panic!("cut {cut}: unexpected {other}"),
            // Trailing sections may be absent as a whole.
            Ok(_) => whole += 1,
        }
    }
    // Cut just before morphs, display frames, rigid bodies, joints or soft
    // bodies, or not at all.
    assert_eq!(whole, 6);
}

// ------------------------------------------------------- tolerated problems

/// Patches the generated PMX (1-byte indices, so offsets are easy to find).
fn patched(f: impl Fn(&mut Vec<u8>)) -> Model {
    let mut bytes = generated_pmx(true, 1, 1);
    f(&mut bytes);
    Model::read(&bytes).expect("still loads")
}

fn find(bytes: &[u8], needle: &[u8]) -> usize {
    bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("needle")
}

#[test]
fn bad_references_are_warnings_not_errors() {
    // Material texture index 0 → 9 (there are 2 textures): after the
    // universal name "body", diffuse 16 + specular 12 + power 4 + ambient
    // 12 + flags 1 + edge colour 16 + edge size 4 = 65 bytes.
    let m = patched(|b| {
        let at = find(b, b"body") + 4 + 65;
        assert_eq!(b[at], 0);
        b[at] = 9;
    });
    assert_eq!(m.materials[0].texture, None);
    assert!(
        m.warnings
            .iter()
            .any(|w| w.message.contains("texture index 9"))
    );

    // Bone cycle: センター's parent (−1) → 腕 (1), and 腕's parent is センター.
    let m = patched(|b| {
        let at = find(b, "center".as_bytes()) + 6 + 12;
        assert_eq!(b[at], 0xFF);
        b[at] = 1;
    });
    assert!(
        m.warnings
            .iter()
            .any(|w| w.message.contains("own ancestors"))
    );
    let order = m.skeleton.topological_order();
    assert_eq!(order.len(), 3);

    // Group morph pointing at itself: its first member 1 → 0.
    let m = patched(|b| {
        let at = find(b, b"group") + 5 + 4 + 1 + 1 + 4;
        assert_eq!(b[at], 1);
        b[at] = 0;
    });
    assert!(m.warnings.iter().any(|w| w.message.contains("itself")));
    match &m.morphs[0].kind {
        MorphKind::Group(r) => assert_eq!(r.len(), 1),
        other => panic!("{other:?}"),
    }

    // Vertex morph pointing at a missing vertex: 4 → 200.
    let m = patched(|b| {
        let at = find(b, b"vertex") + 6 + 4 + 1 + 1 + 4;
        assert_eq!(b[at], 4);
        b[at] = 200;
    });
    assert!(matches!(&m.morphs[1].kind, MorphKind::Vertex(v) if v.is_empty()));
    assert!(
        m.warnings
            .iter()
            .any(|w| w.message.contains("vertex index 200"))
    );
}

#[test]
fn hostile_counts_fail_before_allocating() {
    let mut bytes = generated_pmx(true, 1, 1);
    // The vertex count follows the header: claim 2^31 − 1 vertices.
    let at = find(&bytes, b"comment") + 7;
    bytes[at..at + 4].copy_from_slice(&i32::MAX.to_le_bytes());
    match Model::read(&bytes) {
        Err(ModelError::Truncated { offset, .. }) => assert_eq!(offset, at + 4),
        other => panic!("{other:?}"),
    }
    let mut neg = generated_pmx(true, 1, 1);
    neg[at..at + 4].copy_from_slice(&(-5i32).to_le_bytes());
    let e = Model::read(&neg).expect_err("negative count");
    assert!(e.to_string().contains("negative vertex count -5"), "{e}");
    assert!(e.to_string().contains(&format!("{at:#x}")), "{e}");
}

// ------------------------------------------------------------- textures

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vmd-studio-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn texture_paths_resolve_with_backslashes_and_any_case() {
    let dir = temp_dir("tex-resolve");
    std::fs::create_dir_all(dir.join("Tex")).expect("mkdir");
    std::fs::write(dir.join("Tex/Body.png"), b"x").expect("write");
    std::fs::write(dir.join("髪.png"), b"x").expect("write");
    let want = dir.join("Tex/Body.png");
    assert_eq!(
        resolve_texture_path(&dir, "Tex\\Body.png"),
        Some(want.clone())
    );
    assert_eq!(
        resolve_texture_path(&dir, "tex\\BODY.PNG"),
        Some(want.clone())
    );
    assert_eq!(resolve_texture_path(&dir, "./TEX/body.png"), Some(want));
    assert_eq!(
        resolve_texture_path(&dir, "髪.PNG"),
        Some(dir.join("髪.png"))
    );
    assert_eq!(resolve_texture_path(&dir, "missing.png"), None);
    assert_eq!(resolve_texture_path(&dir, ""), None);
    // A folder is not a texture.
    assert_eq!(resolve_texture_path(&dir, "tex"), None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn textures_decode_from_png_bmp_and_tga_and_broken_ones_warn() {
    let dir = temp_dir("tex-decode");
    // A 2 × 1 image: red opaque, half-transparent blue.
    let img = image::RgbaImage::from_raw(2, 1, vec![255, 0, 0, 255, 0, 0, 255, 128]).expect("img");
    for ext in ["png", "tga"] {
        let path = dir.join(format!("a.{ext}"));
        img.save(&path).expect("save");
        let t = decode_texture(&std::fs::read(&path).expect("read"), &path).expect(ext);
        assert_eq!((t.width, t.height), (2, 1));
        assert_eq!(t.pixel(0, 0), Some([255, 0, 0, 255]), "{ext}");
        assert_eq!(t.pixel(1, 0), Some([0, 0, 255, 128]), "{ext}");
        assert!(t.has_alpha);
        assert_eq!(t.pixel(2, 0), None);
    }
    let rgb = image::RgbImage::from_raw(1, 1, vec![10, 20, 30]).expect("rgb");
    let bmp = dir.join("c.bmp");
    rgb.save(&bmp).expect("bmp");
    let t = decode_texture(&std::fs::read(&bmp).expect("read"), &bmp).expect("bmp");
    assert_eq!(t.pixel(0, 0), Some([10, 20, 30, 255]));
    assert!(!t.has_alpha);
    assert!(decode_texture(b"not an image", Path::new("x.png")).is_err());
    assert!(decode_texture(b"\x89PNG\r\n\x1a\nbroken", Path::new("x.png")).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 32-bit uncompressed (BI_RGB) BMP, written field by field: the
/// 14-byte file header, the 40-byte BITMAPINFOHEADER (`height` negative:
/// rows top-down), then B, G, R, A per pixel, rows bottom-up unless
/// top-down (a row of 32-bit pixels needs no padding).
fn bmp32(w: i32, height: i32, rows: &[&[[u8; 4]]]) -> Vec<u8> {
    let data: Vec<u8> = rows
        .iter()
        .flat_map(|r| r.iter().flatten().copied())
        .collect();
    let mut b = Vec::new();
    b.extend_from_slice(b"BM");
    b.extend_from_slice(&(54 + data.len() as u32).to_le_bytes()); // file size
    b.extend_from_slice(&[0; 4]); // reserved
    b.extend_from_slice(&54u32.to_le_bytes()); // pixel data offset
    b.extend_from_slice(&40u32.to_le_bytes()); // BITMAPINFOHEADER size
    b.extend_from_slice(&w.to_le_bytes());
    b.extend_from_slice(&height.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes()); // planes
    b.extend_from_slice(&32u16.to_le_bytes()); // bits per pixel
    b.extend_from_slice(&0u32.to_le_bytes()); // BI_RGB
    b.extend_from_slice(&(data.len() as u32).to_le_bytes());
    b.extend_from_slice(&[0; 16]); // resolution, palette counts
    b.extend_from_slice(&data);
    b
}

/// Issue 34: a 32-bit BMP's fourth byte is its alpha (as the open MMD
/// runtimes read it: saba through stb_image), unless every one is 0, which
/// is an opaque image; bottom-up and top-down rows alike. The `image`
/// crate alone reads it as opaque.
#[test]
fn a_32_bit_bmp_keeps_its_alpha() {
    let path = Path::new("a.bmp");
    // Bottom-up, 2 × 2: the file's first row is the picture's bottom row.
    let bottom: &[[u8; 4]] = &[[10, 20, 30, 0], [40, 50, 60, 255]];
    let top: &[[u8; 4]] = &[[70, 80, 90, 128], [1, 2, 3, 64]];
    let t = decode_texture(&bmp32(2, 2, &[bottom, top]), path).expect("bmp");
    assert_eq!(
        t.pixel(0, 0),
        Some([90, 80, 70, 128]),
        "top-left, BGR → RGB"
    );
    assert_eq!(t.pixel(1, 0), Some([3, 2, 1, 64]));
    assert_eq!(t.pixel(0, 1), Some([30, 20, 10, 0]), "fully transparent");
    assert_eq!(t.pixel(1, 1), Some([60, 50, 40, 255]));
    assert!(t.has_alpha);
    // Top-down (negative height): the file's first row is the top.
    let t = decode_texture(&bmp32(2, -2, &[top, bottom]), path).expect("top-down");
    assert_eq!(t.pixel(0, 0), Some([90, 80, 70, 128]));
    assert_eq!(t.pixel(0, 1), Some([30, 20, 10, 0]));
    // Every alpha byte 0: an opaque image (the byte is unused).
    let t = decode_texture(&bmp32(1, 1, &[&[[5, 6, 7, 0]]]), path).expect("opaque");
    assert_eq!(t.pixel(0, 0), Some([7, 6, 5, 255]));
    assert!(!t.has_alpha);
    // Cut short: an error, never a panic.
    let mut cut = bmp32(2, 2, &[bottom, top]);
    cut.truncate(60);
    assert!(decode_texture(&cut, path).is_err());
}

#[test]
fn builtin_toon_ramps_are_white_on_top_and_shaded_below() {
    let mut bottoms = Vec::new();
    for i in 0..10u8 {
        let t = builtin_toon(i);
        assert_eq!((t.width, t.height), (TOON_SIZE, TOON_SIZE));
        assert_eq!(t.rgba.len(), (4 * TOON_SIZE * TOON_SIZE) as usize);
        assert_eq!(t.pixel(0, 0), Some([255, 255, 255, 255]));
        let bottom = t.pixel(5, TOON_SIZE - 1).expect("pixel");
        assert!(
            bottom[..3].iter().any(|&c| c < 255),
            "toon {i} has a shadow"
        );
        // Monotonic: no row is lighter than the one above.
        for y in 1..TOON_SIZE {
            let (a, b) = (t.pixel(0, y - 1).expect("a"), t.pixel(0, y).expect("b"));
            assert!((0..3).all(|k| b[k] <= a[k]), "toon {i} row {y}");
        }
        bottoms.push(bottom);
    }
    bottoms.sort();
    bottoms.dedup();
    assert_eq!(bottoms.len(), 10, "ten distinct ramps");
}

// ------------------------------------------------------------- mutations

/// xorshift, for reproducible mutations.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Reads and poses `bytes` (if they read): must not panic.
fn read_and_pose(bytes: &[u8]) {
    let Ok(m) = Model::read(bytes) else { return };
    let mut poser = vmd_studio::model::Poser::new(&m);
    let mut out = vmd_studio::model::Posed::default();
    for w in poser.input_mut().morphs.iter_mut() {
        *w = 1.0;
    }
    for t in poser.input_mut().translations.iter_mut() {
        *t = Vec3::new(0.5, -1.0, 2.0);
    }
    poser.evaluate(&m, &mut out);
    assert_eq!(out.positions.len(), m.vertex_count());
}

/// A small in-test fuzzer (the cargo-fuzz targets in `fuzz/` go further):
/// flip, overwrite and splice bytes of valid files, then read and pose.
fn mutate_many(seed: u64, original: &[u8], rounds: usize) {
    let mut rng = Rng(seed);
    for _ in 0..rounds {
        let mut b = original.to_vec();
        for _ in 0..1 + rng.next() % 4 {
            let at = (rng.next() as usize) % b.len();
            match rng.next() % 4 {
                0 => b[at] ^= 1 << (rng.next() % 8),
                1 => b[at] = 0xFF,
                2 => b[at] = (rng.next() % 256) as u8,
                _ => {
                    let cut = at.max(4);
                    b.truncate(cut);
                }
            }
        }
        read_and_pose(&b);
    }
}

#[test]
fn mutated_models_never_panic() {
    for (seed, (utf8, v, i)) in [(true, 1, 1), (false, 2, 4), (true, 4, 2)]
        .into_iter()
        .enumerate()
    {
        mutate_many(seed as u64 + 1, &generated_pmx(utf8, v, i), 1500);
    }
    let Some(dir) = corpus() else { return };
    for name in [
        "mei/mei.pmd",
        "pmx-features/sdef-two-bone-elbow.pmx",
        "unitymmdloader__mmt_test_model.pmx",
    ] {
        let bytes = std::fs::read(dir.join(name)).expect("model");
        mutate_many(99, &bytes, 40);
    }
}

/// Texture loading reports each texture before decoding it (for the app's
/// progress bar) and stops when asked: Mei names 16 textures, one missing.
#[test]
fn texture_loading_reports_progress_and_stops_when_asked() {
    let Some(dir) = corpus() else { return };
    let m = Model::open(&dir.join("mei/mei.pmd")).expect("mei reads");
    let mut seen: Vec<(usize, usize, String)> = Vec::new();
    let set = vmd_studio::model::load_textures_with(&m, &dir.join("mei"), |i, n, name| {
        seen.push((i, n, name.to_owned()));
        true
    })
    .expect("not stopped");
    assert_eq!(seen.len(), 16);
    for (k, (i, n, name)) in seen.iter().enumerate() {
        assert_eq!((*i, *n), (k, 16));
        assert_eq!(name, &m.textures[k]);
    }
    assert_eq!(set.missing(), vec!["blouse.png"]);
    assert_eq!(set.textures.len(), 16);

    let mut calls = 0;
    let stopped = vmd_studio::model::load_textures_with(&m, &dir.join("mei"), |i, _, _| {
        calls += 1;
        i < 3
    });
    assert!(stopped.is_none(), "stopped before texture 3");
    assert_eq!(calls, 4);
}
