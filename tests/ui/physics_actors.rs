//! Several actors in one physics world, in the app: two Meis (31 rigid
//! bodies each) share the viewport's one world; Playback ▸ Physics ▸
//! "Actors' bodies collide with each other" reaches that world. Run with
//! `cargo test --test ui physics_actors::`.

use crate::common::corpus;
use crate::common::ui::{harness_sized, settle};

use egui_kittest::kittest::Queryable;
use vmd_studio::app::panels::viewport::Posing;
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::scene::ModelRef;
use vmd_studio::workspace::{Event, SceneEvent, TransportEvent};

#[test]
fn the_collide_switch_reaches_the_shared_world_of_two_meis() {
    let Some(corpus) = corpus() else { return };
    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    app.panels.central = CentralView::Preview;
    let mei = corpus.join("mei/mei.pmd");
    app.open_paths(vec![mei.clone()]);
    let mut h = harness_sized(app, 1400.0, 900.0);
    settle(&mut h);
    // A second actor wearing the same model.
    h.state_mut().apply(Event::Scene(SceneEvent::AddActor));
    h.state_mut()
        .apply(Event::Scene(SceneEvent::SetModel(1, ModelRef::File(mei))));
    settle(&mut h);
    assert_eq!(h.state().ws.scene().actors.len(), 2, "two actors");
    h.state_mut().transport(TransportEvent::Play);
    for f in 0..4 {
        h.state_mut().transport(TransportEvent::Seek(f64::from(f)));
        h.step();
    }
    {
        let posing = &h.state().panels.viewport.posing;
        let world = posing.scene_physics().world().expect("one world");
        assert_eq!(world.actor_count(), 2, "both Meis in it");
        assert_eq!(
            world.actor_bodies(1).map(|r| r.len()),
            Some(31),
            "the second Mei's bodies"
        );
        assert!(!posing.collide_actors, "off by default");
        assert!(!world.collides_across_actors());
        assert!(posing.physics_steps(0) > 0);
        assert_eq!(
            posing.physics_steps(0),
            posing.physics_steps(1),
            "one clock"
        );
    }

    // Playback ▸ Physics: the switch.
    h.get_by_label("Playback").click();
    h.run_steps(2);
    h.get_by_label(Posing::COLLIDE_ACTORS).click();
    h.run_steps(3);
    {
        let posing = &h.state().panels.viewport.posing;
        assert!(posing.collide_actors, "the menu set it");
        let world = posing.scene_physics().world().expect("one world");
        assert!(world.collides_across_actors(), "the world follows it");
        assert_eq!(world.actor_count(), 2, "the same world, not rebuilt apart");
    }
    // And off again.
    h.get_by_label("Playback").click();
    h.run_steps(2);
    h.get_by_label(Posing::COLLIDE_ACTORS).click();
    h.run_steps(3);
    let posing = &h.state().panels.viewport.posing;
    assert!(!posing.collide_actors);
    assert!(
        !posing
            .scene_physics()
            .world()
            .is_some_and(|w| w.collides_across_actors())
    );
}

/// The switch belongs to the scene as the mode does: set from Playback ▸
/// Physics, it is saved as `"collide_actors": true` and a fresh window
/// opening that scene takes it back.
#[test]
fn the_scene_file_keeps_the_collide_switch() {
    let dir = crate::common::ui::temp_dir("ui-scene-collide");
    let mut h = crate::common::ui::harness(StudioApp::with_demo());
    h.run_steps(3);
    h.get_by_label("Playback").click();
    h.run_steps(2);
    h.get_by_label(Posing::COLLIDE_ACTORS).click();
    h.run_steps(3);
    assert!(h.state().panels.viewport.posing.collide_actors);
    let path = dir.join("show.vmdscene");
    h.state_mut().save_scene_to(path.clone());
    h.run_steps(10);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("scene written"))
            .expect("json");
    assert_eq!(json["preview"]["collide_actors"], true, "{json}");

    let mut app = StudioApp::default();
    assert!(!app.panels.viewport.posing.collide_actors, "off by default");
    app.open_paths(vec![path]);
    let mut h = crate::common::ui::harness(app);
    settle(&mut h);
    assert!(
        h.state().panels.viewport.posing.collide_actors,
        "the scene's switch"
    );
}
