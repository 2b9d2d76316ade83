//! Files a project names that are not where it says, located by hand
//! (the scene panel's Locate…): the located file goes into its slot, and
//! the other missing files are found where it was found — by the same
//! move of folders, or by searching beside it — while a file that is
//! nowhere stays listed. Paths and expectations are worked out by hand
//! from the trees each test makes.

mod common;
mod project_support;

use std::path::{Path, PathBuf};

use vmd_studio::project::Resolver;
use vmd_studio::project::missing::{MissingFile, ProjectReport, Slot};
use vmd_studio::project::scene::project_events;
use vmd_studio::scene::{Actor, ModelRef, Scene};
use vmd_studio::workspace::{DocId, Event, Intent, SceneEvent, Workspace};

fn touch(p: &Path) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, b"x").unwrap();
}

/// The hand-built v2 project (model `C:\MMD\UserFile\Model\ミク.pmx`,
/// accessory `C:\MMD\UserFile\Accessory\stage.x`) opened from a folder
/// beside the user's library: both missing. Locating the accessory in
/// `library/Accessory/` says the project's `C:\MMD\UserFile` is now
/// `library`, so the model is `library/Model/ミク.pmx`.
#[test]
fn locating_one_file_finds_the_others_moved_with_it() {
    let p = project_support::read(true);
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("proj").join("stage.pmm");
    let library = tmp.path().join("library");
    let stage = library.join("Accessory").join("stage.x");
    let model = library.join("Model").join("ミク.pmx");
    touch(&stage);
    touch(&model);

    let mut ws = Workspace::new();
    let steps = project_events(&ws, &project, &p, &Resolver::for_file(&project));
    for e in steps.events {
        ws.apply(e);
    }
    let slots: Vec<Slot> = steps.missing.iter().map(|m| m.slot).collect();
    assert_eq!(slots, [Slot::ActorModel(0), Slot::Accessory(0)]);
    assert_eq!(
        steps.missing[1].stored,
        r"C:\MMD\UserFile\Accessory\stage.x"
    );
    let report = ProjectReport {
        project: project.clone(),
        missing: steps.missing,
        ignored: Vec::new(),
    };
    assert_eq!(report.open_items(ws.scene()).count(), 2);

    let l = report.located(ws.scene(), Slot::Accessory(0), &stage);
    assert_eq!(l.events, [SceneEvent::SetAccessoryFile(0, stage.clone())]);
    assert_eq!(
        l.opens,
        [
            (stage.clone(), Intent::SetPiece),
            (model.clone(), Intent::ActorModel(0))
        ]
    );
    assert_eq!(l.also_found, [("ミク".to_owned(), model.clone())]);

    // Into the scene: the accessory's slot is filled (one undo step, the
    // keys kept); the model's once it is worn.
    let keys = ws.scene().set.accessories[0].keys.len();
    for e in l.events {
        ws.apply(Event::Scene(e));
    }
    let acc = &ws.scene().set.accessories[0];
    assert_eq!(
        (acc.path.as_path(), acc.keys.len()),
        (stage.as_path(), keys)
    );
    let left: Vec<Slot> = report.open_items(ws.scene()).map(|m| m.slot).collect();
    assert_eq!(left, [Slot::ActorModel(0)]);
    ws.apply(Event::Scene(SceneEvent::SetModel(0, ModelRef::File(model))));
    assert_eq!(report.open_items(ws.scene()).count(), 0);

    // Undo takes the model back, then the accessory's file.
    ws.apply(Event::Undo);
    ws.apply(Event::Undo);
    assert_eq!(report.open_items(ws.scene()).count(), 2);
    assert_eq!(
        ws.scene().set.accessories[0].path,
        PathBuf::from("C:/MMD/UserFile/Accessory/stage.x")
    );
}

fn missing_model(i: usize, name: &str, stored: &str) -> MissingFile {
    MissingFile {
        slot: Slot::ActorModel(i),
        name: name.to_owned(),
        stored: stored.to_owned(),
        placeholder: PathBuf::new(),
    }
}

/// No shared `UserFile`: `E:\Dance Stuff\Models\A\a.pmx` located at
/// `<t>/Dance Stuff/MODELS/A/a.pmx` (letter case differs) says `E:` is
/// now `<t>`. B's stored folder is unrelated (`Z:\x\b.pmx`), but b.pmx
/// lies in `MODELS/B`, below the folder above the located one: found by
/// name. C (`E:\Gone\c.pmx`) is nowhere: it stays missing.
#[test]
fn others_are_found_by_the_same_move_or_by_name_and_the_rest_stay_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let models = t.join("Dance Stuff").join("MODELS");
    let a = models.join("A").join("a.pmx");
    let b = models.join("B").join("b.pmx");
    let mic = t.join("Dance Stuff").join("Props").join("mic.x");
    touch(&a);
    touch(&b);
    touch(&mic);

    let mut scene: Scene<DocId> = Scene::default();
    for n in ["A", "B", "C"] {
        scene.actors.push(Actor::new(n));
    }
    let mic_stored = r"E:\Dance Stuff\Props\mic.x";
    let placeholder = PathBuf::from("E:/Dance Stuff/Props/mic.x");
    let mut acc = vmd_studio::scene::set::SetAccessory::new(placeholder.clone());
    acc.name = "mic".to_owned();
    scene.set.accessories.push(acc);
    let report = ProjectReport {
        project: t.join("p.pmm"),
        missing: vec![
            missing_model(0, "A", r"E:\Dance Stuff\Models\A\a.pmx"),
            missing_model(1, "B", r"Z:\x\b.pmx"),
            missing_model(2, "C", r"E:\Gone\c.pmx"),
            MissingFile {
                slot: Slot::Accessory(0),
                name: "mic".to_owned(),
                stored: mic_stored.to_owned(),
                placeholder,
            },
        ],
        ignored: Vec::new(),
    };

    let l = report.located(&scene, Slot::ActorModel(0), &a);
    assert_eq!(
        l.opens,
        [
            (a.clone(), Intent::ActorModel(0)),
            (b.clone(), Intent::ActorModel(1)),
            (mic.clone(), Intent::SetPiece),
        ]
    );
    assert_eq!(l.events, [SceneEvent::SetAccessoryFile(0, mic.clone())]);
    let names: Vec<&str> = l.also_found.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["B", "mic"]);

    // A slot whose actor was renamed or removed is no longer listed; one
    // already wearing a file is not looked for again.
    scene.actors[1].name = "renamed".to_owned();
    scene.actors[2].model = ModelRef::File(t.join("other.pmx"));
    let left: Vec<Slot> = report.open_items(&scene).map(|m| m.slot).collect();
    assert_eq!(left, [Slot::ActorModel(0), Slot::Accessory(0)]);
    let l = report.located(&scene, Slot::ActorModel(0), &a);
    assert_eq!(l.opens.len(), 2, "{:?}", l.opens);
}

/// The hand-built v2 project's look settings (`project_support`: output
/// 1920x1080, 30 fps, ground shadow on at 0.8 and translucent, grid shown,
/// edge colour 255,0,128) and its background image are named as not used.
#[test]
fn what_the_scene_does_not_take_is_named() {
    let p = project_support::read(true);
    let tmp = tempfile::tempdir().unwrap();
    let r = Resolver::for_file(&tmp.path().join("p.pmm"));
    let info = vmd_studio::project::info::info(&p, &r);
    let look = "look settings: output 1920x1080 at 30 fps, ground shadow on at 80 % \
                brightness, translucent, grid shown, edge colour 255,0,128 \
                (the preview and exports use their own)";
    assert!(info.ignored.iter().any(|l| l == look), "{:?}", info.ignored);
    assert!(
        info.ignored
            .iter()
            .any(|l| l.starts_with("background image")),
        "{:?}",
        info.ignored
    );
}
