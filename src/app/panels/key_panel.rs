//! Key panel: numeric fields for the active key (`DocView::active`).
//!
//! Units as MMD shows them: frames, MMD units for positions, bone rotation
//! as Euler degrees (Y, then X, then Z) next to the stored quaternion,
//! camera rotation in degrees (stored in radians), field of view in
//! degrees, morph weight and light colour 0..1.
//!
//! Every change is an [`Edit::SetKeys`]: while a value is dragged (or typed)
//! the edits merge under one id per widget, and the step closes when the
//! drag stops or the field loses focus, so one gesture is one undo step.

use super::PanelCtx;
use super::dope_sheet::{TrackRef, track_keys, track_label, track_of};
use crate::vmd::evaluate::{euler_deg_from_quat, quat_from_euler_deg};
use crate::vmd::{BoneKey, MorphKey};
use crate::workspace::document::{Document, Edit, EditRequest, KeyChanges, KeyRef};

/// Persistent UI state of the key panel.
#[derive(Debug, Default)]
pub struct State {
    /// Text of the track-rename field.
    pub rename: String,
    /// Which track (in which document) `rename` was filled from.
    rename_for: Option<(u64, TrackRef)>,
    /// Euler angles shown for a quaternion (kept while it is unchanged, so
    /// a dragged angle does not jump between equivalent triples).
    euler: Option<(KeyRef, [u32; 4], [f32; 3])>,
    /// Last rename refusal, shown under the field.
    pub rename_error: Option<String>,
}

/// What the widgets asked for this frame.
#[derive(Default)]
struct Out {
    /// Changes to merge under a widget's id.
    merge: Option<(KeyChanges, String, u64)>,
    /// Changes applied as their own step (checkboxes, rename).
    apply: Option<(KeyChanges, String)>,
    /// A drag or text entry finished.
    end: bool,
}

impl Out {
    /// Records a DragValue's outcome.
    fn watch(
        &mut self,
        r: &egui::Response,
        changes: impl FnOnce() -> KeyChanges,
        label: &str,
        salt: &str,
        key: KeyRef,
    ) {
        if r.changed() {
            let id = egui::Id::unique(("vmd-studio-key-panel", salt, key)).value();
            self.merge = Some((changes(), label.to_owned(), id));
        }
        if r.drag_stopped() || r.lost_focus() {
            self.end = true;
        }
    }
}

fn bone_change(i: u32, k: BoneKey) -> KeyChanges {
    KeyChanges {
        bones: vec![(i, k)],
        ..Default::default()
    }
}

/// A DragValue row for three floats.
#[allow(clippy::too_many_arguments)]
fn vec3_row(
    ui: &mut egui::Ui,
    label: &str,
    v: &mut [f32; 3],
    speed: f64,
    out: &mut Out,
    mut make: impl FnMut([f32; 3]) -> KeyChanges,
    salt: &str,
    key: KeyRef,
) {
    ui.label(label);
    let axes = ["x", "y", "z"];
    let widths: Vec<f32> = (0..3)
        .map(|i| field_width(ui, &format!("{} {:.4}", axes[i], v[i])))
        .collect();
    field_rows(ui, &widths, |ui, i| {
        let r = ui.add(
            egui::DragValue::new(&mut v[i])
                .speed(speed)
                .prefix(format!("{} ", axes[i]))
                .max_decimals(4),
        );
        let now = *v;
        out.watch(&r, || make(now), label, &format!("{salt}-{i}"), key);
    });
    ui.end_row();
}

/// Width a value field showing `text` takes (at least the standard
/// interact width); an upper bound, so a row of them never overflows.
fn field_width(ui: &egui::Ui, text: &str) -> f32 {
    let text_w = egui::WidgetText::from(text)
        .into_galley(
            ui,
            Some(egui::TextWrapMode::Extend),
            f32::INFINITY,
            egui::TextStyle::Button,
        )
        .size()
        .x;
    (text_w + 2.0 * ui.spacing().button_padding.x + 2.0).max(ui.spacing().interact_size.x)
}

/// Lays out fields of the given widths in a grid cell: as many on a line as
/// fit the cell, the rest on the next lines. A vertical of horizontal lines
/// (not a wrapped row, which a Grid does not size: the wrapped line ran
/// under the next row), so the panel keeps its width and nothing overlaps.
fn field_rows(ui: &mut egui::Ui, widths: &[f32], mut add: impl FnMut(&mut egui::Ui, usize)) {
    let avail = ui.available_width();
    let gap = ui.spacing().item_spacing.x;
    let mut lines: Vec<Vec<usize>> = Vec::new();
    let mut x = 0.0;
    for (i, &w) in widths.iter().enumerate() {
        match lines.last_mut() {
            Some(line) if x + gap + w <= avail => {
                line.push(i);
                x += gap + w;
            }
            _ => {
                lines.push(vec![i]);
                x = w;
            }
        }
    }
    ui.vertical(|ui| {
        for line in lines {
            ui.horizontal(|ui| {
                for i in line {
                    add(ui, i);
                }
            });
        }
    });
}

/// Refuses a frame change that would put two keys of one track on a frame.
fn frame_free(doc: &Document, key: KeyRef, f: u32) -> Result<(), String> {
    let Some(t) = track_of(&doc.motion, key) else {
        return Ok(());
    };
    let m = &doc.motion;
    let clash = track_keys(doc, &t).iter().any(|&i| {
        let other = match key {
            KeyRef::Bone(_) => KeyRef::Bone(i),
            KeyRef::Morph(_) => KeyRef::Morph(i),
            KeyRef::Camera(_) => KeyRef::Camera(i),
            KeyRef::Light(_) => KeyRef::Light(i),
            KeyRef::Shadow(_) => KeyRef::Shadow(i),
            KeyRef::Ik(_) => KeyRef::Ik(i),
        };
        other != key && m.key_frame(other) == Some(f)
    });
    if clash {
        Err(format!(
            "\"{}\" already has a key on frame {f}; the frame was not changed",
            track_label(&t)
        ))
    } else {
        Ok(())
    }
}

/// Frame field shared by every key kind.
fn frame_row(
    ui: &mut egui::Ui,
    cx: &mut PanelCtx,
    key: KeyRef,
    frame: u32,
    out: &mut Out,
    set: impl FnOnce(u32) -> KeyChanges,
) {
    let l = ui.label("Frame");
    let mut f = frame;
    let r = ui
        .add(egui::DragValue::new(&mut f).speed(0.2).range(0..=u32::MAX))
        .labelled_by(l.id);
    ui.end_row();
    if f != frame {
        match frame_free(cx.doc, key, f) {
            Ok(()) => out.watch(&r, || set(f), "Change frame", "frame", key),
            Err(e) => cx.shared.error(e),
        }
    } else if r.drag_stopped() || r.lost_focus() {
        out.end = true;
    }
}

/// The key panel: the fields of the active key (one function per key
/// kind below), the rename field, and the edits they ask for.
pub fn ui(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State) {
    ui.heading("Key");
    let Some(key) = cx.view.active else {
        ui.weak("Click a key in the dope sheet to edit it.");
        return;
    };
    let n = cx.view.selection.len();
    if n > 1 {
        ui.weak(format!("{n} keys selected; editing the one clicked last."));
    }
    let mut out = Out::default();
    egui::Grid::new("key-panel-grid")
        .num_columns(2)
        .spacing([8.0, 4.0])
        .show(ui, |ui| match key {
            KeyRef::Bone(i) => bone_fields(ui, cx, state, key, i, &mut out),
            KeyRef::Morph(i) => morph_fields(ui, cx, key, i, &mut out),
            KeyRef::Camera(i) => camera_fields(ui, cx, key, i, &mut out),
            KeyRef::Light(i) => light_fields(ui, cx, key, i, &mut out),
            KeyRef::Shadow(i) => shadow_fields(ui, cx, key, i, &mut out),
            KeyRef::Ik(i) => ik_fields(ui, cx, key, i, &mut out),
        });
    rename_ui(ui, cx, state, key, &mut out);
    if let Some((c, label, id)) = out.merge {
        cx.push(EditRequest::merge(Edit::SetKeys(c), label, id));
    }
    if let Some((c, label)) = out.apply {
        cx.push(EditRequest::apply(Edit::SetKeys(c), label));
    }
    if out.end {
        cx.push(EditRequest::EndMerge);
    }
}

/// Frame, position, rotation (Euler and quaternion) and the physics flag of bone key `i`.
fn bone_fields(
    ui: &mut egui::Ui,
    cx: &mut PanelCtx,
    state: &mut State,
    key: KeyRef,
    i: u32,
    out: &mut Out,
) {
    let m = &cx.doc.motion;
    let Some(k) = m.bones.get(i as usize) else {
        return;
    };
    ui.label("Bone");
    ui.strong(k.name().text);
    ui.end_row();
    frame_row(ui, cx, key, k.frame(), out, |f| {
        let mut k = *k;
        k.set_frame(f);
        bone_change(i, k)
    });
    let mut p = k.position();
    vec3_row(
        ui,
        "Position",
        &mut p,
        0.01,
        out,
        |p| {
            let mut k = *k;
            k.set_position(p);
            bone_change(i, k)
        },
        "pos",
        key,
    );
    let q = k.rotation();
    let bits = q.map(f32::to_bits);
    let mut e = match state.euler {
        Some((kk, b, e)) if kk == key && b == bits => e,
        _ => euler_deg_from_quat(q),
    };
    let before = e;
    vec3_row(
        ui,
        "Rotation (deg)",
        &mut e,
        0.2,
        out,
        |e| {
            let mut k = *k;
            k.set_rotation(quat_from_euler_deg(e));
            bone_change(i, k)
        },
        "euler",
        key,
    );
    state.euler = Some((key, bits, e));
    if e != before {
        // Remember the angles typed, keyed by the quaternion they make.
        state.euler = Some((key, quat_from_euler_deg(e).map(f32::to_bits), e));
    }
    // Two rows of two (x y, z w): four five-decimal fields in
    // one row would not fit a narrow panel.
    let mut q2 = q;
    let qaxes = ["x", "y", "z", "w"];
    for (row, pair) in [[0usize, 1], [2, 3]].into_iter().enumerate() {
        ui.label(if row == 0 { "Quaternion" } else { "" });
        let widths = pair.map(|j| field_width(ui, &format!("{} {:.4}", qaxes[j], q2[j])));
        field_rows(ui, &widths, |ui, n| {
            let j = pair[n];
            let r = ui.add(
                egui::DragValue::new(&mut q2[j])
                    .speed(0.001)
                    .prefix(format!("{} ", qaxes[j]))
                    .max_decimals(4),
            );
            let now = q2;
            out.watch(
                &r,
                || {
                    let mut k = *k;
                    k.set_rotation(now);
                    bone_change(i, k)
                },
                "Edit quaternion",
                &format!("quat-{j}"),
                key,
            );
        });
        ui.end_row();
    }
    ui.label("Physics");
    let mut off = k.physics_off();
    if ui
        .checkbox(&mut off, "off for this key")
        .on_hover_text("MMD's per-key physics flag (interpolation bytes 2-3 = 63 0F)")
        .changed()
    {
        let mut k = *k;
        k.set_physics_off(off);
        out.apply = Some((bone_change(i, k), "Toggle physics".into()));
    }
    ui.end_row();
}

/// Frame and weight of morph key `i`.
fn morph_fields(ui: &mut egui::Ui, cx: &mut PanelCtx, key: KeyRef, i: u32, out: &mut Out) {
    let m = &cx.doc.motion;
    let Some(k) = m.morphs.get(i as usize) else {
        return;
    };
    let change = |k: MorphKey| KeyChanges {
        morphs: vec![(i, k)],
        ..Default::default()
    };
    ui.label("Morph");
    ui.strong(k.name().text);
    ui.end_row();
    frame_row(ui, cx, key, k.frame(), out, |f| {
        let mut k = *k;
        k.set_frame(f);
        change(k)
    });
    let l = ui.label("Weight");
    let mut w = k.weight();
    let r = ui
        .add(egui::DragValue::new(&mut w).speed(0.005).max_decimals(4))
        .labelled_by(l.id);
    out.watch(
        &r,
        || {
            let mut k = *k;
            k.set_weight(w);
            change(k)
        },
        "Edit weight",
        "weight",
        key,
    );
    ui.end_row();
}

/// Frame, target, rotation, distance, field of view and perspective of camera key `i`.
fn camera_fields(ui: &mut egui::Ui, cx: &mut PanelCtx, key: KeyRef, i: u32, out: &mut Out) {
    let m = &cx.doc.motion;
    let Some(k) = m.cameras.get(i as usize) else {
        return;
    };
    let change = |k| KeyChanges {
        cameras: vec![(i, k)],
        ..Default::default()
    };
    frame_row(ui, cx, key, k.frame(), out, |f| {
        let mut k = *k;
        k.set_frame(f);
        change(k)
    });
    let mut t = k.target();
    vec3_row(
        ui,
        "Target",
        &mut t,
        0.01,
        out,
        |t| {
            let mut k = *k;
            k.set_target(t);
            change(k)
        },
        "target",
        key,
    );
    let mut r = k.rotation().map(f32::to_degrees);
    vec3_row(
        ui,
        "Rotation (deg)",
        &mut r,
        0.2,
        out,
        |r| {
            let mut k = *k;
            k.set_rotation(r.map(f32::to_radians));
            change(k)
        },
        "cam-rot",
        key,
    );
    let l = ui.label("Distance");
    let mut d = k.distance();
    let resp = ui
        .add(egui::DragValue::new(&mut d).speed(0.05).max_decimals(4))
        .labelled_by(l.id);
    out.watch(
        &resp,
        || {
            let mut k = *k;
            k.set_distance(d);
            change(k)
        },
        "Edit distance",
        "distance",
        key,
    );
    ui.end_row();
    let l = ui.label("Field of view");
    let mut fov = k.fov();
    let resp = ui
        .add(
            egui::DragValue::new(&mut fov)
                .speed(0.2)
                .range(1..=180)
                .suffix(" deg"),
        )
        .labelled_by(l.id);
    out.watch(
        &resp,
        || {
            let mut k = *k;
            k.set_fov(fov);
            change(k)
        },
        "Edit field of view",
        "fov",
        key,
    );
    ui.end_row();
    ui.label("Perspective");
    let mut p = k.perspective();
    if ui.checkbox(&mut p, "perspective on").changed() {
        let mut k = *k;
        k.set_perspective(p);
        out.apply = Some((change(k), "Toggle perspective".into()));
    }
    ui.end_row();
}

/// Frame, colour and direction of light key `i`.
fn light_fields(ui: &mut egui::Ui, cx: &mut PanelCtx, key: KeyRef, i: u32, out: &mut Out) {
    let m = &cx.doc.motion;
    let Some(k) = m.lights.get(i as usize) else {
        return;
    };
    let change = |k| KeyChanges {
        lights: vec![(i, k)],
        ..Default::default()
    };
    frame_row(ui, cx, key, k.frame(), out, |f| {
        let mut k = *k;
        k.set_frame(f);
        change(k)
    });
    let mut c = k.color();
    ui.label("Colour");
    let caxes = ["r", "g", "b"];
    let mut widths: Vec<f32> = (0..3)
        .map(|j| field_width(ui, &format!("{} {:.3}", caxes[j], c[j])))
        .collect();
    // The swatch.
    widths.push(16.0);
    field_rows(ui, &widths, |ui, j| {
        if j == 3 {
            let sw = egui::Color32::from_rgb(
                (c[0].clamp(0.0, 1.0) * 255.0) as u8,
                (c[1].clamp(0.0, 1.0) * 255.0) as u8,
                (c[2].clamp(0.0, 1.0) * 255.0) as u8,
            );
            let (rect, _) = ui.allocate_exact_size(egui::vec2(16.0, 16.0), egui::Sense::hover());
            ui.painter().rect_filled(rect, 2.0, sw);
            return;
        }
        let r = ui.add(
            egui::DragValue::new(&mut c[j])
                .speed(0.005)
                .range(0.0..=1.0)
                .prefix(format!("{} ", caxes[j]))
                .max_decimals(3),
        );
        let now = c;
        out.watch(
            &r,
            || {
                let mut k = *k;
                k.set_color(now);
                change(k)
            },
            "Edit light colour",
            &format!("light-{j}"),
            key,
        );
    });
    ui.end_row();
    let mut d = k.direction();
    vec3_row(
        ui,
        "Direction",
        &mut d,
        0.01,
        out,
        |d| {
            let mut k = *k;
            k.set_direction(d);
            change(k)
        },
        "light-dir",
        key,
    );
}

/// Frame, mode and distance of self-shadow key `i`.
fn shadow_fields(ui: &mut egui::Ui, cx: &mut PanelCtx, key: KeyRef, i: u32, out: &mut Out) {
    let m = &cx.doc.motion;
    let Some(k) = m.shadows.get(i as usize) else {
        return;
    };
    let change = |k| KeyChanges {
        shadows: vec![(i, k)],
        ..Default::default()
    };
    frame_row(ui, cx, key, k.frame(), out, |f| {
        let mut k = *k;
        k.set_frame(f);
        change(k)
    });
    let l = ui.label("Mode");
    let mut mode = k.mode();
    let r = ui
        .add(egui::DragValue::new(&mut mode).range(0..=2))
        .labelled_by(l.id)
        .on_hover_text("0 = off, 1 = mode 1, 2 = mode 2");
    out.watch(
        &r,
        || {
            let mut k = *k;
            k.set_mode(mode);
            change(k)
        },
        "Edit shadow mode",
        "shadow-mode",
        key,
    );
    ui.end_row();
    let l = ui.label("Distance");
    let mut d = k.distance();
    let r = ui
        .add(egui::DragValue::new(&mut d).speed(0.0001).max_decimals(5))
        .labelled_by(l.id);
    out.watch(
        &r,
        || {
            let mut k = *k;
            k.set_distance(d);
            change(k)
        },
        "Edit shadow distance",
        "shadow-dist",
        key,
    );
    ui.end_row();
}

/// Frame, the model's visibility and each IK switch of IK key `i`.
fn ik_fields(ui: &mut egui::Ui, cx: &mut PanelCtx, key: KeyRef, i: u32, out: &mut Out) {
    let m = &cx.doc.motion;
    let Some(k) = m.iks.get(i as usize) else {
        return;
    };
    let change = |k| KeyChanges {
        iks: vec![(i, k)],
        ..Default::default()
    };
    frame_row(ui, cx, key, k.frame(), out, |f| {
        let mut k = k.clone();
        k.set_frame(f);
        change(k)
    });
    ui.label("Model shown");
    let mut s = k.show();
    if ui.checkbox(&mut s, "show").changed() {
        let mut k = k.clone();
        k.set_show(s);
        out.apply = Some((change(k), "Toggle show".into()));
    }
    ui.end_row();
    for e in 0..k.entry_count() {
        ui.label(format!("IK {}", k.entry_name(e).text));
        let mut on = k.entry_enabled(e);
        if ui.checkbox(&mut on, "on").changed() {
            let mut k = k.clone();
            k.set_entry_enabled(e, on);
            out.apply = Some((change(k), "Toggle IK".into()));
        }
        ui.end_row();
    }
}

/// The track-rename field (bones and morphs).
fn rename_ui(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State, key: KeyRef, out: &mut Out) {
    let Some(track) = track_of(&cx.doc.motion, key) else {
        return;
    };
    if !matches!(track, TrackRef::Bone(_) | TrackRef::Morph(_)) {
        return;
    }
    let here = (cx.doc.id, track.clone());
    if state.rename_for.as_ref() != Some(&here) {
        state.rename = track_label(&track);
        state.rename_for = Some(here);
        state.rename_error = None;
    }
    ui.add_space(6.0);
    ui.separator();
    let label = ui.label("Track name");
    let mut go = false;
    ui.horizontal_wrapped(|ui| {
        let r = ui.add(
            egui::TextEdit::singleline(&mut state.rename)
                .desired_width(150.0)
                .hint_text("15 bytes in Shift_JIS"),
        );
        let r = r.labelled_by(label.id);
        if r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
            go = true;
        }
        if ui
            .button("Rename track")
            .on_hover_text("Rename every key of this track (the name must fit 15 bytes)")
            .clicked()
        {
            go = true;
        }
    });
    if let Some(e) = &state.rename_error {
        ui.colored_label(ui.visuals().error_fg_color, e);
    }
    if !go {
        return;
    }
    match rename_changes(cx.doc, &track, &state.rename) {
        Ok(Some(c)) => {
            state.rename_error = None;
            out.apply = Some((c, format!("Rename track to {}", state.rename)));
            state.rename_for = None;
        }
        Ok(None) => state.rename_error = None,
        Err(e) => {
            cx.shared.error(format!("Rename refused: {e}"));
            state.rename_error = Some(e);
        }
    }
}

/// Every key of `track` renamed to `text`, or why not. `Ok(None)`: no change.
pub fn rename_changes(
    doc: &Document,
    track: &TrackRef,
    text: &str,
) -> Result<Option<KeyChanges>, String> {
    if text.is_empty() {
        return Err("a track name cannot be empty".into());
    }
    let m = &doc.motion;
    let enc = m.name_encoding();
    let keys = track_keys(doc, track);
    let mut c = KeyChanges::default();
    let mut new_key: Option<Vec<u8>> = None;
    match track {
        TrackRef::Bone(old) => {
            for &i in keys {
                let Some(k) = m.bones.get(i as usize) else {
                    continue;
                };
                let mut k = *k;
                k.set_name(text, enc).map_err(|e| e.to_string())?;
                new_key.get_or_insert_with(|| k.name_key().to_vec());
                c.bones.push((i, k));
            }
            if new_key.as_deref() == Some(old.as_slice()) {
                return Ok(None);
            }
            if let Some(n) = &new_key
                && doc.index.bone(n).is_some()
            {
                return Err(format!("a bone track named \"{text}\" already exists"));
            }
        }
        TrackRef::Morph(old) => {
            for &i in keys {
                let Some(k) = m.morphs.get(i as usize) else {
                    continue;
                };
                let mut k = *k;
                k.set_name(text, enc).map_err(|e| e.to_string())?;
                new_key.get_or_insert_with(|| k.name_key().to_vec());
                c.morphs.push((i, k));
            }
            if new_key.as_deref() == Some(old.as_slice()) {
                return Ok(None);
            }
            if let Some(n) = &new_key
                && doc.index.morph(n).is_some()
            {
                return Err(format!("a morph track named \"{text}\" already exists"));
            }
        }
        _ => return Ok(None),
    }
    Ok((!c.is_empty()).then_some(c))
}
