//! The pure VMD layer: bytes ⇄ model, curves, evaluation, camera math,
//! summary and toolbox operations. Names no GUI type.

pub mod bezier;
pub mod cache;
pub mod camera;
pub mod cursor;
pub mod curve_edit;
pub mod diff;
pub mod error;
pub mod evaluate;
pub mod interpolation;
pub mod key_edit;
pub mod layout;
pub mod motion;
pub mod name;
pub mod ops;
pub mod read;
pub mod records;
pub mod save;
pub mod summary;
pub mod track;
pub mod vpd;
pub mod write;

pub use bezier::Curve;
pub use cache::{EvalCache, IndexedMotion, MotionRef, Playhead};
pub use error::{NameError, ReadError, ReadErrorKind, WriteError};
pub use interpolation::{BoneChannel, CameraChannel};
pub use layout::Section;
pub use motion::{KeyRef, Motion, Version};
pub use name::{DecodedName, NameEncoding};
pub use read::{read, read_vec};
pub use records::{BoneKey, CameraKey, IkKey, LightKey, MorphKey, ShadowKey};
pub use track::{Track, TrackIndex};
pub use write::{save, write};
