//! The PMM reader on hand-built projects (v1 and v2, built in
//! `project_support`): every field of the format; lists with stale pool
//! records and a cycle; truncations at every offset.
//!
//! Expected values are the ones written in `project_support`, and the VMD
//! blocks are laid out by hand from `/work/shared/spec/vmd-format.md`.

mod project_support;

use project_support::*;
use vmd_studio::project::document::*;
use vmd_studio::project::links::{self, KeyAt};
use vmd_studio::project::{self, WarningKind};
use vmd_studio::vmd;

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
