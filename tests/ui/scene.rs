//! The scene, driven as a user would with egui_kittest (no display needed):
//! a model, its dance and a camera open as one scene (in command-line
//! order); a camera key and a bone key are moved on the one timeline; undo
//! takes back both (the last edit first, whichever file it was in); the
//! scene and its VMDs are saved and the bytes checked; the scene file
//! reopens with the same roles and offsets; a missing file is reported.
//! Run with `env -u DISPLAY cargo test --test ui scene::`.
//!
//! Golden numbers come from the VMD layout in
//! /work/shared/spec/vmd-format.md and /work/shared/corpus/CENSUS.txt
//! (webmmd__GimmexGimme.vmd: v2, 0 bone, 0 morph, 1693 camera keys), never
//! from the program's own output.

use crate::common;
use common::corpus;
use common::ui::{drag, harness_sized, settle, temp_dir};
use std::path::Path;

use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use vmd_studio::app::StudioApp;
use vmd_studio::app::panels::scene::Action;
use vmd_studio::scene::ModelRef;
use vmd_studio::workspace::document::{Document, KeyRef};

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Offset of camera record `i`'s frame field in a v2 file with no bone or
/// morph keys: header 30 + model name 20 + bone count 4 + morph count 4 +
/// camera count 4 = 62; a camera record is 61 bytes, its frame first.
fn camera_frame_offset(i: usize) -> usize {
    30 + 20 + 4 + 4 + 4 + 61 * i
}

/// Offset of bone record `i`'s frame field in a v2 file: 54 + 111·i + 15.
fn bone_frame_offset(i: usize) -> usize {
    30 + 20 + 4 + 111 * i + 15
}

/// A key index whose frame + 1 and + 2 are free among `frames` (in storage order).
fn movable(frames: &[u32], order: impl Iterator<Item = u32>) -> Option<(u32, u32)> {
    for i in order {
        let f = frames[i as usize];
        if f > 0 && !frames.contains(&(f + 1)) && !frames.contains(&(f + 2)) {
            return Some((i, f));
        }
    }
    None
}

/// Zooms the timeline to 8 points per frame with `frame` near the left.
fn show_frame(h: &mut Harness<'_, StudioApp>, frame: u32) {
    let t = &mut h.state_mut().panels.timeline;
    t.px_per_frame = 8.0;
    t.left_frame = f64::from(frame) - 20.0;
    h.run_steps(2);
}

/// The key's diamond on screen, scrolling the timeline down with the
/// mouse wheel until it is in view.
fn key_on_screen(h: &mut Harness<'_, StudioApp>, doc_index: usize, key: KeyRef) -> Pos2 {
    for _ in 0..60 {
        let found = {
            let app = h.state();
            app.panels.timeline.key_pos(&app.ws.docs()[doc_index], key)
        };
        if let Some(p) = found {
            return p;
        }
        let ruler = h.state().panels.timeline.layout().expect("timeline drawn");
        let over = ruler.keys.center();
        h.hover_at(over);
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -60.0),
            phase: egui::TouchPhase::Move,
            modifiers: Modifiers::NONE,
            source: egui::MouseWheelSource::Wheel,
        });
        h.run_steps(3);
    }
    panic!("{key:?} never came into view");
}

fn doc_by_path<'a>(app: &'a StudioApp, p: &Path) -> (usize, &'a Document) {
    app.ws
        .docs()
        .iter()
        .enumerate()
        .find(|(_, d)| d.path.as_deref() == Some(p))
        .expect("open")
}

#[test]
fn model_dance_camera_scene_edit_both_undo_save_reopen() {
    let Some(corpus) = corpus() else { return };
    let dir = temp_dir("ui-scene");
    // Work on copies: saving must never touch the corpus.
    let model = dir.join("mei.pmd");
    let dance = dir.join("mei_wait.vmd");
    let camera = dir.join("GimmexGimme.vmd");
    std::fs::copy(corpus.join("mmdagent__mei.pmd"), &model).expect("copy model");
    std::fs::copy(corpus.join("mmdagent__mei_wait.vmd"), &dance).expect("copy dance");
    std::fs::copy(corpus.join("webmmd__GimmexGimme.vmd"), &camera).expect("copy camera");
    let dance_bytes = std::fs::read(&dance).unwrap();
    let camera_bytes = std::fs::read(&camera).unwrap();

    // `vmd-studio MODEL DANCE CAMERA`: the same call the command line makes.
    let mut app = StudioApp::default();
    app.open_paths(vec![model.clone(), dance.clone(), camera.clone()]);
    let mut h = harness_sized(app, 1400.0, 1000.0);
    settle(&mut h);
    crate::common::ui::open_folded_sections(&mut h);
    {
        let app = h.state();
        // UiCommand-line order, whatever order the loads finished in.
        assert_eq!(app.ws.docs().len(), 2, "{:?}", app.shared.messages);
        assert_eq!(app.ws.docs()[0].path.as_deref(), Some(dance.as_path()));
        assert_eq!(app.ws.docs()[1].path.as_deref(), Some(camera.as_path()));
        let s = &app.ws.scene();
        assert_eq!(s.actors.len(), 1, "one actor");
        assert_eq!(s.actors[0].model, ModelRef::File(model.clone()));
        assert_eq!(s.actors[0].motion, Some(app.ws.docs()[0].id));
        assert_eq!(s.camera, Some(app.ws.docs()[1].id));
        assert!(
            app.scene.loaded(&app.ws.scene().actors[0].model),
            "{:?}",
            app.shared.messages
        );
        // CENSUS: the camera file has no bone or morph keys.
        assert!(
            app.ws.docs()[1].motion.bones.is_empty() && app.ws.docs()[1].motion.morphs.is_empty()
        );
        // One timeline: the camera's section first, then the actor's.
        let sections = vmd_studio::app::timeline_sections(&app.ws);
        let ids: Vec<u64> = sections.iter().map(|s| s.doc_id).collect();
        assert_eq!(ids, vec![app.ws.docs()[1].id, app.ws.docs()[0].id]);
    }

    // 1. Move a camera key two frames right on the timeline.
    let (cam_i, cam_f) = {
        let d = &h.state().ws.docs()[1];
        let frames: Vec<u32> = d.motion.cameras.iter().map(|k| k.frame()).collect();
        movable(&frames, d.index.camera.iter().copied()).expect("a camera key with room")
    };
    show_frame(&mut h, cam_f);
    let p = key_on_screen(&mut h, 1, KeyRef::Camera(cam_i));
    drag(&mut h, p, p + egui::vec2(16.0, 0.0));
    assert_eq!(
        h.state().ws.docs()[1].motion.cameras[cam_i as usize].frame(),
        cam_f + 2
    );
    assert!(h.state().ws.docs()[1].is_modified());
    assert!(!h.state().ws.docs()[0].is_modified());
    assert_eq!(
        h.state().doc().map(|d| d.id),
        Some(h.state().ws.docs()[1].id),
        "camera file active"
    );

    // 2. Move a bone key of the dance two frames right on the same timeline.
    let (bone_i, bone_f) = {
        let d = &h.state().ws.docs()[0];
        let mut found = None;
        for t in &d.index.bones {
            let frames: Vec<u32> = d.motion.bones.iter().map(|k| k.frame()).collect();
            let track: Vec<u32> = t.keys.iter().map(|&k| frames[k as usize]).collect();
            if let Some((pos, f)) = movable(&track, 0..track.len() as u32) {
                found = Some((t.keys[pos as usize], f));
                break;
            }
        }
        found.expect("a bone key with room")
    };
    show_frame(&mut h, bone_f);
    let p = key_on_screen(&mut h, 0, KeyRef::Bone(bone_i));
    drag(&mut h, p, p + egui::vec2(16.0, 0.0));
    assert_eq!(
        h.state().ws.docs()[0].motion.bones[bone_i as usize].frame(),
        bone_f + 2
    );
    assert!(h.state().ws.docs()[0].is_modified());
    assert_eq!(h.state().ws.docs()[1].history().len(), 1);
    assert_eq!(h.state().ws.docs()[0].history().len(), 1);

    // 3. Undo twice: the bone move (the last edit), then the camera move.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(
        h.state().ws.docs()[0].motion.bones[bone_i as usize].frame(),
        bone_f
    );
    assert_eq!(
        h.state().ws.docs()[1].motion.cameras[cam_i as usize].frame(),
        cam_f + 2
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(
        h.state().ws.docs()[1].motion.cameras[cam_i as usize].frame(),
        cam_f
    );
    for d in h.state().ws.docs() {
        assert!(!d.is_modified(), "{} after undo", d.title());
    }
    assert_eq!(
        vmd_studio::vmd::write(&h.state().ws.docs()[0].motion).unwrap(),
        dance_bytes
    );
    assert_eq!(
        vmd_studio::vmd::write(&h.state().ws.docs()[1].motion).unwrap(),
        camera_bytes
    );

    // 4. Redo once: the camera move comes back (the last undone), not the bone move.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    h.run_steps(2);
    assert_eq!(
        h.state().ws.docs()[1].motion.cameras[cam_i as usize].frame(),
        cam_f + 2
    );
    assert_eq!(
        h.state().ws.docs()[0].motion.bones[bone_i as usize].frame(),
        bone_f
    );

    // 5. An offset for the actor, then save the scene.
    h.state_mut().scene_action(Action::SetOffset(0, 12));
    h.state_mut()
        .scene_action(Action::RenameActor(0, "Mei".into()));
    let scene_path = dir.join("show.vmdscene");
    h.state_mut().save_scene_to(scene_path.clone());
    settle(&mut h);
    assert!(
        h.state().shared.messages.iter().all(|(_, err)| !err),
        "{:?}",
        h.state().shared.messages
    );
    // The edited camera: its bytes differ exactly in the moved key's frame field.
    let saved_cam = std::fs::read(&camera).unwrap();
    assert_eq!(saved_cam.len(), camera_bytes.len());
    let at = camera_frame_offset(cam_i as usize);
    assert_eq!(
        u32_at(&camera_bytes, at),
        cam_f,
        "offset check against the original"
    );
    assert_eq!(u32_at(&saved_cam, at), cam_f + 2);
    let diff: Vec<usize> = (0..saved_cam.len())
        .filter(|&j| saved_cam[j] != camera_bytes[j])
        .collect();
    assert!(diff.iter().all(|&j| (at..at + 4).contains(&j)), "{diff:?}");
    // The dance had no unsaved edits: untouched on disk.
    assert_eq!(std::fs::read(&dance).unwrap(), dance_bytes);
    let _ = bone_frame_offset(bone_i as usize);
    assert!(
        !h.state().ws.docs()[1].is_modified(),
        "saved with the scene"
    );

    // 6. Reopen the scene in a fresh app: same roles, model and offset.
    let mut app = StudioApp::default();
    app.open_paths(vec![scene_path.clone()]);
    let mut h2 = harness_sized(app, 1400.0, 1000.0);
    settle(&mut h2);
    {
        let app = h2.state();
        let s = &app.ws.scene();
        assert_eq!(s.actors.len(), 1, "{:?}", app.shared.messages);
        assert_eq!(s.actors[0].name, "Mei");
        assert_eq!(s.actors[0].offset, 12);
        match &s.actors[0].model {
            ModelRef::File(p) => assert_eq!(
                std::fs::canonicalize(p).unwrap(),
                std::fs::canonicalize(&model).unwrap()
            ),
            ModelRef::Builtin => panic!("model lost"),
        }
        let (_, d) = doc_by_path(app, &dance);
        assert_eq!(s.actors[0].motion, Some(d.id));
        let (_, c) = doc_by_path(app, &camera);
        assert_eq!(s.camera, Some(c.id));
        assert_eq!(c.motion.cameras[cam_i as usize].frame(), cam_f + 2);
        // The actor's section is shifted by its offset on the timeline.
        let sec = vmd_studio::app::timeline_sections(&app.ws);
        assert_eq!(
            sec.iter().find(|x| x.doc_id == d.id).map(|x| x.offset),
            Some(12)
        );
    }

    // 7. A scene naming a file that is gone: reported, the rest opens.
    std::fs::remove_file(&dance).unwrap();
    let mut app = StudioApp::default();
    app.open_paths(vec![scene_path.clone()]);
    let mut h3 = harness_sized(app, 1400.0, 1000.0);
    settle(&mut h3);
    {
        let app = h3.state();
        let errors: Vec<&String> = app
            .shared
            .messages
            .iter()
            .filter(|(_, e)| *e)
            .map(|(m, _)| m)
            .collect();
        assert!(
            errors
                .iter()
                .any(|m| m.contains("motion of Mei not found") && m.contains("mei_wait.vmd")),
            "{errors:?}"
        );
        let s = &app.ws.scene();
        assert_eq!(s.actors.len(), 1);
        assert_eq!(s.actors[0].motion, None);
        assert!(s.camera.is_some(), "the camera still opens");
        assert_eq!(app.ws.docs().len(), 1);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn first_start_is_the_demo_scene_through_its_camera() {
    let app = StudioApp::with_demo();
    let s = &app.ws.scene();
    assert_eq!(s.actors.len(), 1);
    assert_eq!(s.actors[0].model, ModelRef::Builtin);
    let dance = s.actors[0].motion.expect("demo dance worn");
    let cam = s.camera.expect("demo camera");
    assert_ne!(dance, cam);
    assert_eq!(
        app.panels.viewport.view.mode,
        vmd_studio::app::panels::viewport::ViewMode::VmdCamera
    );
    let mut h = harness_sized(app, 1400.0, 1000.0);
    h.run_steps(3);
    // Both files on one timeline: camera first, then the dancer.
    let ids: Vec<u64> = vmd_studio::app::timeline_sections(&h.state().ws)
        .iter()
        .map(|s| s.doc_id)
        .collect();
    assert_eq!(ids, vec![cam, dance]);
}

/// A v2 motion with one センター key and a morph key per name (10 frames apart).
fn motion_with_morphs(path: &Path, morphs: &[&str]) {
    use vmd_studio::vmd::{self, BoneKey, MorphKey, Motion, NameEncoding};
    let sj = NameEncoding::ShiftJis;
    let mut m = Motion::new_v2();
    m.bones
        .push(BoneKey::new("センター", sj, 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]).expect("key"));
    for (i, n) in morphs.iter().enumerate() {
        m.morphs
            .push(MorphKey::new(n, sj, 10 * i as u32, 0.5).expect("morph key"));
    }
    std::fs::write(path, vmd::write(&m).expect("write")).expect("save");
}

/// Opens Mei and a motion (in that order: the model makes an actor, the
/// motion goes to it) into an empty app.
fn mei_wearing(corpus: &Path, motion: &Path) -> Harness<'static, StudioApp> {
    let mut h = harness_sized(StudioApp::default(), 1400.0, 1000.0);
    h.state_mut()
        .open_paths(vec![corpus.join("mei/mei.pmd"), motion.to_owned()]);
    settle(&mut h);
    h
}

#[test]
fn morphs_the_model_lacks_are_listed_per_actor() {
    use egui_kittest::kittest::Queryable;
    let Some(corpus) = corpus() else { return };
    let dir = temp_dir("ui-morphs");
    // Mei's own expressions, as MMDAgent's lip-sync file beside the model
    // (mei/mei.lip) names them; "存在しない表情" is no morph of hers.
    let lacking = dir.join("lacking.vmd");
    motion_with_morphs(&lacking, &["発音「あ」", "存在しない表情", "発音「お」"]);
    let mut h = mei_wearing(&corpus, &lacking);
    {
        let app = h.state();
        assert_eq!(app.ws.scene().actors.len(), 1);
        assert!(
            app.scene.loaded(&app.ws.scene().actors[0].model),
            "Mei loaded"
        );
    }
    let shown = |h: &Harness<'_, StudioApp>, n: &str| h.query_all_by_label(n).count();
    let (missing_before, present_before) = (shown(&h, "存在しない表情"), shown(&h, "発音「あ」"));
    h.get_by_label("Morphs missing in mei.pmd (1)").click();
    h.run_steps(3);
    // The list holds exactly the missing name: one more label of it, none
    // of the names Mei has.
    assert_eq!(shown(&h, "存在しない表情"), missing_before + 1);
    assert_eq!(shown(&h, "発音「あ」"), present_before);
    assert!(h.query_by_label_contains("not checked").is_none());
    // A toolbox result that adds a morph track Mei lacks says so (and one
    // adding a morph she has says nothing).
    {
        use vmd_studio::vmd::{MorphKey, NameEncoding};
        let app = h.state();
        let id = app.ws.scene().actors[0].motion.expect("motion worn");
        let d = app.ws.docs().iter().find(|d| d.id == id).expect("open");
        let with = |name: &str| {
            let mut m = d.motion.clone();
            m.morphs
                .push(MorphKey::new(name, NameEncoding::ShiftJis, 5, 1.0).expect("key"));
            m
        };
        let note = app
            .scene
            .names_the_model_lacks(&app.ws, id, &with("架空の表情"))
            .expect("a note");
        assert!(
            note.contains("1 morph track(s)") && note.contains("架空の表情"),
            "{note}"
        );
        assert!(note.contains("mei.pmd"), "{note}");
        assert_eq!(
            app.scene
                .names_the_model_lacks(&app.ws, id, &with("発音「う」")),
            None
        );
    }

    // A motion whose morphs Mei all has lists none.
    let fine = dir.join("fine.vmd");
    motion_with_morphs(&fine, &["発音「あ」", "発音「ん」"]);
    let h = mei_wearing(&corpus, &fine);
    assert!(h.query_by_label_contains("Morphs missing").is_none());
    h.get_by_label("Every morph of the motion is in mei.pmd.");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The scene's end is one answer wherever it is used: with the dancer
/// shifted 200 frames, the End key and File ▸ Export video's default range
/// both stop at the dance's last key + 200 (later than the camera's), and
/// after an undo of the offset the End key stops at the files' own last key.
#[test]
fn the_end_key_and_the_export_range_share_the_scene_end_with_an_offset_actor() {
    use vmd_studio::app::command::UiCommand;
    let mut h = harness_sized(StudioApp::with_demo(), 1400.0, 1000.0);
    h.run_steps(3);
    // By hand, from the files: the last key of each, the dance shifted.
    let last = |i: usize| h.state().ws.docs()[i].motion.last_frame().expect("keys");
    let (dance, camera) = (last(0), last(1));
    assert_eq!(h.state().ws.wearer(h.state().ws.docs()[0].id), Some(0));
    h.state_mut().scene_action(Action::SetOffset(0, 200));
    h.run_steps(2);
    let expected = (dance + 200).max(camera);
    assert!(expected > camera, "the shifted dance ends the scene");
    h.state_mut().run_command(UiCommand::End);
    h.run_steps(2);
    assert_eq!(h.state().ws.transport().frame, f64::from(expected));
    h.state_mut().open_export_video();
    assert_eq!(h.state().export_video.last, expected);
    // The offset is one undo step.
    h.state_mut().run_command(UiCommand::Undo);
    h.run_steps(2);
    assert_eq!(h.state().ws.scene().actors[0].offset, 0);
    h.state_mut().run_command(UiCommand::End);
    h.run_steps(2);
    assert_eq!(h.state().ws.transport().frame, f64::from(dance.max(camera)));
}
