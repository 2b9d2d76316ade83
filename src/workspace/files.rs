//! What a file is, by its name: the role a file given on the command line,
//! dropped on the window or picked in Open takes ([`FileKind`]), and whether
//! a list of such files leaves room for the bundled demo.

use std::path::Path;

/// Song formats the app decodes (by extension, any letter case).
pub const SONG_EXTENSIONS: [&str; 5] = ["wav", "mp3", "ogg", "flac", "oga"];

/// What a file is, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A `.vmdscene` arrangement.
    Scene,
    /// An MMD project (`.pmm`): opens as a scene.
    Project,
    /// A song for the scene's song slot.
    Song,
    /// A PMX or PMD model for an actor.
    Model,
    /// A DirectX `.x` accessory or a `.vac` placing one: into the set.
    Accessory,
    /// Anything else is read as a VMD: a motion, a camera or a light,
    /// placed by what it holds once read.
    Motion,
}

impl FileKind {
    pub fn of(path: &Path) -> FileKind {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if crate::scene::file::is_scene_path(path) {
            FileKind::Scene
        } else if ext == "pmm" {
            FileKind::Project
        } else if SONG_EXTENSIONS.contains(&ext.as_str()) {
            FileKind::Song
        } else if ext == "pmx" || ext == "pmd" {
            FileKind::Model
        } else if ext == "x" || ext == "vac" {
            FileKind::Accessory
        } else {
            FileKind::Motion
        }
    }
}

/// Whether a song among `paths` goes under the bundled demo scene: only
/// when every file given is a song (a song alone has no timeline to sit
/// on). A model, a motion or a scene file among them is the scene.
pub fn songs_only(paths: &[impl AsRef<Path>]) -> bool {
    !paths.is_empty()
        && paths
            .iter()
            .all(|p| FileKind::of(p.as_ref()) == FileKind::Song)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn kinds_by_extension_in_any_case() {
        let k = |s: &str| FileKind::of(Path::new(s));
        assert_eq!(k("a/Miku.PMX"), FileKind::Model);
        assert_eq!(k("mei.pmd"), FileKind::Model);
        assert_eq!(k("dance.vmd"), FileKind::Motion);
        assert_eq!(k("noext"), FileKind::Motion);
        assert_eq!(k("song.WAV"), FileKind::Song);
        assert_eq!(k("song.oga"), FileKind::Song);
        assert_eq!(k("x.vmdscene"), FileKind::Scene);
    }

    #[test]
    fn a_song_goes_under_the_demo_only_alone() {
        let p = |v: &[&str]| v.iter().map(PathBuf::from).collect::<Vec<_>>();
        assert!(songs_only(&p(&["s.wav"])));
        assert!(songs_only(&p(&["s.wav", "t.mp3"])));
        assert!(!songs_only(&p(&[
            "m.pmx",
            "dance.vmd",
            "camera.vmd",
            "s.wav"
        ])));
        assert!(!songs_only(&p(&["s.wav", "m.pmx"])));
        assert!(!songs_only(&p(&[])));
    }
}
