//! The viewport options kept between runs: each view's grid, model-view
//! options and mouse mapping, the physics mode, whether actors' bodies
//! collide with each other, and Fast preview.

use super::{MouseMap, State, ViewState};
use crate::app::panels::model_view;
use crate::model::physics::SimulationMode;

/// Storage key of the viewport options kept between runs.
pub const SETTINGS_KEY: &str = "vmd-studio-viewport";

/// The viewport options kept between runs. The main view's options sit at
/// the top level, as stored before there were two views.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
struct Persisted {
    show_grid: bool,
    look: model_view::Settings,
    /// Missing in options stored before physics: the default mode.
    #[serde(default)]
    physics: PhysicsSetting,
    /// Whether actors' bodies collide with each other (missing in options
    /// stored before the switch: off).
    #[serde(default)]
    collide_actors: bool,
    /// Missing in options stored before the mapping could be chosen:
    /// MMD's.
    #[serde(default)]
    mouse: MouseMap,
    /// The second view's options (missing: its defaults).
    #[serde(default)]
    second: Option<PersistedView>,
    /// Fast preview (missing in options stored before the switch: off).
    #[serde(default)]
    fast_preview: bool,
}

/// One view's options.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
struct PersistedView {
    show_grid: bool,
    look: model_view::Settings,
    mouse: MouseMap,
}

impl PersistedView {
    fn of(v: &ViewState) -> Self {
        PersistedView {
            show_grid: v.show_grid,
            look: v.look,
            mouse: v.mouse,
        }
    }

    fn apply(&self, v: &mut ViewState) {
        v.show_grid = self.show_grid;
        v.look = self.look;
        v.mouse = self.mouse;
    }
}

/// [`SimulationMode`] as stored (the model layer's enum is not serde).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
enum PhysicsSetting {
    Off,
    #[default]
    Play,
    Always,
    Trace,
}

impl From<SimulationMode> for PhysicsSetting {
    fn from(m: SimulationMode) -> Self {
        match m {
            SimulationMode::Off => PhysicsSetting::Off,
            SimulationMode::Play => PhysicsSetting::Play,
            SimulationMode::Always => PhysicsSetting::Always,
            SimulationMode::Trace => PhysicsSetting::Trace,
        }
    }
}

impl From<PhysicsSetting> for SimulationMode {
    fn from(m: PhysicsSetting) -> Self {
        match m {
            PhysicsSetting::Off => SimulationMode::Off,
            PhysicsSetting::Play => SimulationMode::Play,
            PhysicsSetting::Always => SimulationMode::Always,
            PhysicsSetting::Trace => SimulationMode::Trace,
        }
    }
}

impl State {
    /// Takes the stored viewport options (each view's grid, frame, guides,
    /// skeleton overlay, shadows and mouse; physics; Fast preview), if any.
    pub fn restore(&mut self, storage: &dyn eframe::Storage) {
        if let Some(p) = eframe::get_value::<Persisted>(storage, SETTINGS_KEY) {
            PersistedView {
                show_grid: p.show_grid,
                look: p.look,
                mouse: p.mouse,
            }
            .apply(&mut self.view);
            if let Some(s) = p.second {
                s.apply(&mut self.second);
            }
            self.posing.physics = p.physics.into();
            self.posing.collide_actors = p.collide_actors;
            self.posing.fast_preview = p.fast_preview;
        }
    }

    /// Stores the viewport options.
    pub fn persist(&self, storage: &mut dyn eframe::Storage) {
        let p = Persisted {
            show_grid: self.view.show_grid,
            look: self.view.look,
            physics: self.posing.physics.into(),
            collide_actors: self.posing.collide_actors,
            mouse: self.view.mouse,
            second: Some(PersistedView::of(&self.second)),
            fast_preview: self.posing.fast_preview,
        };
        eframe::set_value(storage, SETTINGS_KEY, &p);
    }
}
