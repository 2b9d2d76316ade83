//! Physics in the viewport: Mei (`mei/mei.pmd`, 31 rigid bodies) wearing
//! MMDAgent's `mmdagent__mei_wait.vmd`, played for a second. In the mode
//! While playing the bones her dynamic bodies drive (hair, ribbons, skirt)
//! stand elsewhere than in the pose without physics; with Off every bone
//! is exactly the animated pose. Mei's hair bodies are mode 2 (physics +
//! bone position), so the hair bones keep their animated heads and turn:
//! the test measures points one unit along each bone's axes. The expected pose is the pose engine
//! without physics ([`viewport::posed_world`], no world built), not the
//! viewport's own engine. Run with `cargo test --test ui physics::`.

use crate::common::corpus;
use crate::common::ui::{harness_sized, settle};

use egui_kittest::Harness;
use glam::Mat4;
use vmd_studio::app::panels::viewport;
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::model::PhysicsMode;
use vmd_studio::model::physics::SimulationMode;
use vmd_studio::workspace::TransportEvent;

fn mei_waiting(corpus: &std::path::Path) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::default();
    app.native_dialog = false;
    app.central = CentralView::Preview;
    app.open_paths(vec![
        corpus.join("mei/mei.pmd"),
        corpus.join("mmdagent__mei_wait.vmd"),
    ]);
    let mut h = harness_sized(app, 1400.0, 900.0);
    settle(&mut h);
    let app = h.state();
    assert!(
        app.scene.loaded(&app.ws.scene().actors[0].model),
        "Mei loaded"
    );
    assert_eq!(app.ws.docs().len(), 1, "the motion is open");
    h
}

/// Plays frames 0..`frames` (the playhead set each picture, so the test
/// does not depend on the wall clock) in `mode`, then returns the motion
/// frame the viewport posed last, its bone matrices, and the same frame
/// posed without physics.
fn play(
    h: &mut Harness<'_, StudioApp>,
    mode: SimulationMode,
    frames: u32,
) -> (f64, Vec<Mat4>, Vec<Mat4>) {
    h.state_mut().viewport.physics = mode;
    h.state_mut().transport(TransportEvent::Play);
    for f in 0..frames {
        h.state_mut().transport(TransportEvent::Seek(f64::from(f)));
        h.step();
    }
    let app = h.state();
    let (frame, got) = app.viewport.posed_bones(0).expect("the viewport posed Mei");
    let rig = app.scene.rig_for(&app.ws.scene().actors[0].model);
    let want = viewport::posed_world(rig, Some(app.ws.docs()[0].source()), frame);
    (frame, got.to_vec(), want)
}

/// Bones a dynamic body (modes 1 and 2) drives, by index.
fn driven(app: &StudioApp) -> Vec<usize> {
    let rig = app.scene.rig_for(&app.ws.scene().actors[0].model);
    let mut bones: Vec<usize> = rig
        .rigid_bodies
        .iter()
        .filter(|b| b.mode != PhysicsMode::FollowBone)
        .filter_map(|b| b.bone)
        .collect();
    bones.sort_unstable();
    bones.dedup();
    bones
}

fn head(m: &Mat4) -> glam::Vec3 {
    m.w_axis.truncate()
}

/// How far apart two bone poses put points one unit from the bone's head
/// along each of its axes (the largest of the three): a turn of the bone
/// shows even where its head stays (a chain's first bone turns about the
/// joint with its parent).
fn apart(a: &Mat4, b: &Mat4) -> f32 {
    [
        glam::Vec3::ZERO,
        glam::Vec3::X,
        glam::Vec3::Y,
        glam::Vec3::Z,
    ]
    .iter()
    .map(|&p| a.transform_point3(p).distance(b.transform_point3(p)))
    .fold(0.0f32, f32::max)
}

#[test]
fn hair_moves_while_playing_and_not_with_physics_off() {
    let Some(corpus) = corpus() else { return };
    let mut h = mei_waiting(&corpus);
    let driven = driven(h.state());
    assert!(
        driven.len() >= 10,
        "Mei's bodies drive {} bones",
        driven.len()
    );
    assert_eq!(
        h.state().viewport.physics,
        SimulationMode::Play,
        "MMD's default mode"
    );

    // While playing: simulated.
    let (frame, got, want) = play(&mut h, SimulationMode::Play, 45);
    assert!(frame > 30.0, "played to frame {frame}");
    assert_eq!(got.len(), want.len());
    let names: Vec<String> = {
        let app = h.state();
        let rig = app.scene.rig_for(&app.ws.scene().actors[0].model);
        rig.skeleton.bones.iter().map(|b| b.name.clone()).collect()
    };
    let moved: Vec<(usize, f32)> = driven
        .iter()
        .map(|&b| (b, apart(&got[b], &want[b])))
        .collect();
    let hair: Vec<&(usize, f32)> = moved
        .iter()
        .filter(|(b, _)| names[*b].contains('髪'))
        .collect();
    let hair_max = hair.iter().map(|(_, d)| *d).fold(0.0f32, f32::max);
    let all_max = moved.iter().map(|(_, d)| *d).fold(0.0f32, f32::max);
    eprintln!(
        "frame {frame}: {} driven bones, {} hair; hair bones off the animated pose by up to {hair_max:.3}, any driven bone {all_max:.3}",
        moved.len(),
        hair.len()
    );
    assert!(!hair.is_empty(), "Mei has hair bones driven by bodies");
    assert!(hair_max > 0.05, "the hair moves: {hair_max}");
    // Simulated, yet sane: every bone finite and within a 30-unit ball
    // around センター.
    let center = names
        .iter()
        .position(|n| n == "センター")
        .expect("センター");
    for (i, m) in got.iter().enumerate() {
        let p = head(m);
        assert!(p.is_finite(), "{} not finite", names[i]);
        assert!(
            p.distance(head(&got[center])) < 30.0,
            "{} flung to {p}",
            names[i]
        );
    }

    // Off: the animated pose, every bone.
    let (frame, got, want) = play(&mut h, SimulationMode::Off, 45);
    let worst = got
        .iter()
        .zip(&want)
        .map(|(a, b)| head(a).distance(head(b)))
        .fold(0.0f32, f32::max);
    eprintln!("Off, frame {frame}: worst bone head off the animated pose {worst}");
    for (i, (a, b)) in got.iter().zip(&want).enumerate() {
        assert!(
            a.abs_diff_eq(*b, 1e-5),
            "{} differs with physics off at frame {frame}",
            names[i]
        );
    }
    assert!(h.state().viewport.posed_bones(0).is_some());
}
