//! A project → the steps that open it as a scene, applied to a workspace:
//! one actor per model wearing a new, unsaved motion built from the
//! project's keys, the camera/light document in the scene's camera and
//! light slots, the model file to load; a model not found keeps its actor
//! and motion and is listed.

mod common;
mod project_support;

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

/// The hand-built v2 project's accessory (`project_support`: "ステージ",
/// shown at 95 % opacity, keys at 0 with Y 0 and at 15 with Y 2, Si 10,
/// on the world) in the set, its file not found: it keeps its slot and
/// keys, is listed, and nothing is opened for it.
#[test]
fn a_projects_accessory_goes_into_the_set_with_its_keys() {
    use vmd_studio::scene::set::{DrawOrder, Parent};
    let p = project_support::read(true);
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("stage.pmm");
    let mut ws = Workspace::new();
    let steps = project_events(&ws, &path, &p, &Resolver::for_file(&path));
    for e in steps.events {
        ws.apply(e);
    }
    assert_eq!(
        steps.missing_accessories,
        [(
            "ステージ".to_owned(),
            r"C:\MMD\UserFile\Accessory\stage.x".to_owned()
        )]
    );
    assert!(
        !steps
            .model_opens
            .iter()
            .any(|(_, i)| *i == Intent::SetPiece)
    );
    let set = &ws.scene().set;
    assert_eq!(set.accessories.len(), 1);
    let a = &set.accessories[0];
    assert_eq!(a.name, "ステージ");
    // accessory_after_models is -1 in the bytes: none after the models.
    assert_eq!(a.order, DrawOrder::BeforeModels);
    let frames: Vec<u32> = a.keys.iter().map(|k| k.frame).collect();
    assert_eq!(frames, [0, 15]);
    let k = &a.keys[1].state;
    assert_eq!(k.position.to_array(), [0.0, 2.0, 0.0]);
    // 0x0B: bit 0 shown, 0x0B >> 1 = 5 % transparent.
    assert!(k.shown && (k.opacity - 0.95).abs() < 1e-6);
    assert_eq!((k.scale, k.ground_shadow), (10.0, true));
    assert_eq!(k.parent, Parent::World);
    // Half-way between the keys the accessory is half-way up (linear).
    let mid = a.pose_at(7.5);
    assert!((mid.position.y - 1.0).abs() < 1e-5, "{:?}", mid.position);
}

/// The accessory's file found below the project's `UserFile` folder, hung
/// on model 0's second bone (左足ＩＫ), turned 90° about X (stored in
/// radians), drawn after the models (index 0 on): opened for drawing.
#[test]
fn a_found_accessory_is_opened_parented_and_ordered() {
    use vmd_studio::scene::set::{DrawOrder, Parent};
    let mut p = project_support::read(true);
    let a = &mut p.accessories[0];
    a.keys.pool[0].value.parent = (0, 1);
    a.keys.pool[0].value.rotation = [std::f32::consts::FRAC_PI_2, 0.0, 0.0];
    a.keys.pool[0].value.scale = f32::NAN;
    p.settings.as_mut().unwrap().accessory_after_models = 0;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let x = dir.join("UserFile").join("Accessory").join("stage.x");
    std::fs::create_dir_all(x.parent().unwrap()).unwrap();
    std::fs::write(&x, b"xof 0303txt 0032\n").unwrap();
    let path = dir.join("stage.pmm");
    let mut ws = Workspace::new();
    let steps = project_events(&ws, &path, &p, &Resolver::for_file(&path));
    for e in steps.events {
        ws.apply(e);
    }
    assert!(steps.missing_accessories.is_empty());
    assert!(steps.model_opens.contains(&(x.clone(), Intent::SetPiece)));
    // The NaN scale is replaced (Si 1) and named with the key's offset.
    assert_eq!(steps.warnings.len(), 1, "{:?}", steps.warnings);
    let a = &ws.scene().set.accessories[0];
    assert_eq!(a.path, x);
    assert_eq!(a.order, DrawOrder::AfterModels);
    let k = &a.keys[1].state;
    assert_eq!(
        k.parent,
        Parent::Bone {
            actor: 0,
            bone: "左足ＩＫ".to_owned()
        }
    );
    assert!((k.rotation_degrees.x - 90.0).abs() < 1e-4);
    assert_eq!(k.scale, 1.0);
    // The key at 0 keeps the world as its parent.
    assert_eq!(a.keys[0].state.parent, Parent::World);
}
