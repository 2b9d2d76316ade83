//! Geometry of the sheet: row and column sizes, the [`Layout`] of the last
//! frame (screen ⇄ frame and row conversions), the rows shown (groups,
//! filter, collapse), zoom and fit, the key under the pointer, and keeping
//! the playhead or a revealed key in view.

use egui::{Pos2, Rect};

use super::{PanelCtx, State, frame_in, key_ref, track_keys, track_of};
use crate::vmd::key_edit::{Group, TrackRef};
use crate::workspace::document::{Document, KeyRef};

/// Height of every row (group headers too), points.
pub const ROW_HEIGHT: f32 = 18.0;
/// Width of the track-name column, points.
pub const LABEL_WIDTH: f32 = 180.0;
/// Height of the frame ruler, points.
pub const RULER_HEIGHT: f32 = 34.0;
pub(super) const SCROLLBAR: f32 = 10.0;
/// Half the width of a key diamond, points (a diamond is ~9 points wide).
pub(super) const HALF: f32 = 4.5;
/// Keys closer than this (points) are merged into one bar at low zoom.
pub(super) const RUN_GAP: f32 = 3.0;
/// Width of one column when a dense row is drawn as runs, points (finer
/// than a diamond, coarse enough to halve the work of 1-point columns).
pub(super) const COLUMN: f32 = 2.0;
/// Keys at least this far apart on average (points) are drawn as diamonds.
pub(super) const SPARSE_GAP: f32 = 6.0;
/// ... and get a dark outline from this spacing on (points).
pub(super) const OUTLINE_GAP: f32 = 12.0;
/// Hit radius around a diamond, points.
pub(super) const HIT: f32 = 6.0;

/// One row of the sheet.
#[derive(Debug, Clone, PartialEq)]
pub enum Row {
    Header {
        group: Group,
        tracks: usize,
    },
    Track {
        track: TrackRef,
        name: String,
        keys: usize,
    },
}

/// Where things were drawn last frame (for hit tests and tests).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    pub ruler: Rect,
    pub labels: Rect,
    /// The key area (right of the labels, below the ruler).
    pub keys: Rect,
    pub px_per_frame: f32,
    pub left_frame: f64,
    pub scroll_y: f32,
}

impl Layout {
    /// Screen x of a (fractional) frame.
    pub fn x_of(&self, frame: f64) -> f32 {
        self.keys.left() + ((frame - self.left_frame) * f64::from(self.px_per_frame)) as f32
    }
    /// Frame (fractional) at screen x.
    pub fn frame_at(&self, x: f32) -> f64 {
        self.left_frame + f64::from(x - self.keys.left()) / f64::from(self.px_per_frame)
    }
    /// Screen y of the top of row `i`.
    pub fn row_top(&self, i: usize) -> f32 {
        self.keys.top() + i as f32 * ROW_HEIGHT - self.scroll_y
    }
    /// Row under screen y (may be past the end).
    pub fn row_at(&self, y: f32) -> Option<usize> {
        let r = (y - self.keys.top() + self.scroll_y) / ROW_HEIGHT;
        (r >= 0.0).then_some(r as usize)
    }
    /// Frames in view, `[lo, hi]` (fractional).
    pub fn visible_frames(&self) -> (f64, f64) {
        (
            self.frame_at(self.keys.left()),
            self.frame_at(self.keys.right()),
        )
    }
}

impl State {
    pub(super) fn build_rows(&mut self, doc: &Document) {
        let needle = self.filter.trim().to_lowercase();
        let matches = |s: &str| needle.is_empty() || s.to_lowercase().contains(&needle);
        self.rows.clear();
        for g in Group::ALL {
            let collapsed = self.collapsed.contains(&g);
            let mut tracks: Vec<Row> = Vec::new();
            match g {
                Group::Bones | Group::Morphs => {
                    let (list, names) = if g == Group::Bones {
                        (&doc.index.bones, &self.cache.bone_names)
                    } else {
                        (&doc.index.morphs, &self.cache.morph_names)
                    };
                    for (t, name) in list.iter().zip(names) {
                        if !matches(name) {
                            continue;
                        }
                        let track = if g == Group::Bones {
                            TrackRef::Bone(t.name_key.clone())
                        } else {
                            TrackRef::Morph(t.name_key.clone())
                        };
                        tracks.push(Row::Track {
                            track,
                            name: name.clone(),
                            keys: t.keys.len(),
                        });
                    }
                }
                _ => {
                    let (track, n) = match g {
                        Group::Camera => (TrackRef::Camera, doc.index.camera.len()),
                        Group::Light => (TrackRef::Light, doc.index.light.len()),
                        Group::Shadow => (TrackRef::Shadow, doc.index.shadow.len()),
                        _ => (TrackRef::Ik, doc.index.ik.len()),
                    };
                    if n > 0 && matches(g.label()) {
                        tracks.push(Row::Track {
                            track,
                            name: g.label().to_owned(),
                            keys: n,
                        });
                    }
                }
            }
            if tracks.is_empty() {
                continue;
            }
            self.rows.push(Row::Header {
                group: g,
                tracks: tracks.len(),
            });
            if !collapsed {
                self.rows.extend(tracks);
            }
        }
    }
}

/// Key under screen point `p`, nearest in time within the hit radius.
pub(super) fn hit_key(doc: &Document, rows: &[Row], l: &Layout, p: Pos2) -> Option<KeyRef> {
    if !l.keys.contains(p) {
        return None;
    }
    let Row::Track { track, .. } = rows.get(l.row_at(p.y)?)? else {
        return None;
    };
    let keys = track_keys(doc, track);
    let m = &doc.motion;
    let lo = l.frame_at(p.x - HIT);
    let hi = l.frame_at(p.x + HIT);
    let start = keys.partition_point(|&k| f64::from(frame_in(m, track, k)) < lo);
    let mut best: Option<(f32, u32)> = None;
    for &k in &keys[start..] {
        let f = f64::from(frame_in(m, track, k));
        if f > hi {
            break;
        }
        let d = (l.x_of(f) - p.x).abs();
        // Ties (same frame): the later key in storage order, the one in force.
        if best.is_none_or(|(bd, _)| d <= bd) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| key_ref(track, k))
}

/// Scrolls a key the inspector asked for into view.
/// Shows the row of a key the inspector asked for (`DocView::reveal`) or
/// of a track picked elsewhere (a bone clicked in the viewport): opens its
/// group, clears a filter that hides it, picks the row and scrolls to it
/// (as a timeline section, through [`State::reveal_row`]).
pub(super) fn reveal(cx: &mut PanelCtx, state: &mut State) {
    let key = cx.view.reveal.take();
    let pending = state.pending_track.take();
    let Some(t) = key.and_then(|k| track_of(&cx.doc.motion, k)).or(pending) else {
        return;
    };
    state.collapsed.remove(&t.group());
    state.build_rows(cx.doc);
    if !state
        .rows
        .iter()
        .any(|r| matches!(r, Row::Track { track, .. } if *track == t))
    {
        state.filter.clear();
        state.build_rows(cx.doc);
    }
    if let Some(row) = state
        .rows
        .iter()
        .position(|r| matches!(r, Row::Track { track, .. } if *track == t))
    {
        state.reveal_row = Some(row);
        let h = state.layout.map_or(200.0, |l| l.keys.height());
        let top = row as f32 * ROW_HEIGHT;
        if top < state.scroll_y || top + ROW_HEIGHT > state.scroll_y + h {
            state.scroll_y = (top - h / 3.0).max(0.0);
        }
    }
    if let (Some(f), Some(l)) = (key.and_then(|k| cx.doc.motion.key_frame(k)), state.layout) {
        let (lo, hi) = l.visible_frames();
        let f = f64::from(f);
        if f < lo || f > hi {
            state.left_frame = f - (hi - lo) * 0.2;
        }
    }
    state.selected_tracks.clear();
    state.selected_tracks.insert(t);
}
