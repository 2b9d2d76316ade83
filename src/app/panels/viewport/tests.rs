//! The viewport's options kept between runs, and `--view`.

use std::collections::HashMap;

use super::{MouseMap, SETTINGS_KEY, State, ViewMode};
use crate::app::panels::model_view;
use crate::model::physics::SimulationMode;

/// eframe's storage in memory.
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

#[test]
fn viewport_options_survive_a_restart() {
    let mut s = State::default();
    s.view.show_grid = false;
    s.view.look = model_view::Settings {
        aspect: 2,
        custom: (640, 480),
        guides: true,
        skeleton_overlay: true,
        ground_shadow: false,
        self_shadow: false,
    };
    s.view.mouse = MouseMap::LeftOrbit;
    s.second.look.guides = true;
    s.posing.physics = SimulationMode::Trace;
    let mut storage = Memory::default();
    s.persist(&mut storage);
    let mut next = State::default();
    assert!(
        next.view.show_grid && next.view.look.ground_shadow,
        "defaults differ"
    );
    assert_eq!(next.view.mouse, MouseMap::Mmd, "MMD's mapping by default");
    next.restore(&storage);
    assert!(!next.view.show_grid);
    assert_eq!(next.view.look, s.view.look);
    assert_eq!(next.view.mouse, MouseMap::LeftOrbit);
    assert!(next.second.look.guides && next.second.show_grid);
    assert_eq!(next.second.mouse, MouseMap::Mmd);
    assert_eq!(next.posing.physics, SimulationMode::Trace);
    // Nothing stored: the defaults stay.
    let mut fresh = State::default();
    fresh.restore(&Memory::default());
    assert!(fresh.view.show_grid);
    assert_eq!(fresh.view.look, model_view::Settings::default());
    assert_eq!(fresh.posing.physics, SimulationMode::Play, "MMD's default");
    // Options stored before physics and the mouse mapping existed keep
    // the defaults.
    #[derive(serde::Serialize)]
    struct Before {
        show_grid: bool,
        look: model_view::Settings,
    }
    let mut old = Memory::default();
    let before = Before {
        show_grid: false,
        look: model_view::Settings::default(),
    };
    eframe::set_value(&mut old, SETTINGS_KEY, &before);
    let mut from_old = State::default();
    from_old.restore(&old);
    assert!(!from_old.view.show_grid, "the old options were read");
    assert_eq!(from_old.posing.physics, SimulationMode::Play);
    assert_eq!(from_old.view.mouse, MouseMap::Mmd);
}

#[test]
fn view_flag_takes_a_positive_distance_as_a_length() {
    let mut s = State::default();
    s.set_view_mode("free:10,-20,30");
    assert_eq!(s.view.mode, ViewMode::Free);
    // 30 units in front of the target: MMD's signed −30, not +30 (which
    // would put the eye behind the target, looking away).
    assert_eq!(s.view.free.distance, -30.0);
    assert!((s.view.free.rotation[0] - 10f32.to_radians()).abs() < 1e-6);
    assert!((s.view.free.rotation[1] + 20f32.to_radians()).abs() < 1e-6);
    s.set_view_mode("free:0,0,-12,1,2,3");
    assert_eq!(s.view.free.distance, -12.0);
    assert_eq!(s.view.free.target, [1.0, 2.0, 3.0]);
    s.set_view_mode("camera");
    assert_eq!(s.view.mode, ViewMode::VmdCamera);
    // The second view is untouched by the flag.
    assert_eq!(s.second.mode, ViewMode::Free);
    assert_eq!(s.second.free, crate::scene::view::ViewCamera::FRONT);
}
