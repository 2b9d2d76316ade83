//! Bad models reach no pose: corpus PMX/PMD files with seeded, deterministic
//! random byte mutations go through loading, then posing (bones, every morph
//! at full weight, IK) and CPU skinning, as `pose --vertices` does. None may
//! panic or hang, and every number a renderer or a file could see — the
//! model's own vertices, normals, UVs and materials, and the pose's
//! matrices, skinned vertices, UV offsets and material states — must be
//! finite and within ±1e6.

mod common;
use common::corpus;

use glam::{Quat, Vec3};
use vmd_studio::model::{Model, Posed, Poser};

/// Largest magnitude a posed or loaded number may have.
const BOUND: f32 = 1e6;

/// xorshift64*: a small deterministic generator (no dependency, same
/// sequence on every machine).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `bytes` with 1–4 mutations: a random byte; a float's high byte set so
/// that it becomes huge, infinite or NaN (0x7F/0xFF exponent) when it lands
/// on one; or a whole special f32 written at a random offset.
fn mutate(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let n = 1 + rng.below(4);
    for _ in 0..n {
        let at = rng.below(b.len());
        match rng.below(3) {
            0 => b[at] = rng.next() as u8,
            1 => b[at] = [0x7F, 0xFF, 0x60, 0xE0][rng.below(4)],
            _ => {
                let v = [
                    f32::NAN,
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                    1e30,
                    -1e30,
                    3e7,
                    f32::MAX,
                ][rng.below(7)];
                for (k, byte) in v.to_le_bytes().into_iter().enumerate() {
                    if let Some(x) = b.get_mut(at + k) {
                        *x = byte;
                    }
                }
            }
        }
    }
    b
}

/// Every float of `values` finite and within [`BOUND`], else a description
/// of the first that is not.
fn check<'a>(what: &str, values: impl IntoIterator<Item = &'a f32>) -> Result<(), String> {
    for (i, v) in values.into_iter().enumerate() {
        if !v.is_finite() || v.abs() > BOUND {
            return Err(format!("{what}[{i}] = {v}"));
        }
    }
    Ok(())
}

fn floats3(v: &[Vec3]) -> impl Iterator<Item = &f32> {
    v.iter().flat_map(|p| p.as_ref().iter())
}

/// What a renderer reads from the model itself.
fn check_model(m: &Model) -> Result<(), String> {
    check("positions", floats3(&m.positions))?;
    check("normals", floats3(&m.normals))?;
    check("uvs", m.uvs.iter().flat_map(|p| p.as_ref().iter()))?;
    for (c, ch) in m.additional_uvs.iter().enumerate() {
        check(
            &format!("additional uv {c}"),
            ch.iter().flat_map(|p| p.as_ref().iter()),
        )?;
    }
    check("edge scale", &m.edge_scale)?;
    for (i, mat) in m.materials.iter().enumerate() {
        let f = [
            mat.diffuse.to_array().to_vec(),
            mat.specular.to_array().to_vec(),
            vec![mat.specular_power, mat.edge_size],
            mat.ambient.to_array().to_vec(),
            mat.edge_colour.to_array().to_vec(),
        ]
        .concat();
        check(&format!("material {i}"), &f)?;
    }
    let rest: Vec<Vec3> = m.skeleton.bones.iter().map(|b| b.rest_position).collect();
    check("bone rest positions", floats3(&rest))?;
    Ok(())
}

/// What a pose hands on: matrices, skinned vertices, UV offsets, materials.
fn check_posed(p: &Posed) -> Result<(), String> {
    check(
        "bone_world",
        p.bone_world.iter().flat_map(|m| m.as_ref().iter()),
    )?;
    check(
        "skinning",
        p.skinning.iter().flat_map(|m| m.as_ref().iter()),
    )?;
    check(
        "local_rotations",
        p.local_rotations.iter().flat_map(|q| q.as_ref().iter()),
    )?;
    check("positions", floats3(&p.positions))?;
    check("normals", floats3(&p.normals))?;
    check(
        "uv_offsets",
        p.uv_offsets.iter().flat_map(|v| v.as_ref().iter()),
    )?;
    for ch in &p.additional_uv_offsets {
        check(
            "additional uv offsets",
            ch.iter().flat_map(|v| v.as_ref().iter()),
        )?;
    }
    for (i, s) in p.materials.iter().enumerate() {
        let f = [
            s.diffuse.to_array().to_vec(),
            s.specular.to_array().to_vec(),
            vec![s.specular_power, s.edge_size],
            s.ambient.to_array().to_vec(),
            s.edge_colour.to_array().to_vec(),
            s.texture_mul.to_array().to_vec(),
            s.texture_add.to_array().to_vec(),
            s.sphere_mul.to_array().to_vec(),
            s.sphere_add.to_array().to_vec(),
            s.toon_mul.to_array().to_vec(),
            s.toon_add.to_array().to_vec(),
        ]
        .concat();
        check(&format!("material state {i}"), &f)?;
    }
    Ok(())
}

/// Poses `m` at rest and "dancing" (every bone turned and moved a little,
/// every morph at weight 1, IK on), skinning every vertex.
fn pose_all(m: &Model) -> Result<(), String> {
    let mut poser = Poser::new(m);
    let mut out = Posed::default();
    poser.evaluate(m, &mut out);
    check_posed(&out).map_err(|e| format!("rest pose: {e}"))?;
    {
        let input = poser.input_mut();
        let turn = Quat::from_euler(glam::EulerRot::YXZ, 0.3, -0.4, 0.2);
        input.rotations.iter_mut().for_each(|q| *q = turn);
        input
            .translations
            .iter_mut()
            .for_each(|t| *t = Vec3::new(0.1, 0.2, -0.1));
        input.morphs.iter_mut().for_each(|w| *w = 1.0);
    }
    poser.evaluate(m, &mut out);
    check_posed(&out).map_err(|e| format!("posed: {e}"))
}

#[test]
fn mutated_corpus_models_load_and_pose_to_finite_bounded_numbers() {
    let Some(dir) = corpus() else { return };
    // (file, mutants): small files get more, Mei (PMD, 9k vertices) fewer.
    let files = [
        ("mmdbase__bone_tree_test_model.pmx", 80),
        ("unitymmdloader__mmt_test_model.pmx", 60),
        ("mmdagent__mei.pmd", 40),
        ("pmx-features/sdef-two-bone-elbow.pmx", 40),
        ("pmx-features/qdef-twist-cylinder.pmx", 30),
        ("pmx-features/mixed-deform-types.pmx", 30),
        ("pmx-features/mmd-material-morph-alpha-opaque-depth.pmx", 30),
        ("pmx-babylonmmd/constraint_test.pmx", 30),
    ];
    // `VMD_MUTANTS=k` runs k times as many (a deeper search by hand).
    let scale: usize = std::env::var("VMD_MUTANTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let (mut loaded, mut total, mut warned) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for (f, (name, count)) in files.iter().enumerate() {
        let original = std::fs::read(dir.join(name)).expect("corpus model readable");
        // The unmutated file is sane.
        let m = Model::read(&original).expect("corpus model loads");
        let base_warnings = m.warnings.len();
        if let Err(e) = check_model(&m).and_then(|_| pose_all(&m)) {
            failures.push(format!("{name} (unmutated): {e}"));
        }
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (f as u64 + 1).wrapping_mul(0x1234_5677));
        for k in 0..count * scale {
            let bytes = mutate(&original, &mut rng);
            total += 1;
            let Ok(m) = Model::read(&bytes) else {
                continue;
            };
            loaded += 1;
            if m.warnings.len() > base_warnings {
                warned += 1;
            }
            if let Err(e) = check_model(&m).and_then(|_| pose_all(&m)) {
                failures.push(format!("{name} mutant {k}: {e}"));
            }
        }
    }
    eprintln!(
        "{total} mutants, {loaded} loaded ({warned} with more warnings than the original), {} bad",
        failures.len()
    );
    assert!(loaded > total / 10, "too few mutants load to test anything");
    assert!(
        failures.is_empty(),
        "{} mutants reach a non-finite or absurd number:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Offset of the first vertex's position in a PMX file: after the
/// signature, version, globals and the four header texts (each an i32
/// length and its bytes), and the vertex count.
fn pmx_first_vertex(bytes: &[u8]) -> usize {
    let globals = bytes[8] as usize;
    let mut at = 9 + globals;
    for _ in 0..4 {
        let len = i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        at += 4 + len;
    }
    at + 4
}

#[test]
fn a_non_finite_vertex_loads_with_a_warning_naming_it() {
    let Some(dir) = corpus() else { return };
    let mut bytes =
        std::fs::read(dir.join("pmx-features/bdef2-two-bone-strip.pmx")).expect("readable");
    let clean = Model::read(&bytes).expect("loads");
    assert!(
        clean.warnings.iter().all(|w| !w.message.contains("finite")),
        "{:?}",
        clean.warnings
    );
    let at = pmx_first_vertex(&bytes);
    // Sanity: that is where vertex 0's x is.
    let x = f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!(x, clean.positions[0].x);
    bytes[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    // Vertex 0's normal y (position 12 bytes, normal x 4 bytes) → 1e30.
    bytes[at + 16..at + 20].copy_from_slice(&1e30f32.to_le_bytes());
    let m = Model::read(&bytes).expect("still loads");
    let text: Vec<String> = m.warnings.iter().map(|w| w.to_string()).collect();
    let pos = text
        .iter()
        .find(|w| w.contains("vertex positions"))
        .unwrap_or_else(|| panic!("no position warning in {text:?}"));
    assert!(
        pos.contains("1 vertex positions is") && pos.contains("vertex 0"),
        "{pos}"
    );
    assert!(
        text.iter()
            .any(|w| w.contains("vertex normals") && w.contains("vertex 0")),
        "{text:?}"
    );
    assert_eq!(m.positions[0], Vec3::ZERO);
    assert_eq!(m.normals[0], Vec3::Y);
    // The rest of the mesh is untouched.
    assert_eq!(m.positions[1..], clean.positions[1..]);
    pose_all(&m).expect("finite pose");
}

#[test]
fn an_absurd_pmd_vertex_loads_with_a_warning_naming_it() {
    let Some(dir) = corpus() else { return };
    let mut bytes = std::fs::read(dir.join("mmdagent__mei.pmd")).expect("readable");
    // "Pmd", version f32, name 20, comment 256, vertex count u32: vertex 0
    // starts at 287 with its position; vertex 1 starts 38 bytes later.
    let at = 3 + 4 + 20 + 256 + 4 + 38;
    bytes[at + 4..at + 8].copy_from_slice(&f32::INFINITY.to_le_bytes());
    let m = Model::read(&bytes).expect("still loads");
    assert!(
        m.warnings
            .iter()
            .any(|w| w.message.contains("vertex positions") && w.message.contains("vertex 1 ")),
        "{:?}",
        m.warnings
    );
    assert_eq!(m.positions[1], Vec3::ZERO);
    pose_all(&m).expect("finite pose");
}
