//! A project → the steps that open it as a scene, in the shape of
//! [`crate::workspace::placing::scene_file_events`]: the events that make
//! the arrangement (one actor per model, named as the model; the song; the
//! playhead, the loop range and the physics mode), the new motion
//! documents (each model's keys, and the camera with its light and
//! self-shadow; unsaved, named `<project>_<model>.vmd` and
//! `<project>_camera.vmd`) placed into their roles as they open, and the
//! model files to load onto the actors. A model not found keeps its actor
//! (with the built-in skeleton) and its motion; it is listed in
//! [`ProjectScene::missing_models`]. The accessories go into the set with
//! their keys ([`super::set`]); one not found keeps its slot and is listed
//! in [`ProjectScene::missing_accessories`].

use std::path::{Path, PathBuf};

use super::convert::{camera_motion, model_motion};
use super::document::Project;
use super::info::physics_mode;
use super::missing::{MissingFile, Slot};
use super::paths::Resolver;
use crate::scene::{self, ModelRef, Scene, Song};
use crate::workspace::placing::{Intent, clear_scene};
use crate::workspace::{DocId, Event, NewDocument, SceneEvent, TransportEvent, Workspace};

/// What opening a project does.
#[derive(Debug)]
pub struct ProjectScene {
    /// Apply in order.
    pub events: Vec<Event>,
    /// Model files to load onto actors as they are read.
    pub model_opens: Vec<(PathBuf, Intent)>,
    /// Actor index and the model path as stored, for models not found.
    pub missing_models: Vec<(usize, String)>,
    /// Accessory name and path as stored, for accessories not found (their
    /// slots and keys stay in the set).
    pub missing_accessories: Vec<(String, String)>,
    /// Both of the above as slots the user can locate by hand.
    pub missing: Vec<MissingFile>,
    /// What converting the accessories' keys left out or replaced.
    pub warnings: Vec<super::Warning>,
}

/// A file-name-safe form of a name (Windows' reserved characters become
/// `_`; [`crate::scene::collect::safe_file_name`]).
pub fn file_stem_safe(name: &str) -> String {
    crate::scene::collect::safe_file_name(name, "model")
}

/// The steps that open project `p`, read from `path` (paths resolved
/// with `r`).
pub fn project_events(ws: &Workspace, path: &Path, p: &Project, r: &Resolver) -> ProjectScene {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "project".to_owned());
    let mut events = clear_scene(ws);
    let mut s: Scene<DocId> = Scene::default();
    let mut model_opens = Vec::new();
    let mut missing_models = Vec::new();
    let mut missing = Vec::new();
    for (i, m) in p.models.iter().enumerate() {
        let mut a = scene::Actor::new(m.name.text.clone());
        let found = r.resolve(&m.path.text);
        match found.path {
            Some(f) => {
                a.model = ModelRef::File(f.clone());
                model_opens.push((f, Intent::ActorModel(i)));
            }
            None => {
                missing_models.push((i, m.path.text.clone()));
                missing.push(MissingFile {
                    slot: Slot::ActorModel(i),
                    name: a.name.clone(),
                    stored: m.path.text.clone(),
                    placeholder: PathBuf::new(),
                });
            }
        }
        s.actors.push(a);
    }
    let accs = super::set::accessories(p, r);
    for (a, _) in accs
        .accessories
        .iter()
        .zip(&accs.found)
        .filter(|(_, f)| **f)
    {
        model_opens.push((a.path.clone(), Intent::SetPiece));
    }
    for (i, (a, found)) in accs.accessories.iter().zip(&accs.found).enumerate() {
        if !found && let Some(stored) = p.accessories.get(i) {
            missing.push(MissingFile {
                slot: Slot::Accessory(i),
                name: a.name.clone(),
                stored: stored.path.text.clone(),
                placeholder: a.path.clone(),
            });
        }
    }
    s.set.accessories = accs.accessories;
    if let Some(set) = &p.settings {
        // MMD plays the song only when it is switched on; PMM has no
        // song offset (it starts at frame 0).
        if set.audio_enabled
            && let Some(song) = r.resolve(&set.audio_path.text).path
        {
            s.song = Some(Song {
                path: song,
                offset: 0,
            });
        }
        s.preview.frame = u32::try_from(set.current_frame).unwrap_or(0);
        if p.version == super::PmmVersion::V2 {
            s.preview.physics = physics_mode(set.physics_mode);
        }
    }
    events.push(Event::Scene(SceneEvent::Arrange {
        scene: Box::new(s),
        selected_actor: (!p.models.is_empty()).then_some(0),
        fresh: true,
        modified: true,
    }));
    if let Some(set) = &p.settings
        && set.begin_enabled
        && set.end_enabled
        && let (Ok(b), Ok(e)) = (u32::try_from(set.begin_frame), u32::try_from(set.end_frame))
        && b < e
    {
        events.push(Event::Transport(TransportEvent::SetLoop(Some((b, e)))));
    }
    for (i, m) in p.models.iter().enumerate() {
        let mm = model_motion(m, i);
        let name = format!("{stem}_{}.vmd", file_stem_safe(&m.name.text));
        let mut new = NewDocument::new(mm.motion, None, name);
        new.unsaved = true;
        new.place = Some(Intent::ActorMotion(i));
        events.push(Event::Open(Box::new(new)));
    }
    let cm = camera_motion(p);
    let mut new = NewDocument::new(cm.motion, None, format!("{stem}_camera.vmd"));
    new.unsaved = true;
    new.place = Some(Intent::Camera { light_too: true });
    events.push(Event::Open(Box::new(new)));
    ProjectScene {
        events,
        model_opens,
        missing_models,
        missing_accessories: accs.missing,
        missing,
        warnings: accs.warnings,
    }
}
