//! The set's lane under the motions: one row per accessory with its keys
//! (MMD's per-frame accessory keys), on the timeline's shared zoom and
//! scroll. A click on a key selects it and moves the playhead there (the
//! scene panel then shows and edits that key); a drag moves it (one undo
//! step, on release); the context menu deletes a key or registers the
//! accessory's values at the frame clicked.

use egui::{Color32, Pos2, Rect, Sense, Stroke, Vec2};

use crate::app::panels::Shared;
use crate::app::panels::dope_sheet::{LABEL_WIDTH, Layout, ROW_HEIGHT};

/// Half a key diamond's width, and how near a press must be to take it
/// (points).
const HALF: f32 = 4.5;
const HIT: f32 = 6.0;

/// One accessory's row: its name and its keys' scene frames (sorted).
#[derive(Debug, Clone, PartialEq)]
pub struct AccessoryLane {
    pub name: String,
    pub keys: Vec<u32>,
}

/// What the lane asks of the scene (each one undo step).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneEdit {
    /// Move accessory `accessory`'s key at `from` to `to`.
    Move {
        accessory: usize,
        from: u32,
        to: u32,
    },
    /// Delete the key at `frame`.
    Delete { accessory: usize, frame: u32 },
    /// Register the accessory's values as they play at `frame` as a key.
    KeyHere { accessory: usize, frame: u32 },
}

/// The lane's own state.
#[derive(Debug, Default)]
pub struct LaneState {
    /// The selected key: (accessory, frame).
    pub selected: Option<(usize, u32)>,
    /// A key being dragged: (accessory, its frame, the frame it would land on).
    drag: Option<(usize, u32, u32)>,
    pub collapsed: bool,
    /// Where the context menu was opened: (accessory, frame under it).
    menu_at: Option<(usize, u32)>,
    /// Each accessory's key strip as drawn last frame (hit tests, tests).
    pub rows: Vec<Rect>,
}

/// Draws the set's header and lanes (nothing without accessories) on the
/// timeline's layout `ruler`; the edits asked for go to `edits`.
pub(super) fn lanes_ui(
    ui: &mut egui::Ui,
    lanes: &[AccessoryLane],
    ruler: Option<Layout>,
    shared: &mut Shared,
    lane: &mut LaneState,
    edits: &mut Vec<LaneEdit>,
) {
    let (false, Some(l)) = (lanes.is_empty(), ruler) else {
        lane.rows.clear();
        return;
    };
    if lane
        .selected
        .is_some_and(|(a, f)| lanes.get(a).is_none_or(|x| !x.keys.contains(&f)))
    {
        lane.selected = None;
    }
    header(ui, lanes.len(), lane);
    lane.rows.clear();
    if lane.collapsed {
        return;
    }
    for (i, row) in lanes.iter().enumerate() {
        lane_row(ui, &l, i, row, shared, lane, edits);
    }
}

fn header(ui: &mut egui::Ui, n: usize, lane: &mut LaneState) {
    ui.horizontal(|ui| {
        ui.set_min_height(ROW_HEIGHT + 2.0);
        let size = Vec2::splat(ui.spacing().icon_width);
        let (_, icon) = ui.allocate_exact_size(size, Sense::click());
        let open = !lane.collapsed;
        egui::collapsing_header::paint_default_icon(ui, if open { 1.0 } else { 0.0 }, &icon);
        if icon
            .on_hover_text(if open {
                "Collapse the set's keys"
            } else {
                "Expand the set's keys"
            })
            .clicked()
        {
            lane.collapsed = open;
        }
        ui.label(egui::RichText::new(format!("Set — accessories ({n})")).strong())
            .on_hover_text(
                "Accessory keys (MMD's per-frame accessory keys): click one to go to it, \
                 drag it to move it, right-click to delete or to key the accessory here",
            );
    });
}

/// The scene frame at screen x, whole and not below 0.
fn whole_frame(l: &Layout, x: f32) -> u32 {
    let f = l.frame_at(x).round();
    if f.is_finite() && f > 0.0 {
        f.min(f64::from(u32::MAX)) as u32
    } else {
        0
    }
}

/// The key of `keys` nearest to screen x, within the hit distance.
fn key_at(l: &Layout, keys: &[u32], x: f32) -> Option<u32> {
    keys.iter()
        .map(|&k| (k, (l.x_of(f64::from(k)) - x).abs()))
        .filter(|&(_, d)| d <= HIT)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| k)
}

fn lane_row(
    ui: &mut egui::Ui,
    l: &Layout,
    i: usize,
    row: &AccessoryLane,
    shared: &mut Shared,
    lane: &mut LaneState,
    edits: &mut Vec<LaneEdit>,
) {
    let (rect, _) =
        ui.allocate_exact_size(Vec2::new(ui.available_width(), ROW_HEIGHT), Sense::hover());
    let keys_rect = Rect::from_min_max(
        Pos2::new(l.keys.left(), rect.top()),
        Pos2::new(l.keys.right(), rect.bottom()),
    );
    let label_rect = Rect::from_min_max(
        rect.min,
        Pos2::new(rect.left() + LABEL_WIDTH - 4.0, rect.bottom()),
    );
    lane.rows.push(keys_rect);
    let painter = ui.painter_at(rect);
    let v = ui.visuals();
    painter.rect_filled(keys_rect, 0.0, v.faint_bg_color);
    painter.text(
        label_rect.left_center() + Vec2::new(18.0, 0.0),
        egui::Align2::LEFT_CENTER,
        &row.name,
        egui::FontId::proportional(13.0),
        v.text_color(),
    );
    let response = ui
        .interact(
            keys_rect,
            egui::Id::unique(("timeline-set-lane", i)),
            Sense::click_and_drag(),
        )
        .on_hover_text(format!("{}: {} key(s)", row.name, row.keys.len()));
    pointer(l, i, row, &response, shared, lane, edits);
    context_menu(l, i, row, &response, lane, edits);
    let paint = ui.painter_at(keys_rect);
    let playhead = l.x_of(shared.transport.frame);
    paint.vline(
        playhead,
        keys_rect.y_range(),
        Stroke::new(1.0, Color32::from_rgb(220, 60, 60)),
    );
    let key_colour = Color32::from_rgb(120, 200, 120);
    let selected_colour = Color32::from_rgb(255, 200, 40);
    for &k in &row.keys {
        let dragged = lane.drag.filter(|d| d.0 == i && d.1 == k);
        let frame = dragged.map_or(k, |d| d.2);
        let c = Pos2::new(l.x_of(f64::from(frame)), keys_rect.center().y);
        let sel = lane.selected == Some((i, k));
        diamond(&paint, c, if sel { selected_colour } else { key_colour });
    }
}

fn diamond(p: &egui::Painter, c: Pos2, fill: Color32) {
    let pts = vec![
        c + Vec2::new(0.0, -HALF),
        c + Vec2::new(HALF, 0.0),
        c + Vec2::new(0.0, HALF),
        c + Vec2::new(-HALF, 0.0),
    ];
    p.add(egui::Shape::convex_polygon(
        pts,
        fill,
        Stroke::new(1.0, Color32::from_gray(30)),
    ));
}

/// Press, drag and release on a lane.
fn pointer(
    l: &Layout,
    i: usize,
    row: &AccessoryLane,
    r: &egui::Response,
    shared: &mut Shared,
    lane: &mut LaneState,
    edits: &mut Vec<LaneEdit>,
) {
    let at = r.interact_pointer_pos();
    // A drag is known a few points after the press: the key is the one
    // under the press.
    let pressed_at = if r.drag_started() {
        r.ctx.input(|i| i.pointer.press_origin())
    } else {
        at.filter(|_| r.clicked())
    };
    if let Some(p) = pressed_at {
        match key_at(l, &row.keys, p.x) {
            Some(k) => {
                lane.selected = Some((i, k));
                shared.transport.frame = f64::from(k);
                shared.transport.playing = false;
                if r.drag_started() {
                    lane.drag = Some((i, k, k));
                }
            }
            None => lane.selected = None,
        }
    }
    if let (Some(d), Some(p)) = (lane.drag.as_mut(), at)
        && d.0 == i
        && r.dragged()
    {
        d.2 = whole_frame(l, p.x);
    }
    if r.drag_stopped()
        && let Some((a, from, to)) = lane.drag.take()
        && a == i
        && from != to
    {
        edits.push(LaneEdit::Move {
            accessory: i,
            from,
            to,
        });
        lane.selected = Some((i, to));
        shared.transport.frame = f64::from(to);
    }
}

/// Right-click: delete the key under the pointer, or key the accessory at
/// the frame under it.
fn context_menu(
    l: &Layout,
    i: usize,
    row: &AccessoryLane,
    r: &egui::Response,
    lane: &mut LaneState,
    edits: &mut Vec<LaneEdit>,
) {
    if r.secondary_clicked()
        && let Some(p) = r.interact_pointer_pos()
    {
        let frame = key_at(l, &row.keys, p.x).unwrap_or_else(|| whole_frame(l, p.x));
        lane.menu_at = Some((i, frame));
    }
    let Some((a, frame)) = lane.menu_at.filter(|m| m.0 == i) else {
        return;
    };
    r.context_menu(|ui| {
        if row.keys.contains(&frame) {
            if ui
                .button(format!("Delete the key at frame {frame}"))
                .clicked()
            {
                edits.push(LaneEdit::Delete {
                    accessory: a,
                    frame,
                });
                ui.close();
            }
        } else if ui
            .button(format!("Key {} at frame {frame}", row.name))
            .on_hover_text("Registers the values the accessory plays at that frame")
            .clicked()
        {
            edits.push(LaneEdit::KeyHere {
                accessory: a,
                frame,
            });
            ui.close();
        }
    });
}
