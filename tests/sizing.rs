//! Sizing (issue 36) on hand-built skeletons: the leg ratios and the hip
//! offset against values computed here from the bone coordinates, the arm
//! stance turn against a hand-derived quaternion and against the posed
//! world directions, untouched bones byte-identical, a uniformly scaled
//! body reproducing the source's contacts scaled, and the errors.

use std::f32::consts::PI;

use glam::{Quat, Vec3};
use vmd_studio::model::{
    Bone, BoneTail, Format, IkChain, IkLink, Model, PoseEngine, standard_model,
};
use vmd_studio::sizing::{
    self, LegRatios, SizingError, SizingOptions, leg_ratios, measure, shared_horizontal,
};
use vmd_studio::vmd::{self, BoneKey, IndexedMotion, Motion, NameEncoding};

/// Bones by name: (name, parent, rest position).
type Spec<'a> = &'a [(&'a str, Option<&'a str>, [f32; 3])];

/// A model from `spec`, with a leg-IK chain (足ＩＫ → 足首 through ひざ, 足)
/// on each side whose bones exist.
fn rig(spec: Spec) -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    for (name, _, pos) in spec {
        let mut b = Bone::new(*name, None, Vec3::from_array(*pos));
        b.flags.movable = true;
        m.skeleton.bones.push(b);
    }
    for (i, (_, parent, _)) in spec.iter().enumerate() {
        m.skeleton.bones[i].parent = parent.and_then(|p| m.skeleton.find(p));
    }
    for side in ["左", "右"] {
        let find = |s: &str| m.skeleton.find(&format!("{side}{s}"));
        if let (Some(ik), Some(hip), Some(knee), Some(ankle)) =
            (find("足ＩＫ"), find("足"), find("ひざ"), find("足首"))
        {
            m.skeleton.bones[ik].flags.ik = true;
            m.skeleton.iks.push(IkChain {
                ik_bone: ik,
                target: ankle,
                loops: 40,
                limit_angle: 2.0,
                links: vec![
                    IkLink {
                        bone: knee,
                        limits: Some((Vec3::new(-PI, 0.0, 0.0), Vec3::new(-0.0087, 0.0, 0.0))),
                    },
                    IkLink {
                        bone: hip,
                        limits: None,
                    },
                ],
            });
        }
    }
    m
}

/// A body with the given left-leg joints (the right leg mirrored in X),
/// arms from `arm` along `arm_dir` (three joints 3 units apart, then 中指１
/// one unit on), and leg IK bones at the ankles.
fn body(hip: [f32; 3], knee: [f32; 3], ankle: [f32; 3], arm_dir: Vec3) -> Model {
    body_with_arms(hip, knee, ankle, arm_dir, 3.0)
}

/// [`body`] with the arm joints `joint` units apart (中指１ one unit past
/// the wrist).
fn body_with_arms(
    hip: [f32; 3],
    knee: [f32; 3],
    ankle: [f32; 3],
    arm_dir: Vec3,
    joint: f32,
) -> Model {
    let m = |p: [f32; 3]| [-p[0], p[1], p[2]];
    let arm = Vec3::new(2.0, 15.0, 0.0);
    let left: Vec<[f32; 3]> = (0..3)
        .map(|i| (arm + arm_dir * joint * i as f32).to_array())
        .chain(std::iter::once(
            (arm + arm_dir * (2.0 * joint + 1.0)).to_array(),
        ))
        .collect();
    let spec: Vec<(String, Option<String>, [f32; 3])> = vec![
        ("全ての親".into(), None, [0.0; 3]),
        ("センター".into(), Some("全ての親".into()), [0.0, 8.0, 0.0]),
        ("上半身".into(), Some("センター".into()), [0.0, 11.0, 0.0]),
        ("頭".into(), Some("上半身".into()), [0.0, 17.0, 0.0]),
        ("下半身".into(), Some("センター".into()), [0.0, 11.0, 0.0]),
        ("左足".into(), Some("下半身".into()), hip),
        ("左ひざ".into(), Some("左足".into()), knee),
        ("左足首".into(), Some("左ひざ".into()), ankle),
        ("右足".into(), Some("下半身".into()), m(hip)),
        ("右ひざ".into(), Some("右足".into()), m(knee)),
        ("右足首".into(), Some("右ひざ".into()), m(ankle)),
        ("左足ＩＫ".into(), Some("全ての親".into()), ankle),
        ("右足ＩＫ".into(), Some("全ての親".into()), m(ankle)),
        ("左腕".into(), Some("上半身".into()), left[0]),
        ("左ひじ".into(), Some("左腕".into()), left[1]),
        ("左手首".into(), Some("左ひじ".into()), left[2]),
        ("左中指１".into(), Some("左手首".into()), left[3]),
        ("右腕".into(), Some("上半身".into()), m(left[0])),
        ("右ひじ".into(), Some("右腕".into()), m(left[1])),
        ("右手首".into(), Some("右ひじ".into()), m(left[2])),
        ("右中指１".into(), Some("右手首".into()), m(left[3])),
    ];
    let refs: Vec<(&str, Option<&str>, [f32; 3])> = spec
        .iter()
        .map(|(n, p, x)| (n.as_str(), p.as_deref(), *x))
        .collect();
    rig(&refs)
}

fn key(name: &str, frame: u32, pos: [f32; 3], rot: Quat) -> BoneKey {
    BoneKey::new(name, NameEncoding::ShiftJis, frame, pos, rot.to_array()).expect("key")
}

fn motion(keys: Vec<BoneKey>) -> Motion {
    let mut m = Motion::new_v2();
    m.bones = keys;
    m
}

/// The world position of bone `name` posed with `motion` at `frame`.
fn world(model: &Model, motion: &Motion, name: &str, frame: f64) -> Vec3 {
    let im = IndexedMotion::new(motion.clone());
    let mut e = PoseEngine::new(model);
    e.bind(model, Some(&im.index));
    e.pose_bones(model, Some(im.as_ref()), frame, |_| {});
    let b = model.skeleton.find(name).expect("bone");
    e.posed.bone_world[b].w_axis.truncate()
}

const HORIZONTAL: Vec3 = Vec3::X;

fn a_stance() -> Vec3 {
    Vec3::new(30f32.to_radians().cos(), -30f32.to_radians().sin(), 0.0)
}

/// Source: a slightly bent leg, hip (1,10,0), knee (1,6,−0.5), ankle
/// (1,1,0). Target: hip (1.5,12,0), knee (1.5,7,0), ankle (1.5,1.5,0.8).
fn pair() -> (Model, Model) {
    (
        body(
            [1.0, 10.0, 0.0],
            [1.0, 6.0, -0.5],
            [1.0, 1.0, 0.0],
            HORIZONTAL,
        ),
        body(
            [1.5, 12.0, 0.0],
            [1.5, 7.0, 0.0],
            [1.5, 1.5, 0.8],
            a_stance(),
        ),
    )
}

#[test]
fn leg_ratios_are_the_hand_computed_ones() {
    let (s, t) = pair();
    let src = measure(&s, "source").expect("source");
    let dst = measure(&t, "target").expect("target");
    // Source: reach |(1,1,0) − (1,10,0)| = 9, drop 9, bone length
    // √(4² + 0.5²) + √(5² + 0.5²).
    let s_len = (16.25f32).sqrt() + (25.25f32).sqrt();
    // Target: reach √(10.5² + 0.8²), drop 10.5, bone length 5 + √(5.5² + 0.8²).
    let t_reach = (110.25f32 + 0.64).sqrt();
    let t_len = 5.0 + (30.25f32 + 0.64).sqrt();
    assert!((src.leg_reach - 9.0).abs() < 1e-5);
    assert!((src.leg_drop - 9.0).abs() < 1e-5);
    assert!((src.leg_length - s_len).abs() < 1e-5);
    assert!((dst.leg_length - t_len).abs() < 1e-5);
    let r = leg_ratios(&src, &dst);
    assert!((r.horizontal - t_reach / 9.0).abs() < 1e-5, "{r:?}");
    assert!((r.vertical - 10.5 / 9.0).abs() < 1e-5, "{r:?}");
    assert!((r.hips - t_len / s_len).abs() < 1e-5, "{r:?}");
    // Hips: the source drops 9 of its 9.056 bone length; the target would
    // drop that share of its own length, 10.4925…, so センター goes down
    // by 10.5 − 10.4925… ≈ 0.0075.
    let wanted = 9.0 / s_len * t_len;
    assert!((r.hip_offset - (wanted - 10.5)).abs() < 1e-5, "{r:?}");
    assert!(r.hip_offset < -0.007 && r.hip_offset > -0.008, "{r:?}");
    // The other way round the hips rise (v5 would not): the drop 9 becomes
    // 10.5 / 10.558 of the bent leg's 9.056, ≈ 9.0064.
    let back = leg_ratios(&dst, &src);
    assert!(
        (back.hip_offset - (10.5 / t_len * s_len - 9.0)).abs() < 1e-5,
        "{back:?}"
    );
    assert!(
        back.hip_offset > 0.006 && back.hip_offset < 0.007,
        "{back:?}"
    );
}

#[test]
fn a_group_shares_the_mean_horizontal_ratio_capped_at_1_2() {
    let r = |h| LegRatios {
        horizontal: h,
        vertical: 1.0,
        hips: 1.0,
        hip_offset: 0.0,
    };
    assert_eq!(shared_horizontal(&[]), None);
    assert_eq!(shared_horizontal(&[r(1.5)]), Some(1.5));
    assert!((shared_horizontal(&[r(1.0), r(1.1)]).unwrap() - 1.05).abs() < 1e-6);
    assert_eq!(shared_horizontal(&[r(1.3), r(1.5)]), Some(1.2));
}

#[test]
fn movement_keys_are_scaled_and_hips_moved() {
    let (s, t) = pair();
    let m = motion(vec![
        key("センター", 0, [1.0, -2.0, 3.0], Quat::IDENTITY),
        key("左足ＩＫ", 0, [0.5, 1.0, -1.0], Quat::IDENTITY),
    ]);
    let out = sizing::size_motion(&m, &s, &t, &SizingOptions::default()).expect("sized");
    let r = out.ratios;
    let c = out.motion.bones[0].position();
    assert!((c[0] - r.horizontal).abs() < 1e-5);
    assert!((c[1] - (-2.0 * r.hips + r.hip_offset)).abs() < 1e-5);
    assert!((c[2] - 3.0 * r.horizontal).abs() < 1e-5);
    // 足ＩＫ: X and Z scaled plus the rest spread: source foot at x = 1,
    // target at 1.5, so + (h·1 − 1.5) on X; Z rest 0 and 0.8: + (h·0 − 0.8).
    let ik = out.motion.bones[1].position();
    let h = r.horizontal;
    assert!((ik[0] - (0.5 * h + h - 1.5)).abs() < 1e-5, "{ik:?}");
    assert!((ik[1] - r.vertical).abs() < 1e-5, "{ik:?}");
    assert!((ik[2] - (-h - 0.8)).abs() < 1e-5, "{ik:?}");
    // The right foot had no track: it gets one key at frame 0 with its
    // spread (mirrored: −(h·1 − 1.5)).
    let right = out
        .changes
        .iter()
        .find(|c| c.bone == "右足ＩＫ")
        .expect("right");
    assert_eq!((right.added, right.changed), (1, 0));
    let added = out.motion.bones[m.bones.len()..]
        .iter()
        .find(|k| k.name().text == "右足ＩＫ")
        .expect("added key");
    assert_eq!(added.frame(), 0);
    assert!((added.position()[0] - (1.5 - h)).abs() < 1e-5, "{added:?}");
    assert!((added.position()[2] + 0.8).abs() < 1e-5, "{added:?}");
}

#[test]
fn an_arm_horizontal_on_the_source_stays_horizontal_on_an_a_stance_target() {
    let (s, t) = pair();
    let bend = Quat::from_rotation_y(PI / 2.0);
    let m = motion(vec![
        key("左腕", 0, [0.0; 3], Quat::IDENTITY),
        key("左ひじ", 0, [0.0; 3], bend),
        key("右腕", 0, [0.0; 3], Quat::IDENTITY),
    ]);
    let out = sizing::size_motion(&m, &s, &t, &SizingOptions::default()).expect("sized");
    // The target's arm points 30° below +X; the turn back up is 30° about
    // +Z: (0, 0, sin 15°, cos 15°). The right arm mirrors it: −30°.
    let (s15, c15) = (15f32.to_radians().sin(), 15f32.to_radians().cos());
    let l = out.motion.bones[0].rotation();
    let r = out.motion.bones[2].rotation();
    for (got, want) in [(l, [0.0, 0.0, s15, c15]), (r, [0.0, 0.0, -s15, c15])] {
        for i in 0..4 {
            assert!((got[i] - want[i]).abs() < 1e-5, "{got:?} vs {want:?}");
        }
    }
    // Posed: every arm segment of the target points where the source's
    // does (the elbow bend is carried into the target's frame).
    for (a, b) in [("左腕", "左ひじ"), ("左ひじ", "左手首"), ("右腕", "右ひじ")] {
        let src = (world(&s, &m, b, 0.0) - world(&s, &m, a, 0.0)).normalize();
        let dst = (world(&t, &out.motion, b, 0.0) - world(&t, &out.motion, a, 0.0)).normalize();
        assert!(src.angle_between(dst) < 1e-3, "{a}: {src} vs {dst}");
        let plain = (world(&t, &m, b, 0.0) - world(&t, &m, a, 0.0)).normalize();
        assert!(
            src.angle_between(plain) > 0.4,
            "{a}: the unsized arm was off"
        );
    }
    // The source's forearm after the 90° bend about Y points along −Z.
    let fore = (world(&s, &m, "左手首", 0.0) - world(&s, &m, "左ひじ", 0.0)).normalize();
    assert!(fore.distance(Vec3::NEG_Z) < 1e-4, "{fore}");
    // --no-arms leaves the arm keys alone.
    let no_arms = SizingOptions {
        arms: false,
        feet: true,
        ..SizingOptions::default()
    };
    let kept = sizing::size_motion(&m, &s, &t, &no_arms).expect("sized");
    assert_eq!(kept.motion.bones[..3], m.bones[..3]);
}

#[test]
fn bones_the_sizing_does_not_touch_stay_byte_identical() {
    let (s, t) = pair();
    let mut head = key("頭", 5, [0.1, 0.2, 0.3], Quat::from_rotation_x(0.3));
    let mut block = head.interpolation_block();
    block[0] = 99; // a hand-made curve byte
    head.set_interpolation_block(block);
    let m = motion(vec![
        head,
        key("上半身", 7, [0.0; 3], Quat::from_rotation_z(0.2)),
        key("センター", 9, [0.0, 1.0, 0.0], Quat::IDENTITY),
    ]);
    let out = sizing::size_motion(&m, &s, &t, &SizingOptions::default()).expect("sized");
    assert_eq!(out.motion.bones[0], m.bones[0]);
    assert_eq!(out.motion.bones[1], m.bones[1]);
    assert_ne!(out.motion.bones[2], m.bones[2]);
    // A changed key keeps its frame, name and curves.
    assert_eq!(
        out.motion.bones[2].interpolation_block(),
        m.bones[2].interpolation_block()
    );
    assert_eq!(out.motion.bones[2].frame(), 9);
    let head = out.changes.iter().find(|c| c.bone == "頭").expect("頭");
    assert_eq!((head.changed, head.added, head.untouched), (0, 0, 1));
    // Sized onto its own model, a motion comes back byte for byte.
    let same = sizing::size_motion(&m, &s, &s, &SizingOptions::default()).expect("sized");
    assert_eq!(
        vmd::write(&same.motion).expect("write"),
        vmd::write(&m).expect("write")
    );
}

/// `model` with every rest position (and tail offset) × `k`.
fn scaled(model: &Model, k: f32) -> Model {
    let mut m = model.clone();
    for b in &mut m.skeleton.bones {
        b.rest_position *= k;
        if let Some(BoneTail::Offset(o)) = &mut b.tail {
            *o *= k;
        }
    }
    m
}

#[test]
fn a_body_scaled_1_2_gets_the_sources_contacts_scaled() {
    let s = standard_model();
    let t = scaled(&s, 1.2);
    let m = motion(vec![
        key("センター", 0, [0.0; 3], Quat::IDENTITY),
        key("センター", 30, [1.0, -2.0, 0.5], Quat::IDENTITY),
        key("左足ＩＫ", 0, [0.0; 3], Quat::IDENTITY),
        key("左足ＩＫ", 30, [1.5, 0.0, -1.0], Quat::from_rotation_y(0.4)),
        key("右足ＩＫ", 15, [-0.5, 2.0, 0.5], Quat::IDENTITY),
        key("上半身", 30, [0.0; 3], Quat::from_rotation_x(0.3)),
        key("左腕", 30, [0.0; 3], Quat::from_rotation_z(0.8)),
    ]);
    let out = sizing::size_motion(&m, &s, &t, &SizingOptions::default()).expect("sized");
    let r = out.ratios;
    assert!((r.horizontal - 1.2).abs() < 1e-5 && (r.vertical - 1.2).abs() < 1e-5);
    assert!((r.hips - 1.2).abs() < 1e-5);
    assert!(r.hip_offset.abs() < 1e-5);
    assert_eq!(out.feet_lifted, 0);
    for frame in [0.0, 10.0, 15.0, 22.5, 30.0] {
        for bone in ["左足首", "右足首", "左つま先", "右つま先", "左手首", "頭"] {
            let want = world(&s, &m, bone, frame) * 1.2;
            let got = world(&t, &out.motion, bone, frame);
            assert!(
                got.distance(want) < 0.01,
                "{bone} at {frame}: {got} vs {want}"
            );
        }
    }
    let q = sizing::quality(&m, &out.motion, &s, &t).expect("quality");
    assert!(
        q.after.stance_error < 1e-3 && q.after.hip_error < 1e-3,
        "{q:?}"
    );
    assert_eq!(q.after.ik_reach, q.source.ik_reach);
    assert!(q.after.arm_angle_max.expect("arms") < 0.1);
}

/// The standard body with legs 1.2× as long: each leg chain scaled about
/// its hip joint, the hip joint and everything above raised by 0.2 × its
/// height, so the feet stay on the floor.
fn long_legs(model: &Model) -> Model {
    let mut m = model.clone();
    let hip_y = m
        .skeleton
        .find("左足")
        .map(|i| m.skeleton.bones[i].rest_position.y);
    let hip_y = hip_y.expect("左足");
    for b in &mut m.skeleton.bones {
        let leg = ["足", "ひざ", "つま先"].iter().any(|s| b.name.contains(s));
        let p = &mut b.rest_position;
        if leg {
            // Scale about the hip (x, z kept at the joint, y about the floor).
            let hip = if p.x >= 0.0 { 1.0 } else { -1.0 };
            p.x = hip + (p.x - hip) * 1.2;
            p.y *= 1.2;
            p.z = 0.1 + (p.z - 0.1) * 1.2;
        } else {
            p.y += 0.2 * hip_y;
        }
    }
    m
}

#[test]
fn longer_legs_keep_hips_and_stance_in_proportion() {
    let s = standard_model();
    let t = long_legs(&s);
    // A squat with a wide stance, then a step.
    let m = motion(vec![
        key("センター", 0, [0.0; 3], Quat::IDENTITY),
        key("センター", 20, [0.0, -3.0, 0.0], Quat::IDENTITY),
        key("センター", 40, [2.0, -1.0, 0.0], Quat::IDENTITY),
        key("左足ＩＫ", 0, [1.0, 0.0, 0.0], Quat::IDENTITY),
        key("右足ＩＫ", 0, [-1.0, 0.0, 0.0], Quat::IDENTITY),
        key("右足ＩＫ", 40, [3.0, 0.0, -1.0], Quat::IDENTITY),
    ]);
    let out = sizing::size_motion(&m, &s, &t, &SizingOptions::default()).expect("sized");
    let q = sizing::quality(&m, &out.motion, &s, &t).expect("quality");
    assert_eq!(q.source.frames, 41);
    assert!(q.after.hip_error < q.before.hip_error / 3.0, "{q:#?}");
    assert!(q.after.stance_error < q.before.stance_error / 3.0, "{q:#?}");
    assert!(q.after.ik_reach >= q.source.ik_reach - 1e-9, "{q:#?}");
    assert_eq!(q.after.floor_frames, 0, "{q:#?}");
}

#[test]
fn several_actors_share_one_horizontal_ratio() {
    let s = standard_model();
    let a = scaled(&s, 1.1);
    let b = scaled(&s, 0.9);
    let m = motion(vec![key("センター", 0, [1.0, 0.0, 0.0], Quat::IDENTITY)]);
    let out = sizing::size_motions(&m, &s, &[&a, &b], &SizingOptions::default()).expect("sized");
    assert_eq!(out.len(), 2);
    for o in &out {
        assert!((o.ratios.horizontal - 1.0).abs() < 1e-5, "{:?}", o.ratios);
    }
    assert!((out[0].ratios.vertical - 1.1).abs() < 1e-5);
    assert!((out[1].ratios.vertical - 0.9).abs() < 1e-5);
}

#[test]
fn bad_input_names_what_is_wrong() {
    let (s, t) = pair();
    let m = motion(vec![key("センター", 0, [0.0; 3], Quat::IDENTITY)]);
    let opts = SizingOptions::default();
    // A target without 左ひざ.
    let mut no_knee = t.clone();
    let k = no_knee.skeleton.find("左ひざ").expect("knee");
    no_knee.skeleton.bones[k].name = "ひざ?".into();
    let e = sizing::size_motion(&m, &s, &no_knee, &opts).expect_err("no knee");
    assert!(
        matches!(&e, SizingError::MissingBones { role, names } if role == "target" && names == &["左ひざ"]),
        "{e:?}"
    );
    assert!(e.to_string().contains("左ひざ"), "{e}");
    // A knee on the hip: a zero-length bone.
    let mut flat = t.clone();
    let hip = flat.skeleton.bones[flat.skeleton.find("右足").expect("hip")].rest_position;
    let k = flat.skeleton.find("右ひざ").expect("knee");
    flat.skeleton.bones[k].rest_position = hip;
    let e = sizing::size_motion(&m, &s, &flat, &opts).expect_err("zero length");
    assert!(
        e.to_string().contains("右足") && e.to_string().contains("右ひざ"),
        "{e}"
    );
    // Arms missing: refused unless arms are off.
    let mut armless = t.clone();
    let w = armless.skeleton.find("右手首").expect("wrist");
    armless.skeleton.bones[w].name = "x".into();
    let e = sizing::size_motion(&m, &s, &armless, &opts).expect_err("armless");
    assert!(e.to_string().contains("右手首"), "{e}");
    let no_arms = SizingOptions {
        arms: false,
        feet: true,
        ..SizingOptions::default()
    };
    assert!(sizing::size_motion(&m, &s, &armless, &no_arms).is_ok());
    // A non-finite key.
    let nan = motion(vec![key("頭", 12, [f32::NAN, 0.0, 0.0], Quat::IDENTITY)]);
    let e = sizing::size_motion(&nan, &s, &t, &opts).expect_err("nan");
    assert_eq!(
        e,
        SizingError::NonFiniteKey {
            bone: "頭".into(),
            frame: 12
        }
    );
    // A motion for another skeleton.
    let other = motion(vec![key("Bone1", 0, [0.0; 3], Quat::IDENTITY)]);
    let e = sizing::size_motion(&other, &s, &t, &opts).expect_err("other");
    assert_eq!(e, SizingError::DifferentSkeleton { tracks: 1 });
}

/// The target has 上半身3 (under 上半身2, appending 0.4 × 上半身2), the
/// source does not: sizing cancels the extra turn, so the shoulders turn as
/// on the source.
#[test]
fn an_extra_appending_trunk_bone_on_the_target_is_cancelled() {
    use vmd_studio::model::Inherit;
    let s = standard_model();
    let mut t = standard_model();
    let u2 = t.skeleton.find("上半身2").expect("上半身2");
    let mut b = Bone::new("上半身3", Some(u2), Vec3::new(0.0, 14.0, 0.3));
    b.inherit = Some(Inherit {
        source: u2,
        ratio: 0.4,
        rotation: true,
        translation: false,
        local: false,
    });
    t.skeleton.bones.push(b);
    let u3 = t.skeleton.bones.len() - 1;
    for n in ["首", "左肩", "右肩"] {
        let i = t.skeleton.find(n).expect("bone");
        t.skeleton.bones[i].parent = Some(u3);
    }
    let m = motion(vec![
        key("上半身2", 0, [0.0; 3], Quat::from_rotation_x(0.5)),
        key("上半身2", 10, [0.0; 3], Quat::from_rotation_z(0.3)),
    ]);
    let out = sizing::size_motion(&m, &s, &t, &SizingOptions::default()).expect("sized");
    let c = out
        .changes
        .iter()
        .find(|c| c.bone == "上半身3")
        .expect("上半身3");
    assert_eq!(c.added, 2);
    for f in [0.0, 10.0] {
        let want = world(&s, &m, "左手首", f);
        assert!(
            world(&t, &out.motion, "左手首", f).distance(want) < 1e-3,
            "{f}"
        );
        assert!(
            world(&t, &m, "左手首", f).distance(want) > 0.1,
            "{f}: unsized was off"
        );
    }
}

/// Legs of the source in [`pair`] with arms `joint` units per bone, held
/// out horizontally from (±2, 15, 0).
fn clapper(joint: f32) -> Model {
    body_with_arms(
        [1.0, 10.0, 0.0],
        [1.0, 6.0, -0.5],
        [1.0, 1.0, 0.0],
        HORIZONTAL,
        joint,
    )
}

/// A clap: arms out at frame 0, each 腕 turned about Y by φ = acos(−1/3)
/// (≈ 109.47°) at frames 10 and 12, out again at 20. On arms of 2 × 3
/// units from x = ±2 the straight arm points along (∓1/3, 0, −√8/3), so
/// both wrists are at (0, 15, −4√2) at 10–12: they meet.
fn clap() -> Motion {
    let phi = (-1.0f32 / 3.0).acos();
    let mut keys = Vec::new();
    for (frame, a) in [(0, 0.0), (10, phi), (12, phi), (20, 0.0)] {
        keys.push(key("左腕", frame, [0.0; 3], Quat::from_rotation_y(a)));
        keys.push(key("右腕", frame, [0.0; 3], Quat::from_rotation_y(-a)));
    }
    motion(keys)
}

/// Hand contacts on the source, by hand: the left wrist is at
/// x = 2 + 6 cos(a) with a = φ·t (linear curves, slerp about one axis), the
/// right one mirrored, so the wrists are 2|2 + 6 cos a| apart; they touch
/// below 20 % of the arm's 6 units, 1.2, i.e. a > acos(−0.2333) = 103.5°.
/// Frames 10–12 hold φ = 109.5°; frame 9 has 0.9 φ = 98.5° and frame 13
/// 0.875 φ = 95.8°: 3 contact frames of 21.
#[test]
fn hand_contacts_are_counted_as_computed_by_hand() {
    let s = clapper(3.0);
    let m = clap();
    let q = sizing::quality(&m, &m, &s, &s).expect("quality");
    assert_eq!(q.source.frames, 21);
    assert_eq!(q.source.hand_contacts, 3, "{q:#?}");
    assert_eq!(q.source.hand_contacts_kept, Some(1.0));
    // 頭 sits at the clap point: a wrist touches it below 25 % of 6 = 1.5.
    // Frame 9: wrist (1.111, 15, −5.934), 1.145 from (0, 15, −5.657);
    // frame 13: (1.395, 15, −5.969), 1.43; frame 8 (87.6°): 2.28 and
    // frame 14 (82.1°): 2.84 are too far. 5 frames × 2 hands.
    let mut h = s.clone();
    let head = h.skeleton.find("頭").expect("頭");
    h.skeleton.bones[head].rest_position = Vec3::new(0.0, 15.0, -4.0 * 2f32.sqrt());
    let q = sizing::quality(&m, &m, &h, &h).expect("quality");
    assert_eq!(q.source.head_contacts, 10, "{q:#?}");
    assert_eq!(q.source.head_contacts_kept, Some(1.0));
    // No contact, no share.
    let apart = motion(vec![key("左腕", 0, [0.0; 3], Quat::IDENTITY)]);
    let q = sizing::quality(&apart, &apart, &s, &s).expect("quality");
    assert_eq!(
        (q.source.hand_contacts, q.source.hand_contacts_kept),
        (0, None)
    );
}

/// A target with arms twice as long: worn unsized, the straight arms of
/// the clap cross (left wrist at x = 2 − 12/3 = −2, 4 apart, over 20 % of
/// 12 = 2.4); sized with hand alignment the wrists meet at their midpoint
/// (0, 15, −8√2), 11.49 from the shoulder, within the arm's 12.
#[test]
fn a_clap_still_meets_on_longer_arms() {
    let (s, t) = (clapper(3.0), clapper(6.0));
    let m = clap();
    let out = sizing::size_motion(&m, &s, &t, &SizingOptions::default()).expect("sized");
    assert_eq!(out.hands_aligned, 3, "frames 10–12: {:?}", out.notes);
    let gap = |mo: &Motion, f: f64| world(&t, mo, "左手首", f).distance(world(&t, mo, "右手首", f));
    assert!((gap(&m, 10.0) - 4.0).abs() < 1e-3, "{}", gap(&m, 10.0));
    for f in [10.0, 11.0, 12.0] {
        assert!(gap(&out.motion, f) < 0.01, "{f}: {}", gap(&out.motion, f));
        let mid = (world(&t, &out.motion, "左手首", f) + world(&t, &out.motion, "右手首", f)) / 2.0;
        assert!(
            mid.distance(Vec3::new(0.0, 15.0, -8.0 * 2f32.sqrt())) < 0.01,
            "{mid}"
        );
    }
    // Frames outside the contact keep their pose: ひじ had no track and
    // gets keys at 10, 11, 12 and identity keys at 0 and 20 around them;
    // 腕 had keys at 10 and 12 (changed) and gets one at 11.
    for f in [0.0, 20.0] {
        for b in ["左手首", "右手首"] {
            assert!(world(&t, &out.motion, b, f).distance(world(&t, &m, b, f)) < 1e-4);
        }
    }
    let elbow = out
        .changes
        .iter()
        .find(|c| c.bone == "左ひじ")
        .expect("ひじ");
    assert_eq!((elbow.added, elbow.changed), (5, 0));
    let arm = out.changes.iter().find(|c| c.bone == "右腕").expect("腕");
    assert_eq!((arm.added, arm.changed, arm.untouched), (1, 2, 2));
    let q = sizing::quality(&m, &out.motion, &s, &t).expect("quality");
    assert_eq!(q.source.hand_contacts, 3);
    assert_eq!(q.before.hand_contacts_kept, Some(0.0), "{q:#?}");
    assert_eq!(q.after.hand_contacts_kept, Some(1.0), "{q:#?}");
    // Without the option the arms are left as they were.
    let off = SizingOptions {
        hands: false,
        ..SizingOptions::default()
    };
    let plain = sizing::size_motion(&m, &s, &t, &off).expect("sized");
    assert_eq!(plain.hands_aligned, 0);
    assert_eq!(plain.motion.bones, m.bones);
}

/// A hand on the head: only 左腕 turns by φ (frames 10–12), which puts
/// the source's left wrist at (0, 15, −4√2) (see [`clap`]), where the test
/// puts both models' 頭. On the target's arms twice as long the unsized
/// wrist lands at (2, 15, 0) + 12·(−1/3, 0, −√8/3) = (−2, 15, −8√2), 6
/// from 頭 (half its arm: off the head); sized, the wrist is put back on
/// 頭 (the source's offset from 頭 is 0), 6 from the shoulder, within
/// reach. The right hand, never on the head, is left as it was.
#[test]
fn a_hand_on_the_head_stays_on_the_head_on_longer_arms() {
    let phi = (-1.0f32 / 3.0).acos();
    let with_head = |joint: f32| {
        let mut m = clapper(joint);
        let head = m.skeleton.find("頭").expect("頭");
        m.skeleton.bones[head].rest_position = Vec3::new(0.0, 15.0, -4.0 * 2f32.sqrt());
        m
    };
    let (s, t) = (with_head(3.0), with_head(6.0));
    let mut keys = Vec::new();
    for (frame, a) in [(0, 0.0), (10, phi), (12, phi), (20, 0.0)] {
        keys.push(key("左腕", frame, [0.0; 3], Quat::from_rotation_y(a)));
    }
    let m = motion(keys);
    let head = Vec3::new(0.0, 15.0, -4.0 * 2f32.sqrt());
    assert!(world(&s, &m, "左手首", 11.0).distance(head) < 1e-3);
    let bare = world(&t, &m, "左手首", 11.0);
    assert!(
        bare.distance(Vec3::new(-2.0, 15.0, -8.0 * 2f32.sqrt())) < 1e-3,
        "{bare}"
    );
    let out = sizing::size_motion(&m, &s, &t, &SizingOptions::default()).expect("sized");
    assert!(out.hands_aligned >= 3, "frames 10–12: {:?}", out.notes);
    for f in [10.0, 11.0, 12.0] {
        let w = world(&t, &out.motion, "左手首", f);
        assert!(w.distance(head) < 0.01, "{f}: {w}");
        let r = world(&t, &out.motion, "右手首", f);
        assert!(
            r.distance(world(&t, &m, "右手首", f)) < 1e-4,
            "{f}: right hand moved"
        );
    }
    for f in [0.0, 20.0] {
        let w = world(&t, &out.motion, "左手首", f);
        assert!(w.distance(world(&t, &m, "左手首", f)) < 1e-4, "{f}");
    }
    let q = sizing::quality(&m, &out.motion, &s, &t).expect("quality");
    assert!(q.source.head_contacts >= 3, "{q:#?}");
    assert_eq!(q.before.head_contacts_kept, Some(0.0), "{q:#?}");
    assert_eq!(q.after.head_contacts_kept, Some(1.0), "{q:#?}");
}

#[test]
fn a_group_of_motions_shares_the_mean_horizontal_ratio() {
    let x = Vec3::X;
    // Source leg: 足 (1, 10, 0) → 足首 (1, 1, 0): reach 9, drop 9.
    let s = body([1.0, 10.0, 0.0], [1.0, 5.5, 0.0], [1.0, 1.0, 0.0], x);
    // Targets: reach 11 (ratio 11/9) and reach 8 (ratio 8/9).
    let a = body([1.0, 12.0, 0.0], [1.0, 6.5, 0.0], [1.0, 1.0, 0.0], x);
    let b = body([1.0, 9.0, 0.0], [1.0, 5.0, 0.0], [1.0, 1.0, 0.0], x);
    // Each actor its own motion: a dancer 2 units to the left, one to the
    // right and back.
    let ma = motion(vec![key("センター", 0, [2.0, 0.0, 0.0], Quat::IDENTITY)]);
    let mb = motion(vec![key("センター", 0, [-3.0, 0.0, 1.5], Quat::IDENTITY)]);
    let opts = SizingOptions::default();
    let out = sizing::size_group(&[(&ma, &a), (&mb, &b)], &s, &opts).expect("sized");
    // Shared: the mean (11/9 + 8/9)/2 = 19/18 (under v5's 1.2 cap).
    let shared = 19.0 / 18.0;
    assert_eq!(out.len(), 2);
    for o in &out {
        assert!(
            (o.ratios.horizontal - shared).abs() < 1e-5,
            "{:?}",
            o.ratios
        );
    }
    // Vertical ratios stay each actor's own: drops 11/9 and 8/9.
    assert!((out[0].ratios.vertical - 11.0 / 9.0).abs() < 1e-5);
    assert!((out[1].ratios.vertical - 8.0 / 9.0).abs() < 1e-5);
    // Both formations scaled by the shared ratio: X/Z of センター.
    let center = |m: &Motion| {
        let k = m
            .bones
            .iter()
            .find(|k| k.name().text == "センター")
            .expect("key");
        k.position()
    };
    let (pa, pb) = (center(&out[0].motion), center(&out[1].motion));
    assert!(
        (pa[0] - 2.0 * shared).abs() < 1e-4 && pa[2].abs() < 1e-6,
        "{pa:?}"
    );
    assert!((pb[0] + 3.0 * shared).abs() < 1e-4, "{pb:?}");
    assert!((pb[2] - 1.5 * shared).abs() < 1e-4, "{pb:?}");
    // size_motions is the group with one motion.
    let same = sizing::size_motions(&ma, &s, &[&a, &b], &opts).expect("sized");
    let group = sizing::size_group(&[(&ma, &a), (&ma, &b)], &s, &opts).expect("sized");
    assert_eq!(same, group);
}
