//! Where an opened file goes, with no GUI in it: a motion takes its role in
//! the scene by what it holds ([`Intent`], applied by [`Event::Open`] when
//! [`NewDocument::place`] asks), a motion merges into an actor's
//! ([`merge_events`]), a model lands on an actor ([`model_loaded`],
//! [`model_failed`]), the bundled demo and a `.vmdscene` file become a
//! scene ([`demo_events`], [`scene_file_events`]), and a scene is saved
//! with the motions it needs ([`scene_save_plan`]).
//!
//! Everything here reads the [`Workspace`] and returns [`Event`]s (and the
//! words for the status line); the workspace changes only when they are
//! applied.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::document::{Edit, EditRequest};
use super::{DocId, Event, NewDocument, SceneEvent, TransportEvent, Workspace};
use crate::model::Model;
use crate::scene::{self, ModelRef, Placed, Scene};
use crate::vmd::Motion;

/// What an open request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// By what the file holds: a motion to the selected actor (or a new
    /// one), a camera or light to the scene's camera or light, a model to
    /// the selected actor.
    Auto,
    /// The motion of actor `n` (from a scene file).
    ActorMotion(usize),
    /// The model of actor `n` (from a scene file or the scene panel).
    ActorModel(usize),
    /// The scene camera, and the light too when `light_too`.
    Camera {
        light_too: bool,
    },
    Light,
    /// Loaded onto an actor's motion as MMD loads a second VMD onto a model
    /// (a face motion onto a dance): its bone, morph and IK keys are added
    /// at frame 0, replacing keys of the same track on the same frame, as
    /// one undo step of the actor's motion. `None`: the actor selected when
    /// the file has loaded (the command line's `--merge`).
    MergeInto(Option<usize>),
    /// A stage, prop or accessory file of the scene's set: loaded and kept
    /// for drawing; the arrangement already names it.
    SetPiece,
    /// The own motion of stage `n` (its moving parts).
    StageMotion(usize),
}

/// A short text for where a file went.
pub fn placed_text<H>(s: &Scene<H>, p: &Placed) -> String {
    let actor = |i: usize| s.actors.get(i).map_or("an actor", |a| a.name.as_str());
    match *p {
        Placed::ActorMotion { index, new: true } => {
            format!("as the motion of a new actor, {}", actor(index))
        }
        Placed::ActorMotion { index, .. } => format!("as the motion of {}", actor(index)),
        Placed::ActorModel { index, new: true } => {
            format!("as the model of a new actor, {}", actor(index))
        }
        Placed::ActorModel { index, .. } => format!("as the model of {}", actor(index)),
        Placed::Camera => "as the scene camera".to_owned(),
        Placed::CameraAndLight => "as the scene camera and light".to_owned(),
        Placed::Light => "as the scene light".to_owned(),
        Placed::StageMotion { index } => format!(
            "as the motion of the stage {}",
            s.set.props.get(index).map_or("?", |p| p.name.as_str())
        ),
    }
}

/// A path's file name (the whole path where it has none).
pub fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// Where a motion merged into an actor ([`Intent::MergeInto`]) goes: the
/// actor `which` (else the selected one, else the first) and the document
/// it wears; or, for an actor that wears nothing (or no actor), the intent
/// to open the file with instead.
pub fn merge_target(ws: &Workspace, which: Option<usize>) -> Result<(usize, DocId), Intent> {
    let s = ws.scene();
    let i = which
        .or(ws.selected_actor())
        .filter(|&i| i < s.actors.len())
        .or(if s.actors.is_empty() { None } else { Some(0) });
    match i.map(|i| (i, s.actors[i].motion)) {
        Some((i, Some(target))) if ws.doc(target).is_some() => Ok((i, target)),
        // An actor without a motion simply wears the file.
        Some((i, _)) => Err(Intent::ActorMotion(i)),
        None => Err(Intent::Auto),
    }
}

/// The events that add the keys of `m` (read from the file `name`) to the
/// motion `target` that actor `actor` wears, as MMD loads a second motion
/// onto a model: at frame 0, a key of the same track on the same frame
/// replaced; one undo step. Camera and light keys are not an actor's and
/// are left out (said so). `Err`: why nothing was merged.
pub fn merge_events(
    ws: &Workspace,
    actor: usize,
    target: DocId,
    mut m: Motion,
    name: &str,
) -> Result<(Vec<Event>, String), String> {
    use crate::vmd::ops::{JoinParams, JoinPlacement, join};
    let actor_name = ws
        .scene()
        .actors
        .get(actor)
        .map_or_else(|| "the actor".to_owned(), |a| a.name.clone());
    if m.bones.is_empty() && m.morphs.is_empty() && m.iks.is_empty() {
        return Err(format!(
            "{name} holds no bone or morph keys: nothing to merge into {actor_name}'s motion \
             (open it to use it as the scene camera or light)"
        ));
    }
    let left_out = m.cameras.len() + m.lights.len() + m.shadows.len();
    m.cameras.clear();
    m.lights.clear();
    m.shadows.clear();
    let doc = ws
        .doc(target)
        .ok_or_else(|| format!("{actor_name}'s motion is no longer open"))?;
    let params = JoinParams {
        placement: JoinPlacement::At(0),
    };
    let (merged, report) = join(&doc.motion, &m, params)
        .map_err(|e| format!("Could not merge {name} into {actor_name}'s motion: {e}"))?;
    let req = EditRequest::apply(
        Edit::ReplaceMotion {
            motion: Box::new(merged),
            selection: None,
        },
        format!("Merge {name}"),
    );
    let events = vec![
        Event::edit(target, req),
        Event::Scene(SceneEvent::SelectActor(Some(actor))),
        Event::Activate(target),
    ];
    let mut text = format!(
        "Merged {name} into {actor_name}'s motion ({}): {} bone, {} morph keys from frame 0",
        doc.title(),
        m.bones.len(),
        m.morphs.len()
    );
    if report.dropped > 0 {
        text.push_str(&format!(
            "; {} keys on the same frame replaced",
            report.dropped
        ));
    }
    if left_out > 0 {
        text.push_str(&format!("; its {left_out} camera/light keys left out"));
    }
    text.push_str(" (one undo step; save to keep)");
    Ok((events, text))
}

/// The model at `path` has loaded: the event that puts it on the actor
/// `intent` names (or the selected actor, or a new one), and where it went.
pub fn model_loaded(ws: &Workspace, path: &Path, intent: Intent) -> (Event, String) {
    let mut s = ws.scene().clone();
    let mut selected = ws.selected_actor();
    let model = ModelRef::File(path.to_path_buf());
    let (placed, modified) = match intent {
        Intent::ActorModel(i) if i < s.actors.len() => {
            let placed = Placed::ActorModel {
                index: i,
                new: false,
            };
            (placed, s.actors[i].model != model)
        }
        _ => {
            let p = s.assign_model(model.clone(), selected);
            if let Placed::ActorModel { index, .. } = p {
                selected = Some(index);
            }
            (p, true)
        }
    };
    if let Placed::ActorModel { index, .. } = placed {
        s.actors[index].model = model;
    }
    let text = placed_text(&s, &placed);
    let e = Event::Scene(SceneEvent::Arrange {
        scene: Box::new(s),
        selected_actor: selected,
        fresh: false,
        modified,
    });
    (e, text)
}

/// A model failed to load for `intent`: the actor it was for shows the
/// built-in skeleton (the event, if any), and a note saying so.
pub fn model_failed(ws: &Workspace, intent: Intent) -> (Option<Event>, String) {
    let mut s = ws.scene().clone();
    let who = match intent {
        Intent::ActorModel(i) => s.actors.get_mut(i),
        _ => None,
    };
    let Some(a) = who else {
        return (None, String::new());
    };
    a.model = ModelRef::Builtin;
    let note = format!("; {} shows the built-in skeleton", a.name);
    let e = Event::Scene(SceneEvent::Arrange {
        scene: Box::new(s),
        selected_actor: ws.selected_actor(),
        fresh: false,
        modified: false,
    });
    (Some(e), note)
}

/// A fresh scene: the current one's unmodified documents are closed;
/// modified ones stay open, outside the scene, so nothing is lost.
pub fn clear_scene(ws: &Workspace) -> Vec<Event> {
    let mut out: Vec<Event> = ws
        .docs()
        .iter()
        .filter(|d| !d.is_modified())
        .map(|d| Event::Close(d.id))
        .collect();
    out.push(Event::Scene(SceneEvent::Arrange {
        scene: Box::default(),
        selected_actor: None,
        fresh: true,
        modified: false,
    }));
    out
}

/// The bundled demo as a scene: the dance on the built-in skeleton of one
/// actor, "Demo dancer", framed by the camera (the dance stays the active
/// file). Each motion is named `(motion, file name)`.
pub fn demo_events(ws: &Workspace, dance: (Motion, &str), camera: (Motion, &str)) -> Vec<Event> {
    let mut out = clear_scene(ws);
    let mut s = Scene::default();
    let a = s.add_actor();
    s.actors[a].name = "Demo dancer".to_owned();
    out.push(Event::Scene(SceneEvent::Arrange {
        scene: Box::new(s),
        selected_actor: Some(a),
        fresh: true,
        modified: false,
    }));
    for ((m, name), intent) in [
        (dance, Intent::ActorMotion(a)),
        (camera, Intent::Camera { light_too: false }),
    ] {
        let mut new = NewDocument::new(m, None, name);
        new.place = Some(intent);
        out.push(Event::Open(Box::new(new)));
    }
    out
}

/// A `.vmdscene` file's arrangement: the events that make it the scene
/// (its actors, names, models and offsets; the song; the playhead and
/// rate), and the files to open into their roles as they load (models
/// first per actor, then motions, then the camera and light).
pub fn scene_file_events(
    ws: &Workspace,
    src: &Scene<PathBuf>,
) -> (Vec<Event>, Vec<(PathBuf, Intent)>) {
    let mut events = clear_scene(ws);
    let mut s: Scene<DocId> = Scene {
        song: src.song.clone(),
        preview: src.preview.clone(),
        // The stages and accessories as placed; a stage's own motion
        // takes its place when its file has opened (`scene_opens`).
        set: src.set.map(|_| None),
        ..Scene::default()
    };
    for a in &src.actors {
        s.actors.push(scene::Actor {
            name: a.name.clone(),
            model: a.model.clone(),
            motion: None,
            offset: a.offset,
            placement: a.placement,
        });
    }
    events.push(Event::Scene(SceneEvent::Arrange {
        scene: Box::new(s),
        selected_actor: (!src.actors.is_empty()).then_some(0),
        fresh: true,
        modified: false,
    }));
    let p = &src.preview;
    events.push(Event::Transport(TransportEvent::SetRate(p.rate)));
    events.push(Event::Transport(TransportEvent::Seek(f64::from(p.frame))));
    let opens = scene_opens(src);
    (events, opens)
}

/// The files a scene held as paths opens into their roles, in the order
/// they take them: per actor its model (a file, not the built-in
/// skeleton), then its motion; then the camera and the light (one file
/// opened once when it is both). The one rule for what a scene file holds,
/// used when a `.vmdscene` file opens and when a recovery copy's scene is
/// rebuilt (with the roles its restored documents fill left empty).
pub fn scene_opens(src: &Scene<PathBuf>) -> Vec<(PathBuf, Intent)> {
    let mut opens = Vec::new();
    for (i, a) in src.actors.iter().enumerate() {
        if let ModelRef::File(p) = &a.model {
            opens.push((p.clone(), Intent::ActorModel(i)));
        }
        if let Some(m) = &a.motion {
            opens.push((m.clone(), Intent::ActorMotion(i)));
        }
    }
    match (&src.camera, &src.light) {
        (Some(c), Some(l)) if c == l => {
            opens.push((c.clone(), Intent::Camera { light_too: true }));
        }
        (c, l) => {
            if let Some(c) = c {
                opens.push((c.clone(), Intent::Camera { light_too: false }));
            }
            if let Some(l) = l {
                opens.push((l.clone(), Intent::Light));
            }
        }
    }
    for (i, p) in src.set.props.iter().enumerate() {
        if let Some(m) = &p.motion {
            opens.push((m.clone(), Intent::StageMotion(i)));
        }
    }
    // Then the set's stages and accessories, each file loaded once.
    let set_files = src.set.props.iter().map(|p| &p.path);
    let set_files = set_files.chain(src.set.accessories.iter().map(|a| &a.path));
    for p in set_files {
        if !opens.iter().any(|(q, i)| q == p && *i == Intent::SetPiece) {
            opens.push((p.clone(), Intent::SetPiece));
        }
    }
    opens
}

/// What saving the scene at a path writes: the scene file's arrangement
/// (documents as paths) and the motions to save first, each to its own
/// file (those with unsaved edits) or beside the scene under its name
/// (those never saved). A motion without edits is never rewritten.
#[derive(Debug, Clone)]
pub struct SceneSavePlan {
    pub scene: Scene<PathBuf>,
    pub motions: Vec<(DocId, PathBuf)>,
}

/// Plans saving the scene at `path`; `through_camera`: the preview looks
/// through the scene camera. `Err`: why the scene cannot be saved (a
/// never-saved motion whose file name is taken beside the scene).
pub fn scene_save_plan(
    ws: &Workspace,
    path: &Path,
    through_camera: bool,
) -> Result<SceneSavePlan, String> {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut targets: HashMap<DocId, PathBuf> = HashMap::new();
    let mut motions = Vec::new();
    for id in ws.scene().motions() {
        let Some(d) = ws.doc(id) else {
            continue;
        };
        match &d.path {
            Some(p) => {
                targets.insert(id, p.clone());
                if d.is_modified() {
                    motions.push((id, p.clone()));
                }
            }
            None => {
                let mut name = d.name.clone();
                if !name.to_ascii_lowercase().ends_with(".vmd") {
                    name.push_str(".vmd");
                }
                let p = dir.join(&name);
                if p.exists() {
                    return Err(format!(
                        "Scene not saved: {name} has never been saved and {} already exists; \
                         save it under another name first (File ▸ Save As)",
                        p.display()
                    ));
                }
                targets.insert(id, p.clone());
                motions.push((id, p));
            }
        }
    }
    let mut scene = ws.scene().map(|id| targets.get(id).cloned());
    let t = ws.transport();
    scene.preview.rate = t.preview_rate;
    scene.preview.frame = t.frame.max(0.0).floor() as u32;
    scene.preview.through_camera = through_camera;
    Ok(SceneSavePlan { scene, motions })
}

/// When `new` (a toolbox result for document `doc_id`) has bone (or morph)
/// tracks that the document did not have and the model of the actor
/// wearing it lacks (e.g. mirroring onto a model without 右目), says which.
/// `rig_of` gives an actor's model and whether its morph list is known
/// (morphs are checked only then).
pub fn names_the_model_lacks<'a>(
    ws: &Workspace,
    rig_of: impl Fn(&ModelRef) -> (&'a Model, bool),
    doc_id: DocId,
    new: &Motion,
) -> Option<String> {
    let i = ws.wearer(doc_id)?;
    let doc = ws.doc(doc_id)?;
    let a = &ws.scene().actors[i];
    // What the new motion uses that the model lacks (the pose engine's
    // rule), less what the document already used: only new tracks.
    let idx = crate::vmd::TrackIndex::build(new);
    let (rig, morphs_known) = rig_of(&a.model);
    let now = crate::model::missing_names(rig, &idx);
    let before = crate::model::missing_names(rig, &doc.index);
    let fresh = |now: Vec<String>, before: &[String]| -> Vec<String> {
        let before: HashSet<&str> = before.iter().map(String::as_str).collect();
        now.into_iter()
            .filter(|n| !before.contains(n.as_str()))
            .collect()
    };
    let missing = fresh(now.bones, &before.bones);
    let missing_morphs = if morphs_known {
        fresh(now.morphs, &before.morphs)
    } else {
        Vec::new()
    };
    if missing.is_empty() && missing_morphs.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    if !missing.is_empty() {
        parts.push(format!("{} bone track(s)", missing.len()));
    }
    if !missing_morphs.is_empty() {
        parts.push(format!("{} morph track(s)", missing_morphs.len()));
    }
    let names: Vec<&str> = missing
        .iter()
        .chain(missing_morphs.iter())
        .map(String::as_str)
        .collect();
    Some(format!(
        "created {} that {}'s model ({}) lacks: {}",
        parts.join(" and "),
        a.name,
        a.model.display_name(),
        names.join(", ")
    ))
}

/// The files Save all writes: every document with unsaved edits and a
/// file, less `skip` (saved with the scene already); and the names of
/// those never saved to a file (they need Save As).
pub fn save_all_plan(ws: &Workspace, skip: &[DocId]) -> (Vec<(DocId, PathBuf)>, Vec<String>) {
    let mut todo = Vec::new();
    let mut unnamed = Vec::new();
    for d in ws.modified().filter(|d| !skip.contains(&d.id)) {
        match &d.path {
            Some(p) => todo.push((d.id, p.clone())),
            None => unnamed.push(d.name.clone()),
        }
    }
    (todo, unnamed)
}

/// A motion file read from `path`, as a document that takes its role as it
/// opens (`intent`): it replaces an open, unmodified copy of the same file
/// (keeping its id, so the scene's references stay valid). A copy with
/// unsaved edits is kept and the file opens beside it: the note says so.
pub fn open_file(
    ws: &Workspace,
    m: Motion,
    path: &Path,
    intent: Intent,
) -> (NewDocument, Option<String>) {
    let mut new = NewDocument::new(m, Some(path.to_path_buf()), file_name(path));
    new.place = Some(intent);
    let same = ws.docs().iter().find(|d| d.path.as_deref() == Some(path));
    let mut note = None;
    match same {
        Some(d) if !d.is_modified() => new.replace = Some(d.id),
        Some(_) => {
            note = Some(format!(
                "{} is already open with unsaved edits; opened it again as another file",
                path.display()
            ))
        }
        None => {}
    }
    (new, note)
}
