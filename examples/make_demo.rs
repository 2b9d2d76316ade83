//! Writes the bundled demo files: `assets/demo_dance.vmd` (a short dance),
//! `assets/demo_camera.vmd` (a camera with cuts) and the demo mannequin
//! `assets/demo_model.pmx` with its texture `assets/demo_model.bmp`. Made by
//! VMD Studio itself so the project owns them (licence: the project's).
//! Run: `cargo run --example make_demo`.

#[path = "support/demo_model.rs"]
mod demo_model;

use std::f32::consts::PI;

use vmd_studio::vmd::{
    self, BoneChannel, BoneKey, CameraChannel, CameraKey, Curve, MorphKey, Motion, NameEncoding,
};

const SJIS: NameEncoding = NameEncoding::ShiftJis;

fn q_axis(axis: [f32; 3], deg: f32) -> [f32; 4] {
    let h = deg.to_radians() * 0.5;
    let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    let s = h.sin() / n;
    [axis[0] * s, axis[1] * s, axis[2] * s, h.cos()]
}

fn bone(
    m: &mut Motion,
    name: &str,
    frame: u32,
    pos: [f32; 3],
    rot: [f32; 4],
    curve: Option<Curve>,
) {
    let mut k = BoneKey::new(name, SJIS, frame, pos, rot).expect("demo names fit 15 bytes");
    if let Some(c) = curve {
        for ch in BoneChannel::ALL {
            k.set_curve(ch, c);
        }
    }
    m.bones.push(k);
}

fn dance() -> Motion {
    let mut m = Motion::new_v2();
    m.set_model_name("VMD Studio demo").expect("fits");
    let ease = Some(Curve::new(64, 0, 64, 127));
    let ease_out = Some(Curve::new(20, 100, 60, 127));
    // Centre: bounce down on every beat (15 frames).
    for (i, f) in (0..=120).step_by(15).enumerate() {
        let y = if i % 2 == 0 { 0.0 } else { -0.8 };
        let x = ((i as f32) * PI / 4.0).sin() * 1.5;
        bone(
            &mut m,
            "センター",
            f,
            [x, y, 0.0],
            [0.0, 0.0, 0.0, 1.0],
            ease,
        );
    }
    // Upper body sways.
    for (i, f) in (0..=120).step_by(30).enumerate() {
        let deg = if i % 2 == 0 { -12.0 } else { 12.0 };
        bone(
            &mut m,
            "上半身",
            f,
            [0.0; 3],
            q_axis([0.0, 1.0, 0.2], deg),
            ease,
        );
    }
    // Arms wave (MMD: the left arm is at +X; raising it is a rotation about −Z... about Z).
    for (i, f) in (0..=120).step_by(20).enumerate() {
        let up = if i % 2 == 0 { 35.0 } else { -10.0 };
        bone(
            &mut m,
            "左腕",
            f,
            [0.0; 3],
            q_axis([0.0, 0.0, 1.0], up),
            ease_out,
        );
        bone(
            &mut m,
            "右腕",
            f,
            [0.0; 3],
            q_axis([0.0, 0.0, 1.0], -up),
            ease_out,
        );
        bone(
            &mut m,
            "左ひじ",
            f,
            [0.0; 3],
            q_axis([0.0, 1.0, 0.0], -30.0 - up * 0.5),
            ease,
        );
        bone(
            &mut m,
            "右ひじ",
            f,
            [0.0; 3],
            q_axis([0.0, 1.0, 0.0], 30.0 + up * 0.5),
            ease,
        );
    }
    // Head nods.
    for (i, f) in (0..=120).step_by(10).enumerate() {
        let deg = if i % 2 == 0 { 0.0 } else { 10.0 };
        bone(
            &mut m,
            "頭",
            f,
            [0.0; 3],
            q_axis([1.0, 0.0, 0.0], deg),
            ease,
        );
    }
    // Steps: leg IK targets lift in turn.
    for (i, f) in (0..=120).step_by(15).enumerate() {
        let (l, r) = if i % 2 == 0 { (0.0, 1.2) } else { (1.2, 0.0) };
        bone(
            &mut m,
            "左足ＩＫ",
            f,
            [0.0, l, -l * 0.5],
            [0.0, 0.0, 0.0, 1.0],
            ease,
        );
        bone(
            &mut m,
            "右足ＩＫ",
            f,
            [0.0, r, -r * 0.5],
            [0.0, 0.0, 0.0, 1.0],
            ease,
        );
    }
    // Mouth opens on beats, eyes blink once.
    for (i, f) in (0..=120).step_by(15).enumerate() {
        let w = if i % 2 == 0 { 0.0 } else { 0.7 };
        m.morphs
            .push(MorphKey::new("あ", SJIS, f, w).expect("fits"));
    }
    for (f, w) in [(0, 0.0), (58, 0.0), (61, 1.0), (64, 0.0)] {
        m.morphs
            .push(MorphKey::new("まばたき", SJIS, f, w).expect("fits"));
    }
    m
}

fn camera() -> Motion {
    let mut m = Motion::new_v2();
    m.set_model_name("カメラ・照明").expect("fits");
    let deg = |d: f32| d.to_radians();
    let smooth = Curve::new(40, 0, 88, 127);
    // (frame, distance, target, rotation x/y/z in degrees, fov). With MMD's
    // eye formula a negative x rotation lifts the eye above the target.
    type Shot = (u32, f32, [f32; 3], [f32; 3], u32);
    let shots: [Shot; 13] = [
        (0, -45.0, [0.0, 10.0, 0.0], [0.0, 0.0, 0.0], 30),
        (12, -38.0, [0.0, 11.0, 0.0], [-2.0, 8.0, 0.0], 30),
        (29, -30.0, [0.0, 12.0, 0.0], [-5.0, 20.0, 0.0], 30),
        // cut: 29 → 30
        (30, -32.0, [0.0, 12.0, 0.0], [-10.0, -35.0, 0.0], 30),
        (45, -34.0, [0.5, 11.5, 0.0], [-9.0, -22.0, 1.0], 30),
        (59, -36.0, [1.0, 11.0, 0.0], [-8.0, -10.0, 3.0], 30),
        // cut: 59 → 60
        (60, -60.0, [0.0, 9.0, 0.0], [5.0, 180.0, 0.0], 40),
        (75, -50.0, [0.0, 9.5, 0.0], [2.0, 165.0, 0.0], 38),
        (90, -40.0, [0.0, 10.0, 0.0], [0.0, 150.0, 0.0], 35),
        // a two-frame gap: not a cut
        (92, -38.0, [0.0, 10.0, 0.0], [0.0, 148.0, 0.0], 35),
        (105, -38.0, [0.0, 10.5, 0.0], [-8.0, 120.0, 0.0], 32),
        (119, -34.0, [0.0, 11.0, 0.0], [-15.0, 90.0, 0.0], 30),
        (120, -45.0, [0.0, 10.0, 0.0], [0.0, 0.0, 0.0], 30),
    ];
    for (f, d, t, r, fov) in shots {
        let mut k = CameraKey::new(f, d, t, [deg(r[0]), deg(r[1]), deg(r[2])], fov, true);
        for ch in CameraChannel::ALL {
            k.set_curve(ch, smooth);
        }
        m.cameras.push(k);
    }
    m
}

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    for (name, m) in [("demo_dance.vmd", dance()), ("demo_camera.vmd", camera())] {
        let path = dir.join(name);
        if let Err(e) = vmd::save(&m, &path) {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        println!("wrote {}", path.display());
    }
    let skeleton = match std::fs::read_to_string(dir.join("standard_skeleton.json")) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: standard_skeleton.json: {e}");
            std::process::exit(1);
        }
    };
    let (pmx, bmp) = demo_model::demo_model(&skeleton);
    for (name, bytes) in [("demo_model.pmx", pmx), ("demo_model.bmp", bmp)] {
        let path = dir.join(name);
        if let Err(e) = std::fs::write(&path, &bytes) {
            eprintln!("error: {}: {e}", path.display());
            std::process::exit(1);
        }
        println!("wrote {} ({} bytes)", path.display(), bytes.len());
    }
}
