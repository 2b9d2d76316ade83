//! The pure project layer: an MMD project (`.pmm`, MMD 7.x v1 and MMD
//! 9.x v2) read into what it holds ([`read()`]), its keys followed into
//! ordered lists as MMD links them ([`links`]), turned into VMD motions
//! ([`convert`]), its accessories into the scene's set ([`set`]) and into
//! the steps that open it as a scene ([`scene`]); what it names that is not
//! here, and finding it by hand ([`missing`]);
//! Windows paths resolved on this machine ([`paths`]). The format, field
//! by field: `docs/pmm-format.md`. Names no GUI type.

pub mod convert;
pub mod cursor;
pub mod document;
pub mod error;
pub mod info;
pub mod links;
pub mod missing;
pub mod open;
/// Windows paths resolved on this machine: the one rule of every reader
/// ([`crate::winpath`]), here under its old name.
pub use crate::winpath as paths;
pub mod read;
pub mod scene;
pub mod set;

pub use convert::{CameraMotion, ModelMotion, camera_motion, model_motion};
pub use document::{PmmVersion, Project};
pub use error::{PmmError, PmmErrorKind, Warning, WarningKind};
pub use open::{is_project_path, model_shape, open};
pub use paths::{Found, Resolved, Resolver};
pub use read::{ModelShape, read, read_with};
