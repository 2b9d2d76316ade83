//! The `.vmdscene` file on disk: save, reopen, same roles and offsets;
//! paths relative to the scene; a missing file is reported and the rest
//! still opens. Pure layer: runs with `--no-default-features`.

use std::path::{Path, PathBuf};

use vmd_studio::model::physics::SimulationMode;
use vmd_studio::scene::file::{self, Missing};
use vmd_studio::scene::{Actor, ActorPlacement, ModelRef, PreviewSettings, Scene};

/// A fresh folder under the system temp dir.
fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vmd-studio-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn touch(p: &Path) {
    std::fs::create_dir_all(p.parent().expect("parent")).expect("dir");
    std::fs::write(p, b"x").expect("write");
}

#[test]
fn a_scene_round_trips_with_relative_paths() {
    let dir = temp_dir("scene-rt");
    let dance = dir.join("motions/dance.vmd");
    let cam = dir.join("camera.vmd");
    let model = dir.join("models/mei.pmd");
    for p in [&dance, &cam, &model] {
        touch(p);
    }
    let scene = Scene {
        actors: vec![
            Actor {
                name: "Mei".into(),
                model: ModelRef::File(model.clone()),
                motion: Some(dance.clone()),
                offset: 12,
                placement: ActorPlacement::ORIGIN,
            },
            Actor {
                name: "Back dancer".into(),
                model: ModelRef::Builtin,
                motion: Some(dance.clone()),
                offset: -30,
                placement: ActorPlacement {
                    position: glam::Vec3::new(12.5, 0.0, -4.0),
                    turn_degrees: -30.0,
                },
            },
        ],
        camera: Some(cam.clone()),
        light: Some(cam.clone()),
        song: None,
        preview: PreviewSettings {
            through_camera: false,
            rate: 60,
            frame: 41,
            physics: Some(SimulationMode::Trace),
            collide_actors: true,
        },
        set: Default::default(),
    };
    let path = dir.join("scenes/show.vmdscene");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    file::save(&scene, &path).expect("save");

    // Human-readable, relative to the scene's folder, with `/`.
    let text = std::fs::read_to_string(&path).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["format"], "vmd-studio-scene");
    assert_eq!(json["version"], 1);
    assert_eq!(json["actors"][0]["motion"], "../motions/dance.vmd");
    assert_eq!(json["actors"][0]["model"], "../models/mei.pmd");
    assert_eq!(json["actors"][1]["model"], serde_json::Value::Null);
    assert_eq!(json["actors"][1]["offset"], -30);
    // A placed actor says where it stands; one at the origin writes
    // nothing (scenes from before placements read and write as they did).
    assert_eq!(
        json["actors"][1]["position"],
        serde_json::json!([12.5, 0.0, -4.0])
    );
    assert_eq!(json["actors"][1]["turn"], -30.0);
    let first = json["actors"][0].as_object().expect("actor");
    assert!(
        !first.contains_key("position") && !first.contains_key("turn"),
        "{first:?}"
    );
    assert_eq!(json["camera"], "../camera.vmd");
    assert_eq!(json["preview"]["physics"], "trace");
    assert_eq!(json["preview"]["collide_actors"], true);

    let back = file::load(&path).expect("load");
    assert!(back.missing.is_empty(), "{:?}", back.missing);
    // Same roles and offsets; paths come back joined to the scene folder.
    let norm = |p: &PathBuf| std::fs::canonicalize(p).unwrap();
    let s = &back.scene;
    assert_eq!(s.actors.len(), 2);
    assert_eq!(s.actors[0].name, "Mei");
    assert_eq!(s.actors[0].offset, 12);
    assert_eq!(s.actors[1].offset, -30);
    assert_eq!(
        s.actors[1].placement.position,
        glam::Vec3::new(12.5, 0.0, -4.0)
    );
    assert_eq!(s.actors[1].placement.turn_degrees, -30.0);
    assert!(s.actors[0].placement.is_origin());
    assert_eq!(norm(s.actors[0].motion.as_ref().unwrap()), norm(&dance));
    match &s.actors[0].model {
        ModelRef::File(p) => assert_eq!(norm(p), norm(&model)),
        ModelRef::Builtin => panic!("model lost"),
    }
    assert_eq!(s.actors[1].model, ModelRef::Builtin);
    assert_eq!(norm(s.camera.as_ref().unwrap()), norm(&cam));
    assert_eq!(norm(s.light.as_ref().unwrap()), norm(&cam));
    assert_eq!(s.preview.rate, 60);
    assert_eq!(s.preview.frame, 41);
    assert!(!s.preview.through_camera);
    assert_eq!(s.preview.physics, Some(SimulationMode::Trace));
    assert!(s.preview.collide_actors);

    // Moving the whole folder keeps the scene working.
    let moved = temp_dir("scene-rt-moved");
    std::fs::remove_dir_all(&moved).unwrap();
    std::fs::rename(&dir, &moved).unwrap();
    let again = file::load(&moved.join("scenes/show.vmdscene")).expect("load moved");
    assert!(again.missing.is_empty(), "{:?}", again.missing);
    let _ = std::fs::remove_dir_all(&moved);
}

#[test]
fn a_missing_file_is_reported_and_the_rest_opens() {
    let dir = temp_dir("scene-missing");
    touch(&dir.join("dance.vmd"));
    let text = r#"{
      "format": "vmd-studio-scene",
      "version": 1,
      "actors": [
        { "name": "A", "model": "gone.pmx", "motion": "dance.vmd", "offset": 3 },
        { "motion": "lost.vmd" }
      ],
      "camera": "cam.vmd",
      "light": "cam.vmd"
    }"#;
    let path = dir.join("s.vmdscene");
    std::fs::write(&path, text).unwrap();
    let l = file::load(&path).expect("a scene with missing files still opens");
    assert_eq!(l.scene.actors.len(), 2);
    assert_eq!(l.scene.actors[0].model, ModelRef::Builtin);
    assert_eq!(l.scene.actors[0].motion, Some(dir.join("dance.vmd")));
    assert_eq!(l.scene.actors[0].offset, 3);
    assert_eq!(l.scene.actors[1].name, "Actor 2");
    assert_eq!(l.scene.actors[1].motion, None);
    assert_eq!(
        (l.scene.camera.clone(), l.scene.light.clone()),
        (None, None)
    );
    // Three files are missing; the camera file used for the light is reported once.
    let want = vec![
        Missing {
            role: "model of A".into(),
            path: dir.join("gone.pmx"),
        },
        Missing {
            role: "motion of Actor 2".into(),
            path: dir.join("lost.vmd"),
        },
        Missing {
            role: "camera".into(),
            path: dir.join("cam.vmd"),
        },
    ];
    assert_eq!(l.missing, want);
    assert_eq!(
        l.missing[2].to_string(),
        format!("camera not found: {}", dir.join("cam.vmd").display())
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failed_scene_save_leaves_the_old_file() {
    let dir = temp_dir("scene-fail");
    let path = dir.join("s.vmdscene");
    std::fs::write(&path, "old").unwrap();
    // A folder where the temporary file should go cannot be written: make
    // the target a directory instead, so the rename fails.
    let blocked = dir.join("blocked.vmdscene");
    std::fs::create_dir_all(blocked.join("x")).unwrap();
    let e = file::save(&Scene::default(), &blocked).unwrap_err();
    assert!(e.to_string().contains("blocked.vmdscene"), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
    let _ = std::fs::remove_dir_all(&dir);
}
