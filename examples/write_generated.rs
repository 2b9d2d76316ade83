//! Writes issue 37's `generated` case (the 180-body / 230-joint model of
//! `benches/support/physics_model.rs` wearing `harness::sway_motion(1600)`)
//! as files, so babylon-mmd (which only loads files) can pose the same
//! thing: `OUT_DIR/generated.pmx` (PMX 2.0, UTF-16LE) and
//! `OUT_DIR/generated_sway.vmd`. Then it reads both back with our readers
//! and checks them field by field against the in-memory model and motion,
//! and poses both (physics on, the harness protocol) to check the files
//! pose exactly as the in-memory case does.
//!
//! ```text
//! cargo run --release --no-default-features --example write_generated -- OUT_DIR
//! cargo run --release --no-default-features --example write_generated -- --check OUT_DIR [--steps N]
//! ```
//!
//! `--check` only reads and checks files already written. Exits 1 when
//! anything differs.
//!
//! The PMX holds the model's bones (names, parents, positions, flags; no
//! tail: "tail is a bone" with index −1, which reads back as none), its
//! rigid bodies and joints (every field), one triangle on bone 0 with one
//! material (babylon-mmd builds a mesh from it), no morphs, and the two
//! special display frames PMX editors write ("Root" holding bone 0, and
//! the empty expression frame).

#[path = "../benches/support/harness.rs"]
mod harness;
#[path = "../benches/support/physics_model.rs"]
mod physics_model;

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3};
use vmd_studio::model::{BoneTail, Model, PhysicsMode, Shape};
use vmd_studio::vmd::{self, IndexedMotion, Motion, Section};

const PMX_NAME: &str = "generated.pmx";
const VMD_NAME: &str = "generated_sway.vmd";
const SWAY_FRAMES: u32 = 1600;

/// PMX 2.0 bone flag bits.
const TAIL_IS_BONE: u16 = 0x0001;
const ROTATABLE: u16 = 0x0002;
const MOVABLE: u16 = 0x0004;
const VISIBLE: u16 = 0x0008;
const OPERABLE: u16 = 0x0010;
const AFTER_PHYSICS: u16 = 0x1000;

/// The smallest signed PMX index size (1, 2 or 4 bytes) for `count` items.
fn index_size(count: usize) -> u8 {
    if count <= i8::MAX as usize {
        1
    } else if count <= i16::MAX as usize {
        2
    } else {
        4
    }
}

/// Little-endian PMX writer (UTF-16LE text).
struct Pmx {
    out: Vec<u8>,
    bone_index: u8,
    rigid_index: u8,
}

impl Pmx {
    fn u8(&mut self, v: u8) {
        self.out.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    fn count(&mut self, n: usize) {
        self.i32(i32::try_from(n).expect("count fits an i32"));
    }
    fn f32(&mut self, v: f32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    fn floats(&mut self, v: &[f32]) {
        v.iter().for_each(|&x| self.f32(x));
    }
    fn vec3(&mut self, v: Vec3) {
        self.floats(&v.to_array());
    }
    fn text(&mut self, s: &str) {
        let bytes: Vec<u8> = s.encode_utf16().flat_map(u16::to_le_bytes).collect();
        self.count(bytes.len());
        self.out.extend_from_slice(&bytes);
    }
    /// A signed index of `size` bytes; `None` = −1.
    fn index(&mut self, size: u8, i: Option<usize>) {
        let v = i.map_or(-1i64, |i| i as i64);
        match size {
            1 => self.out.push(i8::try_from(v).expect("index fits") as u8),
            2 => self
                .out
                .extend_from_slice(&i16::try_from(v).expect("index fits").to_le_bytes()),
            _ => self.i32(i32::try_from(v).expect("index fits")),
        }
    }
}

/// The model as PMX 2.0 bytes. Panics on what the writer does not cover
/// (IK, inherit, fixed or local axes, external parents, morphs): the
/// generated model has none.
fn pmx_bytes(m: &Model) -> Vec<u8> {
    let bones = &m.skeleton.bones;
    assert!(m.skeleton.iks.is_empty(), "IK is not written");
    assert!(m.morphs.is_empty(), "morphs are not written");
    let mut w = Pmx {
        out: Vec::new(),
        bone_index: index_size(bones.len()),
        rigid_index: index_size(m.rigid_bodies.len()),
    };
    // Header: signature, version, 8 globals: UTF-16LE, no additional UVs,
    // vertex index 1 (unsigned; 3 vertices), texture 1, material 1, bone,
    // morph 1, rigid body.
    w.out.extend_from_slice(b"PMX ");
    w.f32(2.0);
    w.u8(8);
    let (bi, ri) = (w.bone_index, w.rigid_index);
    w.out.extend_from_slice(&[0, 0, 1, 1, 1, bi, 1, ri]);
    w.text("generated");
    w.text("generated");
    w.text("VMD Studio benches/support/physics_model.rs generated_model()");
    w.text("VMD Studio benches/support/physics_model.rs generated_model()");

    // Vertices: one triangle on bone 0, BDEF1, edge scale 1.
    let origin = bones.first().map_or(Vec3::ZERO, |b| b.rest_position);
    let corners = [
        origin,
        origin + Vec3::new(0.1, 0.0, 0.0),
        origin + Vec3::new(0.0, 0.1, 0.0),
    ];
    w.count(corners.len());
    for p in corners {
        w.vec3(p);
        w.vec3(Vec3::new(0.0, 0.0, -1.0));
        w.floats(&[0.0, 0.0]);
        w.u8(0); // BDEF1
        w.index(bi, Some(0));
        w.f32(1.0);
    }
    // Faces: 3 vertex indices (size 1, unsigned).
    w.count(3);
    w.out.extend_from_slice(&[0, 1, 2]);
    // Textures: none.
    w.count(0);
    // Materials: one, drawing the triangle, no textures, no toon.
    w.count(1);
    w.text("material");
    w.text("material");
    w.floats(&[1.0, 1.0, 1.0, 1.0]); // diffuse
    w.floats(&[0.0, 0.0, 0.0]); // specular
    w.f32(5.0); // specular power
    w.floats(&[0.5, 0.5, 0.5]); // ambient
    w.u8(0); // flags
    w.floats(&[0.0, 0.0, 0.0, 1.0]); // edge colour
    w.f32(1.0); // edge size
    w.index(1, None); // texture
    w.index(1, None); // sphere texture
    w.u8(0); // sphere mode: none
    w.u8(0); // toon: a texture index,
    w.index(1, None); // none
    w.text(""); // memo
    w.count(3); // face indices drawn

    // Bones.
    w.count(bones.len());
    for (i, b) in bones.iter().enumerate() {
        assert!(
            b.inherit.is_none()
                && b.fixed_axis.is_none()
                && b.local_axes.is_none()
                && b.external_parent.is_none()
                && !b.flags.ik,
            "bone {i} ({}) has something the writer does not cover",
            b.name
        );
        w.text(&b.name);
        w.text(&b.name_en);
        w.vec3(b.rest_position);
        w.index(bi, b.parent);
        w.i32(b.layer);
        let f = b.flags;
        let mut bits = 0u16;
        for (on, bit) in [
            (f.rotatable, ROTATABLE),
            (f.movable, MOVABLE),
            (f.visible, VISIBLE),
            (f.operable, OPERABLE),
            (f.after_physics, AFTER_PHYSICS),
        ] {
            if on {
                bits |= bit;
            }
        }
        match b.tail {
            Some(BoneTail::Offset(v)) => {
                w.u16(bits);
                w.vec3(v);
            }
            Some(BoneTail::Bone(t)) => {
                w.u16(bits | TAIL_IS_BONE);
                w.index(bi, Some(t));
            }
            None => {
                w.u16(bits | TAIL_IS_BONE);
                w.index(bi, None);
            }
        }
    }
    // Morphs: none.
    w.count(0);
    // Display frames: the two special frames.
    w.count(2);
    w.text("Root");
    w.text("Root");
    w.u8(1);
    if bones.is_empty() {
        w.count(0);
    } else {
        w.count(1);
        w.u8(0);
        w.index(bi, Some(0));
    }
    w.text("表情");
    w.text("Exp");
    w.u8(1);
    w.count(0);
    // Rigid bodies.
    w.count(m.rigid_bodies.len());
    for r in &m.rigid_bodies {
        w.text(&r.name);
        w.text(&r.name_en);
        w.index(bi, r.bone);
        w.u8(r.group);
        w.u16(r.no_collision);
        w.u8(match r.shape {
            Shape::Sphere => 0,
            Shape::Box => 1,
            Shape::Capsule => 2,
        });
        w.vec3(r.size);
        w.vec3(r.position);
        w.vec3(r.rotation);
        w.floats(&[
            r.mass,
            r.linear_damping,
            r.angular_damping,
            r.restitution,
            r.friction,
        ]);
        w.u8(match r.mode {
            PhysicsMode::FollowBone => 0,
            PhysicsMode::Physics => 1,
            PhysicsMode::PhysicsWithBone => 2,
        });
    }
    // Joints (PMX 2.0: spring 6DOF, kind 0).
    w.count(m.joints.len());
    for j in &m.joints {
        assert_eq!(j.kind, 0, "joint {}: PMX 2.0 has only kind 0", j.name);
        w.text(&j.name);
        w.text(&j.name_en);
        w.u8(j.kind);
        w.index(ri, j.rigid_bodies[0]);
        w.index(ri, j.rigid_bodies[1]);
        for v in [
            j.position,
            j.rotation,
            j.translation_limits.0,
            j.translation_limits.1,
            j.rotation_limits.0,
            j.rotation_limits.1,
            j.spring_translation,
            j.spring_rotation,
        ] {
            w.vec3(v);
        }
    }
    w.out
}

/// Counts field mismatches, printing each: `==` and the `Debug` text must
/// both agree (Debug tells −0.0 from 0.0, so floats compare bit for bit).
#[derive(Default)]
struct Diff {
    fields: usize,
    bad: usize,
}

impl Diff {
    fn field<T: PartialEq + Debug>(&mut self, what: impl Fn() -> String, a: &T, b: &T) {
        self.fields += 1;
        if a != b || format!("{a:?}") != format!("{b:?}") {
            self.bad += 1;
            if self.bad <= 20 {
                eprintln!("MISMATCH {}: file {a:?}, in memory {b:?}", what());
            }
        }
    }
}

/// Compares what the PMX holds with the in-memory model, field by field.
fn compare_model(file: &Model, mem: &Model, d: &mut Diff) {
    d.field(
        || "bone count".into(),
        &file.skeleton.bones.len(),
        &mem.skeleton.bones.len(),
    );
    d.field(
        || "IK count".into(),
        &file.skeleton.iks.len(),
        &mem.skeleton.iks.len(),
    );
    for (i, (a, b)) in file
        .skeleton
        .bones
        .iter()
        .zip(&mem.skeleton.bones)
        .enumerate()
    {
        let at = |f: &'static str| move || format!("bone {i} ({}) {f}", b.name);
        d.field(at("name"), &a.name, &b.name);
        d.field(at("name_en"), &a.name_en, &b.name_en);
        d.field(at("parent"), &a.parent, &b.parent);
        d.field(at("rest_position"), &a.rest_position, &b.rest_position);
        d.field(at("tail"), &a.tail, &b.tail);
        d.field(at("flags"), &a.flags, &b.flags);
        d.field(at("inherit"), &a.inherit, &b.inherit);
        d.field(at("layer"), &a.layer, &b.layer);
        d.field(at("fixed_axis"), &a.fixed_axis, &b.fixed_axis);
        d.field(at("local_axes"), &a.local_axes, &b.local_axes);
        d.field(
            at("external_parent"),
            &a.external_parent,
            &b.external_parent,
        );
        d.field(at("(whole bone)"), a, b);
    }
    d.field(
        || "rigid body count".into(),
        &file.rigid_bodies.len(),
        &mem.rigid_bodies.len(),
    );
    for (i, (a, b)) in file.rigid_bodies.iter().zip(&mem.rigid_bodies).enumerate() {
        let at = |f: &'static str| move || format!("rigid body {i} ({}) {f}", b.name);
        d.field(at("name"), &a.name, &b.name);
        d.field(at("name_en"), &a.name_en, &b.name_en);
        d.field(at("bone"), &a.bone, &b.bone);
        d.field(at("group"), &a.group, &b.group);
        d.field(at("no_collision"), &a.no_collision, &b.no_collision);
        d.field(at("shape"), &a.shape, &b.shape);
        d.field(at("size"), &a.size, &b.size);
        d.field(at("position"), &a.position, &b.position);
        d.field(at("rotation"), &a.rotation, &b.rotation);
        d.field(at("mass"), &a.mass, &b.mass);
        d.field(at("linear_damping"), &a.linear_damping, &b.linear_damping);
        d.field(
            at("angular_damping"),
            &a.angular_damping,
            &b.angular_damping,
        );
        d.field(at("restitution"), &a.restitution, &b.restitution);
        d.field(at("friction"), &a.friction, &b.friction);
        d.field(at("mode"), &a.mode, &b.mode);
        d.field(at("(whole body)"), a, b);
    }
    d.field(
        || "joint count".into(),
        &file.joints.len(),
        &mem.joints.len(),
    );
    for (i, (a, b)) in file.joints.iter().zip(&mem.joints).enumerate() {
        let at = |f: &'static str| move || format!("joint {i} ({}) {f}", b.name);
        d.field(at("name"), &a.name, &b.name);
        d.field(at("name_en"), &a.name_en, &b.name_en);
        d.field(at("kind"), &a.kind, &b.kind);
        d.field(at("rigid_bodies"), &a.rigid_bodies, &b.rigid_bodies);
        d.field(at("position"), &a.position, &b.position);
        d.field(at("rotation"), &a.rotation, &b.rotation);
        d.field(
            at("translation_limits"),
            &a.translation_limits,
            &b.translation_limits,
        );
        d.field(
            at("rotation_limits"),
            &a.rotation_limits,
            &b.rotation_limits,
        );
        d.field(
            at("spring_translation"),
            &a.spring_translation,
            &b.spring_translation,
        );
        d.field(
            at("spring_rotation"),
            &a.spring_rotation,
            &b.spring_rotation,
        );
        d.field(at("(whole joint)"), a, b);
    }
    d.field(
        || "morph count".into(),
        &file.morphs.len(),
        &mem.morphs.len(),
    );
    d.field(
        || "soft body count".into(),
        &file.soft_bodies.len(),
        &mem.soft_bodies.len(),
    );
    let warnings: Vec<String> = file.warnings.iter().map(|w| w.to_string()).collect();
    d.field(|| "reader warnings".into(), &warnings, &Vec::new());
}

/// Compares the motion read back with the one written: the count of every
/// section and every bone key's bytes, in order.
fn compare_motion(file: &Motion, mem: &Motion, d: &mut Diff) {
    for s in Section::ALL {
        d.field(
            || format!("VMD {} count", s.label()),
            &file.count(s),
            &mem.count(s),
        );
    }
    for (i, (a, b)) in file.bones.iter().zip(&mem.bones).enumerate() {
        d.field(
            || format!("VMD bone key {i}"),
            &a.raw.as_slice(),
            &b.raw.as_slice(),
        );
    }
    d.field(|| "VMD header".into(), &file.header, &mem.header);
}

/// Poses the case as the harness does (physics on when `physics`) for
/// `steps` calls, frame k × 0.5; returns the bone world matrices after the
/// last call.
fn simulate(case: &harness::Case, physics: bool, steps: usize) -> Vec<Mat4> {
    let (mut engine, on) = harness::engine(case, physics);
    assert_eq!(on, physics, "physics could not be enabled");
    for k in 0..steps {
        harness::step(&mut engine, case, k as f64 * 0.5);
    }
    engine.posed.bone_world.clone()
}

/// The end-pose figures bench.mjs prints for babylon-mmd too: where the
/// hips and head are, how far any bone is from the hips, the largest
/// relative change of a simulated bone's distance to its parent (a world
/// that blew up shows as a huge stretch or distance), and the checksum.
fn end_pose_json(model: &Model, world: &[Mat4]) -> String {
    let pos = |i: usize| world[i].w_axis.truncate();
    let bones = &model.skeleton.bones;
    let hips = pos(0);
    let head = bones.iter().position(|b| b.name == "head").unwrap_or(0);
    let max_from_hips = (0..bones.len())
        .map(|i| pos(i).distance(hips))
        .fold(0.0f32, f32::max);
    let simulated: Vec<usize> = model
        .rigid_bodies
        .iter()
        .filter(|r| r.mode != PhysicsMode::FollowBone)
        .filter_map(|r| r.bone)
        .collect();
    let max_stretch = simulated
        .iter()
        .filter_map(|&i| bones[i].parent.map(|p| (i, p)))
        .map(|(i, p)| {
            let rest = bones[i].rest_position.distance(bones[p].rest_position);
            (pos(i).distance(pos(p)) / rest - 1.0).abs()
        })
        .fold(0.0f32, f32::max);
    // bench.mjs's "checksum": the sum of every element of every bone's
    // world matrix.
    let checksum: f64 = world
        .iter()
        .flat_map(|m| m.to_cols_array())
        .map(f64::from)
        .sum();
    let v = |p: Vec3| format!("[{:.4},{:.4},{:.4}]", p.x, p.y, p.z);
    format!(
        "{{\"hips\":{},\"head\":{},\"max_from_hips\":{:.4},\"max_stretch\":{:.5},\"checksum\":{:.3}}}",
        v(hips),
        v(pos(head)),
        max_from_hips,
        max_stretch,
        checksum
    )
}

fn check(dir: &Path, steps: usize) -> bool {
    let mem_model = physics_model::generated_model();
    let mem_motion = harness::sway_motion(SWAY_FRAMES);
    let mut d = Diff::default();

    let pmx = dir.join(PMX_NAME);
    let file_model = match Model::open(&pmx) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}: {e}", pmx.display());
            return false;
        }
    };
    compare_model(&file_model, &mem_model, &mut d);
    println!(
        "{}: {} bones, {} rigid bodies, {} joints, {} vertices, {} materials, {} display frames, {} warnings",
        pmx.display(),
        file_model.skeleton.bones.len(),
        file_model.rigid_bodies.len(),
        file_model.joints.len(),
        file_model.vertex_count(),
        file_model.materials.len(),
        file_model.display_frames.len(),
        file_model.warnings.len()
    );

    let vmd_path = dir.join(VMD_NAME);
    let file_motion = match std::fs::read(&vmd_path)
        .map_err(|e| e.to_string())
        .and_then(|b| vmd::read(&b).map_err(|e| e.to_string()))
    {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}: {e}", vmd_path.display());
            return false;
        }
    };
    compare_motion(&file_motion, &mem_motion, &mut d);
    println!(
        "{}: {} bone keys (in memory {}), {} morph keys",
        vmd_path.display(),
        file_motion.bones.len(),
        mem_motion.bones.len(),
        file_motion.morphs.len()
    );
    println!(
        "field-by-field: {} fields compared, {} differ",
        d.fields, d.bad
    );

    // Pose both cases the harness way and compare the end pose bit for bit.
    let mem_case = harness::case("generated", physics_model::generated_model)
        .expect("the generated case needs no corpus");
    let file_case = harness::Case {
        name: "generated",
        model: file_model,
        motion: IndexedMotion::new(file_motion),
    };
    let mut same = true;
    for physics in [false, true] {
        let a = simulate(&file_case, physics, steps);
        let b = simulate(&mem_case, physics, steps);
        let identical = a.len() == b.len()
            && a.iter().zip(&b).all(|(x, y)| {
                x.to_cols_array()
                    .iter()
                    .zip(y.to_cols_array())
                    .all(|(p, q)| p.to_bits() == q.to_bits())
            });
        same &= identical;
        println!(
            "{{\"side\":\"ours\",\"physics\":{physics},\"steps\":{steps},\"end_frame\":{},\"files_pose_identically\":{identical},\"end_pose\":{}}}",
            steps.saturating_sub(1) as f64 * 0.5,
            end_pose_json(&file_case.model, &a)
        );
    }
    d.bad == 0 && same
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check_only = args.iter().any(|a| a == "--check");
    let steps = args
        .iter()
        .position(|a| a == "--steps")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(3000usize);
    let steps_value = args.iter().position(|a| a == "--steps").map(|i| i + 1);
    let dir = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && Some(*i) != steps_value)
        .map(|(_, a)| PathBuf::from(a));
    let Some(dir) = dir else {
        eprintln!("usage: write_generated [--check] OUT_DIR [--steps N]");
        std::process::exit(2);
    };
    if !check_only {
        std::fs::create_dir_all(&dir).expect("create OUT_DIR");
        let model = physics_model::generated_model();
        let pmx = pmx_bytes(&model);
        std::fs::write(dir.join(PMX_NAME), &pmx).expect("write the PMX");
        let motion = harness::sway_motion(SWAY_FRAMES);
        let vmd_bytes = vmd::write(&motion).expect("serialize the VMD");
        std::fs::write(dir.join(VMD_NAME), &vmd_bytes).expect("write the VMD");
        println!(
            "wrote {} ({} bytes) and {} ({} bytes)",
            dir.join(PMX_NAME).display(),
            pmx.len(),
            dir.join(VMD_NAME).display(),
            vmd_bytes.len()
        );
    }
    if !check(&dir, steps) {
        eprintln!("CHECK FAILED");
        std::process::exit(1);
    }
    println!("check passed");
}
