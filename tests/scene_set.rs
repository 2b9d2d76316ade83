//! The set's pure model: accessory keys played as MMD plays them, the
//! accessory's world matrix, `.vac` placement, and the set saved in the
//! `.vmdscene` (relative paths, round trip, old files still open).

use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3};
use vmd_studio::model::xfile::VacFile;
use vmd_studio::scene::set::{
    AccessoryKey, AccessoryState, Background, BackgroundImage, BackgroundVideo, DrawOrder,
    ImageFit, Parent, Prop, SetAccessory, rotation_from_degrees,
};
use vmd_studio::scene::{Actor, ModelRef, Scene, file};

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).length() < 1e-5
}

fn key(frame: u32, f: impl FnOnce(&mut AccessoryState)) -> AccessoryKey {
    let mut state = AccessoryState::default();
    f(&mut state);
    AccessoryKey { frame, state }
}

fn two_keys() -> SetAccessory {
    let mut a = SetAccessory::new(PathBuf::from("/set/mic.x"));
    // Inserted out of order: kept sorted.
    a.set_key(key(10, |s| {
        s.position = Vec3::new(10.0, 20.0, 0.0);
        s.rotation_degrees = Vec3::new(0.0, 90.0, 0.0);
        s.scale = 3.0;
        s.opacity = 0.0;
        s.shown = false;
        s.ground_shadow = false;
        s.parent = Parent::Bone {
            actor: 0,
            bone: "右手首".to_owned(),
        };
    }));
    a.set_key(key(0, |_| {}));
    a
}

#[test]
fn between_keys_placement_and_opacity_are_linear_switches_come_from_the_previous_key() {
    let a = two_keys();
    assert_eq!(
        a.keys.iter().map(|k| k.frame).collect::<Vec<_>>(),
        vec![0, 10]
    );
    let p = a.pose_at(5.0);
    assert!(
        close(p.position, Vec3::new(5.0, 10.0, 0.0)),
        "{}",
        p.position
    );
    assert!((p.scale - 2.0).abs() < 1e-6);
    assert!((p.opacity - 0.5).abs() < 1e-6);
    // Halfway from 0° to 90° about Y: 45°, X axis to (cos 45°, 0, −sin 45°).
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert!(
        close(p.rotation * Vec3::X, Vec3::new(h, 0.0, -h)),
        "{}",
        p.rotation * Vec3::X
    );
    assert!(p.shown && p.ground_shadow);
    assert_eq!(p.parent, Parent::World);
    // A quarter of the way.
    let p = a.pose_at(2.5);
    assert!(close(p.position, Vec3::new(2.5, 5.0, 0.0)));
    // On the last key and after it: its values, switches included.
    for f in [10.0, 11.5, 1000.0] {
        let p = a.pose_at(f);
        assert!(!p.shown && !p.ground_shadow);
        assert_eq!(p.opacity, 0.0);
        assert!(matches!(p.parent, Parent::Bone { actor: 0, .. }));
    }
    // Before the first key: the first key.
    let p = a.pose_at(-4.0);
    assert_eq!(p.position, Vec3::ZERO);
    assert!(p.shown);
    assert_eq!(a.pose_at(f64::NAN).position, Vec3::ZERO);
}

#[test]
fn without_keys_the_panel_state_applies_and_keys_can_be_removed() {
    let mut a = two_keys();
    a.state.position = Vec3::new(1.0, 2.0, 3.0);
    assert!(a.remove_key(10).is_some());
    assert!(a.remove_key(10).is_none());
    assert!(a.remove_key(0).is_some());
    assert_eq!(a.pose_at(50.0).position, Vec3::new(1.0, 2.0, 3.0));
    // Replacing a key keeps one per frame.
    a.set_key(key(4, |s| s.opacity = 0.25));
    a.set_key(key(4, |s| s.opacity = 0.75));
    assert_eq!(a.keys.len(), 1);
    assert_eq!(a.pose_at(4.0).opacity, 0.75);
}

#[test]
fn the_world_matrix_is_parent_then_translate_rotate_scale() {
    let mut s = AccessoryState {
        position: Vec3::new(1.0, 0.0, 0.0),
        rotation_degrees: Vec3::new(0.0, 0.0, 90.0),
        scale: 2.0,
        ..AccessoryState::default()
    };
    let bone = Mat4::from_translation(Vec3::new(0.0, 10.0, 0.0));
    // (1,0,0) → scale 2 → (2,0,0) → Rz 90° → (0,2,0) → +(1,0,0) → (1,2,0)
    // → the bone's +(0,10,0) → (1,12,0).
    let m = s.pose().world_matrix(Some(bone));
    assert!(close(
        m.transform_point3(Vec3::X),
        Vec3::new(1.0, 12.0, 0.0)
    ));
    let m = s.pose().world_matrix(None);
    assert!(close(m.transform_point3(Vec3::X), Vec3::new(1.0, 2.0, 0.0)));
    // A negative Si draws nothing rather than mirroring (nanoem clamps).
    s.scale = -1.0;
    assert_eq!(s.pose().scale, 0.0);
}

#[test]
fn rotation_applies_x_then_y_then_z() {
    // (0,1,0): Rx 90° → (0,0,1); then Ry 90° → (1,0,0). The other order
    // would give (0,0,1).
    let q = rotation_from_degrees(Vec3::new(90.0, 90.0, 0.0));
    assert!(close(q * Vec3::Y, Vec3::X), "{}", q * Vec3::Y);
    assert!(rotation_from_degrees(Vec3::ZERO).abs_diff_eq(Quat::IDENTITY, 1e-7));
}

#[test]
fn a_vac_places_its_accessory() {
    let v = VacFile::read(b"mic\r\nmic.x\r\n2\r\n0,5,0\r\n0,0,90\r\n\x89\x45\x8E\xE8\x8E\xF1\r\n")
        .expect("vac");
    let parent = Parent::Bone {
        actor: 0,
        bone: v.bone.clone().expect("bone"),
    };
    let s = AccessoryState::from_placement(&v.placement, parent);
    assert_eq!(s.scale, 2.0);
    assert!(s.shown && s.opacity == 1.0);
    // (1,0,0) → ×2 → Rz 90° → (0,2,0) → +(0,5,0) → (0,7,0) in the bone.
    let m = s.pose().world_matrix(None);
    assert!(close(m.transform_point3(Vec3::X), Vec3::new(0.0, 7.0, 0.0)));
    assert!(matches!(&s.parent, Parent::Bone { bone, .. } if bone == "右手首"));
}

#[test]
fn a_vac_finds_its_x_file_in_any_letter_case_and_windows_separators() {
    let dir = std::env::temp_dir().join(format!("vmd_xfile_vac_{}", std::process::id()));
    let sub = dir.join("Parts");
    std::fs::create_dir_all(&sub).expect("dir");
    std::fs::write(sub.join("mic.x"), b"xof 0303txt 0032\n").expect("x");
    let v = VacFile::read(b"mic\nPARTS\\Mic.X\n1\n0,0,0\n0,0,0\n").expect("vac");
    assert_eq!(v.x_file, "PARTS\\Mic.X", "kept as written");
    assert_eq!(v.resolve_x(&dir), Some(sub.join("mic.x")));
    let v =
        VacFile::read(b"mic\nC:\\MMD\\UserFile\\Accessory\\mic.x\n1\n0,0,0\n0,0,0\n").expect("vac");
    assert_eq!(
        v.resolve_x(&sub),
        Some(sub.join("mic.x")),
        "an absolute path falls back to the name"
    );
    let v = VacFile::read(b"mic\nnone.x\n1\n0,0,0\n0,0,0\n").expect("vac");
    assert_eq!(v.resolve_x(&dir), None);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scene folder with the files a scene names, for the round trip.
fn scene_folder(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vmd_scene_set_{tag}_{}", std::process::id()));
    for f in [
        "models/mei.pmd",
        "stage/stage.pmx",
        "stage/gears.vmd",
        "sky/dome.x",
        "acc/mic.x",
        "bg/sky.png",
        "bg/clouds.mp4",
        "dance.vmd",
    ] {
        let p = dir.join(f);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("dir");
        std::fs::write(&p, b"x").expect("file");
    }
    dir
}

#[test]
fn the_set_round_trips_through_the_scene_file_with_relative_paths() {
    let dir = scene_folder("rt");
    let mut scene: Scene<PathBuf> = Scene::default();
    scene.actors.push(Actor {
        name: "Mei".to_owned(),
        model: ModelRef::File(dir.join("models/mei.pmd")),
        motion: Some(dir.join("dance.vmd")),
        offset: 0,
        placement: Default::default(),
    });
    let mut stage = Prop::new(dir.join("stage/stage.pmx"));
    stage.motion = Some(dir.join("stage/gears.vmd"));
    scene.set.props.push(stage);
    let mut dome = Prop::new(dir.join("sky/dome.x"));
    dome.shown = false;
    dome.order = DrawOrder::AfterModels;
    scene.set.props.push(dome);
    let mut mic = two_keys();
    mic.path = dir.join("acc/mic.x");
    mic.name = "マイク".to_owned();
    mic.order = DrawOrder::AfterModels;
    mic.state.rotation_degrees = Vec3::new(10.0, -20.0, 30.5);
    mic.state.parent = Parent::Bone {
        actor: 0,
        bone: "左手首".to_owned(),
    };
    scene.set.accessories.push(mic);
    scene.set.background = Background {
        colour: [0.0, 0.5, 0.25],
        image: Some(BackgroundImage {
            path: dir.join("bg/sky.png"),
            fit: ImageFit::Stretch,
        }),
        video: Some(BackgroundVideo {
            path: dir.join("bg/clouds.mp4"),
            frame_offset: -12,
        }),
    };
    let path = dir.join("show.vmdscene");
    file::save(&scene, &path).expect("saved");
    let text = std::fs::read_to_string(&path).expect("text");
    for rel in [
        "\"stage/stage.pmx\"",
        "\"acc/mic.x\"",
        "\"bg/sky.png\"",
        "\"stage/gears.vmd\"",
    ] {
        assert!(text.contains(rel), "{rel} not in\n{text}");
    }
    assert!(
        !text.contains(dir.to_string_lossy().as_ref()),
        "absolute path written:\n{text}"
    );
    let loaded = file::load(&path).expect("loads");
    assert_eq!(loaded.missing, vec![]);
    assert_eq!(loaded.scene, scene);
    // Saving the loaded scene gives the same text.
    assert_eq!(file::to_json(&loaded.scene, &path), text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_old_scene_without_a_set_still_opens_with_an_empty_one() {
    let p = Path::new("/nowhere/old.vmdscene");
    let text = r#"{"format":"vmd-studio-scene","version":1,"actors":[],"camera":null,"light":null,"song":null}"#;
    let loaded = file::parse(text, p).expect("old scene");
    assert!(loaded.scene.set.is_empty());
    // And a scene without a set writes none of the new fields.
    let json = file::to_json(&loaded.scene, p);
    for field in ["stages", "accessories", "background"] {
        assert!(!json.contains(field), "{field} in\n{json}");
    }
}

#[test]
fn missing_set_files_are_listed_and_left_out() {
    let dir = scene_folder("missing");
    let text = r#"{"format":"vmd-studio-scene","version":1,
      "stages":[{"path":"stage/stage.pmx"},{"name":"Gone","path":"gone.pmx"}],
      "accessories":[{"path":"acc/MISSING.x","position":[1,2,3]},{"path":"acc/mic.x","scale":2,"keys":[{"frame":3,"opacity":0.5}]}],
      "background":{"colour":[0.1,0.2,0.3],"image":{"path":"nope.png"}}}"#;
    let loaded = file::parse(text, &dir.join("s.vmdscene")).expect("parses");
    let roles: Vec<&str> = loaded.missing.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(
        roles,
        vec!["stage Gone", "accessory Accessory 1", "background image"]
    );
    let set = &loaded.scene.set;
    assert_eq!(set.props.len(), 1);
    assert_eq!(set.props[0].name, "Stage 1");
    assert!(set.props[0].shown);
    assert_eq!(set.accessories.len(), 1);
    let a = &set.accessories[0];
    assert_eq!(a.state.scale, 2.0);
    assert_eq!(a.keys.len(), 1);
    assert_eq!(a.keys[0].state.opacity, 0.5);
    assert_eq!(a.keys[0].state.scale, 1.0, "an absent field is the default");
    assert_eq!(set.background.colour, [0.1, 0.2, 0.3]);
    assert_eq!(set.background.image, None);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Panel degrees back from a rotation (what the gizmo and an in-between
/// key write): the angles typed come back, and an axis not turned reads
/// +0, never "−0°".
#[test]
fn panel_degrees_come_back_from_their_rotation_without_minus_zero() {
    use vmd_studio::scene::set::{degrees_from_rotation, rotation_from_degrees};
    for d in [
        glam::Vec3::new(30.0, -45.0, 170.0),
        glam::Vec3::new(-120.0, 10.0, 0.5),
        glam::Vec3::new(0.0, 0.0, -90.0),
    ] {
        let back = degrees_from_rotation(rotation_from_degrees(d));
        assert!((back - d).abs().max_element() < 1e-3, "{d} → {back}");
    }
    let x_only =
        degrees_from_rotation(glam::Quat::from_axis_angle(glam::Vec3::X, 0.99).normalize());
    assert!(
        x_only.y.is_sign_positive() && x_only.z.is_sign_positive(),
        "{x_only:?}"
    );
    assert!((x_only.x - 0.99f32.to_degrees()).abs() < 1e-3);
}
