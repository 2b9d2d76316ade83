//! What a new user tripped over, second round (issue 38), checked as a
//! user meets it.

use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;

use crate::common::ui::{harness_sized, settle};

/// 38.10: the window grows from 1280×720 to 1920×1080 with the demo open
/// and the timeline as first fitted: the ruler is fitted again, so the
/// scene still fills it (before, it kept the old zoom and ran far past the
/// scene's end). The scene's end is the demo's last key, frame 120.
#[test]
fn the_timeline_is_fitted_again_when_the_window_grows() {
    let mut h = harness_sized(StudioApp::with_demo(), 1280.0, 720.0);
    settle(&mut h);
    let end = f64::from(h.state().ws.scene_end());
    assert!(end >= 100.0, "the demo runs to frame {end}");
    let small = h.state().panels.timeline.layout().expect("ruler");
    let (_, hi) = small.visible_frames();
    // The fit shows the scene with a small margin.
    assert!(hi > end && hi < end * 1.1, "fitted at 1280: up to {hi}");
    h.set_size(egui::vec2(1920.0, 1080.0));
    h.run_steps(4);
    let big = h.state().panels.timeline.layout().expect("ruler");
    assert!(big.ruler.width() > small.ruler.width() + 300.0);
    let (_, hi) = big.visible_frames();
    assert!(
        hi > end && hi < end * 1.1,
        "fitted again at 1920: up to {hi}"
    );
    assert!(big.px_per_frame > small.px_per_frame * 1.3);
}

/// A zoom the user chose is kept when the window grows.
#[test]
fn a_zoom_the_user_chose_is_kept_when_the_window_grows() {
    let mut h = harness_sized(StudioApp::with_demo(), 1280.0, 720.0);
    settle(&mut h);
    h.get_by_label("Zoom in").click();
    h.run_steps(2);
    let zoom = h
        .state()
        .panels
        .timeline
        .layout()
        .expect("ruler")
        .px_per_frame;
    h.set_size(egui::vec2(1920.0, 1080.0));
    h.run_steps(4);
    let after = h
        .state()
        .panels
        .timeline
        .layout()
        .expect("ruler")
        .px_per_frame;
    assert_eq!(after, zoom);
}
