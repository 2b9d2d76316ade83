//! The sidecar of a copy (its JSON file) and the scene it records.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Paths in a sidecar. A path that is text (always on Windows) is a JSON
/// string, as before; on Unix a name that is not UTF-8 — a Japanese MMD
/// archive unzipped with its Shift_JIS names as raw bytes — is written as
/// `{"os_bytes": [..]}`, so its copy is still written and restores to the
/// same file (serde's own `PathBuf` refuses such a path, and the copy was
/// lost).
mod os_path {
    use std::path::{Path, PathBuf};

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Text(String),
        Bytes { os_bytes: Vec<u8> },
    }

    fn stored(p: &Path) -> Stored {
        if let Some(text) = p.to_str() {
            return Stored::Text(text.to_owned());
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            Stored::Bytes {
                os_bytes: p.as_os_str().as_bytes().to_vec(),
            }
        }
        #[cfg(not(unix))]
        {
            Stored::Text(p.to_string_lossy().into_owned())
        }
    }

    fn path(s: Stored) -> PathBuf {
        match s {
            Stored::Text(t) => PathBuf::from(t),
            #[cfg(unix)]
            Stored::Bytes { os_bytes } => {
                use std::os::unix::ffi::OsStringExt;
                PathBuf::from(std::ffi::OsString::from_vec(os_bytes))
            }
            #[cfg(not(unix))]
            Stored::Bytes { os_bytes } => {
                PathBuf::from(String::from_utf8_lossy(&os_bytes).into_owned())
            }
        }
    }

    pub fn serialize<S: Serializer>(p: &Path, s: S) -> Result<S::Ok, S::Error> {
        stored(p).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
        Stored::deserialize(d).map(path)
    }

    pub mod opt {
        use std::path::PathBuf;

        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        use super::{Stored, path, stored};

        pub fn serialize<S: Serializer>(p: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
            p.as_deref().map(stored).serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
            Option::<Stored>::deserialize(d).map(|o| o.map(path))
        }
    }
}

/// What the recovered document was in the scene.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Role {
    /// Worn by the actor at this index of [`SceneRecord::actors`].
    Actor {
        index: usize,
    },
    Camera,
    Light,
}

/// An actor of the scene, with paths (a motion without a file has none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActorRecord {
    pub name: String,
    /// `None`: the built-in skeleton.
    #[serde(default, with = "os_path::opt")]
    pub model: Option<PathBuf>,
    #[serde(default, with = "os_path::opt")]
    pub motion: Option<PathBuf>,
    pub offset: i32,
    /// Where the actor stood (MMD units; absent in older records: the
    /// origin).
    #[serde(default)]
    pub position: [f32; 3],
    /// Its turn about Y, degrees.
    #[serde(default)]
    pub turn: f32,
}

impl ActorRecord {
    /// The placement recorded (a non-finite value reads as 0).
    pub fn placement(&self) -> crate::scene::ActorPlacement {
        let finite = |v: f32| if v.is_finite() { v } else { 0.0 };
        crate::scene::ActorPlacement {
            position: glam::Vec3::from_array(self.position.map(finite)),
            turn_degrees: finite(self.turn),
        }
    }
}

/// The scene's song when the copy was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SongRecord {
    #[serde(with = "os_path")]
    pub path: PathBuf,
    /// Scene frame at which the song's first sample plays.
    pub offset: i32,
}

/// The scene arrangement when the copy was written: enough to rebuild it
/// on restore (documents without a copy are opened from their files).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SceneRecord {
    /// The `.vmdscene` file, if the scene came from or went to one.
    #[serde(default, with = "os_path::opt")]
    pub scene_file: Option<PathBuf>,
    pub actors: Vec<ActorRecord>,
    #[serde(default, with = "os_path::opt")]
    pub camera: Option<PathBuf>,
    #[serde(default, with = "os_path::opt")]
    pub light: Option<PathBuf>,
    /// The song (absent in sidecars written before it was recorded).
    #[serde(default)]
    pub song: Option<SongRecord>,
    /// This document's roles.
    pub roles: Vec<Role>,
    /// The stages, accessories (with their keys) and background (absent
    /// in sidecars written before the set was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<crate::scene::file_set::SetRecord>,
}

/// The sidecar of a recovery copy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub format: String,
    pub version: u32,
    /// The session that wrote it.
    pub session: String,
    pub pid: u32,
    /// The document id inside that session.
    pub doc_id: u64,
    /// The file the document saves to (`None`: never saved, e.g. the demo).
    #[serde(default, with = "os_path::opt")]
    pub original: Option<PathBuf>,
    /// The name shown for it.
    pub name: String,
    /// When the copy was written, milliseconds since the Unix epoch.
    pub written_unix_ms: u64,
    /// Edits since the last save.
    pub edits: u64,
    /// The `.vmd` file (in the same folder) holding the bytes.
    pub vmd_file: String,
    /// Its length in bytes.
    pub len: u64,
    pub scene: Option<SceneRecord>,
}

/// What the caller knows about a document when writing its copy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocInfo {
    pub doc_id: u64,
    pub original: Option<PathBuf>,
    pub name: String,
    pub edits: u64,
    pub scene: Option<SceneRecord>,
}
