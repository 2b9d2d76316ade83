//! Every user command in one place: label, tooltip and shortcut.
//!
//! Menus show the shortcuts; shortcuts are ignored while a text field has
//! focus. Shortcuts with more modifiers are checked first so Ctrl+Shift+S is
//! not taken for Ctrl+S.

use egui::{Key, KeyboardShortcut, Modifiers};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    Open,
    Save,
    SaveAs,
    CloseTab,
    LoadModel,
    Undo,
    Redo,
    RedoAlt,
    PlayPause,
    StepBack,
    StepForward,
    PrevKey,
    NextKey,
    Home,
    End,
    PrevCut,
    NextCut,
    DeleteKeys,
    CopyKeys,
    PasteKeys,
    InsertKey,
    SelectAll,
    SelectAtFrame,
    FitAll,
    ShowDopeSheet,
    ShowCurves,
    ShowPreview,
    ShowForensics,
}

impl Command {
    pub const ALL: [Command; 28] = [
        Command::Open,
        Command::Save,
        Command::SaveAs,
        Command::CloseTab,
        Command::LoadModel,
        Command::Undo,
        Command::Redo,
        Command::RedoAlt,
        Command::PlayPause,
        Command::StepBack,
        Command::StepForward,
        Command::PrevKey,
        Command::NextKey,
        Command::Home,
        Command::End,
        Command::PrevCut,
        Command::NextCut,
        Command::DeleteKeys,
        Command::CopyKeys,
        Command::PasteKeys,
        Command::InsertKey,
        Command::SelectAll,
        Command::SelectAtFrame,
        Command::FitAll,
        Command::ShowDopeSheet,
        Command::ShowCurves,
        Command::ShowPreview,
        Command::ShowForensics,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Command::Open => "Open…",
            Command::Save => "Save",
            Command::SaveAs => "Save As…",
            Command::CloseTab => "Close",
            Command::LoadModel => "Load model skeleton…",
            Command::Undo => "Undo",
            Command::Redo | Command::RedoAlt => "Redo",
            Command::PlayPause => "Play / Pause",
            Command::StepBack => "Previous frame",
            Command::StepForward => "Next frame",
            Command::PrevKey => "Previous key",
            Command::NextKey => "Next key",
            Command::Home => "First frame",
            Command::End => "Last frame",
            Command::PrevCut => "Previous cut",
            Command::NextCut => "Next cut",
            Command::DeleteKeys => "Delete keys",
            Command::CopyKeys => "Copy keys",
            Command::PasteKeys => "Paste keys at playhead",
            Command::InsertKey => "Insert key at playhead",
            Command::SelectAll => "Select all keys",
            Command::SelectAtFrame => "Select keys at playhead",
            Command::FitAll => "Fit all",
            Command::ShowDopeSheet => "Dope sheet",
            Command::ShowCurves => "Curve editor",
            Command::ShowPreview => "Preview",
            Command::ShowForensics => "Interpolation forensics",
        }
    }

    pub fn tooltip(self) -> &'static str {
        match self {
            Command::Open => "Open VMD files (motions, cameras, facial, light)",
            Command::Save => "Save the active file; unedited bytes stay as they were",
            Command::SaveAs => "Save the active file under a new name",
            Command::CloseTab => "Close the active file",
            Command::LoadModel => "Use a PMX/PMD model's skeleton in the preview",
            Command::Undo => "Undo the last edit",
            Command::Redo | Command::RedoAlt => "Redo the last undone edit",
            Command::PlayPause => "Play at 30 fps (frames are dropped, never slowed)",
            Command::StepBack => "Move the playhead one frame back",
            Command::StepForward => "Move the playhead one frame forward",
            Command::PrevKey => "Jump to the previous key of the visible tracks",
            Command::NextKey => "Jump to the next key of the visible tracks",
            Command::Home => "Jump to frame 0",
            Command::End => "Jump to the last keyed frame",
            Command::PrevCut => "Jump to the previous camera cut",
            Command::NextCut => "Jump to the next camera cut",
            Command::DeleteKeys => "Delete the selected keys",
            Command::CopyKeys => "Copy the selected keys",
            Command::PasteKeys => "Paste copied keys, the first at the playhead",
            Command::InsertKey => {
                "Key the selected tracks at the playhead with their current values"
            }
            Command::SelectAll => "Select every key",
            Command::SelectAtFrame => "Select every key at the playhead",
            Command::FitAll => "Zoom the timeline to show every key",
            Command::ShowDopeSheet => "Show the dope sheet",
            Command::ShowCurves => "Show the curve editor",
            Command::ShowPreview => "Show the 3D preview",
            Command::ShowForensics => "Show the raw interpolation bytes",
        }
    }

    pub fn shortcut(self) -> Option<KeyboardShortcut> {
        let ctrl = Modifiers::COMMAND;
        let ctrl_shift = Modifiers::COMMAND | Modifiers::SHIFT;
        let none = Modifiers::NONE;
        let alt = Modifiers::ALT;
        let k = |m, key| Some(KeyboardShortcut::new(m, key));
        match self {
            Command::Open => k(ctrl, Key::O),
            Command::Save => k(ctrl, Key::S),
            Command::SaveAs => k(ctrl_shift, Key::S),
            Command::CloseTab => k(ctrl, Key::W),
            Command::LoadModel => None,
            Command::Undo => k(ctrl, Key::Z),
            Command::Redo => k(ctrl_shift, Key::Z),
            Command::RedoAlt => k(ctrl, Key::Y),
            Command::PlayPause => k(none, Key::Space),
            Command::StepBack => k(none, Key::ArrowLeft),
            Command::StepForward => k(none, Key::ArrowRight),
            Command::PrevKey => k(alt, Key::ArrowLeft),
            Command::NextKey => k(alt, Key::ArrowRight),
            Command::Home => k(none, Key::Home),
            Command::End => k(none, Key::End),
            Command::PrevCut => k(none, Key::PageUp),
            Command::NextCut => k(none, Key::PageDown),
            Command::DeleteKeys => k(none, Key::Delete),
            Command::CopyKeys => k(ctrl, Key::C),
            Command::PasteKeys => k(ctrl, Key::V),
            Command::InsertKey => k(none, Key::I),
            Command::SelectAll => k(ctrl, Key::A),
            Command::SelectAtFrame => k(ctrl_shift, Key::A),
            Command::FitAll => k(none, Key::F),
            Command::ShowDopeSheet => k(none, Key::F1),
            Command::ShowCurves => k(none, Key::F2),
            Command::ShowPreview => k(none, Key::F3),
            Command::ShowForensics => k(none, Key::F4),
        }
    }

    /// Commands whose shortcut was pressed this frame (none while typing).
    pub fn from_input(ctx: &egui::Context) -> Vec<Command> {
        if ctx.egui_wants_keyboard_input() {
            return Vec::new();
        }
        let mut cmds: Vec<Command> = Command::ALL
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
        });
        out
    }

    /// Whether holding the key repeats the command (frame and key stepping).
    pub fn repeats(self) -> bool {
        matches!(
            self,
            Command::StepBack
                | Command::StepForward
                | Command::PrevKey
                | Command::NextKey
                | Command::PrevCut
                | Command::NextCut
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
