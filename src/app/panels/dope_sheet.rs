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

use std::collections::{BTreeSet, HashMap, HashSet};

use egui::{Align2, Color32, FontId, Mesh, PointerButton, Pos2, Rect, Sense, Shape, Stroke, Vec2};

use super::PanelCtx;
use crate::app::command::Command;
use crate::app::document::{Document, Edit, EditRequest, KeyChanges, KeyRef};
use crate::vmd::records::FrameKey;
use crate::vmd::{self, BoneKey, CameraKey, IkKey, LightKey, MorphKey, Motion, ShadowKey};

/// Height of every row (group headers too), points.
pub const ROW_HEIGHT: f32 = 18.0;
/// Width of the track-name column, points.
pub const LABEL_WIDTH: f32 = 180.0;
/// Height of the frame ruler, points.
pub const RULER_HEIGHT: f32 = 34.0;
const SCROLLBAR: f32 = 10.0;
/// Half the width of a key diamond, points (a diamond is ~9 points wide).
const HALF: f32 = 4.5;
/// Keys closer than this (points) are merged into one bar at low zoom.
const RUN_GAP: f32 = 3.0;
/// Width of one column when a dense row is drawn as runs, points (finer
/// than a diamond, coarse enough to halve the work of 1-point columns).
const COLUMN: f32 = 2.0;
/// Keys at least this far apart on average (points) are drawn as diamonds.
const SPARSE_GAP: f32 = 6.0;
/// ... and get a dark outline from this spacing on (points).
const OUTLINE_GAP: f32 = 12.0;
/// Hit radius around a diamond, points.
const HIT: f32 = 6.0;
const ZOOM_MIN: f32 = 0.002;
const ZOOM_MAX: f32 = 60.0;

/// Track groups, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    Bones,
    Morphs,
    Camera,
    Light,
    Shadow,
    Ik,
}

impl Group {
    pub const ALL: [Group; 6] = [
        Group::Bones,
        Group::Morphs,
        Group::Camera,
        Group::Light,
        Group::Shadow,
        Group::Ik,
    ];
    pub fn label(self) -> &'static str {
        match self {
            Group::Bones => "Bones",
            Group::Morphs => "Morphs",
            Group::Camera => "Camera",
            Group::Light => "Light",
            Group::Shadow => "Self-shadow",
            Group::Ik => "IK / show",
        }
    }
    fn color(self) -> Color32 {
        match self {
            Group::Bones => Color32::from_rgb(120, 170, 230),
            Group::Morphs => Color32::from_rgb(230, 160, 110),
            Group::Camera => Color32::from_rgb(140, 210, 130),
            Group::Light => Color32::from_rgb(230, 210, 110),
            Group::Shadow => Color32::from_rgb(170, 150, 220),
            Group::Ik => Color32::from_rgb(200, 130, 190),
        }
    }
}

/// A track: what one row shows. Bones and morphs are named by their raw
/// name bytes before the NUL (the track identity in the core).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TrackRef {
    Bone(Vec<u8>),
    Morph(Vec<u8>),
    Camera,
    Light,
    Shadow,
    Ik,
}

impl TrackRef {
    pub fn group(&self) -> Group {
        match self {
            TrackRef::Bone(_) => Group::Bones,
            TrackRef::Morph(_) => Group::Morphs,
            TrackRef::Camera => Group::Camera,
            TrackRef::Light => Group::Light,
            TrackRef::Shadow => Group::Shadow,
            TrackRef::Ik => Group::Ik,
        }
    }
}

/// The sorted key list (indices into the section) of a track.
pub fn track_keys<'a>(doc: &'a Document, t: &TrackRef) -> &'a [u32] {
    let idx = &doc.index;
    match t {
        TrackRef::Bone(n) => idx.bone(n).map_or(&[], |t| t.keys.as_slice()),
        TrackRef::Morph(n) => idx.morph(n).map_or(&[], |t| t.keys.as_slice()),
        TrackRef::Camera => &idx.camera,
        TrackRef::Light => &idx.light,
        TrackRef::Shadow => &idx.shadow,
        TrackRef::Ik => &idx.ik,
    }
}

/// The track a key belongs to.
pub fn track_of(m: &Motion, k: KeyRef) -> Option<TrackRef> {
    Some(match k {
        KeyRef::Bone(i) => TrackRef::Bone(m.bones.get(i as usize)?.name_key().to_vec()),
        KeyRef::Morph(i) => TrackRef::Morph(m.morphs.get(i as usize)?.name_key().to_vec()),
        KeyRef::Camera(_) => TrackRef::Camera,
        KeyRef::Light(_) => TrackRef::Light,
        KeyRef::Shadow(_) => TrackRef::Shadow,
        KeyRef::Ik(_) => TrackRef::Ik,
    })
}

/// Makes the [`KeyRef`] of index `i` in the section of track `t`.
fn key_ref(t: &TrackRef, i: u32) -> KeyRef {
    match t {
        TrackRef::Bone(_) => KeyRef::Bone(i),
        TrackRef::Morph(_) => KeyRef::Morph(i),
        TrackRef::Camera => KeyRef::Camera(i),
        TrackRef::Light => KeyRef::Light(i),
        TrackRef::Shadow => KeyRef::Shadow(i),
        TrackRef::Ik => KeyRef::Ik(i),
    }
}

/// Frame of index `i` in the section of track `t` (0 for a bad index).
fn frame_in(m: &Motion, t: &TrackRef, i: u32) -> u32 {
    m.key_frame(key_ref(t, i)).unwrap_or(0)
}

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

/// Copied keys (records as they were, with their track names).
#[derive(Debug, Clone, Default)]
pub struct Clipboard {
    pub bones: Vec<BoneKey>,
    pub morphs: Vec<MorphKey>,
    pub cameras: Vec<CameraKey>,
    pub lights: Vec<LightKey>,
    pub shadows: Vec<ShadowKey>,
    pub iks: Vec<IkKey>,
}

impl Clipboard {
    pub fn len(&self) -> usize {
        self.bones.len()
            + self.morphs.len()
            + self.cameras.len()
            + self.lights.len()
            + self.shadows.len()
            + self.iks.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn earliest(&self) -> Option<u32> {
        self.bones
            .iter()
            .map(BoneKey::frame)
            .chain(self.morphs.iter().map(MorphKey::frame))
            .chain(self.cameras.iter().map(CameraKey::frame))
            .chain(self.lights.iter().map(LightKey::frame))
            .chain(self.shadows.iter().map(ShadowKey::frame))
            .chain(self.iks.iter().map(IkKey::frame))
            .min()
    }
}

#[derive(Debug, Clone, Default)]
enum Drag {
    #[default]
    None,
    /// Moving the selected keys in time.
    Move {
        /// Each moved key and its frame when the drag began.
        keys: Vec<(KeyRef, u32)>,
        moved: HashSet<KeyRef>,
        origin_x: f32,
        /// Frame offset currently applied.
        applied: i64,
        /// Offset last refused (so the message is given once).
        refused: Option<i64>,
        merge_id: u64,
        sent: bool,
    },
    /// Rubber-band selection from this point.
    Box {
        from: Pos2,
        additive: bool,
    },
    /// Panning with the middle or right button.
    Pan,
    /// Dragging the horizontal / vertical scrollbar thumb.
    HBar,
    VBar,
}

/// Names and cuts of the document shown, rebuilt when it changes.
#[derive(Debug, Clone, Default)]
struct Cache {
    doc_id: u64,
    revision: u64,
    bone_names: Vec<String>,
    morph_names: Vec<String>,
    /// Earlier frame of every cut (camera keys exactly one frame apart).
    cuts: Vec<u32>,
    last_frame: u32,
}

/// Per-track frame lists (sorted like the track's keys) for the camera,
/// light, self-shadow and IK rows (bone and morph tracks carry theirs in
/// [`crate::vmd::Track::frames`]), filled lazily for the rows drawn and
/// dropped whenever the document changes. Reading frames
/// from a contiguous `u32` list instead of from 111-byte records spread over
/// a 100 MB motion is what keeps a frame of a 1 M-key file cheap.
#[derive(Debug, Default)]
struct FrameCache {
    doc_id: u64,
    revision: u64,
    tracks: HashMap<TrackRef, Vec<u32>>,
}

impl FrameCache {
    fn get(&mut self, doc: &Document, t: &TrackRef) -> &[u32] {
        if self.doc_id != doc.id || self.revision != doc.revision {
            self.doc_id = doc.id;
            self.revision = doc.revision;
            self.tracks.clear();
        }
        self.tracks.entry(t.clone()).or_insert_with(|| {
            let m = &doc.motion;
            track_keys(doc, t)
                .iter()
                .map(|&k| frame_in(m, t, k))
                .collect()
        })
    }
}

/// Selections larger than this are tested through [`SelBits`].
const SEL_BITS_MIN: usize = 4096;

/// (document id, revision, selection size, first, last).
type SelFingerprint = (u64, u64, usize, Option<KeyRef>, Option<KeyRef>);

/// The selection as one bit per key per section, for large selections.
/// Rebuilt when the document, its revision, or the selection's size or
/// ends change (a cheap fingerprint: a large selection that changes without
/// changing any of these would show stale highlights until the next change).
#[derive(Debug, Default)]
struct SelBits {
    fingerprint: Option<SelFingerprint>,
    bits: [Vec<u64>; 6],
}

fn section_of(k: KeyRef) -> (usize, u32) {
    match k {
        KeyRef::Bone(i) => (0, i),
        KeyRef::Morph(i) => (1, i),
        KeyRef::Camera(i) => (2, i),
        KeyRef::Light(i) => (3, i),
        KeyRef::Shadow(i) => (4, i),
        KeyRef::Ik(i) => (5, i),
    }
}

impl SelBits {
    fn refresh(&mut self, doc: &Document, sel: &BTreeSet<KeyRef>) {
        if sel.len() <= SEL_BITS_MIN {
            return;
        }
        let fp = (
            doc.id,
            doc.revision,
            sel.len(),
            sel.first().copied(),
            sel.last().copied(),
        );
        if self.fingerprint == Some(fp) {
            return;
        }
        self.fingerprint = Some(fp);
        let m = &doc.motion;
        let lens = [
            m.bones.len(),
            m.morphs.len(),
            m.cameras.len(),
            m.lights.len(),
            m.shadows.len(),
            m.iks.len(),
        ];
        for (b, n) in self.bits.iter_mut().zip(lens) {
            b.clear();
            b.resize(n.div_ceil(64), 0);
        }
        for &k in sel {
            let (s, i) = section_of(k);
            if let Some(w) = self.bits[s].get_mut(i as usize / 64) {
                *w |= 1 << (i % 64);
            }
        }
    }
    fn contains(&self, k: KeyRef) -> bool {
        let (s, i) = section_of(k);
        self.bits[s]
            .get(i as usize / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
}

/// How the drawing asks "is this key selected?".
enum SelTest<'a> {
    Set(&'a BTreeSet<KeyRef>),
    Bits(&'a SelBits),
}

impl SelTest<'_> {
    fn is_empty(&self) -> bool {
        match self {
            SelTest::Set(s) => s.is_empty(),
            SelTest::Bits(_) => false,
        }
    }
    fn contains(&self, k: KeyRef) -> bool {
        match self {
            SelTest::Set(s) => s.contains(&k),
            SelTest::Bits(b) => b.contains(k),
        }
    }
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
    /// Fit all on the next frame (set by [`Command::FitAll`] and on open).
    pub fit_pending: bool,
    /// Tracks picked by clicking their labels (what Insert key keys).
    pub selected_tracks: BTreeSet<TrackRef>,
    pub clipboard: Clipboard,
    /// Frames the document is shifted by on the timeline shown (an actor's
    /// offset): its frame `f` is drawn at scene frame `f + offset`, and the
    /// playhead (a scene frame) at the document's `frame − offset`.
    pub offset: i32,
    shown_doc: Option<u64>,
    views: HashMap<u64, (f32, f64, f32)>,
    drag: Drag,
    next_merge: u64,
    cache: Cache,
    rows: Vec<Row>,
    layout: Option<Layout>,
    frames: FrameCache,
    sel_bits: SelBits,
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
            views: HashMap::new(),
            drag: Drag::None,
            next_merge: 0,
            cache: Cache::default(),
            rows: Vec::new(),
            layout: None,
            frames: FrameCache::default(),
            sel_bits: SelBits::default(),
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

    fn merge_id(&mut self) -> u64 {
        self.next_merge += 1;
        // Distinct from other panels' ids: a tag in the high bits.
        0xD0_5E00_0000_0000 | self.next_merge
    }

    fn refresh_cache(&mut self, doc: &Document) {
        if self.cache.doc_id == doc.id && self.cache.revision == doc.revision {
            return;
        }
        self.cache = Cache {
            doc_id: doc.id,
            revision: doc.revision,
            bone_names: doc.index.bones.iter().map(|t| t.name().text).collect(),
            morph_names: doc.index.morphs.iter().map(|t| t.name().text).collect(),
            cuts: vmd::summary::cut_frames(&doc.motion, &doc.index),
            last_frame: doc.motion.last_frame().unwrap_or(0),
        };
    }

    fn build_rows(&mut self, doc: &Document) {
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

    fn fit(&mut self, width: f32) {
        let last = f64::from(self.cache.last_frame.max(10));
        let margin = (last * 0.02).max(2.0);
        let span = last + 2.0 * margin;
        self.px_per_frame = (f64::from(width.max(50.0)) / span) as f32;
        self.px_per_frame = self.px_per_frame.clamp(ZOOM_MIN, ZOOM_MAX);
        self.left_frame = -margin;
    }

    /// Zooms by `factor` keeping the frame under screen x fixed.
    fn zoom_at(&mut self, l: &Layout, x: f32, factor: f32) {
        let anchor = l.frame_at(x);
        self.px_per_frame = (self.px_per_frame * factor).clamp(ZOOM_MIN, ZOOM_MAX);
        self.left_frame = anchor - f64::from(x - l.keys.left()) / f64::from(self.px_per_frame);
    }

    fn clamp_view(&mut self, keys_h: f32) {
        let content = self.rows.len() as f32 * ROW_HEIGHT;
        self.scroll_y = self.scroll_y.clamp(0.0, (content - keys_h).max(0.0));
        let last = f64::from(self.cache.last_frame) + 100.0;
        self.left_frame = self.left_frame.clamp(-100.0, last.max(0.0));
    }
}

/// Key under screen point `p`, nearest in time within the hit radius.
fn hit_key(doc: &Document, rows: &[Row], l: &Layout, p: Pos2) -> Option<KeyRef> {
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

/// Tick spacing in frames so labels are at least `min_px` apart.
fn tick_step(px_per_frame: f32, min_px: f32) -> u32 {
    const STEPS: [u32; 16] = [
        1, 2, 5, 10, 15, 30, 60, 150, 300, 600, 1_500, 3_000, 6_000, 15_000, 30_000, 60_000,
    ];
    STEPS
        .iter()
        .copied()
        .find(|&s| s as f32 * px_per_frame >= min_px)
        .unwrap_or(300_000)
}

/// Whole seconds as `12s` or `3m05s`.
fn seconds_label(s: u64) -> String {
    if s < 60 {
        format!("{s}s")
    } else {
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

/// Adds a diamond centred at `c` to `mesh`.
fn diamond(mesh: &mut Mesh, c: Pos2, half: f32, color: Color32) {
    let i = mesh.vertices.len() as u32;
    mesh.colored_vertex(Pos2::new(c.x, c.y - half), color);
    mesh.colored_vertex(Pos2::new(c.x + half, c.y), color);
    mesh.colored_vertex(Pos2::new(c.x, c.y + half), color);
    mesh.colored_vertex(Pos2::new(c.x - half, c.y), color);
    mesh.add_triangle(i, i + 1, i + 2);
    mesh.add_triangle(i, i + 2, i + 3);
}

/// Colours of the sheet.
struct Palette {
    selected: Color32,
    outline: Color32,
    cut: Color32,
    playhead: Color32,
    row_alt: Color32,
    row_selected: Color32,
    header: Color32,
    text: Color32,
    weak: Color32,
    grid: Color32,
}

impl Palette {
    fn of(v: &egui::Visuals) -> Palette {
        Palette {
            selected: Color32::from_rgb(255, 196, 40),
            outline: if v.dark_mode {
                Color32::from_gray(20)
            } else {
                Color32::from_gray(60)
            },
            cut: Color32::from_rgb(230, 50, 50),
            playhead: Color32::from_rgb(240, 80, 60),
            row_alt: v.faint_bg_color,
            row_selected: v.selection.bg_fill.gamma_multiply(0.35),
            header: v.widgets.inactive.bg_fill,
            text: v.text_color(),
            weak: v.weak_text_color(),
            grid: v.widgets.noninteractive.bg_stroke.color.gamma_multiply(0.5),
        }
    }
}

/// First index in `i..end` whose frame is `>= target` (`frames` sorted):
/// a galloping search from `i`, so stepping through a row column by column
/// costs O(log keys-per-column) per column.
fn next_at_least(frames: &[u32], i: usize, end: usize, target: u32) -> usize {
    let mut lo = i;
    let mut hi = i + 1;
    let mut step = 1;
    while hi < end && frames[hi] < target {
        lo = hi;
        hi = (hi + step).min(end);
        step *= 2;
    }
    let hi = hi.min(end);
    lo + frames[lo..hi].partition_point(|&f| f < target)
}

/// Draws the keys of one row into `mesh`. `frames[i]` is the frame of
/// `keys[i]` (both sorted by frame).
#[allow(clippy::too_many_arguments)]
fn draw_row_keys(
    mesh: &mut Mesh,
    track: &TrackRef,
    keys: &[u32],
    frames: &[u32],
    l: &Layout,
    y: f32,
    base: Color32,
    pal: &Palette,
    selection: &SelTest,
) {
    let (lo, hi) = l.visible_frames();
    let margin = f64::from(HALF / l.px_per_frame);
    let mut i = frames.partition_point(|&f| f64::from(f) < lo - margin);
    let end = frames.partition_point(|&f| f64::from(f) <= hi + margin);
    if i >= end {
        return;
    }
    let frame = |i: usize| f64::from(frames[i]);
    let any_sel = !selection.is_empty();
    let is_sel = |i: usize| any_sel && selection.contains(key_ref(track, keys[i]));
    // Average spacing of the keys in view decides the drawing: diamonds when
    // they are at least SPARSE_GAP points apart (so at most width / 6 per
    // row), with an outline from OUTLINE_GAP on; runs below that.
    let count = (end - i) as f32;
    let spacing = if end - i > 1 {
        ((frame(end - 1) - frame(i)) as f32 * l.px_per_frame) / (count - 1.0)
    } else {
        f32::INFINITY
    };
    if spacing >= SPARSE_GAP {
        let outline = spacing >= OUTLINE_GAP;
        // One diamond per key (keys on one frame share a diamond: the last wins).
        let mut last_x = f32::NEG_INFINITY;
        let mut last_sel = false;
        while i < end {
            let x = l.x_of(frame(i));
            let sel = is_sel(i);
            if x == last_x && (last_sel || !sel) {
                i += 1;
                continue;
            }
            last_x = x;
            last_sel = sel;
            let c = Pos2::new(x, y);
            if outline {
                diamond(mesh, c, HALF + 1.0, pal.outline);
            }
            diamond(mesh, c, HALF, if sel { pal.selected } else { base });
            i += 1;
        }
        return;
    }
    // Dense: runs of keys closer than RUN_GAP points become bars. Jump one
    // 2-point column at a time with a galloping search so the cost follows the
    // width, not the key count.
    let mut run: Option<(f32, f32, bool)> = None;
    let flush = |mesh: &mut Mesh, run: (f32, f32, bool)| {
        let (x0, x1, sel) = run;
        let color = if sel { pal.selected } else { base };
        if x1 - x0 < 1.0 {
            diamond(mesh, Pos2::new(x0, y), HALF + 1.0, pal.outline);
            diamond(mesh, Pos2::new(x0, y), HALF, color);
        } else {
            let r = Rect::from_min_max(Pos2::new(x0 - 2.0, y - 3.5), Pos2::new(x1 + 2.0, y + 3.5));
            mesh.add_colored_rect(r.expand(1.0), pal.outline);
            mesh.add_colored_rect(r, color);
        }
    };
    while i < end {
        let x = (l.x_of(frame(i)) / COLUMN).floor() * COLUMN;
        // First key in the next column.
        let next_col = l
            .frame_at(x + COLUMN)
            .ceil()
            .clamp(0.0, f64::from(u32::MAX)) as u32;
        let j = next_at_least(frames, i, end, next_col).max(i + 1);
        let sel = any_sel && (i..j).any(is_sel);
        run = match run {
            Some((x0, x1, s)) if s == sel && x - x1 <= RUN_GAP => Some((x0, x, s)),
            Some(r) => {
                flush(mesh, r);
                Some((x, x, sel))
            }
            None => Some((x, x, sel)),
        };
        i = j;
    }
    if let Some(r) = run {
        flush(mesh, r);
    }
}

/// Selects `k` following the modifiers: plain = only this, Shift = add,
/// Ctrl/Cmd = toggle.
fn click_select(cx: &mut PanelCtx, state: &mut State, k: KeyRef, mods: egui::Modifiers) {
    let sel = &mut cx.view.selection;
    let track = track_of(&cx.doc.motion, k);
    if mods.command {
        if !sel.remove(&k) {
            sel.insert(k);
        }
    } else if mods.shift {
        sel.insert(k);
    } else {
        sel.clear();
        sel.insert(k);
        state.selected_tracks.clear();
    }
    if let Some(t) = track {
        state.selected_tracks.insert(t);
    }
    cx.view.active = Some(k);
    // As in MMD: the playhead goes to the selected key, so the preview,
    // the value graph and the key panel show the same moment.
    if cx.view.selection.contains(&k)
        && let Some(f) = cx.doc.motion.key_frame(k)
    {
        cx.shared.transport.frame = f64::from(f) + f64::from(state.offset);
        cx.shared.transport.playing = false;
    }
}

/// Checks that moving `keys` (key, original frame) by `delta` frames puts no
/// two keys of one track on the same frame. Returns the first clash.
fn move_clash(
    doc: &Document,
    keys: &[(KeyRef, u32)],
    moved: &HashSet<KeyRef>,
    delta: i64,
) -> Option<(String, u32)> {
    let m = &doc.motion;
    let mut landing: HashMap<(TrackRef, u32), u32> = HashMap::new();
    for &(k, f0) in keys {
        let f = (i64::from(f0) + delta) as u32;
        let Some(t) = track_of(m, k) else { continue };
        // Against keys that stay.
        let list = track_keys(doc, &t);
        let start = list.partition_point(|&i| frame_in(m, &t, i) < f);
        for &i in &list[start..] {
            if frame_in(m, &t, i) != f {
                break;
            }
            if !moved.contains(&key_ref(&t, i)) {
                return Some((track_label(&t), f));
            }
        }
        // Against other moved keys (only keys that did not share a frame before).
        if let Some(&prev) = landing.get(&(t.clone(), f))
            && prev != f0
        {
            return Some((track_label(&t), f));
        }
        landing.insert((t, f), f0);
    }
    None
}

/// Display name of a track.
pub fn track_label(t: &TrackRef) -> String {
    match t {
        TrackRef::Bone(n) | TrackRef::Morph(n) => vmd::name::decode_name(n).text,
        other => other.group().label().to_owned(),
    }
}

/// Clones record `i` of `keys` with frame `f` into `out`.
fn push_moved<K: FrameKey + Clone>(keys: &[K], i: u32, f: u32, out: &mut Vec<(u32, K)>) {
    if let Some(r) = keys.get(i as usize) {
        let mut r = r.clone();
        r.set_frame(f);
        out.push((i, r));
    }
}

/// The edit that puts each key at `original + delta`.
fn moved_keys(m: &Motion, keys: &[(KeyRef, u32)], delta: i64) -> KeyChanges {
    let mut c = KeyChanges::default();
    for &(k, f0) in keys {
        let f = (i64::from(f0) + delta).max(0) as u32;
        match k {
            KeyRef::Bone(i) => push_moved(&m.bones, i, f, &mut c.bones),
            KeyRef::Morph(i) => push_moved(&m.morphs, i, f, &mut c.morphs),
            KeyRef::Camera(i) => push_moved(&m.cameras, i, f, &mut c.cameras),
            KeyRef::Light(i) => push_moved(&m.lights, i, f, &mut c.lights),
            KeyRef::Shadow(i) => push_moved(&m.shadows, i, f, &mut c.shadows),
            KeyRef::Ik(i) => push_moved(&m.iks, i, f, &mut c.iks),
        }
    }
    c
}

/// Draws the dope sheet and handles its input.
pub fn ui(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State) {
    let doc = cx.doc;
    state.refresh_cache(doc);
    if state.shown_doc != Some(doc.id) {
        if let Some(old) = state.shown_doc {
            state
                .views
                .insert(old, (state.px_per_frame, state.left_frame, state.scroll_y));
        }
        match state.views.get(&doc.id) {
            Some(&(z, l, s)) => {
                state.px_per_frame = z;
                state.left_frame = l;
                state.scroll_y = s;
            }
            None => state.fit_pending = true,
        }
        state.shown_doc = Some(doc.id);
        state.selected_tracks.clear();
        state.drag = Drag::None;
    }
    toolbar(ui, cx, state);
    reveal(cx, state);
    state.build_rows(cx.doc);

    let full = ui.available_rect_before_wrap();
    ui.allocate_rect(full, Sense::hover());
    let ruler = Rect::from_min_max(
        Pos2::new(full.left() + LABEL_WIDTH, full.top()),
        Pos2::new(full.right() - SCROLLBAR, full.top() + RULER_HEIGHT),
    );
    let labels = Rect::from_min_max(
        Pos2::new(full.left(), ruler.bottom()),
        Pos2::new(full.left() + LABEL_WIDTH, full.bottom() - SCROLLBAR),
    );
    let keys_rect = Rect::from_min_max(
        Pos2::new(labels.right(), ruler.bottom()),
        Pos2::new(ruler.right(), labels.bottom()),
    );
    if keys_rect.width() < 20.0 || keys_rect.height() < 4.0 {
        return;
    }
    if state.fit_pending {
        state.fit(keys_rect.width());
        state.fit_pending = false;
    }
    follow_playhead(cx, state, keys_rect.width());
    state.clamp_view(keys_rect.height());
    let mut l = Layout {
        ruler,
        labels,
        keys: keys_rect,
        px_per_frame: state.px_per_frame,
        left_frame: state.left_frame,
        scroll_y: state.scroll_y,
    };

    // Wheel: Ctrl+wheel zooms around the pointer, wheel scrolls rows,
    // Shift+wheel (or a horizontal wheel) pans time.
    let hover_area = Rect::from_min_max(full.min, Pos2::new(full.right(), labels.bottom()));
    if ui.rect_contains_pointer(hover_area) {
        let (zoom, scroll, pointer) =
            ui.input(|i| (i.zoom_delta(), i.smooth_scroll_delta, i.pointer.hover_pos()));
        if (zoom - 1.0).abs() > 1e-4 {
            let x = pointer.map_or(keys_rect.center().x, |p| {
                p.x.clamp(keys_rect.left(), keys_rect.right())
            });
            state.zoom_at(&l, x, zoom);
        } else if scroll != Vec2::ZERO {
            state.scroll_y -= scroll.y;
            state.left_frame -= f64::from(scroll.x / state.px_per_frame);
        }
        state.clamp_view(keys_rect.height());
        l.px_per_frame = state.px_per_frame;
        l.left_frame = state.left_frame;
        l.scroll_y = state.scroll_y;
    }

    let id = egui::Id::unique("vmd-studio-dope-sheet");
    let cuts = std::mem::take(&mut state.cache.cuts);
    ruler_ui(ui, cx.shared, &cuts, &l, id);
    state.cache.cuts = cuts;
    labels_ui(ui, cx, state, &l, id);
    keys_ui(ui, cx, state, &mut l, id);
    scrollbars(ui, state, &l, full, id);
    state.layout = Some(Layout {
        px_per_frame: state.px_per_frame,
        left_frame: state.left_frame,
        scroll_y: state.scroll_y,
        ..l
    });
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

/// Keeps the playhead in view while playing.
fn follow_playhead(cx: &PanelCtx, state: &mut State, width: f32) {
    if !cx.shared.transport.playing {
        return;
    }
    let span = f64::from(width / state.px_per_frame);
    let f = cx.shared.transport.frame;
    if f > state.left_frame + span || f < state.left_frame {
        state.left_frame = f - span * 0.05;
    }
}

fn toolbar(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State) {
    ui.horizontal(|ui| {
        ui.label("Filter");
        ui.add(
            egui::TextEdit::singleline(&mut state.filter)
                .hint_text("track name")
                .desired_width(140.0),
        );
        if !state.filter.is_empty() && ui.small_button("Clear").clicked() {
            state.filter.clear();
        }
        ui.separator();
        if ui
            .button("Fit all")
            .on_hover_text(Command::FitAll.tooltip())
            .clicked()
        {
            state.fit_pending = true;
        }
        if ui.button("Zoom in").clicked() {
            state.px_per_frame = (state.px_per_frame * 1.5).min(ZOOM_MAX);
        }
        if ui.button("Zoom out").clicked() {
            state.px_per_frame = (state.px_per_frame / 1.5).max(ZOOM_MIN);
        }
        ui.weak(format!("{:.2} px/frame", state.px_per_frame));
        ui.separator();
        if ui
            .add_enabled(
                !cx.view.selection.is_empty(),
                egui::Button::new("Loop selection"),
            )
            .on_hover_text("Loop playback over the frames of the selected keys")
            .clicked()
            && let Some(r) = selection_span(cx)
        {
            cx.shared.transport.loop_range = Some(r);
            cx.shared.info(format!("Loop {}..{}", r.0, r.1));
        }
        if ui
            .add_enabled(
                cx.shared.transport.loop_range.is_some(),
                egui::Button::new("Clear loop"),
            )
            .clicked()
        {
            cx.shared.transport.loop_range = None;
        }
        if let Some((a, b)) = cx.shared.transport.loop_range {
            ui.weak(format!("loop {a}-{b}"));
        }
        ui.separator();
        let n = cx.view.selection.len();
        ui.weak(format!("{n} selected"));
    });
}

/// First and last frame of the selected keys.
fn selection_span(cx: &PanelCtx) -> Option<(u32, u32)> {
    let m = &cx.doc.motion;
    let mut it = cx.view.selection.iter().filter_map(|&k| m.key_frame(k));
    let first = it.next()?;
    let (lo, hi) = it.fold((first, first), |(a, b), f| (a.min(f), b.max(f)));
    Some((lo, hi))
}

/// Scrolls a key the inspector asked for into view.
fn reveal(cx: &mut PanelCtx, state: &mut State) {
    let Some(k) = cx.view.reveal.take() else {
        return;
    };
    let Some(t) = track_of(&cx.doc.motion, k) else {
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
        let h = state.layout.map_or(200.0, |l| l.keys.height());
        let top = row as f32 * ROW_HEIGHT;
        if top < state.scroll_y || top + ROW_HEIGHT > state.scroll_y + h {
            state.scroll_y = (top - h / 3.0).max(0.0);
        }
    }
    if let (Some(f), Some(l)) = (cx.doc.motion.key_frame(k), state.layout) {
        let (lo, hi) = l.visible_frames();
        let f = f64::from(f);
        if f < lo || f > hi {
            state.left_frame = f - (hi - lo) * 0.2;
        }
    }
    state.selected_tracks.clear();
    state.selected_tracks.insert(t);
}

fn ruler_ui(ui: &mut egui::Ui, shared: &mut super::Shared, cuts: &[u32], l: &Layout, id: egui::Id) {
    let pal = Palette::of(ui.visuals());
    let painter = ui.painter_at(l.ruler);
    painter.rect_filled(l.ruler, 0.0, ui.visuals().extreme_bg_color);
    // Corner above the labels: the playhead in frames and seconds.
    let corner = Rect::from_min_max(
        Pos2::new(l.labels.left(), l.ruler.top()),
        Pos2::new(l.labels.right(), l.ruler.bottom()),
    );
    let cp = ui.painter_at(corner);
    cp.rect_filled(corner, 0.0, ui.visuals().extreme_bg_color);
    let t = &shared.transport;
    cp.text(
        corner.left_center() + Vec2::new(6.0, 0.0),
        Align2::LEFT_CENTER,
        format!("frame {:.0}  {:.2} s", t.frame.floor(), t.frame / 30.0),
        FontId::monospace(11.0),
        pal.text,
    );
    // Loop band.
    if let Some((a, b)) = t.loop_range {
        let r = Rect::from_min_max(
            Pos2::new(l.x_of(f64::from(a)), l.ruler.top()),
            Pos2::new(l.x_of(f64::from(b)), l.ruler.bottom()),
        );
        painter.rect_filled(r, 0.0, Color32::from_rgba_unmultiplied(80, 160, 255, 50));
    }
    let (lo, hi) = l.visible_frames();
    // Camera cuts: a red mark at the top of the ruler between the two keys.
    let first_cut = cuts.partition_point(|&a| f64::from(a) + 1.0 < lo);
    for &a in &cuts[first_cut..] {
        if f64::from(a) > hi {
            break;
        }
        let x = l.x_of(f64::from(a) + 0.5);
        painter.vline(
            x,
            l.ruler.top()..=l.ruler.top() + 7.0,
            Stroke::new(2.0, pal.cut),
        );
    }
    let major = tick_step(l.px_per_frame, 60.0);
    let minor = match major {
        1 => 1,
        2 => 1,
        5 => 1,
        10 => 2,
        15 => 5,
        30 => 10,
        60 => 10,
        s => s / 5,
    };
    let first = (lo.max(0.0) / f64::from(minor)).floor() as u64 * u64::from(minor);
    let mut f = first;
    while (f as f64) <= hi {
        let x = l.x_of(f as f64);
        let is_major = f.is_multiple_of(u64::from(major));
        let h = if is_major { 12.0 } else { 5.0 };
        painter.vline(
            x,
            l.ruler.bottom() - h..=l.ruler.bottom(),
            Stroke::new(1.0, pal.weak),
        );
        if is_major {
            // A label that would run past the ruler's right end goes on the
            // tick's left instead of being clipped.
            let label = |text: String, y: f32, size: f32, colour: Color32| {
                let g = painter.layout_no_wrap(text, FontId::proportional(size), colour);
                let w = g.size().x;
                let left = if x + 3.0 + w <= l.ruler.right() {
                    x + 3.0
                } else {
                    x - 3.0 - w
                };
                painter.galley(Pos2::new(left, l.ruler.top() + y), g, colour);
            };
            label(f.to_string(), 2.0, 11.0, pal.text);
            if f.is_multiple_of(30) {
                label(seconds_label(f / 30), 15.0, 10.0, pal.weak);
            }
        }
        f += u64::from(minor);
    }
    // Playhead handle.
    let px = l.x_of(t.frame);
    if l.ruler.x_range().contains(px) {
        let b = l.ruler.bottom();
        painter.add(Shape::convex_polygon(
            vec![
                Pos2::new(px - 5.0, b - 10.0),
                Pos2::new(px + 5.0, b - 10.0),
                Pos2::new(px, b),
            ],
            pal.playhead,
            Stroke::NONE,
        ));
    }
    // Scrub: press or drag on the ruler sets the playhead.
    let r = ui.interact(l.ruler, id.with("ruler"), Sense::click_and_drag());
    if (r.is_pointer_button_down_on() || r.dragged() || r.clicked())
        && let Some(p) = r.interact_pointer_pos()
    {
        let f = l.frame_at(p.x).round().max(0.0);
        shared.transport.frame = f;
        shared.transport.playing = false;
    }
    r.on_hover_text("Drag to scrub");
}

fn labels_ui(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State, l: &Layout, id: egui::Id) {
    let pal = Palette::of(ui.visuals());
    let painter = ui.painter_at(l.labels);
    painter.rect_filled(l.labels, 0.0, ui.visuals().panel_fill);
    let first = (state.scroll_y / ROW_HEIGHT).floor().max(0.0) as usize;
    let count = (l.labels.height() / ROW_HEIGHT).ceil() as usize + 1;
    let mut toggle: Option<Group> = None;
    let mut select_track: Option<(TrackRef, bool)> = None;
    let mut pick_track: Option<(TrackRef, egui::Modifiers)> = None;
    let mut select_group: Option<Group> = None;
    for (i, row) in state.rows.iter().enumerate().skip(first).take(count) {
        let top = l.row_top(i);
        let rect = Rect::from_min_max(
            Pos2::new(l.labels.left(), top),
            Pos2::new(l.labels.right(), top + ROW_HEIGHT),
        );
        let clipped = rect.intersect(l.labels);
        if clipped.height() <= 0.0 {
            continue;
        }
        match row {
            Row::Header { group, tracks } => {
                painter.rect_filled(rect, 0.0, pal.header);
                let open = !state.collapsed.contains(group);
                let c = Pos2::new(rect.left() + 10.0, rect.center().y);
                let tri = if open {
                    vec![
                        c + Vec2::new(-4.0, -2.5),
                        c + Vec2::new(4.0, -2.5),
                        c + Vec2::new(0.0, 3.5),
                    ]
                } else {
                    vec![
                        c + Vec2::new(-2.5, -4.0),
                        c + Vec2::new(3.5, 0.0),
                        c + Vec2::new(-2.5, 4.0),
                    ]
                };
                painter.add(Shape::convex_polygon(tri, pal.text, Stroke::NONE));
                painter.text(
                    Pos2::new(rect.left() + 20.0, rect.center().y),
                    Align2::LEFT_CENTER,
                    format!("{} ({tracks})", group.label()),
                    FontId::proportional(12.5),
                    pal.text,
                );
                let r = ui.interact(clipped, id.with(("group", *group)), Sense::click());
                if r.clicked() {
                    toggle = Some(*group);
                }
                r.context_menu(|ui| {
                    if ui.button("Select all keys in group").clicked() {
                        select_group = Some(*group);
                        ui.close();
                    }
                });
            }
            Row::Track { track, name, keys } => {
                let picked = state.selected_tracks.contains(track);
                if picked {
                    painter.rect_filled(rect, 0.0, pal.row_selected);
                } else if i % 2 == 0 {
                    painter.rect_filled(rect, 0.0, pal.row_alt);
                }
                painter.rect_filled(
                    Rect::from_min_size(
                        rect.min + Vec2::new(14.0, 5.0),
                        Vec2::new(3.0, ROW_HEIGHT - 10.0),
                    ),
                    1.0,
                    track.group().color(),
                );
                let name_painter = painter.with_clip_rect(
                    Rect::from_min_max(rect.min, Pos2::new(rect.right() - 44.0, rect.bottom()))
                        .intersect(l.labels),
                );
                name_painter.text(
                    Pos2::new(rect.left() + 22.0, rect.center().y),
                    Align2::LEFT_CENTER,
                    name,
                    FontId::proportional(12.5),
                    pal.text,
                );
                painter.text(
                    Pos2::new(rect.right() - 6.0, rect.center().y),
                    Align2::RIGHT_CENTER,
                    keys.to_string(),
                    FontId::proportional(10.5),
                    pal.weak,
                );
                let r = ui.interact(clipped, id.with(("track", i)), Sense::click());
                if r.double_clicked() {
                    select_track = Some((track.clone(), false));
                } else if r.clicked() {
                    pick_track = Some((track.clone(), ui.input(|i| i.modifiers)));
                }
                r.context_menu(|ui| {
                    if ui.button("Select all keys in track").clicked() {
                        select_track = Some((track.clone(), false));
                        ui.close();
                    }
                    if ui.button("Add track's keys to selection").clicked() {
                        select_track = Some((track.clone(), true));
                        ui.close();
                    }
                });
            }
        }
    }
    if let Some(g) = toggle
        && !state.collapsed.remove(&g)
    {
        state.collapsed.insert(g);
    }
    if let Some((t, mods)) = pick_track {
        if mods.command {
            if !state.selected_tracks.remove(&t) {
                state.selected_tracks.insert(t);
            }
        } else if mods.shift {
            state.selected_tracks.insert(t);
        } else {
            state.selected_tracks.clear();
            state.selected_tracks.insert(t);
        }
    }
    if let Some((t, add)) = select_track {
        if !add {
            cx.view.selection.clear();
        }
        let keys = track_keys(cx.doc, &t);
        cx.view
            .selection
            .extend(keys.iter().map(|&k| key_ref(&t, k)));
        cx.view.active = keys.first().map(|&k| key_ref(&t, k));
        state.selected_tracks.clear();
        state.selected_tracks.insert(t);
    }
    if let Some(g) = select_group {
        let tracks: Vec<TrackRef> = all_tracks(cx.doc)
            .into_iter()
            .filter(|t| t.group() == g)
            .collect();
        cx.view.selection.clear();
        for t in tracks {
            let keys = track_keys(cx.doc, &t);
            cx.view
                .selection
                .extend(keys.iter().map(|&k| key_ref(&t, k)));
        }
    }
}

/// Every track of a document.
pub fn all_tracks(doc: &Document) -> Vec<TrackRef> {
    let idx = &doc.index;
    let mut v: Vec<TrackRef> = idx
        .bones
        .iter()
        .map(|t| TrackRef::Bone(t.name_key.clone()))
        .chain(
            idx.morphs
                .iter()
                .map(|t| TrackRef::Morph(t.name_key.clone())),
        )
        .collect();
    for (t, n) in [
        (TrackRef::Camera, idx.camera.len()),
        (TrackRef::Light, idx.light.len()),
        (TrackRef::Shadow, idx.shadow.len()),
        (TrackRef::Ik, idx.ik.len()),
    ] {
        if n > 0 {
            v.push(t);
        }
    }
    v
}

fn keys_ui(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State, l: &mut Layout, id: egui::Id) {
    let pal = Palette::of(ui.visuals());
    let response = ui.interact(l.keys, id.with("keys"), Sense::click_and_drag());
    handle_key_input(ui, cx, state, l, &response);

    let painter = ui.painter_at(l.keys);
    let first = (state.scroll_y / ROW_HEIGHT).floor().max(0.0) as usize;
    let count = (l.keys.height() / ROW_HEIGHT).ceil() as usize + 1;
    // Row backgrounds.
    for (i, row) in state.rows.iter().enumerate().skip(first).take(count) {
        let top = l.row_top(i);
        let rect = Rect::from_min_max(
            Pos2::new(l.keys.left(), top),
            Pos2::new(l.keys.right(), top + ROW_HEIGHT),
        );
        match row {
            Row::Header { .. } => {
                painter.rect_filled(rect, 0.0, pal.header);
            }
            Row::Track { track, .. } => {
                if state.selected_tracks.contains(track) {
                    painter.rect_filled(rect, 0.0, pal.row_selected);
                } else if i % 2 == 0 {
                    painter.rect_filled(rect, 0.0, pal.row_alt);
                }
            }
        }
    }
    // Grid lines on major ticks and seconds.
    let (lo, hi) = l.visible_frames();
    let major = tick_step(l.px_per_frame, 60.0);
    let mut f = (lo.max(0.0) / f64::from(major)).floor() as u64 * u64::from(major);
    while (f as f64) <= hi {
        painter.vline(
            l.x_of(f as f64),
            l.keys.y_range(),
            Stroke::new(1.0, pal.grid),
        );
        f += u64::from(major);
    }
    // Loop range edges.
    let off = f64::from(state.offset);
    if let Some((a, b)) = cx.shared.transport.loop_range {
        for x in [a, b] {
            painter.vline(
                l.x_of(f64::from(x) - off),
                l.keys.y_range(),
                Stroke::new(1.0, Color32::from_rgb(80, 160, 255)),
            );
        }
    }
    // Keys: one mesh for every visible diamond.
    state.sel_bits.refresh(cx.doc, &cx.view.selection);
    let sel_test = if cx.view.selection.len() > SEL_BITS_MIN {
        SelTest::Bits(&state.sel_bits)
    } else {
        SelTest::Set(&cx.view.selection)
    };
    let mut mesh = Mesh::default();
    mesh.reserve_vertices(8192);
    mesh.reserve_triangles(4096);
    let mut cut_lines: Vec<(f32, f32)> = Vec::new();
    for (i, row) in state.rows.iter().enumerate().skip(first).take(count) {
        let Row::Track { track, .. } = row else {
            continue;
        };
        let y = l.row_top(i) + ROW_HEIGHT / 2.0;
        if *track == TrackRef::Camera {
            let cuts = &state.cache.cuts;
            let s = cuts.partition_point(|&a| f64::from(a) + 1.0 < lo);
            for &a in &cuts[s..] {
                if f64::from(a) > hi {
                    break;
                }
                cut_lines.push((l.x_of(f64::from(a) + 0.5), y));
            }
        }
        let keys = track_keys(cx.doc, track);
        let idx = &cx.doc.index;
        let frames: &[u32] = match track {
            // The core keeps bone and morph frames contiguous already.
            TrackRef::Bone(n) => idx.bone(n).map_or(&[], |t| t.frames.as_slice()),
            TrackRef::Morph(n) => idx.morph(n).map_or(&[], |t| t.frames.as_slice()),
            _ => state.frames.get(cx.doc, track),
        };
        draw_row_keys(
            &mut mesh,
            track,
            keys,
            frames,
            l,
            y,
            track.group().color(),
            &pal,
            &sel_test,
        );
    }
    for (x, y) in cut_lines {
        // A cut: a red bar between the two keys one frame apart.
        mesh.add_colored_rect(
            Rect::from_min_max(
                Pos2::new(x - 1.0, y - ROW_HEIGHT / 2.0 + 1.0),
                Pos2::new(x + 1.0, y + ROW_HEIGHT / 2.0 - 1.0),
            ),
            pal.cut,
        );
    }
    painter.add(Shape::mesh(mesh));
    // Playhead.
    let px = l.x_of(cx.shared.transport.frame - off);
    if l.keys.x_range().contains(px) {
        painter.vline(px, l.keys.y_range(), Stroke::new(1.5, pal.playhead));
    }
    // Rubber band.
    if let Drag::Box { from, .. } = &state.drag
        && let Some(p) = ui.input(|i| i.pointer.interact_pos())
    {
        let r = Rect::from_two_pos(*from, p);
        painter.rect_filled(r, 0.0, ui.visuals().selection.bg_fill.gamma_multiply(0.2));
        painter.rect_stroke(
            r,
            0.0,
            Stroke::new(1.0, ui.visuals().selection.stroke.color),
            egui::StrokeKind::Inside,
        );
    }
}

fn handle_key_input(
    ui: &egui::Ui,
    cx: &mut PanelCtx,
    state: &mut State,
    l: &mut Layout,
    r: &egui::Response,
) {
    let mods = ui.input(|i| i.modifiers);
    if r.clicked()
        && let Some(p) = r.interact_pointer_pos()
    {
        match hit_key(cx.doc, &state.rows, l, p) {
            Some(k) => click_select(cx, state, k, mods),
            None => {
                if !mods.shift && !mods.command {
                    cx.view.selection.clear();
                    cx.view.active = None;
                }
            }
        }
    }
    if r.drag_started() {
        let origin = ui.input(|i| i.pointer.press_origin()).unwrap_or_default();
        let primary = ui.input(|i| i.pointer.button_down(PointerButton::Primary));
        if !primary {
            state.drag = Drag::Pan;
        } else if let Some(k) = hit_key(cx.doc, &state.rows, l, origin) {
            if !cx.view.selection.contains(&k) {
                click_select(cx, state, k, mods);
            } else {
                cx.view.active = Some(k);
            }
            let m = &cx.doc.motion;
            let keys: Vec<(KeyRef, u32)> = cx
                .view
                .selection
                .iter()
                .filter_map(|&k| m.key_frame(k).map(|f| (k, f)))
                .collect();
            let moved = keys.iter().map(|&(k, _)| k).collect();
            state.drag = Drag::Move {
                keys,
                moved,
                origin_x: origin.x,
                applied: 0,
                refused: None,
                merge_id: state.merge_id(),
                sent: false,
            };
        } else {
            state.drag = Drag::Box {
                from: origin,
                additive: mods.shift || mods.command,
            };
        }
    }
    if r.dragged() {
        let pointer = ui.input(|i| i.pointer.interact_pos());
        match &mut state.drag {
            Drag::Move {
                keys,
                moved,
                origin_x,
                applied,
                refused,
                merge_id,
                sent,
            } => {
                if let Some(p) = pointer {
                    let mut delta = ((p.x - *origin_x) / l.px_per_frame).round() as i64;
                    // Snapping to beats: the key under the press lands on a beat.
                    let anchor = l.frame_at(*origin_x).round() as i64 + i64::from(state.offset);
                    delta = cx.shared.song.snap_delta(anchor, delta);
                    let min = keys.iter().map(|&(_, f)| i64::from(f)).min().unwrap_or(0);
                    delta = delta.max(-min);
                    if delta != *applied {
                        match move_clash(cx.doc, keys, moved, delta) {
                            None => {
                                let c = moved_keys(&cx.doc.motion, keys, delta);
                                cx.push(EditRequest::merge(
                                    Edit::SetKeys(c),
                                    format!("Move {} keys", keys.len()),
                                    *merge_id,
                                ));
                                *applied = delta;
                                *sent = true;
                                *refused = None;
                            }
                            Some((track, f)) => {
                                if *refused != Some(delta) {
                                    cx.shared.error(format!(
                                        "Move refused: two keys of \"{track}\" would be on frame {f}; the keys stay where they were"
                                    ));
                                    *refused = Some(delta);
                                }
                            }
                        }
                    }
                }
            }
            Drag::Pan => {
                let d = r.drag_delta();
                state.left_frame -= f64::from(d.x / state.px_per_frame);
                state.scroll_y -= d.y;
            }
            _ => {}
        }
    }
    if r.drag_stopped() {
        match std::mem::take(&mut state.drag) {
            Drag::Move { sent: true, .. } => {
                cx.push(EditRequest::EndMerge);
            }
            Drag::Box { from, additive } => {
                if let Some(p) = r
                    .interact_pointer_pos()
                    .or(ui.input(|i| i.pointer.latest_pos()))
                {
                    box_select(cx, state, l, Rect::from_two_pos(from, p), additive);
                }
            }
            _ => {}
        }
    }
}

fn box_select(cx: &mut PanelCtx, state: &State, l: &Layout, r: Rect, additive: bool) {
    if !additive {
        cx.view.selection.clear();
    }
    let m = &cx.doc.motion;
    let lo = l.frame_at(r.left() - HALF);
    let hi = l.frame_at(r.right() + HALF);
    let Some(first) = l.row_at(r.top() - HALF) else {
        return;
    };
    let last = l.row_at(r.bottom() + HALF).unwrap_or(first);
    for (i, row) in state.rows.iter().enumerate().take(last + 1).skip(first) {
        let Row::Track { track, .. } = row else {
            continue;
        };
        let cy = l.row_top(i) + ROW_HEIGHT / 2.0;
        if cy < r.top() - HALF || cy > r.bottom() + HALF {
            continue;
        }
        let keys = track_keys(cx.doc, track);
        let s = keys.partition_point(|&k| f64::from(frame_in(m, track, k)) < lo);
        for &k in &keys[s..] {
            if f64::from(frame_in(m, track, k)) > hi {
                break;
            }
            cx.view.selection.insert(key_ref(track, k));
        }
    }
    if cx
        .view
        .active
        .is_none_or(|a| !cx.view.selection.contains(&a))
    {
        cx.view.active = cx.view.selection.iter().next().copied();
    }
}

fn scrollbars(ui: &mut egui::Ui, state: &mut State, l: &Layout, full: Rect, id: egui::Id) {
    let v = ui.visuals();
    let track_col = v.extreme_bg_color;
    let thumb_col = v.widgets.inactive.bg_fill;
    // Horizontal: the whole motion (plus margin) against the visible span.
    let h = Rect::from_min_max(
        Pos2::new(l.keys.left(), l.keys.bottom()),
        Pos2::new(l.keys.right(), full.bottom()),
    );
    let total = f64::from(state.cache.last_frame) + 30.0;
    let (lo, hi) = l.visible_frames();
    let all = total.max(hi) - lo.min(0.0);
    let t0 = ((lo - lo.min(0.0)) / all).clamp(0.0, 1.0) as f32;
    let t1 = ((hi - lo.min(0.0)) / all).clamp(0.0, 1.0) as f32;
    let painter = ui.painter();
    painter.rect_filled(h, 0.0, track_col);
    let thumb = Rect::from_min_max(
        Pos2::new(h.left() + t0 * h.width(), h.top() + 2.0),
        Pos2::new(
            (h.left() + t1 * h.width()).max(h.left() + t0 * h.width() + 8.0),
            h.bottom() - 2.0,
        ),
    );
    painter.rect_filled(thumb, 3.0, thumb_col);
    let r = ui.interact(h, id.with("hbar"), Sense::drag());
    if r.drag_started() {
        state.drag = Drag::HBar;
    }
    if r.dragged() && matches!(state.drag, Drag::HBar) {
        state.left_frame += f64::from(r.drag_delta().x / h.width()) * all;
    }
    if r.drag_stopped() {
        state.drag = Drag::None;
    }
    // Vertical: rows.
    let vr = Rect::from_min_max(
        Pos2::new(l.keys.right(), l.keys.top()),
        Pos2::new(full.right(), l.keys.bottom()),
    );
    let content = (state.rows.len() as f32 * ROW_HEIGHT).max(1.0);
    let vis = l.keys.height();
    painter.rect_filled(vr, 0.0, track_col);
    if content > vis {
        let a = state.scroll_y / content;
        let b = ((state.scroll_y + vis) / content).min(1.0);
        let thumb = Rect::from_min_max(
            Pos2::new(vr.left() + 2.0, vr.top() + a * vr.height()),
            Pos2::new(
                vr.right() - 2.0,
                (vr.top() + b * vr.height()).max(vr.top() + a * vr.height() + 8.0),
            ),
        );
        painter.rect_filled(thumb, 3.0, thumb_col);
        let r = ui.interact(vr, id.with("vbar"), Sense::drag());
        if r.drag_started() {
            state.drag = Drag::VBar;
        }
        if r.dragged() && matches!(state.drag, Drag::VBar) {
            state.scroll_y += r.drag_delta().y / vr.height() * content;
            state.clamp_view(vis);
        }
        if r.drag_stopped() {
            state.drag = Drag::None;
        }
    }
}

// ---------------------------------------------------------------------------
// Commands

/// Runs a key command (delete, copy, paste, insert, select, fit).
pub fn command(cx: &mut PanelCtx, state: &mut State, c: Command) {
    state.refresh_cache(cx.doc);
    match c {
        Command::DeleteKeys => delete_selected(cx),
        Command::CopyKeys => copy_selected(cx, state),
        Command::PasteKeys => paste(cx, state),
        Command::InsertKey => insert_keys(cx, state),
        Command::SelectAll => {
            let m = &cx.doc.motion;
            let sel = &mut cx.view.selection;
            sel.clear();
            sel.extend((0..m.bones.len() as u32).map(KeyRef::Bone));
            sel.extend((0..m.morphs.len() as u32).map(KeyRef::Morph));
            sel.extend((0..m.cameras.len() as u32).map(KeyRef::Camera));
            sel.extend((0..m.lights.len() as u32).map(KeyRef::Light));
            sel.extend((0..m.shadows.len() as u32).map(KeyRef::Shadow));
            sel.extend((0..m.iks.len() as u32).map(KeyRef::Ik));
        }
        Command::SelectAtFrame => {
            let f = playhead(cx, state);
            let m = &cx.doc.motion;
            cx.view.selection.clear();
            for t in all_tracks(cx.doc) {
                let keys = track_keys(cx.doc, &t);
                let s = keys.partition_point(|&k| frame_in(m, &t, k) < f);
                for &k in &keys[s..] {
                    if frame_in(m, &t, k) != f {
                        break;
                    }
                    cx.view.selection.insert(key_ref(&t, k));
                }
            }
            cx.view.active = cx.view.selection.iter().next().copied();
        }
        Command::FitAll => state.fit_pending = true,
        _ => {}
    }
}

/// The playhead as a whole frame of the document (its offset removed).
fn playhead(cx: &PanelCtx, state: &State) -> u32 {
    // Pastes and new keys (cuts too) land on the nearest beat when snapping to beats.
    (cx.shared.song.snap_frame(cx.shared.transport.frame) - f64::from(state.offset))
        .round()
        .clamp(0.0, f64::from(u32::MAX)) as u32
}

/// Keeps the records whose index is not selected, in file order.
fn retain_unselected<T>(v: &mut Vec<T>, sel: &BTreeSet<KeyRef>, make: fn(u32) -> KeyRef) {
    let mut i = 0u32;
    v.retain(|_| {
        let keep = !sel.contains(&make(i));
        i += 1;
        keep
    });
}

fn delete_selected(cx: &mut PanelCtx) {
    let n = cx.view.selection.len();
    if n == 0 {
        cx.shared.info("Nothing selected to delete");
        return;
    }
    let sel = &cx.view.selection;
    let mut m = cx.doc.motion.clone();
    retain_unselected(&mut m.bones, sel, KeyRef::Bone);
    retain_unselected(&mut m.morphs, sel, KeyRef::Morph);
    retain_unselected(&mut m.cameras, sel, KeyRef::Camera);
    retain_unselected(&mut m.lights, sel, KeyRef::Light);
    retain_unselected(&mut m.shadows, sel, KeyRef::Shadow);
    retain_unselected(&mut m.iks, sel, KeyRef::Ik);
    cx.push(EditRequest::apply(
        Edit::ReplaceMotion {
            motion: Box::new(m),
            selection: None,
        },
        format!("Delete {n} keys"),
    ));
}

fn copy_selected(cx: &mut PanelCtx, state: &mut State) {
    let m = &cx.doc.motion;
    let mut c = Clipboard::default();
    for &k in &cx.view.selection {
        let i = |x: u32| x as usize;
        match k {
            KeyRef::Bone(x) => c.bones.extend(m.bones.get(i(x)).cloned()),
            KeyRef::Morph(x) => c.morphs.extend(m.morphs.get(i(x)).cloned()),
            KeyRef::Camera(x) => c.cameras.extend(m.cameras.get(i(x)).cloned()),
            KeyRef::Light(x) => c.lights.extend(m.lights.get(i(x)).cloned()),
            KeyRef::Shadow(x) => c.shadows.extend(m.shadows.get(i(x)).cloned()),
            KeyRef::Ik(x) => c.iks.extend(m.iks.get(i(x)).cloned()),
        }
    }
    if c.is_empty() {
        cx.shared.info("Nothing selected to copy");
        return;
    }
    cx.shared.info(format!("Copied {} keys", c.len()));
    state.clipboard = c;
}

/// True when the track already has a key on frame `f`.
fn occupied(doc: &Document, t: &TrackRef, f: u32) -> bool {
    let m = &doc.motion;
    let keys = track_keys(doc, t);
    let s = keys.partition_point(|&k| frame_in(m, t, k) < f);
    keys.get(s).is_some_and(|&k| frame_in(m, t, k) == f)
}

fn paste(cx: &mut PanelCtx, state: &mut State) {
    let c = &state.clipboard;
    let Some(earliest) = c.earliest() else {
        cx.shared.info("Nothing to paste: copy keys first");
        return;
    };
    let at = playhead(cx, state);
    let shift = |f: u32| -> Option<u32> {
        u32::try_from(i64::from(f) - i64::from(earliest) + i64::from(at)).ok()
    };
    let doc = cx.doc;
    let mut m = doc.motion.clone();
    let mut seen: HashSet<(TrackRef, u32)> = HashSet::new();
    let mut sel = BTreeSet::new();
    let mut clash: Option<(TrackRef, u32)> = None;
    let mut check = |t: TrackRef, f: u32| {
        if clash.is_none() && (occupied(doc, &t, f) || !seen.insert((t.clone(), f))) {
            clash = Some((t, f));
        }
    };
    macro_rules! paste_section {
        ($list:expr, $dst:expr, $track:expr, $kref:expr) => {
            for k in &$list {
                let Some(f) = shift(k.frame()) else { continue };
                let mut k = k.clone();
                k.set_frame(f);
                check($track(&k), f);
                sel.insert($kref($dst.len() as u32));
                $dst.push(k);
            }
        };
    }
    paste_section!(
        c.bones,
        m.bones,
        |k: &BoneKey| TrackRef::Bone(k.name_key().to_vec()),
        KeyRef::Bone
    );
    paste_section!(
        c.morphs,
        m.morphs,
        |k: &MorphKey| TrackRef::Morph(k.name_key().to_vec()),
        KeyRef::Morph
    );
    paste_section!(
        c.cameras,
        m.cameras,
        |_: &CameraKey| TrackRef::Camera,
        KeyRef::Camera
    );
    paste_section!(
        c.lights,
        m.lights,
        |_: &LightKey| TrackRef::Light,
        KeyRef::Light
    );
    paste_section!(
        c.shadows,
        m.shadows,
        |_: &ShadowKey| TrackRef::Shadow,
        KeyRef::Shadow
    );
    paste_section!(c.iks, m.iks, |_: &IkKey| TrackRef::Ik, KeyRef::Ik);
    if let Some((t, f)) = clash {
        cx.shared.error(format!(
            "Paste refused: \"{}\" already has a key on frame {f}",
            track_label(&t)
        ));
        return;
    }
    let n = sel.len();
    cx.push(EditRequest::apply(
        Edit::ReplaceMotion {
            motion: Box::new(m),
            selection: Some(sel),
        },
        format!("Paste {n} keys at frame {at}"),
    ));
}

fn insert_keys(cx: &mut PanelCtx, state: &mut State) {
    let doc = cx.doc;
    let m0 = &doc.motion;
    let mut tracks: BTreeSet<TrackRef> = state.selected_tracks.clone();
    tracks.extend(cx.view.selection.iter().filter_map(|&k| track_of(m0, k)));
    if tracks.is_empty() {
        cx.shared
            .info("Insert key: pick a track (click its name) or a key first");
        return;
    }
    let f = playhead(cx, state);
    let ff = f64::from(f);
    let mut m = m0.clone();
    let mut sel = BTreeSet::new();
    let mut skipped = 0usize;
    for t in &tracks {
        if occupied(doc, t, f) {
            skipped += 1;
            continue;
        }
        match t {
            TrackRef::Bone(n) => {
                let Some(track) = doc.index.bone(n) else {
                    continue;
                };
                let Some(&first) = track.keys.first() else {
                    continue;
                };
                let Some(src) = m0.bones.get(first as usize) else {
                    continue;
                };
                let pose = vmd::evaluate::bone_at(m0, track, ff);
                let Ok(mut k) = BoneKey::new(
                    "",
                    vmd::NameEncoding::ShiftJis,
                    f,
                    pose.position,
                    pose.rotation,
                ) else {
                    continue;
                };
                let mut field = [0u8; 15];
                field.copy_from_slice(src.name_field());
                k.set_name_field(&field);
                sel.insert(KeyRef::Bone(m.bones.len() as u32));
                m.bones.push(k);
            }
            TrackRef::Morph(n) => {
                let Some(track) = doc.index.morph(n) else {
                    continue;
                };
                let Some(&first) = track.keys.first() else {
                    continue;
                };
                let Some(src) = m0.morphs.get(first as usize) else {
                    continue;
                };
                let w = vmd::evaluate::morph_at(m0, track, ff);
                let Ok(mut k) = MorphKey::new("", vmd::NameEncoding::ShiftJis, f, w) else {
                    continue;
                };
                let mut field = [0u8; 15];
                field.copy_from_slice(src.name_field());
                k.set_name_field(&field);
                sel.insert(KeyRef::Morph(m.morphs.len() as u32));
                m.morphs.push(k);
            }
            TrackRef::Camera => {
                let Some(c) = vmd::evaluate::camera_at(m0, &doc.index, ff) else {
                    continue;
                };
                let k = CameraKey::new(
                    f,
                    c.distance,
                    c.target,
                    c.rotation,
                    c.fov.round().max(0.0) as u32,
                    c.perspective,
                );
                sel.insert(KeyRef::Camera(m.cameras.len() as u32));
                m.cameras.push(k);
            }
            TrackRef::Light => {
                let Some(s) = vmd::evaluate::light_at(m0, &doc.index, ff) else {
                    continue;
                };
                sel.insert(KeyRef::Light(m.lights.len() as u32));
                m.lights.push(LightKey::new(f, s.color, s.direction));
            }
            TrackRef::Shadow => {
                let Some((mode, dist)) = vmd::evaluate::shadow_at(m0, &doc.index, ff) else {
                    continue;
                };
                sel.insert(KeyRef::Shadow(m.shadows.len() as u32));
                m.shadows.push(ShadowKey::new(f, mode, dist));
            }
            TrackRef::Ik => {
                let Some(k) = vmd::evaluate::ik_at(m0, &doc.index, ff) else {
                    continue;
                };
                let mut k = k.clone();
                k.set_frame(f);
                sel.insert(KeyRef::Ik(m.iks.len() as u32));
                m.iks.push(k);
            }
        }
    }
    if sel.is_empty() {
        cx.shared.info(format!(
            "Insert key: every picked track already has a key on frame {f} ({skipped} tracks)"
        ));
        return;
    }
    let n = sel.len();
    cx.push(EditRequest::apply(
        Edit::ReplaceMotion {
            motion: Box::new(m),
            selection: Some(sel),
        },
        format!("Insert {n} keys at frame {f}"),
    ));
    if skipped > 0 {
        cx.shared
            .info(format!("{skipped} tracks already had a key on frame {f}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn galloping_search_finds_the_first_frame_at_or_after_the_target() {
        let frames = [0u32, 4, 8, 8, 12, 100, 200, 300];
        for target in 0..=301 {
            for i in 0..frames.len() {
                let want = i + frames[i..].iter().take_while(|&&f| f < target).count();
                assert_eq!(
                    next_at_least(&frames, i, frames.len(), target),
                    want,
                    "{i} {target}"
                );
            }
        }
    }

    #[test]
    fn tick_steps_keep_labels_apart() {
        // 60 points minimum: at 6 px/frame 10 frames = 60 px.
        assert_eq!(tick_step(6.0, 60.0), 10);
        // At 0.1 px/frame, 600 frames = 60 px.
        assert_eq!(tick_step(0.1, 60.0), 600);
    }
}
