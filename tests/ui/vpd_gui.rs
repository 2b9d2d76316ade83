//! VPD poses through the GUI's own path (what File ▸ Load pose / Save
//! pose run once a file is chosen): keys at the playhead on the selected
//! actor's motion, one undo step, mirrored on request; a bad file names its
//! line and changes nothing; a saved pose loads back as no change.

use egui_kittest::Harness;
use vmd_studio::app::StudioApp;
use vmd_studio::app::command::UiCommand;
use vmd_studio::vmd::{self, BoneKey, Motion, NameEncoding};
use vmd_studio::workspace::{Event, TransportEvent};

use crate::common::ui::harness_sized;

fn sjis(text: &str) -> Vec<u8> {
    let (b, _, bad) = encoding_rs::SHIFT_JIS.encode(text);
    assert!(!bad, "test text must be Shift_JIS");
    b.into_owned()
}

/// Two bones, values chosen by hand: センター moved (0.5, 1.25, −2),
/// 左腕 turned by the quaternion (0.1, 0.2, 0.3, 0.927362).
const POSE: &str = "Vocaloid Pose Data file\r\n\r\nmiku.osm;\r\n2;\r\n\r\n\
Bone0{センター\r\n  0.500000,1.250000,-2.000000;\r\n  0.000000,0.000000,0.000000,1.000000;\r\n}\r\n\r\n\
Bone1{左腕\r\n  0.000000,0.000000,0.000000;\r\n  0.100000,0.200000,0.300000,0.927362;\r\n}\r\n";

/// センター keyed at frames 0 and 20 at the origin: the pose's frame 10
/// is inside, with no key on it.
fn motion() -> Motion {
    let mut m = Motion::default();
    for f in [0, 20] {
        m.bones.push(
            BoneKey::new(
                "センター",
                NameEncoding::ShiftJis,
                f,
                [0.0; 3],
                [0.0, 0.0, 0.0, 1.0],
            )
            .expect("key"),
        );
    }
    m
}

fn app_at(frame: f64) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::default();
    app.open_motion(motion(), None, "pose.vmd").expect("opens");
    app.apply(Event::Transport(TransportEvent::Seek(frame)));
    let mut h = harness_sized(app, 1280.0, 800.0);
    h.run_steps(2);
    h
}

fn write_tmp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("vmd-studio-vpd-gui-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

fn keys_at<'a>(m: &'a Motion, name: &str, frame: u32) -> Vec<&'a BoneKey> {
    m.bones
        .iter()
        .filter(|k| k.name().text == name && k.frame() == frame)
        .collect()
}

#[test]
fn loading_a_pose_keys_the_actor_at_the_playhead_in_one_undo_step() {
    let mut h = app_at(10.0);
    let original = vmd::write(&h.state().ws.docs()[0].motion).expect("write");
    let p = write_tmp("hand.vpd", &sjis(POSE));
    h.state_mut().load_pose_file(&p, false);
    h.run_steps(2);
    let doc = &h.state().ws.docs()[0];
    let m = &doc.motion;
    assert_eq!(m.bones.len(), 4, "two keys added");
    let c = keys_at(m, "センター", 10);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].position(), [0.5, 1.25, -2.0]);
    let a = keys_at(m, "左腕", 10);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].rotation(), [0.1, 0.2, 0.3, 0.927362]);
    assert_eq!(a[0].position(), [0.0; 3]);
    // The keys that were there keep their bytes.
    assert_eq!(m.bones[0], motion().bones[0]);
    assert_eq!(m.bones[1], motion().bones[1]);
    assert_eq!(doc.history().len(), 1, "one undo step");

    h.state_mut().run_command(UiCommand::Undo);
    h.run_steps(1);
    let back = vmd::write(&h.state().ws.docs()[0].motion).expect("write");
    assert_eq!(back, original, "undo restores every byte");
}

#[test]
fn a_mirrored_load_swaps_left_and_right() {
    let mut h = app_at(10.0);
    let p = write_tmp("mirror.vpd", &sjis(POSE));
    h.state_mut().load_pose_file(&p, true);
    h.run_steps(2);
    let m = &h.state().ws.docs()[0].motion;
    // Mirror (toolbox rule): position (−x, y, z), rotation (x, −y, −z, w).
    assert_eq!(keys_at(m, "センター", 10)[0].position(), [-0.5, 1.25, -2.0]);
    assert!(keys_at(m, "左腕", 10).is_empty());
    let r = keys_at(m, "右腕", 10);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].rotation(), [0.1, -0.2, -0.3, 0.927362]);
}

#[test]
fn a_bad_pose_names_its_line_and_changes_nothing() {
    let mut h = app_at(10.0);
    let original = vmd::write(&h.state().ws.docs()[0].motion).expect("write");
    // Line 13 (左腕's quaternion): a word for a number.
    let bad = POSE.replace("0.100000,0.200000", "0.100000,abc");
    let p = write_tmp("bad.vpd", &sjis(&bad));
    h.state_mut().load_pose_file(&p, false);
    h.run_steps(2);
    let now = vmd::write(&h.state().ws.docs()[0].motion).expect("write");
    assert_eq!(now, original);
    assert_eq!(h.state().ws.docs()[0].history().len(), 0);
    let msgs: Vec<&(String, bool)> = h.state().shared.messages.iter().collect();
    let last = msgs.last().expect("a message");
    assert!(last.1, "an error: {last:?}");
    assert!(last.0.contains("line 13"), "names the line: {}", last.0);
}

#[test]
fn a_saved_pose_loads_back_as_no_change() {
    // センター keyed 0 → 20 from (0,0,0) to (2,0,0), linear: at frame 5
    // X = 0.5 (a quarter of the way, MMD's linear curve being exact).
    let mut m = motion();
    m.bones[1].set_position([2.0, 0.0, 0.0]);
    let mut app = StudioApp::default();
    app.open_motion(m, None, "pose.vmd").expect("opens");
    app.apply(Event::Transport(TransportEvent::Seek(5.0)));
    let mut h = harness_sized(app, 1280.0, 800.0);
    h.run_steps(2);
    let out = std::env::temp_dir()
        .join(format!("vmd-studio-vpd-gui-{}", std::process::id()))
        .join("saved.vpd");
    std::fs::create_dir_all(out.parent().expect("dir")).expect("dir");
    h.state_mut().save_pose_file(&out);
    let bytes = std::fs::read(&out).expect("written");
    let v = vmd::vpd::read(&bytes).expect("reads back");
    assert_eq!(v.bones.len(), 1);
    assert_eq!(v.bones[0].name, "センター");
    assert!(
        (v.bones[0].position[0] - 0.5).abs() < 1e-6,
        "{:?}",
        v.bones[0]
    );
    let before = vmd::write(&h.state().ws.docs()[0].motion).expect("write");
    h.state_mut().load_pose_file(&out, false);
    h.run_steps(1);
    let after = vmd::write(&h.state().ws.docs()[0].motion).expect("write");
    assert_eq!(
        after, before,
        "loading it back at that frame changes nothing"
    );
    assert_eq!(h.state().ws.docs()[0].history().len(), 0);
}
