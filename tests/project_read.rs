//! The PMM reader on hand-built projects (v1 and v2): bytes built inline,
//! one commented field per line, every field of the format; lists with
//! stale pool records and a cycle; truncations at every offset.
//!
//! Expected values are the ones written below, and the VMD blocks are
//! laid out by hand from `/work/shared/spec/vmd-format.md`.

use vmd_studio::project::document::*;
use vmd_studio::project::links::{self, KeyAt};
use vmd_studio::project::{self, ModelShape, WarningKind};
use vmd_studio::vmd;

/// Little-endian bytes, one field per call.
#[derive(Default)]
struct B(Vec<u8>);

impl B {
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn f32(&mut self, v: f32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn f32s(&mut self, v: &[f32]) -> &mut Self {
        v.iter().for_each(|x| {
            self.f32(*x);
        });
        self
    }
    fn raw(&mut self, v: &[u8]) -> &mut Self {
        self.0.extend_from_slice(v);
        self
    }
    /// A fixed Shift_JIS field of `n` bytes, NUL-padded.
    fn fixed(&mut self, s: &str, n: usize) -> &mut Self {
        let b = sjis(s);
        assert!(b.len() < n);
        self.raw(&b);
        self.raw(&vec![0; n - b.len()])
    }
    /// A `u8`-length Shift_JIS string.
    fn short(&mut self, s: &str) -> &mut Self {
        let b = sjis(s);
        self.u8(b.len() as u8).raw(&b)
    }
    /// The base of a key record: id (pool records), frame, prev, next.
    fn base(&mut self, id: Option<i32>, frame: i32, prev: i32, next: i32) -> &mut Self {
        if let Some(id) = id {
            self.i32(id);
        }
        self.i32(frame).i32(prev).i32(next)
    }
}

fn sjis(s: &str) -> Vec<u8> {
    encoding_rs::SHIFT_JIS.encode(s).0.into_owned()
}

const MODEL_PATH: &str = r"C:\MMD\UserFile\Model\ミク.pmx";
/// Curves of the key at frame 30: X (1,2,3,4), Y (5,6,7,8), Z (9,10,11,12), R (13,14,15,16).
const CURVES_30: [u8; 16] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
const DEFAULT_CURVES: [u8; 16] = [
    20, 20, 107, 107, 20, 20, 107, 107, 20, 20, 107, 107, 20, 20, 107, 107,
];

/// A bone key's body after the base.
fn bone_body(
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
fn model(b: &mut B, v2: bool) {
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

fn camera_body(b: &mut B, v2: bool, distance: f32, fov: i32) {
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
fn scene(b: &mut B, v2: bool) {
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

fn project_bytes(v2: bool) -> Vec<u8> {
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

fn v1_shape(_: usize, path: &PmmText) -> Option<ModelShape> {
    assert_eq!(path.text, MODEL_PATH);
    Some(ModelShape {
        bone_names: vec![sjis("センター"), sjis("左足ＩＫ")],
        morph_names: vec![b"base".to_vec(), sjis("あ")],
        ik_bones: vec![1],
    })
}

fn read(v2: bool) -> Project {
    let bytes = project_bytes(v2);
    let p = project::read_with(&bytes, &mut v1_shape).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.version, if v2 { PmmVersion::V2 } else { PmmVersion::V1 });
    p
}

#[test]
fn every_field_of_a_v2_project_reads_back() {
    let p = read(true);
    assert_eq!(p.output_size, [1920, 1080]);
    assert_eq!(p.timeline_width, 250);
    assert_eq!(p.camera_fov, 30.0);
    assert_eq!(p.panel_flags, [1, 1, 1, 0, 1, 1, 0]);
    let m = &p.models[0];
    assert_eq!(m.name.text, "ミク");
    assert_eq!(m.name_en.text, "Miku");
    assert_eq!(m.path.text, MODEL_PATH);
    assert_eq!(m.path.raw.len(), 256);
    assert_eq!(m.fixed_tracks, 3);
    let names: Vec<&str> = m.bone_names.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(names, ["センター", "左足ＩＫ"]);
    assert_eq!(m.morph_names[0].text, "あ");
    assert_eq!(m.ik_bones, [1]);
    assert_eq!(m.outside_parent_bones, [-1, 0]);
    assert_eq!((m.draw_order, m.visible, m.selected_bone), (1, true, 0));
    assert_eq!(m.selected_morphs, [-1; 4]);
    assert_eq!(m.expanded, [1, 0]);
    assert_eq!((m.vertical_scroll, m.last_frame), (7, 60));
    assert_eq!(m.bones.initial.len(), 2);
    assert_eq!(m.bones.pool.len(), 3);
    let k30 = &m.bones.pool[2];
    assert_eq!((k30.id, k30.frame, k30.prev, k30.next), (5, 30, 0, 7));
    assert_eq!(k30.value.curves, CURVES_30);
    assert_eq!(k30.value.position, [1.0, 2.0, 3.0]);
    assert_eq!(k30.value.rotation, [0.0, 0.0, 0.6, 0.8]);
    assert!(k30.selected && k30.value.physics_off);
    assert_eq!(m.morphs.pool[0].value.weight, 0.75);
    let mk = &m.model_keys.pool[0].value;
    assert!(!mk.visible);
    assert_eq!(mk.ik_enabled, [false]);
    assert_eq!(mk.outside_parents, [(-1, -1), (0, 1)]);
    assert_eq!(m.bone_states.len(), 2);
    assert!(m.bone_states[0].dirty);
    assert_eq!(m.morph_states, [0.25]);
    assert_eq!(m.ik_states, [true]);
    assert_eq!(
        m.outside_parent_states[1],
        OutsideParentState {
            begin: 5,
            end: 50,
            parent: (0, 1)
        }
    );
    assert!(m.blend && m.self_shadow);
    assert_eq!((m.edge_width, m.transform_order), (1.5, 1));
    let cam = p.camera.as_ref().unwrap();
    assert_eq!(cam.keys.pool.len(), 2);
    assert_eq!(cam.keys.initial[0].value.follow, Some((-1, -1)));
    assert_eq!(cam.keys.pool[1].value.fov, 50);
    assert_eq!(cam.current[2], [0.0; 3]);
    let light = p.light.as_ref().unwrap();
    assert_eq!(light.direction, [-0.5, -1.0, 0.5]);
    assert_eq!(p.accessory_names[0].text, "ステージ");
    let a = &p.accessories[0];
    assert_eq!(a.path.text, r"C:\MMD\UserFile\Accessory\stage.x");
    assert_eq!(a.keys.pool[0].value.position, [0.0, 2.0, 0.0]);
    assert!(a.keys.initial[0].value.visible());
    assert!((a.keys.initial[0].value.opacity() - 0.95).abs() < 1e-6);
    assert_eq!(a.current.scale, 10.0);
    let s = p.settings.as_ref().unwrap();
    assert_eq!((s.current_frame, s.begin_frame, s.end_frame), (12, 10, 50));
    assert!(s.loop_playback && s.begin_enabled && s.end_enabled && s.audio_enabled);
    assert_eq!(s.audio_path.text, r"C:\MMD\UserFile\Wave\song.wav");
    assert_eq!((s.image_offset, s.image_scale), ([1, 2], 0.5));
    assert_eq!(s.image_path.text, r"C:\bg.png");
    assert_eq!(
        (s.fps, s.accessory_after_models, s.ground_shadow_brightness),
        (30.0, -1, 0.8)
    );
    assert!(s.translucent_ground_shadow);
    assert_eq!(s.physics_mode, 2);
    let g = p.gravity.as_ref().unwrap();
    assert_eq!(
        (g.acceleration, g.noise, g.direction),
        (9.8, 10, [0.0, -1.0, 0.0])
    );
    let ss = p.self_shadow.as_ref().unwrap();
    assert_eq!(
        ss.keys.pool[0].value,
        PmmShadowKey {
            mode: 2,
            distance: 0.02
        }
    );
    let t = p.tail.as_ref().unwrap();
    assert_eq!(t.edge_color, [255, 0, 128]);
    assert!(t.ground_physics);
    assert_eq!(t.frame_in_text_field, 12);
    assert_eq!(t.range_selection, Some(vec![(0, 3)]));
    assert!(p.trailing.is_empty());
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
}

#[test]
fn a_v1_project_reads_with_its_model_shape_and_keeps_unknown_bytes() {
    let p = read(false);
    assert_eq!(p.v1_model_names[0].text, "ミク");
    let m = &p.models[0];
    assert_eq!(m.name.raw.len(), 20);
    assert_eq!(m.morph_names.len(), 2);
    assert_eq!(m.bones.pool[2].value.curves, CURVES_30);
    assert!(!m.bones.pool[2].value.physics_off, "v1 has no physics flag");
    assert_eq!(m.model_keys.pool[0].value.outside_parents, []);
    assert_eq!(
        p.camera.as_ref().unwrap().keys.initial[0].value.follow,
        None
    );
    assert_eq!(p.accessories[0].keys.pool[0].frame, 15);
    assert!(p.gravity.is_none() && p.tail.is_none());
    assert_eq!(p.trailing, [0xAA, 0xBB]);
    assert!(matches!(
        p.warnings[0].kind,
        WarningKind::TrailingBytes { len: 2 }
    ));
}

#[test]
fn a_v1_project_without_its_model_file_stops_with_a_warning() {
    let bytes = project_bytes(false);
    let p = project::read(&bytes).unwrap_or_else(|e| panic!("{e}"));
    assert!(p.models.is_empty());
    assert!(p.camera.is_none());
    // header 30 + 16 + 6 flags + 2 counts + 20 name: the model starts at 74.
    assert_eq!(p.warnings[0].offset, 74);
    assert!(matches!(
        p.warnings[0].kind,
        WarningKind::V1ModelShapeUnknown { model: 0, .. }
    ));
    assert_eq!(p.trailing_offset, 74);
}

#[test]
fn lists_skip_stale_records_and_a_cycle_ends_the_camera() {
    for v2 in [true, false] {
        let p = read(v2);
        let m = &p.models[0];
        let l = links::follow(&m.bones, |i| format!("bone {i}"));
        let frames: Vec<Vec<i32>> = l
            .lists
            .iter()
            .map(|list| {
                list.iter()
                    .map(|&at| m.bones.get(at).unwrap().frame)
                    .collect()
            })
            .collect();
        assert_eq!(frames, [vec![0, 30, 60], vec![0]]);
        assert_eq!(l.unreached, 1, "the record at 99 is stale");
        assert!(l.warnings.is_empty());
        let cam = p.camera.as_ref().unwrap();
        let l = links::follow(&cam.keys, |_| "camera".into());
        assert_eq!(
            l.lists[0],
            [KeyAt::Initial(0), KeyAt::Pool(0), KeyAt::Pool(1)]
        );
        assert_eq!(
            l.warnings[0].kind,
            WarningKind::LinkCycle {
                track: "camera".into(),
                next: 1
            }
        );
        // the warning points at the record whose link closes the cycle
        assert_eq!(l.warnings[0].offset, cam.keys.pool[1].offset);
    }
}

/// The 64-byte block MMD writes for curves X (1,2,3,4), Y (5..8), Z
/// (9..12), R (13..16), physics off: by hand from the spec's table.
const BLOCK_30: [u8; 64] = [
    1, 5, 0x63, 0x0F, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16, //
    5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16, 0, //
    9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16, 0, 0, //
    13, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16, 0, 0, 0,
];

#[test]
fn a_models_keys_become_a_vmd_that_our_writer_saves_and_reader_reads_equal() {
    for v2 in [true, false] {
        let p = read(v2);
        let mm = project::model_motion(&p.models[0], 0);
        assert_eq!(mm.unreached.bone, 1);
        let bytes = vmd::write(&mm.motion).unwrap();
        let back = vmd::read(&bytes).unwrap();
        assert_eq!(back, mm.motion);
        assert_eq!(back.model_name().text, "ミク");
        let keys: Vec<(String, u32)> = back
            .bones
            .iter()
            .map(|k| (k.name().text, k.frame()))
            .collect();
        assert_eq!(
            keys,
            [
                ("センター".into(), 0),
                ("センター".into(), 30),
                ("センター".into(), 60),
                ("左足ＩＫ".into(), 0)
            ]
        );
        let k = &back.bones[1];
        assert_eq!(k.position(), [1.0, 2.0, 3.0]);
        assert_eq!(k.rotation(), [0.0, 0.0, 0.6, 0.8]);
        let want = if v2 {
            BLOCK_30
        } else {
            let mut b = BLOCK_30;
            b[2..4].copy_from_slice(&[0, 0]); // v1 keys have no physics flag
            b
        };
        assert_eq!(k.interpolation_block(), want);
        assert_eq!(k.physics_off(), v2);
        assert_eq!(
            back.bones[0].interpolation_block(),
            vmd::interpolation::DEFAULT_BONE_BLOCK
        );
        let morph_frames: Vec<(String, u32, f32)> = back
            .morphs
            .iter()
            .map(|k| (k.name().text, k.frame(), k.weight()))
            .collect();
        let base = if v2 {
            vec![]
        } else {
            vec![("base".into(), 0, 0.0)]
        };
        let mut want_m = base;
        want_m.extend([("あ".to_string(), 0, 0.0), ("あ".to_string(), 10, 0.75)]);
        assert_eq!(morph_frames, want_m);
        let iks: Vec<(u32, bool, Option<bool>)> = back
            .iks
            .iter()
            .map(|k| (k.frame(), k.show(), k.enabled_for(&sjis("左足ＩＫ"))))
            .collect();
        assert_eq!(iks, [(0, true, Some(true)), (45, false, Some(false))]);
        assert_eq!(mm.outside_parent_keys, usize::from(v2));
    }
}

#[test]
fn camera_light_and_self_shadow_become_one_vmd() {
    let p = read(true);
    let cm = project::camera_motion(&p);
    let back = vmd::read(&vmd::write(&cm.motion).unwrap()).unwrap();
    assert_eq!(back, cm.motion);
    assert_eq!(back.model_name().text, "カメラ・照明");
    let frames: Vec<u32> = back.cameras.iter().map(|k| k.frame()).collect();
    assert_eq!(frames, [0, 20, 40]);
    let c = &back.cameras[1];
    assert_eq!((c.distance(), c.fov(), c.perspective()), (-30.0, 40, true));
    assert_eq!(c.target(), [0.0, 10.0, 0.0]);
    assert_eq!(c.rotation(), [0.1, 0.2, 0.3]);
    // PMM curves 1..24 as (x1 y1 x2 y2) × 6 → VMD (x1 x2 y1 y2) × 6.
    let want: Vec<u8> = (0..6u8)
        .flat_map(|c| [4 * c + 1, 4 * c + 3, 4 * c + 2, 4 * c + 4])
        .collect();
    assert_eq!(c.interpolation_block().to_vec(), want);
    assert_eq!(back.lights.len(), 1);
    assert_eq!(back.lights[0].direction(), [-0.5, -1.0, 0.5]);
    let sh: Vec<(u32, u8)> = back.shadows.iter().map(|k| (k.frame(), k.mode())).collect();
    assert_eq!(sh, [(0, 1), (5, 2)]);
    assert_eq!(cm.warnings.len(), 1, "the cycle");
}

#[test]
fn truncation_at_every_offset_is_an_error_never_a_panic() {
    for v2 in [true, false] {
        let bytes = project_bytes(v2);
        let mut errors = 0;
        for len in 0..bytes.len() {
            match project::read_with(&bytes[..len], &mut v1_shape) {
                Err(e) => {
                    assert!(e.offset <= len, "offset {} past the end {len}", e.offset);
                    errors += 1;
                }
                // Only the optional end (v2's range selection, v1's raw
                // tail) may be missing.
                Ok(p) => assert!(
                    len + 7 >= bytes.len(),
                    "read {len} of {} bytes: {:?}",
                    bytes.len(),
                    p.warnings
                ),
            }
        }
        assert!(errors + 7 >= bytes.len());
    }
}

#[test]
fn hostile_counts_are_refused_before_allocating() {
    let mut bytes = project_bytes(true);
    // The bone name count sits after index, names and path: 30+16+7+2 header,
    // 1 index, 1+4 name, 1+4 English name, 256 path, 1 fixed tracks.
    let at = 30 + 16 + 7 + 2 + 1 + 5 + 5 + 256 + 1;
    assert_eq!(bytes[at..at + 4], 2i32.to_le_bytes());
    bytes[at..at + 4].copy_from_slice(&i32::MAX.to_le_bytes());
    let e = project::read(&bytes).unwrap_err();
    assert_eq!(e.offset, at);
    assert!(e.to_string().contains("bone names"), "{e}");
    bytes[at..at + 4].copy_from_slice(&(-5i32).to_le_bytes());
    assert!(
        project::read(&bytes)
            .unwrap_err()
            .to_string()
            .contains("negative")
    );
    assert!(matches!(
        project::read(b"Vocaloid Motion Data 0002")
            .unwrap_err()
            .kind,
        project::PmmErrorKind::NotPmm
    ));
}

#[test]
fn non_finite_values_are_replaced_with_a_warning() {
    let bytes = project_bytes(true);
    let p = project::read(&bytes).unwrap();
    let at = p.models[0].bones.pool[2].offset + 16 + 16; // id, base, curves → position
    let mut bad = bytes.clone();
    bad[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let p = project::read(&bad).unwrap();
    let mm = project::model_motion(&p.models[0], 0);
    assert!(
        mm.motion
            .bones
            .iter()
            .all(|k| k.position().iter().all(|x| x.is_finite()))
    );
    assert!(
        mm.warnings
            .iter()
            .any(|w| matches!(w.kind, WarningKind::NonFinite { frame: 30, .. }))
    );
}

/// A bounded random-mutation fuzzer (no cargo-fuzz on this machine; the
/// libFuzzer target is `fuzz/fuzz_targets/pmm.rs`): mutates the hand-built
/// v1 and v2 projects and the corpus' synthetic one (byte flips, i32 fields
/// set to edge values and small ids, cuts, splices) for
/// `PMM_FUZZ_SECS` seconds (default 30) and checks that reading never
/// panics, errors point inside the input, and what reads converts to VMD
/// that reads back equal. Run:
/// `PMM_FUZZ_SECS=300 cargo test --test project_read -- --ignored --nocapture`.
#[test]
#[ignore]
fn mutation_fuzz() {
    let secs: u64 = std::env::var("PMM_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let mut seeds = vec![project_bytes(true), project_bytes(false)];
    let synthetic = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/frontier/pmm_v2_mmdanim_synthetic/ik_multi_bone_from_pmx_vmd.pmm");
    if let Ok(b) = std::fs::read(synthetic) {
        seeds.push(b);
    }
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let edge = [
        0,
        1,
        2,
        3,
        5,
        7,
        9,
        -1,
        -2,
        0x7FFF_FFFF,
        i32::MIN,
        255,
        256,
        1 << 20,
    ];
    let start = std::time::Instant::now();
    let (mut execs, mut read_ok, mut crashes) = (0u64, 0u64, 0u64);
    let prev_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    while start.elapsed().as_secs() < secs {
        let mut d = seeds[(next() % seeds.len() as u64) as usize].clone();
        for _ in 0..1 + next() % 4 {
            let len = d.len().max(1);
            let at = (next() % len as u64) as usize;
            match next() % 6 {
                0 => {
                    if at < d.len() {
                        d[at] ^= 1 << (next() % 8);
                    }
                }
                1 | 2 => {
                    let at = at & !3;
                    if at + 4 <= d.len() {
                        let v = if next() % 2 == 0 {
                            edge[(next() % edge.len() as u64) as usize]
                        } else {
                            (next() % 16) as i32
                        };
                        d[at..at + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
                3 => d.truncate(at),
                4 => {
                    let n = (next() % 64) as usize;
                    let end = (at + n).min(d.len());
                    let chunk = d[at..end].to_vec();
                    let to = (next() % len as u64) as usize;
                    let to = to.min(d.len());
                    d.splice(to..to, chunk);
                }
                _ => {
                    if at < d.len() {
                        d[at] = next() as u8;
                    }
                }
            }
        }
        execs += 1;
        let input = d.clone();
        let r = std::panic::catch_unwind(move || {
            match project::read_with(&input, &mut |_, _| {
                Some(ModelShape {
                    bone_names: vec![sjis("センター"), sjis("左足ＩＫ")],
                    morph_names: vec![b"base".to_vec(), sjis("あ")],
                    ik_bones: vec![1],
                })
            }) {
                Err(e) => {
                    assert!(e.offset <= input.len());
                    false
                }
                Ok(p) => {
                    for (i, m) in p.models.iter().enumerate() {
                        let mm = project::model_motion(m, i);
                        let b = vmd::write(&mm.motion).unwrap();
                        assert_eq!(vmd::read(&b).unwrap(), mm.motion);
                    }
                    let cm = project::camera_motion(&p);
                    let b = vmd::write(&cm.motion).unwrap();
                    assert_eq!(vmd::read(&b).unwrap(), cm.motion);
                    true
                }
            }
        });
        match r {
            Ok(true) => read_ok += 1,
            Ok(false) => {}
            Err(_) => {
                crashes += 1;
                let f = std::env::temp_dir().join(format!("pmm-crash-{crashes}.pmm"));
                let _ = std::fs::write(&f, &d);
            }
        }
    }
    std::panic::set_hook(prev_hook);
    eprintln!(
        "mutation fuzz: {execs} executions in {:.0} s, {read_ok} read, {crashes} crashes",
        start.elapsed().as_secs_f64()
    );
    assert_eq!(
        crashes, 0,
        "crashing inputs saved as pmm-crash-N.pmm in the temp folder"
    );
}
