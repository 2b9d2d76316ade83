//! The context menu of a key (right-click): copy, paste, delete, select
//! the key's track, set its curves (linear, presets, copied curve), copy
//! its rotation curve, jump to it. The menu only says what was chosen
//! ([`SectionEvent::Menu`]); the timeline carries it out on every
//! section's selection, each change one undo step.

use super::{SectionEvent, State};
use crate::vmd::Curve;
use crate::vmd::curve_edit::{self, presets};
use crate::workspace::document::KeyRef;

/// What was chosen in a key's context menu.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeyMenu {
    /// Copy the selected keys (of every section).
    Copy,
    /// Paste the copied keys at the playhead.
    Paste,
    /// Delete the selected keys.
    Delete,
    /// Select every key of the right-clicked key's track (only those).
    SelectTrack,
    /// Give every channel of the selected bone and camera keys this curve.
    SetCurve(Curve),
    /// Copy the right-clicked key's rotation curve (for Paste curve here
    /// or in the curve editor).
    CopyCurve,
    /// Move the playhead to the right-clicked key.
    JumpTo,
}

/// The right-clicked key's own curves? Morph, light, shadow and IK keys
/// have none.
fn has_curves(k: KeyRef) -> bool {
    matches!(k, KeyRef::Bone(_) | KeyRef::Camera(_))
}

/// Draws the menu for `key` (None: right-click on empty space, where
/// only Paste applies). `clipboard_keys`: how many keys Paste would put
/// back; `curve_clip`: the copied curve.
pub(super) fn key_menu(
    ui: &mut egui::Ui,
    state: &mut State,
    key: Option<KeyRef>,
    clipboard_keys: bool,
    curve_clip: Option<Curve>,
) {
    let mut chosen = None;
    let on_key = key.is_some();
    if ui
        .add_enabled(on_key, egui::Button::new("Copy keys"))
        .on_hover_text("Copy the selected keys (Ctrl+C)")
        .clicked()
    {
        chosen = Some(KeyMenu::Copy);
    }
    if ui
        .add_enabled(
            clipboard_keys,
            egui::Button::new("Paste keys at the playhead"),
        )
        .on_hover_text("Paste the copied keys, the earliest at the playhead (Ctrl+V)")
        .clicked()
    {
        chosen = Some(KeyMenu::Paste);
    }
    if ui
        .add_enabled(on_key, egui::Button::new("Delete keys"))
        .on_hover_text("Delete the selected keys (Delete)")
        .clicked()
    {
        chosen = Some(KeyMenu::Delete);
    }
    ui.separator();
    if ui
        .add_enabled(on_key, egui::Button::new("Select all in track"))
        .on_hover_text("Select every key of this key's track")
        .clicked()
    {
        chosen = Some(KeyMenu::SelectTrack);
    }
    if ui
        .add_enabled(on_key, egui::Button::new("Jump to key"))
        .on_hover_text("Move the playhead to this key")
        .clicked()
    {
        chosen = Some(KeyMenu::JumpTo);
    }
    let curves = key.is_some_and(has_curves);
    ui.separator();
    ui.add_enabled_ui(curves, |ui| {
        ui.menu_button("Set curve", |ui| {
            if ui
                .button("Linear on all channels")
                .on_hover_text("MMD's default (20,20)-(107,107) on every channel of the selected bone and camera keys")
                .clicked()
            {
                chosen = Some(KeyMenu::SetCurve(Curve::LINEAR));
            }
            // (A preset equal to Linear is the entry above.)
            for p in presets().iter().filter(|p| p.curve != Curve::LINEAR) {
                if ui
                    .button(format!("{}  ({})", p.label, curve_edit::format_curve(p.curve)))
                    .clicked()
                {
                    chosen = Some(KeyMenu::SetCurve(p.curve));
                }
            }
            ui.separator();
            let paste = match curve_clip {
                Some(c) => format!("Paste curve {}", curve_edit::format_curve(c)),
                None => "Paste curve".to_owned(),
            };
            if ui
                .add_enabled(curve_clip.is_some(), egui::Button::new(paste))
                .on_hover_text("The copied curve on every channel of the selected bone and camera keys")
                .clicked()
                && let Some(c) = curve_clip
            {
                chosen = Some(KeyMenu::SetCurve(c));
            }
        });
        if ui
            .button("Copy rotation curve")
            .on_hover_text("Copy this key's rotation curve (Paste curve puts it on other keys)")
            .clicked()
        {
            chosen = Some(KeyMenu::CopyCurve);
        }
    });
    if let Some(action) = chosen {
        state.emit(SectionEvent::Menu { key, action });
        ui.close();
    }
}
