//! Physics inside the one pose engine: MMD's frame order (after-physics
//! bones see the simulated bones), the motion's physics-off keys, the bake,
//! determinism, and Mei dancing `mei_wait` with her hair simulated.

mod common;

use common::corpus;

use glam::{Mat4, Quat, Vec3};
use vmd_studio::model::physics::{SimulationMode, bake_physics, bake_physics_from};
use vmd_studio::model::skeleton::{Bone, Inherit};
use vmd_studio::model::{Format, Joint, Model, PhysicsMode, PoseEngine, RigidBody, Shape};
use vmd_studio::vmd::{self, BoneKey, IndexedMotion, Motion, NameEncoding};

fn body(name: &str, bone: usize, mode: PhysicsMode, position: Vec3) -> RigidBody {
    RigidBody {
        name: name.into(),
        name_en: String::new(),
        bone: Some(bone),
        group: 0,
        no_collision: 0,
        shape: Shape::Sphere,
        size: Vec3::new(0.2, 0.0, 0.0),
        position,
        rotation: Vec3::ZERO,
        mass: 1.0,
        linear_damping: 0.0,
        angular_damping: 0.0,
        restitution: 0.0,
        friction: 0.5,
        mode,
    }
}

/// A pendulum (pivot bone with a follow-bone body, bob bone with a physics
/// body 10 units out at 40° from straight down, translation locked at the
/// pivot) and a third bone "copy", a root flagged after-physics that
/// copies the bob's world rotation (local append, ratio 1).
fn pendulum_with_copy() -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    let pivot = Vec3::new(0.0, 30.0, 0.0);
    let a = 40.0_f32.to_radians();
    let bob = pivot + 10.0 * Vec3::new(a.sin(), -a.cos(), 0.0);
    m.skeleton.bones.push(Bone::new("pivot", None, pivot));
    m.skeleton.bones.push(Bone::new("bob", Some(0), bob));
    let mut copy = Bone::new("copy", None, Vec3::new(5.0, 0.0, 0.0));
    copy.flags.after_physics = true;
    copy.inherit = Some(Inherit {
        source: 1,
        ratio: 1.0,
        rotation: true,
        translation: false,
        local: true,
    });
    m.skeleton.bones.push(copy);
    m.rigid_bodies = vec![
        body("pivot", 0, PhysicsMode::FollowBone, pivot),
        body("bob", 1, PhysicsMode::Physics, bob),
    ];
    m.joints = vec![Joint {
        name: "joint".into(),
        name_en: String::new(),
        kind: 0,
        rigid_bodies: [Some(0), Some(1)],
        position: pivot,
        rotation: Vec3::ZERO,
        translation_limits: (Vec3::ZERO, Vec3::ZERO),
        rotation_limits: (Vec3::ONE, Vec3::NEG_ONE),
        spring_translation: Vec3::ZERO,
        spring_rotation: Vec3::ZERO,
    }];
    m
}

fn rotation_of(m: &Mat4) -> Quat {
    Quat::from_mat4(m).normalize()
}

#[test]
fn after_physics_bones_see_the_simulated_bones() {
    let model = pendulum_with_copy();
    let mut engine = PoseEngine::new(&model);
    assert!(engine.enable_physics(&model, SimulationMode::Trace));
    for f in 0..=20 {
        engine.pose_bones(&model, None, f64::from(f), |_| {});
    }
    let w = &engine.posed.bone_world;
    let bob = rotation_of(&w[1]);
    let copy = rotation_of(&w[2]);
    // The bob has swung (it started 40° out; after 0.5 s of settling and
    // 20 frames it has turned by a visible angle about Z).
    assert!(bob.angle_between(Quat::IDENTITY) > 0.05, "bob {bob}");
    // The after-physics bone copied the simulated rotation, not the
    // animated (identity) one.
    assert!(copy.angle_between(bob) < 1e-4, "copy {copy} vs bob {bob}");
    // The bob keeps its distance from the pivot (locked translation).
    let d = w[1].w_axis.truncate().distance(w[0].w_axis.truncate());
    assert!((d - 10.0).abs() < 0.1, "length {d}");
    // Skinning matrices follow the simulated bones.
    let rest = model.skeleton.bones[1].rest_position;
    let skin = engine.posed.skinning[1];
    assert!(skin.abs_diff_eq(w[1] * Mat4::from_translation(-rest), 1e-5));
}

#[test]
fn without_physics_or_without_bodies_the_pose_is_the_animated_one() {
    let mut model = pendulum_with_copy();
    let mut plain = PoseEngine::new(&model);
    plain.pose_bones(&model, None, 10.0, |_| {});
    // Physics switched on and off again: bit-identical to never on.
    let mut e = PoseEngine::new(&model);
    assert!(e.enable_physics(&model, SimulationMode::Trace));
    e.pose_bones(&model, None, 10.0, |_| {});
    e.disable_physics();
    e.pose_bones(&model, None, 10.0, |_| {});
    assert_eq!(e.posed, plain.posed);
    // Mode Off: the animated pose, no steps.
    let mut off = PoseEngine::new(&model);
    assert!(off.enable_physics(&model, SimulationMode::Off));
    off.pose_bones(&model, None, 10.0, |_| {});
    assert_eq!(off.posed, plain.posed);
    assert_eq!(off.physics_steps(), 0);
    // A model without bodies: enabling refuses.
    model.rigid_bodies.clear();
    model.joints.clear();
    let mut none = PoseEngine::new(&model);
    assert!(!none.enable_physics(&model, SimulationMode::Always));
    assert!(none.physics().is_none());
}

#[test]
fn the_engine_steps_four_times_a_frame_and_settles_on_a_jump() {
    let model = pendulum_with_copy();
    let mut e = PoseEngine::new(&model);
    e.enable_physics(&model, SimulationMode::Trace);
    e.pose_bones(&model, None, 0.0, |_| {});
    let settled = e.physics_steps();
    assert_eq!(settled, 60, "the first frame settles for 60 steps");
    for f in 1..=30 {
        e.pose_bones(&model, None, f64::from(f), |_| {});
    }
    // 30 frames of 1/30 s in 1/120 s steps: 120 steps (±1 for the
    // remainder carried between calls in f32).
    let steps = e.physics_steps() - settled;
    assert!((119..=120).contains(&steps), "{steps} steps");
    // Jumping back resets (another 60 settling steps, nothing simulated).
    let before = e.physics_steps();
    e.pose_bones(&model, None, 3.0, |_| {});
    assert_eq!(e.physics_steps() - before, 60);
    // Jumping 10 frames ahead simulates through them: 40 steps.
    let before = e.physics_steps();
    e.pose_bones(&model, None, 13.0, |_| {});
    let d = e.physics_steps() - before;
    assert!((39..=41).contains(&d), "{d} steps");
}

fn mei() -> Option<(Model, Motion)> {
    let dir = corpus()?;
    let model = Model::open(&dir.join("mmdagent__mei.pmd")).ok()?;
    let bytes = std::fs::read(dir.join("mmdagent__mei_wait.vmd")).ok()?;
    Some((model, vmd::read_vec(bytes).ok()?))
}

/// Head positions of every bone at every frame `0..=last`.
fn heads(model: &Model, motion: &Motion, physics: bool, last: u32) -> Vec<Vec<Vec3>> {
    let im = IndexedMotion::new(motion.clone());
    let mut e = PoseEngine::new(model);
    e.bind(model, Some(&im.index));
    if physics {
        assert!(e.enable_physics(model, SimulationMode::Trace));
    }
    (0..=last)
        .map(|f| {
            e.pose_bones(model, Some(im.as_ref()), f64::from(f), |_| {});
            if let Some(m) = e.take_physics_message() {
                panic!("frame {f}: {m}");
            }
            (0..model.skeleton.bones.len())
                .map(|b| e.posed.bone_position(b).unwrap_or(Vec3::NAN))
                .collect()
        })
        .collect()
}

/// Bones a dynamic body drives.
fn driven(model: &Model) -> Vec<usize> {
    let mut e = PoseEngine::new(model);
    e.enable_physics(model, SimulationMode::Trace);
    let w = e.physics().expect("physics");
    (0..model.skeleton.bones.len())
        .filter(|&b| {
            w.driver(b)
                .is_some_and(|i| w.setup().bodies[i].mode.is_dynamic())
        })
        .collect()
}

#[test]
fn mei_hair_moves_keeps_its_length_and_stays_near_her() {
    let Some((model, motion)) = mei() else {
        eprintln!("corpus missing: skipped");
        return;
    };
    let last = 120; // mei_wait's last key
    let sim = heads(&model, &motion, true, last);
    let plain = heads(&model, &motion, false, last);
    let bones = &model.skeleton.bones;
    let center = bones
        .iter()
        .position(|b| b.name == "センター")
        .expect("センター");
    let physics_bones = driven(&model);
    assert!(physics_bones.len() >= 10, "{physics_bones:?}");
    let mut moved = 0.0_f32;
    let mut worst_stretch = 0.0_f32;
    for (f, frame) in sim.iter().enumerate() {
        for (b, p) in frame.iter().enumerate() {
            assert!(p.is_finite(), "frame {f} bone {b} not finite");
            let d = p.distance(frame[center]);
            assert!(
                d < 30.0,
                "frame {f}: {} is {d} from センター",
                bones[b].name
            );
        }
        for &b in &physics_bones {
            let Some(parent) = bones[b].parent else {
                continue;
            };
            let rest = bones[b].rest_position.distance(bones[parent].rest_position);
            let now = frame[b].distance(frame[parent]);
            if rest > 1e-3 {
                let stretch = (now - rest).abs() / rest;
                worst_stretch = worst_stretch.max(stretch);
                assert!(
                    stretch < 0.10,
                    "frame {f}: {} length {now} vs rest {rest}",
                    bones[b].name
                );
            }
            moved = moved.max(frame[b].distance(plain[f][b]));
        }
        // Mei's bodies are mode 2 (the bone keeps its animated head and takes
        // the body's rotation): the hair shows in the heads of the bones below.
        for (c, bone) in bones.iter().enumerate() {
            if bone.parent.is_some_and(|p| physics_bones.contains(&p)) {
                moved = moved.max(frame[c].distance(plain[f][c]));
            }
        }
    }
    eprintln!(
        "Mei + mei_wait, {} physics bones, 121 frames: worst stretch {:.2} %, largest head move from the animated pose {moved:.3} units",
        physics_bones.len(),
        worst_stretch * 100.0
    );
    // The hair hangs and swings: the head of some bone a physics bone
    // carries is at least a twentieth of a unit (4 mm) from where the
    // animation alone puts it (measured: 0.119 units; a gentle idle motion
    // and short hair-tip bones).
    assert!(moved > 0.05, "hair did not move: {moved}");
}

#[test]
fn two_runs_give_identical_bytes() {
    let Some((model, motion)) = mei() else {
        return;
    };
    let a = heads(&model, &motion, true, 40);
    let b = heads(&model, &motion, true, 40);
    let bits = |v: &Vec<Vec<Vec3>>| -> Vec<u32> {
        v.iter()
            .flatten()
            .flat_map(|p| p.to_array().map(f32::to_bits))
            .collect()
    };
    assert_eq!(bits(&a), bits(&b));
}

#[test]
fn a_physics_off_key_makes_the_bone_follow_its_keys_from_that_frame() {
    let Some((model, mut motion)) = mei() else {
        return;
    };
    let bones = &model.skeleton.bones;
    // A driven bone whose parent no dynamic body drives (a chain's top).
    let physics_bones = driven(&model);
    let b = *physics_bones
        .iter()
        .find(|&&b| bones[b].parent.is_some_and(|p| !physics_bones.contains(&p)))
        .expect("a chain top");
    // Its key at frame 30: turned 30° about X, physics off from there.
    let q = Quat::from_rotation_x(0.5);
    let mut key = BoneKey::new(
        &bones[b].name,
        NameEncoding::ShiftJis,
        30,
        [0.0; 3],
        q.to_array(),
    )
    .expect("key");
    assert!(key.set_physics_off(true));
    motion.bones.push(key);
    let sim = heads(&model, &motion, true, 60);
    let plain = heads(&model, &motion, false, 60);
    // Child bones of `b` show where it points.
    let children: Vec<usize> = (0..bones.len())
        .filter(|&c| bones[c].parent == Some(b))
        .collect();
    assert!(!children.is_empty());
    for f in 30..=60 {
        for &c in std::iter::once(&b).chain(&children) {
            // From frame 30 its bodies follow the keys: the animated pose.
            let d = sim[f][c].distance(plain[f][c]);
            assert!(d < 1e-4, "frame {f}: {} off by {d}", bones[c].name);
        }
    }
    // Before it, the key is interpolated from the rest but simulated:
    // somewhere in frames 5..29 the bone's child is away from the animated pose.
    let before = (5..30)
        .flat_map(|f| children.iter().map(move |&c| (f, c)))
        .map(|(f, c)| sim[f][c].distance(plain[f][c]))
        .fold(0.0_f32, f32::max);
    assert!(before > 0.01, "simulated before the key: {before}");
}

#[test]
fn a_bake_plays_back_the_simulation_without_physics() {
    let Some((model, motion)) = mei() else {
        return;
    };
    let mut calls = 0;
    let (baked, report) = bake_physics(&model, &motion, 0..=120, |_| {
        calls += 1;
        true
    })
    .expect("bake");
    assert_eq!(calls, 121);
    assert_eq!(report.frames, 121);
    assert_eq!(report.keys_written, report.bones.len() * 121);
    let sim = heads(&model, &motion, true, 120);
    let replay = heads(&model, &baked, false, 120);
    let mut worst = 0.0_f32;
    for f in 0..=120 {
        for b in 0..model.skeleton.bones.len() {
            worst = worst.max(sim[f][b].distance(replay[f][b]));
        }
    }
    eprintln!("bake replay: worst head difference {worst:e} units");
    // Keys hold the exact local values in f32; rebuilding world matrices
    // through chains of up to ~8 bones 10–20 units from the origin loses a
    // few ulps per product (f32 ulp at 16 is 2e-6): 1e-3 units (0.08 mm)
    // is far above that and far below any visible difference.
    assert!(worst < 1e-3, "replay differs by {worst}");
    // Cancelling stops at once and returns no motion.
    let mut n = 0;
    let r = bake_physics(&model, &motion, 0..=120, |_| {
        n += 1;
        n < 5
    });
    assert!(r.is_err());
    assert_eq!(n, 5);
}

#[test]
fn a_world_that_blows_up_resets_and_names_the_body() {
    // The pivot teleports 500 units sideways in one frame: the joint drags
    // the bob, which cannot follow 125 units per 1/120 s step and ends up
    // far more than 40 units (the blow-up distance) from where its bone
    // puts it. The joint limits translation to ±0.5 rather than locking it:
    // a locked joint's child is projected back onto its anchor after each
    // step and would follow.
    let mut model = pendulum_with_copy();
    model.joints[0].translation_limits = (Vec3::splat(-0.5), Vec3::splat(0.5));
    let mut motion = Motion::new_v2();
    for (frame, x) in [(0, 0.0), (1, 500.0)] {
        let key = BoneKey::new(
            "pivot",
            NameEncoding::ShiftJis,
            frame,
            [x, 0.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        )
        .expect("key");
        motion.bones.push(key);
    }
    let im = IndexedMotion::new(motion);
    let mut e = PoseEngine::new(&model);
    e.bind(&model, Some(&im.index));
    e.enable_physics(&model, SimulationMode::Trace);
    e.pose_bones(&model, Some(im.as_ref()), 0.0, |_| {});
    assert_eq!(e.take_physics_message(), None);
    e.pose(&model, Some(im.as_ref()), 1.0);
    let message = e.take_physics_message().expect("a reset message");
    assert!(message.contains("\"bob\""), "{message}");
    assert_eq!(e.take_physics_message(), None, "taken once");
    // Nothing non-finite reaches the pose; the bob is back at its bone
    // (reset to the pivot's new place plus its rest offset).
    assert!(e.posed.bone_world.iter().all(|m| m.is_finite()));
    assert!(e.posed.positions.iter().all(|p| p.is_finite()));
    let bob = e.posed.bone_position(1).expect("bob");
    let want = model.skeleton.bones[1].rest_position + Vec3::new(500.0, 0.0, 0.0);
    assert!(bob.distance(want) < 1e-3, "{bob} vs {want}");
}

/// Three physics bones whose names a VMD cannot store beside one it can:
/// 右侧髪_0_1 (侧 is Chinese: no Shift_JIS code) and two names whose
/// first 15 Shift_JIS bytes are the same (eight 2-byte kanji, then _1/_2).
fn pendulum_with_unstorable_names() -> Model {
    let mut m = pendulum_with_copy();
    let pivot = Vec3::new(0.0, 30.0, 0.0);
    for (i, name) in ["右侧髪_0_1", "髪髪髪髪髪髪髪髪_1", "髪髪髪髪髪髪髪髪_2"]
        .into_iter()
        .enumerate()
    {
        let at = pivot + Vec3::new(-2.0 - 2.0 * i as f32, -10.0, 0.0);
        let b = m.skeleton.bones.len();
        m.skeleton.bones.push(Bone::new(name, Some(0), at));
        let body_index = m.rigid_bodies.len();
        m.rigid_bodies.push(body(name, b, PhysicsMode::Physics, at));
        let mut j = m.joints[0].clone();
        j.name = format!("joint {name}");
        j.rigid_bodies = [Some(0), Some(body_index)];
        m.joints.push(j);
    }
    m
}

#[test]
fn a_bake_names_every_bone_whose_name_a_vmd_cannot_store_and_writes_none_of_their_keys() {
    // Hand check of the collision: 髪 is 2 bytes in Shift_JIS (0x94 0xAF),
    // so eight of them are 16 bytes and the 15-byte field ends inside the
    // eighth: both names give the same field.
    let sjis = |s: &str| encoding_rs::SHIFT_JIS.encode(s).0.into_owned();
    assert_eq!(sjis("髪"), vec![0x94, 0xAF]);
    assert_eq!(
        &sjis("髪髪髪髪髪髪髪髪_1")[..15],
        &sjis("髪髪髪髪髪髪髪髪_2")[..15]
    );
    let model = pendulum_with_unstorable_names();
    let motion = Motion::new_v2();
    let (baked, report) = bake_physics(&model, &motion, 0..=10, |_| true).expect("bake");
    // The storable physics bone is baked, the three others are named.
    assert_eq!(report.bones, vec!["bob".to_owned()]);
    let left: Vec<&str> = report.left_out.iter().map(|l| l.bone.as_str()).collect();
    assert_eq!(
        left,
        ["右侧髪_0_1", "髪髪髪髪髪髪髪髪_1", "髪髪髪髪髪髪髪髪_2"]
    );
    let text: Vec<String> = report.left_out.iter().map(ToString::to_string).collect();
    assert!(text[0].contains("Shift_JIS cannot hold"), "{}", text[0]);
    assert!(text[1].contains("髪髪髪髪髪髪髪髪_2"), "{}", text[1]);
    assert!(text[2].contains("髪髪髪髪髪髪髪髪_1"), "{}", text[2]);
    // Every key written is bob's: 11 frames, nothing under another name.
    assert_eq!(report.keys_written, 11);
    assert_eq!(baked.bones.len(), 11);
    assert!(baked.bones.iter().all(|k| k.name().text == "bob"));
}

#[test]
fn a_bake_with_only_unstorable_bones_is_refused_naming_them() {
    let mut model = pendulum_with_unstorable_names();
    // bob becomes a follow-bone body: only the three unstorable bones are
    // driven by dynamic bodies.
    model.rigid_bodies[1].mode = PhysicsMode::FollowBone;
    let e = bake_physics(&model, &Motion::new_v2(), 0..=10, |_| true).expect_err("refused");
    let text = e.to_string();
    for name in ["右侧髪_0_1", "髪髪髪髪髪髪髪髪_1", "髪髪髪髪髪髪髪髪_2"] {
        assert!(text.contains(name), "{text}");
    }
}

/// A bake of frames 60..=80 starts as playback does: simulated from frame
/// 0, so played back without physics its frames are the ones a simulation
/// from 0 shows (the reference: `heads`, one engine stepped from frame 0,
/// the way playback runs). A lead-in set at 60 (settled there, what the
/// bake did before) gives other hair at 60: the bake must not do that by
/// default.
#[test]
fn a_range_bake_carries_the_motion_from_the_start_like_playback() {
    let Some((model, motion)) = mei() else {
        return;
    };
    let mut calls = 0;
    let (baked, report) = bake_physics(&model, &motion, 60..=80, |_| {
        calls += 1;
        true
    })
    .expect("bake");
    assert_eq!(report.simulated_from, 0);
    assert_eq!(report.frames, 21);
    // Progress over the whole simulation: 81 frames, of which 21 written.
    assert_eq!(calls, 81);
    assert_eq!(
        report.keys_written - report.keys_restoring,
        report.bones.len() * 21
    );
    let sim = heads(&model, &motion, true, 80);
    let replay = heads(&model, &baked, false, 80);
    let worst_over = |a: &[Vec<Vec3>], b: &[Vec<Vec3>]| {
        (60..=80)
            .flat_map(|f| (0..model.skeleton.bones.len()).map(move |bone| (f, bone)))
            .map(|(f, bone)| a[f][bone].distance(b[f][bone]))
            .fold(0.0_f32, f32::max)
    };
    let from_start = worst_over(&sim, &replay);
    assert!(
        from_start < 1e-3,
        "the bake differs from playback by {from_start}"
    );
    // Settled at 60 instead: the hair is elsewhere at some frame of the range.
    let (settled, r) = bake_physics_from(&model, &motion, 60..=80, 60, |_| true).expect("bake");
    assert_eq!(r.simulated_from, 60);
    let replay_settled = heads(&model, &settled, false, 80);
    let from_60 = worst_over(&sim, &replay_settled);
    eprintln!("bake from 0: {from_start:e}; settled at 60: {from_60:e} units off playback");
    assert!(
        from_60 > 0.01,
        "settled at 60 is {from_60} off: the test would not tell"
    );
}
