//! Entry points: read a model from bytes or from a file, with or without its
//! textures.

use std::path::{Path, PathBuf};

use super::cursor::describe_start;
use super::data::Model;
use super::error::ModelError;
use super::skeleton::Skeleton;
use super::texture::{TextureSet, load_textures};

impl Model {
    /// Reads a PMX 2.0/2.1 or PMD model from its bytes (the signature
    /// decides). Tolerated problems are in [`Model::warnings`].
    pub fn read(bytes: &[u8]) -> Result<Model, ModelError> {
        if bytes.starts_with(b"PMX ") {
            super::pmx::read_pmx(bytes)
        } else if bytes.starts_with(b"Pmd") {
            super::pmd::read_pmd(bytes)
        } else {
            Err(ModelError::UnknownFormat {
                start: describe_start(bytes),
            })
        }
    }

    /// Reads a model file from disk (no textures).
    pub fn open(path: &Path) -> Result<Model, ModelError> {
        let bytes = std::fs::read(path).map_err(|e| ModelError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Model::read(&bytes)
    }
}

/// A model with its textures decoded, as a renderer wants it.
#[derive(Debug, Clone)]
pub struct LoadedModel {
    /// Where the model file is.
    pub path: PathBuf,
    /// The model.
    pub model: Model,
    /// One entry per [`Model::textures`] path; missing or broken ones are
    /// `None` with a warning in [`TextureSet::warnings`].
    pub textures: TextureSet,
}

impl LoadedModel {
    /// Reads the model at `path` and decodes the textures it names,
    /// resolved against the model's folder (Windows separators and any
    /// letter case accepted).
    pub fn open(path: &Path) -> Result<LoadedModel, ModelError> {
        let model = Model::open(path)?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let textures = load_textures(&model, dir);
        Ok(LoadedModel {
            path: path.to_owned(),
            model,
            textures,
        })
    }
}

/// Reads a stage, prop or accessory from its bytes: a PMX/PMD model as
/// [`Model::read`] reads it, or a DirectX text `.x` accessory converted by
/// [`Accessory::to_model`](super::xfile::Accessory::to_model) (×10 into MMD
/// units, one root bone) and named after `path`. The signature decides,
/// not the extension. Errors name the file (and the `.x` line or the
/// model's offset).
pub fn read_set_piece(path: &Path, bytes: &[u8]) -> Result<Model, String> {
    if super::xfile::is_x_file(bytes) {
        let x =
            super::xfile::Accessory::read(bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(x.to_model(&name))
    } else {
        Model::read(bytes).map_err(|e| format!("{}: {e}", path.display()))
    }
}

impl LoadedModel {
    /// Reads a stage, prop or accessory file ([`read_set_piece`]) and
    /// decodes the textures it names, resolved against its folder.
    pub fn open_set_piece(path: &Path) -> Result<LoadedModel, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let model = read_set_piece(path, &bytes)?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let textures = load_textures(&model, dir);
        Ok(LoadedModel {
            path: path.to_owned(),
            model,
            textures,
        })
    }
}

/// Reads a model file (PMX 2.0/2.1 or PMD) and returns its skeleton.
///
/// Positions are MMD model coordinates (left-handed, Y up); IK angles are
/// radians. The whole file is read and checked; [`Model::read`] gives
/// everything else too.
pub fn load_model(bytes: &[u8]) -> Result<Skeleton, ModelError> {
    Model::read(bytes).map(|m| m.skeleton)
}
