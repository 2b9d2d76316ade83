//! The docked layout, driven with egui_kittest: the picture is the largest
//! thing in the window, no two panels overlap, a moved panel comes back
//! where it was after a restart (through eframe's storage), Reset layout
//! brings the default back, and the menus keep their items in place.

use crate::audio_support;
use crate::common;

use std::collections::HashMap;
use std::path::PathBuf;

use audio_support::{click_track, wav_bytes};
use common::ui::{harness_sized, settle_until};
use egui::{Pos2, Rect};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use vmd_studio::app::dock::{Panel, SETTINGS_KEY};
use vmd_studio::app::{CentralView, StudioApp};

/// eframe's storage in memory (what the app's settings file holds).
#[derive(Default)]
struct Memory(HashMap<String, String>);

impl eframe::Storage for Memory {
    fn get_string(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
    fn set_string(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), value);
    }
    fn remove_string(&mut self, key: &str) {
        self.0.remove(key);
    }
    fn flush(&mut self) {}
}

/// The demo scene seen through its camera (as at the first start), in a
/// `w`×`h` window, after a few frames.
fn first_start(w: f32, h: f32, storage: Option<&Memory>) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::with_demo();
    if let Some(s) = storage {
        app.panels.dock.restore(s);
    }
    app.panels.central = CentralView::Preview;
    let mut h = harness_sized(app, w, h);
    h.run_steps(4);
    h
}

/// Every panel drawn in the last frame, with its rectangle.
fn drawn(h: &Harness<'_, StudioApp>) -> Vec<(Panel, Rect)> {
    Panel::ALL
        .iter()
        .filter_map(|p| Some((*p, h.state().panels.dock.rect_of(*p)?)))
        .collect()
}

#[test]
fn the_picture_is_the_largest_panel_at_three_window_sizes() {
    // ≥ 45 % of the window at every size. (The docking issue asked 50 %
    // at 1920×1080 with the timeline under the picture; issue 38.1 moved
    // the timeline into a column beside it, MMD's arrangement, so that a
    // 16:9 picture of ≥ 40 % and 8 rows of a dance both show at 1280×720:
    // the picture through the camera is the same size, the tile is
    // narrower.) The window's area is the whole window, menu and status
    // bar included.
    for (w, ht, least) in [
        (1280.0, 720.0, 0.45),
        (1400.0, 900.0, 0.45),
        (1920.0, 1080.0, 0.45),
    ] {
        let h = first_start(w, ht, None);
        let panels = drawn(&h);
        let view = h
            .state()
            .panels
            .dock
            .rect_of(Panel::Viewport)
            .unwrap_or_else(|| panic!("{w}x{ht}: no picture drawn: {panels:?}"));
        let share = view.area() / (w * ht);
        eprintln!("{w}x{ht}: picture tile {view:?}: {:.1} %", share * 100.0);
        assert!(
            share >= least,
            "{w}x{ht}: the picture has {:.1} % of the window",
            share * 100.0
        );
        for (p, r) in &panels {
            assert!(
                *p == Panel::Viewport || r.area() < view.area(),
                "{w}x{ht}: {p:?} ({r:?}) is larger than the picture"
            );
        }
        // The timeline is a tall column beside the picture, as in MMD
        // (issue 38.1: under a 16:9 picture of 40 % of a 1280×720 window
        // there is no room left for 8 rows of a dance).
        let tl = h
            .state()
            .panels
            .dock
            .rect_of(Panel::Timeline)
            .expect("timeline");
        assert!(
            tl.right() <= view.left() + 1.0,
            "{w}x{ht}: {tl:?} vs {view:?}"
        );
        assert!(tl.height() >= 0.55 * ht, "{w}x{ht}: {tl:?}");
    }
}

#[test]
fn no_two_panels_overlap_and_all_lie_inside_the_window() {
    for (w, ht) in [(1280.0, 720.0), (1400.0, 900.0), (1920.0, 1080.0)] {
        let h = first_start(w, ht, None);
        let panels = drawn(&h);
        // Preview, Timeline, Scene (tabbed with Inspector), Shots & posing
        // and Key fields (tabbed with Toolbox) are the front tabs.
        assert_eq!(panels.len(), 5, "{w}x{ht}: {panels:?}");
        let window = Rect::from_min_size(Pos2::ZERO, egui::vec2(w, ht));
        for (i, (a, ra)) in panels.iter().enumerate() {
            assert!(window.contains_rect(*ra), "{w}x{ht}: {a:?} {ra:?}");
            assert!(ra.width() >= 150.0 && ra.height() >= 100.0, "{a:?} {ra:?}");
            for (b, rb) in &panels[i + 1..] {
                assert!(
                    !ra.intersects(rb.shrink(0.5)),
                    "{w}x{ht}: {a:?} {ra:?} overlaps {b:?} {rb:?}"
                );
            }
        }
    }
}

/// Drags the tab titled `tab` onto the middle of `onto`'s panel.
fn drag_tab(h: &mut Harness<'_, StudioApp>, tab: &str, onto: Rect) {
    let from = h.get_by_label(tab).rect().center();
    common::ui::drag(h, from, onto.center());
    h.run_steps(3);
}

#[test]
fn a_moved_panel_comes_back_after_a_restart_and_reset_restores_the_default() {
    let (w, ht) = (1400.0, 900.0);
    let mut h = first_start(w, ht, None);
    let default = drawn(&h);
    // Drag the Scene tab into the middle of the timeline: it becomes a
    // tab of the timeline's group (or splits it), away from the right.
    let tl = h
        .state()
        .panels
        .dock
        .rect_of(Panel::Timeline)
        .expect("timeline");
    drag_tab(&mut h, "Scene", tl);
    let moved = h
        .state()
        .panels
        .dock
        .tile_of(Panel::Scene)
        .expect("scene open");
    let after = drawn(&h);
    assert_ne!(after, default, "the drag changed nothing");
    let tree = h.state().panels.dock.tree.clone().expect("tree");
    let parent = tree.tiles.parent_of(moved);
    let timeline = tree.tiles.find_pane(&Panel::Timeline).expect("timeline");
    let near_timeline = parent == tree.tiles.parent_of(timeline)
        || parent.and_then(|p| tree.tiles.parent_of(p)) == tree.tiles.parent_of(timeline)
        || parent
            .and_then(|p| tree.tiles.parent_of(p))
            .is_some_and(|gp| {
                Some(gp)
                    == tree
                        .tiles
                        .parent_of(timeline)
                        .and_then(|t| tree.tiles.parent_of(t))
            });
    assert!(
        near_timeline,
        "the Scene tab did not land by the timeline: {tree:?}"
    );

    // Quit (eframe saves the settings) and start again.
    let mut storage = Memory::default();
    eframe::App::save(h.state_mut(), &mut storage);
    assert!(storage.0.contains_key(SETTINGS_KEY));
    drop(h);
    let mut h = first_start(w, ht, Some(&storage));
    let back = h.state().panels.dock.tree.clone().expect("tree");
    assert_eq!(back.tiles.find_pane(&Panel::Scene), Some(moved));
    assert_eq!(back.tiles.parent_of(moved), parent);
    let again = drawn(&h);
    // The same panels in the same places (to a point: the shares are
    // stored as floating-point fractions).
    assert_eq!(again.len(), after.len(), "{again:?} vs {after:?}");
    for ((p, r), (q, s)) in again.iter().zip(&after) {
        assert_eq!(p, q);
        assert!(
            (r.min - s.min).length() < 1.0 && (r.max - s.max).length() < 1.0,
            "{p:?}: {r:?} vs {s:?}"
        );
    }

    // View ▸ Reset layout, clicked as a user would.
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_label("Reset layout").click();
    h.run_steps(4);
    assert_eq!(drawn(&h), default);
}

#[test]
fn a_stored_layout_that_cannot_be_read_gives_the_default_and_a_message() {
    for bad in [
        "{not json",
        // Valid JSON of the wrong shape.
        r#"{"tree": {"root": 7, "tiles": {"tiles": {}, "next_tile_id": 8}}}"#,
    ] {
        let mut storage = Memory::default();
        storage.0.insert(SETTINGS_KEY.into(), bad.into());
        let h = first_start(1280.0, 720.0, Some(&storage));
        let fresh = first_start(1280.0, 720.0, None);
        assert_eq!(drawn(&h), drawn(&fresh), "{bad}");
        assert!(
            h.state()
                .shared
                .messages
                .iter()
                .any(|(m, err)| *err && m.contains("layout could not be used")),
            "{bad}: {:?}",
            h.state().shared.messages
        );
    }
}

#[test]
fn a_closed_panel_reopens_from_the_view_menu() {
    let mut h = first_start(1280.0, 720.0, None);
    // The Inspector tab is behind Scene; close Scene with its group's ×.
    h.get_by_label("Close panel Scene").click();
    h.run_steps(3);
    assert!(!h.state().panels.dock.is_open(Panel::Scene));
    assert!(h.state().panels.dock.rect_of(Panel::Inspector).is_some());
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_label("Panels").click();
    h.run_steps(2);
    h.get_by_label("Scene").click();
    h.run_steps(4);
    assert!(h.state().panels.dock.rect_of(Panel::Scene).is_some());
}

fn song_file() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vmd-ui-dock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (x, _) = click_track(44_100, 120.0, 0.0, 4.0);
    let p = dir.join("click.wav");
    std::fs::write(&p, wav_bytes(44_100, 1, 16, &x)).expect("song file");
    p
}

/// The File menu's items, top to bottom: (label, top edge).
fn file_menu(h: &mut Harness<'_, StudioApp>) -> Vec<(String, f32)> {
    h.get_by_label("File").click();
    h.run_steps(2);
    let items: Vec<(String, f32)> = [
        "Open demo",
        "Load song…",
        "Remove song",
        "Export video…",
        "Close",
        "Quit",
    ]
    .iter()
    .filter_map(|l| {
        let n = h.query_by_label(l)?;
        Some((l.to_string(), n.rect().top()))
    })
    .collect();
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    items
}

#[test]
fn loading_a_song_moves_no_file_menu_item() {
    let mut h = first_start(1280.0, 720.0, None);
    let before = file_menu(&mut h);
    // "Remove song" is listed, disabled, before a song is loaded.
    assert!(before.iter().any(|(l, _)| l == "Remove song"), "{before:?}");
    assert!(before.iter().any(|(l, _)| l == "Quit"), "{before:?}");
    let path = song_file();
    h.state_mut().open_paths(vec![path]);
    settle_until(&mut h, "song", |a| {
        !a.jobs.is_busy() && a.shared.song.loading().is_none()
    });
    assert!(h.state().shared.song.song.is_some());
    let after = file_menu(&mut h);
    assert_eq!(after, before);
}

#[test]
fn the_remove_song_item_is_disabled_without_a_song() {
    let mut h = first_start(1280.0, 720.0, None);
    h.get_by_label("File").click();
    h.run_steps(2);
    let n = h.get_by_label("Remove song");
    assert!(n.accesskit_node().is_disabled());
}

#[test]
fn an_edit_moves_no_edit_menu_item() {
    let mut h = first_start(1280.0, 720.0, None);
    let items = |h: &mut Harness<'_, StudioApp>| -> Vec<f32> {
        h.get_by_label("Edit").click();
        h.run_steps(2);
        let tops = ["Copy keys", "Select all", "Delete keys"]
            .iter()
            .filter_map(|l| h.query_by_label_contains(l).map(|n| n.rect().top()))
            .collect();
        h.key_press(egui::Key::Escape);
        h.run_steps(2);
        tops
    };
    let before = items(&mut h);
    assert!(!before.is_empty());
    assert!(h.state_mut().select_key("左腕@40"));
    h.run_steps(2);
    h.key_press(egui::Key::Delete);
    h.run_steps(3);
    assert!(h.state().ws.can_step(true), "the delete made no undo step");
    assert_eq!(items(&mut h), before);
}

#[test]
fn the_close_question_names_the_file() {
    let mut h = first_start(1280.0, 720.0, None);
    assert!(h.state_mut().select_key("左腕@40"));
    h.run_steps(2);
    h.key_press(egui::Key::Delete);
    h.run_steps(3);
    let title = h.state().doc().map(|d| d.title()).expect("a file");
    let title = title.trim_start_matches("● ").to_owned();
    assert_eq!(title, "demo_dance.vmd");
    assert!(h.state().doc().is_some_and(|d| d.is_modified()));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::W);
    h.run_steps(3);
    let q = h.get_by_label_contains("Save changes to ");
    assert!(
        h.query_by_label_contains(&format!("Save changes to {title}?"))
            .is_some(),
        "{q:?} does not name {title}"
    );
}

#[test]
fn the_status_bar_has_play_and_pause() {
    let mut h = first_start(1280.0, 720.0, None);
    assert!(!h.state().ws.transport().playing);
    h.get_by_label("▶ Play").click();
    h.run_steps(2);
    assert!(h.state().ws.transport().playing);
    h.get_by_label("Pause").click();
    h.run_steps(2);
    assert!(!h.state().ws.transport().playing);
}

#[test]
fn copying_one_key_says_one_key() {
    let mut h = first_start(1280.0, 720.0, None);
    assert!(h.state_mut().select_key("左腕@40"));
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::C);
    h.run_steps(2);
    let last = h.state().shared.messages.last().cloned();
    assert_eq!(last, Some(("Copied 1 key".to_owned(), false)));
}

#[test]
fn typing_a_filter_moves_no_timeline_button_and_the_message_count_shows_whole() {
    let mut h = first_start(1280.0, 720.0, None);
    let before = h.get_by_label("Clear loop").rect();
    // As typed into the Filter field.
    h.state_mut().panels.timeline.filter = "左".into();
    h.run_steps(3);
    assert_eq!(h.state().panels.timeline.filter, "左");
    assert_eq!(h.get_by_label("Clear loop").rect(), before);
    // Five long messages: the count button is shown whole, inside the window.
    for i in 0..5 {
        h.state_mut().shared.info(format!(
            "message {i}: {}",
            "a long status line that does not fit the bar ".repeat(4)
        ));
    }
    h.run_steps(3);
    let count = h.get_by_label("(5 messages)").rect();
    assert!(count.right() <= 1280.0, "{count:?}");
}

#[test]
fn the_camera_preset_shows_both_views_and_both_draw() {
    let (w, ht) = (1400.0, 900.0);
    let mut h = first_start(w, ht, None);
    assert!(h.state().panels.dock.rect_of(Panel::SecondView).is_none());
    h.state_mut()
        .panels
        .dock
        .use_preset(vmd_studio::app::dock::Preset::Camera);
    h.run_steps(4);
    let a = h
        .state()
        .panels
        .dock
        .rect_of(Panel::Viewport)
        .expect("first view");
    let b = h
        .state()
        .panels
        .dock
        .rect_of(Panel::SecondView)
        .expect("second view");
    // Side by side, not overlapping, each a fair share of the window.
    assert!(a.right() <= b.left() + 0.5, "{a:?} {b:?}");
    assert!((a.top() - b.top()).abs() < 1.0, "{a:?} {b:?}");
    for r in [a, b] {
        assert!(r.area() >= 0.15 * w * ht, "{r:?}");
    }
    // Both drew the scene this frame: the camera's view (view 0) and the
    // free view (view 1) each keep the joints they drew.
    let vp = &h.state().panels.viewport;
    assert_eq!(
        vp.second.mode,
        vmd_studio::app::panels::viewport::ViewMode::Free
    );
    for view in [0, 1] {
        let drawn = vp.posing.pose.drawn_in(view);
        assert!(
            drawn.is_some_and(|d| !d.joints.is_empty()),
            "view {view} drew no joints"
        );
    }
    // Closing the second view leaves the first as it was drawn.
    h.get_by_label("Close panel View 2").click();
    h.run_steps(3);
    assert!(!h.state().panels.dock.is_open(Panel::SecondView));
    assert!(h.state().panels.dock.rect_of(Panel::Viewport).is_some());
}
