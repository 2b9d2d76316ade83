//! Simplify and bake (issue 15), checked by an evaluator written here,
//! separately from the program's: curves are read from the raw 64/24-byte
//! blocks by the spec's rules, the Bézier is solved by plain bisection, the
//! rotation is a textbook slerp in f64. Every check samples the original and
//! the result at every integer frame and compares.
//!
//! Golden values come from the construction (hand-chosen curves and key
//! frames) or from the targets, never from this program's output.

mod common;
use common::corpus;

use vmd_studio::vmd::interpolation::DEFAULT_BONE_BLOCK;
use vmd_studio::vmd::ops::{self, BakeParams, SimplifyParams, Strategy};
use vmd_studio::vmd::{self, BoneKey, CameraKey, MorphKey, Motion, NameEncoding};

const SJIS: NameEncoding = NameEncoding::ShiftJis;

// ---------------------------------------------------------------- evaluator

/// Control points (x1, y1, x2, y2) in 0..1 of bone channel `c`, read as the
/// spec says: from row c, or from row 0 when bytes 16..64 are all zero.
fn bone_curve_raw(block: &[u8], c: usize) -> [f64; 4] {
    let row0 = block[16..64].iter().all(|&b| b == 0);
    let v = if row0 {
        [block[c], block[c + 4], block[c + 8], block[c + 12]]
    } else {
        [
            block[16 * c],
            block[16 * c + 4],
            block[16 * c + 8],
            block[16 * c + 12],
        ]
    };
    v.map(|b| f64::from(b.min(127)) / 127.0)
}

/// Camera item `c`: bytes 4c.. are x1, x2, y1, y2.
fn camera_curve_raw(block: &[u8], c: usize) -> [f64; 4] {
    let b = &block[4 * c..4 * c + 4];
    [b[0], b[2], b[1], b[3]].map(|v| f64::from(v.min(127)) / 127.0)
}

fn cubic(p1: f64, p2: f64, t: f64) -> f64 {
    let u = 1.0 - t;
    3.0 * u * u * t * p1 + 3.0 * u * t * t * p2 + t * t * t
}

/// Weight at time fraction x by bisection on x(t) (80 halvings).
fn weight(c: [f64; 4], x: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if cubic(c[0], c[2], mid) < x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    cubic(c[1], c[3], 0.5 * (lo + hi))
}

fn norm4(q: [f64; 4]) -> [f64; 4] {
    let l = (q.iter().map(|v| v * v).sum::<f64>()).sqrt();
    if l > 1e-12 {
        q.map(|v| v / l)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

fn slerp64(a: [f64; 4], b: [f64; 4], w: f64) -> [f64; 4] {
    let a = norm4(a);
    let mut b = norm4(b);
    let mut d: f64 = (0..4).map(|i| a[i] * b[i]).sum();
    if d < 0.0 {
        b = b.map(|v| -v);
        d = -d;
    }
    if d > 0.999_999_999 {
        return norm4(std::array::from_fn(|i| a[i] + (b[i] - a[i]) * w));
    }
    let th = d.min(1.0).acos();
    let s = th.sin();
    let (ka, kb) = (((1.0 - w) * th).sin() / s, (w * th).sin() / s);
    norm4(std::array::from_fn(|i| ka * a[i] + kb * b[i]))
}

/// Rotation angle in degrees between two quaternions.
fn angle_deg(a: [f64; 4], b: [f64; 4]) -> f64 {
    let a = norm4(a);
    let mut b = norm4(b);
    if (0..4).map(|i| a[i] * b[i]).sum::<f64>() < 0.0 {
        b = b.map(|v| -v);
    }
    let d = (0..4).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt();
    let s = (0..4).map(|i| (a[i] + b[i]).powi(2)).sum::<f64>().sqrt();
    (4.0 * d.atan2(s)).to_degrees()
}

/// A track's keys sorted by frame, the last in file order on each frame.
fn sorted_last<T: Clone>(mut v: Vec<(u32, usize, T)>) -> Vec<(u32, T)> {
    v.sort_by_key(|(f, i, _)| (*f, *i));
    let mut out: Vec<(u32, T)> = Vec::new();
    for (f, _, t) in v {
        if out.last().is_some_and(|(lf, _)| *lf == f) {
            out.pop();
        }
        out.push((f, t));
    }
    out
}

type Pose = ([f64; 3], [f64; 4]);

fn bone_tracks(m: &Motion) -> std::collections::BTreeMap<Vec<u8>, Vec<(u32, BoneKey)>> {
    let mut by: std::collections::BTreeMap<Vec<u8>, Vec<(u32, usize, BoneKey)>> =
        Default::default();
    for (i, k) in m.bones.iter().enumerate() {
        by.entry(k.name_key().to_vec())
            .or_default()
            .push((k.frame(), i, *k));
    }
    by.into_iter().map(|(n, v)| (n, sorted_last(v))).collect()
}

fn bone_pose(keys: &[(u32, BoneKey)], f: u32) -> Pose {
    let of = |k: &BoneKey| (k.position().map(f64::from), k.rotation().map(f64::from));
    let after = keys.partition_point(|(kf, _)| *kf <= f);
    if after == 0 {
        return of(&keys[0].1);
    }
    let (fa, a) = &keys[after - 1];
    if after == keys.len() || *fa == f {
        return of(a);
    }
    let (fb, b) = &keys[after];
    let x = f64::from(f - fa) / f64::from(fb - fa);
    let block = b.interpolation_block();
    let (pa, ra) = of(a);
    let (pb, rb) = of(b);
    let pos = std::array::from_fn(|i| {
        let w = weight(bone_curve_raw(&block, i), x);
        pa[i] + (pb[i] - pa[i]) * w
    });
    let rot = slerp64(ra, rb, weight(bone_curve_raw(&block, 3), x));
    (pos, rot)
}

fn morph_tracks(m: &Motion) -> std::collections::BTreeMap<Vec<u8>, Vec<(u32, f64)>> {
    let mut by: std::collections::BTreeMap<Vec<u8>, Vec<(u32, usize, f64)>> = Default::default();
    for (i, k) in m.morphs.iter().enumerate() {
        by.entry(k.name_key().to_vec())
            .or_default()
            .push((k.frame(), i, f64::from(k.weight())));
    }
    by.into_iter().map(|(n, v)| (n, sorted_last(v))).collect()
}

fn morph_value(keys: &[(u32, f64)], f: u32) -> f64 {
    let after = keys.partition_point(|(kf, _)| *kf <= f);
    if after == 0 {
        return keys[0].1;
    }
    let (fa, a) = keys[after - 1];
    if after == keys.len() || fa == f {
        return a;
    }
    let (fb, b) = keys[after];
    a + (b - a) * f64::from(f - fa) / f64::from(fb - fa)
}

/// Camera at an integer frame: target xyz, angles xyz, distance, fov.
fn camera_value(keys: &[(u32, CameraKey)], f: u32) -> [f64; 8] {
    let of = |k: &CameraKey| {
        let (t, r) = (k.target(), k.rotation());
        [
            t[0],
            t[1],
            t[2],
            r[0],
            r[1],
            r[2],
            k.distance(),
            k.fov() as f32,
        ]
        .map(f64::from)
    };
    let after = keys.partition_point(|(kf, _)| *kf <= f);
    if after == 0 {
        return of(&keys[0].1);
    }
    let (fa, a) = &keys[after - 1];
    if after == keys.len() || *fa == f {
        return of(a);
    }
    let (fb, b) = &keys[after];
    let x = f64::from(f - fa) / f64::from(fb - fa);
    let block = b.interpolation_block();
    let item = [0, 1, 2, 3, 3, 3, 4, 5];
    let (va, vb) = (of(a), of(b));
    std::array::from_fn(|i| va[i] + (vb[i] - va[i]) * weight(camera_curve_raw(&block, item[i]), x))
}

fn camera_keys(m: &Motion) -> Vec<(u32, CameraKey)> {
    sorted_last(
        m.cameras
            .iter()
            .enumerate()
            .map(|(i, k)| (k.frame(), i, *k))
            .collect(),
    )
}

/// Worst errors (position, rotation °, morph, camera target/distance,
/// camera angle °, fov) of `b` against `a` over every integer frame.
#[derive(Debug, Default, Clone, Copy)]
struct Worst {
    pos: f64,
    rot: f64,
    morph: f64,
    cam_len: f64,
    cam_angle: f64,
    fov: f64,
}

fn compare(a: &Motion, b: &Motion) -> Worst {
    let mut w = Worst::default();
    let last = a.last_frame().unwrap_or(0).max(b.last_frame().unwrap_or(0));
    let (ta, tb) = (bone_tracks(a), bone_tracks(b));
    assert_eq!(ta.len(), tb.len(), "bone tracks lost or added");
    for (name, ka) in &ta {
        let kb = &tb[name];
        for f in 0..=last {
            let (pa, ra) = bone_pose(ka, f);
            let (pb, rb) = bone_pose(kb, f);
            for i in 0..3 {
                w.pos = w.pos.max((pa[i] - pb[i]).abs());
            }
            w.rot = w.rot.max(angle_deg(ra, rb));
        }
    }
    let (ma, mb) = (morph_tracks(a), morph_tracks(b));
    assert_eq!(ma.len(), mb.len(), "morph tracks lost or added");
    for (name, ka) in &ma {
        for f in 0..=last {
            w.morph = w
                .morph
                .max((morph_value(ka, f) - morph_value(&mb[name], f)).abs());
        }
    }
    let (ca, cb) = (camera_keys(a), camera_keys(b));
    if !ca.is_empty() {
        for f in 0..=last {
            let (va, vb) = (camera_value(&ca, f), camera_value(&cb, f));
            for i in [0, 1, 2, 6] {
                w.cam_len = w.cam_len.max((va[i] - vb[i]).abs());
            }
            for i in 3..6 {
                w.cam_angle = w.cam_angle.max((va[i] - vb[i]).abs().to_degrees());
            }
            w.fov = w.fov.max((va[7] - vb[7]).abs());
        }
    }
    w
}

/// The tolerances hold (with 1e-5 of slack for the two evaluators' float
/// rounding — far below every tolerance used here).
fn assert_within(w: Worst, p: &SimplifyParams, what: &str) {
    let s = 1e-5;
    assert!(
        w.pos <= p.pos_tol + s,
        "{what}: position error {} > {}",
        w.pos,
        p.pos_tol
    );
    assert!(
        w.rot <= p.rot_tol_deg + 1e-4,
        "{what}: rotation error {}° > {}°",
        w.rot,
        p.rot_tol_deg
    );
    assert!(
        w.morph <= p.morph_tol + s,
        "{what}: morph error {}",
        w.morph
    );
    assert!(
        w.cam_len <= p.camera.target.max(p.camera.distance) + s,
        "{what}: camera error {}",
        w.cam_len
    );
    assert!(
        w.cam_angle <= p.camera.angle_deg + 1e-4,
        "{what}: camera angle error {}",
        w.cam_angle
    );
    assert!(w.fov <= p.camera.fov_deg + s, "{what}: fov error {}", w.fov);
}

// ---------------------------------------------------------------- builders

/// Writes a bone curve into every copy of a full block (spec layout), not
/// through the program's setter.
fn put_curve(block: &mut [u8; 64], c: usize, v: [u8; 4]) {
    for (m, &val) in v.iter().enumerate() {
        let j = c + 4 * m;
        for k in 0..=j.min(3) {
            let i = 16 * k + j - k;
            if k == 0 && (i == 2 || i == 3) {
                continue;
            }
            block[i] = val;
        }
    }
}

fn yrot(deg: f64) -> [f32; 4] {
    let h = deg.to_radians() / 2.0;
    [0.0, h.sin() as f32, 0.0, h.cos() as f32]
}

/// Keys at 0, 30, 50, 90 on bone "a": X goes 0 → 10 → 0 → 8, Y 0 → 5 → −2 →
/// 4, rotation about Y 0° → 90° → 10° → 60° (every key an extremum, so no
/// segment can run past a key), each segment with hand-chosen curves.
fn eased_source() -> (Motion, Vec<u32>, Vec<[[u8; 4]; 4]>) {
    let frames = vec![0u32, 30, 50, 90];
    let xs = [0.0f32, 10.0, 0.0, 8.0];
    let ys = [0.0f32, 5.0, -2.0, 4.0];
    let rs = [0.0, 90.0, 10.0, 60.0];
    let curves: Vec<[[u8; 4]; 4]> = vec![
        [[20, 20, 107, 107]; 4],
        [
            [64, 0, 64, 127],
            [90, 10, 30, 120],
            [20, 20, 107, 107],
            [50, 0, 70, 127],
        ],
        [
            [40, 60, 90, 127],
            [30, 70, 100, 127],
            [20, 20, 107, 107],
            [35, 50, 95, 127],
        ],
        [
            [30, 50, 97, 127],
            [25, 60, 110, 127],
            [20, 20, 107, 107],
            [45, 55, 100, 127],
        ],
    ];
    let mut m = Motion::new_v2();
    for (n, &f) in frames.iter().enumerate() {
        let mut k = BoneKey::new("a", SJIS, f, [xs[n], ys[n], 0.0], yrot(rs[n])).unwrap();
        let mut b = DEFAULT_BONE_BLOCK;
        for (c, v) in curves[n].iter().enumerate() {
            put_curve(&mut b, c, *v);
        }
        k.set_interpolation_block(b);
        m.bones.push(k);
    }
    (m, frames, curves)
}

/// `m` baked by this test's evaluator: a key every frame, linear blocks.
fn bake_here(m: &Motion) -> Motion {
    let mut out = Motion::new_v2();
    let last = m.last_frame().unwrap_or(0);
    for (name, keys) in bone_tracks(m) {
        let name = String::from_utf8(name).unwrap();
        for f in keys[0].0..=last.min(keys[keys.len() - 1].0) {
            let (p, r) = bone_pose(&keys, f);
            out.bones.push(
                BoneKey::new(&name, SJIS, f, p.map(|v| v as f32), r.map(|v| v as f32)).unwrap(),
            );
        }
    }
    out
}

// ---------------------------------------------------------------- tests

#[test]
fn a_baked_known_bezier_comes_back_to_its_keys_and_curves() {
    let (src, frames, curves) = eased_source();
    let baked = bake_here(&src);
    assert_eq!(baked.bones.len(), 91);
    let p = SimplifyParams::default();
    let (out, rep) = ops::simplify(&baked, &p).unwrap();
    let got: Vec<u32> = out.bones.iter().map(BoneKey::frame).collect();
    assert_eq!(got, frames, "two keys per segment, at the original frames");
    // Curves within one grid step of the hand-chosen ones, for every channel
    // that moves (Z never moves: any curve is right there). Control points
    // are not unique — (40,60,90,127) and (53,80,96,127) agree to 0.001 at
    // every frame of a 20-frame segment — so "one grid step" is measured on
    // the curve itself: its weight differs from the original's by at most
    // 1/127 at every time fraction.
    for (n, k) in out.bones.iter().enumerate().skip(1) {
        let block = k.interpolation_block();
        for c in [0usize, 1, 3] {
            let want = curves[n][c].map(|v| f64::from(v) / 127.0);
            let want = [want[0], want[1], want[2], want[3]];
            let have = bone_curve_raw(&block, c);
            let worst = (0..=1000)
                .map(|i| {
                    let x = f64::from(i) / 1000.0;
                    (weight(have, x) - weight(want, x)).abs()
                })
                .fold(0.0, f64::max);
            assert!(
                worst <= 1.0 / 127.0,
                "key {n} channel {c}: {have:?} vs {want:?}: {worst}"
            );
        }
    }
    assert_within(compare(&baked, &out), &p, "known curves");
    assert_eq!(rep.before.bones, 91);
    assert_eq!(rep.after.bones, 4);
}

/// 3 bones × 120 frames of motion that is not a VMD curve anywhere (sums of
/// sines), every frame a key.
fn wavy() -> Motion {
    let mut m = Motion::new_v2();
    for b in 0..3 {
        for f in 0..120u32 {
            let t = f64::from(f) * 0.07 + f64::from(b);
            let p = [
                (t.sin() * 3.0) as f32,
                ((2.3 * t).cos() * 2.0) as f32,
                (t * 0.5) as f32,
            ];
            let r = yrot(40.0 * (1.7 * t).sin() + 10.0 * (3.1 * t).cos());
            m.bones
                .push(BoneKey::new(&format!("b{b}"), SJIS, f, p, r).unwrap());
        }
    }
    for f in 0..120u32 {
        let w = (0.5 + 0.5 * (f64::from(f) * 0.11).sin()) as f32;
        m.morphs.push(MorphKey::new("m", SJIS, f, w).unwrap());
    }
    m
}

#[test]
fn the_bound_is_real_a_too_tight_tolerance_keeps_every_key() {
    let m = wavy();
    let tight = SimplifyParams {
        pos_tol: 1e-7,
        rot_tol_deg: 1e-6,
        morph_tol: 1e-8,
        ..SimplifyParams::default()
    };
    let (out, _) = ops::simplify(&m, &tight).unwrap();
    assert_eq!(out.bones.len(), m.bones.len());
    assert_eq!(out.morphs.len(), m.morphs.len());
    assert_eq!(out, m, "nothing dropped, so nothing may change");
    // At the defaults the same motion loses most keys and stays within them.
    let p = SimplifyParams::default();
    let (out, _) = ops::simplify(&m, &p).unwrap();
    assert!(out.bones.len() < m.bones.len() / 2, "{}", out.bones.len());
    assert_within(compare(&m, &out), &p, "wavy");
    // Looser tolerances keep no more keys.
    let loose = SimplifyParams {
        pos_tol: 0.1,
        rot_tol_deg: 1.0,
        morph_tol: 0.05,
        ..p
    };
    let (out2, _) = ops::simplify(&m, &loose).unwrap();
    assert!(out2.bones.len() <= out.bones.len());
    assert_within(compare(&m, &out2), &loose, "wavy loose");
}

#[test]
fn every_strategy_stays_within_tolerance() {
    let m = wavy();
    for strategy in [
        Strategy::Greedy,
        Strategy::Split,
        Strategy::Best,
        Strategy::LinearGreedy,
    ] {
        let p = SimplifyParams {
            strategy,
            ..SimplifyParams::default()
        };
        let (out, _) = ops::simplify(&m, &p).unwrap();
        assert_within(compare(&m, &out), &p, &format!("{strategy:?}"));
        if strategy == Strategy::LinearGreedy {
            assert!(out.bones.iter().all(BoneKey::is_linear));
        }
    }
}

#[test]
fn cuts_physics_flags_first_and_last_keys_survive() {
    // Camera: linear pan every 2 frames from 0 to 40 with a cut 20 → 21.
    let mut m = Motion::new_v2();
    for f in (0..=20).step_by(2).chain([21]).chain((23..=41).step_by(2)) {
        let jump = if f >= 21 { 50.0 } else { 0.0 };
        let t = f as f32;
        m.cameras.push(CameraKey::new(
            f,
            -30.0,
            [t * 0.5 + jump, 10.0, 0.0],
            [0.1, 0.0, 0.0],
            30,
            true,
        ));
    }
    // Bone: linear move every frame; physics off on frames 8..=12.
    for f in 0..=30u32 {
        let mut k = BoneKey::new(
            "p",
            SJIS,
            f,
            [f as f32 * 0.1, 0.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        )
        .unwrap();
        k.set_physics_off((8..=12).contains(&f));
        m.bones.push(k);
    }
    let p = SimplifyParams::default();
    let (out, _) = ops::simplify(&m, &p).unwrap();
    let cam: Vec<u32> = out.cameras.iter().map(CameraKey::frame).collect();
    // A straight pan on each side of the cut: only the ends and the cut stay.
    assert_eq!(cam, vec![0, 20, 21, 41]);
    let bones: Vec<(u32, bool)> = out
        .bones
        .iter()
        .map(|k| (k.frame(), k.physics_off()))
        .collect();
    // The flag changes between 7/8 and 12/13: both sides of each change stay.
    assert_eq!(
        bones,
        vec![
            (0, false),
            (7, false),
            (8, true),
            (12, true),
            (13, false),
            (30, false)
        ]
    );
    assert_within(compare(&m, &out), &p, "cuts and physics");
    // Kept keys carry their bytes: everything but the curve copies equal.
    for k in &out.bones {
        let orig = m.bones.iter().find(|o| o.frame() == k.frame()).unwrap();
        assert_eq!(k.raw[..47], orig.raw[..47]);
        assert_eq!(
            k.raw[47 + 2..47 + 4],
            orig.raw[47 + 2..47 + 4],
            "physics bytes"
        );
    }
}

#[test]
fn bake_reproduces_every_frame_and_steps_keep_cuts() {
    let (src, _, _) = eased_source();
    let (baked, _) = ops::bake(&src, BakeParams::default()).unwrap();
    assert_eq!(baked.bones.len(), 91, "frames 0..=90");
    assert!(baked.bones.iter().all(BoneKey::is_linear));
    let w = compare(&src, &baked);
    assert!(w.pos < 1e-5 && w.rot < 1e-4, "{w:?}");
    // Every 7 frames: keys at 0, 7, …, 84 and 90; exact on those frames.
    let (b7, _) = ops::bake(
        &src,
        BakeParams {
            step: 7,
            ..BakeParams::default()
        },
    )
    .unwrap();
    let frames: Vec<u32> = b7.bones.iter().map(BoneKey::frame).collect();
    let want: Vec<u32> = (0..=84).step_by(7).chain([90]).collect();
    assert_eq!(frames, want);
    let (ta, tb) = (bone_tracks(&src), bone_tracks(&b7));
    for &f in &want {
        let (pa, ra) = bone_pose(&ta[&b"a".to_vec()], f);
        let (pb, rb) = bone_pose(&tb[&b"a".to_vec()], f);
        assert!((0..3).all(|i| (pa[i] - pb[i]).abs() < 1e-5) && angle_deg(ra, rb) < 1e-4);
    }
    // A camera cut inside a stepped bake keeps both of its keys.
    let mut cam = Motion::new_v2();
    for (f, x) in [(0u32, 0.0f32), (10, 5.0), (11, 40.0), (30, 50.0)] {
        cam.cameras
            .push(CameraKey::new(f, -20.0, [x, 0.0, 0.0], [0.0; 3], 30, true));
    }
    let (cb, _) = ops::bake(
        &cam,
        BakeParams {
            step: 4,
            ..BakeParams::default()
        },
    )
    .unwrap();
    let cf: Vec<u32> = cb.cameras.iter().map(CameraKey::frame).collect();
    assert!(cf.contains(&10) && cf.contains(&11), "{cf:?}");
    let (ca, cbk) = (camera_keys(&cam), camera_keys(&cb));
    for &f in &cf {
        let (va, vb) = (camera_value(&ca, f), camera_value(&cbk, f));
        assert!((0..8).all(|i| (va[i] - vb[i]).abs() < 1e-5), "frame {f}");
    }
    // Bad parameters are refused.
    assert!(
        ops::bake(
            &src,
            BakeParams {
                step: 0,
                ..BakeParams::default()
            }
        )
        .is_err()
    );
    assert!(
        ops::bake(
            &src,
            BakeParams {
                from: Some(9),
                to: Some(3),
                step: 1
            }
        )
        .is_err()
    );
}

#[test]
fn bad_tolerances_are_refused() {
    let m = wavy();
    for p in [
        SimplifyParams {
            pos_tol: -1.0,
            ..SimplifyParams::default()
        },
        SimplifyParams {
            rot_tol_deg: f64::NAN,
            ..SimplifyParams::default()
        },
    ] {
        assert!(ops::simplify(&m, &p).is_err());
    }
}

fn load(name: &str) -> Option<Motion> {
    let dir = corpus()?;
    let bytes = std::fs::read(dir.join(name)).ok()?;
    vmd::read(&bytes).ok()
}

#[test]
fn drink_goes_from_6006_to_at_most_600_bone_keys_within_tolerance() {
    let Some(m) = load("mcmmdrust__Drink.vmd") else {
        return;
    };
    assert_eq!(m.bones.len(), 6006, "CENSUS");
    let p = SimplifyParams::default();
    let (out, rep) = ops::simplify(&m, &p).unwrap();
    println!("Drink: {} → {} bone keys", m.bones.len(), out.bones.len());
    assert!(out.bones.len() <= 600, "{} keys", out.bones.len());
    assert_within(compare(&m, &out), &p, "Drink");
    // Row-0-only blocks (CENSUS: all 6006) stay row-0-only; names, frames
    // and values are the original bytes.
    for k in &out.bones {
        assert!(k.raw[47 + 16..].iter().all(|&b| b == 0));
        let orig = m.bones.iter().find(|o| o.raw[..47] == k.raw[..47]);
        assert!(orig.is_some(), "kept key bytes changed");
    }
    assert_eq!(out.iks, m.iks, "IK/show keys kept");
    assert_eq!(
        rep.tracks.iter().map(|t| t.after).sum::<usize>(),
        out.bones.len()
    );
    // The report's worst errors are within the tolerances too.
    for w in &rep.worst {
        assert!(w.error <= 0.1 + 1e-9, "{w:?}");
    }
}

#[test]
fn bake_then_simplify_every_corpus_dance_stays_within_tolerance() {
    let Some(dir) = corpus() else { return };
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "vmd"))
        .collect();
    names.sort();
    let p = SimplifyParams::default();
    let mut dances = 0;
    for path in names {
        let Ok(m) = vmd::read(&std::fs::read(&path).unwrap()) else {
            continue;
        };
        if m.bones.len() <= 10 {
            continue; // not a dance (spec's classification)
        }
        // Debug builds are slow: the long dances are cut to their first 20 s.
        let m = if m.last_frame().unwrap_or(0) > 600 {
            ops::trim(
                &m,
                ops::TrimParams {
                    from: 0,
                    to: 600,
                    rebase: false,
                },
            )
            .unwrap()
            .0
        } else {
            m
        };
        let (baked, _) = ops::bake(&m, BakeParams::default()).unwrap();
        let (back, _) = ops::simplify(&baked, &p).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        println!(
            "{name}: {} bone keys → baked {} → simplified {} (morphs {} → {} → {})",
            m.bones.len(),
            baked.bones.len(),
            back.bones.len(),
            m.morphs.len(),
            baked.morphs.len(),
            back.morphs.len()
        );
        assert_within(compare(&baked, &back), &p, &name);
        assert!(back.bones.len() < baked.bones.len() || baked.bones.len() == m.bones.len());
        dances += 1;
    }
    assert!(dances >= 5, "{dances}");
}

#[test]
fn cli_simplify_json_and_bake() {
    let dir = std::env::temp_dir().join(format!("vmd-simplify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("wavy.vmd");
    vmd::save(&wavy(), &src).unwrap();
    let exe = env!("CARGO_BIN_EXE_vmd-studio");
    let baked = dir.join("baked.vmd");
    let out = std::process::Command::new(exe)
        .args([
            "bake",
            src.to_str().unwrap(),
            "-o",
            baked.to_str().unwrap(),
            "--step",
            "1",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let simp = dir.join("simp.vmd");
    let out = std::process::Command::new(exe)
        .args([
            "simplify",
            baked.to_str().unwrap(),
            "-o",
            simp.to_str().unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["before"]["bones"], 360);
    let after = j["after"]["bones"].as_u64().unwrap();
    let written = vmd::read(&std::fs::read(&simp).unwrap()).unwrap();
    assert_eq!(written.bones.len() as u64, after);
    assert!(
        j["worst"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["kind"] == "Rotation")
    );
    // Bad tolerance: exit 1, one line on stderr, nothing written.
    let none = dir.join("none.vmd");
    let out = std::process::Command::new(exe)
        .args([
            "simplify",
            src.to_str().unwrap(),
            "-o",
            none.to_str().unwrap(),
            "--pos-tol",
            "-1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim().lines().count(),
        1
    );
    assert!(!none.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
