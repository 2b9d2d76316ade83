//! The track-name column: group headers (collapse, select a group's keys)
//! and track labels (pick tracks for Insert key, select a track's keys).

use egui::{Align2, FontId, Pos2, Rect, Sense, Shape, Stroke, Vec2};

use super::draw::{Palette, group_color};
use super::layout::ROW_HEIGHT;
use super::{Layout, PanelCtx, Row, State, all_tracks, key_ref, track_keys};
use crate::vmd::key_edit::{Group, TrackRef};

/// Draws the label column (the visible rows) and acts on its clicks.
pub(super) fn labels_ui(
    ui: &mut egui::Ui,
    cx: &mut PanelCtx,
    state: &mut State,
    l: &Layout,
    id: egui::Id,
) {
    let pal = Palette::of(ui.visuals());
    let painter = ui.painter_at(l.labels);
    painter.rect_filled(l.labels, 0.0, ui.visuals().panel_fill);
    let first = (state.scroll_y / ROW_HEIGHT).floor().max(0.0) as usize;
    let count = (l.labels.height() / ROW_HEIGHT).ceil() as usize + 1;
    let mut clicks = Clicks::default();
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
                let open = !state.collapsed.contains(group);
                header_row(
                    ui,
                    &painter,
                    &pal,
                    (rect, clipped),
                    *group,
                    *tracks,
                    open,
                    id,
                    &mut clicks,
                );
            }
            Row::Track { track, name, keys } => {
                let picked = state.selected_tracks.contains(track);
                let row = TrackRow {
                    track,
                    name,
                    keys: *keys,
                    picked,
                    even: i % 2 == 0,
                };
                track_row(
                    ui,
                    &painter,
                    &pal,
                    l,
                    (rect, clipped),
                    row,
                    id.with(("track", i)),
                    &mut clicks,
                );
            }
        }
    }
    apply_clicks(cx, state, clicks);
}

/// What the label column was asked this frame (the last of each kind wins).
#[derive(Default)]
struct Clicks {
    /// A group header clicked: collapse or expand it.
    toggle: Option<Group>,
    /// Select a track's keys (true: add to the selection).
    select_track: Option<(TrackRef, bool)>,
    /// A track label clicked, with the modifiers held: pick it for Insert key.
    pick_track: Option<(TrackRef, egui::Modifiers)>,
    /// Select every key of a group.
    select_group: Option<Group>,
}

/// A group's header row: its triangle, label and count, click to collapse,
/// a menu to select its keys.
#[allow(clippy::too_many_arguments)]
fn header_row(
    ui: &mut egui::Ui,
    painter: &egui::Painter,
    pal: &Palette,
    (rect, clipped): (Rect, Rect),
    group: Group,
    tracks: usize,
    open: bool,
    id: egui::Id,
    clicks: &mut Clicks,
) {
    let group = &group;
    painter.rect_filled(rect, 0.0, pal.header);
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
        clicks.toggle = Some(*group);
    }
    r.context_menu(|ui| {
        if ui.button("Select all keys in group").clicked() {
            clicks.select_group = Some(*group);
            ui.close();
        }
    });
}

/// One track's row as the label column shows it.
struct TrackRow<'a> {
    track: &'a TrackRef,
    name: &'a str,
    keys: usize,
    /// Picked for Insert key.
    picked: bool,
    /// An even row (drawn on the alternate fill).
    even: bool,
}

/// A track's label row: its group's colour, name and key count; click picks
/// it, double-click selects its keys, a menu selects or adds them.
#[allow(clippy::too_many_arguments)]
fn track_row(
    ui: &mut egui::Ui,
    painter: &egui::Painter,
    pal: &Palette,
    l: &Layout,
    (rect, clipped): (Rect, Rect),
    row: TrackRow,
    id: egui::Id,
    clicks: &mut Clicks,
) {
    let TrackRow {
        track,
        name,
        keys,
        picked,
        even,
    } = row;
    if picked {
        painter.rect_filled(rect, 0.0, pal.row_selected);
    } else if even {
        painter.rect_filled(rect, 0.0, pal.row_alt);
    }
    painter.rect_filled(
        Rect::from_min_size(
            rect.min + Vec2::new(14.0, 5.0),
            Vec2::new(3.0, ROW_HEIGHT - 10.0),
        ),
        1.0,
        group_color(track.group()),
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
    let r = ui.interact(clipped, id, Sense::click());
    if r.double_clicked() {
        clicks.select_track = Some((track.clone(), false));
    } else if r.clicked() {
        clicks.pick_track = Some((track.clone(), ui.input(|i| i.modifiers)));
    }
    r.context_menu(|ui| {
        if ui.button("Select all keys in track").clicked() {
            clicks.select_track = Some((track.clone(), false));
            ui.close();
        }
        if ui.button("Add track's keys to selection").clicked() {
            clicks.select_track = Some((track.clone(), true));
            ui.close();
        }
    });
}

/// Acts on the column's clicks: collapse, pick tracks, select keys.
fn apply_clicks(cx: &mut PanelCtx, state: &mut State, clicks: Clicks) {
    if let Some(g) = clicks.toggle
        && !state.collapsed.remove(&g)
    {
        state.collapsed.insert(g);
    }
    if let Some((t, mods)) = clicks.pick_track {
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
    if let Some((t, add)) = clicks.select_track {
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
    if let Some(g) = clicks.select_group {
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
