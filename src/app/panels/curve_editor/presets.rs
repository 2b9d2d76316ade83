//! The buttons under a curve box: Linear, presets (with their
//! quantisation error), copy and paste.

use super::edits::{Send, send_curve};
use super::{State, Target};
use crate::app::panels::PanelCtx;
use crate::vmd::Curve;
use crate::vmd::curve_edit::{self, presets};

/// The row under a box: Linear, the preset menu, Copy and Paste; each
/// click is one undo step.
pub(super) fn buttons(
    ui: &mut egui::Ui,
    cx: &mut PanelCtx,
    state: &State,
    target: Target,
    c: usize,
    curve: Curve,
) {
    // Wraps inside the column (at 1280 wide the four buttons do not fit
    // next to each other) instead of running into the next box.
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        if ui
            .small_button("Linear")
            .on_hover_text("Reset to MMD's default (20,20)-(107,107)")
            .clicked()
        {
            send_curve(cx, state, target, c, Curve::LINEAR, Send::Step);
        }
        ui.menu_button("Preset", |ui| {
            for p in presets() {
                let text = format!(
                    "{}  ({})  ±{:.4}",
                    p.label,
                    curve_edit::format_curve(p.curve),
                    p.quantisation_error
                );
                if ui
                    .button(text)
                    .on_hover_text(format!(
                        "{}: ideal {:.3}, {:.3}, {:.3}, {:.3}; the stored integers ease within {:.4} of it (weight units)",
                        p.source, p.ideal[0], p.ideal[1], p.ideal[2], p.ideal[3], p.quantisation_error
                    ))
                    .clicked()
                {
                    send_curve(cx, state, target, c, p.curve, Send::Step);
                    ui.close();
                }
            }
        });
        if ui
            .small_button("Copy")
            .on_hover_text("Copy this curve")
            .clicked()
        {
            cx.shared.curve_clipboard = Some(curve);
        }
        let clip = cx.shared.curve_clipboard;
        if ui
            .add_enabled(clip.is_some(), egui::Button::new("Paste").small())
            .on_hover_text(match clip {
                Some(k) => format!("Paste {}", curve_edit::format_curve(k)),
                None => "Nothing copied yet".to_string(),
            })
            .clicked()
            && let Some(k) = clip
        {
            send_curve(cx, state, target, c, k, Send::Step);
        }
    });
}
