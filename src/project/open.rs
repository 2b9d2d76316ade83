//! Opening a project file: read it, asking v1 for each model's shape from
//! the model file the resolver finds.

use std::path::Path;

use super::document::Project;
use super::paths::Resolver;
use super::read::{ModelShape, read_with};
use crate::model::Model;
use crate::model::data::Format;

/// The shape a v1 project needs of a model, from its file: bone and morph
/// names as Shift_JIS (PMD's base skin first, as nanoem counts it; our PMD
/// reader folds it in), IK bones by the bone each IK chain hangs on.
pub fn model_shape(path: &Path) -> Option<ModelShape> {
    let m = Model::open(path).ok()?;
    let sjis = |s: &str| encoding_rs::SHIFT_JIS.encode(s).0.into_owned();
    let base = matches!(m.format, Format::Pmd).then(|| b"base".to_vec());
    Some(ModelShape {
        bone_names: m.skeleton.bones.iter().map(|b| sjis(&b.name)).collect(),
        morph_names: base
            .into_iter()
            .chain(m.morphs.iter().map(|x| sjis(&x.name)))
            .collect(),
        ik_bones: m.skeleton.iks.iter().map(|ik| ik.ik_bone as i32).collect(),
    })
}

/// Reads the project at `path` and the resolver for its paths. The error
/// is one line naming the file (and the byte offset, for a bad file).
pub fn open(path: &Path) -> Result<(Project, Resolver), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let r = Resolver::for_file(path);
    let p = read_with(&bytes, &mut |_, stored| {
        r.resolve(&stored.text).path.and_then(|f| model_shape(&f))
    })
    .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((p, r))
}

/// Whether a path names an MMD project (by its extension, any case).
pub fn is_project_path(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case("pmm"))
}
