//! The set as a scene file stores it: stages, accessories (placement and
//! keys), background — read with paths resolved and missing files named,
//! written with paths made relative. Also what a crash-recovery record
//! keeps of the set ([`SetRecord`]).

use std::path::PathBuf;

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::set::{
    AccessoryKey, AccessoryState, Background, BackgroundImage, BackgroundVideo, DrawOrder,
    ImageFit, Parent, Prop, Set, SetAccessory,
};

pub(super) fn yes() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct FileStage {
    #[serde(default)]
    name: String,
    path: String,
    #[serde(default = "yes")]
    shown: bool,
    #[serde(default)]
    order: FileOrder,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    motion: Option<String>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum FileOrder {
    #[default]
    Before,
    After,
}

impl From<FileOrder> for DrawOrder {
    fn from(o: FileOrder) -> Self {
        match o {
            FileOrder::Before => DrawOrder::BeforeModels,
            FileOrder::After => DrawOrder::AfterModels,
        }
    }
}

impl From<DrawOrder> for FileOrder {
    fn from(o: DrawOrder) -> Self {
        match o {
            DrawOrder::BeforeModels => FileOrder::Before,
            DrawOrder::AfterModels => FileOrder::After,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct FileParent {
    actor: usize,
    bone: String,
}

/// An accessory's panel values (degrees for rotation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct FileAccessoryState {
    #[serde(default)]
    parent: Option<FileParent>,
    #[serde(default)]
    position: [f32; 3],
    #[serde(default)]
    rotation: [f32; 3],
    #[serde(default = "one")]
    scale: f32,
    #[serde(default = "one")]
    opacity: f32,
    #[serde(default = "yes")]
    shown: bool,
    #[serde(default = "yes")]
    ground_shadow: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct FileAccessoryKey {
    frame: u32,
    #[serde(flatten)]
    state: FileAccessoryState,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct FileAccessory {
    #[serde(default)]
    name: String,
    path: String,
    #[serde(default)]
    order: FileOrder,
    #[serde(flatten)]
    state: FileAccessoryState,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    keys: Vec<FileAccessoryKey>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum FileFit {
    #[default]
    Fit,
    Stretch,
    Original,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct FileImage {
    path: String,
    #[serde(default)]
    fit: FileFit,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct FileVideo {
    path: String,
    #[serde(default)]
    frame_offset: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct FileBackground {
    #[serde(default = "white")]
    colour: [f32; 3],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    image: Option<FileImage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    video: Option<FileVideo>,
}

fn one() -> f32 {
    1.0
}
fn white() -> [f32; 3] {
    [1.0, 1.0, 1.0]
}

/// `v` if every element is finite, else `or` (JSON has no NaN or infinity:
/// a non-finite value would write `null` and the file would not read back).
fn finite<const N: usize>(v: [f32; N], or: [f32; N]) -> [f32; N] {
    if v.iter().all(|x| x.is_finite()) {
        v
    } else {
        or
    }
}

impl FileAccessoryState {
    fn to_state(&self) -> AccessoryState {
        AccessoryState {
            parent: match &self.parent {
                None => Parent::World,
                Some(p) => Parent::Bone {
                    actor: p.actor,
                    bone: p.bone.clone(),
                },
            },
            position: Vec3::from_array(finite(self.position, [0.0; 3])),
            rotation_degrees: Vec3::from_array(finite(self.rotation, [0.0; 3])),
            scale: finite([self.scale], [1.0])[0].max(0.0),
            opacity: finite([self.opacity], [1.0])[0].clamp(0.0, 1.0),
            shown: self.shown,
            ground_shadow: self.ground_shadow,
        }
    }

    fn of(s: &AccessoryState) -> Self {
        FileAccessoryState {
            parent: match &s.parent {
                Parent::World => None,
                Parent::Bone { actor, bone } => Some(FileParent {
                    actor: *actor,
                    bone: bone.clone(),
                }),
            },
            position: finite(s.position.to_array(), [0.0; 3]),
            rotation: finite(s.rotation_degrees.to_array(), [0.0; 3]),
            scale: finite([s.scale], [1.0])[0],
            opacity: finite([s.opacity], [1.0])[0],
            shown: s.shown,
            ground_shadow: s.ground_shadow,
        }
    }
}

/// The set as read: paths resolved, missing files left out and listed.
pub(super) fn read_set(
    stages: &[FileStage],
    accessories: &[FileAccessory],
    background: Option<&FileBackground>,
    existing: &mut dyn FnMut(String, &str) -> Option<PathBuf>,
) -> Set<PathBuf> {
    let mut set: Set<PathBuf> = Set::default();
    for (i, s) in stages.iter().enumerate() {
        let name = if s.name.trim().is_empty() {
            format!("Stage {}", i + 1)
        } else {
            s.name.clone()
        };
        let Some(path) = existing(format!("stage {name}"), &s.path) else {
            continue;
        };
        let motion = s
            .motion
            .as_deref()
            .and_then(|m| existing(format!("motion of stage {name}"), m));
        set.props.push(Prop {
            name,
            path,
            shown: s.shown,
            order: s.order.into(),
            motion,
        });
    }
    for (i, a) in accessories.iter().enumerate() {
        let name = if a.name.trim().is_empty() {
            format!("Accessory {}", i + 1)
        } else {
            a.name.clone()
        };
        let Some(path) = existing(format!("accessory {name}"), &a.path) else {
            continue;
        };
        let mut acc = SetAccessory {
            name,
            path,
            order: a.order.into(),
            state: a.state.to_state(),
            keys: Vec::new(),
        };
        for k in &a.keys {
            acc.set_key(AccessoryKey {
                frame: k.frame,
                state: k.state.to_state(),
            });
        }
        set.accessories.push(acc);
    }
    if let Some(b) = background {
        set.background = Background {
            colour: finite(b.colour, [1.0; 3]).map(|c| c.clamp(0.0, 1.0)),
            image: b.image.as_ref().and_then(|im| {
                existing("background image".to_owned(), &im.path).map(|path| BackgroundImage {
                    path,
                    fit: match im.fit {
                        FileFit::Fit => ImageFit::Fit,
                        FileFit::Stretch => ImageFit::Stretch,
                        FileFit::Original => ImageFit::Original,
                    },
                })
            }),
            video: b.video.as_ref().and_then(|v| {
                existing("background video".to_owned(), &v.path).map(|path| BackgroundVideo {
                    path,
                    frame_offset: v.frame_offset,
                })
            }),
        };
    }
    set
}

/// The file's stages, accessories and background (`None` when the
/// background is the default, so scenes without a set stay as they were).
type FileSetParts = (Vec<FileStage>, Vec<FileAccessory>, Option<FileBackground>);

pub(super) fn write_set(set: &Set<PathBuf>, rel: &dyn Fn(&PathBuf) -> String) -> FileSetParts {
    let stages = set
        .props
        .iter()
        .map(|p| FileStage {
            name: p.name.clone(),
            path: rel(&p.path),
            shown: p.shown,
            order: p.order.into(),
            motion: p.motion.as_ref().map(rel),
        })
        .collect();
    let accessories = set
        .accessories
        .iter()
        .map(|a| FileAccessory {
            name: a.name.clone(),
            path: rel(&a.path),
            order: a.order.into(),
            state: FileAccessoryState::of(&a.state),
            keys: a
                .keys
                .iter()
                .map(|k| FileAccessoryKey {
                    frame: k.frame,
                    state: FileAccessoryState::of(&k.state),
                })
                .collect(),
        })
        .collect();
    let b = &set.background;
    let background = (*b != Background::default()).then(|| FileBackground {
        colour: finite(b.colour, [1.0; 3]),
        image: b.image.as_ref().map(|im| FileImage {
            path: rel(&im.path),
            fit: match im.fit {
                ImageFit::Fit => FileFit::Fit,
                ImageFit::Stretch => FileFit::Stretch,
                ImageFit::Original => FileFit::Original,
            },
        }),
        video: b.video.as_ref().map(|v| FileVideo {
            path: rel(&v.path),
            frame_offset: v.frame_offset,
        }),
    });
    (stages, accessories, background)
}

/// The set as a crash-recovery record keeps it: the scene file's own
/// fields, with absolute paths.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SetRecord {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    stages: Vec<FileStage>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    accessories: Vec<FileAccessory>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    background: Option<FileBackground>,
}

impl SetRecord {
    /// The record of `set` (stage motions as their files' paths).
    pub fn of(set: &Set<PathBuf>) -> SetRecord {
        let rel = |p: &PathBuf| p.display().to_string();
        let (stages, accessories, background) = write_set(set, &rel);
        SetRecord {
            stages,
            accessories,
            background,
        }
    }

    /// Whether it holds nothing (no stage, no accessory, the default
    /// background).
    pub fn is_empty(&self) -> bool {
        self.stages.is_empty() && self.accessories.is_empty() && self.background.is_none()
    }

    /// The set again, and what is missing from disk now (left out, named).
    pub fn restore(&self) -> (Set<PathBuf>, Vec<String>) {
        let mut missing = Vec::new();
        let mut existing = |what: String, p: &str| {
            let path = PathBuf::from(p);
            if path.is_file() {
                Some(path)
            } else {
                missing.push(format!("{what}: {p} not found"));
                None
            }
        };
        let set = read_set(
            &self.stages,
            &self.accessories,
            self.background.as_ref(),
            &mut existing,
        );
        (set, missing)
    }
}
