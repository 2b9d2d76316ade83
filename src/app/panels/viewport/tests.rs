//! The viewport's options kept between runs, and `--view`.

use std::collections::HashMap;

use super::{MouseMap, SETTINGS_KEY, State, ViewMode};
use crate::app::panels::model_view;
use crate::model::physics::SimulationMode;

/// eframe's storage in memory.
#[derive(Default)]
struct Memory(HashMap<String, String>);

impl eframe::Storage for Memory {
    fn get_string(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
    fn set_string(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), value);
    }
    fn remove_string(&mut self, key: &str) {
        self.0.remove(key);
    }
    fn flush(&mut self) {}
}

#[test]
fn viewport_options_survive_a_restart() {
    let mut s = State::default();
    s.view.show_grid = false;
    s.view.look = model_view::Settings {
        aspect: 2,
        custom: (640, 480),
        guides: true,
        skeleton_overlay: true,
        ground_shadow: false,
        self_shadow: false,
    };
    s.view.mouse = MouseMap::LeftOrbit;
    s.second.look.guides = true;
    s.posing.physics = SimulationMode::Trace;
    s.posing.collide_actors = true;
    s.posing.fast_preview = true;
    let mut storage = Memory::default();
    s.persist(&mut storage);
    let mut next = State::default();
    assert!(
        next.view.show_grid && next.view.look.ground_shadow,
        "defaults differ"
    );
    assert_eq!(next.view.mouse, MouseMap::Mmd, "MMD's mapping by default");
    next.restore(&storage);
    assert!(!next.view.show_grid);
    assert_eq!(next.view.look, s.view.look);
    assert_eq!(next.view.mouse, MouseMap::LeftOrbit);
    assert!(next.second.look.guides && next.second.show_grid);
    assert_eq!(next.second.mouse, MouseMap::Mmd);
    assert_eq!(next.posing.physics, SimulationMode::Trace);
    assert!(next.posing.collide_actors, "the switch is kept");
    assert!(next.posing.fast_preview, "Fast preview is kept");
    // Nothing stored: the defaults stay.
    let mut fresh = State::default();
    fresh.restore(&Memory::default());
    assert!(fresh.view.show_grid);
    assert_eq!(fresh.view.look, model_view::Settings::default());
    assert_eq!(fresh.posing.physics, SimulationMode::Play, "MMD's default");
    // Options stored before physics and the mouse mapping existed keep
    // the defaults.
    #[derive(serde::Serialize)]
    struct Before {
        show_grid: bool,
        look: model_view::Settings,
    }
    let mut old = Memory::default();
    let before = Before {
        show_grid: false,
        look: model_view::Settings::default(),
    };
    eframe::set_value(&mut old, SETTINGS_KEY, &before);
    let mut from_old = State::default();
    from_old.restore(&old);
    assert!(!from_old.view.show_grid, "the old options were read");
    assert_eq!(from_old.posing.physics, SimulationMode::Play);
    assert!(!from_old.posing.collide_actors, "off unless switched on");
    assert!(
        !from_old.posing.fast_preview,
        "full quality unless switched"
    );
    assert_eq!(from_old.view.mouse, MouseMap::Mmd);
}

#[test]
fn view_flag_takes_a_positive_distance_as_a_length() {
    let mut s = State::default();
    s.set_view_mode("free:10,-20,30");
    assert_eq!(s.view.mode, ViewMode::Free);
    // 30 units in front of the target: MMD's signed −30, not +30 (which
    // would put the eye behind the target, looking away).
    assert_eq!(s.view.free.distance, -30.0);
    assert!((s.view.free.rotation[0] - 10f32.to_radians()).abs() < 1e-6);
    assert!((s.view.free.rotation[1] + 20f32.to_radians()).abs() < 1e-6);
    s.set_view_mode("free:0,0,-12,1,2,3");
    assert_eq!(s.view.free.distance, -12.0);
    assert_eq!(s.view.free.target, [1.0, 2.0, 3.0]);
    s.set_view_mode("camera");
    assert_eq!(s.view.mode, ViewMode::VmdCamera);
    // The second view is untouched by the flag.
    assert_eq!(s.second.mode, ViewMode::Free);
    assert_eq!(s.second.free, crate::scene::view::ViewCamera::FRONT);
}

/// The corpus directory, if present (`VMD_CORPUS`, default `../shared/corpus`).
fn corpus() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("VMD_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus").into());
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("corpus directory {} is missing (CI=true)", dir.display());
    }
    eprintln!("note: corpus {} not found; skipping", dir.display());
    None
}

/// Where vertex `v` lands when bone `b` alone moves it: the bone's world
/// matrix applied to the vertex's offset from the bone's rest position
/// (MMD bones have no rest orientation), computed here, not by the skinner.
fn skinned_by(model: &crate::model::Model, world: &[glam::Mat4], v: usize, b: usize) -> glam::Vec3 {
    let rest = model.skeleton.bones[b].rest_position;
    world[b].transform_point3(model.positions[v] - rest)
}

/// Mei from the corpus, loaded as the viewport loads a model (`None`
/// without the corpus).
fn mei_asset() -> Option<(
    std::path::PathBuf,
    std::sync::Arc<crate::render::asset::ModelAsset>,
)> {
    let path = corpus()?.join("mei/mei.pmd");
    let Ok(bytes) = std::fs::read(&path) else {
        panic!("{} unreadable", path.display());
    };
    let asset =
        crate::render::asset::ModelAsset::load(&path, &bytes, &crate::progress::Progress::new())
            .expect("Mei loads");
    Some((path, std::sync::Arc::new(asset)))
}

/// A scene of Mei alone, at rest, at the origin.
fn mei_alone<'a>(
    path: &'a std::path::Path,
    asset: &'a std::sync::Arc<crate::render::asset::ModelAsset>,
) -> super::SceneView<'a> {
    super::SceneView {
        set: Vec::new(),
        actors: vec![super::ActorView {
            name: "Mei",
            model_path: Some(path),
            model: Some(asset),
            rig: &asset.loaded.model,
            motion: None,
            offset: 0,
            placement: Default::default(),
        }],
        ..Default::default()
    }
}

#[test]
fn one_pose_feeds_the_skeleton_and_the_mesh_and_the_buffers_are_reused() {
    use super::Posing;
    use crate::app::panels::Shared;
    use crate::model::Deform;

    let Some((path, asset)) = mei_asset() else {
        return;
    };
    let model = &asset.loaded.model;
    let scene = mei_alone(&path, &asset);
    let mut shared = Shared::default();
    shared.transport.playing = true;
    let mut posing = Posing::default();
    posing.physics = SimulationMode::Always;
    // Skinned on the CPU (the fallback and the reference): vertices here.
    posing.set_skinning(model_view::Skinning::cpu());
    // Pass 1, asked twice (two views): one pose, skinned.
    for _ in 0..2 {
        posing.update(1, &scene, &mut shared, 1.0 / 30.0, true);
    }
    assert_eq!(posing.poses(), 1);
    assert_eq!(posing.updates(), 1);
    // Let the hair fall for a second of frames.
    for pass in 2..32 {
        shared.transport.frame = pass as f64;
        posing.update(pass, &scene, &mut shared, 1.0 / 30.0, true);
    }
    assert_eq!(posing.poses(), 31, "one pose per pass");
    assert!(posing.physics_steps(0) > 0, "simulated");
    // The mesh is the skeleton's pose: every vertex moved by one bone alone
    // sits where that bone's (simulated) matrix puts it.
    let (_, world) = posing.posed_bones(0).expect("posed");
    let verts = posing.mesh_vertices(0).expect("a mesh").clone();
    assert_eq!(verts.len(), model.positions.len());
    let mut checked = 0;
    let mut moved_by_physics = 0;
    let bodies: std::collections::HashSet<usize> =
        model.rigid_bodies.iter().filter_map(|b| b.bone).collect();
    for (v, d) in model.deforms.iter().enumerate() {
        let b = match *d {
            Deform::Bdef1 { bone } => bone as usize,
            Deform::Bdef2 { bones, weight: 1.0 } => bones[0] as usize,
            Deform::Bdef2 { bones, weight: 0.0 } => bones[1] as usize,
            _ => continue,
        };
        let want = skinned_by(model, world, v, b);
        let got = glam::Vec3::from(verts[v].position);
        assert!((got - want).length() < 1e-3, "vertex {v}: {got} vs {want}");
        checked += 1;
        if bodies.contains(&b) && (want - model.positions[v]).length() > 1e-2 {
            moved_by_physics += 1;
        }
    }
    assert!(checked > 1000, "{checked} single-bone vertices");
    assert!(
        moved_by_physics > 0,
        "some vertex moved by a simulated bone"
    );
    drop(verts);
    // The next frame refills the same buffer in place (nothing else holds it).
    let before = posing.mesh_vertices(0).map(|v| v.as_ptr());
    shared.transport.frame = 40.0;
    posing.update(40, &scene, &mut shared, 1.0 / 30.0, true);
    assert_eq!(
        posing.mesh_vertices(0).map(|v| v.as_ptr()),
        before,
        "reused"
    );
    // While a paint callback still holds last frame's buffer, a new one is
    // made (its pictures are never changed under it).
    let held = posing.frames();
    posing.update(41, &scene, &mut shared, 1.0 / 30.0, true);
    assert_ne!(posing.mesh_vertices(0).map(|v| v.as_ptr()), before);
    drop(held);
}

#[test]
fn without_physics_an_unchanged_frame_is_not_posed_again() {
    use super::{ActorView, Posing, SceneView};
    use crate::app::panels::Shared;

    let rig = crate::model::standard_model();
    let scene = SceneView {
        set: Vec::new(),
        actors: vec![ActorView {
            name: "built-in",
            model_path: None,
            model: None,
            rig: &rig,
            motion: None,
            offset: 0,
            placement: Default::default(),
        }],
        ..Default::default()
    };
    let mut shared = Shared::default();
    let mut posing = Posing::default();
    // With meshes: the built-in skeleton and its stand-in figure (the demo
    // mannequin), one pose each; the figure skinned on the GPU (a packed
    // pose, no vertices).
    posing.update(1, &scene, &mut shared, 0.0, true);
    assert_eq!(posing.poses(), 2);
    assert!(posing.mesh_gpu_frame(0).is_some_and(|g| !g.pose.is_empty()));
    assert!(posing.mesh_vertices(0).is_none());
    posing.update(2, &scene, &mut shared, 0.0, true);
    assert_eq!(posing.poses(), 2, "same frame, nothing simulated");
    shared.transport.frame = 5.0;
    posing.update(3, &scene, &mut shared, 0.0, true);
    assert_eq!(posing.poses(), 4);
    // Without the renderer only the rig is posed.
    let mut bones_only = Posing::default();
    bones_only.update(1, &scene, &mut shared, 0.0, false);
    assert_eq!(bones_only.poses(), 1);
    assert!(bones_only.mesh_vertices(0).is_none());
}

/// Mei playing with physics, skinned on the GPU: the CPU fills no vertex;
/// the packed pose carries each bone's skinning matrix, which takes the
/// bone's rest position to where the skeleton (physics included) puts the
/// bone; a switch to the CPU fills vertices from the next pass on.
#[test]
fn gpu_skinned_mesh_gets_the_skeletons_matrices_and_no_vertices() {
    use super::Posing;
    use crate::app::panels::Shared;

    let Some((path, asset)) = mei_asset() else {
        return;
    };
    let model = &asset.loaded.model;
    let scene = mei_alone(&path, &asset);
    let mut shared = Shared::default();
    shared.transport.playing = true;
    let mut posing = Posing::default();
    posing.physics = SimulationMode::Always;
    posing.set_skinning(model_view::Skinning::gpu());
    for pass in 1..31 {
        shared.transport.frame = pass as f64;
        posing.update(pass, &scene, &mut shared, 1.0 / 30.0, true);
    }
    assert!(posing.physics_steps(0) > 0, "simulated");
    assert!(posing.mesh_vertices(0).is_none(), "no vertex on the CPU");
    let gpu = posing.mesh_gpu_frame(0).expect("a packed pose").clone();
    let bones = model.skeleton.bones.len();
    // 16 floats a bone, then the morph weights padded to whole vec4s.
    assert_eq!(
        gpu.pose.len(),
        bones * 16 + model.morphs.len().div_ceil(4).max(1) * 4
    );
    assert_eq!(gpu.materials.len(), model.materials.len());
    let (_, world) = posing.posed_bones(0).expect("posed");
    let bodies: std::collections::HashSet<usize> =
        model.rigid_bodies.iter().filter_map(|b| b.bone).collect();
    let mut moved_by_physics = 0;
    for (b, bone) in model.skeleton.bones.iter().enumerate() {
        let m = glam::Mat4::from_cols_slice(&gpu.pose[b * 16..b * 16 + 16]);
        let got = m.transform_point3(bone.rest_position);
        let want = world[b].w_axis.truncate();
        assert!((got - want).length() < 1e-3, "bone {b}: {got} vs {want}");
        if bodies.contains(&b) && (want - bone.rest_position).length() > 1e-2 {
            moved_by_physics += 1;
        }
    }
    assert!(moved_by_physics > 0, "some simulated bone moved");
    // The frame handed to the renderer is the GPU's kind.
    let frames = posing.frames();
    assert!(matches!(frames[0].mesh, model_view::FrameMesh::Gpu(_)));
    let generation = frames[0].generation;
    drop(frames);
    // Switched to the CPU: vertices from the next pass, a new generation.
    posing.set_skinning(model_view::Skinning::cpu());
    shared.transport.frame = 31.0;
    posing.update(31, &scene, &mut shared, 1.0 / 30.0, true);
    assert!(posing.mesh_gpu_frame(0).is_none());
    assert_eq!(
        posing.mesh_vertices(0).map(|v| v.len()),
        Some(model.positions.len())
    );
    assert!(posing.frames()[0].generation > generation);
}
