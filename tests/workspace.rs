//! The workspace without the GUI (`cargo test --no-default-features --test
//! workspace`): every event kind applies and undoes to the identical bytes
//! and scene; scene actions undo; the scene's end is one answer (an offset
//! actor, a song longer than the motions); and documents change only
//! through events — this file uses nothing but the public API, and a
//! document's mutators are not part of it (see the `compile_fail` examples
//! in `src/workspace/mod.rs`, run by `cargo test --doc`).

use std::collections::BTreeSet;
use std::path::PathBuf;

use vmd_studio::scene::{ModelRef, Scene, Song};
use vmd_studio::vmd::{self, BoneKey, CameraKey, MorphKey, Motion, NameEncoding};
use vmd_studio::workspace::{
    Changes, DocId, DocView, Edit, EditRequest, Event, Intent, KeyChanges, KeyRef, NewDocument,
    SceneEvent, TransportEvent, Workspace, merge_id, placing,
};

/// A dance: センター keys at frames 0, 10, 20 and a あ morph at 5 and 15.
fn dance(last: u32) -> Motion {
    let mut m = Motion::new_v2();
    for f in [0, last / 2, last] {
        let k = BoneKey::new(
            "センター",
            NameEncoding::ShiftJis,
            f,
            [f as f32, 1.0, 2.0],
            [0.0, 0.0, 0.0, 1.0],
        )
        .expect("name fits");
        m.bones.push(k);
    }
    for f in [5, 15] {
        m.morphs
            .push(MorphKey::new("あ", NameEncoding::ShiftJis, f, 0.5).expect("name fits"));
    }
    m
}

/// A camera with keys at frames 0 and `last`.
fn camera(last: u32) -> Motion {
    let mut m = Motion::new_v2();
    for f in [0, last] {
        m.cameras.push(CameraKey::new(
            f,
            -45.0,
            [0.0, 10.0, 0.0],
            [0.0; 3],
            30,
            true,
        ));
    }
    m
}

fn open(ws: &mut Workspace, m: Motion, name: &str) -> DocId {
    let ch = ws.apply(Event::Open(Box::new(NewDocument::new(m, None, name))));
    ch.opened.expect("opened")
}

/// Every document's bytes, the scene and the selected actor: what undo
/// must give back exactly.
type Snapshot = (Vec<(DocId, Vec<u8>)>, Scene<DocId>, Option<usize>);

fn snapshot(ws: &Workspace) -> Snapshot {
    let docs = ws
        .docs()
        .iter()
        .map(|d| (d.id, vmd::write(&d.motion).expect("writes")))
        .collect();
    (docs, ws.scene().clone(), ws.selected_actor())
}

/// A workspace with a dance worn by an actor (offset 0) and a camera.
fn scene() -> (Workspace, DocId, DocId) {
    let mut ws = Workspace::new();
    let d = open(&mut ws, dance(20), "dance.vmd");
    let c = open(&mut ws, camera(40), "camera.vmd");
    let mut s = Scene::default();
    let a = s.add_actor();
    s.actors[a].motion = Some(d);
    s.camera = Some(c);
    ws.apply(Event::Scene(SceneEvent::Arrange {
        scene: Box::new(s),
        selected_actor: Some(0),
        fresh: true,
        modified: false,
    }));
    (ws, d, c)
}

/// A key edit: bone record `i` moved to `frame` (SetKeys).
fn move_bone(ws: &Workspace, doc: DocId, i: u32, frame: u32) -> Edit {
    let mut k = ws.doc(doc).expect("doc").motion.bones[i as usize];
    k.set_frame(frame);
    Edit::SetKeys(KeyChanges {
        bones: vec![(i, k)],
        ..Default::default()
    })
}

/// A whole-motion edit: the morph keys deleted (ReplaceMotion).
fn delete_morphs(ws: &Workspace, doc: DocId) -> Edit {
    let mut m = ws.doc(doc).expect("doc").motion.clone();
    m.morphs.clear();
    Edit::ReplaceMotion {
        motion: Box::new(m),
        selection: None,
    }
}

#[test]
fn every_undoable_event_applies_then_undoes_to_the_identical_bytes_and_scene() {
    type MakeEvent = Box<dyn Fn(&Workspace, DocId, DocId) -> Event>;
    let cases: Vec<(&str, MakeEvent)> = vec![
        (
            "edit (SetKeys)",
            Box::new(|ws, d, _| {
                Event::edit(d, EditRequest::apply(move_bone(ws, d, 1, 12), "move"))
            }),
        ),
        (
            "edit (ReplaceMotion)",
            Box::new(|ws, d, _| Event::edit(d, EditRequest::apply(delete_morphs(ws, d), "delete"))),
        ),
        (
            "edit across two files",
            Box::new(|ws, d, c| {
                let mut cam = ws.doc(c).expect("camera").motion.cameras[1];
                cam.set_frame(44);
                Event::Edit(vec![
                    (d, vec![EditRequest::apply(move_bone(ws, d, 2, 25), "move")]),
                    (
                        c,
                        vec![EditRequest::apply(
                            Edit::SetKeys(KeyChanges {
                                cameras: vec![(1, cam)],
                                ..Default::default()
                            }),
                            "move",
                        )],
                    ),
                ])
            }),
        ),
        (
            "add actor",
            Box::new(|_, _, _| Event::Scene(SceneEvent::AddActor)),
        ),
        (
            "remove actor",
            Box::new(|_, _, _| Event::Scene(SceneEvent::RemoveActor(0))),
        ),
        (
            "rename actor",
            Box::new(|_, _, _| Event::Scene(SceneEvent::RenameActor(0, "Miku".into()))),
        ),
        (
            "actor motion",
            Box::new(|_, _, _| Event::Scene(SceneEvent::SetMotion(0, None))),
        ),
        (
            "actor offset",
            Box::new(|_, _, _| Event::Scene(SceneEvent::SetOffset(0, 15))),
        ),
        (
            "actor model",
            Box::new(|_, _, _| {
                Event::Scene(SceneEvent::SetModel(0, ModelRef::File("mei.pmd".into())))
            }),
        ),
        (
            "scene camera",
            Box::new(|_, _, _| Event::Scene(SceneEvent::SetCamera(None))),
        ),
        (
            "scene light",
            Box::new(|_, _, c| Event::Scene(SceneEvent::SetLight(Some(c)))),
        ),
        (
            "song",
            Box::new(|_, _, _| {
                Event::Scene(SceneEvent::SetSong(Some(Song {
                    path: "song.wav".into(),
                    offset: 3,
                })))
            }),
        ),
    ];
    for (name, make) in &cases {
        // A fresh copy of the same scene for each case.
        let (mut ws, d, c) = scene();
        let before = snapshot(&ws);
        let ch = ws.apply(make(&ws, d, c));
        assert!(!ch.is_empty(), "{name}: nothing changed");
        let after = snapshot(&ws);
        assert_ne!(after, before, "{name}: the event changed nothing visible");
        assert!(ws.can_step(true), "{name}: no undo step");
        ws.apply(Event::Undo);
        assert_eq!(snapshot(&ws), before, "{name}: undo");
        assert!(!ws.can_step(true), "{name}: more than one undo step");
        ws.apply(Event::Redo);
        assert_eq!(snapshot(&ws), after, "{name}: redo");
        ws.apply(Event::Undo);
        assert_eq!(snapshot(&ws), before, "{name}: undo after redo");
        assert!(ws.docs().iter().all(|d| !d.is_modified()), "{name}");
    }
}

#[test]
fn events_that_are_not_undo_steps_leave_bytes_scene_and_the_undo_order_alone() {
    let (mut ws, d, c) = scene();
    // One real step first: the others must not add to it or take it.
    ws.apply(Event::edit(
        d,
        EditRequest::apply(move_bone(&ws, d, 1, 12), "move"),
    ));
    let before = snapshot(&ws);
    let label = ws.step_label(true);
    assert_eq!(label.as_deref(), Some("move"));
    let view = DocView {
        selection: BTreeSet::from([KeyRef::Bone(0), KeyRef::Bone(2)]).into(),
        active: Some(KeyRef::Bone(2)),
        reveal: None,
    };
    let events = vec![
        Event::Select { doc: d, view },
        Event::Activate(c),
        Event::Scene(SceneEvent::SelectActor(Some(0))),
        Event::Transport(TransportEvent::Seek(17.0)),
        Event::Transport(TransportEvent::Play),
        Event::Transport(TransportEvent::Advance { seconds: 0.1 }),
        Event::Transport(TransportEvent::Pause),
        Event::Transport(TransportEvent::SetLoop(Some((10, 5)))),
        Event::Transport(TransportEvent::SetRate(60)),
        Event::SongLength(Some(2.0)),
        Event::SetUndoBudget(64 * 1024 * 1024),
    ];
    for e in events {
        let what = format!("{e:?}");
        let ch: Changes = ws.apply(e);
        assert!(ch.docs.is_empty(), "{what}");
        assert_eq!(snapshot(&ws), before, "{what}");
        assert_eq!(ws.step_label(true), label, "{what}");
    }
    // What they did change.
    let dv = &ws.doc(d).expect("dance").view;
    assert_eq!(dv.selection.len(), 2);
    assert_eq!(dv.active, Some(KeyRef::Bone(2)));
    // SelectActor made the actor's motion active again, after Activate(c).
    assert_eq!(ws.active().map(|x| x.id), Some(d));
    let t = ws.transport();
    assert!(!t.playing);
    // Seek 17 then 0.1 s at 30 fps = 3 frames.
    assert!((t.frame - 20.0).abs() < 1e-9, "{}", t.frame);
    assert_eq!(
        t.loop_range,
        Some((5, 10)),
        "a reversed range is put in order"
    );
    assert_eq!(t.preview_rate, 60);
    assert_eq!(ws.undo_budget(), 64 * 1024 * 1024);
    // A selection of keys the file does not have keeps only those it has
    // (the dance has 3 bone keys: indices 0..=2).
    let view = DocView {
        selection: BTreeSet::from([KeyRef::Bone(1), KeyRef::Bone(3), KeyRef::Camera(0)]).into(),
        active: Some(KeyRef::Bone(7)),
        reveal: None,
    };
    ws.apply(Event::Select { doc: d, view });
    let dv = &ws.doc(d).expect("dance").view;
    assert_eq!(
        dv.selection.iter().copied().collect::<Vec<_>>(),
        [KeyRef::Bone(1)]
    );
    assert_eq!(dv.active, None);
    // The edit still undoes to the loaded bytes.
    ws.apply(Event::Undo);
    assert_eq!(
        vmd::write(&ws.doc(d).expect("dance").motion).expect("writes"),
        vmd::write(&dance(20)).expect("writes")
    );
}

#[test]
fn scene_actions_and_edits_undo_in_the_order_they_were_made() {
    let (mut ws, d, _) = scene();
    let s0 = snapshot(&ws);
    ws.apply(Event::Scene(SceneEvent::AddActor));
    assert_eq!(ws.scene().actors.len(), 2);
    assert_eq!(ws.selected_actor(), Some(1), "the new actor is selected");
    let s1 = snapshot(&ws);
    ws.apply(Event::edit(
        d,
        EditRequest::apply(move_bone(&ws, d, 2, 30), "move"),
    ));
    let s2 = snapshot(&ws);
    ws.apply(Event::Scene(SceneEvent::RemoveActor(0)));
    assert_eq!(ws.scene().actors.len(), 1);
    assert_eq!(ws.step_label(true).as_deref(), Some("Remove actor"));
    assert_eq!(ws.step_files(true), 0, "a scene step changes no file");
    ws.apply(Event::Undo);
    assert_eq!(snapshot(&ws), s2);
    assert_eq!(ws.step_label(true).as_deref(), Some("move"));
    ws.apply(Event::Undo);
    assert_eq!(snapshot(&ws), s1);
    ws.apply(Event::Undo);
    assert_eq!(snapshot(&ws), s0);
    assert!(!ws.can_step(true));
    ws.apply(Event::Redo);
    ws.apply(Event::Redo);
    ws.apply(Event::Redo);
    assert_eq!(snapshot(&ws).1.actors.len(), 1);
    assert!(ws.scene_modified());
    // A new action after an undo drops the redo steps.
    ws.apply(Event::Undo);
    ws.apply(Event::Scene(SceneEvent::RenameActor(0, "Luka".into())));
    assert!(!ws.can_step(false));
}

#[test]
fn an_offset_drag_is_one_undo_step_and_a_later_one_is_another() {
    let (mut ws, d, _) = scene();
    for off in 1..=12 {
        ws.apply(Event::Scene(SceneEvent::SetOffset(0, off)));
    }
    assert_eq!(ws.offset_of(d), 12);
    ws.apply(Event::edit(
        d,
        EditRequest::apply(move_bone(&ws, d, 2, 30), "move"),
    ));
    ws.apply(Event::Scene(SceneEvent::SetOffset(0, 20)));
    ws.apply(Event::Undo);
    assert_eq!(ws.offset_of(d), 12, "the second change is its own step");
    ws.apply(Event::Undo);
    ws.apply(Event::Undo);
    assert_eq!(ws.offset_of(d), 0, "the whole first drag in one undo");
}

#[test]
fn a_drag_merges_into_one_undo_step_with_one_id() {
    let (mut ws, d, _) = scene();
    let id = merge_id();
    assert_ne!(merge_id(), id, "ids are never handed out twice");
    let before = snapshot(&ws);
    for f in [11, 12, 13, 14] {
        let e = move_bone(&ws, d, 1, f);
        ws.apply(Event::edit(d, EditRequest::merge(e, "drag", id)));
    }
    ws.apply(Event::edit(d, EditRequest::EndMerge));
    assert_eq!(ws.doc(d).expect("dance").motion.bones[1].frame(), 14);
    assert_eq!(ws.doc(d).expect("dance").history().len(), 1);
    ws.apply(Event::Undo);
    assert_eq!(snapshot(&ws), before);
    assert!(!ws.can_step(true));
}

/// The scene's end by hand: the latest of (last key + the wearer's offset)
/// over the files, and the song's start + length × 30.
#[test]
fn the_scene_end_counts_offsets_and_a_song_longer_than_the_motions() {
    let (mut ws, d, c) = scene();
    // Dance ends at 20, camera at 40.
    assert_eq!(ws.scene_end(), 40);
    ws.apply(Event::Scene(SceneEvent::SetOffset(0, 35)));
    assert_eq!(ws.offset_of(d), 35);
    assert_eq!(ws.offset_of(c), 0, "the camera has no offset");
    assert_eq!(ws.wearer(d), Some(0));
    assert_eq!(ws.wearer(c), None);
    // 20 + 35 = 55 beats the camera's 40.
    assert_eq!(ws.scene_end(), 55);
    // A song from frame 10, 3.5 s long: 10 + 105 = 115.
    ws.apply(Event::Scene(SceneEvent::SetSong(Some(Song {
        path: "song.wav".into(),
        offset: 10,
    }))));
    assert_eq!(ws.scene_end(), 55, "the length is not known yet");
    ws.apply(Event::SongLength(Some(3.5)));
    assert_eq!(ws.song_end(), Some(115));
    assert_eq!(ws.scene_end(), 115);
    // The transport wraps at that same end.
    assert_eq!(ws.transport().wrap_range(ws.scene_end()), (0, 115));
    ws.apply(Event::Transport(TransportEvent::Seek(110.0)));
    ws.apply(Event::Transport(TransportEvent::Play));
    ws.apply(Event::Transport(TransportEvent::Advance { seconds: 0.1 }));
    assert!((ws.transport().frame - 113.0).abs() < 1e-9);
    ws.apply(Event::Transport(TransportEvent::Advance { seconds: 0.1 }));
    assert_eq!(ws.transport().frame, 0.0, "past 115: back to the start");
    // A negative offset before frame 0 clamps; the song gone, the camera ends it.
    ws.apply(Event::Scene(SceneEvent::SetSong(None)));
    ws.apply(Event::Scene(SceneEvent::SetOffset(0, -30)));
    assert_eq!(ws.scene_end(), 40);
    // Closing the camera: the dance alone, 20 − 30 clamps to 0.
    ws.apply(Event::Close(c));
    assert_eq!(ws.scene_end(), 0);
    assert_eq!(ws.scene().camera, None, "the scene forgets a closed file");
}

#[test]
fn closing_a_file_forgets_its_steps_and_undo_goes_on_with_the_rest() {
    let (mut ws, d, c) = scene();
    ws.apply(Event::edit(
        d,
        EditRequest::apply(move_bone(&ws, d, 1, 12), "dance edit"),
    ));
    let mut cam = ws.doc(c).expect("camera").motion.cameras[1];
    cam.set_frame(41);
    ws.apply(Event::edit(
        c,
        EditRequest::apply(
            Edit::SetKeys(KeyChanges {
                cameras: vec![(1, cam)],
                ..Default::default()
            }),
            "camera edit",
        ),
    ));
    assert_eq!(ws.step_target(true), Some(c));
    ws.apply(Event::Close(c));
    assert_eq!(ws.step_target(true), Some(d));
    assert_eq!(ws.step_label(true).as_deref(), Some("dance edit"));
    ws.apply(Event::Undo);
    assert!(!ws.doc(d).expect("dance").is_modified());
}

#[test]
fn a_lower_undo_budget_drops_the_oldest_steps_and_says_so() {
    let mut ws = Workspace::new();
    let mut m = Motion::new_v2();
    for f in 0..2000 {
        m.bones.push(
            BoneKey::new(
                "センター",
                NameEncoding::ShiftJis,
                f,
                [0.0; 3],
                [0.0, 0.0, 0.0, 1.0],
            )
            .expect("name fits"),
        );
    }
    let d = open(&mut ws, m, "long.vmd");
    // Ten deletes of 100 keys each: about 100 × 111 bytes held per step.
    for _ in 0..10 {
        let mut m = ws.doc(d).expect("doc").motion.clone();
        m.bones.truncate(m.bones.len() - 100);
        let ch = ws.apply(Event::edit(
            d,
            EditRequest::apply(
                Edit::ReplaceMotion {
                    motion: Box::new(m),
                    selection: None,
                },
                "delete",
            ),
        ));
        assert!(ch.notes.is_empty());
    }
    assert_eq!(ws.doc(d).expect("doc").history().len(), 10);
    // 1 MiB (the least) keeps them all: ten steps are ~111 KB.
    let ch = ws.apply(Event::SetUndoBudget(0));
    assert_eq!(ws.undo_budget(), 1024 * 1024);
    assert!(ch.notes.is_empty());
    assert_eq!(ws.doc(d).expect("doc").history().len(), 10);
    assert_eq!(ws.doc(d).expect("doc").history().budget(), 1024 * 1024);
}

#[test]
fn a_recovered_copy_is_modified_and_a_save_clears_the_mark() {
    let mut ws = Workspace::new();
    let mut new = NewDocument::new(dance(20), Some(PathBuf::from("d.vmd")), "d.vmd");
    new.unsaved = true;
    let d = ws.apply(Event::Open(Box::new(new))).opened.expect("opened");
    assert!(ws.doc(d).expect("doc").is_modified());
    let state = ws.doc(d).expect("doc").state();
    ws.apply(Event::Saved {
        doc: d,
        state,
        path: PathBuf::from("e.vmd"),
        disk_stamp: None,
    });
    let doc = ws.doc(d).expect("doc");
    assert!(!doc.is_modified());
    assert_eq!(doc.path.as_deref(), Some(std::path::Path::new("e.vmd")));
    // Reopening replaces the document in place, keeping its id.
    let mut again = NewDocument::new(dance(30), None, "d.vmd");
    again.replace = Some(d);
    let ch = ws.apply(Event::Open(Box::new(again)));
    assert_eq!(ch.opened, Some(d));
    assert_eq!(ws.docs().len(), 1);
    assert_eq!(ws.doc(d).expect("doc").motion.last_frame(), Some(30));
}

/// Undo and redo never switch the active file silently: a step that
/// belongs to another file makes that file active and says so (its name
/// and the step's label) in the notes the status line shows; a step in the
/// active file says what it took back (issue 38.10: a plain Ctrl+Z left the
/// status line silent).
#[test]
fn undo_in_another_file_says_which_file_it_switched_to() {
    let mut ws = Workspace::new();
    let a = open(&mut ws, dance(20), "a.vmd");
    let b = open(&mut ws, dance(20), "b.vmd");
    let e = move_bone(&ws, a, 0, 3);
    ws.apply(Event::edit(a, EditRequest::apply(e, "Move A")));
    let e = move_bone(&ws, b, 0, 4);
    ws.apply(Event::edit(b, EditRequest::apply(e, "Move B")));
    ws.apply(Event::Activate(b));
    // B's own step: B stays active; the note says what was undone.
    let ch = ws.apply(Event::Undo);
    assert_eq!(ws.active().map(|d| d.id), Some(b));
    assert!(!ch.active);
    assert_eq!(ch.notes, ["Undid “Move B”"]);
    // A's step: A becomes active, and the note names A and the step.
    let ch = ws.apply(Event::Undo);
    assert_eq!(ws.active().map(|d| d.id), Some(a));
    assert!(ch.active);
    assert_eq!(ch.notes.len(), 1, "{:?}", ch.notes);
    assert!(ch.notes[0].contains("a.vmd"), "{:?}", ch.notes);
    assert!(ch.notes[0].contains("Move A"), "{:?}", ch.notes);
    assert!(ch.notes[0].starts_with("Undid"), "{:?}", ch.notes);
    // Redo from B: back to A's step, said again.
    ws.apply(Event::Activate(b));
    let ch = ws.apply(Event::Redo);
    assert_eq!(ws.active().map(|d| d.id), Some(a));
    assert!(ch.notes[0].starts_with("Redid"), "{:?}", ch.notes);
    assert!(ch.notes[0].contains("a.vmd"), "{:?}", ch.notes);
}

/// Every modified file is counted, not only the active one.
#[test]
fn the_modified_count_covers_every_file() {
    let mut ws = Workspace::new();
    let a = open(&mut ws, dance(20), "a.vmd");
    let b = open(&mut ws, dance(20), "b.vmd");
    let _c = open(&mut ws, dance(20), "c.vmd");
    assert_eq!(ws.modified_count(), 0);
    for id in [a, b] {
        let e = move_bone(&ws, id, 0, 7);
        ws.apply(Event::edit(id, EditRequest::apply(e, "move")));
    }
    assert_eq!(ws.modified_count(), 2);
    let names: Vec<&str> = ws.modified().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["a.vmd", "b.vmd"]);
    ws.apply(Event::Discard(a));
    assert_eq!(ws.modified_count(), 1);
}

// ------------------------------------------------- where opened files go

fn bytes(ws: &Workspace, id: DocId) -> Vec<u8> {
    vmd::write(&ws.doc(id).expect("open").motion).expect("writes")
}

/// A file opened with a role takes it as it opens, by what it holds: a
/// dance goes to a new actor (said so, naming the file), a camera becomes
/// the scene camera without taking the key panel from the dance.
#[test]
fn an_opened_file_takes_its_role_by_what_it_holds() {
    let mut ws = Workspace::new();
    let mut new = NewDocument::new(dance(20), Some("/x/dance.vmd".into()), "dance.vmd");
    new.place = Some(Intent::Auto);
    let ch = ws.apply(Event::Open(Box::new(new)));
    let d = ch.opened.expect("opened");
    assert_eq!(ws.scene().actors.len(), 1);
    assert_eq!(ws.scene().actors[0].motion, Some(d));
    assert_eq!(ws.selected_actor(), Some(0));
    assert_eq!(ch.notes.len(), 1, "{:?}", ch.notes);
    assert!(ch.notes[0].starts_with("Opened /x/dance.vmd as the motion of a new actor"));
    assert!(ws.scene_modified());

    let mut new = NewDocument::new(camera(40), Some("/x/cam.vmd".into()), "cam.vmd");
    new.place = Some(Intent::Auto);
    let c = ws.apply(Event::Open(Box::new(new))).opened.expect("opened");
    assert_eq!(ws.scene().camera, Some(c));
    assert_eq!(ws.scene().actors.len(), 1, "no actor for a camera");
    assert_eq!(
        ws.active().map(|x| x.id),
        Some(d),
        "the dance keeps the key panel"
    );
    // Opening is not an undo step.
    assert!(!ws.can_step(true));
}

/// The bundled demo: one actor, "Demo dancer", wearing the dance, the
/// camera framing it, the dance active, nothing modified.
#[test]
fn the_demo_is_one_dancer_framed_by_its_camera() {
    let mut ws = Workspace::new();
    for e in placing::demo_events(
        &ws,
        (dance(20), "demo_dance.vmd"),
        (camera(40), "demo_camera.vmd"),
    ) {
        ws.apply(e);
    }
    let names: Vec<&str> = ws.docs().iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["demo_dance.vmd", "demo_camera.vmd"]);
    let (d, c) = (ws.docs()[0].id, ws.docs()[1].id);
    let s = ws.scene();
    assert_eq!(s.actors.len(), 1);
    assert_eq!(s.actors[0].name, "Demo dancer");
    assert_eq!(s.actors[0].motion, Some(d));
    assert_eq!(s.camera, Some(c));
    assert_eq!(ws.active().map(|x| x.id), Some(d));
    assert!(!ws.scene_modified());
    assert_eq!(ws.modified_count(), 0);
    // Again: the unmodified demo files close, the new ones replace them.
    for e in placing::demo_events(
        &ws,
        (dance(20), "demo_dance.vmd"),
        (camera(40), "demo_camera.vmd"),
    ) {
        ws.apply(e);
    }
    assert_eq!(ws.docs().len(), 2);
}

/// A face motion merged into the actor's dance: its morph key is added at
/// its own frame, as one undo step that gives back the identical bytes; a
/// camera-only file has nothing to merge and says so.
#[test]
fn a_merge_adds_the_keys_as_one_undo_step() {
    let (mut ws, d, _) = scene();
    let before = bytes(&ws, d);
    let mut face = Motion::new_v2();
    face.morphs
        .push(MorphKey::new("まばたき", NameEncoding::ShiftJis, 3, 1.0).expect("name fits"));
    face.cameras.push(camera(1).cameras[0]);
    let (actor, target) = placing::merge_target(&ws, None).expect("an actor wearing a motion");
    assert_eq!((actor, target), (0, d));
    let (events, text) =
        placing::merge_events(&ws, actor, target, face, "face.vmd").expect("merges");
    for e in events {
        ws.apply(e);
    }
    let m = &ws.doc(d).expect("open").motion;
    assert_eq!(m.morphs.len(), 3, "two あ keys and the merged one");
    assert!(text.contains("0 bone, 1 morph keys"), "{text}");
    assert!(text.contains("1 camera/light keys left out"), "{text}");
    ws.apply(Event::Undo);
    assert_eq!(bytes(&ws, d), before);
    assert!(!ws.can_step(true), "one step");

    let err = placing::merge_events(&ws, 0, d, camera(9), "cam.vmd").expect_err("nothing to merge");
    assert!(err.contains("no bone or morph keys"), "{err}");
    // An actor that wears nothing simply wears the file.
    ws.apply(Event::Scene(SceneEvent::AddActor));
    assert_eq!(
        placing::merge_target(&ws, Some(1)),
        Err(Intent::ActorMotion(1))
    );
}

/// Saving a scene writes the motions with unsaved edits to their files
/// and the never-saved ones beside the scene; an unedited one is not
/// rewritten; a never-saved one whose name is taken stops the save.
#[test]
fn the_scene_save_plan_writes_only_what_needs_it() {
    let dir = std::env::temp_dir().join(format!("vmd-ws-plan-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let mut ws = Workspace::new();
    let mut new = NewDocument::new(dance(20), Some(dir.join("a.vmd")), "a.vmd");
    new.place = Some(Intent::Auto);
    let a = ws.apply(Event::Open(Box::new(new))).opened.expect("a");
    let mut new = NewDocument::new(camera(40), Some(dir.join("cam.vmd")), "cam.vmd");
    new.place = Some(Intent::Auto);
    let c = ws.apply(Event::Open(Box::new(new))).opened.expect("cam");
    let mut new = NewDocument::new(dance(30), None, "mirror");
    new.place = Some(Intent::Auto);
    let m = ws.apply(Event::Open(Box::new(new))).opened.expect("mirror");
    let e = move_bone(&ws, a, 0, 1);
    ws.apply(Event::edit(a, EditRequest::apply(e, "move")));
    let plan = placing::scene_save_plan(&ws, &dir.join("s.vmdscene"), true).expect("plan");
    let got: BTreeSet<(DocId, PathBuf)> = plan.motions.into_iter().collect();
    let want: BTreeSet<(DocId, PathBuf)> = [(a, dir.join("a.vmd")), (m, dir.join("mirror.vmd"))]
        .into_iter()
        .collect();
    assert_eq!(got, want);
    assert_eq!(plan.scene.camera, Some(dir.join("cam.vmd")));
    assert!(plan.scene.preview.through_camera);
    assert!(!got.iter().any(|(id, _)| *id == c));
    // Save all: the modified file with a path; an edited never-saved one
    // is named (an unedited one is not work to lose).
    assert_eq!(placing::save_all_plan(&ws, &[]).1, Vec::<String>::new());
    let e = move_bone(&ws, m, 0, 1);
    ws.apply(Event::edit(m, EditRequest::apply(e, "move")));
    let (todo, unnamed) = placing::save_all_plan(&ws, &[]);
    assert_eq!(todo, [(a, dir.join("a.vmd"))]);
    assert_eq!(unnamed, ["mirror"]);
    std::fs::write(dir.join("mirror.vmd"), b"taken").expect("write");
    let err = placing::scene_save_plan(&ws, &dir.join("s.vmdscene"), false).expect_err("taken");
    assert!(err.contains("mirror.vmd"), "{err}");
}
