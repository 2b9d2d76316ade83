//! Interpolation forensics: the raw bytes behind the curves of the active
//! key, which no other VMD tool shows.
//!
//! * Bone keys: the 64-byte block as 4 rows × 16, each byte coloured by the
//!   channel whose value it holds; hovering a byte highlights every copy of
//!   that value. Flags copies that disagree with the value a reader takes,
//!   row 0 bytes 2–3 (MMD's physics flag), the filler tails of rows 1–3 and
//!   blocks where only row 0 is filled.
//! * What a row-0 reader (three.js, saba, nanoem) takes the curves to be,
//!   with the largest easing difference max |Δweight| (weight units, 0..1).
//! * Camera keys: the 24-byte block, six items × (x1, x2, y1, y2).
//! * A file-wide tally, cached per document revision.

use egui::{Align2, Color32, FontId, Sense, Stroke, Vec2};

use super::PanelCtx;
use super::curve_editor::channel_color;
use crate::vmd::interpolation::{
    self, BoneLayout, PHYSICS_OFF, bone_copy_disagreements, bone_copy_indices,
    bone_curves_row0_reader, bone_layout,
};
use crate::vmd::{BoneChannel, CameraChannel, Curve, Motion};
use crate::workspace::document::KeyRef;

/// Byte indices of the filler tails of rows 1–3 (kept as found).
pub const FILLER: [usize; 6] = [31, 46, 47, 61, 62, 63];

/// File-wide counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub bone_keys: usize,
    pub row0_only: usize,
    pub physics_off: usize,
    /// Full-layout keys whose bytes 2–3 are neither `00 00` nor `63 0F`.
    pub other_flag: usize,
    /// Keys with at least one copy disagreeing with the value read.
    pub disagreeing: usize,
    /// Keys a row-0 reader gets a different curve for.
    pub row0_misread: usize,
}

/// Counts over every bone key of a motion.
pub fn tally(m: &Motion) -> Tally {
    let mut t = Tally {
        bone_keys: m.bones.len(),
        ..Default::default()
    };
    for k in &m.bones {
        let b = k.interpolation_block();
        match bone_layout(&b) {
            BoneLayout::Row0Only => t.row0_only += 1,
            BoneLayout::Full => {
                if b[2..4] == PHYSICS_OFF {
                    t.physics_off += 1;
                } else if b[2..4] != [0, 0] {
                    t.other_flag += 1;
                }
                if !bone_copy_disagreements(&b).is_empty() {
                    t.disagreeing += 1;
                }
                if bone_curves_row0_reader(&b) != interpolation::bone_curves(&b) {
                    t.row0_misread += 1;
                }
            }
        }
    }
    t
}

/// max over x ∈ [0, 1] (256 intervals) of |a.weight(x) − b.weight(x)|.
pub fn max_weight_difference(a: Curve, b: Curve) -> f64 {
    if a == b {
        return 0.0;
    }
    (0..=256)
        .map(|i| {
            let x = f64::from(i) / 256.0;
            (a.weight(x) - b.weight(x)).abs()
        })
        .fold(0.0, f64::max)
}

/// What a byte of a bone block holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteRole {
    /// A copy of channel `channel`'s value `value` (0 x1, 1 y1, 2 x2, 3 y2),
    /// in row `row`.
    Copy {
        channel: usize,
        value: usize,
        row: usize,
    },
    /// Row 0 bytes 2–3 of a full block: the physics flag.
    Physics,
    /// Filler tail of rows 1–3.
    Filler,
    /// Rows 1–3 of a row-0-only block (all zero, unused).
    Unused,
}

/// The role of every byte of a block with this layout.
pub fn byte_roles(layout: BoneLayout) -> [ByteRole; 64] {
    let mut roles = [ByteRole::Unused; 64];
    if layout == BoneLayout::Full {
        for f in FILLER {
            roles[f] = ByteRole::Filler;
        }
    }
    for c in BoneChannel::ALL {
        for (m, copies) in bone_copy_indices(c).iter().enumerate() {
            for &i in copies {
                let row = i / 16;
                if layout == BoneLayout::Row0Only && row > 0 {
                    continue;
                }
                roles[i] = ByteRole::Copy {
                    channel: c.index(),
                    value: m,
                    row,
                };
            }
        }
    }
    if layout == BoneLayout::Full {
        roles[2] = ByteRole::Physics;
        roles[3] = ByteRole::Physics;
    }
    roles
}

/// Persistent UI state of this panel.
#[derive(Debug, Default)]
pub struct State {
    /// (channel, value) whose copies are highlighted (hovered last frame).
    hovered: Option<(usize, usize)>,
    cache: Option<(u64, u64, Tally)>,
}

const VALUE_NAMES: [&str; 4] = ["x1", "y1", "x2", "y2"];

pub fn ui(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State) {
    let doc = cx.doc;
    let fresh = matches!(&state.cache, Some((id, rev, _)) if *id == doc.id && *rev == doc.revision);
    if !fresh {
        state.cache = Some((doc.id, doc.revision, tally(&doc.motion)));
    }
    egui::ScrollArea::vertical()
        .id_salt("forensics-scroll")
        .show(ui, |ui| {
            if let Some((_, _, t)) = &state.cache {
                file_tally(ui, t);
            }
            ui.separator();
            match cx.view.active {
                Some(KeyRef::Bone(i)) if (i as usize) < doc.motion.bones.len() => {
                    bone_view(ui, cx, state, i as usize)
                }
                Some(KeyRef::Camera(i)) if (i as usize) < doc.motion.cameras.len() => {
                    camera_view(ui, cx, i as usize)
                }
                _ => {
                    ui.weak("Select a bone or camera key to see its interpolation bytes.");
                }
            }
        });
}

fn file_tally(ui: &mut egui::Ui, t: &Tally) {
    ui.strong("This file");
    if t.bone_keys == 0 {
        ui.label("No bone keys.");
        return;
    }
    egui::Grid::new("forensics-tally")
        .num_columns(2)
        .show(ui, |ui| {
            let rows = [
                ("Bone keys", t.bone_keys, ""),
                (
                    "Only row 0 filled",
                    t.row0_only,
                    "tools that write one row; bytes 2–3 are Z/rotation x1 there",
                ),
                (
                    "Physics off (63 0F)",
                    t.physics_off,
                    "MMD's per-key physics flag in bytes 2–3",
                ),
                (
                    "Other bytes 2–3",
                    t.other_flag,
                    "older MMD copied Z x1 / rotation x1 there",
                ),
                (
                    "Copies that disagree",
                    t.disagreeing,
                    "a copy differs from the value read from its own row",
                ),
                (
                    "Misread by row-0 readers",
                    t.row0_misread,
                    "three.js, saba and nanoem would get a different curve",
                ),
            ];
            for (label, n, tip) in rows {
                ui.label(label).on_hover_text(tip);
                ui.label(n.to_string());
                ui.end_row();
            }
        });
}

fn cell_colors(ui: &egui::Ui, role: ByteRole) -> (Color32, &'static str) {
    let weak = ui.visuals().faint_bg_color;
    match role {
        ByteRole::Copy { channel, .. } => (channel_color(channel).gamma_multiply(0.35), ""),
        ByteRole::Physics => (
            Color32::from_rgb(150, 60, 170).gamma_multiply(0.6),
            "physics",
        ),
        ByteRole::Filler => (weak, "filler"),
        ByteRole::Unused => (weak, "unused"),
    }
}

fn bone_view(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State, i: usize) {
    let key = &cx.doc.motion.bones[i];
    let block = key.interpolation_block();
    let layout = bone_layout(&block);
    let roles = byte_roles(layout);
    let disagree = bone_copy_disagreements(&block);
    ui.heading(format!("Bone {} · frame {}", key.name().text, key.frame()));
    ui.label(match layout {
        BoneLayout::Full => "Layout: four shifted rows (what MMD writes). Each channel is read from its own row.",
        BoneLayout::Row0Only => "Layout: only row 0 is filled (bytes 16–63 are zero). Every channel is read from row 0; there is no physics flag.",
    });

    // Legend.
    ui.horizontal_wrapped(|ui| {
        for c in BoneChannel::ALL {
            ui.colored_label(channel_color(c.index()), format!("■ {}", c.label()));
        }
        if layout == BoneLayout::Full {
            ui.colored_label(Color32::from_rgb(190, 90, 210), "■ physics flag");
            ui.weak("■ filler");
        }
        ui.colored_label(Color32::RED, "□ disagreeing copy");
    });

    byte_grid(ui, state, &block, layout, &roles, &disagree);

    physics_flag_and_copies(ui, &block, layout, &disagree);

    row0_readers(ui, &block);
}

/// The interpolation block's 4 × 16 bytes, each coloured by its role,
/// with a tip; hovering a copy highlights the other copies of its value.
fn byte_grid(
    ui: &mut egui::Ui,
    state: &mut State,
    block: &[u8; 64],
    layout: BoneLayout,
    roles: &[ByteRole; 64],
    disagree: &[(usize, u8, u8)],
) {
    let cell = Vec2::new(28.0, 20.0);
    let mut hovered_now = None;
    egui::Grid::new("forensics-bone-grid")
        .spacing(Vec2::new(2.0, 2.0))
        .show(ui, |ui| {
            ui.label("");
            for col in 0..16 {
                ui.weak(format!("{col:>2}"));
            }
            ui.end_row();
            for row in 0..4 {
                ui.weak(format!("row {row}"));
                for col in 0..16 {
                    let b = 16 * row + col;
                    let role = roles[b];
                    let (fill, _) = cell_colors(ui, role);
                    let (rect, resp) = ui.allocate_exact_size(cell, Sense::hover());
                    let highlighted = matches!(role, ByteRole::Copy { channel, value, .. } if state.hovered == Some((channel, value)));
                    let p = ui.painter();
                    p.rect_filled(rect, 2.0, if highlighted { fill.gamma_multiply(2.5) } else { fill });
                    let bad = disagree.iter().any(|&(at, _, _)| at == b);
                    if bad {
                        p.rect_stroke(rect, 2.0, Stroke::new(2.0, Color32::RED), egui::StrokeKind::Inside);
                    } else if highlighted {
                        p.rect_stroke(rect, 2.0, Stroke::new(1.5, ui.visuals().strong_text_color()), egui::StrokeKind::Inside);
                    }
                    p.text(
                        rect.center(),
                        Align2::CENTER_CENTER,
                        format!("{:02X}", block[b]),
                        FontId::monospace(11.0),
                        ui.visuals().text_color(),
                    );
                    let tip = byte_tip(role, b, block, layout, bad);
                    if resp.on_hover_text(tip).hovered()
                        && let ByteRole::Copy { channel, value, .. } = role
                    {
                        hovered_now = Some((channel, value));
                    }
                }
                ui.end_row();
            }
        });
    state.hovered = hovered_now;
}

/// The tip of byte `b`: what it holds and how it is read.
fn byte_tip(role: ByteRole, b: usize, block: &[u8; 64], layout: BoneLayout, bad: bool) -> String {
    match role {
        ByteRole::Copy {
            channel,
            value,
            row: r,
        } => {
            let read = interpolation::bone_curve(block, BoneChannel::ALL[channel]);
            let want = [read.x1, read.y1, read.x2, read.y2][value];
            let j = channel + 4 * value;
            let mut s = format!(
                "byte {b} (row {r}) = {} ({:#04X})\nP[{j}] = {} {}; read from row {}: {want}",
                block[b],
                block[b],
                BoneChannel::ALL[channel].label(),
                VALUE_NAMES[value],
                if layout == BoneLayout::Full {
                    channel
                } else {
                    0
                },
            );
            if bad {
                s.push_str("\nThis copy disagrees with the value read.");
            }
            s
        }
        ByteRole::Physics => format!(
            "byte {b} = {:#04X}: MMD's physics flag (63 0F = physics off, 00 00 = on). A row-0 reader takes it as {} x1.",
            block[b],
            if b == 2 { "Z move" } else { "rotation" }
        ),
        ByteRole::Filler => format!("byte {b} = {:#04X}: filler, kept as found", block[b]),
        ByteRole::Unused => format!("byte {b} = {:#04X}: unused in a row-0-only block", block[b]),
    }
}

/// The physics flag (bytes 2–3) and the copies that disagree with the
/// value read.
fn physics_flag_and_copies(
    ui: &mut egui::Ui,
    block: &[u8; 64],
    layout: BoneLayout,
    disagree: &[(usize, u8, u8)],
) {
    if layout == BoneLayout::Full {
        let flag = [block[2], block[3]];
        let text = if flag == PHYSICS_OFF {
            "Bytes 2–3 = 63 0F: physics OFF for this key (the animation drives the rigid bodies)."
                .to_string()
        } else if flag == [0, 0] {
            "Bytes 2–3 = 00 00: physics on for this key.".to_string()
        } else {
            let z = interpolation::bone_curve(block, BoneChannel::Z).x1;
            let r = interpolation::bone_curve(block, BoneChannel::Rotation).x1;
            format!(
                "Bytes 2–3 = {:02X} {:02X}: not a physics flag{} (current MMD reads physics on).",
                flag[0],
                flag[1],
                if flag == [z, r] {
                    " — a copy of Z x1 and rotation x1, as older MMD wrote"
                } else {
                    ""
                }
            )
        };
        ui.label(text);
    }
    if disagree.is_empty() {
        ui.label("Every copy agrees with the value read.");
    } else {
        ui.colored_label(
            Color32::RED,
            format!("{} copies disagree with the value read:", disagree.len()),
        );
        for (at, read, found) in disagree {
            ui.monospace(format!("  byte {at}: {found} (read {read})"));
        }
    }
}

/// What a row-0 reader takes the curves to be, beside what is read.
fn row0_readers(ui: &mut egui::Ui, block: &[u8; 64]) {
    ui.add_space(6.0);
    ui.strong("What a row-0 reader (three.js, saba, nanoem) takes the curves to be");
    let correct = interpolation::bone_curves(block);
    let row0 = bone_curves_row0_reader(block);
    egui::Grid::new("forensics-row0")
        .num_columns(4)
        .striped(true)
        .show(ui, |ui| {
            ui.strong("Channel");
            ui.strong("Read (own row)");
            ui.strong("Row-0 reader");
            ui.strong("max |Δweight|");
            ui.end_row();
            for c in BoneChannel::ALL {
                let (a, b) = (correct[c.index()], row0[c.index()]);
                ui.colored_label(channel_color(c.index()), c.label());
                ui.monospace(crate::vmd::curve_edit::format_curve(a));
                ui.monospace(crate::vmd::curve_edit::format_curve(b));
                let d = max_weight_difference(a, b);
                if d > 0.0 {
                    ui.colored_label(Color32::from_rgb(230, 120, 60), format!("{d:.3}"));
                } else {
                    ui.label("0 (same)");
                }
                ui.end_row();
            }
        });
}

fn camera_view(ui: &mut egui::Ui, cx: &mut PanelCtx, i: usize) {
    let key = &cx.doc.motion.cameras[i];
    let block = key.interpolation_block();
    ui.heading(format!("Camera · frame {}", key.frame()));
    ui.label(
        "24 bytes: six items × (x1, x2, y1, y2) — note the order, unlike bones — and no copies.",
    );
    let cell = Vec2::new(28.0, 20.0);
    egui::Grid::new("forensics-camera-grid")
        .spacing(Vec2::new(2.0, 2.0))
        .show(ui, |ui| {
            ui.label("");
            for h in ["x1", "x2", "y1", "y2"] {
                ui.weak(h);
            }
            ui.label("curve");
            ui.end_row();
            for c in CameraChannel::ALL {
                let ci = c.index();
                ui.colored_label(channel_color(ci), c.label());
                for o in 0..4 {
                    let b = 4 * ci + o;
                    let (rect, resp) = ui.allocate_exact_size(cell, Sense::hover());
                    ui.painter()
                        .rect_filled(rect, 2.0, channel_color(ci).gamma_multiply(0.35));
                    ui.painter().text(
                        rect.center(),
                        Align2::CENTER_CENTER,
                        format!("{:02X}", block[b]),
                        FontId::monospace(11.0),
                        ui.visuals().text_color(),
                    );
                    resp.on_hover_text(format!("byte {b} (key offset {}) = {}", 32 + b, block[b]));
                }
                let k = key.curve(c);
                let over = [k.x1, k.y1, k.x2, k.y2].iter().any(|&v| v > 127);
                let text = crate::vmd::curve_edit::format_curve(k);
                if over {
                    ui.colored_label(Color32::RED, format!("{text} (above 127: clamped)"));
                } else {
                    ui.monospace(text);
                }
                ui.end_row();
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmd::interpolation::DEFAULT_BONE_BLOCK;

    #[test]
    fn roles_cover_copies_physics_and_filler() {
        let r = byte_roles(BoneLayout::Full);
        assert_eq!(r[2], ByteRole::Physics);
        assert_eq!(r[3], ByteRole::Physics);
        // Spec: byte 16k + j − k holds P[j]; P[2] = Z x1 → 17 (row 1), 32 (row 2).
        assert_eq!(
            r[17],
            ByteRole::Copy {
                channel: 2,
                value: 0,
                row: 1
            }
        );
        assert_eq!(
            r[32],
            ByteRole::Copy {
                channel: 2,
                value: 0,
                row: 2
            }
        );
        for f in FILLER {
            assert_eq!(r[f], ByteRole::Filler);
        }
        let copies = r
            .iter()
            .filter(|x| matches!(x, ByteRole::Copy { .. }))
            .count();
        // 64 bytes − 2 physics − 6 filler = 56 copies.
        assert_eq!(copies, 56);
        let r0 = byte_roles(BoneLayout::Row0Only);
        assert_eq!(
            r0[2],
            ByteRole::Copy {
                channel: 2,
                value: 0,
                row: 0
            }
        );
        assert_eq!(r0[20], ByteRole::Unused);
    }

    #[test]
    fn row0_reader_difference_on_a_physics_off_block() {
        let mut b = DEFAULT_BONE_BLOCK;
        b[2..4].copy_from_slice(&PHYSICS_OFF);
        let row0 = bone_curves_row0_reader(&b);
        // Z x1 becomes 0x63 = 99 instead of 20: (99,20)-(107,107).
        assert_eq!(row0[2], Curve::new(99, 20, 107, 107));
        let d = max_weight_difference(Curve::LINEAR, row0[2]);
        assert!(d > 0.2 && d < 0.6, "{d}");
    }
}
