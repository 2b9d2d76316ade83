//! The dope sheet's key edits in the core (`vmd::key_edit`), without a GUI:
//! move, delete, copy/paste and insert. Every expected record is worked out
//! by hand here (frames, file order, byte offsets from the spec, values
//! interpolated by a separate Bézier and slerp written below), never taken
//! from the program's own output.

use std::collections::BTreeSet;

use vmd_studio::vmd::key_edit::{
    self, Clipboard, KeyChanges, KeyClash, KeyMove, TrackRef, insert_keys,
};
use vmd_studio::vmd::{
    self, BoneChannel, BoneKey, CameraKey, Curve, IkKey, KeyRef, LightKey, MorphKey, Motion,
    NameEncoding, TrackIndex,
};

const ID: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

fn bone(name: &str, frame: u32, pos: [f32; 3]) -> BoneKey {
    BoneKey::new(name, NameEncoding::ShiftJis, frame, pos, ID).expect("bone name fits")
}

fn morph(name: &str, frame: u32, w: f32) -> MorphKey {
    MorphKey::new(name, NameEncoding::ShiftJis, frame, w).expect("morph name fits")
}

fn camera(frame: u32, distance: f32) -> CameraKey {
    CameraKey::new(frame, distance, [0.0, 10.0, 0.0], [0.0; 3], 30, true)
}

/// A dance: bone "a" at 0, 10, 20; bone "b" at 0, 30 (stored interleaved,
/// so file order is not frame order); morph "m" at 5, 15; camera at 0, 12, 40.
///
/// File order (index: key):
/// bones 0:a@0 1:b@0 2:a@20 3:a@10 4:b@30; morphs 0:m@5 1:m@15;
/// cameras 0:@0 1:@40 2:@12.
fn dance() -> Motion {
    let mut m = Motion::new_v2();
    m.bones = vec![
        bone("a", 0, [0.0; 3]),
        bone("b", 0, [1.0, 0.0, 0.0]),
        bone("a", 20, [2.0, 0.0, 0.0]),
        bone("a", 10, [1.0, 0.0, 0.0]),
        bone("b", 30, [3.0, 0.0, 0.0]),
    ];
    m.morphs = vec![morph("m", 5, 0.25), morph("m", 15, 0.75)];
    m.cameras = vec![camera(0, -45.0), camera(40, -30.0), camera(12, -20.0)];
    m
}

/// Applies in-place changes the way the document does (by index).
fn apply(m: &Motion, c: &KeyChanges) -> Motion {
    let mut m = m.clone();
    for (i, k) in &c.bones {
        m.bones[*i as usize] = *k;
    }
    for (i, k) in &c.morphs {
        m.morphs[*i as usize] = *k;
    }
    for (i, k) in &c.cameras {
        m.cameras[*i as usize] = *k;
    }
    for (i, k) in &c.lights {
        m.lights[*i as usize] = *k;
    }
    m
}

fn frames_of_bone(m: &Motion, name: &str) -> Vec<u32> {
    let mut v: Vec<u32> = m
        .bones
        .iter()
        .filter(|k| k.name_key() == name.as_bytes())
        .map(BoneKey::frame)
        .collect();
    v.sort_unstable();
    v
}

/// Little-endian u32 at `off`.
fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

#[test]
fn moving_keys_of_two_tracks_by_five_frames_changes_only_their_frame_fields() {
    let m = dance();
    let idx = TrackIndex::build(&m);
    // a@10 (bone 3) and b@30 (bone 4), plus camera@12 (camera 2).
    let sel = [KeyRef::Bone(3), KeyRef::Bone(4), KeyRef::Camera(2)];
    let mv = KeyMove::new(&m, sel);
    assert_eq!(
        mv.keys(),
        &[
            (KeyRef::Bone(3), 10),
            (KeyRef::Bone(4), 30),
            (KeyRef::Camera(2), 12)
        ]
    );
    let c = mv.apply(&m, &idx, 5).expect("nothing on 15, 35 or 17");
    assert_eq!(
        c.bones
            .iter()
            .map(|(i, k)| (*i, k.frame()))
            .collect::<Vec<_>>(),
        vec![(3, 15), (4, 35)]
    );
    assert_eq!(
        c.cameras
            .iter()
            .map(|(i, k)| (*i, k.frame()))
            .collect::<Vec<_>>(),
        vec![(2, 17)]
    );
    assert!(c.morphs.is_empty() && c.lights.is_empty() && c.model_name.is_none());

    // In the written file only the frame fields of those records differ:
    // header 30 + model name 20, bone count at 50, bone i at 54 + 111 i with
    // its frame at +15; then morph count + 2 × 23, camera count + 61 each,
    // frame at +0.
    let before = vmd::write(&m).expect("writes");
    let after = vmd::write(&apply(&m, &c)).expect("writes");
    assert_eq!(before.len(), after.len());
    let bone_frame = |i: usize| 54 + 111 * i + 15;
    let cameras = 54 + 111 * 5 + 4 + 23 * 2 + 4;
    let camera_frame = |i: usize| cameras + 61 * i;
    assert_eq!(u32_at(&before, bone_frame(3)), 10);
    assert_eq!(u32_at(&after, bone_frame(3)), 15);
    assert_eq!(u32_at(&after, bone_frame(4)), 35);
    assert_eq!(u32_at(&before, camera_frame(2)), 12);
    assert_eq!(u32_at(&after, camera_frame(2)), 17);
    let changed: Vec<usize> = (0..before.len())
        .filter(|&i| before[i] != after[i])
        .collect();
    let allowed: Vec<usize> = [bone_frame(3), bone_frame(4), camera_frame(2)]
        .iter()
        .flat_map(|&o| o..o + 4)
        .collect();
    assert!(
        changed.iter().all(|i| allowed.contains(i)),
        "bytes outside the frame fields changed: {changed:?}"
    );
    assert!(!changed.is_empty());
}

#[test]
fn a_move_onto_a_key_that_stays_is_refused_and_names_track_and_frame() {
    let m = dance();
    let idx = TrackIndex::build(&m);
    // a@10 by +10 lands on a@20, which is not moved.
    let mv = KeyMove::new(&m, [KeyRef::Bone(3)]);
    assert_eq!(
        mv.apply(&m, &idx, 10),
        Err(KeyClash {
            track: TrackRef::Bone(b"a".to_vec()),
            frame: 20
        })
    );
    // Moving a@10 and a@20 together by +10: a@20 leaves frame 20, so it is free.
    let both = KeyMove::new(&m, [KeyRef::Bone(2), KeyRef::Bone(3)]);
    let c = both.apply(&m, &idx, 10).expect("a@20 moves away");
    assert_eq!(frames_of_bone(&apply(&m, &c), "a"), vec![0, 20, 30]);
    // The same frame on another track is no clash: a@10 → 30 where b has a key.
    assert!(mv.apply(&m, &idx, 20).is_ok());
    // A move is held at frame 0: a@10 by −50 becomes −10 and lands on a@0.
    assert_eq!(mv.min_delta(), -10);
    assert_eq!(
        mv.apply(&m, &idx, -50),
        Err(KeyClash {
            track: TrackRef::Bone(b"a".to_vec()),
            frame: 0
        })
    );
    // b@30 by −50 is held at −30: b@0 is there too, so refused as well;
    // b@30 by −25 → 5 is fine.
    let b = KeyMove::new(&m, [KeyRef::Bone(4)]);
    assert!(b.apply(&m, &idx, -50).is_err());
    let c = b.apply(&m, &idx, -25).expect("frame 5 is free");
    assert_eq!(c.bones[0].1.frame(), 5);
}

#[test]
fn a_move_during_a_drag_is_checked_against_the_motion_as_it_is_now() {
    // The drag already moved a@10 to 13 (the motion holds 13); the next
    // offset is measured from the frame the drag began with (10).
    let m0 = dance();
    let mv = KeyMove::new(&m0, [KeyRef::Bone(3)]);
    let idx0 = TrackIndex::build(&m0);
    let m1 = apply(&m0, &mv.apply(&m0, &idx0, 3).expect("13 free"));
    let idx1 = TrackIndex::build(&m1);
    let c = mv.apply(&m1, &idx1, 7).expect("17 free");
    assert_eq!(c.bones, vec![(3, bone("a", 17, [1.0, 0.0, 0.0]))]);
    // Back onto its own start frame is fine (it does not clash with itself).
    assert!(mv.apply(&m1, &idx1, 0).is_ok());
}

#[test]
fn deleting_a_selection_across_bones_morphs_and_camera_keeps_the_rest_in_file_order() {
    let m = dance();
    let sel: BTreeSet<KeyRef> = [
        KeyRef::Bone(1),
        KeyRef::Bone(3),
        KeyRef::Morph(0),
        KeyRef::Camera(0),
        KeyRef::Camera(2),
    ]
    .into();
    let out = key_edit::delete_keys(&m, &sel);
    // Left: bones 0:a@0 2:a@20 4:b@30; morph 1:m@15; camera 1:@40.
    assert_eq!(out.bones, vec![m.bones[0], m.bones[2], m.bones[4]]);
    assert_eq!(out.morphs, vec![m.morphs[1]]);
    assert_eq!(out.cameras, vec![m.cameras[1]]);
    // 3 bones, 1 morph, 1 camera: 50 + 4 + 333 + 4 + 23 + 4 + 61 + 4 × 3
    // (light, self-shadow and IK counts of a v2 file written whole).
    let bytes = vmd::write(&out).expect("writes");
    assert_eq!(u32_at(&bytes, 50), 3);
    assert_eq!(u32_at(&bytes, 54 + 333), 1);
    assert_eq!(u32_at(&bytes, 54 + 333 + 4 + 23), 1);
    assert_eq!(u32_at(&bytes, 54 + 333 + 4 + 23 + 4), 40, "camera frame");
    // The input is untouched.
    assert_eq!(m, dance());
    // Deleting nothing gives the same motion.
    assert_eq!(key_edit::delete_keys(&m, &BTreeSet::new()), m);
}

#[test]
fn paste_at_the_playhead_keeps_distances_and_appends_after_each_section() {
    let m = dance();
    let idx = TrackIndex::build(&m);
    // Copy a@10, a@20, m@15 and camera@12: the earliest is 10.
    let sel: BTreeSet<KeyRef> = [
        KeyRef::Bone(2),
        KeyRef::Bone(3),
        KeyRef::Morph(1),
        KeyRef::Camera(2),
    ]
    .into();
    let clip = Clipboard::copy(&m, &sel);
    assert_eq!(clip.len(), 4);
    assert_eq!(clip.earliest(), Some(10));
    // An actor shifted by 30 on the scene timeline with the playhead at
    // scene frame 130: the document's frame is 100.
    let (scene_playhead, offset) = (130u32, 30u32);
    let at = scene_playhead - offset;
    let r = clip
        .paste(&m, &idx, at)
        .expect("something")
        .expect("no clash");
    // a@20 → 110 and a@10 → 100 (copy order = selection order: bone 2, bone 3),
    // m@15 → 105, camera@12 → 102; appended after the old records.
    let new = &r.motion;
    assert_eq!(new.bones.len(), 7);
    assert_eq!(new.bones[5].frame(), 110);
    assert_eq!(new.bones[6].frame(), 100);
    assert_eq!(new.bones[5].name_key(), b"a");
    assert_eq!(new.bones[5].position(), [2.0, 0.0, 0.0]);
    assert_eq!(new.morphs[2].frame(), 105);
    assert_eq!(new.morphs[2].weight(), 0.75);
    assert_eq!(new.cameras[3].frame(), 102);
    assert_eq!(new.cameras[3].distance(), -20.0);
    // The old records are unchanged and first.
    assert_eq!(&new.bones[..5], &m.bones[..]);
    assert_eq!(
        r.selection,
        [
            KeyRef::Bone(5),
            KeyRef::Bone(6),
            KeyRef::Morph(2),
            KeyRef::Camera(3)
        ]
        .into()
    );
    // Pasting over frames the tracks already have is refused, naming the
    // first clash in copy order: at 0, a@20 (copied first) lands on a@10
    // (and a@10 on a@0).
    assert_eq!(
        clip.paste(&m, &idx, 0),
        Some(Err(KeyClash {
            track: TrackRef::Bone(b"a".to_vec()),
            frame: 10
        }))
    );
    // Two copied keys of one track landing together is a clash too.
    let mut twice = Clipboard::copy(&m, &[KeyRef::Bone(1)].into());
    twice.bones.push(twice.bones[0]);
    assert_eq!(
        twice.paste(&m, &idx, 50),
        Some(Err(KeyClash {
            track: TrackRef::Bone(b"b".to_vec()),
            frame: 50
        }))
    );
    // An empty clipboard pastes nothing.
    assert_eq!(Clipboard::default().paste(&m, &idx, 5), None);
}

#[test]
fn paste_into_another_motion_goes_to_the_tracks_of_the_same_names() {
    let src = dance();
    let clip = Clipboard::copy(&src, &[KeyRef::Bone(4), KeyRef::Morph(0)].into());
    // The other motion has "b" as its second bone track and no morphs.
    let mut dst = Motion::new_v2();
    dst.bones = vec![bone("x", 0, [0.0; 3]), bone("b", 3, [0.0; 3])];
    let idx = TrackIndex::build(&dst);
    // Copied b@30, m@5: earliest 5; at 50 → b@75, m@50.
    let r = clip.paste(&dst, &idx, 50).expect("keys").expect("no clash");
    let after = TrackIndex::build(&r.motion);
    let b = after.bone(b"b").expect("track b");
    assert_eq!(b.frames, vec![3, 75]);
    assert_eq!(after.morph(b"m").expect("track m").frames, vec![50]);
    assert_eq!(after.bone(b"x").expect("x").frames, vec![0]);
}

/// MMD's Bézier, written independently: P0 = (0,0), P1 = (x1,y1)/127,
/// P2 = (x2,y2)/127, P3 = (1,1); solve x(s) = t by bisection, return y(s).
fn bezier_weight(c: Curve, t: f64) -> f64 {
    let (x1, y1) = (f64::from(c.x1) / 127.0, f64::from(c.y1) / 127.0);
    let (x2, y2) = (f64::from(c.x2) / 127.0, f64::from(c.y2) / 127.0);
    let cubic = |a: f64, b: f64, s: f64| {
        let u = 1.0 - s;
        3.0 * u * u * s * a + 3.0 * u * s * s * b + s * s * s
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if cubic(x1, x2, mid) < t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    cubic(y1, y2, 0.5 * (lo + hi))
}

#[test]
fn insert_between_keys_holds_the_interpolated_value() {
    let mut m = Motion::new_v2();
    // Bone "c": frame 0 at the origin, identity; frame 10 at (10, 20, −30),
    // turned 90° about Y (x, y, z, w = 0, sin 45°, 0, cos 45°). The segment
    // uses the later key's curves: X eased (64, 0, 64, 127), the rest linear.
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let mut k10 = BoneKey::new(
        "c",
        NameEncoding::ShiftJis,
        10,
        [10.0, 20.0, -30.0],
        [0.0, h, 0.0, h],
    )
    .expect("name");
    let eased = Curve::new(64, 0, 64, 127);
    k10.set_curve(BoneChannel::X, eased);
    m.bones = vec![bone("c", 0, [0.0; 3]), k10];
    m.morphs = vec![morph("m", 0, 0.0), morph("m", 8, 0.8)];
    m.cameras = vec![
        CameraKey::new(0, -45.0, [0.0; 3], [0.0; 3], 30, true),
        CameraKey::new(10, -25.0, [0.0, 10.0, 0.0], [0.0; 3], 40, true),
    ];
    m.lights = vec![LightKey::new(0, [0.6; 3], [-0.5, -1.0, 0.5])];
    m.iks = vec![IkKey::new(0, true), IkKey::new(20, false)];
    let idx = TrackIndex::build(&m);
    let tracks: BTreeSet<TrackRef> = [
        TrackRef::Bone(b"c".to_vec()),
        TrackRef::Morph(b"m".to_vec()),
        TrackRef::Camera,
        TrackRef::Light,
        TrackRef::Ik,
    ]
    .into();
    let done = insert_keys(&m, &idx, &tracks, 4);
    assert_eq!(done.skipped, 0);
    let r = done.edit.expect("keys inserted");
    let n = &r.motion;
    assert_eq!(
        r.selection,
        [
            KeyRef::Bone(2),
            KeyRef::Morph(2),
            KeyRef::Camera(2),
            KeyRef::Light(1),
            KeyRef::Ik(2)
        ]
        .into()
    );
    // Bone at frame 4 (t = 0.4): X through the eased curve, Y and Z linear.
    let k = &n.bones[2];
    assert_eq!((k.frame(), k.name_key()), (4, &b"c"[..]));
    let wx = bezier_weight(eased, 0.4);
    assert!(
        (wx - 0.4).abs() > 0.01,
        "the eased curve differs from linear"
    );
    let p = k.position();
    assert!((f64::from(p[0]) - 10.0 * wx).abs() < 1e-3, "{p:?} vs {wx}");
    assert!((p[1] - 8.0).abs() < 1e-4, "{p:?}");
    assert!((p[2] + 12.0).abs() < 1e-4, "{p:?}");
    // Rotation: slerp 0.4 of the way to 90° about Y = 36° about Y.
    let half = 18f32.to_radians();
    let want = [0.0, half.sin(), 0.0, half.cos()];
    let q = k.rotation();
    for i in 0..4 {
        assert!((q[i] - want[i]).abs() < 1e-5, "{q:?} vs {want:?}");
    }
    // A new bone key has MMD's default linear curves.
    assert_eq!(k.curves(), [Curve::LINEAR; 4]);
    // Morph: 0 → 0.8 over 8 frames, linear: 0.4 at frame 4.
    assert_eq!(n.morphs[2].frame(), 4);
    assert!((n.morphs[2].weight() - 0.4).abs() < 1e-6);
    // Camera: linear curves (CameraKey::new), t = 0.4.
    let c = &n.cameras[2];
    assert_eq!(c.frame(), 4);
    assert!((c.distance() + 37.0).abs() < 1e-4, "{}", c.distance());
    assert!((c.target()[1] - 4.0).abs() < 1e-4);
    assert_eq!(c.fov(), 34);
    // Light: one key holds.
    assert_eq!(n.lights[1].frame(), 4);
    assert_eq!(n.lights[1].color(), [0.6; 3]);
    // IK/show: the state in force (frame 0's, shown) at frame 4.
    assert_eq!(n.iks[2].frame(), 4);
    assert_eq!(n.iks[2].raw[4..], n.iks[0].raw[4..]);

    // On a frame a track already has a key: that track is skipped.
    let again = insert_keys(&m, &idx, &tracks, 0);
    assert_eq!(again.skipped, 5);
    assert!(again.edit.is_none());
    // A track the motion does not have gives nothing to key.
    let none = insert_keys(&m, &idx, &[TrackRef::Bone(b"zz".to_vec())].into(), 4);
    assert_eq!((none.skipped, none.edit), (0, None));
}

#[test]
fn selecting_by_frame_and_naming_tracks() {
    let m = dance();
    let idx = TrackIndex::build(&m);
    // Frame 0: a@0 (bone 0), b@0 (bone 1), camera@0 (camera 0).
    assert_eq!(
        key_edit::select_at_frame(&m, &idx, 0),
        [KeyRef::Bone(0), KeyRef::Bone(1), KeyRef::Camera(0)].into()
    );
    assert_eq!(key_edit::select_all(&m).len(), 10);
    assert_eq!(
        key_edit::all_tracks(&idx),
        vec![
            TrackRef::Bone(b"a".to_vec()),
            TrackRef::Bone(b"b".to_vec()),
            TrackRef::Morph(b"m".to_vec()),
            TrackRef::Camera
        ]
    );
    assert_eq!(
        key_edit::track_of(&m, KeyRef::Bone(4)),
        Some(TrackRef::Bone(b"b".to_vec()))
    );
    assert_eq!(key_edit::track_of(&m, KeyRef::Bone(99)), None);
    assert_eq!(key_edit::track_label(&TrackRef::Camera), "Camera");
    assert_eq!(key_edit::track_label(&TrackRef::Bone(b"a".to_vec())), "a");
    assert!(key_edit::occupied(&m, &idx, &TrackRef::Camera, 12));
    assert!(!key_edit::occupied(&m, &idx, &TrackRef::Camera, 13));
}
