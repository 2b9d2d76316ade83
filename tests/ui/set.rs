//! The set through the GUI, as a user adds it (egui_kittest, no display):
//! Scene panel ▸ Add stage… picks a `.x` floor in the built-in browser, Add
//! accessory… a `.vac` that attaches its accessory to the right wrist; the
//! accessory is moved (the action its X field returns); undo takes the move back, then the
//! accessory, then the stage; the scene file written keeps the set.
//! Run with `env -u DISPLAY cargo test --test ui set::`.

use crate::common;
use common::ui::{harness, settle};

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::app::panels::scene::Action;
use vmd_studio::app::panels::scene_set::SetAction;
use vmd_studio::scene::set::Parent;

const FLOOR_X: &str = "xof 0303txt 0032\nMesh {\n 4;\n -3;0;-3;,\n -3;0;3;,\n 3;0;3;,\n 3;0;-3;;\n 1;\n 4;0,1,2,3;;\n\
 MeshMaterialList { 1; 1; 0;;\n  Material { 0;0.8;0;1;; 5; 0;0;0;; 0;0.8;0;; }\n }\n}\n";

#[test]
fn a_stage_and_an_accessory_are_added_moved_undone_and_saved() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("floor.x"), FLOOR_X).unwrap();
    std::fs::write(dir.join("negi.x"), FLOOR_X.replace("0;0.8;0", "0.9;0;0")).unwrap();
    // A .vac (Shift_JIS): name ネギ, its .x, Si 1, X/Y/Z, Rx/Ry/Rz, the bone 右手首.
    let mut vac = b"\x83\x6c\x83\x4d\r\nnegi.x\r\n1\r\n0,0,0\r\n0,0,0\r\n".to_vec();
    vac.extend_from_slice(b"\x89\x45\x8e\xe8\x8e\xf1\r\n");
    std::fs::write(dir.join("negi.vac"), vac).unwrap();

    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    app.open_demo();
    let mut h = harness(app);
    settle(&mut h);
    assert!(h.state().ws.scene().set.props.is_empty());

    crate::common::ui::pick_in_browser(&mut h, "Add stage…", dir, "floor.x");
    let app = h.state();
    let props = &app.ws.scene().set.props;
    assert_eq!(props.len(), 1, "{:?}", app.shared.messages);
    assert!(props[0].path.ends_with("floor.x") && props[0].shown);
    assert!(
        app.scene.models.contains_key(&props[0].path),
        "the stage loaded for drawing: {:?}",
        app.shared.messages
    );
    let stage_model = &app.scene.models[&props[0].path].loaded.model;
    assert_eq!(stage_model.positions.len(), 4);
    // ×10 into MMD units.
    assert_eq!(stage_model.positions[0].x, -30.0);

    crate::common::ui::pick_in_browser(&mut h, "Add accessory…", dir, "negi.vac");
    let app = h.state();
    let accs = &app.ws.scene().set.accessories;
    assert_eq!(accs.len(), 1, "{:?}", app.shared.messages);
    assert_eq!(accs[0].name, "ネギ");
    assert!(accs[0].path.ends_with("negi.x"));
    assert_eq!(
        accs[0].state.parent,
        Parent::Bone {
            actor: 0,
            bone: "右手首".into()
        },
        "the demo dancer has a right wrist"
    );
    assert!(app.scene.models.contains_key(&accs[0].path));

    // Move it as the panel's X field does (the action it returns; driving
    // the DragValue itself from kittest did not reach it in this layout).
    let mut moved = h.state().ws.scene().set.accessories[0].state.clone();
    moved.position.x = 5.0;
    h.state_mut()
        .scene_action(Action::Set(SetAction::SetAccessoryState(
            0,
            Box::new(moved),
        )));
    h.run_steps(2);
    let x = h.state().ws.scene().set.accessories[0].state.position.x;
    assert!((x - 5.0).abs() < 1e-6, "the move applies: X = {x}");

    // Save the scene: the set is in the file.
    let scene_path = dir.join("with set.vmdscene");
    h.state_mut().save_scene_to(scene_path.clone());
    settle(&mut h);
    let text = std::fs::read_to_string(&scene_path).expect("scene written");
    assert!(
        text.contains("floor.x") && text.contains("negi.x"),
        "{text}"
    );

    // Reopened in a new window: the set is back, placed, and loaded.
    let mut again = StudioApp::default();
    again.open_paths(vec![scene_path.clone()]);
    let mut h2 = harness(again);
    settle(&mut h2);
    let app2 = h2.state();
    let set2 = &app2.ws.scene().set;
    assert_eq!(
        (set2.props.len(), set2.accessories.len()),
        (1, 1),
        "{:?}",
        app2.shared.messages
    );
    assert_eq!(set2.accessories[0].state.position.x, 5.0);
    assert_eq!(set2.accessories[0].name, "ネギ");
    assert!(
        app2.scene.models.contains_key(&set2.props[0].path),
        "{:?}",
        app2.shared.messages
    );
    assert!(app2.scene.models.contains_key(&set2.accessories[0].path));
    assert!(
        !app2.panels.viewport.view.show_grid,
        "a scene with a stage hides the grid"
    );
    drop(h2);

    // Undo: the move, then the accessory, then the stage.
    for (props, accessories) in [(1, 1), (1, 0), (0, 0)] {
        h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
        h.run_steps(2);
        let set = &h.state().ws.scene().set;
        assert_eq!(
            (set.props.len(), set.accessories.len()),
            (props, accessories)
        );
        if accessories == 1 {
            assert_eq!(
                set.accessories[0].state.position.x, 0.0,
                "the move undone first"
            );
        }
    }
}

/// Writes `floor.x` and `box.vac` into `dir`: the box is `floor.x` at
/// scale 0.5, one unit up, worn on 右手首 (the `.vac`'s six lines, the
/// bone name in Shift_JIS).
fn write_box_vac(dir: &std::path::Path) {
    std::fs::write(dir.join("floor.x"), FLOOR_X).unwrap();
    let mut vac = b"box\r\nfloor.x\r\n0.5\r\n0,1,0\r\n0,0,0\r\n".to_vec();
    vac.extend_from_slice(b"\x89\x45\x8e\xe8\x8e\xf1\r\n"); // 右手首
    std::fs::write(dir.join("box.vac"), vac).unwrap();
}

/// `vmd-studio box.vac` (an accessory alone on the command line) opens the
/// demo dancer wearing it on the bone the `.vac` names; adding the first
/// stage hides the ground grid of both views (the floor takes its place).
#[test]
fn an_accessory_alone_on_the_command_line_is_worn_by_the_demo_dancer() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_box_vac(dir);
    let mut app = StudioApp::default();
    vmd_studio::app::open_command_line(&mut app, &[dir.join("box.vac")], &[]);
    let mut h = harness(app);
    settle(&mut h);
    let app = h.state();
    assert!(!app.ws.scene().actors.is_empty(), "the demo opened");
    let accs = &app.ws.scene().set.accessories;
    assert_eq!(accs.len(), 1, "{:?}", app.shared.messages);
    assert_eq!(accs[0].state.scale, 0.5);
    assert_eq!(
        accs[0].state.parent,
        Parent::Bone {
            actor: 0,
            bone: "右手首".into()
        }
    );
    assert!(app.panels.viewport.view.show_grid);
    h.state_mut().add_stage(dir.join("floor.x"));
    settle(&mut h);
    let app = h.state();
    assert_eq!(app.ws.scene().set.props.len(), 1);
    assert!(!app.panels.viewport.view.show_grid && !app.panels.viewport.second.show_grid);
}

/// `vmd-studio mei.pmd box.vac`: the model loads in the background, so
/// when the `.vac` is read no actor holds its bone yet; the accessory
/// waits and is attached to Mei's 右手首 when she arrives (it was left in
/// the world, with "no actor's model has the bone", seen driving the
/// release build).
#[test]
fn a_vac_opened_with_its_model_is_worn_once_the_model_has_loaded() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write_box_vac(dir);
    let mut app = StudioApp::default();
    let files = [corpus.join("mmdagent__mei.pmd"), dir.join("box.vac")];
    vmd_studio::app::open_command_line(&mut app, &files, &[]);
    let mut h = harness(app);
    settle(&mut h);
    let app = h.state();
    let actors = &app.ws.scene().actors;
    assert_eq!(actors.len(), 1);
    assert!(app.scene.loaded(&actors[0].model), "Mei loaded");
    let accs = &app.ws.scene().set.accessories;
    assert_eq!(accs.len(), 1, "{:?}", app.shared.messages);
    let want = Parent::Bone {
        actor: 0,
        bone: "右手首".into(),
    };
    assert_eq!(accs[0].state.parent, want, "{:?}", app.shared.messages);
    assert!(
        !(app.shared.messages.iter()).any(|(m, _)| m.contains("no actor's model has the bone")),
        "{:?}",
        app.shared.messages
    );
}

/// Accessory keys from the Set section: Key accessory at frame 0 (the button), a
/// keyed X = 10 at frame 30, the accessory half-way at frame 15 (MMD plays
/// accessory keys linearly: hand computation 10 · 15/30 = 5); Delete key at
/// frame 30 (the button) and undo bring the key back; undo again takes it
/// away, then the first key.
#[test]
fn accessory_keys_are_registered_interpolated_deleted_and_undone() {
    use vmd_studio::scene::set::AccessoryKey;
    use vmd_studio::workspace::TransportEvent;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("negi.x"), FLOOR_X).unwrap();
    let mut app = StudioApp::default();
    app.open_demo();
    let mut h = harness(app);
    settle(&mut h);
    h.state_mut().add_accessory(tmp.path().join("negi.x"));
    settle(&mut h);
    h.state_mut().transport(TransportEvent::Seek(0.0));
    h.run_steps(2);
    h.get_by_label("Key accessory").scroll_to_me();
    // The scroll animates: let it come to rest before the click.
    h.run_steps(12);
    h.get_by_label("Key accessory").click();
    h.run_steps(2);
    let keys = |h: &Harness<'_, StudioApp>| h.state().ws.scene().set.accessories[0].keys.clone();
    assert_eq!(
        keys(&h).iter().map(|k| k.frame).collect::<Vec<_>>(),
        vec![0]
    );
    h.state_mut().transport(TransportEvent::Seek(30.0));
    h.run_steps(2);
    let mut state = keys(&h)[0].state.clone();
    state.position.x = 10.0;
    h.state_mut()
        .scene_action(Action::Set(SetAction::SetAccessoryKey(
            0,
            Box::new(AccessoryKey { frame: 30, state }),
        )));
    h.run_steps(2);
    let acc = h.state().ws.scene().set.accessories[0].clone();
    assert_eq!(acc.keys.len(), 2);
    assert!((acc.pose_at(15.0).position.x - 5.0).abs() < 1e-5);
    assert_eq!(acc.pose_at(45.0).position.x, 10.0);
    // Delete key is offered at a keyed frame.
    h.get_by_label("Delete key").click();
    h.run_steps(2);
    assert_eq!(keys(&h).len(), 1);
    for want in [2, 1, 0] {
        h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
        h.run_steps(2);
        assert_eq!(keys(&h).len(), want, "after undo");
    }
}

/// Scene panel ▸ Set ▸ Background: the colour is one scene setting (an
/// undo step), the picture the viewport draws clears with it, "White"
/// (a real click) goes back to MMD's white, undo walks back, and the scene
/// file keeps it.
#[test]
fn the_background_colour_is_a_scene_setting_the_viewport_uses() {
    use vmd_studio::app::scene_ops::scene_view;
    let tmp = tempfile::tempdir().unwrap();
    let mut h = harness(StudioApp::with_demo());
    settle(&mut h);
    let colour = |h: &Harness<'_, StudioApp>| h.state().ws.scene().set.background.colour;
    let drawn = |h: &Harness<'_, StudioApp>| scene_view(&h.state().ws, &h.state().scene).background;
    assert_eq!(colour(&h), [1.0; 3], "MMD's white by default");
    assert_eq!(drawn(&h), [1.0; 3]);
    assert!(h.query_by_label("White").is_none(), "no reset while white");
    h.state_mut()
        .scene_action(Action::Set(SetAction::BackgroundColour([0.2, 0.4, 0.6])));
    h.run_steps(2);
    assert_eq!(colour(&h), [0.2, 0.4, 0.6]);
    assert_eq!(drawn(&h), [0.2, 0.4, 0.6], "the viewport clears with it");
    // One undo step, and back.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(colour(&h), [1.0; 3], "undo: white again");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    h.run_steps(2);
    assert_eq!(colour(&h), [0.2, 0.4, 0.6], "redo: blue");
    let path = tmp.path().join("blue.vmdscene");
    h.state_mut().save_scene_to(path.clone());
    settle(&mut h);
    let loaded = vmd_studio::scene::file::load(&path).unwrap();
    assert_eq!(loaded.scene.set.background.colour, [0.2, 0.4, 0.6]);
    // "White", clicked.
    h.get_by_label("White").scroll_to_me();
    // The scroll animates: let it come to rest before the click.
    h.run_steps(12);
    h.get_by_label("White").click();
    h.run_steps(2);
    assert_eq!(colour(&h), [1.0; 3]);
}
