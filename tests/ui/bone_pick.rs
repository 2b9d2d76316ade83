//! Clicking a bone's joint in the viewport selects that bone's row in the
//! timeline (and its key at the playhead when there is one), clears the
//! other sections' selections and scrolls the timeline to the row. Driven
//! as a user with egui_kittest on the demo scene.
//! Run with `env -u DISPLAY cargo test --test ui bone_pick::`.
//!
//! Golden facts come from examples/make_demo.rs, not from the program: the
//! demo dance keys 左腕 every 20 frames and 右足ＩＫ every 15 (so 右足ＩＫ
//! has a key on frame 30, 左腕 none on 30..39), and its bone tracks appear
//! in the order センター, 上半身, 左腕, 右腕, 左ひじ, 右ひじ, 頭, 左足ＩＫ,
//! 右足ＩＫ — the last row of the bones group, below the first screenful.

use crate::common;
use common::ui::harness;

use egui::Pos2;
use egui_kittest::Harness;
use vmd_studio::app::panels::dope_sheet::TrackRef;
use vmd_studio::app::panels::viewport::ViewMode;
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::workspace::document::KeyRef;

fn demo_at(frame: f64) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::with_demo();
    app.panels.central = CentralView::Preview;
    app.panels.viewport.view.mode = ViewMode::Free;
    app.transport(vmd_studio::workspace::TransportEvent::Seek(frame));
    let mut h = harness(app);
    h.run_steps(4);
    // The timeline short, so a row can start below its first screenful.
    crate::common::ui::timeline_under_the_picture(&mut h);
    h
}

fn click(h: &mut Harness<'_, StudioApp>, at: Pos2) {
    crate::common::ui::press(h, at, egui::PointerButton::Primary);
    h.run_steps(3);
}

fn click_joint(h: &mut Harness<'_, StudioApp>, name: &str) {
    let at = h
        .state()
        .panels
        .viewport
        .posing
        .pose
        .joint_on_screen(0, name)
        .unwrap_or_else(|| panic!("{name} is drawn"));
    click(h, at);
    let sel = h.state().panels.viewport.posing.pose.selected.clone();
    assert_eq!(sel.map(|s| s.name), Some(name.to_owned()), "clicked {at:?}");
}

/// (document index, track) of the demo dance's bone `name`.
fn track(h: &Harness<'_, StudioApp>, name: &str) -> TrackRef {
    let d = &h.state().ws.docs()[0];
    let t = d.index.bone_by_text(name).expect("the demo keys it");
    TrackRef::Bone(t.name_key.clone())
}

fn key_on(h: &Harness<'_, StudioApp>, name: &str, frame: u32) -> KeyRef {
    let m = &h.state().ws.docs()[0].motion;
    let i = m
        .bones
        .iter()
        .position(|k| k.name().text == name && k.frame() == frame)
        .unwrap_or_else(|| panic!("{name}@{frame}"));
    KeyRef::Bone(i as u32)
}

fn in_view(h: &Harness<'_, StudioApp>, key: KeyRef) -> bool {
    let app = h.state();
    app.panels
        .timeline
        .key_pos(&app.ws.docs()[0], key)
        .is_some()
}

fn picked_tracks(h: &Harness<'_, StudioApp>) -> Vec<TrackRef> {
    let app = h.state();
    let id = app.ws.docs()[0].id;
    app.panels.timeline.sheets[&id]
        .selected_tracks
        .iter()
        .cloned()
        .collect()
}

#[test]
fn clicking_a_joint_selects_its_row_and_its_key_at_the_playhead() {
    let mut h = demo_at(30.0);
    // Zoomed so that frame 30 is in view, whatever the fit chose.
    {
        let t = &mut h.state_mut().panels.timeline;
        t.px_per_frame = 6.0;
        t.left_frame = 0.0;
    }
    h.run_steps(3);
    assert_eq!(h.state().ws.docs().len(), 2, "demo dance and camera");
    let ik30 = key_on(&h, "右足ＩＫ", 30);
    assert!(
        !in_view(&h, ik30),
        "右足ＩＫ's row starts below the timeline's first screenful"
    );
    // A key of the camera file is selected first: the click replaces it.
    let doc = h.state().ws.docs()[1].id;
    let view = vmd_studio::workspace::document::DocView {
        selection: std::iter::once(KeyRef::Camera(0)).collect(),
        ..Default::default()
    };
    h.state_mut()
        .apply(vmd_studio::workspace::Event::Select { doc, view });

    click_joint(&mut h, "右足ＩＫ");
    {
        let app = h.state();
        let sel: Vec<KeyRef> = app.ws.docs()[0].view.selection.iter().copied().collect();
        assert_eq!(sel, vec![ik30], "the key on the playhead's frame");
        assert_eq!(app.ws.docs()[0].view.active, Some(ik30));
        assert!(
            app.ws.docs()[1].view.selection.is_empty(),
            "camera selection cleared"
        );
        assert_eq!(
            app.doc().map(|d| d.id),
            Some(app.ws.docs()[0].id),
            "dance active"
        );
    }
    assert_eq!(picked_tracks(&h), vec![track(&h, "右足ＩＫ")]);
    assert!(in_view(&h, ik30), "the timeline scrolled to the row");

    // On a frame where 左腕 has no key: its row is picked, no key selected.
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Seek(35.0));
    h.run_steps(3);
    click_joint(&mut h, "左腕");
    assert!(h.state().ws.docs()[0].view.selection.is_empty());
    assert_eq!(picked_tracks(&h), vec![track(&h, "左腕")]);
    assert!(in_view(&h, key_on(&h, "左腕", 40)), "左腕's row in view");
}
