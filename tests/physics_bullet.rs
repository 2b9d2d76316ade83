//! Where physics rests, against Bullet (issue 40): each model stands in its
//! rest pose for 600 frames of 1/60 s with physics on, and the direction
//! of every physics bone from its parent is compared with where Bullet 3.25
//! puts it. The goldens in `tests/data/physics/*.json` come from the
//! reference tool `tools/physics-reference` (Bullet through the
//! `mmd-anim-physics-bullet` crate), never from this engine; regenerate
//! them with that tool only.

mod common;
mod physics_models;

use std::path::{Path, PathBuf};

use glam::{EulerRot, Mat4, Quat, Vec3};
use vmd_studio::model::Model;
use vmd_studio::model::physics::PhysicsWorld;

/// One golden bone: its index, Bullet's direction from its parent and
/// Bullet's world rotation of the bone.
struct GoldenBone {
    bone: usize,
    name: String,
    direction: Vec3,
    rotation: Quat,
}

fn golden(file: &str) -> (String, Vec<GoldenBone>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/physics")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: serde_json::Value = serde_json::from_str(&text).expect("golden JSON");
    let source = json["source"].as_str().unwrap_or_default().to_string();
    let bones = json["bones"]
        .as_array()
        .expect("bones")
        .iter()
        .map(|b| {
            let d = &b["direction"];
            let c = |k: usize| d[k].as_f64().unwrap_or(0.0) as f32;
            let q = &b["rotation_xyzw"];
            let r = |k: usize| q[k].as_f64().expect("rotation_xyzw") as f32;
            GoldenBone {
                bone: b["bone"].as_u64().expect("bone") as usize,
                name: b["name"].as_str().unwrap_or_default().to_string(),
                direction: Vec3::new(c(0), c(1), c(2)),
                rotation: Quat::from_xyzw(r(0), r(1), r(2), r(3)).normalize(),
            }
        })
        .collect();
    (source, bones)
}

/// Our engine's settled bone matrices: rest pose, reset, 600 frames of
/// 1/60 s, written back.
fn settle(model: &Model) -> Vec<Mat4> {
    let rest: Vec<Mat4> = model
        .skeleton
        .bones
        .iter()
        .map(|b| Mat4::from_translation(b.rest_position))
        .collect();
    let mut world = PhysicsWorld::new(model);
    world.reset(&rest);
    for _ in 0..600 {
        world.step(&rest, 1.0 / 60.0);
    }
    let mut posed = rest.clone();
    world.write_back(&mut posed);
    posed
}

/// Angles (degrees) between our settled directions and Bullet's, per
/// golden bone, with the bone's name.
fn angles(model: &Model, bones: &[GoldenBone]) -> Vec<(f32, String)> {
    let posed = settle(model);
    let skeleton = &model.skeleton.bones;
    bones
        .iter()
        .filter(|g| g.direction.length() > 0.5)
        .map(|g| {
            let parent = skeleton[g.bone].parent.expect("a golden bone has a parent");
            let ours = (posed[g.bone].w_axis - posed[parent].w_axis)
                .truncate()
                .normalize();
            let cos = ours.dot(g.direction.normalize()).clamp(-1.0, 1.0);
            (cos.acos().to_degrees(), g.name.clone())
        })
        .collect()
}

/// Median, 90th percentile and largest angle, and the bone with it.
fn summary(mut a: Vec<(f32, String)>) -> (f32, f32, f32, String) {
    a.sort_by(|x, y| x.0.total_cmp(&y.0));
    let at = |q: f32| a[((a.len() - 1) as f32 * q).round() as usize].0;
    let last = a.last().cloned().unwrap_or_default();
    (at(0.5), at(0.9), last.0, last.1)
}

/// Compares `model` with the golden `file`: median, p90 and largest angle
/// (degrees) must stay within the limits given (the level this engine
/// reaches, asserted so that it cannot get worse; see the `LIMITS_*`).
fn check(model: &Model, file: &str, median: f32, p90: f32, max: f32) {
    let (_, bones) = golden(file);
    assert!(!bones.is_empty(), "{file}: no bones");
    let a = angles(model, &bones);
    assert_eq!(a.len(), bones.len(), "{file}: every golden bone compared");
    for (angle, name) in &a {
        eprintln!("  {file} {name}: {angle:.2}°");
    }
    let (m, p, x, worst) = summary(a);
    eprintln!(
        "{file}: {} bones, vs Bullet median {m:.2}° p90 {p:.2}° max {x:.2}° ({worst})",
        bones.len()
    );
    assert!(m <= median, "{file}: median {m:.2}° > {median}°");
    assert!(p <= p90, "{file}: p90 {p:.2}° > {p90}°");
    assert!(x <= max, "{file}: max {x:.2}° ({worst}) > {max}°");
}

fn corpus_model(relative: &str) -> Option<Model> {
    let dir: PathBuf = common::corpus()?;
    let path = dir.join(relative);
    match Model::open(&path) {
        Ok(m) => Some(m),
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

#[test]
fn mei_rests_where_bullet_rests_her() {
    let Some(model) = corpus_model("mmdagent__mei.pmd") else {
        return;
    };
    check(&model, "mei.json", LIMITS_MEI.0, LIMITS_MEI.1, LIMITS_MEI.2);
}

#[test]
fn the_sample_model_rests_where_bullet_rests_it() {
    let Some(model) = corpus_model("frontier/sizing_mmdbase_sample_model/サンプルモデル.pmx")
    else {
        return;
    };
    check(
        &model,
        "sample_model.json",
        LIMITS_SAMPLE.0,
        LIMITS_SAMPLE.1,
        LIMITS_SAMPLE.2,
    );
}

#[test]
fn babylon_mmd_constraint_tests_rest_where_bullet_rests_them() {
    for i in ["", "2", "3", "4"] {
        let Some(model) = corpus_model(&format!("pmx-babylonmmd/constraint_test{i}.pmx")) else {
            return;
        };
        check(
            &model,
            &format!("constraint_test{i}.json"),
            LIMITS_CONSTRAINT.0,
            LIMITS_CONSTRAINT.1,
            LIMITS_CONSTRAINT.2,
        );
    }
}

#[test]
fn a_sleeve_hangs_from_a_horizontal_arm_as_in_bullet() {
    let model = physics_models::sleeve();
    check(
        &model,
        "sleeve.json",
        LIMITS_SLEEVE.0,
        LIMITS_SLEEVE.1,
        LIMITS_SLEEVE.2,
    );
}

#[test]
fn twin_tails_with_limits_and_springs_rest_as_in_bullet() {
    let model = physics_models::twin_tail();
    check(
        &model,
        "twintail.json",
        LIMITS_TWIN.0,
        LIMITS_TWIN.1,
        LIMITS_TWIN.2,
    );
}

/// Per golden bone: the twist (degrees) of our settled bone about its own
/// axis against Bullet's (see `physics_models::twist_degrees`), the angle
/// between our bone's own axis and Bullet's, and the bone's name. With
/// `physics` false, the bones stay at rest (what a broken engine gives).
fn turns(model: &Model, bones: &[GoldenBone], physics: bool) -> Vec<(f32, f32, String)> {
    let posed = if physics {
        settle(model)
    } else {
        model
            .skeleton
            .bones
            .iter()
            .map(|b| Mat4::from_translation(b.rest_position))
            .collect()
    };
    bones
        .iter()
        .map(|g| {
            let (_, ours, _) = posed[g.bone].to_scale_rotation_translation();
            let axis = physics_models::rest_axis(model, g.bone);
            let twist = physics_models::twist_degrees(ours, g.rotation, g.rotation * axis);
            let cos = (ours * axis).dot(g.rotation * axis).clamp(-1.0, 1.0);
            (twist, cos.acos().to_degrees(), g.name.clone())
        })
        .collect()
}

/// Compares the settled bones' twist about their own axes, and their own
/// axes, with Bullet's: medians and p90s within the limits (degrees,
/// `(twist median, twist p90, axis median, axis p90)`); the bones left at
/// rest (a broken engine) must be at least twice as far in own-axis median
/// (1° of slack). Twist cannot be held to that: physics turns these bones
/// about their axes by little, and less than our engine is off (see the
/// `LIMITS_TWIST_*`).
fn check_twist(model: &Model, file: &str, limit: (f32, f32, f32, f32)) {
    let (_, bones) = golden(file);
    let split = |t: Vec<(f32, f32, String)>| {
        let twist = t.iter().map(|x| (x.0, x.2.clone())).collect();
        let axis = t.into_iter().map(|x| (x.1, x.2)).collect();
        (summary(twist), summary(axis))
    };
    for (t, a, n) in turns(model, &bones, true) {
        eprintln!("  {file} {n}: twist {t:.2}°, own axis {a:.2}°");
    }
    let (twist, axis) = split(turns(model, &bones, true));
    let (rest_twist, rest_axis) = split(turns(model, &bones, false));
    eprintln!(
        "{file}: twist vs Bullet {:.2} / {:.2} / {:.2}° ({}), own axis {:.2} / {:.2} / {:.2}°; \
         left at rest: twist {:.2} / {:.2} / {:.2}°, own axis {:.2} / {:.2} / {:.2}°",
        twist.0,
        twist.1,
        twist.2,
        twist.3,
        axis.0,
        axis.1,
        axis.2,
        rest_twist.0,
        rest_twist.1,
        rest_twist.2,
        rest_axis.0,
        rest_axis.1,
        rest_axis.2
    );
    assert!(twist.0 <= limit.0, "{file}: twist median {:.2}°", twist.0);
    assert!(twist.1 <= limit.1, "{file}: twist p90 {:.2}°", twist.1);
    assert!(axis.0 <= limit.2, "{file}: own axis median {:.2}°", axis.0);
    assert!(axis.1 <= limit.3, "{file}: own axis p90 {:.2}°", axis.1);
    assert!(
        rest_axis.0 >= 2.0 * axis.0.max(1.0),
        "{file}: bones at rest ({:.2}°) not far worse than ours ({:.2}°)",
        rest_axis.0,
        axis.0
    );
}

#[test]
fn settled_bones_twist_as_bullet_twists_them() {
    check_twist(
        &physics_models::twin_tail(),
        "twintail.json",
        LIMITS_TWIST_TWIN,
    );
    check_twist(
        &physics_models::sleeve(),
        "sleeve.json",
        LIMITS_TWIST_SLEEVE,
    );
    if let Some(model) = corpus_model("mmdagent__mei.pmd") {
        check_twist(&model, "mei.json", LIMITS_TWIST_MEI);
    }
    let sample = "frontier/sizing_mmdbase_sample_model/サンプルモデル.pmx";
    if let Some(model) = corpus_model(sample) {
        check_twist(&model, "sample_model.json", LIMITS_TWIST_SAMPLE);
    }
}

// Measured 2026-12-05 (debug; twist median / p90 / max, own axis
// median / p90 / max, degrees; "at rest" = bones left at rest), with the
// springs integrated implicitly (before that, in brackets, the explicit
// kick):
// - twin tails: twist 7.09 / 16.62 / 18.33 (右髪0) [15.48 / 19.24 /
//   19.32], axis 1.86 / 3.47 / 11.10 [1.39 / 3.78 / 10.83]; at rest twist
//   5.21 / 7.16, axis 18.05 / 30.42. The right tail twists more than
//   Bullet's (the left within about 3°): its first link touches the head
//   sphere it is joined to, which we let collide (MMD's rule, saba,
//   babylon-mmd) and the reference tool's Bullet does not
//   (`addConstraint(c, true)` in mmd-anim's C++). Without contacts between
//   joined bodies (tried with the explicit kick, not kept): twist 2.09 /
//   3.56 / 4.41.
// - sleeve: twist 18.77 / 19.20 [16.67 / 18.48], axis 1.58 / 2.62 [2.32 /
//   2.75]; at rest twist 14.61, axis 80.06. Bullet twists every link about
//   14°, ours by −5..3°: at the first joint Bullet's X angle sits on its
//   −20° limit with Z on its 60° limit (joint angles −20.2 / −3.5 / 61.4)
//   where ours reach the same hanging direction with −8.9 / −5.5 / 60.0:
//   rapier's per-axis limit measure against Bullet's Euler angles when two
//   axes are at their limits (module notes of `model::physics`).
// - Mei: twist 0.00 / 0.28 / 3.04, axis 0.00 / 1.09 / 2.32 (both
//   unchanged); at rest twist 0.04 / 0.28, axis 2.47 / 10.00.
// - the sample model: twist 0.61 / 1.56 / 4.07 [5.44 / 12.81 / 14.49: its
//   hair flipped ±14° about its axes every frame], axis 0.77 / 1.54 / 1.59
//   [1.15 / 4.79 / 10.75]; at rest twist 0.70 / 3.30, axis 4.15 / 9.77.
const LIMITS_TWIST_TWIN: (f32, f32, f32, f32) = (10.0, 20.0, 2.5, 5.0);
const LIMITS_TWIST_SLEEVE: (f32, f32, f32, f32) = (21.0, 22.0, 2.5, 3.5);
const LIMITS_TWIST_MEI: (f32, f32, f32, f32) = (0.5, 1.0, 0.5, 1.5);
const LIMITS_TWIST_SAMPLE: (f32, f32, f32, f32) = (1.5, 3.0, 1.2, 2.5);

/// Bullet's settled joint angles from `tools/physics-reference --joints`
/// (degrees, XYZ of A's joint frame in B's, as Bullet's 6DOF measures
/// them), by joint name.
fn golden_joints(file: &str) -> Vec<(String, Vec3)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/physics")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: serde_json::Value = serde_json::from_str(&text).expect("golden JSON");
    json["joints"]
        .as_array()
        .expect("joints")
        .iter()
        .map(|j| {
            let a = &j["euler_xyz_degrees"];
            let c = |k: usize| a[k].as_f64().unwrap_or(f64::NAN) as f32;
            let name = j["name"].as_str().unwrap_or_default().to_string();
            (name, Vec3::new(c(0), c(1), c(2)))
        })
        .collect()
}

/// Our settled joints measured as Bullet measures them: per joint its
/// name and the XYZ angles (degrees) of A's joint frame in B's.
fn settled_joint_angles(model: &Model) -> Vec<(String, Vec3)> {
    let rest: Vec<Mat4> = model
        .skeleton
        .bones
        .iter()
        .map(|b| Mat4::from_translation(b.rest_position))
        .collect();
    let mut world = PhysicsWorld::new(model);
    world.reset(&rest);
    for _ in 0..600 {
        world.step(&rest, 1.0 / 60.0);
    }
    let setup = world.setup().clone();
    let rotation = |m: Mat4| Quat::from_mat4(&m).normalize();
    setup
        .joints
        .iter()
        .map(|j| {
            let [a, b] = j.bodies;
            let (qa, _) = world.body_pose(a).expect("body A");
            let (qb, _) = world.body_pose(b).expect("body B");
            let wa = qa * rotation(setup.bodies[a].bind.inverse() * j.frame);
            let wb = qb * rotation(setup.bodies[b].bind.inverse() * j.frame);
            let (x, y, z) = (wb.conjugate() * wa).to_euler(EulerRot::XYZ);
            let deg = Vec3::new(x, y, z) * (180.0 / std::f32::consts::PI);
            (j.name.clone(), deg)
        })
        .collect()
}

/// The twin tails' joints rest at Bullet's angles, sign included (a
/// file's asymmetric limits bound Bullet's angles of A's frame in B's;
/// applied to B's turn instead they are mirrored, and these angles turn
/// sign). The first joint of each tail is left out: its link touches the
/// head sphere it hangs from, which the reference tool's Bullet does not
/// let collide with it.
#[test]
fn twin_tail_joints_rest_at_bullets_angles() {
    let golden = golden_joints("twintail_joints.json");
    let ours = settled_joint_angles(&physics_models::twin_tail());
    assert_eq!(golden.len(), ours.len());
    let mut worst = 0.0f32;
    for ((name, bullet), (our_name, angles)) in golden.iter().zip(&ours) {
        assert_eq!(name, our_name);
        let off = (*angles - *bullet).abs().max_element();
        eprintln!("{name}: ours {angles:.1}, Bullet {bullet:.1}");
        if name != "j0-1" && name != "j0-6" {
            worst = worst.max(off);
        }
    }
    eprintln!("twin tail joints (first ones left out): largest axis off {worst:.2}°");
    assert!(worst < 8.0, "largest axis off {worst:.2}°");
}

// Measured 2026-12-02 (debug, this engine vs the goldens): Mei 0.00 /
// 0.00 / 0.02 (20 bones); the sample model 0.15 / 4.49 / 8.34 (26 bones,
// 髪_03-02); babylon-mmd's constraint tests 0.00 (1 bone each); the sleeve
// 1.22 / 2.30 / 2.30; the twin tails 0.86 / 9.30 / 21.04 (右髪1).
// 2026-12-05, rotation limits in Bullet's sense (a file's asymmetric
// limits had been applied mirrored: `matrixToEulerXYZ` reads the
// transpose) and springs on Bullet's Euler angles: the sample model 0.20
// / 1.63 / 5.77 (髪_02-02); the twin tails 1.22 / 3.30 / 9.54 (右髪1);
// the sleeve 1.74 / 2.50 / 2.50; Mei and the constraint tests unchanged.
// 2026-12-05 (debug), before and after the springs were integrated
// implicitly (the sample model's hair had flipped ±14° about its axes
// every frame, so where it was after 600 frames was a matter of chance):
// the sample model 0.19 / 1.71 / 3.24 → 0.17 / 1.19 / 1.73 (右胸接続); the
// twin tails 0.97 / 2.32 / 8.83 → 1.14 / 2.02 / 8.95 (右髪1); the sleeve
// 1.39 / 2.22 / 2.22 → 1.25 / 2.53 / 2.53; Mei and the constraint tests
// unchanged. The sample model's and the twin tails' limits tightened to
// guard it.
const LIMITS_MEI: (f32, f32, f32) = (0.5, 0.5, 1.0);
const LIMITS_SAMPLE: (f32, f32, f32) = (0.5, 2.0, 3.0);
const LIMITS_CONSTRAINT: (f32, f32, f32) = (0.5, 0.5, 0.5);
const LIMITS_SLEEVE: (f32, f32, f32) = (2.5, 3.5, 3.5);
const LIMITS_TWIN: (f32, f32, f32) = (1.5, 3.0, 11.0);
