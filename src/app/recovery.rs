//! Crash recovery in the app: keeps a recovery copy of every document with
//! unsaved edits (every [`recovery::interval`] and on every
//! [`recovery::EDIT_TRIGGER`]-th edit since the last save), deletes it when
//! the document is saved, reverted to its saved state or closed without
//! saving, and at start offers the copies a crashed session left behind.
//!
//! The files are written off the UI thread by jobs of the app's job
//! service, one job at a time, each taking the operations queued so far in
//! the order asked, so a deletion can never be overtaken by an older write. The GUI-free part
//! (names, sidecar, atomic writes, session locks) is [`crate::scene::recovery`].

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use super::edits::apply;
use super::jobs::Jobs;
use super::jobs::{Finished, JobId, JobKind, JobService};
use super::panels::Shared;
use super::scene_ops::{Intent, SceneState};
use crate::scene::file_set::SetRecord;
use crate::scene::recovery::{
    self, ActorRecord, DocInfo, Entry, Role, SceneRecord, Session, SongRecord, Writer,
};
use crate::scene::{self as scene_model, ModelRef, Scene};
use crate::vmd;
use crate::workspace::{Workspace, placing};

enum Op {
    Write(Box<DocInfo>, Vec<u8>),
    Delete(u64),
    /// A copy of another (dead) session, restored or discarded.
    DeleteEntry(Box<Entry>),
}

impl Op {
    /// Carries the operation out on disk.
    fn run(&self, writer: &Writer) -> Result<(), String> {
        let r = match self {
            Op::Write(info, bytes) => writer.write(info, bytes).map(|_| ()),
            Op::Delete(id) => writer.delete(*id),
            Op::DeleteEntry(e) => e.delete(),
        };
        r.map_err(|e| {
            tracing::warn!("recovery copy: {e}");
            e.to_string()
        })
    }
}

/// Runs `ops` in order; the messages of those that failed.
fn run_all(ops: &[Op], writer: &Writer) -> Vec<String> {
    ops.iter().filter_map(|op| op.run(writer).err()).collect()
}

/// What the app knows about one document's copy.
#[derive(Debug, Clone)]
struct Track {
    /// `revision` at the last save (or load).
    saved_revision: u64,
    /// Edits counted before this session (a restored copy's count).
    base_edits: u64,
    /// The revision the copy on disk holds.
    written: Option<u64>,
    /// Edits the copy on disk counts.
    written_edits: u64,
    /// When the first edit not yet in the copy was seen.
    dirty_since: Option<Instant>,
}

/// The recovery state of a running app.
pub struct Recovery {
    session: Option<Session>,
    /// Operations asked for and not yet handed to a job, in order.
    queue: VecDeque<Op>,
    /// The job writing the batch before, if it still runs.
    running: Option<JobId>,
    /// The job service the batches run on (set when recovery starts).
    jobs: Option<JobService>,
    tx: Sender<Finished<Vec<String>>>,
    rx: Receiver<Finished<Vec<String>>>,
    tracks: HashMap<u64, Track>,
    /// The scene as the last copy holding it saw it: a scene changed since
    /// ([`scene_to_keep`]) with no motion edited is written with the
    /// scene's first motion ([`scene_anchor`]).
    scene_written: Option<Scene<u64>>,
    /// Refresh interval.
    pub interval: Duration,
    /// Copies left by a crash, while the window offering them is open.
    pub offer: Option<Vec<Entry>>,
}

impl Default for Recovery {
    fn default() -> Self {
        let (tx, rx) = channel();
        Recovery {
            session: None,
            queue: VecDeque::new(),
            running: None,
            jobs: None,
            tx,
            rx,
            tracks: HashMap::new(),
            scene_written: None,
            interval: recovery::interval(),
            offer: None,
        }
    }
}

impl Drop for Recovery {
    /// Finishes what was asked (a deletion after a discard must not be lost
    /// when the app quits right after): waits for the running batch, then
    /// writes the rest here, in order.
    fn drop(&mut self) {
        if let (Some(id), Some(jobs)) = (self.running, &self.jobs) {
            let start = Instant::now();
            while jobs.is_running(id) && start.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        if let Some(s) = &self.session {
            let ops: Vec<Op> = self.queue.drain(..).collect();
            run_all(&ops, s.writer());
        }
    }
}

impl std::fmt::Debug for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recovery")
            .field("session", &self.session)
            .field("interval", &self.interval)
            .finish_non_exhaustive()
    }
}

impl Recovery {
    /// Whether copies are being kept.
    pub fn is_active(&self) -> bool {
        self.session.is_some()
    }

    /// Every write and deletion asked for has reached the disk (or failed).
    pub fn is_idle(&self) -> bool {
        self.queue.is_empty()
            && self
                .running
                .zip(self.jobs.as_ref())
                .is_none_or(|(id, jobs)| !jobs.is_running(id))
    }

    /// The folder the copies go to.
    pub fn dir(&self) -> Option<&Path> {
        self.session.as_ref().map(|s| s.writer().dir())
    }

    /// The sidecar of a document's copy in this session.
    pub fn json_path(&self, doc_id: u64) -> Option<PathBuf> {
        self.session.as_ref().map(|s| s.writer().json_path(doc_id))
    }

    fn send(&mut self, op: Op) {
        if self.session.is_some() {
            self.queue.push_back(op);
        }
    }

    /// Hands the queued operations to a job when the one before has
    /// finished; returns the messages of the writes that failed.
    fn pump(&mut self) -> Vec<String> {
        let errors: Vec<String> = self.rx.try_iter().flat_map(|f| f.value).collect();
        let (Some(jobs), Some(session)) = (&self.jobs, &self.session) else {
            return errors;
        };
        if self.running.is_some_and(|id| jobs.is_running(id)) || self.queue.is_empty() {
            return errors;
        }
        let ops: Vec<Op> = self.queue.drain(..).collect();
        let writer = session.writer().clone();
        let label = format!("Recovery copies ({} operations)", ops.len());
        self.running = Some(jobs.spawn(
            JobKind::Recovery,
            label,
            false,
            self.tx.clone(),
            move |_| run_all(&ops, &writer),
        ));
        errors
    }
}

/// Whether the scene holds unsaved work that opening its files again would
/// not bring back: a set (stages, accessories and their keys, a
/// background) or an actor placed off the origin.
fn scene_to_keep(ws: &Workspace) -> bool {
    let s = ws.scene();
    ws.scene_modified() && (!s.set.is_empty() || s.actors.iter().any(|a| !a.placement.is_origin()))
}

/// The document whose copy carries an edited scene when no motion is
/// edited: the first actor's motion, else the camera, else the light
/// (`None`: the scene has no document, and no copy can carry it).
fn scene_anchor(ws: &Workspace) -> Option<u64> {
    let s = ws.scene();
    s.actors
        .iter()
        .find_map(|a| a.motion)
        .or(s.camera)
        .or(s.light)
        .filter(|id| ws.doc(*id).is_some())
}

/// The scene as paths, with this document's roles.
fn scene_record(ws: &Workspace, scene_file: Option<&Path>, doc_id: u64) -> Option<SceneRecord> {
    let s: &Scene<u64> = ws.scene();
    if s.actors.is_empty() && s.camera.is_none() && s.light.is_none() {
        return None;
    }
    let path_of = |id: &u64| ws.doc(*id)?.path.clone();
    let mut roles = Vec::new();
    let actors = s
        .actors
        .iter()
        .enumerate()
        .map(|(index, a)| {
            if a.motion == Some(doc_id) {
                roles.push(Role::Actor { index });
            }
            ActorRecord {
                name: a.name.clone(),
                model: match &a.model {
                    ModelRef::Builtin => None,
                    ModelRef::File(p) => Some(p.clone()),
                },
                motion: a.motion.as_ref().and_then(path_of),
                offset: a.offset,
                position: a.placement.position.to_array(),
                turn: a.placement.turn_degrees,
            }
        })
        .collect();
    if s.camera == Some(doc_id) {
        roles.push(Role::Camera);
    }
    if s.light == Some(doc_id) {
        roles.push(Role::Light);
    }
    Some(SceneRecord {
        scene_file: scene_file.map(Path::to_path_buf),
        actors,
        camera: s.camera.as_ref().and_then(path_of),
        light: s.light.as_ref().and_then(path_of),
        song: s.song.as_ref().map(|x| SongRecord {
            path: x.path.clone(),
            offset: x.offset,
        }),
        roles,
        set: Some(SetRecord::of(&s.set.map(path_of))).filter(|r| !r.is_empty()),
    })
}

impl Recovery {
    /// Starts keeping recovery copies in `data_dir()/recovery` and looks
    /// for copies a crash left there (offered in a window).
    pub fn start(&mut self, shared: &mut Shared) {
        match recovery::default_dir() {
            Some(dir) => self.start_in(&dir, shared),
            None => tracing::warn!("no data directory: crash recovery is off"),
        }
    }

    /// [`Recovery::start`] with a given folder.
    pub fn start_in(&mut self, dir: &Path, shared: &mut Shared) {
        let mut session = match Session::start(dir) {
            Ok(s) => s,
            Err(e) => {
                shared.error(format!("Crash recovery is off: {e}"));
                return;
            }
        };
        let (found, errors) = session.orphans();
        for e in errors {
            tracing::warn!("{e}");
            shared.error(format!("A recovery copy was skipped: {e}"));
        }
        if found.is_empty() {
            session.release();
        } else {
            tracing::info!("{} recovery copies found", found.len());
            self.offer = Some(found);
        }
        self.jobs = Some(shared.jobs.clone());
        self.session = Some(session);
    }

    /// Writes and deletes copies as documents change (once per frame,
    /// after the frame's edits were applied).
    pub(super) fn tick(
        &mut self,
        ws: &Workspace,
        scene_file: Option<&Path>,
        shared: &mut Shared,
        ctx: &egui::Context,
    ) {
        if !self.is_active() {
            return;
        }
        let now = Instant::now();
        let interval = self.interval;
        let mut ops = Vec::new();
        let mut wake: Option<Duration> = None;
        // Set edits and placements alone are kept too: the anchor's copy
        // carries the scene while the scene has changes no file holds.
        let anchor = scene_to_keep(ws).then(|| scene_anchor(ws)).flatten();
        let scene_changed = anchor.is_some() && self.scene_written.as_ref() != Some(ws.scene());
        for d in ws.docs() {
            let carries_scene = anchor == Some(d.id);
            let t = self.tracks.entry(d.id).or_insert(Track {
                saved_revision: d.revision,
                base_edits: 0,
                written: None,
                written_edits: 0,
                dirty_since: None,
            });
            if !d.is_modified() && !carries_scene {
                // Saved, reverted to the saved state, or discarded.
                if t.written.take().is_some() {
                    ops.push(Op::Delete(d.id));
                }
                t.saved_revision = d.revision;
                t.base_edits = 0;
                t.written_edits = 0;
                t.dirty_since = None;
                continue;
            }
            if t.written == Some(d.revision) && !(carries_scene && scene_changed) {
                continue;
            }
            let edits = t.base_edits + d.revision.saturating_sub(t.saved_revision);
            let since = *t.dirty_since.get_or_insert(now);
            let elapsed = now.duration_since(since);
            let nth = edits / recovery::EDIT_TRIGGER > t.written_edits / recovery::EDIT_TRIGGER;
            if elapsed < interval && !nth {
                let left = interval - elapsed;
                wake = Some(wake.map_or(left, |w| w.min(left)));
                continue;
            }
            match vmd::write(&d.motion) {
                Ok(bytes) => {
                    let info = DocInfo {
                        doc_id: d.id,
                        original: d.path.clone(),
                        name: d.name.clone(),
                        edits,
                        scene: None,
                    };
                    ops.push(Op::Write(Box::new(info), bytes));
                    t.written = Some(d.revision);
                    t.written_edits = edits;
                    t.dirty_since = None;
                    if carries_scene {
                        self.scene_written = Some(ws.scene().clone());
                    }
                }
                Err(e) => tracing::warn!("recovery copy of {}: {e}", d.title()),
            }
        }
        // Closed documents: closed without saving after the user said so.
        let open: Vec<u64> = ws.docs().iter().map(|d| d.id).collect();
        let gone: Vec<u64> = self
            .tracks
            .keys()
            .filter(|id| !open.contains(id))
            .copied()
            .collect();
        for id in gone {
            if let Some(t) = self.tracks.remove(&id)
                && t.written.is_some()
            {
                ops.push(Op::Delete(id));
            }
        }
        for mut op in ops {
            if let Op::Write(info, _) = &mut op {
                info.scene = scene_record(ws, scene_file, info.doc_id);
            }
            self.send(op);
        }
        for e in self.pump() {
            shared.error(format!("Could not write a recovery copy: {e}"));
        }
        if let Some(w) = wake {
            ctx.request_repaint_after(w);
        }
        if !self.is_idle() {
            ctx.request_repaint_after(Duration::from_millis(50));
        }
    }

    /// Deletes the offered copies.
    pub fn discard(&mut self) {
        for e in self.offer.take().unwrap_or_default() {
            self.send(Op::DeleteEntry(Box::new(e)));
        }
        if let Some(s) = &mut self.session {
            s.release();
        }
    }

    /// Keeps the offered copies for the next start.
    pub fn keep(&mut self) {
        self.offer = None;
        if let Some(s) = &mut self.session {
            s.release();
        }
    }

    /// The window offering the copies left by a crash.
    pub(super) fn window(&self, ctx: &egui::Context) -> Option<OfferChoice> {
        let entries = self.offer.as_ref()?;
        let mut choice = None;
        egui::Modal::new(egui::Id::unique("recovery-offer")).show(ctx, |ui| {
            ui.heading("Recover unsaved work");
            ui.label(
                "VMD Studio did not close normally. These files had edits that were not saved:",
            );
            egui::Grid::new("recovery-list")
                .striped(true)
                .num_columns(3)
                .show(ui, |ui| {
                    ui.strong("File");
                    ui.strong("Copy written");
                    ui.strong("Unsaved edits");
                    ui.end_row();
                    for e in entries {
                        ui.label(e.display_name());
                        ui.label(recovery::format_utc(e.meta.written_unix_ms));
                        ui.label(e.meta.edits.to_string());
                        ui.end_row();
                    }
                });
            ui.label("Restore opens them as modified documents; the original files stay as they are until you save.");
            ui.horizontal(|ui| {
                if ui.button("Restore").clicked() {
                    choice = Some(OfferChoice::Restore);
                }
                if ui.button("Discard").clicked() {
                    choice = Some(OfferChoice::Discard);
                }
                if ui.button("Later").clicked() {
                    choice = Some(OfferChoice::Later);
                }
            });
        });
        choice
    }
}

/// The answer to the window offering a crashed session's copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfferChoice {
    /// Open them as modified documents ([`restore`]).
    Restore,
    /// Delete them ([`Recovery::discard`]).
    Discard,
    /// Keep them for the next start ([`Recovery::keep`]).
    Later,
}

/// Opens the offered copies as modified documents that save to their
/// original files (left untouched until then). Each is written as this
/// session's copy before the old copy is deleted (one queue, in order).
/// Returns whether it rebuilt the scene they were in.
pub fn restore(
    rec: &mut Recovery,
    ws: &mut Workspace,
    shared: &mut Shared,
    scene: &mut SceneState,
    jobs: &mut Jobs,
) -> bool {
    let Some(entries) = rec.offer.take() else {
        return false;
    };
    let mut restored: Vec<(u64, Entry, Vec<u8>)> = Vec::new();
    for e in entries {
        let (bytes, motion) = match e.read() {
            Ok(r) => r,
            Err(err) => {
                // Kept on disk: nothing is lost.
                shared.error(format!(
                    "Could not restore {}: {err} (the copy is kept in {})",
                    e.display_name(),
                    e.vmd.display()
                ));
                continue;
            }
        };
        let mut new = crate::workspace::NewDocument::new(
            motion,
            e.meta.original.clone(),
            e.meta.name.clone(),
        );
        new.disk_stamp = e
            .meta
            .original
            .as_deref()
            .and_then(vmd::save::DiskStamp::of);
        // Modified: the saved state is one the history never reaches.
        new.unsaved = true;
        let ev = crate::workspace::Event::Open(Box::new(new));
        let Some(d) = apply(ws, shared, ev).opened.and_then(|id| ws.doc(id)) else {
            continue;
        };
        let id = d.id;
        rec.tracks.insert(
            id,
            Track {
                saved_revision: d.revision,
                base_edits: e.meta.edits,
                written: Some(d.revision),
                written_edits: e.meta.edits,
                dirty_since: None,
            },
        );
        shared.info(format!("Restored {}", e.display_name()));
        restored.push((id, e, bytes));
    }
    // The scene as it was: the newest copy's arrangement, with every
    // restored document of that session in its roles.
    let newest = restored
        .iter()
        .filter(|(_, e, _)| e.meta.scene.is_some())
        .max_by_key(|(_, e, _)| e.meta.written_unix_ms)
        .map(|(_, e, _)| (e.meta.session.clone(), e.meta.scene.clone()));
    let mut rebuilt = false;
    if let Some((session, Some(record))) = newest {
        let roles: Vec<(u64, Vec<Role>)> = restored
            .iter()
            .filter(|(_, e, _)| e.meta.session == session)
            .map(|(id, e, _)| {
                let r = e.meta.scene.as_ref().map(|s| s.roles.clone());
                (*id, r.unwrap_or_default())
            })
            .collect();
        rebuild_scene(ws, shared, scene, jobs, &record, &roles);
        rebuilt = true;
    }
    for (id, e, bytes) in restored {
        // This session's copy keeps the arrangement it was restored with.
        let info = DocInfo {
            doc_id: id,
            original: e.meta.original.clone(),
            name: e.meta.name.clone(),
            edits: e.meta.edits,
            scene: e.meta.scene.clone(),
        };
        rec.send(Op::Write(Box::new(info), bytes));
        rec.send(Op::DeleteEntry(Box::new(e)));
    }
    if let Some(s) = &mut rec.session {
        s.release();
    }
    rebuilt
}

/// Rebuilds the scene a recovery copy recorded: its actors (models,
/// offsets), camera, light and song. `restored` are the documents
/// restored from copies with their roles; what has no copy (a file
/// without unsaved edits, a model, the song) opens from its file.
fn rebuild_scene(
    ws: &mut Workspace,
    shared: &mut Shared,
    scene: &mut SceneState,
    jobs: &mut Jobs,
    record: &SceneRecord,
    restored: &[(u64, Vec<Role>)],
) {
    // Unmodified documents of the current scene (the demo) close; the
    // restored ones are modified and stay.
    for e in placing::clear_scene(ws) {
        apply(ws, shared, e);
    }
    scene.path = None;
    // The stages and accessories as placed, with their keys (a stage's
    // own motion shows at rest, as when a scene file opens).
    let (set, missing) = record
        .set
        .as_ref()
        .map(SetRecord::restore)
        .unwrap_or_default();
    for m in missing {
        shared.error(format!("Restored scene: {m}"));
    }
    let mut s: Scene<u64> = Scene {
        song: record.song.as_ref().map(|x| scene_model::Song {
            path: x.path.clone(),
            offset: x.offset,
        }),
        set: set.map(|_| None),
        ..Scene::default()
    };
    for a in &record.actors {
        s.actors.push(scene_model::Actor {
            name: a.name.clone(),
            model: a.model.clone().map_or(ModelRef::Builtin, ModelRef::File),
            motion: None,
            offset: a.offset,
            placement: a.placement(),
        });
    }
    let mut worn = vec![false; s.actors.len()];
    for (id, roles) in restored {
        for r in roles {
            match r {
                Role::Actor { index } => {
                    if let Some(a) = s.actors.get_mut(*index) {
                        a.motion = Some(*id);
                        worn[*index] = true;
                    }
                }
                Role::Camera => s.camera = Some(*id),
                Role::Light => s.light = Some(*id),
            }
        }
    }
    let (has_camera, has_light) = (s.camera.is_some(), s.light.is_some());
    let actors = s.actors.len();
    // The arrangement may differ from any saved scene file.
    apply(
        ws,
        shared,
        crate::workspace::Event::Scene(crate::workspace::SceneEvent::Arrange {
            scene: Box::new(s),
            selected_actor: (actors > 0).then_some(0),
            fresh: true,
            modified: true,
        }),
    );
    scene.path = record.scene_file.clone();
    // What has no restored copy opens from its file, by the scene file's
    // rule: the record as a scene of paths, less the roles restored.
    let to_open: Scene<PathBuf> = Scene {
        actors: record
            .actors
            .iter()
            .zip(&worn)
            .map(|(a, &worn)| scene_model::Actor {
                name: a.name.clone(),
                model: a.model.clone().map_or(ModelRef::Builtin, ModelRef::File),
                motion: a.motion.clone().filter(|_| !worn),
                offset: a.offset,
                placement: a.placement(),
            })
            .collect(),
        camera: record.camera.clone().filter(|_| !has_camera),
        light: record.light.clone().filter(|_| !has_light),
        set,
        ..Scene::default()
    };
    for (p, intent) in placing::scene_opens(&to_open) {
        // A model already loaded is on its actor (or in the set) already.
        if matches!(intent, Intent::ActorModel(_) | Intent::SetPiece)
            && scene.models.contains_key(&p)
        {
            continue;
        }
        scene.open_for(jobs, p, intent);
    }
    shared.info(format!(
        "Restored the scene: {actors} actor(s){}{}",
        if record.camera.is_some() {
            ", camera"
        } else {
            ""
        },
        if record.song.is_some() { ", song" } else { "" }
    ));
}
