//! Crash recovery, driven with egui_kittest: a real app process killed with
//! SIGKILL after edits, and the next start restoring the same bytes and
//! rebuilding the scene (actor with its model and offset, camera, song); the
//! 50th-edit trigger; the copy deleted on save and on discard; a running
//! instance never offered its own or another live instance's copies.
//! Run with `env -u DISPLAY cargo test --test ui recovery::`.
//!
//! The killed process is this test binary itself, started again with
//! `VMD_RECOVERY_TEST_CHILD` set so that only `child_process` runs: it builds
//! the real app in a harness, edits, waits for the copy, reports the bytes
//! it expects and sleeps until killed.
//!
//! Golden numbers come from the VMD layout in /work/shared/spec/vmd-format.md:
//! a v2 file has a 30-byte header and a 20-byte model name, then the 4-byte
//! bone count; a bone record's frame is at +15, so bone key 0's frame is the
//! u32 at 30 + 20 + 4 + 15 = 69.

use crate::common;
use common::ui::harness;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::app::command::UiCommand;
use vmd_studio::scene::recovery::{INTERVAL_ENV, Meta};
use vmd_studio::scene::{ModelRef, Song};
use vmd_studio::workspace::document::{Edit, KeyChanges};

const FRAME0: usize = 69;
const CHILD_ENV: &str = "VMD_RECOVERY_TEST_CHILD";

/// Steps until `cond` holds (real time passes: the copies are timed).
fn wait_for(
    h: &mut Harness<'_, StudioApp>,
    what: &str,
    mut cond: impl FnMut(&mut Harness<'_, StudioApp>) -> bool,
) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        h.step();
        if cond(h) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("timed out waiting for {what}");
}

fn settle(h: &mut Harness<'_, StudioApp>) {
    wait_for(h, "background jobs", |h| {
        !h.state().jobs.is_busy() && h.state().recovery.is_idle()
    });
    h.run_steps(3);
}

fn frame0(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[FRAME0], b[FRAME0 + 1], b[FRAME0 + 2], b[FRAME0 + 3]])
}

/// A work folder with a copy of the bundled demo dance and a data folder.
fn work(tag: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix(&format!("vmd-ui-recovery-{tag}-"))
        .tempdir()
        .expect("temp dir");
    let path = dir.path().join("dance.vmd");
    std::fs::write(&path, vmd_studio::app::DEMO_DANCE).expect("write");
    (dir, path)
}

/// A short mono 16-bit WAV (a 64 Hz tone), written by hand (RIFF layout).
fn write_wav(path: &Path) {
    let rate = 8000u32;
    let n = rate / 2;
    let mut b = Vec::new();
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + n * 2).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes()); // PCM
    b.extend_from_slice(&1u16.to_le_bytes()); // mono
    b.extend_from_slice(&rate.to_le_bytes());
    b.extend_from_slice(&(rate * 2).to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&(n * 2).to_le_bytes());
    for i in 0..n {
        let v = (f64::from(i) * std::f64::consts::TAU * 64.0 / f64::from(rate)).sin();
        b.extend_from_slice(&((v * 8000.0) as i16).to_le_bytes());
    }
    std::fs::write(path, b).expect("wav");
}

/// The scene of the killed process: the dance worn by the demo model 12
/// frames late, the demo camera (no unsaved edits: it has no copy and must
/// be opened from its file), and a song starting at frame 5.
fn scene_files(work: &Path) {
    std::fs::write(work.join("camera.vmd"), vmd_studio::app::DEMO_CAMERA).expect("camera");
    std::fs::write(
        work.join("model.pmx"),
        vmd_studio::render::stage::DEMO_MODEL_PMX,
    )
    .expect("model");
    write_wav(&work.join("song.wav"));
}

fn recovery_dir(work: &Path) -> PathBuf {
    work.join("data").join("recovery")
}

/// Opens `path` in an app keeping copies in `rdir`.
fn open(path: &Path, rdir: &Path, interval: Duration) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::default();
    app.open_paths(vec![path.to_path_buf()]);
    app.start_recovery_in(rdir);
    app.recovery.interval = interval;
    let mut h = harness(app);
    settle(&mut h);
    assert_eq!(
        h.state().ws.docs().len(),
        1,
        "{:?}",
        h.state().shared.messages
    );
    h
}

/// Moves bone key 0 to `frame`, as one undo step.
fn move_key0(h: &mut Harness<'_, StudioApp>, frame: u32) {
    let mut k = h.state().ws.docs()[0].motion.bones[0];
    k.set_frame(frame);
    let doc = h.state().ws.docs()[0].id;
    let edit = Edit::SetKeys(KeyChanges {
        bones: vec![(0, k)],
        ..Default::default()
    });
    h.state_mut().apply(vmd_studio::workspace::Event::edit(
        doc,
        vmd_studio::workspace::EditRequest::apply(edit, "move"),
    ));
}

/// A crash's leftovers: the copies and sidecars of `rdir` copied into
/// `left`, a folder no live session holds.
fn leave_copies(rdir: &Path, left: &Path) -> PathBuf {
    std::fs::create_dir_all(left).expect("dir");
    for e in std::fs::read_dir(rdir).expect("copies").flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "json" || x == "vmd") {
            std::fs::copy(&p, left.join(p.file_name().expect("name"))).expect("copy");
        }
    }
    left.to_path_buf()
}

/// The next start with the copies left in `left`: Restore clicked, the
/// restored files settled.
fn restore_from(left: &Path) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::default();
    app.start_recovery_in(left);
    let mut h = harness(app);
    h.run_steps(2);
    h.get_by_label("Restore").click();
    h.run_steps(2);
    settle(&mut h);
    h
}

/// The sidecars in the folder, read.
fn sidecars(rdir: &Path) -> Vec<Meta> {
    let Ok(rd) = std::fs::read_dir(rdir) else {
        return Vec::new();
    };
    rd.flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| serde_json::from_slice(&std::fs::read(e.path()).ok()?).ok())
        .collect()
}

fn vmd_files(rdir: &Path) -> usize {
    std::fs::read_dir(rdir).map_or(0, |rd| {
        rd.flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "vmd"))
            .count()
    })
}

/// The app process the parent kills: runs only when started by
/// `sigkill_after_edits_then_the_next_start_restores_the_same_bytes`.
#[test]
fn child_process() {
    let Some(work) = std::env::var_os(CHILD_ENV).map(PathBuf::from) else {
        return;
    };
    // The data folder and the interval come from the environment, as for
    // the real app.
    let mut app = StudioApp::default();
    app.open_paths(vec![
        work.join("dance.vmd"),
        work.join("camera.vmd"),
        work.join("model.pmx"),
    ]);
    app.start_recovery();
    let mut h = harness(app);
    settle(&mut h);
    {
        let app = h.state_mut();
        assert_eq!(app.ws.scene().actors.len(), 1);
        use vmd_studio::workspace::{Event, SceneEvent};
        app.scene_action(vmd_studio::app::panels::scene::Action::SetOffset(0, 12));
        app.apply(Event::Scene(SceneEvent::SetSong(Some(Song {
            path: work.join("song.wav"),
            offset: 5,
        }))));
    }
    settle(&mut h);
    assert!(h.state().shared.song.song.is_some(), "the song decoded");
    assert_eq!(
        h.state().ws.docs()[0].path.as_deref(),
        Some(work.join("dance.vmd").as_path())
    );
    let rdir = h.state().recovery.dir().expect("recovery on").to_path_buf();
    assert_eq!(rdir, recovery_dir(&work));
    for f in [11, 22, 33] {
        move_key0(&mut h, f);
        h.step();
    }
    wait_for(&mut h, "the copy with 3 edits", |h| {
        h.state().recovery.is_idle() && sidecars(&rdir).iter().any(|m| m.edits == 3)
    });
    let expected = vmd_studio::vmd::write(&h.state().ws.docs()[0].motion).expect("write");
    std::fs::write(work.join("expected.vmd"), &expected).expect("expected");
    let mut out = std::io::stdout();
    let _ = writeln!(out, "\nRECOVERY-CHILD-READY");
    let _ = out.flush();
    // Killed here; never left running should the parent die first.
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(300) {
        h.step();
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn sigkill_after_edits_then_the_next_start_restores_the_same_bytes() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    let (dir, original) = work("kill");
    scene_files(dir.path());
    let rdir = recovery_dir(dir.path());
    let mut child = std::process::Command::new(std::env::current_exe().expect("exe"))
        .args([
            "recovery::child_process",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, dir.path())
        .env(vmd_studio::DATA_DIR_ENV, dir.path().join("data"))
        .env(INTERVAL_ENV, "0.2")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start the app process");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let ready = (|| loop {
        match rx.recv_timeout(Duration::from_secs(240)) {
            Ok(l) if l.contains("RECOVERY-CHILD-READY") => return true,
            Ok(_) => continue,
            Err(_) => return false,
        }
    })();
    // Child::kill is SIGKILL on Unix: no destructor, no clean-up runs.
    child.kill().expect("kill");
    let status = child.wait().expect("wait");
    assert!(ready, "the app process never got ready ({status})");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9), "{status}");
    }
    let expected = std::fs::read(dir.path().join("expected.vmd")).expect("expected bytes");
    assert_eq!(
        frame0(&expected),
        33,
        "the last edit is in the expected bytes"
    );
    assert_eq!(
        std::fs::read(&original).expect("original"),
        vmd_studio::app::DEMO_DANCE
    );
    let left = sidecars(&rdir);
    assert_eq!(left.len(), 1, "the killed process left one copy");
    assert_eq!(left[0].edits, 3);
    let rec = left[0].scene.as_ref().expect("the scene is recorded");
    assert_eq!(rec.actors.len(), 1);
    assert_eq!(rec.actors[0].offset, 12);
    assert_eq!(rec.song.as_ref().map(|s| s.offset), Some(5));

    // The next start: offered, listed with its file and edit count.
    let mut app = StudioApp::default();
    app.start_recovery_in(&rdir);
    let mut h = harness(app);
    h.run_steps(2);
    let offer = h
        .state()
        .recovery
        .offer
        .clone()
        .expect("the copies are offered");
    assert_eq!(offer.len(), 1);
    assert_eq!(offer[0].meta.original.as_deref(), Some(original.as_path()));
    assert_eq!(offer[0].meta.edits, 3);
    h.get_by_label_contains("did not close normally");
    h.get_by_label(&original.display().to_string());
    h.get_by_label("3");
    h.get_by_label("Restore").click();
    h.run_steps(2);
    settle(&mut h);
    assert!(h.state().recovery.offer.is_none());
    let app = h.state();
    // The dance (restored) and the camera (opened from its file).
    assert_eq!(app.ws.docs().len(), 2, "{:?}", app.shared.messages);
    let d = app
        .ws
        .docs()
        .iter()
        .find(|d| d.path.as_deref() == Some(original.as_path()))
        .expect("the dance is restored");
    // The scene is rebuilt as it was.
    let s = &app.ws.scene();
    assert_eq!(s.actors.len(), 1, "{:?}", app.shared.messages);
    assert_eq!(s.actors[0].motion, Some(d.id), "the actor wears the dance");
    assert_eq!(s.actors[0].offset, 12);
    assert_eq!(
        s.actors[0].model,
        ModelRef::File(dir.path().join("model.pmx"))
    );
    assert!(
        app.scene.loaded(&app.ws.scene().actors[0].model),
        "{:?}",
        app.shared.messages
    );
    let camera = s
        .camera
        .and_then(|id| app.ws.docs().iter().find(|d| d.id == id))
        .expect("the camera is back");
    assert_eq!(
        camera.path.as_deref(),
        Some(dir.path().join("camera.vmd").as_path())
    );
    assert!(!camera.is_modified());
    assert_eq!(
        s.song,
        Some(Song {
            path: dir.path().join("song.wav"),
            offset: 5
        })
    );
    assert!(app.shared.song.song.is_some(), "the song decoded again");
    assert!(d.is_modified(), "a restored document is modified");
    assert_eq!(vmd_studio::vmd::write(&d.motion).expect("write"), expected);
    assert_eq!(
        std::fs::read(&original).expect("original"),
        vmd_studio::app::DEMO_DANCE,
        "the original file is untouched until the user saves"
    );
    // The old copy is gone; this session keeps its own, with the count.
    let now = sidecars(&rdir);
    assert_eq!(now.len(), 1, "{now:?}");
    assert_ne!(now[0].session, left[0].session);
    assert_eq!(now[0].edits, 3);
    assert_eq!(vmd_files(&rdir), 1);

    // Saving writes the restored bytes to the original and drops the copy.
    h.state_mut().run_command(UiCommand::Save);
    settle(&mut h);
    assert_eq!(std::fs::read(&original).expect("saved"), expected);
    assert!(!h.state().ws.docs()[0].is_modified());
    settle(&mut h);
    assert!(sidecars(&rdir).is_empty());
    assert_eq!(vmd_files(&rdir), 0);
}

#[test]
fn the_fiftieth_edit_writes_a_copy_before_the_interval() {
    let (dir, original) = work("fifty");
    let rdir = recovery_dir(dir.path());
    let mut h = open(&original, &rdir, Duration::from_secs(3600));
    for i in 1..=49 {
        move_key0(&mut h, 100 + i);
        h.step();
    }
    settle(&mut h);
    assert!(sidecars(&rdir).is_empty(), "no copy before the 50th edit");
    move_key0(&mut h, 150);
    h.step();
    settle(&mut h);
    let metas = sidecars(&rdir);
    assert_eq!(metas.len(), 1);
    assert_eq!(metas[0].edits, 50);
    assert_eq!(metas[0].original.as_deref(), Some(original.as_path()));
    let bytes = std::fs::read(rdir.join(&metas[0].vmd_file)).expect("copy");
    assert_eq!(frame0(&bytes), 150);
    assert_eq!(
        bytes,
        vmd_studio::vmd::write(&h.state().ws.docs()[0].motion).expect("write")
    );
    // Only the edited frame differs from the original file.
    let orig = vmd_studio::app::DEMO_DANCE;
    assert_eq!(bytes.len(), orig.len());
    let diff: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] != orig[i]).collect();
    assert!(
        diff.iter().all(|i| (FRAME0..FRAME0 + 4).contains(i)),
        "{diff:?}"
    );
    // The scene arrangement travels with it: the dance is worn by an actor.
    let scene = metas[0].scene.clone().expect("scene");
    assert_eq!(scene.actors.len(), 1);
    assert_eq!(scene.actors[0].motion.as_deref(), Some(original.as_path()));
}

#[test]
fn saving_deletes_the_copy() {
    let (dir, original) = work("save");
    let rdir = recovery_dir(dir.path());
    let mut h = open(&original, &rdir, Duration::from_millis(50));
    move_key0(&mut h, 7);
    wait_for(&mut h, "the copy", |h| {
        h.state().recovery.is_idle() && sidecars(&rdir).len() == 1
    });
    h.state_mut().run_command(UiCommand::Save);
    settle(&mut h);
    assert_eq!(frame0(&std::fs::read(&original).expect("saved")), 7);
    settle(&mut h);
    assert!(sidecars(&rdir).is_empty());
    assert_eq!(vmd_files(&rdir), 0);
}

#[test]
fn closing_without_saving_deletes_the_copy() {
    let (dir, original) = work("discard");
    let rdir = recovery_dir(dir.path());
    let mut h = open(&original, &rdir, Duration::from_millis(50));
    move_key0(&mut h, 8);
    wait_for(&mut h, "the copy", |h| {
        h.state().recovery.is_idle() && sidecars(&rdir).len() == 1
    });
    assert!(h.state().ws.docs()[0].is_modified());
    h.state_mut().run_command(UiCommand::CloseTab);
    h.run_steps(3);
    h.get_by_label("Discard").click();
    h.run_steps(2);
    settle(&mut h);
    assert!(h.state().ws.docs().is_empty());
    assert!(sidecars(&rdir).is_empty());
    assert_eq!(vmd_files(&rdir), 0);
    assert_eq!(
        std::fs::read(&original).expect("original"),
        vmd_studio::app::DEMO_DANCE
    );
}

#[test]
fn live_copies_are_not_offered_later_keeps_and_discard_deletes() {
    let (dir, original) = work("live");
    let rdir = recovery_dir(dir.path());
    let mut a = open(&original, &rdir, Duration::from_millis(50));
    move_key0(&mut a, 9);
    move_key0(&mut a, 10);
    wait_for(&mut a, "the copy", |h| {
        h.state().recovery.is_idle() && sidecars(&rdir).iter().any(|m| m.edits == 2)
    });
    // A second instance while the first runs: nothing to offer.
    let mut b = StudioApp::default();
    b.start_recovery_in(&rdir);
    assert!(b.recovery.offer.is_none());
    drop(b);
    // The first one ends without saving (its lock goes, its copy stays).
    drop(a);
    assert_eq!(sidecars(&rdir).len(), 1);

    let mut app = StudioApp::default();
    app.start_recovery_in(&rdir);
    let mut h = harness(app);
    h.run_steps(2);
    assert_eq!(h.state().recovery.offer.as_ref().map(Vec::len), Some(1));
    h.get_by_label("2");
    h.get_by_label("Later").click();
    h.run_steps(2);
    settle(&mut h);
    assert!(h.state().recovery.offer.is_none());
    assert!(h.state().ws.docs().is_empty());
    assert_eq!(sidecars(&rdir).len(), 1, "Later keeps the copy");
    drop(h);

    let mut app = StudioApp::default();
    app.start_recovery_in(&rdir);
    let mut h = harness(app);
    h.run_steps(2);
    assert_eq!(h.state().recovery.offer.as_ref().map(Vec::len), Some(1));
    h.get_by_label("Discard").click();
    h.run_steps(2);
    settle(&mut h);
    assert!(h.state().ws.docs().is_empty());
    assert!(sidecars(&rdir).is_empty(), "Discard deletes the copy");
    assert_eq!(vmd_files(&rdir), 0);
    drop(h);
    // Nothing left behind but nothing, once every session has ended.
    let mut app = StudioApp::default();
    app.start_recovery_in(&rdir);
    assert!(app.recovery.offer.is_none());
}

/// A square floor in DirectX text (`.x`), for the set.
const FLOOR_X: &str = "xof 0303txt 0032\nMesh {\n 4;\n -3;0;-3;,\n -3;0;3;,\n 3;0;3;,\n 3;0;-3;;\n 1;\n 4;0,1,2,3;;\n\
 MeshMaterialList { 1; 1; 0;;\n  Material { 0;0.8;0;1;; 5; 0;0;0;; 0;0.8;0;; }\n }\n}\n";

/// The set travels with a recovery copy: a stage and an accessory with two
/// keys, recorded in the copy's sidecar, come back (paths, placement, keys)
/// when the copy is restored by the next start; the stage loads for drawing.
#[test]
fn a_restored_scene_brings_back_its_stage_and_accessory_keys() {
    use vmd_studio::scene::set::AccessoryKey;
    use vmd_studio::workspace::{Event, SceneEvent};
    let (dir, original) = work("set");
    scene_files(dir.path());
    let (stage, negi) = (dir.path().join("stage.x"), dir.path().join("negi.x"));
    std::fs::write(&stage, FLOOR_X).expect("stage");
    std::fs::write(&negi, FLOOR_X).expect("accessory");
    let rdir = recovery_dir(dir.path());
    let mut app = StudioApp::default();
    app.open_paths(vec![original.clone(), dir.path().join("model.pmx")]);
    app.start_recovery_in(&rdir);
    app.recovery.interval = Duration::from_millis(100);
    let mut h = harness(app);
    settle(&mut h);
    h.state_mut().add_stage(stage.clone());
    h.state_mut().add_accessory(negi.clone());
    settle(&mut h);
    let mut state = h.state().ws.scene().set.accessories[0].state.clone();
    for (frame, x) in [(0, 1.5), (30, -4.0)] {
        state.position.x = x;
        let key = AccessoryKey {
            frame,
            state: state.clone(),
        };
        h.state_mut()
            .apply(Event::Scene(SceneEvent::SetAccessoryKey(0, Box::new(key))));
    }
    move_key0(&mut h, 7);
    // (The set alone is kept from the accessory on; the copy to take is
    // the one written after the key move, with both keys.)
    wait_for(&mut h, "a copy recording the set", |h| {
        h.state().recovery.is_idle()
            && sidecars(&rdir)
                .iter()
                .any(|m| m.edits >= 1 && m.scene.as_ref().is_some_and(|s| s.set.is_some()))
    });
    let set_before = h.state().ws.scene().set.clone();
    // The crash: the copy and its sidecar are what is left, in a folder no
    // live session holds.
    let left = leave_copies(&rdir, &dir.path().join("left"));
    drop(h);

    let h = restore_from(&left);
    let app = h.state();
    let set = &app.ws.scene().set;
    assert_eq!(set.props.len(), 1, "{:?}", app.shared.messages);
    assert_eq!(set.props[0].path, stage);
    assert_eq!(set.accessories.len(), 1);
    let (a, b) = (&set.accessories[0], &set_before.accessories[0]);
    assert_eq!(a.path, negi);
    assert_eq!(
        a.keys
            .iter()
            .map(|k| (k.frame, k.state.position.x))
            .collect::<Vec<_>>(),
        vec![(0, 1.5), (30, -4.0)]
    );
    assert_eq!(a.state, b.state);
    // Half-way between the keys at frame 15: (1.5 − 4) / 2 = −1.25.
    assert!((a.pose_at(15.0).position.x + 1.25).abs() < 1e-5);
    assert!(
        app.scene.models.contains_key(&stage),
        "the stage loads for drawing: {:?}",
        app.shared.messages
    );
}

/// Set edits alone (no motion edited) are kept too: adding an accessory
/// and keying it writes a copy of the scene's dance (its bytes unchanged)
/// whose sidecar records the set; a restore from it brings the accessory
/// back; saving the scene deletes the copy.
#[test]
fn set_edits_alone_write_a_copy_and_saving_the_scene_deletes_it() {
    use vmd_studio::scene::set::AccessoryKey;
    use vmd_studio::workspace::{Event, SceneEvent};
    let (dir, original) = work("set-alone");
    scene_files(dir.path());
    let negi = dir.path().join("negi.x");
    std::fs::write(&negi, FLOOR_X).expect("accessory");
    let rdir = recovery_dir(dir.path());
    let mut app = StudioApp::default();
    app.open_paths(vec![original.clone(), dir.path().join("model.pmx")]);
    app.start_recovery_in(&rdir);
    app.recovery.interval = Duration::from_millis(100);
    let mut h = harness(app);
    settle(&mut h);
    assert!(sidecars(&rdir).is_empty(), "nothing edited, no copy");
    h.state_mut().add_accessory(negi.clone());
    settle(&mut h);
    let mut state = h.state().ws.scene().set.accessories[0].state.clone();
    state.position.y = 3.0;
    h.state_mut()
        .apply(Event::Scene(SceneEvent::SetAccessoryKey(
            0,
            Box::new(AccessoryKey { frame: 12, state }),
        )));
    assert!(!h.state().ws.docs()[0].is_modified(), "no motion edited");
    wait_for(&mut h, "a copy recording the keyed accessory", |h| {
        h.state().recovery.is_idle()
            && sidecars(&rdir).iter().any(|m| {
                m.scene.as_ref().is_some_and(|s| {
                    s.set
                        .as_ref()
                        .is_some_and(|set| format!("{set:?}").contains("frame: 12"))
                })
            })
    });
    assert_eq!(vmd_files(&rdir), 1);
    let left = leave_copies(&rdir, &dir.path().join("left"));

    // Saving the scene: nothing is left unsaved, the copy goes.
    h.state_mut()
        .save_scene_to(dir.path().join("saved.vmdscene"));
    settle(&mut h);
    wait_for(&mut h, "the copy deleted", |h| {
        h.state().recovery.is_idle() && sidecars(&rdir).is_empty()
    });
    assert_eq!(vmd_files(&rdir), 0);
    drop(h);

    let h = restore_from(&left);
    let app = h.state();
    let accs = &app.ws.scene().set.accessories;
    assert_eq!(accs.len(), 1, "{:?}", app.shared.messages);
    assert_eq!(accs[0].path, negi);
    assert_eq!(
        accs[0]
            .keys
            .iter()
            .map(|k| (k.frame, k.state.position.y))
            .collect::<Vec<_>>(),
        vec![(12, 3.0)]
    );
    let dance = app
        .ws
        .docs()
        .iter()
        .find(|d| d.path.as_deref() == Some(original.as_path()));
    let dance = dance.expect("the dance is back");
    assert_eq!(
        vmd_studio::vmd::write(&dance.motion).expect("bytes"),
        std::fs::read(&original).expect("original"),
        "the dance's bytes are the file's"
    );
}
