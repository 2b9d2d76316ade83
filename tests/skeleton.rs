//! Skeleton layer: PMX/PMD reading (corpus and hand-built bytes), the
//! built-in skeleton, forward kinematics and CCD IK.
//!
//! Golden numbers for corpus models were obtained once, by hand, with a
//! separate throw-away Python reader (`struct.unpack_from` walking the
//! layout of `shared/spec/model-bones.md`; not part of this repository):
//! it printed bone counts, names, parents and IK chains. The tiny
//! `babylonmmd__bone_hierarchy_test.pmx` was also read off `xxd`: its
//! vertex, face, texture and material counts are all 0 and the i32 at
//! offset 0x31 is the bone count, 5.

mod common;
use common::corpus;
use std::f32::consts::{FRAC_PI_2, PI};

use glam::{Mat4, Quat, Vec3};
use vmd_studio::model::{
    Bone, BoneTail, IkChain, IkLink, ModelError, STANDARD_SKELETON_JSON, Skeleton, knee_limits,
    load_model, parse_skeleton_json, standard_skeleton,
};
use vmd_studio::model::{Format, Model, PoseEngine, missing_names, standard_model};
use vmd_studio::vmd::{BoneKey, Motion, NameEncoding, TrackIndex};

// ------------------------------------------- posing through the pose engine

/// A bone's local values, as a motion key gives them.
#[derive(Debug, Clone, Copy)]
struct BonePose {
    translation: Vec3,
    rotation: Quat,
}

impl BonePose {
    const IDENTITY: BonePose = BonePose {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };

    fn new(translation: Vec3, rotation: Quat) -> Self {
        BonePose {
            translation,
            rotation,
        }
    }
}

/// A bare skeleton as a model with no mesh (PMX, as the built-in one).
fn rig(skel: &Skeleton) -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    m.skeleton = skel.clone();
    m
}

/// World matrices and final local rotations.
struct Solved {
    world: Vec<Mat4>,
    rotations: Vec<Quat>,
}

impl Solved {
    fn positions(&self) -> Vec<Vec3> {
        world_positions(&self.world)
    }
}

/// Poses `model` through the program's pose engine with `local` values
/// (missing ones rest) and the IK chains `ik_enabled` leaves on.
fn solve_model(model: &Model, local: &[BonePose], ik_enabled: &dyn Fn(&str) -> bool) -> Solved {
    let mut engine = PoseEngine::new(model);
    engine.pose_input(model, |input| {
        for (i, p) in local.iter().enumerate().take(input.rotations.len()) {
            input.translations[i] = p.translation;
            input.rotations[i] = p.rotation;
        }
        for (c, chain) in model.skeleton.iks.iter().enumerate() {
            input.ik[c] = ik_enabled(&model.skeleton.bones[chain.ik_bone].name);
        }
    });
    Solved {
        world: engine.posed.bone_world.clone(),
        rotations: engine.posed.local_rotations.clone(),
    }
}

fn solve_pose(skel: &Skeleton, local: &[BonePose], ik_enabled: &dyn Fn(&str) -> bool) -> Vec<Mat4> {
    solve_model(&rig(skel), local, ik_enabled).world
}

/// IK off everywhere.
fn forward_kinematics(skel: &Skeleton, local: &[BonePose]) -> Vec<Mat4> {
    solve_pose(skel, local, &|_| false)
}

fn world_positions(world: &[Mat4]) -> Vec<Vec3> {
    world.iter().map(|m| m.w_axis.truncate()).collect()
}

// ---------------------------------------------------------------- helpers

fn corpus_file(name: &str) -> Option<Vec<u8>> {
    let path = corpus()?.join(name);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display())))
}

fn load_corpus(name: &str) -> Option<(Vec<u8>, Skeleton)> {
    let bytes = corpus_file(name)?;
    let skel = load_model(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    Some((bytes, skel))
}

fn idx(skel: &Skeleton, name: &str) -> usize {
    skel.find(name).unwrap_or_else(|| panic!("no bone {name}"))
}

fn name_of(skel: &Skeleton, i: usize) -> &str {
    &skel.bones[i].name
}

fn parent_name<'s>(skel: &'s Skeleton, name: &str) -> Option<&'s str> {
    skel.bones[idx(skel, name)]
        .parent
        .map(|p| skel.bones[p].name.as_str())
}

fn chain<'s>(skel: &'s Skeleton, ik_bone: &str) -> &'s IkChain {
    skel.ik_for(idx(skel, ik_bone))
        .unwrap_or_else(|| panic!("no IK chain for {ik_bone}"))
}

fn link_names(skel: &Skeleton, chain: &IkChain) -> Vec<String> {
    chain
        .links
        .iter()
        .map(|l| name_of(skel, l.bone).to_owned())
        .collect()
}

fn assert_indices_valid(skel: &Skeleton) {
    let n = skel.bones.len();
    for (i, b) in skel.bones.iter().enumerate() {
        assert!(b.parent.is_none_or(|p| p < n && p != i), "bone {i} parent");
        if let Some(BoneTail::Bone(t)) = b.tail {
            assert!(t < n, "bone {i} tail");
        }
        assert!(b.inherit.is_none_or(|h| h.source < n), "bone {i} inherit");
    }
    for ik in &skel.iks {
        assert!(ik.ik_bone < n && ik.target < n);
        assert!(ik.links.iter().all(|l| l.bone < n));
    }
}

fn assert_parents_first(skel: &Skeleton, order: &[usize]) {
    let mut seen = vec![false; skel.bones.len()];
    let mut rank = vec![usize::MAX; skel.bones.len()];
    for (k, &i) in order.iter().enumerate() {
        assert!(!seen[i], "bone {i} twice in order");
        seen[i] = true;
        rank[i] = k;
    }
    assert!(seen.iter().all(|&s| s), "order misses bones");
    for (i, b) in skel.bones.iter().enumerate() {
        if let Some(p) = b.parent {
            assert!(rank[p] < rank[i], "{} before its parent", b.name);
        }
    }
}

/// Deterministic pseudo-random bytes (64-bit LCG, high byte).
fn garbage(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 56) as u8
        })
        .collect()
}

/// Signed rotation of a knee about its local X axis, radians.
fn x_angle(q: Quat) -> f32 {
    let q = if q.w < 0.0 { -q } else { q };
    2.0 * q.x.atan2(q.w)
}

// ---------------------------------------------------------------- PMD

#[test]
fn pmd_mei_bones_and_ik() {
    let Some((_, skel)) = load_corpus("mmdagent__mei.pmd") else {
        return;
    };
    // Python reader: 142 bones, 4 IK chains (8983 vertices, 43911 face
    // indices and 17 materials skipped before them).
    assert_eq!(skel.bones.len(), 142);
    assert_eq!(skel.iks.len(), 4);
    assert_indices_valid(&skel);
    assert_parents_first(&skel, &skel.topological_order());

    assert_eq!(name_of(&skel, 0), "全ての親");
    assert_eq!(skel.bones[0].parent, None);
    assert_eq!(parent_name(&skel, "センター"), Some("全ての親"));
    assert_eq!(parent_name(&skel, "左ひざ"), Some("左足"));
    assert_eq!(parent_name(&skel, "左ひじ"), Some("左腕捩"));
    // Python reader: 左足 at (0.977, 11.583, -0.707) — left is +X.
    let hip = skel.bones[idx(&skel, "左足")].rest_position;
    assert!(
        (hip - Vec3::new(0.977, 11.583, -0.707)).length() < 1e-3,
        "{hip}"
    );

    // IK list in file order: 左足ＩＫ, 左つま先ＩＫ, 右足ＩＫ, 右つま先ＩＫ.
    let names: Vec<&str> = skel.iks.iter().map(|k| name_of(&skel, k.ik_bone)).collect();
    assert_eq!(
        names,
        ["左足ＩＫ", "左つま先ＩＫ", "右足ＩＫ", "右つま先ＩＫ"]
    );
    let leg = chain(&skel, "左足ＩＫ");
    assert_eq!(name_of(&skel, leg.target), "左足首");
    assert_eq!(link_names(&skel, leg), ["左ひざ", "左足"]);
    assert_eq!(leg.loops, 40);
    // stored 0.1, ×4 → 0.4 rad per step
    assert!((leg.limit_angle - 0.4).abs() < 1e-6);
    assert_eq!(leg.links[0].limits, Some(knee_limits()));
    assert_eq!(leg.links[1].limits, None);
    assert!(skel.bones[leg.ik_bone].flags.ik && skel.bones[leg.ik_bone].flags.movable);

    // Type 5 (rotation influenced): 左目 follows 両目 fully.
    let eye = skel.bones[idx(&skel, "左目")]
        .inherit
        .expect("左目 inherits");
    assert_eq!(name_of(&skel, eye.source), "両目");
    assert_eq!(eye.ratio, 1.0);
    // Type 9 (rotation linked): 左腕捩1 follows 左腕捩 at 25 %.
    let twist = skel.bones[idx(&skel, "左腕捩1")]
        .inherit
        .expect("twist inherits");
    assert_eq!(name_of(&skel, twist.source), "左腕捩");
    assert!((twist.ratio - 0.25).abs() < 1e-6);
}

// ---------------------------------------------------------------- PMX

#[test]
fn pmx_bone_hierarchy_test() {
    let Some((_, skel)) = load_corpus("babylonmmd__bone_hierarchy_test.pmx") else {
        return;
    };
    // xxd: bone count 5 at offset 0x31; names and parents read off the dump.
    let names: Vec<&str> = skel.bones.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["root", "bone1", "bone2", "bone3", "新規ボーン1"]);
    let parents: Vec<Option<usize>> = skel.bones.iter().map(|b| b.parent).collect();
    assert_eq!(parents, [None, Some(0), None, Some(0), None]);
    assert_eq!(skel.bones[2].rest_position, Vec3::new(5.0, 10.0, 0.0));
    assert!(skel.iks.is_empty());
}

#[test]
fn pmx_bone_tree_test_model() {
    let Some((_, skel)) = load_corpus("mmdbase__bone_tree_test_model.pmx") else {
        return;
    };
    // Python reader: 221 bones, 32 IK bones.
    assert_eq!(skel.bones.len(), 221);
    assert_eq!(skel.iks.len(), 32);
    assert_indices_valid(&skel);
    assert_parents_first(&skel, &skel.topological_order());
    assert_eq!(name_of(&skel, 0), "全ての親");
    assert_eq!(parent_name(&skel, "センター"), Some("全ての親"));
    assert_eq!(parent_name(&skel, "腰"), Some("グルーブ"));
    assert_eq!(parent_name(&skel, "上半身2"), Some("上半身"));
    let leg = chain(&skel, "左足ＩＫ");
    assert_eq!(name_of(&skel, leg.target), "左足首");
    assert_eq!(link_names(&skel, leg), ["左ひざ", "左足"]);
    assert_eq!(leg.loops, 50);
    assert!((leg.limit_angle - FRAC_PI_2).abs() < 1e-5);
    // Knee: x ∈ [−180°, −1°], y = z = 0 (Python reader).
    let (min, max) = leg.links[0].limits.expect("knee limits");
    assert!((min - Vec3::new(-PI, 0.0, 0.0)).length() < 1e-5);
    assert!((max - Vec3::new(-1f32.to_radians(), 0.0, 0.0)).length() < 1e-5);
}

#[test]
fn pmx_mmt_test_model() {
    let Some((_, skel)) = load_corpus("unitymmdloader__mmt_test_model.pmx") else {
        return;
    };
    // Python reader: 114 bones, 4 IK bones; bone 0 is 操作中心, 1 全ての親.
    assert_eq!(skel.bones.len(), 114);
    assert_eq!(skel.iks.len(), 4);
    assert_indices_valid(&skel);
    assert_eq!(name_of(&skel, 0), "操作中心");
    assert_eq!(name_of(&skel, 1), "全ての親");
    assert_eq!(parent_name(&skel, "左足ＩＫ"), Some("左足IK親"));
    let names: Vec<&str> = skel.iks.iter().map(|k| name_of(&skel, k.ik_bone)).collect();
    assert_eq!(
        names,
        ["右足ＩＫ", "右つま先ＩＫ", "左足ＩＫ", "左つま先ＩＫ"]
    );
    let leg = chain(&skel, "右足ＩＫ");
    assert_eq!(name_of(&skel, leg.target), "右足首");
    assert_eq!(leg.loops, 200);
    let (min, max) = leg.links[0].limits.expect("knee limits");
    assert!((min.x - (-170f32).to_radians()).abs() < 1e-5);
    assert!((max.x - (-0.5f32).to_radians()).abs() < 1e-5);
    assert!(skel.bones[idx(&skel, "左足")].rest_position.x > 0.0);
}

fn text(b: &mut Vec<u8>, s: &str) {
    b.extend((s.len() as i32).to_le_bytes());
    b.extend(s.as_bytes());
}

/// A hand-built UTF-8 PMX up to (not including) the bone count: no
/// vertices, faces, textures or materials.
fn pmx_header(bone_index_size: u8) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(b"PMX "); // signature
    b.extend(2.0f32.to_le_bytes()); // version
    b.push(8); // globals count
    b.extend([1, 0, 1, 1, 1, bone_index_size, 1, 1]); // UTF-8, 0 vec4, index sizes
    for s in ["tiny", "tiny", "", ""] {
        text(&mut b, s); // names and comments
    }
    b.extend(0i32.to_le_bytes()); // vertices
    b.extend(0i32.to_le_bytes()); // face indices
    b.extend(0i32.to_le_bytes()); // textures
    b.extend(0i32.to_le_bytes()); // materials
    b
}

/// [`pmx_header`] plus two bones, the child listed first.
fn tiny_pmx(bone_index_size: u8) -> Vec<u8> {
    let mut b = pmx_header(bone_index_size);
    b.extend(2i32.to_le_bytes()); // bones
    // bone 0 "子": child of bone 1, tail offset
    text(&mut b, "子");
    text(&mut b, "child");
    for v in [0.0f32, 2.0, 0.0] {
        b.extend(v.to_le_bytes()); // position
    }
    b.push(1); // parent index (i8) = bone 1
    b.extend(0i32.to_le_bytes()); // layer
    b.extend(0x001Au16.to_le_bytes()); // rotatable | visible | operable
    for v in [0.0f32, 1.0, 0.0] {
        b.extend(v.to_le_bytes()); // tail offset
    }
    // bone 1 "親": root, tail = bone 0
    text(&mut b, "親");
    text(&mut b, "parent");
    b.extend([0u8; 12]); // position (0,0,0)
    b.push(0xFF); // parent index −1
    b.extend(0i32.to_le_bytes()); // layer
    b.extend(0x001Fu16.to_le_bytes()); // tail is bone | rotatable | movable | visible | operable
    b.push(0); // tail bone index
    b
}

#[test]
fn pmx_hand_built_child_before_parent() {
    let skel = load_model(&tiny_pmx(1)).expect("tiny PMX reads");
    assert_eq!(skel.bones.len(), 2);
    assert_eq!(skel.bones[0].name, "子");
    assert_eq!(skel.bones[0].parent, Some(1));
    assert_eq!(skel.bones[0].tail, Some(BoneTail::Offset(Vec3::Y)));
    assert_eq!(skel.bones[1].tail, Some(BoneTail::Bone(0)));
    assert!(skel.bones[1].flags.movable && !skel.bones[0].flags.movable);
    assert_eq!(skel.topological_order(), [1, 0]);
    assert_eq!(skel.children(), [vec![], vec![0]]);
    assert_eq!(skel.children_of(1), [0]);
}

#[test]
fn pmx_bad_index_size_names_offset() {
    let err = load_model(&tiny_pmx(3)).expect_err("index size 3 is invalid");
    // globals start at 4 + 4 + 1 = 9; bone index size is globals[5] → 14
    assert_eq!(
        err.to_string(),
        "invalid data at offset 0xe (14): bone index size 3 (expected 1, 2 or 4)"
    );
}

#[test]
fn huge_counts_are_refused_before_allocating() {
    let mut pmd = b"Pmd".to_vec();
    pmd.extend(1.0f32.to_le_bytes());
    pmd.extend([0u8; 20 + 256]);
    pmd.extend(u32::MAX.to_le_bytes()); // vertex count
    let err = load_model(&pmd).expect_err("4 G vertices in 287 bytes");
    // The records would start right after the count, at 3 + 4 + 20 + 256 + 4.
    let msg = err.to_string();
    assert!(
        matches!(err, ModelError::Truncated { offset: 287, .. }),
        "{msg}"
    );
    assert!(
        msg.contains("offset 0x11f (287)") && msg.contains("vertex"),
        "{msg}"
    );

    let mut pmx = pmx_header(1);
    pmx.extend(i32::MAX.to_le_bytes()); // bone count
    let err = load_model(&pmx).expect_err("2 G bones");
    assert!(err.to_string().contains("bone"), "{err}");
}

// ---------------------------------------------------------------- robustness

#[test]
fn truncated_models_fail_cleanly() {
    let Some(dir) = corpus() else {
        return;
    };
    for name in [
        "mmdagent__mei.pmd",
        "babylonmmd__bone_hierarchy_test.pmx",
        "mmdbase__bone_tree_test_model.pmx",
        "unitymmdloader__mmt_test_model.pmx",
    ] {
        let bytes = std::fs::read(dir.join(name)).expect("corpus file");
        let full = load_model(&bytes).expect("full file reads");
        let mut errors = 0;
        let mut seen_ok = false;
        for cut in (0..bytes.len()).step_by(97) {
            // Reading stops after the bones (and PMD IK), so a cut past that
            // point still reads; before it, every cut must be an error.
            match load_model(&bytes[..cut]) {
                Err(e) => {
                    assert!(!seen_ok, "{name}: cut {cut} fails after a shorter cut read");
                    assert!(e.to_string().contains("offset") || cut < 4, "{name}: {e}");
                    errors += 1;
                }
                Ok(skel) => {
                    seen_ok = true;
                    assert_eq!(skel, full, "{name}: cut {cut} reads differently");
                }
            }
        }
        assert!(errors > 0, "{name}: no cut failed");
    }
}

#[test]
fn garbage_is_an_error() {
    let err = load_model(b"Vocaloid Motion Data 0002").expect_err("a VMD is not a model");
    assert_eq!(
        err.to_string(),
        "not a PMX or PMD model (starts with 56 6F 63 61 6C 6F 69 64 \"Vocaloid\")"
    );
    assert!(load_model(&[]).is_err());
    for seed in 0..200u64 {
        let noise = garbage(seed, 1 + (seed as usize * 37) % 3000);
        assert!(load_model(&noise).is_err() || noise.starts_with(b"Pmd"));
        // Valid signatures followed by noise must not panic either.
        let mut pmx = b"PMX ".to_vec();
        pmx.extend(2.0f32.to_le_bytes());
        pmx.extend(&noise);
        let _ = load_model(&pmx);
        let mut pmd = b"Pmd".to_vec();
        pmd.extend(&noise);
        let _ = load_model(&pmd);
    }
}

// ---------------------------------------------------------------- FK

fn two_bone_chain() -> Skeleton {
    Skeleton {
        bones: vec![
            Bone::new("A", None, Vec3::new(2.0, 0.0, 0.0)),
            Bone::new("B", Some(0), Vec3::new(2.0, 1.0, 0.0)),
        ],
        iks: vec![],
    }
}

#[test]
fn fk_two_bone_chain_by_hand() {
    let skel = two_bone_chain();
    // Rest pose: world positions are the rest positions.
    let rest = world_positions(&forward_kinematics(&skel, &[]));
    assert_eq!(rest, [Vec3::new(2.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 0.0)]);

    // A rotated +90° about Z: B's offset (0,1,0) becomes
    // (0·cos90 − 1·sin90, 0·sin90 + 1·cos90, 0) = (−1, 0, 0), so B is at
    // A + (−1,0,0) = (1,0,0). B's own translation (0,0,0.5) is in A's
    // rotated frame; Z is unchanged by a Z rotation → B at (1, 0, 0.5).
    let pose = [
        BonePose::new(Vec3::ZERO, Quat::from_rotation_z(FRAC_PI_2)),
        BonePose::new(Vec3::new(0.0, 0.0, 0.5), Quat::IDENTITY),
    ];
    let world = forward_kinematics(&skel, &pose);
    let p = world_positions(&world);
    assert!(
        (p[0] - Vec3::new(2.0, 0.0, 0.0)).length() < 1e-6,
        "{}",
        p[0]
    );
    assert!(
        (p[1] - Vec3::new(1.0, 0.0, 0.5)).length() < 1e-6,
        "{}",
        p[1]
    );
    // Translating A moves both.
    let pose = [BonePose::new(Vec3::new(0.0, 0.0, -3.0), Quat::IDENTITY)];
    let p = world_positions(&forward_kinematics(&skel, &pose));
    assert!((p[1] - Vec3::new(2.0, 1.0, -3.0)).length() < 1e-6);
}

#[test]
fn fk_inherit_rotation_half() {
    // C copies half of A's rotation: A turns 90° about Z, C (a root with a
    // child D one unit up) turns 45°.
    let mut skel = two_bone_chain();
    let mut c = Bone::new("C", None, Vec3::ZERO);
    c.inherit = Some(vmd_studio::model::Inherit {
        source: 0,
        ratio: 0.5,
        rotation: true,
        translation: false,
        local: false,
    });
    skel.bones.push(c);
    skel.bones.push(Bone::new("D", Some(2), Vec3::Y));
    let pose = [BonePose::new(Vec3::ZERO, Quat::from_rotation_z(FRAC_PI_2))];
    let p = world_positions(&forward_kinematics(&skel, &pose));
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert!((p[3] - Vec3::new(-h, h, 0.0)).length() < 1e-5, "{}", p[3]);
}

#[test]
fn topological_order_survives_cycles() {
    let mut skel = Skeleton::default();
    // 0 → parent 2, 1 → parent 0, 2 → parent 1: a cycle; 3 child of 1.
    for (name, parent) in [("a", 2), ("b", 0), ("c", 1), ("d", 1)] {
        skel.bones.push(Bone::new(name, Some(parent), Vec3::ZERO));
    }
    let order = skel.topological_order();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(sorted, [0, 1, 2, 3]);
    // FK does not loop forever either.
    assert_eq!(forward_kinematics(&skel, &[]).len(), 4);
}

// ---------------------------------------------------------------- IK

/// Solves with 左足ＩＫ moved by `offset` and checks reach and knee.
/// Returns (hip, knee, ankle, goal) world positions.
fn solve_left_leg(skel: &Skeleton, offset: Vec3) -> (Vec3, Vec3, Vec3, Vec3, f32) {
    solve_left_leg_of(&rig(skel), offset)
}

fn solve_left_leg_of(model: &Model, offset: Vec3) -> (Vec3, Vec3, Vec3, Vec3, f32) {
    let skel = &model.skeleton;
    let mut pose = vec![BonePose::IDENTITY; skel.bones.len()];
    let ik = idx(skel, "左足ＩＫ");
    pose[ik].translation = offset;
    let result = solve_model(model, &pose, &|_| true);
    let p = result.positions();
    let knee = idx(skel, "左ひざ");
    let angle = x_angle(result.rotations[knee]);
    (
        p[idx(skel, "左足")],
        p[knee],
        p[idx(skel, "左足首")],
        p[ik],
        angle,
    )
}

/// Z of the hip–ankle line at the knee's closest point.
fn line_z_at(hip: Vec3, ankle: Vec3, knee: Vec3) -> f32 {
    let d = ankle - hip;
    let t = (knee - hip).dot(d) / d.length_squared();
    (hip + d * t).z
}

#[test]
fn ik_leg_reaches_up_and_forward_and_knee_goes_forward() {
    let skel = standard_skeleton();
    // Up 3 and forward 2 (−Z, where the character faces): reachable (hip to
    // goal ≈ 6.35 < thigh 4.41 + shin 4.74).
    let (hip, knee, ankle, goal, angle) = solve_left_leg(&skel, Vec3::new(0.0, 3.0, -2.0));
    assert!(ankle.distance(goal) < 1e-2, "ankle {ankle} goal {goal}");
    let line_z = line_z_at(hip, ankle, knee);
    assert!(
        knee.z < line_z - 1.0,
        "knee {knee} not forward of line z {line_z}"
    );
    // Knee bent within its limits: x ∈ [−π, −0.5°].
    assert!(
        (-PI..=-0.5f32.to_radians() + 1e-6).contains(&angle),
        "knee angle {angle}"
    );
}

#[test]
fn ik_knee_never_bends_backwards() {
    let skel = standard_skeleton();
    // Targets up-and-back, sideways, straight up and out of reach below: the
    // knee stays forward of the hip–ankle line and within its limits.
    for offset in [
        Vec3::new(0.0, 3.0, 2.0),
        Vec3::new(0.0, 2.0, 3.5),
        Vec3::new(1.5, 2.0, 0.0),
        Vec3::new(0.0, 4.0, 0.0),
        Vec3::new(0.0, -5.0, 0.0),
        Vec3::new(0.0, 0.5, -6.0),
    ] {
        let (hip, knee, ankle, goal, angle) = solve_left_leg(&skel, offset);
        assert!(
            (-PI..=-0.5f32.to_radians() + 1e-6).contains(&angle),
            "offset {offset}: knee angle {angle}"
        );
        assert!(
            knee.z <= line_z_at(hip, ankle, knee) + 1e-3,
            "offset {offset}: knee {knee} behind the hip–ankle line"
        );
        // Reachable targets are reached.
        let reach = 4.41 + 4.74 - 0.1;
        if hip.distance(goal) < reach && offset.y >= 0.0 {
            assert!(
                ankle.distance(goal) < 1e-2,
                "offset {offset}: {ankle} vs {goal}"
            );
        }
    }
}

#[test]
fn ik_can_be_switched_off() {
    let skel = standard_skeleton();
    let mut pose = vec![BonePose::IDENTITY; skel.bones.len()];
    pose[idx(&skel, "左足ＩＫ")].translation = Vec3::new(0.0, 3.0, -2.0);
    let off = solve_pose(&skel, &pose, &|name| name != "左足ＩＫ");
    let ankle = off[idx(&skel, "左足首")].w_axis.truncate();
    assert!(ankle.distance(skel.bones[idx(&skel, "左足首")].rest_position) < 1e-5);
    // Right leg untouched either way.
    let on = solve_pose(&skel, &pose, &|_| true);
    let r = idx(&skel, "右足首");
    assert!(
        on[r]
            .w_axis
            .truncate()
            .distance(skel.bones[r].rest_position)
            < 1e-3
    );
}

#[test]
fn ik_free_chain_reaches_target() {
    // Three unconstrained links in a line along +Y; IK bone at the root
    // level, pulled to a reachable point.
    let mut skel = Skeleton::default();
    skel.bones.push(Bone::new("root", None, Vec3::ZERO));
    skel.bones.push(Bone::new("l1", Some(0), Vec3::Y));
    skel.bones
        .push(Bone::new("l2", Some(1), Vec3::new(0.0, 2.0, 0.0)));
    skel.bones
        .push(Bone::new("tip", Some(2), Vec3::new(0.0, 3.0, 0.0)));
    skel.bones
        .push(Bone::new("ik", None, Vec3::new(0.0, 3.0, 0.0)));
    skel.iks.push(IkChain {
        ik_bone: 4,
        target: 3,
        loops: 50,
        limit_angle: 1.0,
        links: vec![
            IkLink {
                bone: 2,
                limits: None,
            },
            IkLink {
                bone: 1,
                limits: None,
            },
            IkLink {
                bone: 0,
                limits: None,
            },
        ],
    });
    let mut pose = vec![BonePose::IDENTITY; 5];
    pose[4].translation = Vec3::new(1.5, -1.0, -0.5);
    let world = solve_pose(&skel, &pose, &|_| true);
    let p = world_positions(&world);
    assert!(p[3].distance(p[4]) < 1e-2, "tip {} goal {}", p[3], p[4]);
    // Bone lengths are kept.
    assert!((p[1].distance(p[2]) - 1.0).abs() < 1e-4);
}

#[test]
fn ik_on_mei_reaches_target() {
    let Some((bytes, _)) = load_corpus("mmdagent__mei.pmd") else {
        return;
    };
    let model = Model::read(&bytes).expect("Mei reads");
    let (hip, knee, ankle, goal, angle) = solve_left_leg_of(&model, Vec3::new(0.0, 3.0, -2.0));
    assert!(ankle.distance(goal) < 1e-2, "ankle {ankle} goal {goal}");
    assert!(knee.z < line_z_at(hip, ankle, knee), "knee {knee}");
    assert!(angle <= -0.5f32.to_radians() + 1e-6, "knee angle {angle}");
}

// ---------------------------------------------------------------- built-in

#[test]
fn builtin_skeleton_is_complete() {
    assert!(parse_skeleton_json(STANDARD_SKELETON_JSON).is_ok());
    let skel = standard_skeleton();
    assert_indices_valid(&skel);
    assert_parents_first(&skel, &skel.topological_order());
    let mut names = vec![
        "全ての親",
        "センター",
        "グルーブ",
        "腰",
        "上半身",
        "上半身2",
        "首",
        "頭",
        "両目",
        "左目",
        "右目",
        "下半身",
    ]
    .into_iter()
    .map(String::from)
    .collect::<Vec<_>>();
    for side in ["左", "右"] {
        for part in [
            "肩",
            "腕",
            "腕捩",
            "ひじ",
            "手捩",
            "手首",
            "親指０",
            "親指１",
            "親指２",
            "人指１",
            "人指２",
            "人指３",
            "中指１",
            "中指２",
            "中指３",
            "薬指１",
            "薬指２",
            "薬指３",
            "小指１",
            "小指２",
            "小指３",
            "足",
            "ひざ",
            "足首",
            "つま先",
            "足ＩＫ",
            "つま先ＩＫ",
        ] {
            names.push(format!("{side}{part}"));
        }
    }
    for name in &names {
        assert!(skel.find(name).is_some(), "missing {name}");
    }
    assert_eq!(skel.bones.len(), names.len(), "no unlisted bones");
    for (i, b) in skel.bones.iter().enumerate() {
        if b.name.starts_with('左') {
            assert!(b.rest_position.x > 0.0, "{} at {}", b.name, b.rest_position);
            let mirror = b.name.replacen('左', "右", 1);
            let m = skel.bones[idx(&skel, &mirror)].rest_position;
            assert!((m - b.rest_position * Vec3::new(-1.0, 1.0, 1.0)).length() < 1e-6);
        }
        if b.name.starts_with('右') {
            assert!(b.rest_position.x < 0.0, "{}", b.name);
        }
        assert!(b.parent.is_some() || i == 0, "{} is a second root", b.name);
    }
    // About 20 units tall.
    let top = skel
        .bones
        .iter()
        .map(|b| b.rest_position.y)
        .fold(0.0, f32::max);
    assert!((15.0..22.0).contains(&top));

    for side in ["左", "右"] {
        let leg = chain(&skel, &format!("{side}足ＩＫ"));
        assert_eq!(name_of(&skel, leg.target), format!("{side}足首"));
        assert_eq!(
            link_names(&skel, leg),
            [format!("{side}ひざ"), format!("{side}足")]
        );
        assert_eq!((leg.loops, leg.limit_angle), (40, 2.0));
        let (min, max) = leg.links[0].limits.expect("knee limits");
        assert!((min - knee_limits().0).length() < 1e-6);
        assert!((max - knee_limits().1).length() < 1e-6);
        let toe = chain(&skel, &format!("{side}つま先ＩＫ"));
        assert_eq!(name_of(&skel, toe.target), format!("{side}つま先"));
        assert_eq!(link_names(&skel, toe), [format!("{side}足首")]);
        assert_eq!((toe.loops, toe.limit_angle), (3, 4.0));
    }
    assert_eq!(parent_name(&skel, "左ひじ"), Some("左腕捩"));
    assert_eq!(parent_name(&skel, "左人指１"), Some("左手首"));
}

#[test]
fn missing_bones_are_listed_once_in_motion_order() {
    let mut m = Motion::new_v2();
    for (f, name) in ["センター", "謎", "左足", "謎", "右髪1"].iter().enumerate() {
        let key = BoneKey::new(
            name,
            NameEncoding::ShiftJis,
            f as u32,
            [0.0; 3],
            [0.0, 0.0, 0.0, 1.0],
        );
        m.bones.push(key.expect("encodes"));
    }
    let missing = missing_names(&standard_model(), &TrackIndex::build(&m));
    assert_eq!(missing.bones, ["謎", "右髪1"]);
    assert!(missing.morphs.is_empty());
}

#[test]
fn knee_sign_check_discriminates() {
    // The same skeleton with the knee range mirrored to [+0.5°, +π] bends
    // the knee backwards: this is what the forward-knee assertions above
    // would catch if the sign convention were wrong.
    let mirrored = STANDARD_SKELETON_JSON
        .replace(
            "\"min\": [-3.1415927, 0.0, 0.0]",
            "\"min\": [0.0087266, 0.0, 0.0]",
        )
        .replace(
            "\"max\": [-0.0087266, 0.0, 0.0]",
            "\"max\": [3.1415927, 0.0, 0.0]",
        );
    assert_ne!(mirrored, STANDARD_SKELETON_JSON);
    let skel = parse_skeleton_json(&mirrored).expect("mirrored JSON parses");
    let (hip, knee, ankle, _, angle) = solve_left_leg(&skel, Vec3::new(0.0, 3.0, -2.0));
    assert!(angle > 0.0);
    assert!(knee.z > line_z_at(hip, ankle, knee) + 1.0, "knee {knee}");
}
