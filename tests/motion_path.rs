//! Motion paths and the value graph's data, checked against separate
//! computations written here: forward kinematics from the records, the
//! camera's eye from its keys, handle bytes by hand.

mod common;

use glam::{Mat4, Quat, Vec3};
use vmd_studio::model::{Model, PoseEngine};
use vmd_studio::scene::motion_path::{camera_path, motion_path};
use vmd_studio::scene::value_graph::{
    BoneValue, CameraValue, Handle, bone_handle_drag, bone_segments, bone_series,
    camera_handle_drag, camera_segments,
};
use vmd_studio::vmd::camera::eye_position;
use vmd_studio::vmd::curve_edit::plan_bone_curve;
use vmd_studio::vmd::evaluate::bone_at;
use vmd_studio::vmd::interpolation::bone_copy_indices;
use vmd_studio::vmd::{self, BoneChannel, CameraChannel, Curve, IndexedMotion, Motion, TrackIndex};

fn open(dir: &std::path::Path, model: &str, motion: &str) -> (Model, IndexedMotion) {
    let model = Model::open(&dir.join(model)).unwrap();
    let m = vmd::read(&std::fs::read(dir.join(motion)).unwrap()).unwrap();
    (model, IndexedMotion::new(m))
}

/// A bone's head by plain forward kinematics from the motion's records:
/// world(b) = world(parent) · T(rest(b) − rest(parent) + t(b)) · R(q(b)),
/// with (t, q) the record-evaluated values ([`bone_at`]) — valid for a
/// chain without inheritance or IK, which the caller checks.
fn fk_head(model: &Model, m: &Motion, idx: &TrackIndex, bone: usize, frame: f64) -> Vec3 {
    let mut chain = vec![bone];
    while let Some(p) = model.skeleton.bones[*chain.last().unwrap()].parent {
        chain.push(p);
    }
    let mut world = Mat4::IDENTITY;
    let mut parent_rest = Vec3::ZERO;
    for &b in chain.iter().rev() {
        let bn = &model.skeleton.bones[b];
        let (t, q) = match vmd_studio::model::bone_track(idx, &bn.name) {
            Some(ti) => {
                let p = bone_at(m, &idx.bones[ti], frame);
                (
                    Vec3::from(p.position),
                    Quat::from_array(p.rotation).normalize(),
                )
            }
            None => (Vec3::ZERO, Quat::IDENTITY),
        };
        world *= Mat4::from_rotation_translation(q, bn.rest_position - parent_rest + t);
        parent_rest = bn.rest_position;
    }
    world.w_axis.truncate()
}

/// The bones of `model` whose head depends on plain FK only: no bone on
/// the way to the root inherits, is an IK bone or an IK link.
fn plain_fk(model: &Model, bone: usize) -> bool {
    let in_ik: std::collections::HashSet<usize> = model
        .skeleton
        .iks
        .iter()
        .flat_map(|c| {
            std::iter::once(c.ik_bone)
                .chain(std::iter::once(c.target))
                .chain(c.links.iter().map(|l| l.bone))
        })
        .collect();
    let mut b = Some(bone);
    while let Some(i) = b {
        let bn = &model.skeleton.bones[i];
        if bn.inherit.is_some() || in_ik.contains(&i) {
            return false;
        }
        b = bn.parent;
    }
    true
}

#[test]
fn path_points_are_the_bone_heads_at_those_frames() {
    let Some(dir) = common::corpus() else { return };
    let (model, motion) = open(&dir, "mmdagent__mei.pmd", "mmdagent__mei_wait.vmd");
    let names = ["頭", "左手首", "右手首", "上半身"];
    let bones: Vec<usize> = names
        .iter()
        .map(|n| {
            model
                .skeleton
                .bones
                .iter()
                .position(|b| b.name == *n)
                .unwrap()
        })
        .collect();
    for &b in &bones {
        assert!(
            plain_fk(&model, b),
            "{} is not plain FK",
            model.skeleton.bones[b].name
        );
    }
    let mut engine = PoseEngine::new(&model);
    engine.bind(&model, Some(&motion.index));
    let paths = motion_path(&model, &mut engine, motion.as_ref(), &bones, 20..=79);
    assert_eq!(paths.first_frame, 20);
    assert_eq!(paths.paths.len(), 4);
    let mut worst = 0f32;
    let mut moved = 0f32;
    for (p, &b) in paths.paths.iter().zip(&bones) {
        assert_eq!(p.points.len(), 60);
        for (i, pt) in p.points.iter().enumerate() {
            let want = fk_head(&model, &motion.motion, &motion.index, b, 20.0 + i as f64);
            worst = worst.max((Vec3::from(*pt) - want).abs().max_element());
        }
        moved = moved.max((Vec3::from(p.points[0]) - Vec3::from(p.points[59])).length());
        // Key marks: the frames of the bone's own track inside 20..=79.
        let ti = vmd_studio::model::bone_track(&motion.index, &model.skeleton.bones[b].name);
        let want: Vec<u32> = ti
            .map(|t| {
                let mut f: Vec<u32> = motion.index.bones[t]
                    .keys
                    .iter()
                    .map(|&k| motion.motion.bones[k as usize].frame())
                    .filter(|f| (20..=79).contains(f))
                    .collect();
                f.dedup();
                f
            })
            .unwrap_or_default();
        assert_eq!(p.key_frames, want);
    }
    eprintln!("path vs FK: worst {worst}, moved {moved}");
    assert!(worst < 1e-4, "worst {worst}");
    assert!(moved > 0.01, "the path should move (moved {moved})");
}

/// The first bone segment whose `value` changes (by more than 1e-3)
/// over at least 4 frames.
fn pick_segment(
    m: &Motion,
    idx: &TrackIndex,
    value: BoneValue,
) -> (usize, vmd_studio::scene::value_graph::Segment) {
    for (ti, t) in idx.bones.iter().enumerate() {
        for s in bone_segments(m, t, value) {
            if (s.to[1] - s.from[1]).abs() > 1e-3 && s.to[0] - s.from[0] >= 4.0 {
                return (ti, s);
            }
        }
    }
    panic!("no segment to drag")
}

#[test]
fn a_handle_drag_writes_the_curve_boxs_bytes_only_and_moves_the_path() {
    let Some(dir) = common::corpus() else { return };
    let (model, motion) = open(&dir, "mmdagent__mei.pmd", "mmdagent__mei_wait.vmd");
    let m = &motion.motion;
    let (ti, seg) = pick_segment(m, &motion.index, BoneValue::X);
    // Handles sit at A + (x/127 · Δframe, y/127 · Δvalue) of B's X curve.
    let c = m.bones[seg.to_key].curve(BoneChannel::X);
    let (df, dv) = (seg.to[0] - seg.from[0], seg.to[1] - seg.from[1]);
    let h0 = seg.handles[0];
    assert!((h0[0] - (seg.from[0] + f64::from(c.x1) / 127.0 * df)).abs() < 1e-9);
    assert!((h0[1] - (seg.from[1] + f64::from(c.y1) / 127.0 * dv)).abs() < 1e-9);

    // Drag the first handle to a quarter of the time, 90 % of the change:
    // by hand, x1 = round(0.25·127) = 32, y1 = round(0.9·127) = 114.
    let at = [seg.from[0] + 0.25 * df, seg.from[1] + 0.9 * dv];
    let changes = bone_handle_drag(m, &seg, BoneValue::X, Handle::First, at, &[]).unwrap();
    let want_curve = Curve::new(32, 114, c.x2, c.y2);
    let want = plan_bone_curve(m, &[seg.to_key], &[BoneChannel::X], want_curve).unwrap();
    assert_eq!(changes, want, "the curve editor's byte path");
    assert_eq!(changes.len(), 1);
    let ch = changes[0];
    assert_eq!(ch.key, seg.to_key);
    // Only the bytes of the X channel (x1, y1 and their copies) change.
    let x_bytes: Vec<usize> = bone_copy_indices(BoneChannel::X).concat();
    for i in 0..64 {
        if ch.before[i] != ch.after[i] {
            assert!(x_bytes.contains(&i), "byte {i} is not X's");
        }
    }
    let mut edited = m.clone();
    edited.bones[ch.key].set_interpolation_block(ch.after);
    assert_eq!(edited.bones[ch.key].curve(BoneChannel::X), want_curve);
    let a = vmd::write(m).unwrap();
    let b = vmd::write(&edited).unwrap();
    let differing: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    assert!(
        !differing.is_empty() && differing.len() <= 8,
        "{differing:?}"
    );

    // The path of the bone changes inside the segment, nowhere else.
    let name = motion.index.bones[ti].name().text;
    let bone = model
        .skeleton
        .bones
        .iter()
        .position(|b| b.name == name)
        .unwrap_or_else(|| panic!("{name} is not in the model"));
    let (f0, f1) = (seg.from[0] as u32, seg.to[0] as u32);
    let range = f0.saturating_sub(3)..=f1 + 3;
    let mut engine = PoseEngine::new(&model);
    engine.bind(&model, Some(&motion.index));
    let before = motion_path(&model, &mut engine, motion.as_ref(), &[bone], range.clone());
    let edited = IndexedMotion::new(edited);
    let mut engine2 = PoseEngine::new(&model);
    engine2.bind(&model, Some(&edited.index));
    let after = motion_path(
        &model,
        &mut engine2,
        edited.as_ref(),
        &[bone],
        range.clone(),
    );
    let mut refreshed = before.clone();
    refreshed.refresh(&model, &mut engine2, edited.as_ref(), f0..=f1);
    assert_eq!(
        refreshed, after,
        "refreshing the segment = posing it all again"
    );
    let mut inside = 0f32;
    for f in range {
        let (p, q) = (before.point(0, f).unwrap(), after.point(0, f).unwrap());
        let d = (Vec3::from(p) - Vec3::from(q)).length();
        if f <= f0 || f >= f1 {
            assert_eq!(p, q, "frame {f} is outside the segment");
        } else {
            inside = inside.max(d);
        }
    }
    eprintln!("{name} {f0}..{f1}: the drag moved the path by up to {inside}");
    assert!(inside > 1e-5, "the drag should move the path ({inside})");
}

#[test]
fn the_graph_samples_equal_the_evaluated_values() {
    let Some(dir) = common::corpus() else { return };
    let (_, motion) = open(&dir, "mmdagent__mei.pmd", "mmdagent__mei_wait.vmd");
    let m = &motion.motion;
    let (ti, seg) = pick_segment(m, &motion.index, BoneValue::X);
    let t = &motion.index.bones[ti];
    let s = bone_series(m, t, BoneValue::X, seg.from[0] as u32, seg.to[0] as u32, 4);
    assert_eq!(s.len(), ((seg.to[0] - seg.from[0]) * 4.0) as usize + 1);
    assert_eq!(s.first().unwrap()[1], seg.from[1]);
    assert!((s.last().unwrap()[1] - seg.to[1]).abs() < 1e-6);
    for [f, v] in s {
        assert_eq!(v, f64::from(bone_at(m, t, f).position[0]));
    }
    // Euler angles from the quaternion in YXZ order, checked by rebuilding it.
    let r = bone_series(
        m,
        t,
        BoneValue::RotX,
        seg.from[0] as u32,
        seg.to[0] as u32,
        1,
    );
    let ry = bone_series(
        m,
        t,
        BoneValue::RotY,
        seg.from[0] as u32,
        seg.to[0] as u32,
        1,
    );
    let rz = bone_series(
        m,
        t,
        BoneValue::RotZ,
        seg.from[0] as u32,
        seg.to[0] as u32,
        1,
    );
    for i in 0..r.len() {
        let q = Quat::from_rotation_y(ry[i][1].to_radians() as f32)
            * Quat::from_rotation_x(r[i][1].to_radians() as f32)
            * Quat::from_rotation_z(rz[i][1].to_radians() as f32);
        let want = Quat::from_array(bone_at(m, t, r[i][0]).rotation).normalize();
        assert!(q.dot(want).abs() > 1.0 - 1e-5, "frame {}", r[i][0]);
    }
}

#[test]
fn the_camera_path_has_its_eyes_keys_and_cuts() {
    let Some(dir) = common::corpus() else { return };
    let m = vmd::read(&std::fs::read(dir.join("webmmd__GimmexGimme.vmd")).unwrap()).unwrap();
    let idx = TrackIndex::build(&m);
    let last = m.cameras.iter().map(|k| k.frame()).max().unwrap();
    let p = camera_path(&m, &idx, 0..=last).unwrap();
    assert_eq!(p.eyes.len() as u32, last + 1);
    let mut frames: Vec<u32> = m.cameras.iter().map(|k| k.frame()).collect();
    frames.sort();
    frames.dedup();
    assert_eq!(p.key_frames, frames);
    let cuts: Vec<u32> = frames
        .windows(2)
        .filter(|w| w[1] == w[0] + 1)
        .map(|w| w[1])
        .collect();
    assert_eq!(p.cuts, cuts);
    assert!(cuts.len() > 100, "{} cuts", cuts.len());
    // At a key's frame the eye is the key's own eye (target + rotated distance).
    for k in &m.cameras {
        let want = eye_position(k.target(), k.rotation(), k.distance());
        let got = p.eyes[k.frame() as usize];
        let d = (Vec3::from(got) - Vec3::from(want)).length();
        assert!(d < 1e-3, "frame {}: {got:?} vs {want:?}", k.frame());
    }
    // Camera segments: a cut is marked, and a drag writes the camera bytes.
    let segs = camera_segments(&m, &idx, CameraValue::Distance);
    assert_eq!(segs.iter().filter(|s| s.cut).count(), cuts.len());
    let s = segs
        .iter()
        .find(|s| !s.cut && (s.to[1] - s.from[1]).abs() > 0.1)
        .unwrap();
    let at = [s.from[0] + 0.5 * (s.to[0] - s.from[0]), s.to[1]];
    let ch = camera_handle_drag(&m, s, CameraValue::Distance, Handle::Second, at, &[]).unwrap();
    let mut k = m.cameras[s.to_key];
    if let Some(c) = ch.first() {
        k.set_interpolation_block(c.after);
    }
    let c = k.curve(CameraChannel::Distance);
    // Half the time: round(63.5) = 64; all of the change: 127.
    assert_eq!((c.x2, c.y2), (64, 127));
    for other in CameraChannel::ALL
        .into_iter()
        .filter(|&c| c != CameraChannel::Distance)
    {
        assert_eq!(k.curve(other), m.cameras[s.to_key].curve(other));
    }
}
