//! Dope sheet: one row per track, a diamond per key, a frame ruler with
//! seconds, zoom / pan / scrub, selection, and key moves, deletes, copies,
//! pastes and inserts.
//!
//! Units: time is in MMD frames (30 fps; seconds = frame / 30); zoom is
//! `px_per_frame` (screen points per frame); vertical scroll is in points.
//!
//! Only what is visible is drawn: the rows in view, and in each row the keys
//! whose frame is inside the visible range, found by binary search on the
//! track's sorted key list in [`crate::vmd::TrackIndex`]. When keys are
//! denser than a few points apart, a row is drawn as runs (one bar per run of
//! close keys, found by jumping column to column with a binary search), so a
//! frame costs about the same for a thousand keys as for a million.

//!
//! The sheet is split by job: [`layout`] (geometry, rows, hit tests),
//! [`cache`] (names, cuts and frame lists rebuilt per document revision,
//! selection bits), [`draw`] (ruler, key rows), [`labels`] (the track-name
//! column), [`input`] (clicks, drags, box selection, scrollbars) and
//! [`edits`] (the key commands). What a command computes on the motion —
//! moving, deleting, copying, pasting, inserting keys — is the GUI-free
//! [`crate::vmd::key_edit`]; this panel only turns its results into
//! [`crate::workspace::document::EditRequest`]s.

use std::collections::BTreeSet;

use egui::{Pos2, Rect, Sense, Vec2};

use super::PanelCtx;
use crate::vmd::key_edit;
use crate::workspace::document::{DocView, Document, KeyRef};

mod cache;
mod draw;
mod edits;
mod input;
mod labels;
mod layout;
mod menu;

use cache::{Cache, FrameCache, SelBits};
use draw::{keys_ui, ruler_ui};
pub use edits::command;
use input::Drag;
pub use key_edit::{Clipboard, Group, TrackRef, frame_in, key_ref, track_label, track_of};
use labels::labels_ui;
pub use layout::{LABEL_WIDTH, Layout, ROW_HEIGHT, RULER_HEIGHT, Row};
use layout::{SCROLLBAR, reveal};
pub use menu::KeyMenu;

/// What a section of the scene timeline hands up instead of doing it
/// itself, so that selection and moves span every section (the timeline
/// carries them out; see `timeline::section_events`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SectionEvent {
    /// The selection was replaced by a plain click: other sections drop theirs.
    SelectionReplaced,
    /// A rubber band was released (screen rectangle): every section selects
    /// what it covers (after dropping its selection unless `additive`).
    Box { rect: Rect, additive: bool },
    /// A drag of the selected keys began.
    MoveStart,
    /// The drag's offset in frames (snapped to beats, not yet held at 0).
    MoveTo { delta: i64 },
    /// The drag ended.
    MoveEnd,
    /// Something was chosen in a key's context menu (`key`: the key
    /// right-clicked, none on empty space).
    Menu {
        key: Option<KeyRef>,
        action: KeyMenu,
    },
}

/// "1 key", "2 keys": a count of keys for messages and undo labels.
pub fn n_keys(n: usize) -> String {
    if n == 1 {
        "1 key".to_owned()
    } else {
        format!("{n} keys")
    }
}

/// The sorted key list (indices into the section) of a track.
pub fn track_keys<'a>(doc: &'a Document, t: &TrackRef) -> &'a [u32] {
    key_edit::track_keys(&doc.index, t)
}

/// Every track of a document.
pub fn all_tracks(doc: &Document) -> Vec<TrackRef> {
    key_edit::all_tracks(&doc.index)
}

/// Persistent UI state of the dope sheet.
#[derive(Debug)]
pub struct State {
    /// Track-name filter (case-insensitive substring).
    pub filter: String,
    pub collapsed: BTreeSet<Group>,
    /// Zoom: points per frame.
    pub px_per_frame: f32,
    /// Frame at the left edge of the key area.
    pub left_frame: f64,
    /// Vertical scroll, points.
    pub scroll_y: f32,
    /// Fit all on the next frame (set by [`crate::app::command::UiCommand::FitAll`] and on open).
    pub fit_pending: bool,
    /// Tracks picked by clicking their labels (what Insert key keys).
    pub selected_tracks: BTreeSet<TrackRef>,
    pub clipboard: Clipboard,
    /// Frames the document is shifted by on the timeline shown (an actor's
    /// offset): its frame `f` is drawn at scene frame `f + offset`, and the
    /// playhead (a scene frame) at the document's `frame − offset`.
    pub offset: i32,
    shown_doc: Option<u64>,
    drag: Drag,
    cache: Cache,
    rows: Vec<Row>,
    layout: Option<Layout>,
    frames: FrameCache,
    sel_bits: SelBits,
    /// Selection replacements, rubber bands and moves for the timeline
    /// (see [`Self::take_events`]).
    events: Vec<SectionEvent>,
    /// A track to show on the next frame (see [`State::reveal_track`]).
    pending_track: Option<TrackRef>,
    /// The row a reveal asked to scroll to (the timeline's scroll area
    /// scrolls to it when this is one of its sections).
    reveal_row: Option<usize>,
    /// The key right-clicked for the context menu.
    menu_key: Option<KeyRef>,
    /// Whether the timeline has keys to paste (set by it each frame, for
    /// the context menu).
    pub can_paste: bool,
}

impl Default for State {
    fn default() -> Self {
        State {
            filter: String::new(),
            collapsed: BTreeSet::new(),
            px_per_frame: 6.0,
            left_frame: -2.0,
            scroll_y: 0.0,
            fit_pending: true,
            selected_tracks: BTreeSet::new(),
            clipboard: Clipboard::default(),
            offset: 0,
            shown_doc: None,
            drag: Drag::None,
            cache: Cache::default(),
            rows: Vec::new(),
            layout: None,
            frames: FrameCache::default(),
            sel_bits: SelBits::default(),
            events: Vec::new(),
            pending_track: None,
            reveal_row: None,
            menu_key: None,
            can_paste: false,
        }
    }
}

impl State {
    /// The layout of the last frame drawn.
    pub fn layout(&self) -> Option<Layout> {
        self.layout
    }

    /// The rows of the last frame drawn.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// Screen position of a key's diamond as drawn last frame, if it is in view.
    pub fn key_pos(&self, doc: &Document, key: KeyRef) -> Option<Pos2> {
        let l = self.layout?;
        let t = track_of(&doc.motion, key)?;
        let row = self
            .rows
            .iter()
            .position(|r| matches!(r, Row::Track { track, .. } if *track == t))?;
        let f = doc.motion.key_frame(key)?;
        let p = Pos2::new(l.x_of(f64::from(f)), l.row_top(row) + ROW_HEIGHT / 2.0);
        l.keys.contains(p).then_some(p)
    }

    /// Picks track `t`'s row on the next frame and scrolls it into view
    /// (a bone clicked in the viewport).
    pub fn reveal_track(&mut self, t: TrackRef) {
        self.pending_track = Some(t);
    }

    /// What this section handed up since the last call.
    pub fn take_events(&mut self) -> Vec<SectionEvent> {
        std::mem::take(&mut self.events)
    }

    /// Where a rubber band being dragged began (screen point).
    pub fn rubber_band(&self) -> Option<Pos2> {
        match self.drag {
            Drag::Box { from, .. } => Some(from),
            _ => None,
        }
    }

    /// Records an event for the timeline (only as a timeline section).
    fn emit(&mut self, e: SectionEvent) {
        self.events.push(e);
    }
}

/// Draws one document's rows as a section of the scene timeline: no
/// toolbar, ruler or scrollbars of its own (the timeline has them), as tall
/// as its rows, inside the timeline's vertical scroll area. Zoom and the
/// left frame come from `state` (set by the timeline, shifted by
/// `state.offset`). Returns whether the pointer was pressed on it.
pub fn section_ui(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State, id: egui::Id) -> bool {
    let doc = cx.doc;
    state.refresh_cache(doc);
    if state.shown_doc != Some(doc.id) {
        state.shown_doc = Some(doc.id);
        state.selected_tracks.clear();
        state.drag = Drag::None;
    }
    reveal(cx, state);
    state.build_rows(cx.doc);
    let width = ui.available_width();
    let height = (state.rows.len() as f32 * ROW_HEIGHT).max(ROW_HEIGHT);
    let (rect, _) = ui.allocate_exact_size(Vec2::new(width, height), Sense::hover());
    if let Some(row) = state.reveal_row.take() {
        let top = rect.top() + row as f32 * ROW_HEIGHT;
        let row_rect =
            Rect::from_min_size(Pos2::new(rect.left(), top), Vec2::new(width, ROW_HEIGHT));
        // Only as far as needed: a row already in view stays put (a click
        // on a key must not move the rows under the pointer).
        ui.scroll_to_rect(row_rect, None);
    }
    // Only the part inside the scroll area's view is laid out as keys:
    // `scroll_y` is how far the section's top is above the view.
    let vis = rect.intersect(ui.clip_rect());
    state.scroll_y = (vis.top() - rect.top()).max(0.0);
    let labels = Rect::from_min_max(
        Pos2::new(rect.left(), vis.top()),
        Pos2::new(rect.left() + LABEL_WIDTH, vis.bottom()),
    );
    let keys_rect = Rect::from_min_max(
        Pos2::new(labels.right(), vis.top()),
        Pos2::new(rect.right() - SCROLLBAR, vis.bottom()),
    );
    if vis.height() <= 0.0 || keys_rect.width() < 20.0 {
        state.layout = None;
        return false;
    }
    let mut l = Layout {
        ruler: Rect::from_min_max(
            keys_rect.left_top(),
            Pos2::new(keys_rect.right(), keys_rect.top()),
        ),
        labels,
        keys: keys_rect,
        px_per_frame: state.px_per_frame,
        left_frame: state.left_frame,
        scroll_y: state.scroll_y,
    };
    labels_ui(ui, cx, state, &l, id);
    keys_ui(ui, cx, state, &mut l, id);
    state.layout = Some(Layout {
        px_per_frame: state.px_per_frame,
        left_frame: state.left_frame,
        ..l
    });
    ui.rect_contains_pointer(vis) && ui.input(|i| i.pointer.any_pressed())
}

/// Selects the keys the screen rectangle `rect` covers in this section as
/// it was drawn last frame (after dropping the selection unless
/// `additive`; nothing is added when the section was not drawn).
pub fn box_select(doc: &Document, view: &mut DocView, state: &State, rect: Rect, additive: bool) {
    match state.layout {
        Some(l) => input::box_select(doc, view, state, &l, rect, additive),
        None if !additive => view.selection.clear(),
        None => {}
    }
}

/// Camera cuts of the document last shown (earlier frame of each cut).
pub fn cuts(state: &State) -> &[u32] {
    &state.cache.cuts
}

/// Refreshes the cached names and cuts for `doc`.
pub fn refresh(state: &mut State, doc: &Document) {
    state.refresh_cache(doc);
}

/// Draws the frame ruler (ticks, seconds, the camera's `cuts`,
/// playhead, loop band) in `l.ruler` and scrubs the playhead.
pub fn ruler(
    ui: &mut egui::Ui,
    shared: &mut super::Shared,
    cuts: &[u32],
    l: &Layout,
    id: egui::Id,
) {
    ruler_ui(ui, shared, cuts, l, id);
}
