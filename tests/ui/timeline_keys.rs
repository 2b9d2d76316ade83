//! Selection, moves, deletes and copy/paste across the sections of the
//! scene timeline, driven as a user would with egui_kittest: a dance (an
//! actor) and a camera file that also holds light keys open as one scene;
//! a rubber band dragged from the camera row down to the actor's morph row
//! selects the keys at frame 10 in the camera, light, bone and morph rows
//! of both files; dragging one of them moves all of them; each file gets
//! its own undo step and one Ctrl+Z takes the whole move back; the saved
//! bytes of both files are checked at the record offsets of
//! /work/shared/spec/vmd-format.md. Then Delete and Ctrl+C / Ctrl+V across
//! both sections. Run with `env -u DISPLAY cargo test --test ui timeline_keys::`.

use crate::common;
use common::ui::{drag, harness_sized, settle, temp_dir};

use std::path::PathBuf;

use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::vmd::{self, BoneKey, CameraKey, LightKey, MorphKey, Motion, NameEncoding};
use vmd_studio::workspace::document::KeyRef;

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

const ID: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// The dance, in file order: bones 0 センター@0, 1 センター@10, 2 右腕@10,
/// 3 センター@31, 4 右腕@31; morphs 0 あ@10, 1 あ@31.
fn dance() -> Motion {
    let mut m = Motion::new_v2();
    let b = |n: &str, f: u32, x: f32| {
        BoneKey::new(n, NameEncoding::ShiftJis, f, [x, 0.0, 0.0], ID).expect("name")
    };
    m.bones = vec![
        b("センター", 0, 0.0),
        b("センター", 10, 1.0),
        b("右腕", 10, 0.0),
        b("センター", 31, 2.0),
        b("右腕", 31, 0.0),
    ];
    let mk = |f: u32, w: f32| MorphKey::new("あ", NameEncoding::ShiftJis, f, w).expect("name");
    m.morphs = vec![mk(10, 0.5), mk(31, 1.0)];
    m
}

/// The camera file, in file order: cameras 0 @0, 1 @10, 2 @30; lights
/// 0 @10, 1 @30.
fn camera() -> Motion {
    let mut m = Motion::new_v2();
    let c = |f: u32, d: f32| CameraKey::new(f, d, [0.0, 10.0, 0.0], [0.0; 3], 30, true);
    m.cameras = vec![c(0, -45.0), c(10, -40.0), c(30, -35.0)];
    m.lights = vec![
        LightKey::new(10, [0.6; 3], [-0.5, -1.0, 0.5]),
        LightKey::new(30, [0.4; 3], [-0.5, -1.0, 0.5]),
    ];
    m
}

// Byte offsets (v2 header 30 + model name 20 = 50; a count is 4 bytes).
/// Bone record `i`'s frame: 54 + 111·i + 15.
fn bone_frame_at(i: usize) -> usize {
    54 + 111 * i + 15
}
/// Morph record `i`'s frame after 5 bones: 54 + 555 + 4 + 23·i + 15.
fn morph_frame_at(i: usize) -> usize {
    54 + 555 + 4 + 23 * i + 15
}
/// Camera record `i`'s frame with no bones or morphs: 50 + 4 + 4 + 4 + 61·i.
fn camera_frame_at(i: usize) -> usize {
    62 + 61 * i
}
/// Light record `i`'s frame after 3 cameras: 62 + 183 + 4 + 28·i.
fn light_frame_at(i: usize) -> usize {
    62 + 183 + 4 + 28 * i
}

struct Scene {
    h: Harness<'static, StudioApp>,
    dance: PathBuf,
    camera: PathBuf,
    dance_bytes: Vec<u8>,
    camera_bytes: Vec<u8>,
}

fn open_scene(tag: &str) -> Scene {
    let dir = temp_dir(tag);
    let dance_path = dir.join("dance.vmd");
    let camera_path = dir.join("camera.vmd");
    let dance_bytes = vmd::write(&dance()).expect("dance");
    let camera_bytes = vmd::write(&camera()).expect("camera");
    std::fs::write(&dance_path, &dance_bytes).expect("write");
    std::fs::write(&camera_path, &camera_bytes).expect("write");
    let mut app = StudioApp::default();
    app.open_paths(vec![dance_path.clone(), camera_path.clone()]);
    let mut h = harness_sized(app, 1400.0, 1000.0);
    settle(&mut h);
    {
        let app = h.state();
        assert_eq!(app.ws.docs().len(), 2, "{:?}", app.shared.messages);
        assert_eq!(app.ws.docs()[0].path.as_deref(), Some(dance_path.as_path()));
        let s = &app.ws.scene();
        assert_eq!(
            s.camera,
            Some(app.ws.docs()[1].id),
            "the camera file is the camera"
        );
        assert_eq!(s.actors.len(), 1);
        assert_eq!(s.actors[0].motion, Some(app.ws.docs()[0].id));
    }
    // 8 points per frame, frame 10 well inside the view.
    let t = &mut h.state_mut().panels.timeline;
    t.px_per_frame = 8.0;
    t.left_frame = -5.0;
    // Every row of both sections in view: the timeline under the picture
    // and taller than there by default.
    crate::common::ui::timeline_under_the_picture(&mut h);
    h.state_mut()
        .panels
        .dock
        .set_fraction(vmd_studio::app::dock::Panel::Timeline, 0.7);
    h.run_steps(3);
    crate::common::ui::open_folded_sections(&mut h);
    Scene {
        h,
        dance: dance_path,
        camera: camera_path,
        dance_bytes,
        camera_bytes,
    }
}

fn key_pos(h: &Harness<'_, StudioApp>, doc: usize, key: KeyRef) -> Pos2 {
    let app = h.state();
    app.panels
        .timeline
        .key_pos(&app.ws.docs()[doc], key)
        .unwrap_or_else(|| panic!("{key:?} of file {doc} not in view"))
}

/// Drags a rubber band from left of the camera key at frame 10 (on no
/// key) to the right of the actor's morph key at frame 10: it spans the
/// camera and light rows and the actor's bone and morph rows.
fn box_select_frame_10(h: &mut Harness<'_, StudioApp>) {
    let cam = key_pos(h, 1, KeyRef::Camera(1));
    let morph = key_pos(h, 0, KeyRef::Morph(0));
    // 10 points left of frame 10 is frame 8.75: more than the 6-point hit
    // radius from any key, so the press starts a band, not a move.
    let from = Pos2::new(cam.x - 10.0, cam.y - 4.0);
    let to = Pos2::new(morph.x + 3.0, morph.y + 4.0);
    assert!(to.y > from.y + 60.0, "the band crosses sections");
    drag(h, from, to);
}

fn selections(h: &Harness<'_, StudioApp>) -> (Vec<KeyRef>, Vec<KeyRef>) {
    let app = h.state();
    (
        app.ws.docs()[0].view.selection.iter().copied().collect(),
        app.ws.docs()[1].view.selection.iter().copied().collect(),
    )
}

#[test]
fn a_band_across_camera_light_and_actor_rows_moves_saves_and_undoes_as_one() {
    let Scene {
        mut h,
        dance,
        camera,
        dance_bytes,
        camera_bytes,
    } = open_scene("ui-timeline-move");
    box_select_frame_10(&mut h);
    let (sel_dance, sel_cam) = selections(&h);
    assert_eq!(
        sel_dance,
        vec![KeyRef::Bone(1), KeyRef::Bone(2), KeyRef::Morph(0)],
        "bones and morph at frame 10"
    );
    assert_eq!(
        sel_cam,
        vec![KeyRef::Camera(1), KeyRef::Light(0)],
        "camera and light at frame 10"
    );

    // Drag the camera key at 10 three frames right (24 points at 8 per frame).
    let p = key_pos(&h, 1, KeyRef::Camera(1));
    drag(&mut h, p, p + egui::vec2(24.0, 0.0));
    {
        let app = h.state();
        let (d, c) = (&app.ws.docs()[0].motion, &app.ws.docs()[1].motion);
        assert_eq!(d.bones[1].frame(), 13);
        assert_eq!(d.bones[2].frame(), 13);
        assert_eq!(d.morphs[0].frame(), 13);
        assert_eq!(c.cameras[1].frame(), 13);
        assert_eq!(c.lights[0].frame(), 13);
        // Keys that were not selected stay.
        assert_eq!(d.bones[3].frame(), 31);
        assert_eq!(c.cameras[2].frame(), 30);
        // One undo step in each file.
        assert_eq!(app.ws.docs()[0].history().len(), 1);
        assert_eq!(app.ws.docs()[1].history().len(), 1);
        // ... which the scene undoes as one action over both files.
        assert_eq!(app.ws.step_files(true), 2);
    }

    // Save both files; only the moved records' frame fields differ.
    let (dance_id, camera_id) = (h.state().ws.docs()[0].id, h.state().ws.docs()[1].id);
    h.state_mut().save_doc_to(dance_id, dance.clone());
    h.state_mut().save_doc_to(camera_id, camera.clone());
    settle(&mut h);
    let saved_dance = std::fs::read(&dance).expect("saved");
    let saved_cam = std::fs::read(&camera).expect("saved");
    let moved_dance = [bone_frame_at(1), bone_frame_at(2), morph_frame_at(0)];
    let moved_cam = [camera_frame_at(1), light_frame_at(0)];
    for (before, after, moved) in [
        (&dance_bytes, &saved_dance, &moved_dance[..]),
        (&camera_bytes, &saved_cam, &moved_cam[..]),
    ] {
        assert_eq!(before.len(), after.len());
        for &at in moved {
            assert_eq!(u32_at(before, at), 10, "offset {at} holds frame 10 before");
            assert_eq!(u32_at(after, at), 13, "offset {at} holds frame 13 after");
        }
        let changed: Vec<usize> = (0..before.len())
            .filter(|&j| before[j] != after[j])
            .collect();
        assert!(
            changed
                .iter()
                .all(|&j| moved.iter().any(|&at| (at..at + 4).contains(&j))),
            "{changed:?}"
        );
    }
    // Untouched keys at their offsets: センター@31 and the camera at 30.
    assert_eq!(u32_at(&saved_dance, bone_frame_at(3)), 31);
    assert_eq!(u32_at(&saved_cam, camera_frame_at(2)), 30);

    // One Ctrl+Z undoes the move in both files.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    {
        let app = h.state();
        assert_eq!(vmd::write(&app.ws.docs()[0].motion).unwrap(), dance_bytes);
        assert_eq!(vmd::write(&app.ws.docs()[1].motion).unwrap(), camera_bytes);
    }
    // Saved again, both files are byte for byte the originals.
    h.state_mut().save_doc_to(dance_id, dance.clone());
    h.state_mut().save_doc_to(camera_id, camera.clone());
    settle(&mut h);
    assert_eq!(std::fs::read(&dance).unwrap(), dance_bytes);
    assert_eq!(std::fs::read(&camera).unwrap(), camera_bytes);
    // One Ctrl+Y brings the whole move back.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    h.run_steps(2);
    assert_eq!(h.state().ws.docs()[0].motion.morphs[0].frame(), 13);
    assert_eq!(h.state().ws.docs()[1].motion.lights[0].frame(), 13);
}

#[test]
fn a_move_that_clashes_in_one_file_moves_no_file_there() {
    let Scene { mut h, .. } = open_scene("ui-timeline-clash");
    box_select_frame_10(&mut h);
    // One frame right, then twenty in one jump: the camera key would land
    // on the camera's key at 30 (the dance has room at 30: its keys are at 31).
    let p = key_pos(&h, 1, KeyRef::Camera(1));
    let to = p + egui::vec2(160.0, 0.0);
    h.hover_at(p);
    h.step();
    h.drag_at(p);
    h.step();
    h.hover_at(p + egui::vec2(8.0, 0.0));
    h.step();
    h.hover_at(to);
    h.step();
    h.drop_at(to);
    h.run_steps(2);
    let app = h.state();
    // Every file stays at the last offset allowed (+1).
    assert_eq!(app.ws.docs()[0].motion.bones[1].frame(), 11, "dance held");
    assert_eq!(app.ws.docs()[0].motion.morphs[0].frame(), 11);
    assert_eq!(
        app.ws.docs()[1].motion.cameras[1].frame(),
        11,
        "camera not on 30"
    );
    assert_eq!(app.ws.docs()[1].motion.lights[0].frame(), 11);
    assert!(
        app.shared.messages.iter().any(|(m, err)| *err
            && m.contains("Move refused")
            && m.contains("camera.vmd")
            && m.contains("frame 30")),
        "{:?}",
        app.shared.messages
    );
}

#[test]
fn a_plain_click_in_one_section_clears_the_others_and_ctrl_click_adds() {
    let Scene { mut h, .. } = open_scene("ui-timeline-click");
    let cam = key_pos(&h, 1, KeyRef::Camera(2));
    click_with(&mut h, cam, Modifiers::NONE);
    let bone = key_pos(&h, 0, KeyRef::Bone(3));
    // Ctrl+click: added, the camera key stays selected.
    click_with(&mut h, bone, Modifiers::COMMAND);
    let (d, c) = selections(&h);
    assert_eq!((d, c), (vec![KeyRef::Bone(3)], vec![KeyRef::Camera(2)]));
    // A plain click on the bone: the camera file's selection goes.
    click_with(&mut h, bone, Modifiers::NONE);
    let (d, c) = selections(&h);
    assert_eq!((d, c), (vec![KeyRef::Bone(3)], vec![]));
}

/// A click with modifier keys held (each event in its own frame).
fn click_with(h: &mut Harness<'_, StudioApp>, p: Pos2, mods: Modifiers) {
    h.hover_at(p);
    h.step();
    h.event(egui::Event::ModifiersChanged(mods));
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: p,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: mods,
        });
    }
    h.event(egui::Event::ModifiersChanged(Modifiers::NONE));
    h.step();
    h.run_steps(2);
}

#[test]
fn delete_and_copy_paste_across_sections_go_to_each_file() {
    let Scene {
        mut h,
        dance_bytes,
        camera_bytes,
        ..
    } = open_scene("ui-timeline-paste");
    box_select_frame_10(&mut h);
    // Copy, move the playhead to 50, paste: each section's keys go back into
    // the same kind of row of the same file, the earliest at the playhead.
    h.key_press_modifiers(Modifiers::COMMAND, Key::C);
    h.run_steps(2);
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Seek(50.0));
    h.key_press_modifiers(Modifiers::COMMAND, Key::V);
    h.run_steps(2);
    {
        let app = h.state();
        let (d, c) = (&app.ws.docs()[0].motion, &app.ws.docs()[1].motion);
        // Appended after each section's records, in copy order.
        assert_eq!(d.bones.len(), 7);
        assert_eq!(
            (d.bones[5].frame(), d.bones[5].name().text.as_str()),
            (50, "センター")
        );
        assert_eq!(
            (d.bones[6].frame(), d.bones[6].name().text.as_str()),
            (50, "右腕")
        );
        assert_eq!(d.bones[5].position(), [1.0, 0.0, 0.0]);
        assert_eq!((d.morphs.len(), d.morphs[2].frame()), (3, 50));
        assert_eq!((c.cameras.len(), c.cameras[3].frame()), (4, 50));
        assert_eq!(c.cameras[3].distance(), -40.0);
        assert_eq!((c.lights.len(), c.lights[2].frame()), (3, 50));
        assert!(c.bones.is_empty(), "no bone keys went into the camera file");
        // The pasted keys are the selection.
        assert_eq!(
            app.ws.docs()[1]
                .view
                .selection
                .iter()
                .copied()
                .collect::<Vec<_>>(),
            vec![KeyRef::Camera(3), KeyRef::Light(2)]
        );
    }
    // One Ctrl+Z takes the paste back from both files.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(
        vmd::write(&h.state().ws.docs()[0].motion).unwrap(),
        dance_bytes
    );
    assert_eq!(
        vmd::write(&h.state().ws.docs()[1].motion).unwrap(),
        camera_bytes
    );

    // Delete the band's keys in both files at once.
    box_select_frame_10(&mut h);
    h.key_press(Key::Delete);
    h.run_steps(2);
    {
        let app = h.state();
        let (d, c) = (&app.ws.docs()[0].motion, &app.ws.docs()[1].motion);
        let frames = |v: Vec<u32>| v;
        assert_eq!(
            frames(d.bones.iter().map(|k| k.frame()).collect()),
            vec![0, 31, 31]
        );
        assert_eq!(
            d.morphs.iter().map(|k| k.frame()).collect::<Vec<_>>(),
            vec![31]
        );
        assert_eq!(
            c.cameras.iter().map(|k| k.frame()).collect::<Vec<_>>(),
            vec![0, 30]
        );
        assert_eq!(
            c.lights.iter().map(|k| k.frame()).collect::<Vec<_>>(),
            vec![30]
        );
    }
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(
        vmd::write(&h.state().ws.docs()[0].motion).unwrap(),
        dance_bytes
    );
    assert_eq!(
        vmd::write(&h.state().ws.docs()[1].motion).unwrap(),
        camera_bytes
    );
}

/// Screen position of (x, y) in 0..127 curve space inside a curve box (y
/// up), from the box rectangle alone.
fn curve_at(rect: egui::Rect, x: u8, y: u8) -> Pos2 {
    Pos2::new(
        rect.left() + f32::from(x) / 127.0 * rect.width(),
        rect.bottom() - f32::from(y) / 127.0 * rect.height(),
    )
}

/// Curve editing goes to the file of the key picked on the one timeline:
/// a click on the camera row's key at frame 10 makes the camera file the
/// curve editor's; dragging the target-X curve's first control point to
/// (100, 30) rewrites exactly camera record 1's bytes x1 and y1 of item 0
/// (spec: interpolation at +32, items of (x1, x2, y1, y2)). A click on the
/// actor's センター key at frame 10 then makes the dance the editor's file;
/// dragging the rotation curve's first point rewrites only bone record 1's
/// 64-byte block (at 54 + 111 + 47; rotation x1 and y1 are P[3] and P[7],
/// read from row 3 at block bytes 48 and 52, since row 0's bytes 2–3 are
/// the physics flag). Two Ctrl+Z give back both files' bytes.
#[test]
fn curve_edits_from_either_section_go_to_that_file() {
    let Scene {
        mut h,
        dance_bytes,
        camera_bytes,
        ..
    } = open_scene("ui-timeline-curves");
    // The curve editor as wide as the picture's tile (the Curves preset
    // gives it half): back to the default layout, the timeline tall.
    h.state_mut()
        .panels
        .dock
        .use_preset(vmd_studio::app::dock::Preset::Animate);
    h.run_steps(3);
    h.state_mut()
        .panels
        .dock
        .set_fraction(vmd_studio::app::dock::Panel::Timeline, 0.8);
    h.run_steps(3);
    h.get_by_label("Curves").click();
    h.run_steps(3);

    // 1. The camera key at frame 10 (camera record 1).
    let cam = key_pos(&h, 1, KeyRef::Camera(1));
    click_with(&mut h, cam, Modifiers::NONE);
    h.run_steps(3);
    assert_eq!(
        h.state().ws.active_index(),
        1,
        "the camera file is the active one"
    );
    assert_eq!(h.state().ws.docs()[1].view.active, Some(KeyRef::Camera(1)));
    let rec = 62 + 61; // camera record 1 starts at its frame field
    let (x1, y1) = (camera_bytes[rec + 32], camera_bytes[rec + 34]);
    let rect = *h
        .state()
        .panels
        .curve_editor
        .boxes
        .first()
        .expect("target-X box drawn");
    drag(&mut h, curve_at(rect, x1, y1), curve_at(rect, 100, 30));
    let now = vmd::write(&h.state().ws.docs()[1].motion).expect("camera");
    let changed: Vec<usize> = (0..now.len())
        .filter(|&i| now[i] != camera_bytes[i])
        .collect();
    let mut expected = vec![];
    if x1 != 100 {
        expected.push(rec + 32);
    }
    if y1 != 30 {
        expected.push(rec + 34);
    }
    assert!(!expected.is_empty(), "the drag must move the point");
    assert_eq!(changed, expected, "only item 0's x1 and y1 of record 1");
    assert_eq!((now[rec + 32], now[rec + 34]), (100, 30));
    let dance_now = vmd::write(&h.state().ws.docs()[0].motion).expect("dance");
    assert_eq!(dance_now, dance_bytes, "the dance is untouched");

    // 2. The actor's センター key at frame 10 (bone record 1).
    let bone = key_pos(&h, 0, KeyRef::Bone(1));
    click_with(&mut h, bone, Modifiers::NONE);
    h.run_steps(3);
    assert_eq!(
        h.state().ws.active_index(),
        0,
        "the dance is the active one"
    );
    assert_eq!(h.state().ws.docs()[0].view.active, Some(KeyRef::Bone(1)));
    let block = 54 + 111 + 47;
    let (rx1, ry1) = (dance_bytes[block + 48], dance_bytes[block + 52]);
    let rect = *h
        .state()
        .panels
        .curve_editor
        .boxes
        .get(3)
        .expect("rotation box drawn");
    drag(&mut h, curve_at(rect, rx1, ry1), curve_at(rect, 100, 30));
    let now = vmd::write(&h.state().ws.docs()[0].motion).expect("dance");
    let changed: Vec<usize> = (0..now.len())
        .filter(|&i| now[i] != dance_bytes[i])
        .collect();
    assert!(!changed.is_empty(), "the drag rewrote the rotation curve");
    assert!(
        changed.iter().all(|&i| (block..block + 64).contains(&i)),
        "only bone record 1's curve block changed: {changed:?}"
    );
    assert_eq!((now[block + 48], now[block + 52]), (100, 30));
    let cam_now = vmd::write(&h.state().ws.docs()[1].motion).expect("camera");
    assert_eq!(
        cam_now[rec + 32..rec + 36],
        [100, camera_bytes[rec + 33], 30, camera_bytes[rec + 35]],
        "the camera edit stays"
    );

    // 3. Undo both: each file gets back every byte.
    for _ in 0..2 {
        h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
        h.run_steps(3);
    }
    let app = h.state();
    assert_eq!(
        vmd::write(&app.ws.docs()[0].motion).expect("dance"),
        dance_bytes
    );
    assert_eq!(
        vmd::write(&app.ws.docs()[1].motion).expect("camera"),
        camera_bytes
    );
}
