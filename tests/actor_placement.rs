//! An actor's placement in the scene (issue 38 item 3): a position and a
//! turn about Y above everything its motion does. Checked by what a rigid
//! placement must do, worked out here rather than read from the engine:
//! every bone matrix and skinned vertex of the placed model is the
//! placement times the unplaced one (IK and local appends included), and
//! the physics bodies move with the actor (two actors in one world, the
//! second placed 20 units away, keep their hair at their own heads).
//! Pure layer: runs with `--no-default-features`.

mod common;

use common::corpus;
use glam::Vec3;
use vmd_studio::model::physics::{SceneActor, ScenePhysics, SimulationMode};
use vmd_studio::model::{Model, PoseEngine};
use vmd_studio::scene::ActorPlacement;
use vmd_studio::vmd::{self, IndexedMotion};

fn mei(dir: &std::path::Path) -> (Model, IndexedMotion) {
    let model = Model::open(&dir.join("mei/mei.pmd")).expect("mei");
    let bytes = std::fs::read(dir.join("mmdagent__mei_wait.vmd")).expect("motion");
    (model, IndexedMotion::new(vmd::read(&bytes).expect("reads")))
}

/// The placement the tests use: 12 units right, 5 back, turned 120°.
fn placement() -> ActorPlacement {
    ActorPlacement {
        position: Vec3::new(12.0, 0.0, -5.0),
        turn_degrees: 120.0,
    }
}

#[test]
fn placement_matrix_is_translation_after_a_turn_about_y() {
    let p = placement().matrix().expect("not the origin");
    // Worked by hand: a point 1 unit along +X, turned 120° about +Y
    // (x' = cos·x, z' = −sin·x), then moved.
    let (s, c) = 120f32.to_radians().sin_cos();
    let got = p.transform_point3(Vec3::X);
    let want = Vec3::new(12.0 + c, 0.0, -5.0 - s);
    assert!(got.distance(want) < 1e-5, "{got} vs {want}");
    assert!(ActorPlacement::ORIGIN.matrix().is_none());
    let bad = ActorPlacement {
        position: Vec3::new(f32::NAN, 0.0, 0.0),
        turn_degrees: 0.0,
    };
    assert!(
        bad.matrix().is_none(),
        "a NaN placement stands at the origin"
    );
}

#[test]
fn a_placed_model_is_the_placement_times_the_unplaced_one() {
    let Some(dir) = corpus() else { return };
    let (model, motion) = mei(&dir);
    let p = placement().matrix().expect("placed");
    let mut here = PoseEngine::new(&model);
    let mut there = PoseEngine::new(&model);
    here.bind(&model, Some(&motion.index));
    there.bind(&model, Some(&motion.index));
    there.set_placement(Some(p));
    // Mei's legs are IK chains: their goals are absolute positions, so a
    // placement that only moved the root would tear the knees.
    assert!(!model.skeleton.iks.is_empty());
    let mut worst_bone = 0.0_f32;
    let mut worst_vertex = 0.0_f32;
    for frame in [0.0, 17.5, 40.0, 90.0] {
        here.pose(&model, Some(motion.as_ref()), frame);
        there.pose(&model, Some(motion.as_ref()), frame);
        for (a, b) in here.posed.bone_world.iter().zip(&there.posed.bone_world) {
            let want = p * *a;
            for c in 0..4 {
                worst_bone = worst_bone.max((want.col(c) - b.col(c)).abs().max_element());
            }
        }
        for (a, b) in here.posed.positions.iter().zip(&there.posed.positions) {
            worst_vertex = worst_vertex.max(p.transform_point3(*a).distance(*b));
        }
        // Local rotations (what keys are made from) do not move.
        for (a, b) in here
            .posed
            .local_rotations
            .iter()
            .zip(&there.posed.local_rotations)
        {
            assert!(a.dot(*b).abs() > 1.0 - 1e-5, "{a} vs {b} at {frame}");
        }
    }
    // Mei is about 20 units tall; f32 placed 13 units out.
    assert!(worst_bone < 1e-3, "bone matrices off by {worst_bone}");
    assert!(worst_vertex < 1e-3, "vertices off by {worst_vertex}");
    assert!(there.posed.positions.len() == model.positions.len());
}

/// Scene-physics actor `i` of two Mei, the second placed.
fn two_actors<'a>(
    engines: &'a mut [PoseEngine],
    model: &'a Model,
    motion: &'a IndexedMotion,
) -> Vec<SceneActor<'a>> {
    engines
        .iter_mut()
        .enumerate()
        .map(|(i, engine)| SceneActor {
            key: i as u64,
            engine,
            model,
            motion: Some(motion.as_ref()),
            offset: 0.0,
            replace: None,
            follow: false,
            skin: false,
        })
        .collect()
}

#[test]
fn the_bodies_move_with_the_actor() {
    let Some(dir) = corpus() else { return };
    let (model, motion) = mei(&dir);
    let head = model.skeleton.find("頭").expect("head");
    let hair: Vec<usize> = (0..model.skeleton.bones.len())
        .filter(|&b| model.skeleton.bones[b].name.contains('髪'))
        .collect();
    assert!(!hair.is_empty());
    let p = ActorPlacement {
        position: Vec3::new(20.0, 0.0, 0.0),
        turn_degrees: 90.0,
    };
    let mut engines = vec![PoseEngine::new(&model), PoseEngine::new(&model)];
    for e in &mut engines {
        e.bind(&model, Some(&motion.index));
    }
    engines[1].set_placement(p.matrix());
    let mut physics = ScenePhysics::new(SimulationMode::Play);
    physics.set_collide_across_actors(true);
    // Each hair bone's distance from its own actor's head, the worst over
    // a second of the motion.
    let mut worst = [0.0_f32; 2];
    for step in 0..60 {
        let frame = f64::from(step) * 0.5;
        let mut actors = two_actors(&mut engines, &model, &motion);
        let blew = physics.pose(&mut actors, frame);
        assert!(blew.is_empty(), "{blew:?}");
        drop(actors);
        for (k, e) in engines.iter().enumerate() {
            let h = e.posed.bone_position(head).expect("head");
            for &b in &hair {
                let d = e.posed.bone_position(b).expect("hair").distance(h);
                worst[k] = worst[k].max(d);
            }
        }
    }
    assert!(physics.simulates(0) && physics.simulates(1));
    // Mei's hair hangs within about 10 units of her head; bodies left at
    // the origin would put the placed actor's hair 20 units away.
    assert!(worst[0] < 12.0, "unplaced hair {} from the head", worst[0]);
    assert!(worst[1] < 12.0, "placed hair {} from the head", worst[1]);
    // The placed actor's head is where the placement puts it.
    let head_here = engines[0].posed.bone_position(head).expect("head");
    let head_there = engines[1].posed.bone_position(head).expect("head");
    let moved = p.matrix().expect("placed").transform_point3(head_here);
    assert!(head_there.distance(moved) < 0.5, "{head_there} vs {moved}");

    // The same motion, the same physics: in its own frame the placed
    // actor's hair is where the other's is (gravity is along Y, which a
    // turn about Y keeps).
    let apart = hair_apart(&engines, &hair, p);
    assert!(
        apart < 0.05,
        "hair differs by {apart} in the actors' frames"
    );

    // Moving the actor again resets the world there: no body swings in
    // from where the actor stood (without the reset: 0.32 apart).
    let moved = ActorPlacement {
        position: Vec3::new(-30.0, 0.0, 10.0),
        turn_degrees: 0.0,
    };
    engines[1].set_placement(moved.matrix());
    let mut actors = two_actors(&mut engines, &model, &motion);
    physics.pose(&mut actors, 30.5);
    drop(actors);
    let apart = hair_apart(&engines, &hair, moved);
    assert!(apart < 0.05, "after the move the hair differs by {apart}");
}

/// The largest distance between actor 0's hair bones and actor 1's taken
/// back into actor 0's frame through `placed`.
fn hair_apart(engines: &[PoseEngine], hair: &[usize], placed: ActorPlacement) -> f32 {
    let back = placed.matrix().expect("placed").inverse();
    hair.iter()
        .map(|&b| {
            let a = engines[0].posed.bone_position(b).expect("hair");
            let o = engines[1].posed.bone_position(b).expect("hair");
            back.transform_point3(o).distance(a)
        })
        .fold(0.0, f32::max)
}
