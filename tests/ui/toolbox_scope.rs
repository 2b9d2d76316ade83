//! Mirror and Speed on part of a motion, and a speed change that takes the
//! scene's camera along (issue 38.5), driven through the real dialogs.
//!
//! Golden values: the bundled demo (its `inspect`: the dance ends on frame
//! 120 and keys 左腕 and 右腕; the camera has 13 keys, cuts at 29, 59 and
//! 119, last key 120). Speed ×2: 120 / 2 = 60 for the dance; the camera's
//! key at 119 goes to round(59.5) = 60 and its cut partner at 120 one
//! frame later, 61. Mirror: position (−x, y, z), rotation (x, −y, −z, w),
//! 左 ⇄ 右, computed here from the original keys.

use crate::common;
use common::ui::{harness_sized, settle};

use std::collections::BTreeMap;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use vmd_studio::app::StudioApp;
use vmd_studio::app::command::UiCommand;
use vmd_studio::vmd::{self, Motion};
use vmd_studio::workspace::{Event, TransportEvent};

fn demo() -> (Harness<'static, StudioApp>, u64, u64) {
    let mut h = harness_sized(StudioApp::with_demo(), 1600.0, 1000.0);
    settle(&mut h);
    let id = |h: &Harness<'static, StudioApp>, camera: bool| {
        h.state()
            .ws
            .docs()
            .iter()
            .find(|d| d.motion.cameras.is_empty() != camera)
            .map(|d| d.id)
            .expect("the demo's dance and camera")
    };
    let (dance, camera) = (id(&h, false), id(&h, true));
    h.state_mut().activate(dance);
    h.run_steps(2);
    (h, dance, camera)
}

fn motion(h: &Harness<'static, StudioApp>, id: u64) -> Motion {
    h.state().ws.doc(id).expect("open").motion.clone()
}

fn bytes(m: &Motion) -> Vec<u8> {
    vmd::write(m).expect("writes")
}

fn tools(h: &mut Harness<'static, StudioApp>, entry: &str) {
    h.get_by_label("Tools").click();
    h.run_steps(2);
    h.get_by_label(entry).click();
    h.run_steps(3);
}

fn camera_frames(m: &Motion) -> Vec<u32> {
    let mut f: Vec<u32> = m.cameras.iter().map(|k| k.frame()).collect();
    f.sort();
    f
}

/// (frame → (position, rotation)) of one bone track.
fn track(m: &Motion, name: &str) -> BTreeMap<u32, ([f32; 3], [f32; 4])> {
    m.bones
        .iter()
        .filter(|k| k.name().text == name)
        .map(|k| (k.frame(), (k.position(), k.rotation())))
        .collect()
}

#[test]
fn speed_takes_the_scene_camera_along_in_one_undo_step() {
    let (mut h, dance, camera) = demo();
    let (dance0, camera0) = (motion(&h, dance), motion(&h, camera));
    assert_eq!(camera_frames(&camera0).last(), Some(&120));
    tools(&mut h, "Change speed…");
    h.get_by_label("x2").click();
    h.run_steps(3);
    // Offered, and on by default.
    let also = h.get_by_label("Also demo_camera.vmd (one undo step)");
    assert_eq!(
        also.accesskit_node().toggled(),
        Some(egui::accesskit::Toggled::True)
    );
    h.get_by_label("Change the speed").click();
    settle(&mut h);
    h.run_steps(3);
    let (d, c) = (motion(&h, dance), motion(&h, camera));
    assert_eq!(d.last_frame(), Some(60), "the dance: 120 / 2");
    let cf = camera_frames(&c);
    assert_eq!(cf.last(), Some(&61), "the camera: 119 → 60, its cut 61");
    let cuts = cf.windows(2).filter(|w| w[1] == w[0] + 1).count();
    assert_eq!(cuts, 3, "the three cuts stay cuts: {cf:?}");
    // One undo gives both files back, byte for byte.
    h.state_mut().run_command(UiCommand::Undo);
    h.run_steps(3);
    assert_eq!(bytes(&motion(&h, dance)), bytes(&dance0));
    assert_eq!(bytes(&motion(&h, camera)), bytes(&camera0));
}

#[test]
fn speed_without_the_scene_says_the_camera_keeps_its_timing() {
    let (mut h, dance, camera) = demo();
    let camera0 = motion(&h, camera);
    tools(&mut h, "Change speed…");
    h.get_by_label("x2").click();
    h.run_steps(2);
    h.get_by_label("Also demo_camera.vmd (one undo step)")
        .click();
    h.run_steps(3);
    assert!(
        h.query_by_label_contains(
            "Only demo_dance.vmd changes: demo_camera.vmd keeps the old timing"
        )
        .is_some(),
        "the dialog says the camera stays"
    );
    h.get_by_label("Change the speed").click();
    settle(&mut h);
    h.run_steps(3);
    assert_eq!(motion(&h, dance).last_frame(), Some(60));
    assert_eq!(bytes(&motion(&h, camera)), bytes(&camera0));
}

#[test]
fn mirror_on_the_loop_range_and_the_selected_bone_only() {
    let (mut h, dance, _) = demo();
    let original = motion(&h, dance);
    // The loop range 30–60, offered in the dialog as a range.
    h.state_mut()
        .apply(Event::Transport(TransportEvent::SetLoop(Some((30, 60)))));
    // A key of 左腕 inside it selected (the bones of the selection).
    let left = track(&original, "左腕");
    let (&inside, _) = left
        .range(30..=60)
        .next()
        .expect("the demo keys 左腕 in 30–60");
    assert!(left.keys().any(|f| !(30..=60).contains(f)), "and outside");
    assert!(h.state_mut().select_key(&format!("左腕@{inside}")));
    h.run_steps(2);
    tools(&mut h, "Mirror left/right…");
    h.get_by_label("Loop range 30–60").click();
    h.run_steps(2);
    h.get_by_label("1 selected bone (左腕)").click();
    h.run_steps(2);
    h.get_by_label("Mirror the motion").click();
    settle(&mut h);
    h.run_steps(3);
    let m = motion(&h, dance);
    for (from, to) in [("左腕", "右腕"), ("右腕", "左腕")] {
        let before = track(&original, from);
        let after_to = track(&m, to);
        let after_from = track(&m, from);
        for (f, (p, q)) in &before {
            if (30..=60).contains(f) {
                // Mirrored and moved to the partner's track.
                assert_eq!(after_to[f].0, [-p[0], p[1], p[2]], "{to}@{f}");
                assert_eq!(after_to[f].1, [q[0], -q[1], -q[2], q[3]], "{to}@{f}");
            } else {
                assert_eq!(after_from[f], (*p, *q), "{from}@{f} outside: kept");
            }
        }
    }
    // Bones neither selected nor partners: untouched.
    for name in ["センター", "頭", "左ひじ"] {
        assert_eq!(track(&m, name), track(&original, name), "{name}");
    }
    assert_eq!(m.morphs, original.morphs, "morphs: not bones in the scope");
}
