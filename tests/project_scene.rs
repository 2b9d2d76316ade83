//! A project → the steps that open it as a scene, applied to a workspace:
//! one actor per model wearing a new, unsaved motion built from the
//! project's keys, the camera/light document in the scene's camera and
//! light slots, the model file to load; a model not found keeps its actor
//! and motion and is listed.

mod common;

use vmd_studio::model::physics::SimulationMode;
use vmd_studio::project::scene::project_events;
use vmd_studio::project::{self, Resolver};
use vmd_studio::scene::ModelRef;
use vmd_studio::workspace::{Intent, Workspace};

const FILE: &str = "frontier/pmm_v2_mmdanim_synthetic/ik_multi_bone_from_pmx_vmd.pmm";

#[test]
fn the_synthetic_project_opens_as_one_actor_and_a_camera() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let path = corpus.join(FILE);
    let p = project::read(&std::fs::read(&path).unwrap()).unwrap();
    let mut ws = Workspace::new();
    let r = Resolver::for_file(&path);
    let steps = project_events(&ws, &path, &p, &r);
    for e in steps.events {
        ws.apply(e);
    }
    let model = path.with_file_name("ik_multi_axis_limit.pmx");
    assert_eq!(steps.model_opens, [(model.clone(), Intent::ActorModel(0))]);
    assert!(steps.missing_models.is_empty());
    let names: Vec<&str> = ws.docs().iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "ik_multi_bone_from_pmx_vmd_ik_multi_axis_limit_fixture.vmd",
            "ik_multi_bone_from_pmx_vmd_camera.vmd"
        ]
    );
    let (d, c) = (ws.docs()[0].id, ws.docs()[1].id);
    assert!(
        ws.docs()
            .iter()
            .all(|d| d.is_modified() && d.path.is_none())
    );
    assert_eq!(ws.docs()[0].motion.bones.len(), 5);
    let s = ws.scene();
    assert_eq!(s.actors.len(), 1);
    assert_eq!(s.actors[0].name, "ik_multi_axis_limit_fixture");
    assert_eq!(s.actors[0].model, ModelRef::File(model));
    assert_eq!(s.actors[0].motion, Some(d));
    assert_eq!((s.camera, s.light), (Some(c), Some(c)));
    // mmd-anim writes physics mode 2 (while playing).
    assert_eq!(s.preview.physics, Some(SimulationMode::Play));
}

#[test]
fn a_model_not_found_keeps_its_actor_and_motion() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("vmd-pmm-scene-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("alone.pmm");
    std::fs::copy(corpus.join(FILE), &path).unwrap();
    let p = project::read(&std::fs::read(&path).unwrap()).unwrap();
    let mut ws = Workspace::new();
    let steps = project_events(&ws, &path, &p, &Resolver::for_file(&path));
    for e in steps.events {
        ws.apply(e);
    }
    assert!(steps.model_opens.is_empty());
    assert_eq!(
        steps.missing_models,
        [(0, r"..\pmx\ik_multi_axis_limit.pmx".to_owned())]
    );
    let s = ws.scene();
    assert_eq!(s.actors[0].model, ModelRef::Builtin);
    assert!(s.actors[0].motion.is_some());
    assert_eq!(ws.docs()[0].name, "alone_ik_multi_axis_limit_fixture.vmd");
    let _ = std::fs::remove_dir_all(&dir);
}
