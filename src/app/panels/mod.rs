//! The panels. Each reads the active document and returns edits through
//! [`PanelCtx::edits`]; none mutates a motion itself.

use super::document::{DocView, Document, EditRequest};
use crate::vmd::Curve;

pub mod beat_cuts;
pub mod curve_editor;
pub mod dope_sheet;
pub mod forensics;
pub mod gizmo;
pub mod inspector;
pub mod key_panel;
pub mod model_view;
pub mod scene;
pub mod shots;
pub mod timeline;
pub mod toolbox;
pub mod viewport;
pub mod waveform;

/// The transport: one playhead shared by every open file, so a dance and
/// its camera play together.
#[derive(Debug, Clone)]
pub struct Transport {
    /// Playhead in frames; fractional while playing.
    pub frame: f64,
    pub playing: bool,
    /// Loop over this range (inclusive frames) while playing.
    pub loop_range: Option<(u32, u32)>,
    /// Preview evaluation rate in frames per second: 30 = MMD's own steps;
    /// 60 or more evaluates sub-frames (cuts stay hard at any rate).
    pub preview_rate: u32,
}

impl Default for Transport {
    fn default() -> Self {
        Transport {
            frame: 0.0,
            playing: false,
            loop_range: None,
            preview_rate: 30,
        }
    }
}

impl Transport {
    /// The frame to evaluate: the playhead quantized to the preview rate.
    pub fn eval_frame(&self) -> f64 {
        let steps_per_frame = (f64::from(self.preview_rate.max(1)) / 30.0).max(1.0 / 30.0);
        (self.frame * steps_per_frame).floor() / steps_per_frame
    }
}

/// State shared by all panels (not part of undo).
#[derive(Debug, Default)]
pub struct Shared {
    pub transport: Transport,
    /// Curve copied in the curve editor.
    pub curve_clipboard: Option<Curve>,
    /// Messages for the status bar: (text, is_error).
    pub messages: Vec<(String, bool)>,
    /// The scene's song: waveform, beat grid, sound.
    pub song: crate::app::song::SongState,
    /// The job service every background task runs on (the app's
    /// [`crate::app::jobs::Jobs`] shares it).
    pub jobs: crate::app::jobs::JobService,
}

impl Shared {
    /// A status message (also logged).
    pub fn info(&mut self, text: impl Into<String>) {
        let text = text.into();
        tracing::info!("{text}");
        self.messages.push((text, false));
    }
    /// An error for the status bar (also logged as a warning).
    pub fn error(&mut self, text: impl Into<String>) {
        let text = text.into();
        tracing::warn!("{text}");
        self.messages.push((text, true));
    }
}

/// What a panel gets each frame.
pub struct PanelCtx<'a> {
    pub doc: &'a Document,
    pub view: &'a mut DocView,
    pub edits: &'a mut Vec<EditRequest>,
    pub shared: &'a mut Shared,
}

impl PanelCtx<'_> {
    pub fn push(&mut self, e: EditRequest) {
        self.edits.push(e);
    }
}
