//! The song lane under the timeline's ruler: the waveform (exact min/max per
//! pixel column from the envelope pyramid, aligned to frames), beat and bar
//! lines, and the handles that move the song (its offset) and the grid.
//!
//! * Drag the waveform: moves the song on the timeline (its offset, in
//!   whole frames).
//! * Drag in the beat strip (the lane's top edge): moves the beat grid so
//!   the beat under the pointer follows it; double-click there makes that
//!   beat the downbeat.
//! * The label column: song name, tempo, Tap (tap tempo), Snap, mute.

use egui::{Align2, Color32, FontId, Mesh, Pos2, Rect, Sense, Stroke, Vec2};

use super::Transport;
use super::dope_sheet::Layout;
use crate::app::song::SongState;
use crate::audio::beats::MarkStep;
use crate::audio::{MinMax, Song, SongTiming};

/// Height of the lane, points.
pub const LANE_HEIGHT: f32 = 46.0;
/// Height of the beat strip at the lane's top, points.
pub const BEAT_STRIP: f32 = 9.0;
/// Colour of the waveform (tests find the waveform's mesh by it).
pub const WAVE_COLOR: Color32 = Color32::from_rgb(90, 170, 230);
const BEAT_COLOR: Color32 = Color32::from_rgba_premultiplied(150, 150, 150, 90);
/// Colour of downbeats and bar numbers (tests find the numbers by it).
pub const BAR_COLOR: Color32 = Color32::from_rgb(240, 190, 60);

/// Lane height for the current song state (0 without a song).
pub fn lane_height(song: &SongState) -> f32 {
    if song.song.is_some() || song.loading().is_some() {
        LANE_HEIGHT
    } else {
        0.0
    }
}

/// Drag state kept between frames.
#[derive(Debug, Default, Clone, Copy)]
pub struct LaneDrag {
    /// Dragging the song: offset and pointer x at the press.
    offset_from: Option<(i32, f32)>,
    /// Dragging the grid: the beat being moved.
    beat: Option<i64>,
}

/// The timeline's hook: beat ticks on the ruler, then the lane right under
/// the ruler across the key area (its label in the label column). Returns
/// the height used (0 without a song).
pub fn under_ruler(
    ui: &mut egui::Ui,
    shared: &mut super::Shared,
    drag: &mut LaneDrag,
    l: &Layout,
    left: f32,
) -> f32 {
    let h = lane_height(&shared.song);
    if h <= 0.0 {
        return 0.0;
    }
    ruler_beats(ui, &shared.song, l);
    let lane = Rect::from_min_max(
        Pos2::new(l.ruler.left(), l.ruler.bottom()),
        Pos2::new(l.ruler.right(), l.ruler.bottom() + h),
    );
    let label = Rect::from_min_max(
        Pos2::new(left, l.ruler.bottom()),
        Pos2::new(l.ruler.left(), l.ruler.bottom() + h),
    );
    lane_ui(
        ui,
        &mut shared.song,
        &shared.transport,
        l,
        lane,
        label,
        drag,
    );
    h
}

/// Draws beat ticks along the ruler's bottom (the bar numbers go in the
/// lane, where they cannot cover the ruler's frame and seconds labels).
pub fn ruler_beats(ui: &egui::Ui, song: &SongState, l: &Layout) {
    let Some(grid) = song.grid else { return };
    let painter = ui.painter_at(l.ruler);
    let (lo, hi) = l.visible_frames();
    let beat_px = grid.period_seconds() * 30.0 * f64::from(l.px_per_frame);
    let bar_px = beat_px * f64::from(grid.beats_per_bar);
    if bar_px < 4.0 {
        return;
    }
    let from = song.seconds_of_frame(lo);
    let to = song.seconds_of_frame(hi);
    for (k, t) in grid.beats_between(from, to) {
        let down = grid.is_downbeat(k);
        if !down && beat_px < 5.0 {
            continue;
        }
        let x = l.x_of(song.frame_of_seconds(t));
        let (h, color) = if down {
            (9.0, BAR_COLOR)
        } else {
            (5.0, BEAT_COLOR)
        };
        painter.vline(
            x,
            l.ruler.bottom() - h..=l.ruler.bottom(),
            Stroke::new(1.0, color),
        );
    }
}

/// Draws the lane in `rect` (the key-area width, under the ruler) and its
/// label in `label_rect`, and handles dragging. Returns true when the
/// song's offset changed.
fn lane_ui(
    ui: &mut egui::Ui,
    song: &mut SongState,
    transport: &Transport,
    l: &Layout,
    rect: Rect,
    label_rect: Rect,
    drag: &mut LaneDrag,
) -> bool {
    let visuals = ui.visuals().clone();
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, visuals.faint_bg_color);
    painter.hline(
        rect.x_range(),
        rect.bottom() - 0.5,
        Stroke::new(1.0, visuals.widgets.noninteractive.bg_stroke.color),
    );

    label_ui(ui, song, transport, label_rect);

    if let Some((fraction, what, _)) = song.loading()
        && song.song.is_none()
    {
        let w = rect.width() * fraction;
        painter.rect_filled(
            Rect::from_min_size(rect.left_top(), Vec2::new(w, rect.height())),
            0.0,
            visuals.selection.bg_fill.gamma_multiply(0.4),
        );
        painter.text(
            rect.center(),
            Align2::CENTER_CENTER,
            format!("Song: {what}… {:.0}%", fraction * 100.0),
            FontId::proportional(12.0),
            visuals.text_color(),
        );
        return false;
    }
    let Some(s) = song.song.clone() else {
        return false;
    };
    let Some(timing) = song.timing() else {
        return false;
    };

    draw_wave(&painter, &s, &timing, l, rect);
    draw_beat_grid(&painter, song, l, rect);
    lane_input(ui, song, l, rect, drag)
}

/// The song's waveform: one column of min/max per point.
fn draw_wave(painter: &egui::Painter, s: &Song, timing: &SongTiming, l: &Layout, rect: Rect) {
    let cols = rect.width().max(0.0).floor() as usize;
    let mut mm: Vec<Option<MinMax>> = vec![None; cols];
    let start = timing.sample_at(l.frame_at(rect.left()));
    let spc = timing.samples_per_frame() / f64::from(l.px_per_frame);
    s.columns(start, spc, &mut mm);
    let wave = Rect::from_min_max(Pos2::new(rect.left(), rect.top() + BEAT_STRIP), rect.max);
    let mid = wave.center().y;
    let half = wave.height() * 0.5 - 1.0;
    let mut mesh = Mesh::default();
    for (c, m) in mm.iter().enumerate() {
        let Some(m) = m else { continue };
        let x = rect.left() + c as f32;
        let top = mid - f32::from(m.max) / 32768.0 * half;
        let bottom = (mid - f32::from(m.min) / 32768.0 * half).max(top + 1.0);
        mesh.add_colored_rect(
            Rect::from_min_max(Pos2::new(x, top), Pos2::new(x + 1.0, bottom)),
            WAVE_COLOR,
        );
    }
    painter.add(mesh);
}

/// Beat and bar lines through the lane, handles in the beat strip, bar numbers.
fn draw_beat_grid(painter: &egui::Painter, song: &SongState, l: &Layout, rect: Rect) {
    if let Some(grid) = song.grid {
        let (lo, hi) = l.visible_frames();
        let beat_px = grid.period_seconds() * 30.0 * f64::from(l.px_per_frame);
        // Thinned with the zoom: beats, then bars, then every 2nd, 4th…
        // bar, so the marks never merge into a band.
        let Some(step) = grid.mark_step(beat_px) else {
            return;
        };
        for (k, t) in grid.beats_between(song.seconds_of_frame(lo), song.seconds_of_frame(hi)) {
            let down = grid.is_downbeat(k);
            if !grid.shows(k, step) {
                continue;
            }
            let x = l.x_of(song.frame_of_seconds(t));
            let color = if down { BAR_COLOR } else { BEAT_COLOR };
            painter.vline(
                x,
                rect.top()..=rect.bottom(),
                Stroke::new(1.0, color.gamma_multiply(0.6)),
            );
            if beat_px >= 10.0 || down {
                let tri = vec![
                    Pos2::new(x - 3.5, rect.top()),
                    Pos2::new(x + 3.5, rect.top()),
                    Pos2::new(x, rect.top() + BEAT_STRIP - 1.0),
                ];
                painter.add(egui::Shape::convex_polygon(tri, color, Stroke::NONE));
            }
            // Numbers on the bars shown, when they are far enough apart.
            let shown_bar_px = beat_px
                * f64::from(grid.beats_per_bar)
                * match step {
                    MarkStep::Bars(n) => f64::from(n),
                    MarkStep::Beats => 1.0,
                };
            if down && shown_bar_px >= 28.0 {
                let bar = (k - i64::from(grid.downbeat_phase))
                    .div_euclid(i64::from(grid.beats_per_bar.max(1)))
                    + 1;
                painter.text(
                    Pos2::new(x + 5.0, rect.top() + 1.0),
                    Align2::LEFT_TOP,
                    bar.to_string(),
                    FontId::proportional(9.0),
                    BAR_COLOR,
                );
            }
        }
    }
}

/// Dragging the song (its offset) or a beat mark, double-clicking a downbeat
/// and the lane's context menu. Returns true when the song's offset changed.
fn lane_input(
    ui: &mut egui::Ui,
    song: &mut SongState,
    l: &Layout,
    rect: Rect,
    drag: &mut LaneDrag,
) -> bool {
    let mut offset_changed = false;
    let id = ui.make_persistent_id("song-lane");
    let resp = ui
        .interact(rect, id, Sense::click_and_drag())
        .on_hover_text("Drag to move the song on the timeline; drag the beat marks at the top to move the beat grid; double-click a beat mark to make it the downbeat");
    resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Group, true, "Song lane"));
    let in_strip = |p: Pos2| p.y < rect.top() + BEAT_STRIP + 2.0;
    // The press point, not where the drag was recognised (a few points later).
    let press = ui.input(|i| i.pointer.press_origin());
    if resp.drag_started()
        && let Some(p) = press.or(resp.interact_pointer_pos())
    {
        if in_strip(p) && song.grid.is_some() {
            let t = song.seconds_of_frame(l.frame_at(p.x));
            drag.beat = song.grid.map(|g| g.nearest_beat(t).0);
        } else {
            drag.offset_from = Some((song.offset_frames, p.x));
        }
    }
    if resp.dragged()
        && let Some(p) = resp.interact_pointer_pos()
    {
        if let Some(k) = drag.beat {
            song.move_beat(k, l.frame_at(p.x));
        } else if let Some((o0, x0)) = drag.offset_from {
            let delta = (f64::from(p.x - x0) / f64::from(l.px_per_frame)).round() as i32;
            let new = o0.saturating_add(delta);
            if new != song.offset_frames {
                song.offset_frames = new;
                offset_changed = true;
            }
        }
    }
    if resp.drag_stopped() {
        if drag.offset_from.is_some() {
            song.messages.push((
                format!("Song starts at frame {}", song.offset_frames),
                false,
            ));
        }
        if let (Some(_), Some(g)) = (drag.beat, song.grid) {
            song.messages.push((
                format!(
                    "Beat grid moved: first beat at {:.3} s",
                    g.first_beat_seconds
                ),
                false,
            ));
        }
        *drag = LaneDrag::default();
    }
    if resp.double_clicked()
        && let Some(p) = resp.interact_pointer_pos()
        && in_strip(p)
        && let Some(g) = song.grid
    {
        let (k, _) = g.nearest_beat(song.seconds_of_frame(l.frame_at(p.x)));
        song.grid = Some(g.with_downbeat(k));
        song.messages.push(("Downbeat set".into(), false));
    }
    resp.context_menu(|ui| {
        let mut o = song.offset_frames;
        ui.horizontal(|ui| {
            ui.label("Song starts at frame");
            if ui.add(egui::DragValue::new(&mut o)).changed() {
                song.offset_frames = o;
                offset_changed = true;
            }
        });
        ui.checkbox(&mut song.snap_to_beats, "Snap keys and cuts to beats");
        if ui.button("Remove song").clicked() {
            song.clear();
            offset_changed = true;
            ui.close();
        }
    });
    offset_changed
}

/// The lane's label: name, tempo, tap, snap, mute.
fn label_ui(ui: &mut egui::Ui, song: &mut SongState, transport: &Transport, rect: Rect) {
    let mut child =
        ui.new_child(egui::UiBuilder::new().max_rect(rect.shrink2(Vec2::new(4.0, 1.0))));
    let ui = &mut child;
    // Nothing of the label column reaches over the lane.
    ui.set_clip_rect(rect.intersect(ui.clip_rect()));
    ui.spacing_mut().item_spacing = Vec2::new(4.0, 1.0);
    ui.spacing_mut().slider_width = 40.0;
    let name = song
        .path
        .as_ref()
        .and_then(|p| p.file_name())
        .map_or_else(|| "Song".to_owned(), |n| n.to_string_lossy().into_owned());
    // First row: volume and mute at the right, the name in what is left.
    ui.horizontal(|ui| {
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.add(
                egui::Slider::new(&mut song.volume, 0.0..=1.0)
                    .show_value(false)
                    .text("Vol"),
            )
            .on_hover_text("Song volume");
            let mute = if song.muted { "Unmute" } else { "Mute" };
            if ui
                .small_button(mute)
                .on_hover_text("Mute / unmute the song")
                .clicked()
            {
                song.muted = !song.muted;
            }
            ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                ui.add(
                    egui::Label::new(egui::RichText::new(name.clone()).small().strong()).truncate(),
                )
                .on_hover_text(song.no_sound_reason().map_or_else(
                    || {
                        format!(
                            "Playing through {}",
                            song.device_name().unwrap_or("the audio device")
                        )
                    },
                    |why| format!("No sound: {why}"),
                ));
            });
        });
    });
    ui.horizontal(|ui| {
        let bpm = song
            .grid
            .map_or_else(|| "— BPM".to_owned(), |g| format!("{:.1} BPM", g.bpm));
        ui.label(egui::RichText::new(bpm).small());
        if ui
            .small_button("Tap")
            .on_hover_text("Tap tempo: click on the beat (4 taps or more) while the song plays")
            .clicked()
            && let Some(g) = song.tap(transport.frame, std::time::Instant::now())
        {
            song.messages
                .push((format!("Tapped tempo: {:.1} BPM", g.bpm), false));
        }
        ui.toggle_value(&mut song.snap_to_beats, egui::RichText::new("Snap").small())
            .on_hover_text("Snap key moves, pastes and new cuts to the nearest beat");
    });
}
