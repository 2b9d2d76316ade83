//! The toolbox dialogs in the real app under egui_kittest: each operation is
//! started from the Tools menu by clicking labels, its dialog shows the
//! result summary, the change is one undo step, and undo gives back the
//! original bytes exactly. Run with `env -u DISPLAY cargo test --test ui toolbox::`.
//!
//! Golden numbers:
//! * the bundled demo dance (assets/demo_dance.vmd) ends on frame 120 and
//!   keys 左腕 and 右腕 — its description in README/`inspect` ("length:
//!   frame 120", tracks 左腕 7, 右腕 7); the test checks both before relying
//!   on them;
//! * mirror: position (-x, y, z), rotation (x, -y, -z, w), 左 and 右 swapped
//!   (issue 6, item 1), computed here from the original keys;
//! * speed x2: new frame = round(frame / 2) (issue 6, item 4), so 120 -> 60;
//! * join with the default gap 1: the second file's frame 0 lands on the
//!   first's last frame + 1 = 121 (issue 6, item 3).

use crate::common;
use common::ui::harness_sized;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::app::command::UiCommand;
use vmd_studio::vmd::{self, Motion};

fn demo() -> Harness<'static, StudioApp> {
    let mut h = harness_sized(StudioApp::with_demo(), 1600.0, 1000.0);
    h.run_steps(3);
    assert_eq!(h.state().ws.docs().len(), 2, "demo dance and camera");
    assert_eq!(h.state().ws.active_index(), 0);
    h
}

fn bytes(m: &Motion) -> Vec<u8> {
    vmd::write(m).expect("the motion writes")
}

fn last_frame(m: &Motion) -> u32 {
    m.bones
        .iter()
        .map(|k| k.frame())
        .chain(m.morphs.iter().map(|k| k.frame()))
        .chain(m.cameras.iter().map(|k| k.frame()))
        .max()
        .expect("keys")
}

/// Opens a Tools menu entry by its label.
fn tools(h: &mut Harness<'static, StudioApp>, entry: &str) {
    h.get_by_label("Tools").click();
    h.run_steps(2);
    h.get_by_label(entry).click();
    h.run_steps(3);
}

/// Steps until the toolbox's background job is done.
fn settle(h: &mut Harness<'static, StudioApp>) {
    for _ in 0..2000 {
        h.step();
        if !h.state().panels.toolbox.is_busy() && !h.state().jobs.is_busy() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        !h.state().panels.toolbox.is_busy(),
        "toolbox job did not finish"
    );
    h.run_steps(3);
}

/// (frame → (position, rotation)) of one bone track.
fn track(m: &Motion, name: &str) -> BTreeMap<u32, ([f32; 3], [f32; 4])> {
    m.bones
        .iter()
        .filter(|k| k.name().text == name)
        .map(|k| (k.frame(), (k.position(), k.rotation())))
        .collect()
}

fn undo(h: &mut Harness<'static, StudioApp>) {
    h.state_mut().run_command(UiCommand::Undo);
    h.run_steps(3);
}

/// Checks `mirrored` against `original` bone by bone (issue 6 item 1).
fn assert_mirrored(original: &Motion, mirrored: &Motion) {
    for (from, to) in [("左腕", "右腕"), ("右腕", "左腕"), ("センター", "センター")]
    {
        let before = track(original, from);
        let after = track(mirrored, to);
        assert!(!before.is_empty(), "the demo keys {from}");
        assert_eq!(
            before.keys().collect::<Vec<_>>(),
            after.keys().collect::<Vec<_>>(),
            "{from} -> {to}: same frames"
        );
        for (f, (p, q)) in &before {
            let (p2, q2) = after[f];
            // Negation is exact in f32: compare bits-equal values.
            assert_eq!(p2, [-p[0], p[1], p[2]], "{to}@{f} position");
            assert_eq!(q2, [q[0], -q[1], -q[2], q[3]], "{to}@{f} rotation");
        }
    }
}

#[test]
fn mirror_from_the_tools_menu_is_one_undo_step() {
    let mut h = demo();
    let original = h.state().ws.docs()[0].motion.clone();
    let original_bytes = bytes(&original);
    let first_left = track(&original, "左腕");
    let (&f0, &(_, q0)) = first_left.iter().next().expect("demo keys 左腕");

    tools(&mut h, "Mirror left/right…");
    assert_eq!(
        h.state().panels.toolbox.open,
        Some(vmd_studio::app::panels::toolbox::Tool::Mirror)
    );
    h.get_by_label("Mirror the motion").click();
    h.run_steps(3);

    let app = h.state();
    let m = &app.ws.docs()[0].motion;
    assert_eq!(app.ws.docs()[0].history().len(), 1, "one undo step");
    // 左腕's first key now sits on 右腕 with rotation (x, -y, -z, w).
    let right = track(m, "右腕");
    let (_, q) = right[&f0];
    assert_eq!(q, [q0[0], -q0[1], -q0[2], q0[3]]);
    assert_mirrored(&original, m);
    // The camera tab was not touched.
    assert_eq!(
        bytes(&app.ws.docs()[1].motion),
        vmd_studio::app::DEMO_CAMERA
    );
    // The dialog stays open with the result summary.
    assert!(
        h.query_by_label_contains("Done:").is_some(),
        "summary shown"
    );
    assert!(
        h.query_by_label("Mirror the motion").is_some(),
        "dialog open"
    );

    undo(&mut h);
    assert_eq!(bytes(&h.state().ws.docs()[0].motion), original_bytes);
}

#[test]
fn speed_x2_from_the_dialog_halves_the_length_and_undoes() {
    let mut h = demo();
    let original = h.state().ws.docs()[0].motion.clone();
    let original_bytes = bytes(&original);
    // The demo's length (inspect: "length: frame 120").
    assert_eq!(last_frame(&original), 120);

    tools(&mut h, "Change speed…");
    h.get_by_label("x2").click();
    h.run_steps(3);
    // Live preview: 120 / 2 = 60.
    assert!(
        h.query_by_label_contains("Last frame: 120 (4.00 s) -> 60 (2.00 s)")
            .is_some(),
        "preview of the new length"
    );
    // The preview runs when the parameters change, not every frame.
    let runs = h.state().panels.toolbox.speed.preview_runs;
    h.run_steps(5);
    assert_eq!(h.state().panels.toolbox.speed.preview_runs, runs);

    h.get_by_label("Change the speed").click();
    h.run_steps(3);
    let m = h.state().ws.docs()[0].motion.clone();
    assert_eq!(last_frame(&m), 60);
    // Every track's frames are round(frame / 2), merged where they meet.
    for name in ["センター", "左腕", "頭"] {
        let want: BTreeSet<u32> = track(&original, name)
            .keys()
            .map(|&f| (f64::from(f) / 2.0).round() as u32)
            .collect();
        let got: BTreeSet<u32> = track(&m, name).keys().copied().collect();
        assert_eq!(got, want, "{name}");
    }
    assert_eq!(h.state().ws.docs()[0].history().len(), 1);
    assert!(h.query_by_label_contains("Done:").is_some());

    undo(&mut h);
    assert_eq!(bytes(&h.state().ws.docs()[0].motion), original_bytes);
}

#[test]
fn trim_with_a_after_b_shows_an_error_and_changes_nothing() {
    let mut h = demo();
    let original_bytes = bytes(&h.state().ws.docs()[0].motion);

    tools(&mut h, "Trim…");
    // No loop range and no selection: the defaults are the whole motion (0..120).
    assert_eq!(h.state().panels.toolbox.trim.from, 0);
    assert_eq!(h.state().panels.toolbox.trim.to, 120);
    h.state_mut().panels.toolbox.trim.from = 100;
    h.state_mut().panels.toolbox.trim.to = 10;
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("A (100) is after B (10)")
            .is_some()
    );

    h.get_by_label("Trim the motion").click();
    h.run_steps(3);
    assert!(
        h.query_by_label_contains("Not run:").is_some(),
        "error shown"
    );
    assert!(h.query_by_label("Nothing was changed.").is_some());
    let app = h.state();
    assert_eq!(bytes(&app.ws.docs()[0].motion), original_bytes);
    assert_eq!(app.ws.docs()[0].history().len(), 0, "no undo step");
    assert!(
        app.shared
            .messages
            .iter()
            .any(|(m, err)| *err && m.contains("100")),
        "status bar error: {:?}",
        app.shared.messages
    );
}

#[test]
fn trim_with_a_loop_range_defaults_to_it_and_rebases() {
    let mut h = demo();
    let original = h.state().ws.docs()[0].motion.clone();
    let original_bytes = bytes(&original);
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::SetLoop(Some((
            30, 90,
        ))));

    tools(&mut h, "Trim…");
    assert_eq!(h.state().panels.toolbox.trim.from, 30);
    assert_eq!(h.state().panels.toolbox.trim.to, 90);
    h.state_mut().panels.toolbox.trim.rebase = true;
    h.get_by_label("Trim the motion").click();
    h.run_steps(3);
    // 30..90 rebased to 0..60: the last key is at 90 - 30 = 60 and the first at 0.
    let m = h.state().ws.docs()[0].motion.clone();
    assert_eq!(last_frame(&m), 60);
    assert_eq!(m.bones.iter().map(|k| k.frame()).min(), Some(0));
    undo(&mut h);
    assert_eq!(bytes(&h.state().ws.docs()[0].motion), original_bytes);
}

#[test]
fn big_motions_run_on_a_background_thread_with_the_same_result() {
    let mut h = demo();
    let original = h.state().ws.docs()[0].motion.clone();
    let original_bytes = bytes(&original);
    // Treat every motion as big: the operation goes to a thread.
    h.state_mut().panels.toolbox.background_keys = 0;

    tools(&mut h, "Mirror left/right…");
    h.get_by_label("Mirror the motion").click();
    h.step();
    // The click's frame started the job; it is polled from the next frame on.
    assert!(h.state().panels.toolbox.is_busy(), "ran on a thread");
    // The spinner text counts the keys: 73 bone + 13 morph (inspect).
    assert!(h.query_by_label_contains("on 86 keys").is_some());
    settle(&mut h);
    let app = h.state();
    assert!(!app.panels.toolbox.is_busy());
    assert_eq!(app.ws.docs()[0].history().len(), 1);
    assert_mirrored(&original, &app.ws.docs()[0].motion);
    undo(&mut h);
    assert_eq!(bytes(&h.state().ws.docs()[0].motion), original_bytes);
}

#[test]
fn join_with_the_camera_tab_lands_after_the_dance() {
    let mut h = demo();
    let dance = h.state().ws.docs()[0].motion.clone();
    let camera = h.state().ws.docs()[1].motion.clone();
    assert_eq!(last_frame(&dance), 120);

    tools(&mut h, "Join with…");
    // The other open tab is the default second motion; gap 1 is the default.
    h.get_by_label("Join the motions").click();
    h.run_steps(3);
    let m = h.state().ws.docs()[0].motion.clone();
    let want: Vec<u32> = camera.cameras.iter().map(|k| k.frame() + 121).collect();
    let got: Vec<u32> = m.cameras.iter().map(|k| k.frame()).collect();
    assert_eq!(got, want, "camera keys shifted by 120 + 1");
    assert_eq!(m.bones.len(), dance.bones.len(), "the dance is kept");
    undo(&mut h);
    assert_eq!(bytes(&h.state().ws.docs()[0].motion), bytes(&dance));
}

#[test]
fn export_then_import_json_opens_an_identical_tab() {
    let mut h = demo();
    let original_bytes = bytes(&h.state().ws.docs()[0].motion);
    let dir = std::env::temp_dir().join(format!("vmd-studio-ui-toolbox-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("dance.json");

    tools(&mut h, "Export JSON…");
    h.state_mut().panels.toolbox.export.path = out.display().to_string();
    h.get_by_label("Write the JSON file").click();
    h.run_steps(3);
    assert!(out.is_file(), "{:?}", h.state().shared.messages);
    assert_eq!(
        h.state().ws.docs()[0].history().len(),
        0,
        "export changes nothing"
    );

    tools(&mut h, "Import JSON…");
    h.state_mut().panels.toolbox.import.path = out.display().to_string();
    h.get_by_label("Open as a new tab").click();
    h.step();
    settle(&mut h);
    let app = h.state();
    assert_eq!(app.ws.docs().len(), 3, "{:?}", app.shared.messages);
    assert_eq!(app.ws.active_index(), 2);
    assert_eq!(bytes(&app.ws.docs()[2].motion), original_bytes);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rename_from_the_dialog_reports_unmapped_names_and_undoes() {
    let mut h = demo();
    let original = h.state().ws.docs()[0].motion.clone();
    let original_bytes = bytes(&original);
    let left_arm_keys = track(&original, "左腕").len();
    assert_eq!(left_arm_keys, 7, "inspect: 左腕 7");

    tools(&mut h, "Rename tracks…");
    // ひだりうで: 5 kana = 10 bytes in Shift_JIS, fits the 15-byte field.
    h.state_mut().panels.toolbox.rename.map_text = "左腕\tひだりうで\nどこにもない\tx\n".to_owned();
    h.get_by_label("Apply the renames").click();
    h.run_steps(3);
    let m = h.state().ws.docs()[0].motion.clone();
    assert_eq!(track(&m, "ひだりうで").len(), left_arm_keys);
    assert!(track(&m, "左腕").is_empty());
    assert!(
        h.query_by_label_contains("\"どこにもない\" is unmapped")
            .is_some(),
        "unmapped name reported in the dialog"
    );
    undo(&mut h);
    assert_eq!(bytes(&h.state().ws.docs()[0].motion), original_bytes);

    // A map that changes nothing adds no undo step.
    h.state_mut().panels.toolbox.rename.map_text = "どこにもない\tx\n".to_owned();
    h.get_by_label("Apply the renames").click();
    h.run_steps(3);
    assert_eq!(h.state().ws.docs()[0].history().len(), 0);
    assert!(
        h.query_by_label_contains("no undo step was added")
            .is_some()
    );
    assert_eq!(bytes(&h.state().ws.docs()[0].motion), original_bytes);
}

#[test]
fn speed_preview_of_a_big_motion_runs_on_a_thread() {
    let mut h = demo();
    h.state_mut().panels.toolbox.background_keys = 0;
    tools(&mut h, "Change speed…");
    h.get_by_label("x2").click();
    h.run_steps(2);
    for _ in 0..2000 {
        h.step();
        if matches!(&h.state().panels.toolbox.speed.preview, Some(Ok(p)) if p.factor == 2.0) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let p = h.state().panels.toolbox.speed.preview.clone();
    let p = p.expect("preview").expect("preview ok");
    // 120 / 2 = 60 (demo length from inspect).
    assert_eq!((p.last_before, p.last_after), (Some(120), Some(60)));
    h.run_steps(2);
    assert!(h.query_by_label("Preview for factor 2:").is_some());
    assert_eq!(
        h.state().ws.docs()[0].history().len(),
        0,
        "a preview changes nothing"
    );
}
