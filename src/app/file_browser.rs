//! A built-in file browser, for when the system's file dialog cannot open
//! (no desktop portal, as on a bare X server): a folder field (Enter goes
//! there), the folder's entries (folders first), a file-name field (Enter
//! chooses), and Open/Save and Cancel. `egui-file-dialog` would do this, but
//! its releases target egui 0.36 and this app is on egui 0.37.

use std::path::{Path, PathBuf};

use super::jobs::Pick;
use crate::project::missing::Slot;

/// One folder entry.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    name: String,
    is_dir: bool,
}

/// What the browser ended with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Chosen(Vec<PathBuf>),
    Cancelled,
}

/// The open browser.
#[derive(Debug)]
pub struct FileBrowser {
    pub purpose: Pick,
    /// The folder shown.
    pub dir: PathBuf,
    /// The folder field's text.
    pub dir_field: String,
    /// The file-name field's text (the chosen file's name).
    pub name: String,
    /// Show files of every type, not only the purpose's.
    pub all_files: bool,
    entries: Vec<Entry>,
    error: Option<String>,
    listed: Option<PathBuf>,
    /// The file last clicked and when (egui time, seconds).
    last_click: Option<(String, f64)>,
}

/// Two clicks on one file at most this far apart (seconds) open it. egui
/// counts a double-click only within 0.3 s; system dialogs wait longer
/// (Windows 0.5 s by default), and a user's slower double-click must not
/// just pick the file.
const DOUBLE_CLICK_S: f64 = 0.6;

/// `dir` with `.` and `..` worked out, as the user would write it. On
/// Windows `std::fs::canonicalize` gives `\\?\C:\…` (a verbatim path the
/// user never typed, which then reaches titles, recent files and scene
/// files), so there the path is made absolute by the system's own rules
/// (`GetFullPathNameW`, which also folds `..`) instead.
fn tidy_folder(dir: &Path) -> std::io::Result<PathBuf> {
    #[cfg(windows)]
    {
        std::path::absolute(dir)
    }
    #[cfg(not(windows))]
    {
        std::fs::canonicalize(dir)
    }
}

impl FileBrowser {
    /// A browser for `purpose`, starting in `start` (or the current folder).
    pub fn new(purpose: Pick, start: Option<PathBuf>) -> Self {
        let dir = start
            .filter(|d| d.is_dir())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        FileBrowser {
            purpose,
            dir_field: dir.display().to_string(),
            dir,
            name: String::new(),
            all_files: false,
            entries: Vec::new(),
            error: None,
            last_click: None,
            listed: None,
        }
    }

    fn saving(&self) -> bool {
        matches!(
            self.purpose,
            Pick::SaveAs { .. }
                | Pick::SaveScene
                | Pick::CollectScene
                | Pick::SavePose
                | Pick::ExportVideo
        )
    }

    fn title(&self) -> &'static str {
        match self.purpose {
            Pick::Open => "Open",
            Pick::SaveAs { .. } => "Save As",
            Pick::Model => "Load model",
            Pick::Stage => "Add stage",
            Pick::Accessory => "Add accessory",
            Pick::BackgroundImage => "Background image",
            Pick::BackgroundVideo => "Background video",
            Pick::OpenScene => "Open scene",
            Pick::SaveScene => "Save scene as",
            Pick::CollectScene => "Collect scene into folder: the scene file",
            Pick::Song => "Load song",
            Pick::Merge { .. } => "Merge motion into the actor",
            Pick::StageMotion(_) => "The stage's own motion",
            Pick::LoadPose { .. } => "Load pose (VPD)",
            Pick::SavePose => "Save pose (VPD)",
            Pick::ExportVideo => "Export video to",
            Pick::Locate(Slot::ActorModel(_)) => "Locate the actor's model",
            Pick::Locate(Slot::Accessory(_)) => "Locate the accessory",
            Pick::SizingSource => "The model the motion was made for",
        }
    }

    /// File extensions (lower case) this purpose lists.
    fn extensions(&self) -> &'static [&'static str] {
        match self.purpose {
            Pick::Open => &["vmd", "vmdscene", "pmm", "pmx", "pmd", "x", "vac"],
            Pick::SaveAs { .. } => &["vmd"],
            Pick::Model | Pick::Locate(Slot::ActorModel(_)) | Pick::SizingSource => &["pmx", "pmd"],
            Pick::Locate(Slot::Accessory(_)) => &["x"],
            Pick::Stage => &["pmx", "pmd", "x"],
            Pick::Accessory => &["x", "vac"],
            Pick::BackgroundImage => &["png", "bmp", "tga", "jpg", "jpeg"],
            Pick::BackgroundVideo => &["mp4", "avi", "mov", "mkv", "webm", "wmv"],
            Pick::OpenScene => &["vmdscene", "pmm"],
            Pick::SaveScene | Pick::CollectScene => &["vmdscene"],
            Pick::Song => &["wav", "mp3", "ogg", "oga", "flac"],
            Pick::Merge { .. } | Pick::StageMotion(_) => &["vmd"],
            Pick::LoadPose { .. } | Pick::SavePose => &["vpd"],
            Pick::ExportVideo => &["mp4"],
        }
    }

    fn wanted(&self, name: &str) -> bool {
        self.all_files
            || Path::new(name).extension().is_some_and(|e| {
                let e = e.to_string_lossy().to_ascii_lowercase();
                self.extensions().contains(&e.as_str())
            })
    }

    /// Goes to folder `dir` (relative to the current one unless absolute).
    pub fn go(&mut self, dir: &Path) {
        let target = if dir.is_absolute() {
            dir.to_path_buf()
        } else {
            self.dir.join(dir)
        };
        if target.is_dir() {
            self.dir = tidy_folder(&target).unwrap_or(target);
            self.dir_field = self.dir.display().to_string();
            self.listed = None;
            self.error = None;
        } else {
            self.error = Some(format!("{} is not a folder", target.display()));
        }
    }

    fn list(&mut self) {
        if self.listed.as_deref() == Some(self.dir.as_path()) {
            return;
        }
        self.listed = Some(self.dir.clone());
        self.entries.clear();
        match std::fs::read_dir(&self.dir) {
            Ok(rd) => {
                for e in rd.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if name.starts_with('.') {
                        continue;
                    }
                    let is_dir = e.path().is_dir();
                    self.entries.push(Entry { name, is_dir });
                }
                self.entries.sort_by(|a, b| {
                    b.is_dir
                        .cmp(&a.is_dir)
                        .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
                });
            }
            Err(e) => self.error = Some(format!("cannot list {}: {e}", self.dir.display())),
        }
    }

    /// The chosen path, from the name field (an extension added when saving without one).
    fn chosen(&self) -> Option<PathBuf> {
        let name = self.name.trim();
        if name.is_empty() {
            return None;
        }
        let mut p = if Path::new(name).is_absolute() {
            PathBuf::from(name)
        } else {
            self.dir.join(name)
        };
        if self.saving() && p.extension().is_none() {
            p.set_extension(self.extensions()[0]);
        }
        Some(p)
    }

    /// Draws the browser window; returns how it ended, once it has.
    pub fn show(&mut self, ctx: &egui::Context) -> Option<Outcome> {
        self.list();
        let mut outcome = None;
        let mut go_to: Option<PathBuf> = None;
        egui::Window::new(self.title())
            .id(egui::Id::unique("vmd-studio-file-browser"))
            .collapsible(false)
            .resizable(true)
            .default_size([560.0, 420.0])
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                ui.weak("The system file dialog is not available here; this is VMD Studio's own.");
                self.folder_row(ui, &mut go_to);
                if let Some(e) = &self.error {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                }
                self.entries_ui(ui, &mut go_to, &mut outcome);
                self.name_row(ui, &mut go_to, &mut outcome);
            });
        if let Some(d) = go_to {
            if self.saving() || d.is_dir() {
                self.name.clear();
            }
            self.go(&d);
        }
        outcome
    }

    /// The folder row: Up, and the folder typed (Enter goes there).
    fn folder_row(&mut self, ui: &mut egui::Ui, go_to: &mut Option<PathBuf>) {
        ui.horizontal(|ui| {
            let l = ui.label("Folder");
            if ui.button("Up").on_hover_text("The parent folder").clicked()
                && let Some(p) = self.dir.parent()
            {
                *go_to = Some(p.to_path_buf());
            }
            let r = ui
                .add(egui::TextEdit::singleline(&mut self.dir_field).desired_width(f32::INFINITY))
                .labelled_by(l.id);
            if (r.lost_focus() || r.has_focus()) && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                *go_to = Some(PathBuf::from(self.dir_field.trim()));
            }
        });
    }

    /// The folder's entries (folders, and the files the purpose wants):
    /// click picks, double-click opens.
    fn entries_ui(
        &mut self,
        ui: &mut egui::Ui,
        go_to: &mut Option<PathBuf>,
        outcome: &mut Option<Outcome>,
    ) {
        let list_h = (ui.available_height() - 70.0).max(120.0);
        egui::ScrollArea::vertical()
            .id_salt("file-browser-list")
            .max_height(list_h)
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let mut shown = 0;
                let now = ui.input(|i| i.time);
                for e in &self.entries {
                    if !e.is_dir && !self.wanted(&e.name) {
                        continue;
                    }
                    shown += 1;
                    let text = if e.is_dir {
                        format!("{}/", e.name)
                    } else {
                        e.name.clone()
                    };
                    let r = ui.selectable_label(!e.is_dir && self.name == e.name, text);
                    if r.double_clicked() {
                        if e.is_dir {
                            *go_to = Some(self.dir.join(&e.name));
                        } else {
                            *outcome = Some(Outcome::Chosen(vec![self.dir.join(&e.name)]));
                        }
                    } else if r.clicked() {
                        if e.is_dir {
                            *go_to = Some(self.dir.join(&e.name));
                        } else {
                            let again = self
                                .last_click
                                .as_ref()
                                .is_some_and(|(n, t)| *n == e.name && now - *t <= DOUBLE_CLICK_S);
                            if again {
                                *outcome = Some(Outcome::Chosen(vec![self.dir.join(&e.name)]));
                            }
                            self.name = e.name.clone();
                            self.last_click = Some((e.name.clone(), now));
                        }
                    }
                }
                if shown == 0 {
                    ui.weak("No matching files here.");
                }
            });
    }

    /// The file name, All files, Open/Save/Merge and Cancel; a warning
    /// when a save would replace a file.
    fn name_row(
        &mut self,
        ui: &mut egui::Ui,
        go_to: &mut Option<PathBuf>,
        outcome: &mut Option<Outcome>,
    ) {
        ui.horizontal(|ui| {
            let l = ui.label("File name");
            let r = ui
                .add(egui::TextEdit::singleline(&mut self.name).desired_width(260.0))
                .labelled_by(l.id);
            let enter =
                (r.lost_focus() || r.has_focus()) && ui.input(|i| i.key_pressed(egui::Key::Enter));
            ui.checkbox(&mut self.all_files, "All files");
            let ok_text = if self.saving() {
                "Save"
            } else if matches!(self.purpose, Pick::Merge { .. }) {
                "Merge"
            } else {
                "Open"
            };
            let chosen = self.chosen();
            if (ui
                .add_enabled(chosen.is_some(), egui::Button::new(ok_text))
                .clicked()
                || enter)
                && let Some(p) = chosen
            {
                if p.is_dir() {
                    *go_to = Some(p);
                } else if !self.saving() && !p.is_file() {
                    self.error = Some(format!("{} does not exist", p.display()));
                } else {
                    *outcome = Some(Outcome::Chosen(vec![p]));
                }
            }
            if ui.button("Cancel").clicked() {
                *outcome = Some(Outcome::Cancelled);
            }
        });
        if self.saving()
            && let Some(p) = self.chosen()
            && p.is_file()
        {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("{} exists and will be replaced", p.display()),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn going_up_and_into_folders_gives_a_plain_folder_path() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let models = tmp.path().join("モデル");
        std::fs::create_dir_all(models.join("ミク")).expect("mkdir");
        let mut b = FileBrowser::new(Pick::Model, Some(models.join("ミク")));
        b.go(Path::new(".."));
        // `..` is gone and no verbatim prefix appears (on any system).
        let shown = b.dir_field.clone();
        assert!(
            !shown.contains("..") && !shown.starts_with(r"\\?\"),
            "{shown}"
        );
        assert_eq!(
            b.dir.file_name().and_then(|n| n.to_str()),
            Some("モデル"),
            "{shown}"
        );
        assert!(b.dir.is_dir());
        b.go(Path::new("ミク"));
        assert_eq!(b.dir.file_name().and_then(|n| n.to_str()), Some("ミク"));
    }
}
