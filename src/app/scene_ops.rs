//! What the app keeps beside the workspace's scene: the loaded models (with
//! textures and the renderer's template) and the queue that lets opened
//! files take their roles in the order asked for, whatever order they
//! finish loading in. Where a file goes is the workspace's
//! ([`crate::workspace::placing`]); this only loads and orders.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use super::jobs::{JobResult, Jobs};
use crate::model::{Model, Skeleton};
use crate::render::asset::ModelAsset;
use crate::scene::ModelRef;
use crate::vmd::Motion;
use crate::workspace::{DocId, Workspace, placing};

pub use crate::workspace::placing::Intent;

/// The loaded models, the scene file's path and the open queue.
pub struct SceneState {
    /// The `.vmdscene` file the arrangement came from or was saved to.
    pub path: Option<PathBuf>,
    /// Loaded models (with textures and the renderer's template), by path.
    pub models: HashMap<PathBuf, Arc<ModelAsset>>,
    /// Loaded models' morph names (file order), by path.
    pub model_morphs: HashMap<PathBuf, Vec<String>>,
    /// The current model load of each actor (by open sequence number): a
    /// load the user replaced by another is stale and dropped.
    pub model_loads: HashMap<usize, u64>,
    /// The built-in standard skeleton, a model with no mesh (actors
    /// without a model file, or while theirs loads).
    pub builtin: Model,
    /// What the MMD project this scene was opened from named that is not
    /// here, and what it holds that the scene does not use (the scene
    /// panel lists it, with Locate…). None for other scenes.
    pub project: Option<crate::project::missing::ProjectReport>,
    /// Accessories whose `.vac` names a bone no loaded actor has while
    /// models are still loading (a model and its `.vac` opened together):
    /// (set slot, the accessory's `.x`, the bone, the `.vac`). Attached
    /// when a model arrives that has the bone.
    pub attach_waiting: Vec<(usize, PathBuf, String, PathBuf)>,
    /// What each pending open request is for, by its sequence number.
    intents: HashMap<u64, Intent>,
    /// Results that finished before an earlier request: applied in order.
    waiting: BTreeMap<u64, JobResult>,
    /// Requests applied (or dropped) out of order: the queue skips them.
    skipped: HashSet<u64>,
    /// The sequence number to apply next.
    next_apply: u64,
}

impl Default for SceneState {
    fn default() -> Self {
        SceneState {
            path: None,
            models: HashMap::new(),
            model_morphs: HashMap::new(),
            model_loads: HashMap::new(),
            builtin: crate::model::standard_model(),
            project: None,
            attach_waiting: Vec::new(),
            intents: HashMap::new(),
            waiting: BTreeMap::new(),
            skipped: HashSet::new(),
            next_apply: 1,
        }
    }
}

/// A finished load, ready to take its role.
pub enum Ready {
    /// A motion or a model, in the order it was asked for.
    Place(JobResult, Intent),
    /// A file asked for as an actor's model is not one (the actor keeps
    /// its model).
    NotAModel(PathBuf),
}

impl SceneState {
    /// The skeleton an actor with `model` shows: its model's, or the
    /// built-in one (also while the model is loading or when it failed).
    pub fn skeleton_for(&self, model: &ModelRef) -> &Skeleton {
        &self.rig_for(model).skeleton
    }

    /// The model an actor with `model` is posed with: its file's, or the
    /// built-in skeleton (also while the model is loading or when it failed).
    pub fn rig_for(&self, model: &ModelRef) -> &Model {
        match model {
            ModelRef::File(p) => self
                .models
                .get(p)
                .map_or(&self.builtin, |m| &m.loaded.model),
            ModelRef::Builtin => &self.builtin,
        }
    }

    /// The morph names of `model`; `None` for the built-in skeleton (it has
    /// no morphs to check against) and while loading.
    pub fn morphs_for(&self, model: &ModelRef) -> Option<&[String]> {
        match model {
            ModelRef::File(p) => self.model_morphs.get(p).map(Vec::as_slice),
            ModelRef::Builtin => None,
        }
    }

    /// The generation of `model`'s loaded asset (its rig and morph list
    /// come from it); 0 for the built-in skeleton and while loading.
    pub fn model_generation(&self, model: &ModelRef) -> u64 {
        match model {
            ModelRef::File(p) => self.models.get(p).map_or(0, |m| m.generation()),
            ModelRef::Builtin => 0,
        }
    }

    /// Whether any open request has not taken its role yet.
    pub fn pending(&self) -> bool {
        !self.intents.is_empty() || !self.waiting.is_empty()
    }

    /// Whether `model`'s file is loaded (false for the built-in skeleton).
    pub fn loaded(&self, model: &ModelRef) -> bool {
        matches!(model, ModelRef::File(p) if self.models.contains_key(p))
    }
}

impl SceneState {
    /// Opens one file in the background for a given role. A model for an
    /// actor replaces any load for that actor still running.
    pub fn open_for(&mut self, jobs: &mut Jobs, path: PathBuf, intent: Intent) {
        let seq = jobs.open(path);
        self.intents.insert(seq, intent);
        if let Intent::ActorModel(i) = intent
            && let Some(old) = self.model_loads.insert(i, seq)
        {
            jobs.cancel_open(old);
        }
    }

    /// Takes a finished load (`seq`, its open request): what is ready to
    /// take its role now, in order. A model for a given actor is ready at
    /// once if it is that actor's current load (else it is stale and
    /// dropped); the rest wait for the loads asked for before them.
    pub fn take_loaded(&mut self, seq: u64, r: JobResult) -> Vec<Ready> {
        let mut out = Vec::new();
        if let Some(&Intent::ActorModel(i)) = self.intents.get(&seq) {
            self.intents.remove(&seq);
            // The ordered queue does not wait for this one.
            self.skipped.insert(seq);
            if self.model_loads.get(&i) == Some(&seq) {
                self.model_loads.remove(&i);
                match r {
                    r @ JobResult::Model { .. } => out.push(Ready::Place(r, Intent::ActorModel(i))),
                    JobResult::Motion { path, .. } => out.push(Ready::NotAModel(path)),
                    _ => {}
                }
            } else {
                tracing::info!("dropped a stale model load (request {seq}) for actor {i}");
            }
        } else {
            self.waiting.insert(seq, r);
        }
        loop {
            if self.skipped.remove(&self.next_apply) {
                self.next_apply += 1;
                continue;
            }
            let Some(r) = self.waiting.remove(&self.next_apply) else {
                break;
            };
            let intent = self
                .intents
                .remove(&self.next_apply)
                .unwrap_or(Intent::Auto);
            self.next_apply += 1;
            out.push(Ready::Place(r, intent));
        }
        out
    }

    /// Keeps a loaded model (and its morph names) by path.
    pub fn keep_model(&mut self, path: PathBuf, asset: Arc<ModelAsset>) {
        let morphs = asset.loaded.model.morphs.iter();
        let morphs = morphs.map(|m| m.name.clone()).collect();
        self.model_morphs.insert(path.clone(), morphs);
        self.models.insert(path, asset);
    }

    /// When `new` (a toolbox result for document `doc_id`) has tracks the
    /// model of the actor wearing it lacks, says which (see
    /// [`placing::names_the_model_lacks`]).
    pub fn names_the_model_lacks(
        &self,
        ws: &Workspace,
        doc_id: DocId,
        new: &Motion,
    ) -> Option<String> {
        placing::names_the_model_lacks(
            ws,
            |m| (self.rig_for(m), self.morphs_for(m).is_some()),
            doc_id,
            new,
        )
    }
}

/// What a loaded model brings, for the status line: bones, IK chains and
/// the textures that are missing or broken.
pub fn model_summary(asset: &ModelAsset) -> String {
    let s = &asset.loaded.model.skeleton;
    let missing: Vec<&str> = asset
        .loaded
        .textures
        .problems
        .iter()
        .map(|(_, n, _)| n.as_str())
        .collect();
    let textures = if missing.is_empty() {
        String::new()
    } else {
        format!(
            "; textures missing or broken (their materials use colours): {}",
            missing.join(", ")
        )
    };
    format!(
        "{} bones, {} IK chains{textures}",
        s.bones.len(),
        s.iks.len()
    )
}

/// The scene's actors with their models, as Tools ▸ Size motion offers
/// them (as target and source).
pub fn actor_models(ws: &Workspace, sc: &SceneState) -> Vec<super::panels::toolbox::ActorModel> {
    use super::panels::toolbox::{ActorModel, SceneModel};
    ws.scene()
        .actors
        .iter()
        .map(|a| ActorModel {
            name: a.name.clone(),
            model: match &a.model {
                crate::scene::ModelRef::Builtin => SceneModel::Builtin,
                crate::scene::ModelRef::File(p) => match sc.models.get(p) {
                    Some(asset) => SceneModel::Loaded {
                        path: p.clone(),
                        asset: Arc::clone(asset),
                    },
                    None => SceneModel::Pending(p.clone()),
                },
            },
        })
        .collect()
}

/// What the viewport shows, from the open documents and the scene.
pub fn scene_view<'a>(
    ws: &'a Workspace,
    sc: &'a SceneState,
) -> super::panels::viewport::SceneView<'a> {
    {
        use super::panels::viewport::{ActorView, SceneView};
        let doc = |id: Option<u64>| id.and_then(|id| ws.doc(id));
        SceneView {
            actors: ws
                .scene()
                .actors
                .iter()
                .map(|a| ActorView {
                    name: &a.name,
                    model_path: match &a.model {
                        crate::scene::ModelRef::File(p) => Some(p.as_path()),
                        crate::scene::ModelRef::Builtin => None,
                    },
                    model: match &a.model {
                        crate::scene::ModelRef::File(p) => sc.models.get(p),
                        crate::scene::ModelRef::Builtin => None,
                    },
                    rig: sc.rig_for(&a.model),
                    motion: doc(a.motion),
                    offset: a.offset,
                    placement: a.placement,
                })
                .collect(),
            set: {
                use super::panels::viewport::SetPieceView;
                let set = &ws.scene().set;
                let props = set.props.iter().filter_map(|p| {
                    Some(SetPieceView {
                        asset: sc.models.get(&p.path)?,
                        order: p.order,
                        shown: p.shown,
                        accessory: None,
                        motion: doc(p.motion),
                    })
                });
                let accessories = set.accessories.iter().filter_map(|a| {
                    Some(SetPieceView {
                        asset: sc.models.get(&a.path)?,
                        order: a.order,
                        shown: true,
                        accessory: Some(a),
                        motion: None,
                    })
                });
                props.chain(accessories).collect()
            },
            accessories: &ws.scene().set.accessories,
            source_ghost: None,
            camera: doc(ws.scene().camera),
            light: doc(ws.scene().light),
            selected: ws.selected_actor(),
            background: ws.scene().set.background.colour,
            background_image: ws.scene().set.background.image.as_ref(),
            background_video: ws.scene().set.background.video.as_ref(),
        }
    }
}
