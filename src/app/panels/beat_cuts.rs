//! Cuts against the beat, for the shot list: each cut's distance to the
//! nearest beat in frames, and a filter that lists only the cuts missing
//! the beat by more than N frames.

use crate::app::song::SongState;
use crate::scene::shots::Shot;

/// The filter's settings (kept by the shot list).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OffBeatFilter {
    pub enabled: bool,
    /// Cuts further than this from a beat are listed, frames.
    pub max_frames: f64,
}

impl Default for OffBeatFilter {
    fn default() -> Self {
        OffBeatFilter {
            enabled: false,
            max_frames: 1.0,
        }
    }
}

/// Frames from the cut that starts `shot` to the nearest beat (positive:
/// the cut comes after the beat). `None` for the first shot (no cut) or
/// without a beat grid.
pub fn cut_offset(song: &SongState, shot: &Shot) -> Option<f64> {
    shot.cut_to_beat(song.grid.as_ref()?, song.offset_frames)
}

/// The shot's row text with its cut's distance to the beat.
pub fn label(song: &SongState, shot: &Shot) -> String {
    match cut_offset(song, shot) {
        Some(d) if d.abs() < 0.05 => format!("{}  on beat", shot.label()),
        Some(d) => format!("{}  beat {:+.1} f", shot.label(), d),
        None => shot.label(),
    }
}

/// Whether the shot's row is listed under the filter.
pub fn keep(song: &SongState, f: OffBeatFilter, shot: &Shot) -> bool {
    if !f.enabled || song.grid.is_none() {
        return true;
    }
    cut_offset(song, shot).is_some_and(|d| d.abs() > f.max_frames)
}

/// The filter's controls (only with a beat grid).
pub fn filter_ui(ui: &mut egui::Ui, song: &SongState, filter: &mut OffBeatFilter) {
    if song.grid.is_none() {
        return;
    }
    ui.horizontal(|ui| {
        ui.checkbox(
            &mut filter.enabled,
            "Only cuts off the beat by more than",
        )
        .on_hover_text(
            "List only the cuts that miss the song's nearest beat by more than this many frames",
        );
        ui.add(
            egui::DragValue::new(&mut filter.max_frames)
                .range(0.0..=30.0)
                .speed(0.1)
                .suffix(" f"),
        );
    });
}
