//! MMD pose rules and skinning on hand-computed cases, each small enough to
//! check on paper (the expected numbers are worked out in the comments),
//! plus the corpus: Mei posed by her motions.

mod common;
use common::corpus;

use std::f32::consts::{FRAC_1_SQRT_2, FRAC_PI_2, FRAC_PI_4, FRAC_PI_6, PI};

use glam::{Quat, Vec3, Vec4};
use vmd_studio::model::{
    Bone, Deform, Format, IkChain, IkLink, Inherit, Material, MaterialOffset, MaterialOp, Model,
    Morph, MorphKind, MorphRef, MotionBinding, PoseEngine, Posed, Poser, VertexOffset, knee_limits,
    standard_model,
};
use vmd_studio::vmd::IndexedMotion;

fn close(a: Vec3, b: Vec3, tol: f32) -> bool {
    a.distance(b) < tol
}

fn assert_close(a: Vec3, b: Vec3, what: &str) {
    assert!(close(a, b, 1e-4), "{what}: got {a}, expected {b}");
}

/// A model with the given bones and one vertex per `(position, deform)`.
fn model(bones: Vec<Bone>, vertices: &[(Vec3, Deform)]) -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    m.skeleton.bones = bones;
    for &(p, d) in vertices {
        m.positions.push(p);
        m.normals.push(Vec3::Y);
        m.uvs.push(glam::Vec2::ZERO);
        m.deforms.push(d);
        m.edge_scale.push(1.0);
    }
    m
}

fn pose(m: &Model, set: impl FnOnce(&mut vmd_studio::model::PoseInput)) -> Posed {
    let mut poser = Poser::new(m);
    set(poser.input_mut());
    let mut out = Posed::default();
    poser.evaluate(m, &mut out);
    out
}

fn appending(name: &str, parent: Option<usize>, at: Vec3, source: usize, ratio: f32) -> Bone {
    let mut b = Bone::new(name, parent, at);
    b.inherit = Some(Inherit {
        source,
        ratio,
        rotation: true,
        translation: true,
        local: false,
    });
    b
}

// ------------------------------------------------------------- append

/// A (root, origin) is driven; B (root, origin) appends from A with
/// `ratio`; C sits one unit above B.
fn append_model(ratio: f32) -> Model {
    model(
        vec![
            Bone::new("A", None, Vec3::ZERO),
            appending("B", None, Vec3::ZERO, 0, ratio),
            Bone::new("C", Some(1), Vec3::Y),
        ],
        &[],
    )
}

#[test]
fn append_half_and_minus_one() {
    // A turns 90° about Z. Ratio 0.5 → B turns 45°: C = (−sin45, cos45, 0).
    let out = pose(&append_model(0.5), |i| {
        i.rotations[0] = Quat::from_rotation_z(FRAC_PI_2)
    });
    assert_close(
        out.bone_position(2).unwrap(),
        Vec3::new(-FRAC_1_SQRT_2, FRAC_1_SQRT_2, 0.0),
        "ratio 0.5",
    );
    // Ratio −1 → B turns −90°: (0, 1) → (1, 0).
    let out = pose(&append_model(-1.0), |i| {
        i.rotations[0] = Quat::from_rotation_z(FRAC_PI_2)
    });
    assert_close(
        out.bone_position(2).unwrap(),
        Vec3::new(1.0, 0.0, 0.0),
        "ratio -1",
    );
    // Translation: A moves (2, 0, 0); ratio 0.5 → B moves (1, 0, 0), C at (1, 1, 0);
    // ratio −1 → C at (−2, 1, 0).
    let out = pose(&append_model(0.5), |i| {
        i.translations[0] = Vec3::new(2.0, 0.0, 0.0)
    });
    assert_close(
        out.bone_position(2).unwrap(),
        Vec3::new(1.0, 1.0, 0.0),
        "move 0.5",
    );
    let out = pose(&append_model(-1.0), |i| {
        i.translations[0] = Vec3::new(2.0, 0.0, 0.0)
    });
    assert_close(
        out.bone_position(2).unwrap(),
        Vec3::new(-2.0, 1.0, 0.0),
        "move -1",
    );
}

#[test]
fn append_of_an_append() {
    // D appends B (ratio 1), which appends A (ratio 0.5); D also turns by
    // its own 30°. A at 90° → B 45° → D 45° + 30° = 75°; E one unit above D:
    // (−sin75, cos75, 0).
    let mut m = append_model(0.5);
    m.skeleton
        .bones
        .push(appending("D", None, Vec3::ZERO, 1, 1.0));
    m.skeleton.bones.push(Bone::new("E", Some(3), Vec3::Y));
    let out = pose(&m, |i| {
        i.rotations[0] = Quat::from_rotation_z(FRAC_PI_2);
        i.rotations[3] = Quat::from_rotation_z(FRAC_PI_6);
    });
    let a = 75f32.to_radians();
    assert_close(
        out.bone_position(4).unwrap(),
        Vec3::new(-a.sin(), a.cos(), 0.0),
        "chained append",
    );
    // Order in the file does not matter: a source listed after its user.
    let mut m = model(
        vec![
            appending("B", None, Vec3::ZERO, 2, 0.5),
            Bone::new("C", Some(0), Vec3::Y),
            Bone::new("A", None, Vec3::ZERO),
        ],
        &[],
    );
    m.skeleton.bones[0].inherit.as_mut().unwrap().translation = false;
    let out = pose(&m, |i| i.rotations[2] = Quat::from_rotation_z(FRAC_PI_2));
    assert_close(
        out.bone_position(1).unwrap(),
        Vec3::new(-FRAC_1_SQRT_2, FRAC_1_SQRT_2, 0.0),
        "source after user",
    );
}

#[test]
fn local_append_copies_the_world_rotation() {
    // A turns 30°, its child A2 60° more: A2's world rotation is 90°. B
    // local-appends A2 (ratio 1): B turns 90°, C above B lands at (−1, 0, 0).
    // A plain append would copy only A2's own 60°.
    let mut bones = vec![
        Bone::new("A", None, Vec3::ZERO),
        Bone::new("A2", Some(0), Vec3::ZERO),
        appending("B", None, Vec3::ZERO, 1, 1.0),
        Bone::new("C", Some(2), Vec3::Y),
    ];
    bones[2].inherit.as_mut().unwrap().local = true;
    bones[2].inherit.as_mut().unwrap().translation = false;
    let m = model(bones, &[]);
    let out = pose(&m, |i| {
        i.rotations[0] = Quat::from_rotation_z(FRAC_PI_6);
        i.rotations[1] = Quat::from_rotation_z(2.0 * FRAC_PI_6);
    });
    assert_close(
        out.bone_position(3).unwrap(),
        Vec3::new(-1.0, 0.0, 0.0),
        "local append",
    );
}

// ------------------------------------------------------------- deform order

#[test]
fn deform_order_follows_layers_and_after_physics() {
    // C (index 0) is a child of P (index 1), one unit above it. P turns 90°.
    // Same layer: C is posed after its parent → (−1, 0, 0).
    let bones = vec![
        Bone::new("C", Some(1), Vec3::Y),
        Bone::new("P", None, Vec3::ZERO),
    ];
    let turn =
        |i: &mut vmd_studio::model::PoseInput| i.rotations[1] = Quat::from_rotation_z(FRAC_PI_2);
    let out = pose(&model(bones.clone(), &[]), turn);
    assert_close(
        out.bone_position(0).unwrap(),
        Vec3::new(-1.0, 0.0, 0.0),
        "same layer",
    );
    // P in a higher layer: C is posed first, against P at rest → (0, 1, 0).
    let mut layered = bones.clone();
    layered[1].layer = 1;
    let out = pose(&model(layered, &[]), turn);
    assert_close(out.bone_position(0).unwrap(), Vec3::Y, "P in layer 1");
    // P after physics: the same.
    let mut late = bones;
    late[1].flags.after_physics = true;
    let out = pose(&model(late, &[]), turn);
    assert_close(out.bone_position(0).unwrap(), Vec3::Y, "P after physics");
}

// ------------------------------------------------------------- IK

/// Hip at (0, 10, 0), knee (0, 5, 0), ankle at the origin, and an IK bone at
/// the ankle driving [knee (knee limits), hip].
fn leg() -> Model {
    let mut m = model(
        vec![
            Bone::new("左足", None, Vec3::new(0.0, 10.0, 0.0)),
            Bone::new("左ひざ", Some(0), Vec3::new(0.0, 5.0, 0.0)),
            Bone::new("左足首", Some(1), Vec3::ZERO),
            Bone::new("左足ＩＫ", None, Vec3::ZERO),
        ],
        &[],
    );
    m.skeleton.bones[3].flags.ik = true;
    m.skeleton.iks.push(IkChain {
        ik_bone: 3,
        target: 2,
        loops: 40,
        limit_angle: 2.0,
        links: vec![
            IkLink {
                bone: 1,
                limits: Some(knee_limits()),
            },
            IkLink {
                bone: 0,
                limits: None,
            },
        ],
    });
    m
}

fn knee_x_angle(q: Quat) -> f32 {
    let q = if q.w < 0.0 { -q } else { q };
    2.0 * q.x.atan2(q.w)
}

#[test]
fn two_link_ik_reaches_and_the_knee_bends_forward() {
    // Goal 3 up and 2 forward (−Z): hip-to-goal = √(7² + 2²) ≈ 7.28 < 10.
    let m = leg();
    let out = pose(&m, |i| i.translations[3] = Vec3::new(0.0, 3.0, -2.0));
    let (hip, knee, ankle) = (
        out.bone_position(0).unwrap(),
        out.bone_position(1).unwrap(),
        out.bone_position(2).unwrap(),
    );
    assert!(
        close(ankle, Vec3::new(0.0, 3.0, -2.0), 1e-2),
        "ankle {ankle}"
    );
    // Bone lengths are kept.
    assert!((hip.distance(knee) - 5.0).abs() < 1e-3);
    assert!((knee.distance(ankle) - 5.0).abs() < 1e-3);
    // The knee is in front (−Z) of the hip–ankle line, bent about X only.
    let d = ankle - hip;
    let t = (knee - hip).dot(d) / d.length_squared();
    assert!(knee.z < (hip + d * t).z - 0.5, "knee {knee}");
    let q = out.local_rotations[1];
    assert!(
        q.y.abs() < 1e-4 && q.z.abs() < 1e-4,
        "knee turns about X only: {q}"
    );
    let a = knee_x_angle(q);
    assert!(
        (-PI..=-0.5f32.to_radians() + 1e-5).contains(&a),
        "knee angle {a}"
    );
}

#[test]
fn the_knee_never_bends_backwards() {
    // Goals behind (+Z) and below the reach: the knee angle stays within
    // [−180°, −0.5°] and the knee never goes behind the hip–ankle line.
    let m = leg();
    for goal in [
        Vec3::new(0.0, 2.0, 3.0),
        Vec3::new(0.0, 5.0, 4.0),
        Vec3::new(0.0, -3.0, 0.1),
        Vec3::new(1.0, 4.0, 1.0),
    ] {
        let out = pose(&m, |i| i.translations[3] = goal);
        let a = knee_x_angle(out.local_rotations[1]);
        assert!(
            (-PI - 1e-4..=-0.5f32.to_radians() + 1e-5).contains(&a),
            "goal {goal}: knee angle {a}"
        );
        let (hip, knee, ankle) = (
            out.bone_position(0).unwrap(),
            out.bone_position(1).unwrap(),
            out.bone_position(2).unwrap(),
        );
        let d = ankle - hip;
        let t = (knee - hip).dot(d) / d.length_squared();
        let line = hip + d * t;
        // In the hip's frame the knee is on the forward side.
        let hip_rot = out.bone_rotation(0).unwrap();
        let forward = hip_rot * Vec3::NEG_Z;
        assert!(
            (knee - line).dot(forward) > -1e-3,
            "goal {goal}: knee {knee} behind"
        );
    }
}

#[test]
fn a_straight_leg_with_the_goal_on_its_line_stays_straight() {
    // MMD's CCD turns a link about the cross product of its two directions;
    // with the goal straight below a straight leg both are parallel for every
    // link, so nothing turns (and the knee's limits are never applied).
    let m = leg();
    let out = pose(&m, |i| i.translations[3] = Vec3::new(0.0, -3.0, 0.0));
    assert_close(out.bone_position(2).unwrap(), Vec3::ZERO, "ankle stays");
    assert!(out.local_rotations[1].angle_between(Quat::IDENTITY) < 1e-6);
}

#[test]
fn ik_switched_off_leaves_the_leg_alone() {
    let m = leg();
    let out = pose(&m, |i| {
        i.translations[3] = Vec3::new(0.0, 3.0, -2.0);
        i.ik[0] = false;
    });
    assert_close(out.bone_position(2).unwrap(), Vec3::ZERO, "ankle stays");
    assert!(!out.ik_enabled[0]);
}

#[test]
fn a_link_limit_clamps_the_turn() {
    // One link at the origin, effector one unit along +X. The goal (0, 0, −1)
    // needs +90° about Y (glam turns +X towards −Z for positive Y angles),
    // but the link may turn only 0..30° about Y: it stops at 30°, the
    // effector at (cos 30°, 0, −sin 30°).
    let mut m = model(
        vec![
            Bone::new("link", None, Vec3::ZERO),
            Bone::new("tip", Some(0), Vec3::X),
            Bone::new("goal", None, Vec3::X),
        ],
        &[],
    );
    m.skeleton.iks.push(IkChain {
        ik_bone: 2,
        target: 1,
        loops: 20,
        limit_angle: 1.0,
        links: vec![IkLink {
            bone: 0,
            limits: Some((Vec3::ZERO, Vec3::new(0.0, FRAC_PI_6, 0.0))),
        }],
    });
    let out = pose(&m, |i| i.translations[2] = Vec3::new(-1.0, 0.0, -1.0));
    let (s, c) = FRAC_PI_6.sin_cos();
    assert_close(
        out.bone_position(1).unwrap(),
        Vec3::new(c, 0.0, -s),
        "clamped at 30°",
    );
    // Without the limit it reaches.
    m.skeleton.iks[0].links[0].limits = None;
    let out = pose(&m, |i| i.translations[2] = Vec3::new(-1.0, 0.0, -1.0));
    assert!(close(
        out.bone_position(1).unwrap(),
        Vec3::new(0.0, 0.0, -1.0),
        1e-3
    ));
}

// ------------------------------------------------------------- skinning

/// b0 at the origin, b1 one unit up (child of b0); one vertex at (1, 1, 0)
/// with `deform`.
fn two_bones(deform: Deform) -> Model {
    model(
        vec![
            Bone::new("b0", None, Vec3::ZERO),
            Bone::new("b1", Some(0), Vec3::Y),
        ],
        &[(Vec3::new(1.0, 1.0, 0.0), deform)],
    )
}

const SDEF: Deform = Deform::Sdef {
    bones: [0, 1],
    weight: 0.5,
    c: Vec3::new(0.0, 1.0, 0.0),
    r0: Vec3::new(0.0, 0.5, 0.0),
    r1: Vec3::new(0.0, 1.5, 0.0),
};
const BDEF2: Deform = Deform::Bdef2 {
    bones: [0, 1],
    weight: 0.5,
};

#[test]
fn sdef_agrees_with_bdef2_when_the_bones_move_together() {
    // b0 turns 90° about Z, b1 follows rigidly: both skinning matrices are
    // the same rotation, so both deforms give R90·(1, 1, 0) = (−1, 1, 0).
    let turn =
        |i: &mut vmd_studio::model::PoseInput| i.rotations[0] = Quat::from_rotation_z(FRAC_PI_2);
    let s = pose(&two_bones(SDEF), turn);
    let b = pose(&two_bones(BDEF2), turn);
    assert_close(b.positions[0], Vec3::new(-1.0, 1.0, 0.0), "BDEF2");
    assert_close(s.positions[0], Vec3::new(-1.0, 1.0, 0.0), "SDEF");
    // A pure translation too.
    let shift = |i: &mut vmd_studio::model::PoseInput| i.translations[0] = Vec3::new(0.0, 0.0, 3.0);
    assert_close(
        pose(&two_bones(SDEF), shift).positions[0],
        Vec3::new(1.0, 1.0, 3.0),
        "SDEF moved",
    );
}

#[test]
fn sdef_differs_from_bdef2_when_the_bones_turn_apart() {
    // b1 alone turns 90° about Z (about its head (0, 1, 0)).
    // BDEF2: ½(1, 1, 0) + ½·S1(1, 1, 0) = ½(1, 1, 0) + ½(0, 2, 0) = (0.5, 1.5, 0).
    // SDEF: rw = ½R0 + ½R1 = (0, 1, 0); cr0 = (0, 0.75, 0), cr1 = (0, 1.25, 0);
    //   S0·cr0 = (0, 0.75, 0), S1·cr1 = (−0.25, 1, 0);
    //   slerp(1, R90, ½) = R45: R45·(p − C) = R45·(1, 0, 0) = (cos45, sin45, 0);
    //   p' = (cos45, sin45, 0) + ½(0, 0.75, 0) + ½(−0.25, 1, 0)
    //      = (cos45 − 0.125, sin45 + 0.875, 0).
    let turn =
        |i: &mut vmd_studio::model::PoseInput| i.rotations[1] = Quat::from_rotation_z(FRAC_PI_2);
    let b = pose(&two_bones(BDEF2), turn);
    let s = pose(&two_bones(SDEF), turn);
    assert_close(b.positions[0], Vec3::new(0.5, 1.5, 0.0), "BDEF2");
    let h = FRAC_1_SQRT_2;
    assert_close(s.positions[0], Vec3::new(h - 0.125, h + 0.875, 0.0), "SDEF");
    // SDEF's normal turns by the blended rotation: Y → R45·Y.
    assert_close(s.normals[0], Vec3::new(-h, h, 0.0), "SDEF normal");
}

#[test]
fn qdef_blends_rotations_not_matrices() {
    // b0 at rest, b1 (also at the origin) turned 90° about Y; weights ½, ½;
    // vertex (1, 0, 0). Dual quaternions blend to a 45° turn: (cos45, 0, −sin45),
    // still one unit from the axis. BDEF4 averages points: (0.5, 0, −0.5).
    let mk = |d: Deform| {
        model(
            vec![
                Bone::new("b0", None, Vec3::ZERO),
                Bone::new("b1", None, Vec3::ZERO),
            ],
            &[(Vec3::X, d)],
        )
    };
    let turn =
        |i: &mut vmd_studio::model::PoseInput| i.rotations[1] = Quat::from_rotation_y(FRAC_PI_2);
    let w = ([0, 1, 0, 0], [0.5, 0.5, 0.0, 0.0]);
    let q = pose(
        &mk(Deform::Qdef {
            bones: w.0,
            weights: w.1,
        }),
        turn,
    );
    let l = pose(
        &mk(Deform::Bdef4 {
            bones: w.0,
            weights: w.1,
        }),
        turn,
    );
    let (s, c) = FRAC_PI_4.sin_cos();
    assert_close(q.positions[0], Vec3::new(c, 0.0, -s), "QDEF");
    assert_close(l.positions[0], Vec3::new(0.5, 0.0, -0.5), "BDEF4");
    // With a translation as well: b1 moved by (0, 2, 0) → the blend moves by
    // half of it on top of the 45° turn.
    let q = pose(
        &mk(Deform::Qdef {
            bones: w.0,
            weights: w.1,
        }),
        |i| {
            i.rotations[1] = Quat::from_rotation_y(FRAC_PI_2);
            i.translations[1] = Vec3::new(0.0, 2.0, 0.0);
        },
    );
    assert_close(q.positions[0], Vec3::new(c, 1.0, -s), "QDEF moved");
}

#[test]
fn bdef1_and_bdef4_by_hand() {
    // BDEF1 on b1 turned 90° about Z: (1, 1, 0) − (0, 1, 0) = (1, 0, 0) → (0, 1, 0) → (0, 2, 0).
    let turn =
        |i: &mut vmd_studio::model::PoseInput| i.rotations[1] = Quat::from_rotation_z(FRAC_PI_2);
    let out = pose(&two_bones(Deform::Bdef1 { bone: 1 }), turn);
    assert_close(out.positions[0], Vec3::new(0.0, 2.0, 0.0), "BDEF1");
    assert_close(out.normals[0], Vec3::new(-1.0, 0.0, 0.0), "BDEF1 normal");
    // BDEF4 with ¾ on b0 (rest) and ¼ on b1: ¾(1, 1, 0) + ¼(0, 2, 0) = (0.75, 1.25, 0).
    let d = Deform::Bdef4 {
        bones: [0, 1, 0, 0],
        weights: [0.75, 0.25, 0.0, 0.0],
    };
    assert_close(
        pose(&two_bones(d), turn).positions[0],
        Vec3::new(0.75, 1.25, 0.0),
        "BDEF4",
    );
}

// ------------------------------------------------------------- morphs

fn vertex_morph(name: &str, offset: Vec3) -> Morph {
    Morph {
        name: name.into(),
        name_en: String::new(),
        panel: 4,
        kind: MorphKind::Vertex(vec![VertexOffset { vertex: 0, offset }]),
    }
}

fn one_vertex_model() -> Model {
    model(
        vec![Bone::new("b0", None, Vec3::ZERO)],
        &[(Vec3::new(1.0, 1.0, 1.0), Deform::Bdef1 { bone: 0 })],
    )
}

#[test]
fn group_morph_of_two_vertex_morphs() {
    // m0 moves v0 by (1, 0, 0), m1 by (0, 2, 0); the group drives m0 at 0.5
    // and m1 at 1.0. Group at 0.5 plus m0 directly at 0.2:
    // m0 at 0.5·0.5 + 0.2 = 0.45, m1 at 0.5 → offset (0.45, 1, 0).
    let mut m = one_vertex_model();
    m.morphs.push(vertex_morph("m0", Vec3::X));
    m.morphs.push(vertex_morph("m1", Vec3::new(0.0, 2.0, 0.0)));
    m.morphs.push(Morph {
        name: "group".into(),
        name_en: String::new(),
        panel: 4,
        kind: MorphKind::Group(vec![
            MorphRef {
                morph: 0,
                ratio: 0.5,
            },
            MorphRef {
                morph: 1,
                ratio: 1.0,
            },
        ]),
    });
    let out = pose(&m, |i| {
        i.morphs[2] = 0.5;
        i.morphs[0] = 0.2;
    });
    assert_close(out.positions[0], Vec3::new(1.45, 2.0, 1.0), "group");
    assert!((out.applied_morphs[0] - 0.45).abs() < 1e-6);
    assert_eq!(out.applied_morphs[2], 0.0);
    // Vertex morphs apply before skinning: turn the bone 90° about Y too.
    // (1.45, 2, 1) → (x, y, z) ↦ (z, y, −x) = (1, 2, −1.45).
    let out = pose(&m, |i| {
        i.morphs[2] = 0.5;
        i.morphs[0] = 0.2;
        i.rotations[0] = Quat::from_rotation_y(FRAC_PI_2);
    });
    assert_close(
        out.positions[0],
        Vec3::new(1.0, 2.0, -1.45),
        "morph then skin",
    );
}

#[test]
fn flip_morph_picks_one_member() {
    // Flip over [m0 at ratio 1, m1 at ratio 0.5]: weight w picks member
    // clamp(⌊3w⌋ − 1, 0, 1): w = 0.4 → m0 at 1; w = 0.8 → m1 at 0.5.
    let mut m = one_vertex_model();
    m.morphs.push(vertex_morph("m0", Vec3::X));
    m.morphs.push(vertex_morph("m1", Vec3::new(0.0, 2.0, 0.0)));
    m.morphs.push(Morph {
        name: "flip".into(),
        name_en: String::new(),
        panel: 4,
        kind: MorphKind::Flip(vec![
            MorphRef {
                morph: 0,
                ratio: 1.0,
            },
            MorphRef {
                morph: 1,
                ratio: 0.5,
            },
        ]),
    });
    let base = Vec3::new(1.0, 1.0, 1.0);
    assert_close(
        pose(&m, |i| i.morphs[2] = 0.4).positions[0],
        base + Vec3::X,
        "w 0.4",
    );
    assert_close(
        pose(&m, |i| i.morphs[2] = 0.8).positions[0],
        base + Vec3::Y,
        "w 0.8",
    );
    assert_close(pose(&m, |i| i.morphs[2] = 0.0).positions[0], base, "w 0");
}

fn material(diffuse: Vec4) -> Material {
    Material {
        name: "mat".into(),
        name_en: String::new(),
        diffuse,
        specular: Vec3::ZERO,
        specular_power: 10.0,
        ambient: Vec3::splat(0.5),
        flags: Default::default(),
        edge_colour: Vec4::new(0.0, 0.0, 0.0, 1.0),
        edge_size: 1.0,
        texture: None,
        sphere: None,
        sphere_mode: Default::default(),
        toon: Default::default(),
        memo: String::new(),
        index_count: 0,
    }
}

fn material_morph(name: &str, op: MaterialOp, diffuse: Vec4, edge_size: f32) -> Morph {
    let neutral = if op == MaterialOp::Multiply { 1.0 } else { 0.0 };
    Morph {
        name: name.into(),
        name_en: String::new(),
        panel: 4,
        kind: MorphKind::Material(vec![MaterialOffset {
            material: None,
            op,
            diffuse,
            specular: Vec3::splat(neutral),
            specular_power: neutral,
            ambient: Vec3::splat(neutral),
            edge_colour: Vec4::splat(neutral),
            edge_size,
            texture_tint: Vec4::new(0.5, neutral, neutral, neutral),
            sphere_tint: Vec4::splat(neutral),
            toon_tint: Vec4::splat(neutral),
        }]),
    }
}

#[test]
fn material_morph_multiplies_then_adds() {
    // Base diffuse (0.8, 0.6, 0.4, 1). The add morph is listed first: order
    // in the file does not matter, multiplication comes first.
    // Both at 1: (0.8, 0.6, 0.4, 1)·0.5 + (0.1, 0.1, 0.1, 0) = (0.5, 0.4, 0.3, 0.5).
    // Both at 0.5: factor lerp(1, 0.5, 0.5) = 0.75 → (0.6, 0.45, 0.3, 0.75),
    //   plus 0.5·(0.1, 0.1, 0.1, 0) → (0.65, 0.5, 0.35, 0.75).
    let mut m = one_vertex_model();
    m.materials.push(material(Vec4::new(0.8, 0.6, 0.4, 1.0)));
    m.morphs.push(material_morph(
        "add",
        MaterialOp::Add,
        Vec4::new(0.1, 0.1, 0.1, 0.0),
        0.5,
    ));
    m.morphs.push(material_morph(
        "mul",
        MaterialOp::Multiply,
        Vec4::splat(0.5),
        2.0,
    ));
    let out = pose(&m, |i| i.morphs = vec![1.0, 1.0]);
    let d = out.materials[0].diffuse;
    assert!((d - Vec4::new(0.5, 0.4, 0.3, 0.5)).length() < 1e-5, "{d}");
    // Edge size: 1·2 + 0.5 = 2.5. Texture tint: multiply 0.5 in red.
    assert!((out.materials[0].edge_size - 2.5).abs() < 1e-6);
    assert!((out.materials[0].texture_mul - Vec4::new(0.5, 1.0, 1.0, 1.0)).length() < 1e-6);
    let out = pose(&m, |i| i.morphs = vec![0.5, 0.5]);
    let d = out.materials[0].diffuse;
    assert!(
        (d - Vec4::new(0.65, 0.5, 0.35, 0.75)).length() < 1e-5,
        "{d}"
    );
    // No morph: the material as stored.
    let out = pose(&m, |_| {});
    assert_eq!(out.materials[0].diffuse, Vec4::new(0.8, 0.6, 0.4, 1.0));
    assert_eq!(out.materials[0].texture_mul, Vec4::ONE);
    assert_eq!(out.materials[0].texture_add, Vec4::ZERO);
}

#[test]
fn bone_and_uv_morphs() {
    // A bone morph moving b0 by (0, 2, 0) and turning it 90° about Z, at
    // weight 0.5: b0 moves (0, 1, 0) and turns 45°; v0 (1, 1, 1) → R45·v0 + (0, 1, 0).
    let mut m = one_vertex_model();
    m.morphs.push(Morph {
        name: "bone".into(),
        name_en: String::new(),
        panel: 4,
        kind: MorphKind::Bone(vec![vmd_studio::model::BoneOffset {
            bone: 0,
            translation: Vec3::new(0.0, 2.0, 0.0),
            rotation: Quat::from_rotation_z(FRAC_PI_2),
        }]),
    });
    m.morphs.push(Morph {
        name: "uv".into(),
        name_en: String::new(),
        panel: 4,
        kind: MorphKind::Uv {
            channel: 0,
            offsets: vec![vmd_studio::model::UvOffset {
                vertex: 0,
                offset: Vec4::new(0.25, -0.5, 0.0, 0.0),
            }],
        },
    });
    let out = pose(&m, |i| i.morphs = vec![0.5, 0.5]);
    let h = FRAC_1_SQRT_2;
    assert_close(
        out.positions[0],
        Vec3::new(0.0, 2.0 * h, 1.0) + Vec3::Y,
        "bone morph",
    );
    assert!(out.uv_morphed);
    assert_eq!(out.uv_offsets[0], Vec4::new(0.125, -0.25, 0.0, 0.0));
}

// ------------------------------------------------------------- corpus

#[test]
fn mei_posed_by_her_motions() {
    let Some(dir) = corpus() else { return };
    let model = Model::open(&dir.join("mei/mei.pmd")).expect("mei");
    let mut poser = Poser::new(&model);
    let mut out = Posed::default();
    // Rest pose with IK off: bones at rest, vertices where the file puts them.
    poser.input_mut().ik.iter_mut().for_each(|on| *on = false);
    poser.evaluate(&model, &mut out);
    for (i, b) in model.skeleton.bones.iter().enumerate() {
        assert_close(out.bone_position(i).unwrap(), b.rest_position, &b.name);
    }
    for (p, q) in out.positions.iter().zip(&model.positions) {
        assert!(p.distance(*q) < 1e-4);
    }
    // With IK on, the legs bend a little: Mei's 左足ＩＫ sits 0.0035 from
    // 左足首, so the solver pulls the ankle over and the knee takes at least
    // its 0.5° bend — small moves only.
    poser.input_mut().ik.iter_mut().for_each(|on| *on = true);
    poser.evaluate(&model, &mut out);
    for (i, b) in model.skeleton.bones.iter().enumerate() {
        assert!(
            out.bone_position(i).unwrap().distance(b.rest_position) < 0.05,
            "{}",
            b.name
        );
    }
    for name in ["mmdagent__mei_wait.vmd", "mmdagent__mei_happiness.vmd"] {
        let bytes = std::fs::read(dir.join(name)).expect("motion");
        let motion = IndexedMotion::new(vmd_studio::vmd::read(&bytes).expect("reads"));
        let binding = MotionBinding::new(&model, &motion.index);
        // Every track of Mei's own motions has a bone or morph in Mei.
        assert!(binding.missing.is_empty(), "{name}: {:?}", binding.missing);
        for frame in [0.0, 30.0, 45.5, 80.0] {
            binding.sample(&model, motion.as_ref(), frame, poser.input_mut());
            poser.evaluate(&model, &mut out);
            assert!(out.positions.iter().all(|p| p.is_finite()));
            assert!(out.normals.iter().all(|n| n.is_finite()));
            // The leg IK reaches its goal (Mei's motions keep the feet
            // within reach): ankle at the IK bone.
            for (ik, ankle) in [("左足ＩＫ", "左足首"), ("右足ＩＫ", "右足首")] {
                let ik = model.skeleton.find(ik).expect("ik bone");
                let ankle = model.skeleton.find(ankle).expect("ankle");
                let d = out
                    .bone_position(ik)
                    .unwrap()
                    .distance(out.bone_position(ankle).unwrap());
                assert!(d < 0.05, "{name} frame {frame}: ankle {d} from its IK goal");
            }
        }
    }
}

#[test]
fn builtin_skeleton_is_a_model_the_engine_poses_with_ik() {
    // The built-in skeleton goes through the same engine as any model: the
    // leg IK, moved up 3 and forward 2 (within reach: hip to goal ≈ 6.35 <
    // thigh 4.41 + shin 4.74), puts the ankle on the IK bone.
    let m = standard_model();
    assert!(m.positions.is_empty() && m.morphs.is_empty());
    let skel = &m.skeleton;
    let ik = skel.find("左足ＩＫ").expect("ik");
    let ankle = skel.find("左足首").expect("ankle");
    let goal = skel.bones[ik].rest_position + Vec3::new(0.0, 3.0, -2.0);
    let mut engine = PoseEngine::new(&m);
    engine.pose_input(&m, |i| i.translations[ik] = Vec3::new(0.0, 3.0, -2.0));
    let out = &engine.posed;
    assert_close(out.bone_position(ik).unwrap(), goal, "IK bone");
    let d = out.bone_position(ankle).unwrap().distance(goal);
    assert!(d < 1e-2, "ankle {d} from the goal");
    // The other leg stays at rest.
    let r = skel.find("右足首").expect("ankle");
    assert_close(
        out.bone_position(r).unwrap(),
        skel.bones[r].rest_position,
        "右足首",
    );
}

#[test]
fn corpus_pmx_model_with_its_motion() {
    // unity-mmd-loader's test model and the motion made for it.
    let Some(dir) = corpus() else { return };
    let model = Model::open(&dir.join("unitymmdloader__mmt_test_model.pmx")).expect("model");
    let bytes =
        std::fs::read(dir.join("unitymmdloader__mmt_test_model_test_motion.vmd")).expect("vmd");
    let motion = IndexedMotion::new(vmd_studio::vmd::read(&bytes).expect("reads"));
    let binding = MotionBinding::new(&model, &motion.index);
    let mut poser = Poser::new(&model);
    let mut out = Posed::default();
    let mut moved = false;
    for frame in [0.0, 1.0, 2.5, 5.0] {
        binding.sample(&model, motion.as_ref(), frame, poser.input_mut());
        poser.evaluate(&model, &mut out);
        assert!(out.positions.iter().all(|p| p.is_finite()), "frame {frame}");
        assert!(
            out.bone_world.iter().all(|m| m.is_finite()),
            "frame {frame}"
        );
        moved |= out
            .bone_world
            .iter()
            .zip(&model.skeleton.bones)
            .any(|(w, b)| w.w_axis.truncate().distance(b.rest_position) > 1e-3);
    }
    assert!(moved, "the motion moves some bone");
}
