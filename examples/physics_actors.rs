//! Two Meis (31 rigid bodies each) dancing `mei_wait`: time per frame with
//! both in one world ([`ScenePhysics`]) against each in her own world
//! (two engines with physics), and how far the switch "actors' bodies
//! collide" moves the bones when the second Mei stands 3 units aside.
//!
//! `VMD_CORPUS=… cargo run --release --no-default-features --example physics_actors`

use std::time::Instant;

use vmd_studio::model::physics::{SceneActor, ScenePhysics, SimulationMode};
use vmd_studio::model::{Model, PoseEngine};
use vmd_studio::vmd::{self, IndexedMotion};

const FRAMES: u32 = 120;
const RUNS: usize = 7;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::path::PathBuf::from(
        std::env::var_os("VMD_CORPUS").unwrap_or_else(|| "../shared/corpus".into()),
    );
    let model = Model::open(&dir.join("mmdagent__mei.pmd"))?;
    let im = IndexedMotion::new(vmd::read_vec(std::fs::read(
        dir.join("mmdagent__mei_wait.vmd"),
    )?)?);
    // The second Mei, moved `shift` units along x (first argument; 3 by
    // default, about 24 cm: her arms and skirt reach the first one's).
    let dx: f32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3.0);
    let mut moved = model.clone();
    let shift = glam::Vec3::new(dx, 0.0, 0.0);
    for b in &mut moved.skeleton.bones {
        b.rest_position += shift;
    }
    for rb in &mut moved.rigid_bodies {
        rb.position += shift;
    }
    for j in &mut moved.joints {
        j.position += shift;
    }
    for p in &mut moved.positions {
        *p += shift;
    }

    let one_world = |across: bool| {
        let mut a = PoseEngine::new(&model);
        let mut b = PoseEngine::new(&moved);
        a.bind(&model, Some(&im.index));
        b.bind(&moved, Some(&im.index));
        let mut scene = ScenePhysics::new(SimulationMode::Trace);
        scene.set_collide_across_actors(across);
        let t = Instant::now();
        for f in 0..FRAMES {
            let mut actors = [
                SceneActor {
                    key: 0,
                    engine: &mut a,
                    model: &model,
                    motion: Some(im.as_ref()),
                    offset: 0.0,
                    replace: None,
                    follow: false,
                    skin: false,
                },
                SceneActor {
                    key: 1,
                    engine: &mut b,
                    model: &moved,
                    motion: Some(im.as_ref()),
                    offset: 0.0,
                    replace: None,
                    follow: false,
                    skin: false,
                },
            ];
            scene.pose(&mut actors, f64::from(f));
        }
        let ms = t.elapsed().as_secs_f64() * 1e3 / f64::from(FRAMES);
        (ms, a.posed.bone_world.clone(), b.posed.bone_world.clone())
    };
    let two_worlds = || {
        let mut a = PoseEngine::new(&model);
        let mut b = PoseEngine::new(&moved);
        a.bind(&model, Some(&im.index));
        b.bind(&moved, Some(&im.index));
        a.enable_physics(&model, SimulationMode::Trace);
        b.enable_physics(&moved, SimulationMode::Trace);
        let t = Instant::now();
        for f in 0..FRAMES {
            a.pose_bones(&model, Some(im.as_ref()), f64::from(f), |_| {});
            b.pose_bones(&moved, Some(im.as_ref()), f64::from(f), |_| {});
        }
        let ms = t.elapsed().as_secs_f64() * 1e3 / f64::from(FRAMES);
        (ms, a.posed.bone_world.clone(), b.posed.bone_world.clone())
    };
    let one: Vec<f64> = (0..RUNS).map(|_| one_world(false).0).collect();
    let two: Vec<f64> = (0..RUNS).map(|_| two_worlds().0).collect();
    println!(
        "two Meis, {FRAMES} frames (settle included), median of {RUNS}: one world {:.3} ms/frame, two worlds {:.3} ms/frame",
        median(one),
        median(two)
    );
    let (_, a0, b0) = one_world(false);
    let (_, a1, b1) = one_world(true);
    let (_, a2, b2) = two_worlds();
    let diff = |x: &[glam::Mat4], y: &[glam::Mat4]| {
        x.iter()
            .zip(y)
            .map(|(p, q)| p.w_axis.truncate().distance(q.w_axis.truncate()))
            .fold(0.0f32, f32::max)
    };
    println!(
        "second Mei {dx} units aside; largest bone-head difference at frame {}: apart vs two worlds {:.4} / {:.4}; collide vs apart {:.4} / {:.4} units",
        FRAMES - 1,
        diff(&a0, &a2),
        diff(&b0, &b2),
        diff(&a1, &a0),
        diff(&b1, &b0)
    );
    Ok(())
}
