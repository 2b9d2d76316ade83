//! Drawing: the frame ruler (ticks, seconds, cuts, loop band, playhead,
//! scrubbing) and the key rows (backgrounds, grid, diamonds or runs of
//! dense keys in one mesh, cuts, playhead, rubber band).

use egui::{Align2, Color32, FontId, Mesh, Pos2, Rect, Sense, Shape, Stroke, Vec2};

use super::cache::{SEL_BITS_MIN, SelTest};
use super::input::handle_key_input;
use super::layout::{COLUMN, HALF, OUTLINE_GAP, ROW_HEIGHT, RUN_GAP, SPARSE_GAP};
use super::{Layout, PanelCtx, Row, State, key_ref, track_keys};
use crate::vmd::key_edit::{Group, TrackRef};

/// The colour of a group's rows and keys.
pub(super) fn group_color(g: Group) -> Color32 {
    match g {
        Group::Bones => Color32::from_rgb(120, 170, 230),
        Group::Morphs => Color32::from_rgb(230, 160, 110),
        Group::Camera => Color32::from_rgb(140, 210, 130),
        Group::Light => Color32::from_rgb(230, 210, 110),
        Group::Shadow => Color32::from_rgb(170, 150, 220),
        Group::Ik => Color32::from_rgb(200, 130, 190),
    }
}

/// Tick spacing in frames so labels are at least `min_px` apart.
pub(super) fn tick_step(px_per_frame: f32, min_px: f32) -> u32 {
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
pub(super) struct Palette {
    pub(super) selected: Color32,
    pub(super) outline: Color32,
    pub(super) cut: Color32,
    pub(super) playhead: Color32,
    pub(super) row_alt: Color32,
    pub(super) row_selected: Color32,
    pub(super) header: Color32,
    pub(super) text: Color32,
    pub(super) weak: Color32,
    pub(super) grid: Color32,
}

impl Palette {
    pub(super) fn of(v: &egui::Visuals) -> Palette {
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

pub(super) fn ruler_ui(
    ui: &mut egui::Ui,
    shared: &mut crate::app::panels::Shared,
    cuts: &[u32],
    l: &Layout,
    id: egui::Id,
) {
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

/// The key area: input (clicks, drags, the menu), then rows, grid, keys
/// and the playhead.
pub(super) fn keys_ui(
    ui: &mut egui::Ui,
    cx: &mut PanelCtx,
    state: &mut State,
    l: &mut Layout,
    id: egui::Id,
) {
    let pal = Palette::of(ui.visuals());
    let response = ui.interact(l.keys, id.with("keys"), Sense::click_and_drag());
    handle_key_input(ui, cx, state, l, &response);
    let curve_clip = cx.shared.curve_clipboard;
    response.context_menu(|ui| {
        let key = state.menu_key;
        let can_paste = state.can_paste;
        super::menu::key_menu(ui, state, key, can_paste, curve_clip);
    });

    let painter = ui.painter_at(l.keys);
    let first = (state.scroll_y / ROW_HEIGHT).floor().max(0.0) as usize;
    let count = (l.keys.height() / ROW_HEIGHT).ceil() as usize + 1;
    let rows = first..first + count;
    row_backgrounds(&painter, &pal, state, l, rows.clone());
    let off = f64::from(state.offset);
    grid_lines(&painter, &pal, l, off, cx.shared.transport.loop_range);
    key_diamonds(&painter, &pal, cx, state, l, rows);
    // Playhead.
    let px = l.x_of(cx.shared.transport.frame - off);
    if l.keys.x_range().contains(px) {
        painter.vline(px, l.keys.y_range(), Stroke::new(1.5, pal.playhead));
    }
    // (The rubber band: the timeline draws it across the sections.)
}

/// The rows in `rows` (the ones in view), with their indices.
fn visible(all: &[Row], rows: std::ops::Range<usize>) -> impl Iterator<Item = (usize, &Row)> {
    all.iter().enumerate().skip(rows.start).take(rows.len())
}

/// The rows' backgrounds: headers, picked tracks, alternate rows.
fn row_backgrounds(
    painter: &egui::Painter,
    pal: &Palette,
    state: &State,
    l: &Layout,
    rows: std::ops::Range<usize>,
) {
    for (i, row) in visible(&state.rows, rows.clone()) {
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
}

/// Grid lines on major ticks and seconds, and the loop range's edges
/// (`off`: the section's offset on the scene timeline).
fn grid_lines(
    painter: &egui::Painter,
    pal: &Palette,
    l: &Layout,
    off: f64,
    loop_range: Option<(u32, u32)>,
) {
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
    if let Some((a, b)) = loop_range {
        for x in [a, b] {
            painter.vline(
                l.x_of(f64::from(x) - off),
                l.keys.y_range(),
                Stroke::new(1.0, Color32::from_rgb(80, 160, 255)),
            );
        }
    }
}

/// The keys: one mesh for every visible diamond, with the camera's cuts.
fn key_diamonds(
    painter: &egui::Painter,
    pal: &Palette,
    cx: &PanelCtx,
    state: &mut State,
    l: &Layout,
    rows: std::ops::Range<usize>,
) {
    let (lo, hi) = l.visible_frames();
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
    for (i, row) in visible(&state.rows, rows.clone()) {
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
            group_color(track.group()),
            pal,
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
