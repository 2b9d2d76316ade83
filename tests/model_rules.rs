//! MMD's pose rules on cases small enough to work out by hand: fixed axes
//! (軸制限), the single-axis first step of a knee, reflection at a limit, and
//! PMD knees. The expected numbers are derived in the comments, never taken
//! from the solver.

use glam::{Quat, Vec3};
use vmd_studio::model::{Bone, Format, IkChain, IkLink, Model, Posed, Poser, knee_limits};

fn model(format: Format, bones: Vec<Bone>) -> Model {
    let mut m = Model::empty(format);
    m.skeleton.bones = bones;
    m
}

fn pose(m: &Model, set: impl FnOnce(&mut vmd_studio::model::PoseInput)) -> Posed {
    let mut poser = Poser::new(m);
    set(poser.input_mut());
    let mut out = Posed::default();
    poser.pose_bones(m, &mut out);
    out
}

fn assert_near(got: Vec3, want: Vec3, tol: f32, what: &str) {
    assert!(
        got.distance(want) < tol,
        "{what}: got {got}, expected {want} (distance {})",
        got.distance(want)
    );
}

/// Angle between two rotations, radians.
fn rotation_gap(a: Quat, b: Quat) -> f32 {
    a.normalize().angle_between(b.normalize())
}

// ------------------------------------------------------------ fixed axes

/// A twist bone at the origin with fixed axis `axis`, a child one unit up
/// and a grandchild two units up.
fn twist(axis: Vec3) -> Model {
    let mut t = Bone::new("左腕捩", None, Vec3::ZERO);
    t.fixed_axis = Some(axis);
    model(
        Format::Pmx { version: 2.0 },
        vec![
            t,
            Bone::new("左ひじ", Some(0), Vec3::Y),
            Bone::new("左手首", Some(1), Vec3::new(0.0, 2.0, 0.0)),
        ],
    )
}

#[test]
fn a_fixed_axis_takes_the_whole_angle_of_an_off_axis_key() {
    // Key: 90° about (1, 1, 0)/√2. Axis-angle: axis·X > 0, so the bone turns
    // +90° about its fixed axis X (given unnormalised as (2, 0, 0)):
    // Rx(90°) takes (0, 1, 0) to (0, 0, 1), so the child lands at (0, 0, 1)
    // and the grandchild at (0, 0, 2). (A swing–twist split would keep only
    // 2·atan2(sin45°/√2, cos45°) ≈ 70.5° and put the child at
    // (0, 0.33, 0.94), 0.34 away.)
    let m = twist(Vec3::new(2.0, 0.0, 0.0));
    let key = Quat::from_axis_angle(Vec3::new(1.0, 1.0, 0.0).normalize(), 90f32.to_radians());
    let out = pose(&m, |i| i.rotations[0] = key);
    assert_near(out.bone_position(1).unwrap(), Vec3::Z, 1e-5, "child");
    assert_near(
        out.bone_position(2).unwrap(),
        Vec3::new(0.0, 0.0, 2.0),
        1e-5,
        "grandchild",
    );
    // The same rotation written as −q: angle 2·atan2(sin45°, −cos45°) = 270°
    // about −(1, 1, 0)/√2, which points away from X, so −270° about X:
    // the same turn.
    let out = pose(&m, |i| i.rotations[0] = -key);
    assert_near(out.bone_position(1).unwrap(), Vec3::Z, 1e-5, "child, −q");
}

#[test]
fn a_key_axis_pointing_away_from_the_fixed_axis_turns_the_other_way() {
    // Key: 90° about (−1, 1, 0)/√2; its axis·X < 0, so −90° about X:
    // Rx(−90°) takes (0, 1, 0) to (0, 0, −1).
    let m = twist(Vec3::X);
    let key = Quat::from_axis_angle(Vec3::new(-1.0, 1.0, 0.0).normalize(), 90f32.to_radians());
    let out = pose(&m, |i| i.rotations[0] = key);
    assert_near(out.bone_position(1).unwrap(), Vec3::NEG_Z, 1e-5, "child");
    let want = Quat::from_rotation_x(-90f32.to_radians());
    assert!(rotation_gap(out.local_rotations[0], want) < 1e-5);
}

#[test]
fn a_zero_fixed_axis_means_no_rotation() {
    let m = twist(Vec3::ZERO);
    let out = pose(&m, |i| i.rotations[0] = Quat::from_rotation_z(1.0));
    assert_near(out.bone_position(1).unwrap(), Vec3::Y, 1e-6, "child");
    assert!(rotation_gap(out.local_rotations[0], Quat::IDENTITY) < 1e-6);
}

#[test]
fn a_bone_without_a_fixed_axis_keeps_the_key() {
    let mut m = twist(Vec3::X);
    m.skeleton.bones[0].fixed_axis = None;
    let key = Quat::from_axis_angle(Vec3::new(1.0, 1.0, 0.0).normalize(), 90f32.to_radians());
    let out = pose(&m, |i| i.rotations[0] = key);
    assert_near(out.bone_position(1).unwrap(), key * Vec3::Y, 1e-5, "child");
}

// ------------------------------------------------------------ IK

/// Hip at (0, 2, 0), knee (0, 1, 0), foot at the origin (unit thigh and
/// shin), and an IK bone resting at `goal` driving [knee, hip]: the knee
/// limited to X ∈ [−180°, −0.5°], the hip free. Two loops, so the first
/// loop is the "first half" (axis-only steps, reflection).
fn leg(format: Format, goal: Vec3, loops: u32) -> Model {
    let mut ik = Bone::new("左足ＩＫ", None, goal);
    ik.flags.ik = true;
    let mut m = model(
        format,
        vec![
            Bone::new("左足", None, Vec3::new(0.0, 2.0, 0.0)),
            Bone::new("左ひざ", Some(0), Vec3::Y),
            Bone::new("左足首", Some(1), Vec3::ZERO),
            ik,
        ],
    );
    m.skeleton.iks.push(IkChain {
        ik_bone: 3,
        target: 2,
        loops,
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

#[test]
fn a_knee_s_first_step_turns_about_its_axis_by_the_whole_angle() {
    // Goal G = knee + u, u = (0.6, −0.64, 0.48) (unit length, off the YZ
    // plane). First loop, knee: to-foot (0, −1, 0), to-goal u; their cross
    // product (−0.48, 0, −0.6)·… has X component −0.48 < 0, so the knee
    // turns about −X by the whole angle acos(0.64) = 50.21° (not the 36.87°
    // of u projected on the YZ plane): Rx(−50.21°), within the limits.
    // The foot is then at distance 2·cos(α/2) from the hip, as G is (G is
    // one unit from the knee at the same angle to the thigh), so the hip's
    // free step puts the foot on G and the solve stops there.
    let u = Vec3::new(0.6, -0.64, 0.48);
    let goal = Vec3::Y + u;
    let m = leg(Format::Pmx { version: 2.0 }, goal, 2);
    let out = pose(&m, |_| {});
    let alpha = 0.64f32.acos();
    let want = Quat::from_rotation_x(-alpha);
    let gap = rotation_gap(out.local_rotations[1], want);
    assert!(
        gap < 1e-4,
        "knee {:?}, expected Rx({}°), {gap} rad apart",
        out.local_rotations[1],
        -alpha.to_degrees()
    );
    assert_near(
        out.bone_position(2).unwrap(),
        goal,
        1e-4,
        "foot on the goal",
    );
    // The hip keeps the thigh one unit long.
    let (hip, knee) = (out.bone_position(0).unwrap(), out.bone_position(1).unwrap());
    assert!((hip.distance(knee) - 1.0).abs() < 1e-5);
}

#[test]
fn a_knee_past_its_limit_in_the_first_half_is_reflected() {
    // Goal in front: G = knee + r·(0, −cos 29°, −sin 29°). First loop, knee:
    // the cross product of (0, −1, 0) and the goal direction is
    // (sin 29°, 0, 0), so +29° about X — past the limit −0.5°. Reflected:
    // 2·(−0.5°) − 29° = −30°, in range, so the knee bends forward by 30°
    // and the foot is 2·cos 15° = √(2 + √3) from the hip. r is chosen so
    // that G is that far from the hip too: |G − hip|² = 1 + 2r·cos 29° + r²
    // = 2 + √3, r = −cos 29° + √(cos² 29° + 1 + √3). The hip's step then puts
    // the foot on G and the solve stops with the knee at Rx(−30°). (Clamping
    // instead would leave the knee at −0.5° and the foot short of G.)
    let b = 29f64.to_radians();
    let r = -b.cos() + (b.cos().powi(2) + 1.0 + 3f64.sqrt()).sqrt();
    let goal = Vec3::new(0.0, (1.0 - r * b.cos()) as f32, (-r * b.sin()) as f32);
    let m = leg(Format::Pmx { version: 2.0 }, goal, 2);
    let out = pose(&m, |_| {});
    let want = Quat::from_rotation_x(-30f32.to_radians());
    let gap = rotation_gap(out.local_rotations[1], want);
    assert!(
        gap < 1e-4,
        "knee {:?}, expected Rx(−30°), {gap} rad apart",
        out.local_rotations[1]
    );
    assert_near(
        out.bone_position(2).unwrap(),
        goal,
        1e-4,
        "foot on the goal",
    );
}

#[test]
fn a_zero_limited_link_never_turns() {
    // The knee limited to zero on every axis is skipped: only the hip turns,
    // so the leg stays straight and points at the goal.
    let goal = Vec3::new(0.0, 0.5, -1.0);
    let mut m = leg(Format::Pmx { version: 2.0 }, goal, 10);
    m.skeleton.iks[0].links[0].limits = Some((Vec3::ZERO, Vec3::ZERO));
    let out = pose(&m, |_| {});
    assert!(rotation_gap(out.local_rotations[1], Quat::IDENTITY) < 1e-6);
    let hip = Vec3::new(0.0, 2.0, 0.0);
    let foot = out.bone_position(2).unwrap();
    // Straight leg of length 2 along hip → goal.
    assert_near(foot, hip + (goal - hip).normalize() * 2.0, 1e-4, "foot");
}

#[test]
fn a_pmd_knee_bends_forward_and_the_foot_reaches() {
    // PMD's rule: knees (ひざ) turn about X only, within [−180°, −0.5°].
    // Goal G = (0, 0.5, −0.3), 1.5297 from the hip: the knee is where the
    // unit circles about hip and G meet, on the forward (−Z) side of the
    // hip–goal line: midpoint (0, 1.25, −0.15) + h·n, h = √(1 − 0.76485²)
    // = 0.64419, n = (0, 0.3, −1.5)/1.5297 = (0, 0.19612, −0.98058):
    // knee (0, 1.37634, −0.78167).
    let goal = Vec3::new(0.0, 0.5, -0.3);
    let m = leg(Format::Pmd, goal, 40);
    let out = pose(&m, |_| {});
    assert_near(out.bone_position(2).unwrap(), goal, 1e-3, "foot");
    let hg = goal - Vec3::new(0.0, 2.0, 0.0);
    let half = hg.length() / 2.0;
    let h = (1.0 - half * half).sqrt();
    let n = Vec3::new(0.0, -hg.z, hg.y).normalize(); // ⟂ hg in YZ
    let n = if n.z < 0.0 { n } else { -n };
    let knee = Vec3::new(0.0, 2.0, 0.0) + hg / 2.0 + n * h;
    assert_near(knee, Vec3::new(0.0, 1.37634, -0.78167), 1e-4, "hand value");
    assert_near(out.bone_position(1).unwrap(), knee, 1e-2, "knee");
    let q = out.local_rotations[1];
    assert!(q.y.abs() < 1e-4 && q.z.abs() < 1e-4, "about X only: {q}");
    let q = if q.w < 0.0 { -q } else { q };
    let angle = 2.0 * q.x.atan2(q.w);
    assert!(
        (-std::f32::consts::PI..=-0.5f32.to_radians() + 1e-5).contains(&angle),
        "knee angle {angle}"
    );
}
