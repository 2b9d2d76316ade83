//! Hand-built PMM projects (v1 and v2) shared by the project tests:
//! bytes built inline, one commented field per line, every field of the
//! format, lists with stale pool records and a cycle.
#![allow(dead_code)]

use vmd_studio::project::document::*;
use vmd_studio::project::{self, ModelShape};

/// Little-endian bytes, one field per call.
#[derive(Default)]
pub struct B(pub Vec<u8>);

impl B {
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn f32(&mut self, v: f32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn f32s(&mut self, v: &[f32]) -> &mut Self {
        v.iter().for_each(|x| {
            self.f32(*x);
        });
        self
    }
    pub fn raw(&mut self, v: &[u8]) -> &mut Self {
        self.0.extend_from_slice(v);
        self
    }
    /// A fixed Shift_JIS field of `n` bytes, NUL-padded.
    pub fn fixed(&mut self, s: &str, n: usize) -> &mut Self {
        let b = sjis(s);
        assert!(b.len() < n);
        self.raw(&b);
        self.raw(&vec![0; n - b.len()])
    }
    /// A `u8`-length Shift_JIS string.
    pub fn short(&mut self, s: &str) -> &mut Self {
        let b = sjis(s);
        self.u8(b.len() as u8).raw(&b)
    }
    /// The base of a key record: id (pool records), frame, prev, next.
    pub fn base(&mut self, id: Option<i32>, frame: i32, prev: i32, next: i32) -> &mut Self {
        if let Some(id) = id {
            self.i32(id);
        }
        self.i32(frame).i32(prev).i32(next)
    }
}

pub fn sjis(s: &str) -> Vec<u8> {
    encoding_rs::SHIFT_JIS.encode(s).0.into_owned()
}

pub const MODEL_PATH: &str = r"C:\MMD\UserFile\Model\ミク.pmx";
/// Curves of the key at frame 30: X (1,2,3,4), Y (5,6,7,8), Z (9,10,11,12), R (13,14,15,16).
pub const CURVES_30: [u8; 16] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
pub const DEFAULT_CURVES: [u8; 16] = [
    20, 20, 107, 107, 20, 20, 107, 107, 20, 20, 107, 107, 20, 20, 107, 107,
];

/// A bone key's body after the base.
pub fn bone_body(
    b: &mut B,
    v2: bool,
    curves: &[u8; 16],
    pos: [f32; 3],
    rot: [f32; 4],
    sel: u8,
    phys_off: u8,
) {
    b.raw(curves); // curves X, Y, Z, R: x1 y1 x2 y2 each
    b.f32s(&pos); // position
    b.f32s(&rot); // rotation x y z w
    b.u8(sel); // selected
    if v2 {
        b.u8(phys_off); // physics off
    }
}

/// The models block: 1 model, 2 bones (センター, 左足ＩＫ), morphs あ (v1:
/// base, あ), 1 IK bone (左足ＩＫ), v2 outside-parent bones [-1, 0].
pub fn model(b: &mut B, v2: bool) {
    let morphs = if v2 { 1 } else { 2 };
    b.u8(0); // model index
    if v2 {
        b.short("ミク"); // name
        b.short("Miku"); // English name
        b.fixed(MODEL_PATH, 256); // path
        b.u8(3); // fixed track rows
        b.i32(2).short("センター").short("左足ＩＫ"); // bone names
        b.i32(1).short("あ"); // morph names
        b.i32(1).i32(1); // IK bone indices: [1]
        b.i32(2).i32(-1).i32(0); // outside-parent bones: [-1, 0]
    } else {
        b.fixed("ミク", 20); // name
        b.fixed(MODEL_PATH, 256); // path
    }
    b.u8(1); // draw order
    b.u8(1); // visible
    b.i32(0); // selected bone
    b.i32(-1).i32(-1).i32(-1).i32(-1); // selected morphs
    b.u8(2).u8(1).u8(0); // expanded display frames: 2 flags
    b.i32(7); // vertical scroll
    b.i32(60); // last frame
    // initial bone keys (ids 0, 1)
    b.base(None, 0, 0, 5); // bone 0 → id 5
    bone_body(b, v2, &DEFAULT_CURVES, [0.0; 3], [0.0, 0.0, 0.0, 1.0], 0, 0);
    b.base(None, 0, 1, 0); // bone 1: no later key
    bone_body(
        b,
        v2,
        &DEFAULT_CURVES,
        [0.5, 0.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
        0,
        0,
    );
    b.i32(3); // bone pool: 3 records
    b.base(Some(6), 99, 0, 0); // stale record (no list reaches it)
    bone_body(b, v2, &DEFAULT_CURVES, [9.0; 3], [0.0, 0.0, 0.0, 1.0], 0, 0);
    b.base(Some(7), 60, 5, 0); // bone 0 at 60 (after id 5)
    bone_body(
        b,
        v2,
        &DEFAULT_CURVES,
        [4.0, 5.0, 6.0],
        [0.0, 0.6, 0.0, 0.8],
        0,
        0,
    );
    b.base(Some(5), 30, 0, 7); // bone 0 at 30
    bone_body(
        b,
        v2,
        &CURVES_30,
        [1.0, 2.0, 3.0],
        [0.0, 0.0, 0.6, 0.8],
        1,
        1,
    );
    // initial morph keys
    for m in 0..morphs {
        let last = m == morphs - 1;
        b.base(None, 0, m, if last { 9 } else { 0 }); // あ → id 9
        b.f32(0.0).u8(0); // weight, selected
    }
    b.i32(1); // morph pool: 1 record
    b.base(Some(9), 10, morphs - 1, 0).f32(0.75).u8(0); // あ at 10: weight 0.75
    // initial model key
    b.base(None, 0, 0, 2); // → id 2
    b.u8(1); // visible
    b.u8(1); // IK on for 左足ＩＫ
    if v2 {
        b.i32(-1).i32(-1).i32(-1).i32(-1); // outside parents: none, none
    }
    b.u8(0); // selected
    b.i32(1); // model key pool: 1 record
    b.base(Some(2), 45, 0, 0); // at 45
    b.u8(0); // hidden
    b.u8(0); // IK off
    if v2 {
        b.i32(-1).i32(-1).i32(0).i32(1); // bone センター hangs on model 0 bone 1
    }
    b.u8(1); // selected
    // bone states
    for _ in 0..2 {
        b.f32s(&[0.0; 3]).f32s(&[0.0, 0.0, 0.0, 1.0]); // position, rotation
        if v2 {
            b.u8(1).u8(0).u8(0); // dirty, physics off, selected tracks
        } else {
            b.i32(0).u8(1).u8(0); // unknown, dirty, selected tracks
        }
    }
    for _ in 0..morphs {
        b.f32(0.25); // morph weight now
    }
    b.u8(1); // IK state
    if v2 {
        b.i32(0).i32(100).i32(-1).i32(-1); // outside-parent state 0
        b.i32(5).i32(50).i32(0).i32(1); // outside-parent state 1
        b.u8(1); // alpha blend
        b.f32(1.5); // edge width
        b.u8(1); // self-shadow
        b.u8(1); // transform order
    }
}

pub fn camera_body(b: &mut B, v2: bool, distance: f32, fov: i32) {
    b.f32(distance); // distance
    b.f32s(&[0.0, 10.0, 0.0]); // target
    b.f32s(&[0.1, 0.2, 0.3]); // angles
    if v2 {
        b.i32(-1).i32(-1); // follow model, bone
    }
    b.raw(&std::array::from_fn::<u8, 24, _>(|i| i as u8 + 1)); // curves 1..24
    b.u8(0); // perspective on
    b.i32(fov); // fov
    b.u8(0); // selected
}

/// Everything after the models.
pub fn scene(b: &mut B, v2: bool) {
    // camera: 0 → id 1 (20) → id 2 (40) → id 1 again: a cycle
    b.base(None, 0, 0, 1);
    camera_body(b, v2, -45.0, 30);
    b.i32(2); // camera pool
    b.base(Some(1), 20, 0, 2);
    camera_body(b, v2, -30.0, 40);
    b.base(Some(2), 40, 1, 1);
    camera_body(b, v2, -20.0, 50);
    b.f32s(&[0.0, 10.0, 0.0])
        .f32s(&[0.0, 10.0, -45.0])
        .f32s(&[0.0; 3]); // current camera
    b.u8(0); // current perspective on
    // light
    b.base(None, 0, 0, 0)
        .f32s(&[0.6, 0.6, 0.6])
        .f32s(&[-0.5, -1.0, 0.5])
        .u8(0);
    b.i32(0); // light pool
    b.f32s(&[0.6, 0.6, 0.6]).f32s(&[-0.5, -1.0, 0.5]); // current colour, direction
    // accessories
    b.u8(0); // selected accessory
    b.i32(0); // accessory scroll
    b.u8(1); // count
    b.fixed("ステージ", 100); // names
    b.u8(0); // index
    b.fixed("ステージ", 100); // name
    b.fixed(r"C:\MMD\UserFile\Accessory\stage.x", 256); // path
    b.u8(0); // draw order
    let acc = |b: &mut B, y: f32| {
        b.u8(0x0B); // shown, opacity 1 - 5/100
        b.i32(-1).i32(-1); // parent model, bone
        b.f32s(&[0.0, y, 0.0]); // position
        b.f32s(&[0.0; 3]); // rotation
        b.f32(10.0); // scale
        b.u8(1); // shadow
        b.u8(0); // selected
    };
    b.base(None, 0, 0, 1);
    acc(b, 0.0);
    b.i32(1); // accessory pool
    b.base(Some(1), 15, 0, 0);
    acc(b, 2.0);
    b.u8(1); // current: shown, opacity 1
    b.i32(-1).i32(-1); // parent
    b.f32s(&[0.0; 3]); // position
    b.f32(10.0); // scale
    b.f32s(&[0.0; 3]); // rotation
    b.u8(1); // shadow
    if v2 {
        b.u8(0); // additive blend
    }
    // settings
    b.i32(12); // current frame
    b.i32(0).i32(735).i32(2); // scroll, thumb, editing mode
    b.u8(0); // camera look mode
    b.u8(1).u8(1).u8(1); // loop, from enabled, to enabled
    b.i32(10).i32(50); // play from, to
    b.u8(1); // song enabled
    b.fixed(r"C:\MMD\UserFile\Wave\song.wav", 256); // song
    b.i32(0).i32(0).f32(1.0); // video offset, scale
    b.fixed("", 256); // video path
    b.i32(0); // video enabled
    b.i32(1).i32(2).f32(0.5); // image offset, scale
    b.fixed(r"C:\bg.png", 256); // image path
    b.u8(1); // image enabled
    b.u8(1).u8(1).u8(1); // info, grid, ground shadow
    b.f32(30.0); // fps
    b.i32(0); // screen capture
    b.i32(-1); // accessories after models from
    b.f32(0.8); // ground shadow brightness
    if !v2 {
        b.raw(&[0xAA, 0xBB]); // v1: unknown bytes, kept raw
        return;
    }
    b.u8(1); // translucent ground shadow
    b.u8(2); // physics: while playing
    b.f32(9.8).i32(10).f32s(&[0.0, -1.0, 0.0]).u8(0); // gravity now
    b.base(None, 0, 0, 0)
        .u8(0)
        .i32(10)
        .f32(9.8)
        .f32s(&[0.0, -1.0, 0.0])
        .u8(0); // initial gravity key
    b.i32(0); // gravity pool
    b.u8(1).f32(0.01125); // self-shadow on, distance
    b.base(None, 0, 0, 1).u8(1).f32(0.01125).u8(0); // initial self-shadow key
    b.i32(1); // self-shadow pool
    b.base(Some(1), 5, 0, 0).u8(2).f32(0.02).u8(0); // at 5: mode 2
    b.i32(255).i32(0).i32(128); // edge colour
    b.u8(0); // black background
    b.i32(-1).i32(-1); // camera follows
    for i in 0..16 {
        b.f32(if i % 5 == 0 { 1.0 } else { 0.0 }); // unnamed matrix
    }
    b.u8(0).u8(0).u8(1); // follow camera, unnamed, ground physics
    b.i32(12); // frame in text field
    b.u8(1).u8(0).i32(3); // range selection: model 0 → 3
}

pub fn project_bytes(v2: bool) -> Vec<u8> {
    let mut b = B::default();
    b.fixed(
        if v2 {
            "Polygon Movie maker 0002"
        } else {
            "Polygon Movie maker 0001"
        },
        30,
    );
    b.i32(1920).i32(1080); // output size
    b.i32(250); // timeline width
    b.f32(30.0); // fov
    b.raw(&[1, 1, 1, 0, 1, 1]); // editing camera, panels expanded
    if v2 {
        b.u8(0); // self-shadow panel
    }
    b.u8(0); // selected model
    b.u8(1); // model count
    if !v2 {
        b.fixed("ミク", 20); // v1: model names
    }
    model(&mut b, v2);
    scene(&mut b, v2);
    b.0
}

pub fn v1_shape(_: usize, path: &PmmText) -> Option<ModelShape> {
    assert_eq!(path.text, MODEL_PATH);
    Some(ModelShape {
        bone_names: vec![sjis("センター"), sjis("左足ＩＫ")],
        morph_names: vec![b"base".to_vec(), sjis("あ")],
        ik_bones: vec![1],
    })
}

pub fn read(v2: bool) -> Project {
    let bytes = project_bytes(v2);
    let p = project::read_with(&bytes, &mut v1_shape).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.version, if v2 { PmmVersion::V2 } else { PmmVersion::V1 });
    p
}
