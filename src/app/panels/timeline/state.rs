//! The timeline's state and view types: the sections, what the timeline
//! hands back, the shared zoom and scroll, and the scene clipboard.

use std::collections::{BTreeSet, HashMap};

use egui::Pos2;

use super::set_lane::{LaneEdit, LaneState};
use super::{LEFT_MARGIN_PX, ZOOM_MAX, ZOOM_MIN};
use crate::app::panels::dope_sheet::{self, Clipboard, Layout};
use crate::vmd::key_edit::KeyMove;
use crate::workspace::document::{Document, EditRequest, KeyRef};

/// A file's name for messages (no modified mark).
pub(super) fn file_name(d: &Document) -> String {
    d.path
        .as_ref()
        .and_then(|p| p.file_name())
        .map_or_else(|| d.name.clone(), |n| n.to_string_lossy().into_owned())
}

/// One section of the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub doc_id: u64,
    /// "Camera", "Actor 1", "Not in the scene"…
    pub role: String,
    /// Frames the document is shifted by (an actor's offset).
    pub offset: i32,
    /// The scene's camera or light file: folded to its header row when it
    /// first shows beside a dance, so the dance's rows are in view.
    pub camera_or_light: bool,
    /// An actor wears it (a dance).
    pub worn: bool,
}

/// What the timeline asks the app to do.
#[derive(Debug, Default)]
pub struct Output {
    /// Edit requests, per document id.
    pub edits: Vec<(u64, Vec<EditRequest>)>,
    /// The document the user pressed on: it becomes the active one.
    pub activate: Option<u64>,
    /// What the set's lane asks of the scene's accessories.
    pub set_edits: Vec<LaneEdit>,
}

/// The timeline's state: shared zoom and scroll, per-section dope sheets.
#[derive(Debug)]
pub struct State {
    /// Per document id: that section's dope-sheet state.
    pub sheets: HashMap<u64, dope_sheet::State>,
    /// Zoom: points per frame.
    pub px_per_frame: f32,
    /// Scene frame at the left edge of the key area.
    pub left_frame: f64,
    pub fit_pending: bool,
    /// Track-name filter, for every section.
    pub filter: String,
    /// Keys copied from any sections.
    pub clipboard: SceneClipboard,
    /// Collapsed sections, by document id.
    pub collapsed: BTreeSet<u64>,
    pub(super) ruler: Option<Layout>,
    pub(super) hbar_drag: bool,
    /// The sections shown last frame: a new one fits the view again.
    pub(super) shown: Vec<u64>,
    /// Keys being dragged, in every section.
    pub(super) group_move: Option<GroupMove>,
    /// The playhead frame seen last frame: when it jumps (Home, End, a cut,
    /// a shot) out of view, the view follows it.
    pub(super) seen_frame: Option<f64>,
    /// The zoom the last fit set; a new file fits again only when the user
    /// has not zoomed since (else the zoom is kept).
    pub(super) fitted_zoom: Option<f32>,
    /// The view the last fit made: (ruler width, zoom, left frame). While
    /// the view is still that one, a wider or narrower ruler fits again.
    pub(super) fitted_view: Option<(f32, f32, f64)>,
    /// The sections' vertical scroll goes back to the top next frame.
    pub(super) reset_vscroll: bool,
    /// How far the sections are scrolled down, points (as drawn last frame).
    pub vscroll: f32,
    /// The song lane's drag in progress.
    pub(super) lane_drag: crate::app::panels::waveform::LaneDrag,
    /// Camera and light sections folded once beside a dance (never again:
    /// one the user opens stays open).
    pub(super) folded_once: BTreeSet<u64>,
    /// The set's accessory lane.
    pub set_lane: LaneState,
}

impl Default for State {
    fn default() -> Self {
        State {
            sheets: HashMap::new(),
            px_per_frame: 6.0,
            left_frame: -1.0,
            fit_pending: true,
            filter: String::new(),
            clipboard: SceneClipboard::default(),
            collapsed: BTreeSet::new(),
            ruler: None,
            hbar_drag: false,
            shown: Vec::new(),
            group_move: None,
            seen_frame: None,
            fitted_zoom: None,
            fitted_view: None,
            reset_vscroll: false,
            vscroll: 0.0,
            lane_drag: Default::default(),
            folded_once: BTreeSet::new(),
            set_lane: Default::default(),
        }
    }
}

/// A move of the selected keys of several documents at once: a drag on any
/// section moves every section's selection by the same number of frames,
/// each document's change in its own undo step (made in the same frame, so
/// the app undoes them together).
#[derive(Debug)]
pub(super) struct GroupMove {
    /// Per document id: its selected keys and their frames at the start.
    pub(super) moves: Vec<(u64, KeyMove)>,
    pub(super) applied: i64,
    pub(super) refused: Option<i64>,
    pub(super) merge_id: u64,
    pub(super) sent: bool,
}

/// Keys copied from one section, with the offset it had then.
#[derive(Debug, Clone)]
pub struct ClipPart {
    pub doc_id: u64,
    pub offset: i32,
    pub keys: Clipboard,
}

/// Keys copied from any sections of the timeline.
#[derive(Debug, Clone, Default)]
pub struct SceneClipboard {
    pub parts: Vec<ClipPart>,
}

impl SceneClipboard {
    pub fn len(&self) -> usize {
        self.parts.iter().map(|p| p.keys.len()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The earliest copied key in scene frames (offsets applied).
    pub(super) fn earliest(&self) -> Option<i64> {
        self.parts
            .iter()
            .filter_map(|p| Some(i64::from(p.keys.earliest()?) + i64::from(p.offset)))
            .min()
    }
}

impl State {
    /// The ruler's layout as drawn last frame (unshifted scene frames).
    pub fn layout(&self) -> Option<Layout> {
        self.ruler
    }

    /// Screen position of a key's diamond as drawn last frame, if in view.
    pub fn key_pos(&self, doc: &Document, key: KeyRef) -> Option<Pos2> {
        self.sheets.get(&doc.id)?.key_pos(doc, key)
    }

    /// The section state of document `id`, set up with the shared view.
    pub(super) fn take_sheet(&mut self, id: u64, offset: i32) -> dope_sheet::State {
        let mut st = self.sheets.remove(&id).unwrap_or_default();
        st.px_per_frame = self.px_per_frame;
        st.left_frame = self.left_frame - f64::from(offset);
        st.offset = offset;
        st.fit_pending = false;
        if st.filter != self.filter {
            st.filter = self.filter.clone();
        }
        st.can_paste = !self.clipboard.is_empty();
        st
    }

    /// Puts a section state back, keeping any zoom or scroll it made.
    pub(super) fn put_sheet(&mut self, id: u64, mut st: dope_sheet::State) {
        let offset = f64::from(st.offset);
        if st.px_per_frame != self.px_per_frame || st.left_frame + offset != self.left_frame {
            self.px_per_frame = st.px_per_frame;
            self.left_frame = st.left_frame + offset;
        }
        self.fit_pending |= std::mem::take(&mut st.fit_pending);
        self.sheets.insert(id, st);
    }

    /// Zooms by `factor` keeping scene frame `anchor` at screen x `x`
    /// (`left` = the key area's left edge).
    pub fn zoom_about(&mut self, anchor: f64, x: f32, left: f32, factor: f32) {
        self.px_per_frame = (self.px_per_frame * factor).clamp(ZOOM_MIN, ZOOM_MAX);
        self.left_frame = anchor - f64::from(x - left) / f64::from(self.px_per_frame);
        self.clamp_left();
    }

    /// Never further left than a few points before frame 0.
    pub(super) fn clamp_left(&mut self) {
        let min = -f64::from(LEFT_MARGIN_PX / self.px_per_frame);
        if self.left_frame < min {
            self.left_frame = min;
        }
    }

    pub(super) fn fit(&mut self, width: f32, last: u32) {
        let last = f64::from(last.max(10));
        let margin = (last * 0.02).max(2.0);
        let span = last + 2.0 * margin;
        self.px_per_frame = ((f64::from(width.max(50.0)) / span) as f32).clamp(ZOOM_MIN, ZOOM_MAX);
        self.left_frame = -f64::from(LEFT_MARGIN_PX / self.px_per_frame);
        self.fitted_zoom = Some(self.px_per_frame);
        self.fitted_view = Some((width, self.px_per_frame, self.left_frame));
    }

    /// Whether the ruler is now `width` points wide while the view is still
    /// the one the last fit made (neither zoomed nor scrolled since): then
    /// the whole scene is fitted again (the window was resized).
    pub(super) fn refit_for(&self, width: f32) -> bool {
        self.fitted_view.is_some_and(|(w, zoom, left)| {
            (w - width).abs() > 0.5 && zoom == self.px_per_frame && left == self.left_frame
        })
    }

    /// Scrolls time so that scene frame `f` is in a view `width` points
    /// wide: unchanged when it already is; while playing it goes near the
    /// left edge (the view pages along), after a jump to the middle.
    pub(super) fn reveal_frame(&mut self, f: f64, width: f32, playing: bool) {
        let span = f64::from(width / self.px_per_frame);
        if f >= self.left_frame && f <= self.left_frame + span {
            return;
        }
        self.left_frame = if playing {
            f - span * 0.05
        } else {
            f - span * 0.5
        };
        self.clamp_left();
    }
}
