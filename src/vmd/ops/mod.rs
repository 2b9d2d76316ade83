//! Toolbox operations: `(&Motion, params) → (Motion, Report)`.
//!
//! Every operation is pure: it copies the records it keeps and rewrites only
//! the fields it changes through the record setters (frame, name, position,
//! …), so every other byte — name padding junk, interpolation filler, the
//! physics flag — is carried over unchanged. Each returns a [`Report`] that
//! says in plain words what was done, including every dropped or merged key
//! and every refusal.
//!
//! Frames are MMD frames (30 fps). Positions are MMD units in MMD's
//! left-handed, Y-up coordinates; camera angles are radians.
//!
//! * [`mirror`](fn@mirror) — left/right mirror (bones, names 左⇄右, camera, light, IK)
//! * [`trim`](fn@trim) — keep frames A..B, keying the ends so playback is unchanged
//! * [`join`](fn@join) — append a second motion after the first
//! * [`speed`](fn@speed) — new frame = round(frame / factor)
//! * [`fill_rest`](fn@fill_rest) — identity keys at frame 0 for bones without one
//! * [`rename`](fn@rename) — rename bones, morphs and IK entries from a map
//! * [`json`] — lossless JSON export/import, optional right-handed export
//! * [`simplify`](fn@simplify) — drop keys within a tolerance, fitting VMD curves
//!   ([`simplify_scoped`] — only some bones' keys, optionally in a frame range)
//! * [`bake`](fn@bake) — a key on every frame (or every N), straight lines

pub mod bake;
pub mod curve_split;
pub mod fill_rest;
pub mod join;
pub mod json;
pub mod key_scope;
pub mod mirror;
pub mod rename;
pub mod report;
pub mod simplify;
pub mod simplify_fit;
pub mod simplify_scope;
pub mod simplify_track;
pub mod speed;
pub mod trim;

pub use bake::{BakeParams, bake};
pub use curve_split::{SubCurve, sub_curve};
pub use fill_rest::{FillRestParams, fill_rest, fill_rest_with};
pub use join::{JoinParams, JoinPlacement, join};
pub use json::{ExportOptions, export_json, import_json};
pub use key_scope::KeyScope;
pub use mirror::{mirror, mirror_name_field, mirror_scoped};
pub use rename::{RenameMap, parse_rename_map, rename};
pub use report::{OpError, Report};
pub use simplify::{
    CameraTolerances, SimplifyParams, SimplifyReport, Strategy, simplify, simplify_with_progress,
};
pub use simplify_scope::{SimplifyScope, simplify_scoped};
pub use speed::{SpeedParams, SpeedSpan, speed, speed_scoped, speed_span};
pub use trim::{TrimParams, trim};
