//! A model loaded for the scene: the model with its decoded textures and
//! the renderer's mesh template at rest, built off the UI thread. No GUI
//! and no GPU type: the app uploads the template to its GPU itself.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::from_model::MeshTemplate;
use crate::model::{LoadedModel, Model, load_textures_with};
use crate::progress::Progress;

/// A model file loaded for the scene (see [`ModelAsset::load`]).
pub struct ModelAsset {
    pub loaded: LoadedModel,
    pub template: Arc<MeshTemplate>,
    /// Unique per asset built in this process (never 0): caches built from
    /// the model key on it, never on its address.
    generation: u64,
}

/// The next [`ModelAsset::generation`]; 0 is left for "no loaded model"
/// (the built-in skeleton).
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

impl ModelAsset {
    /// Builds the renderer's template (copies the textures as RGBA).
    pub fn new(loaded: LoadedModel) -> ModelAsset {
        let template = Arc::new(MeshTemplate::new(&loaded.model, &loaded.textures));
        let generation = NEXT_GENERATION.fetch_add(1, Ordering::Relaxed);
        ModelAsset {
            loaded,
            template,
            generation,
        }
    }

    /// This asset's id: unique among the assets built in this process,
    /// never 0 (a model loaded again is a new asset with a new id).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Reads the model in `bytes` (the file at `path`; its textures are
    /// looked up beside it) and decodes its textures, reporting through
    /// `progress` and stopping with "cancelled" when it is cancelled.
    pub fn load(path: &Path, bytes: &[u8], progress: &Progress) -> Result<ModelAsset, String> {
        progress.report(0.0, "reading the model");
        // A PMX/PMD, or a `.x` accessory converted to a model.
        let model = if crate::model::xfile::is_x_file(bytes) {
            crate::model::read_set_piece(path, bytes)?
        } else {
            Model::read(bytes).map_err(|e| e.to_string())?
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        let textures = load_textures_with(&model, dir, |i, n, name| {
            let f = 0.1 + 0.8 * i as f32 / n.max(1) as f32;
            progress.report(f, &format!("texture {} of {n}: {name}", i + 1));
            !progress.is_cancelled()
        })
        .ok_or_else(|| "cancelled".to_owned())?;
        progress.report(0.9, "building the mesh");
        let asset = ModelAsset::new(LoadedModel {
            path: path.to_owned(),
            model,
            textures,
        });
        if progress.is_cancelled() {
            return Err("cancelled".to_owned());
        }
        Ok(asset)
    }
}

impl std::fmt::Debug for ModelAsset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelAsset")
            .field("path", &self.loaded.path)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_asset_has_its_own_generation() {
        let Ok(a) = crate::render::stage::demo_model() else {
            panic!("the demo model builds");
        };
        let Ok(b) = crate::render::stage::demo_model() else {
            panic!("the demo model builds");
        };
        let (a, b) = (ModelAsset::new(a), ModelAsset::new(b));
        assert_ne!(a.generation(), 0);
        assert_ne!(a.generation(), b.generation());
    }

    #[test]
    fn bad_bytes_are_an_error_not_a_panic() {
        let p = Progress::default();
        let e = ModelAsset::load(Path::new("x.pmx"), b"not a model", &p);
        assert!(e.is_err());
        assert!(p.reported().is_some(), "the load reported its start");
    }
}
