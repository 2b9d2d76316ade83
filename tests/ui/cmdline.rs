//! Files named on the command line take their roles by what they are
//! (issue 24 item 1): `vmd-studio MODEL.pmx DANCE.vmd CAMERA.vmd SONG.wav`
//! is one actor wearing DANCE.vmd on the model, the scene camera, and the
//! song; the bundled demo does not open. Driven through
//! `app::open_command_line`, the function `vmd-studio FILES…` runs.

use crate::audio_support::{click_track, wav_bytes};
use crate::common;
use common::ui::{harness, settle_until, temp_dir};

use vmd_studio::app::{StudioApp, open_command_line};
use vmd_studio::scene::ModelRef;

#[test]
fn a_song_beside_model_dance_and_camera_joins_their_scene_without_the_demo() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let model = corpus.join("unitymmdloader__mmt_test_model.pmx");
    let dance = corpus.join("unitymmdloader__mmt_test_model_test_motion.vmd");
    let camera = corpus.join("vmd2xml__camera.vmd");
    let (x, _) = click_track(44_100, 120.0, 0.0, 4.0);
    let song = temp_dir("cmdline-song").join("song.wav");
    std::fs::write(&song, wav_bytes(44_100, 1, 16, &x)).unwrap();

    let mut app = StudioApp::default();
    let files = [model.clone(), dance.clone(), camera.clone(), song.clone()];
    open_command_line(&mut app, &files, &[]);
    let mut h = harness(app);
    settle_until(&mut h, "loading and the song", |a| {
        !a.jobs.is_busy() && a.shared.song.loading().is_none() && a.ws.scene().song.is_some()
    });
    let app = h.state();
    let ws = &app.ws;
    let names: Vec<String> = ws.docs().iter().map(|d| d.title()).collect();
    assert_eq!(
        ws.docs().len(),
        2,
        "the dance and the camera only: {names:?}"
    );
    let id_of = |p: &std::path::Path| {
        ws.docs()
            .iter()
            .find(|d| d.path.as_deref() == Some(p))
            .map(|d| d.id)
    };
    let s = ws.scene();
    assert_eq!(s.actors.len(), 1, "one actor: {:?}", app.shared.messages);
    assert_eq!(s.actors[0].model, ModelRef::File(model.clone()));
    assert_eq!(s.actors[0].motion, id_of(&dance));
    assert!(s.actors[0].motion.is_some());
    assert_eq!(s.camera, id_of(&camera));
    assert!(s.camera.is_some());
    assert_eq!(s.song.as_ref().map(|s| s.path.clone()), Some(song));
    assert!(
        !names.iter().any(|n| n.contains("demo")),
        "no demo: {names:?}"
    );
}

#[test]
fn no_file_on_the_command_line_opens_the_demo() {
    let mut app = StudioApp::default();
    open_command_line(&mut app, &[], &[]);
    let names: Vec<String> = app.ws.docs().iter().map(|d| d.title()).collect();
    assert_eq!(names, ["demo_dance.vmd", "demo_camera.vmd"]);
    assert_eq!(app.ws.scene().actors.len(), 1);
}
