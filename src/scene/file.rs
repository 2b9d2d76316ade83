//! The `.vmdscene` file: a small, human-readable JSON arrangement.
//!
//! ```json
//! {
//!   "format": "vmd-studio-scene",
//!   "version": 1,
//!   "actors": [
//!     { "name": "Actor 1", "model": "models/mei.pmd", "motion": "dance.vmd", "offset": 0 },
//!     { "name": "Actor 2", "model": null, "motion": "dance.vmd", "offset": 0,
//!       "position": [12, 0, -5], "turn": 30 }
//!   ],
//!   "camera": "camera.vmd",
//!   "light": "camera.vmd",
//!   "song": null,
//!   "preview": { "through_camera": true, "rate": 30, "frame": 0,
//!                "physics": "play", "collide_actors": false }
//! }
//! ```
//! Paths are relative to the folder of the scene file (written with `/`),
//! so a folder holding a scene and its files can be moved or shared; a
//! path that cannot be made relative (another drive) is written absolute.
//! `"model": null` is the built-in skeleton. An actor's `"position"` (MMD
//! units) and `"turn"` (degrees about Y) place it in the scene, written
//! only when not at the origin. Reading never fails on a
//! missing motion or model: the slot is left empty and the file named in
//! [`Loaded::missing`].
//!
//! The set (`crate::scene::set`), each part written only when present, so
//! older scenes read unchanged and a scene without a set writes as before:
//! ```json
//!   "stages": [ { "name": "Stage", "path": "stage/stage.pmx", "shown": true,
//!                 "order": "before", "motion": "stage/gears.vmd" } ],
//!   "accessories": [ { "name": "mic", "path": "acc/mic.x", "order": "after",
//!                      "parent": { "actor": 0, "bone": "右手首" },
//!                      "position": [0, 0, 0], "rotation": [0, 90, 0],
//!                      "scale": 1, "opacity": 1, "shown": true, "ground_shadow": true,
//!                      "keys": [ { "frame": 30, "position": [1, 0, 0], … } ] } ],
//!   "background": { "colour": [1, 1, 1], "image": { "path": "bg.png", "fit": "fit" },
//!                   "video": { "path": "bg.mp4", "frame_offset": 0 } }
//! ```
//! Rotations are degrees; `parent` absent is the world; a key's absent
//! field is the panel default. A stage, accessory, image or video whose
//! file is missing is left out and named in [`Loaded::missing`].
//!
//! `"physics"` is the scene's physics mode (`"off"`, `"play"`, `"always"`,
//! `"trace"`, as Playback ▸ Physics names them); absent or unknown, the
//! user's current mode stays. `"collide_actors"`: the actors' bodies
//! collide with each other (default false).

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::file_set::{FileAccessory, FileBackground, FileStage, read_set, write_set, yes};
use glam::Vec3;

use super::{Actor, ActorPlacement, ModelRef, PreviewSettings, Scene, Song};
use crate::model::physics::SimulationMode;

/// The `format` field: tells a scene from any other JSON.
pub const FORMAT: &str = "vmd-studio-scene";
/// The version this program writes and the newest it reads.
pub const VERSION: u32 = 1;
/// File extension, without the dot.
pub const EXTENSION: &str = "vmdscene";

#[derive(Debug, Serialize, Deserialize)]
struct FileActor {
    #[serde(default)]
    name: String,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    motion: Option<String>,
    #[serde(default)]
    offset: i32,
    /// Where the actor stands (absent: the origin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    position: Option<[f32; 3]>,
    /// Degrees about Y (absent: 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    turn: Option<f32>,
}

impl FileActor {
    /// The placement the file gives; a non-finite value reads as 0 (JSON
    /// has no NaN, but a huge number overflows to infinity).
    fn placement(&self) -> ActorPlacement {
        let finite = |v: f32| if v.is_finite() { v } else { 0.0 };
        ActorPlacement {
            position: Vec3::from_array(self.position.unwrap_or_default().map(finite)),
            turn_degrees: finite(self.turn.unwrap_or(0.0)),
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct FileSong {
    path: String,
    #[serde(default)]
    offset: i32,
}

#[derive(Debug, Serialize, Deserialize)]
struct FilePreview {
    #[serde(default = "yes")]
    through_camera: bool,
    #[serde(default = "thirty")]
    rate: u32,
    #[serde(default)]
    frame: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    physics: Option<String>,
    #[serde(default)]
    collide_actors: bool,
}

/// The file's name of a physics mode.
fn mode_name(m: SimulationMode) -> &'static str {
    match m {
        SimulationMode::Off => "off",
        SimulationMode::Play => "play",
        SimulationMode::Always => "always",
        SimulationMode::Trace => "trace",
    }
}

/// The physics mode a file names (`None` for a name this version does not
/// know).
fn mode_of(name: &str) -> Option<SimulationMode> {
    SimulationMode::ALL
        .into_iter()
        .find(|&m| mode_name(m).eq_ignore_ascii_case(name.trim()))
}

fn thirty() -> u32 {
    30
}

#[derive(Debug, Serialize, Deserialize)]
struct SceneFile {
    format: String,
    version: u32,
    #[serde(default)]
    actors: Vec<FileActor>,
    #[serde(default)]
    camera: Option<String>,
    #[serde(default)]
    light: Option<String>,
    #[serde(default)]
    song: Option<FileSong>,
    #[serde(default)]
    preview: Option<FilePreview>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    stages: Vec<FileStage>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    accessories: Vec<FileAccessory>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    background: Option<FileBackground>,
}

/// Why a scene file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a VMD Studio scene: {reason}")]
    NotAScene { path: String, reason: String },
    #[error(
        "{path} is a version {found} scene; this VMD Studio reads up to version {VERSION} (update the app)"
    )]
    TooNew { path: String, found: u32 },
    #[error("cannot write {path}: {reason}")]
    Write { path: String, reason: String },
}

/// A file the scene names that is not there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// What it was for: "motion of Actor 1", "camera", "model of Actor 2", "song".
    pub role: String,
    /// The path as resolved against the scene's folder.
    pub path: PathBuf,
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} not found: {}", self.role, self.path.display())
    }
}

/// A scene as read: paths resolved, missing files left out and listed.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub scene: Scene<PathBuf>,
    pub missing: Vec<Missing>,
}

/// `path` (relative to `base` unless absolute) as an absolute-or-joined path.
fn resolve(base: &Path, text: &str) -> PathBuf {
    // Accept both separators: scenes are shared between Windows and Linux.
    let p = PathBuf::from(text.replace('\\', "/"));
    if p.is_absolute() { p } else { base.join(p) }
}

/// `path` relative to the folder `base`, written with `/`; absolute when
/// no relative path exists (different roots or prefixes).
pub fn relative_path(path: &Path, base: &Path) -> String {
    let abs = |p: &Path| -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir()
                .map(|d| d.join(p))
                .unwrap_or_else(|_| p.to_path_buf())
        }
    };
    let (p, b) = (abs(path), abs(base));
    let pc: Vec<Component> = p.components().filter(|c| *c != Component::CurDir).collect();
    let bc: Vec<Component> = b.components().filter(|c| *c != Component::CurDir).collect();
    // Different roots (e.g. drive letters): keep it absolute.
    if pc.first() != bc.first() {
        return to_slashes(&p);
    }
    let common = pc.iter().zip(&bc).take_while(|(a, b)| a == b).count();
    let mut out: Vec<String> = Vec::new();
    for c in &bc[common..] {
        match c {
            Component::Normal(_) => out.push("..".to_owned()),
            // `..` inside the base: cannot be undone without the file system.
            _ => return to_slashes(&p),
        }
    }
    for c in &pc[common..] {
        out.push(c.as_os_str().to_string_lossy().into_owned());
    }
    if out.is_empty() {
        ".".to_owned()
    } else {
        out.join("/")
    }
}

fn to_slashes(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

/// Parses scene JSON. `scene_path` is the file's own path: relative paths
/// are resolved against its folder, and it names the file in messages.
pub fn parse(text: &str, scene_path: &Path) -> Result<Loaded, SceneError> {
    let shown = scene_path.display().to_string();
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| SceneError::NotAScene {
            path: shown.clone(),
            reason: format!("not JSON ({e})"),
        })?;
    match value.get("format").and_then(|v| v.as_str()) {
        Some(FORMAT) => {}
        Some(other) => {
            return Err(SceneError::NotAScene {
                path: shown,
                reason: format!("its \"format\" is \"{other}\", not \"{FORMAT}\""),
            });
        }
        None => {
            return Err(SceneError::NotAScene {
                path: shown,
                reason: format!("no \"format\": \"{FORMAT}\" field"),
            });
        }
    }
    if let Some(v) = value.get("version").and_then(|v| v.as_u64())
        && v > u64::from(VERSION)
    {
        return Err(SceneError::TooNew {
            path: shown,
            found: u32::try_from(v).unwrap_or(u32::MAX),
        });
    }
    let file: SceneFile = serde_json::from_value(value).map_err(|e| SceneError::NotAScene {
        path: shown.clone(),
        reason: e.to_string(),
    })?;
    let base = scene_path.parent().unwrap_or(Path::new(""));
    let mut missing = Vec::new();
    let mut existing = |role: String, text: &str| -> Option<PathBuf> {
        let p = resolve(base, text);
        if p.is_file() {
            Some(p)
        } else {
            missing.push(Missing { role, path: p });
            None
        }
    };
    let mut scene: Scene<PathBuf> = Scene::default();
    for (i, a) in file.actors.iter().enumerate() {
        let name = if a.name.trim().is_empty() {
            format!("Actor {}", i + 1)
        } else {
            a.name.clone()
        };
        let model = match &a.model {
            Some(m) => existing(format!("model of {name}"), m)
                .map(ModelRef::File)
                .unwrap_or(ModelRef::Builtin),
            None => ModelRef::Builtin,
        };
        let motion = a
            .motion
            .as_deref()
            .and_then(|m| existing(format!("motion of {name}"), m));
        scene.actors.push(Actor {
            name,
            model,
            motion,
            offset: a.offset,
            placement: a.placement(),
        });
    }
    scene.camera = file
        .camera
        .as_deref()
        .and_then(|c| existing("camera".to_owned(), c));
    scene.light = match (&file.light, &file.camera) {
        // The same file as the camera: report it once.
        (Some(l), Some(c)) if l == c => scene.camera.clone(),
        (Some(l), _) => existing("light".to_owned(), l),
        (None, _) => None,
    };
    scene.song = file.song.as_ref().and_then(|s| {
        existing("song".to_owned(), &s.path).map(|path| Song {
            path,
            offset: s.offset,
        })
    });
    scene.set = read_set(
        &file.stages,
        &file.accessories,
        file.background.as_ref(),
        &mut existing,
    );
    if let Some(p) = file.preview {
        scene.preview = PreviewSettings {
            through_camera: p.through_camera,
            rate: if matches!(p.rate, 30 | 60 | 120) {
                p.rate
            } else {
                30
            },
            frame: p.frame,
            physics: p.physics.as_deref().and_then(mode_of),
            collide_actors: p.collide_actors,
        };
    }
    Ok(Loaded { scene, missing })
}

/// Reads a scene file.
pub fn load(path: &Path) -> Result<Loaded, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|source| SceneError::Read {
        path: path.display().to_string(),
        source,
    })?;
    parse(&text, path)
}

/// The JSON text of `scene` saved at `scene_path` (paths made relative to
/// its folder).
pub fn to_json(scene: &Scene<PathBuf>, scene_path: &Path) -> String {
    let base = scene_path.parent().unwrap_or(Path::new(""));
    let rel = |p: &PathBuf| relative_path(p, base);
    let (stages, accessories, background) = write_set(&scene.set, &rel);
    let file = SceneFile {
        format: FORMAT.to_owned(),
        version: VERSION,
        actors: scene
            .actors
            .iter()
            .map(|a| FileActor {
                name: a.name.clone(),
                model: match &a.model {
                    ModelRef::Builtin => None,
                    ModelRef::File(p) => Some(rel(p)),
                },
                motion: a.motion.as_ref().map(rel),
                offset: a.offset,
                position: (a.placement.position != Vec3::ZERO)
                    .then(|| a.placement.position.to_array()),
                turn: (a.placement.turn_degrees != 0.0).then_some(a.placement.turn_degrees),
            })
            .collect(),
        camera: scene.camera.as_ref().map(rel),
        light: scene.light.as_ref().map(rel),
        song: scene.song.as_ref().map(|s| FileSong {
            path: rel(&s.path),
            offset: s.offset,
        }),
        preview: Some(FilePreview {
            through_camera: scene.preview.through_camera,
            rate: scene.preview.rate,
            frame: scene.preview.frame,
            physics: scene.preview.physics.map(|m| mode_name(m).to_owned()),
            collide_actors: scene.preview.collide_actors,
        }),
        stages,
        accessories,
        background,
    };
    // Serializing plain strings and numbers cannot fail; fall back to an
    // empty object rather than panic should it ever.
    let mut s = serde_json::to_string_pretty(&file).unwrap_or_else(|_| "{}".to_owned());
    s.push('\n');
    s
}

/// Writes a scene file atomically (a temporary file renamed over it).
pub fn save(scene: &Scene<PathBuf>, path: &Path) -> Result<(), SceneError> {
    let text = to_json(scene, path);
    crate::vmd::write::save_bytes_atomic(path, text.as_bytes()).map_err(|e| SceneError::Write {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

/// Whether a path names a scene file (by its extension, any case).
pub fn is_scene_path(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case(EXTENSION))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_walk_up_and_down() {
        let base = Path::new("/a/b/scenes");
        assert_eq!(relative_path(Path::new("/a/b/scenes/d.vmd"), base), "d.vmd");
        assert_eq!(
            relative_path(Path::new("/a/b/motions/d.vmd"), base),
            "../motions/d.vmd"
        );
        assert_eq!(
            relative_path(Path::new("/x/m.pmx"), base),
            "../../../x/m.pmx"
        );
        assert_eq!(
            relative_path(Path::new("/a/b/scenes/sub/c.vmd"), base),
            "sub/c.vmd"
        );
    }

    #[test]
    fn the_physics_mode_is_read_by_name_and_an_unknown_one_is_ignored() {
        let p = Path::new("/tmp/x.vmdscene");
        let read = |preview: &str| {
            let text =
                format!("{{\"format\":\"vmd-studio-scene\",\"version\":1,\"preview\":{preview}}}");
            parse(&text, p).expect("a scene").scene.preview
        };
        let v = read("{\"physics\":\"Always\",\"collide_actors\":true}");
        assert_eq!(v.physics, Some(SimulationMode::Always));
        assert!(v.collide_actors);
        let v = read("{\"physics\":\"off\"}");
        assert_eq!(v.physics, Some(SimulationMode::Off));
        assert!(!v.collide_actors);
        assert_eq!(read("{\"physics\":\"wobble\"}").physics, None);
        assert_eq!(read("{}").physics, None);
        // Written only when the scene has a mode.
        let scene: Scene<PathBuf> = Scene::default();
        assert!(!to_json(&scene, p).contains("\"physics\""));
    }

    #[test]
    fn not_a_scene_and_too_new_are_refused_with_reasons() {
        let p = Path::new("/tmp/x.vmdscene");
        let e = parse("{\"format\":\"other\",\"version\":1}", p).unwrap_err();
        assert!(e.to_string().contains("\"other\""), "{e}");
        let e = parse("[1,2", p).unwrap_err();
        assert!(e.to_string().contains("not JSON"), "{e}");
        let e = parse("{\"format\":\"vmd-studio-scene\",\"version\":7}", p).unwrap_err();
        assert!(e.to_string().contains("version 7"), "{e}");
        // A wrong field type is refused, not guessed.
        let e = parse(
            "{\"format\":\"vmd-studio-scene\",\"version\":1,\"actors\":[{\"offset\":\"x\"}]}",
            p,
        )
        .unwrap_err();
        assert!(matches!(e, SceneError::NotAScene { .. }), "{e}");
    }
}
