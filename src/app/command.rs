//! Every user command in one place: label, tooltip and shortcut.
//!
//! Menus show the shortcuts; shortcuts are ignored while a text field has
//! focus. Shortcuts with more modifiers are checked first so Ctrl+Shift+S is
//! not taken for Ctrl+S.

use egui::{Key, KeyboardShortcut};

/// Declares the commands from one table, so a command cannot exist without
/// its label, tooltip and shortcut entry, and [`UiCommand::ALL`] lists every
/// one (the shortcut table is built from it).
macro_rules! commands {
    ($($name:ident: $label:literal, $tip:literal, [$($sc:tt)*];)*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum UiCommand {
            $($name,)*
        }

        impl UiCommand {
            /// Every command, in table order.
            pub const ALL: &'static [UiCommand] = &[$(UiCommand::$name,)*];

            pub fn label(self) -> &'static str {
                match self {
                    $(UiCommand::$name => $label,)*
                }
            }

            pub fn tooltip(self) -> &'static str {
                match self {
                    $(UiCommand::$name => $tip,)*
                }
            }

            pub fn shortcut(self) -> Option<KeyboardShortcut> {
                match self {
                    $(UiCommand::$name => shortcut!($($sc)*),)*
                }
            }
        }
    };
}

/// `none`, or a modifier set (`PLAIN`, `CTRL`, `CTRL_SHIFT`, `ALT`) and a key.
macro_rules! shortcut {
    (none) => {
        None
    };
    ($m:ident $key:ident) => {
        Some(KeyboardShortcut::new(modifiers::$m, Key::$key))
    };
}

mod modifiers {
    use egui::Modifiers;
    pub const PLAIN: Modifiers = Modifiers::NONE;
    pub const CTRL: Modifiers = Modifiers::COMMAND;
    pub const CTRL_SHIFT: Modifiers = Modifiers::COMMAND.plus(Modifiers::SHIFT);
    pub const ALT: Modifiers = Modifiers::ALT;
}

commands! {
    Open: "Open…", "Open VMD files (motions, cameras, facial, light)", [CTRL O];
    Save: "Save", "Save the active file; unedited bytes stay as they were", [CTRL S];
    SaveAll: "Save all", "Save every file with unsaved edits (and the scene file, if it has one and changed)", [CTRL_SHIFT S];
    SaveAs: "Save As…", "Save the active file under a new name", [none];
    CloseTab: "Close", "Close the active file", [CTRL W];
    LoadModel: "Load model skeleton…", "Use a PMX/PMD model's skeleton in the preview", [none];
    MergeMotion: "Merge motion into actor…", "Load a VMD onto the selected actor's motion as MMD does (e.g. a face motion onto a dance): its keys are added from frame 0 as one undo step", [none];
    LoadPose: "Load pose (VPD)…", "Key an MMD pose file's bones and morphs on the selected actor's motion at the playhead (one undo step)", [none];
    LoadPoseMirrored: "Load pose mirrored (VPD)…", "Load a pose with left and right swapped (名前の左 ⇄ 右, x mirrored)", [none];
    SavePose: "Save pose (VPD)…", "Save the selected actor's pose at the playhead (its keys' values, before IK and physics) as an MMD pose file", [none];
    Undo: "Undo", "Undo the last edit", [CTRL Z];
    Redo: "Redo", "Redo the last undone edit", [CTRL_SHIFT Z];
    RedoAlt: "Redo", "Redo the last undone edit", [CTRL Y];
    PlayPause: "Play / Pause", "Play at 30 fps (frames are dropped, never slowed)", [PLAIN Space];
    StepBack: "Previous frame", "Move the playhead one frame back", [PLAIN ArrowLeft];
    StepForward: "Next frame", "Move the playhead one frame forward", [PLAIN ArrowRight];
    PrevKey: "Previous key", "Jump to the previous key of any track", [ALT ArrowLeft];
    NextKey: "Next key", "Jump to the next key of any track", [ALT ArrowRight];
    Home: "First frame", "Jump to frame 0", [PLAIN Home];
    End: "Last frame", "Jump to the last keyed frame", [PLAIN End];
    PrevCut: "Previous cut", "Jump to the previous camera cut", [PLAIN PageUp];
    NextCut: "Next cut", "Jump to the next camera cut", [PLAIN PageDown];
    DeleteKeys: "Delete keys", "Delete the selected keys", [PLAIN Delete];
    CopyKeys: "Copy keys", "Copy the selected keys", [CTRL C];
    PasteKeys: "Paste keys at playhead", "Paste copied keys, the first at the playhead", [CTRL V];
    InsertKey: "Insert key at playhead", "Key the selected tracks at the playhead with their current values", [PLAIN I];
    SelectAll: "Select all keys", "Select every key", [CTRL A];
    SelectAtFrame: "Select keys at playhead", "Select every key at the playhead", [CTRL_SHIFT A];
    FitAll: "Fit all", "Zoom the timeline to show every key", [PLAIN F];
    ShowDopeSheet: "Dope sheet", "Show the dope sheet", [PLAIN F1];
    ShowCurves: "Curve editor", "Show the curve editor", [PLAIN F2];
    ShowPreview: "Preview", "Show the 3D preview", [PLAIN F3];
    ShowForensics: "Interpolation forensics", "Show the raw interpolation bytes", [PLAIN F4];
}

impl UiCommand {
    /// Commands whose shortcut was pressed this frame (none while typing).
    pub fn from_input(ctx: &egui::Context) -> Vec<UiCommand> {
        if ctx.egui_wants_keyboard_input() {
            return Vec::new();
        }
        let mut cmds: Vec<UiCommand> = UiCommand::ALL
            .iter()
            .copied()
            .filter(|c| c.shortcut().is_some())
            .collect();
        // Most modifiers first.
        cmds.sort_by_key(|c| {
            std::cmp::Reverse(c.shortcut().map_or(0, |s| {
                let m = s.modifiers;
                u8::from(m.command || m.ctrl) + u8::from(m.shift) + u8::from(m.alt)
            }))
        });
        let mut out = Vec::new();
        ctx.input_mut(|i| {
            for c in cmds {
                let Some(s) = c.shortcut() else { continue };
                let n = i.count_and_consume_key(s.modifiers, s.logical_key);
                // Stepping keys act once per press or key repeat (several
                // repeats can arrive in one frame); others once per frame.
                let times = if c.repeats() { n } else { n.min(1) };
                out.extend(std::iter::repeat_n(c, times));
            }
            // A real window turns Ctrl+C / Ctrl+V into clipboard events, not
            // key presses (and Ctrl+V into nothing at all while the system
            // clipboard holds no text): they are the key commands here.
            let mut copy = false;
            i.events.retain(|e| match e {
                egui::Event::Copy => {
                    copy = true;
                    false
                }
                egui::Event::Paste(_) => {
                    if !out.contains(&UiCommand::PasteKeys) {
                        out.push(UiCommand::PasteKeys);
                    }
                    false
                }
                _ => true,
            });
            if copy && !out.contains(&UiCommand::CopyKeys) {
                out.push(UiCommand::CopyKeys);
            }
        });
        if out.contains(&UiCommand::CopyKeys) {
            // Some text on the system clipboard, so that the next Ctrl+V
            // reaches the app as a paste event.
            ctx.copy_text("VMD Studio keys".to_owned());
        }
        out
    }

    /// Whether holding the key repeats the command (frame and key stepping).
    pub fn repeats(self) -> bool {
        matches!(
            self,
            UiCommand::StepBack
                | UiCommand::StepForward
                | UiCommand::PrevKey
                | UiCommand::NextKey
                | UiCommand::PrevCut
                | UiCommand::NextCut
        )
    }

    /// A menu button that shows the shortcut; returns true when clicked.
    pub fn menu_button(self, ui: &mut egui::Ui, enabled: bool) -> bool {
        let mut b = egui::Button::new(self.label());
        if let Some(s) = self.shortcut() {
            b = b.shortcut_text(ui.ctx().format_shortcut(&s));
        }
        ui.add_enabled(enabled, b)
            .on_hover_text(self.tooltip())
            .clicked()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_is_listed_once_and_no_two_share_a_shortcut() {
        let mut seen = std::collections::HashSet::new();
        for c in UiCommand::ALL {
            assert!(seen.insert(*c), "{c:?} listed twice");
            assert!(!c.label().is_empty() && !c.tooltip().is_empty());
        }
        // The table declares 33 commands (count the `commands!` rows).
        assert_eq!(UiCommand::ALL.len(), 33);
        let shortcuts: Vec<_> = UiCommand::ALL.iter().filter_map(|c| c.shortcut()).collect();
        let unique: std::collections::HashSet<_> = shortcuts.iter().collect();
        assert_eq!(unique.len(), shortcuts.len(), "a shortcut is used twice");
    }
}
