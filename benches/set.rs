//! Issue 34's speed target: a static stage costs the viewport's frame only
//! its drawing. The viewport's CPU work per frame (the app's one posing
//! pass: Mei posed for GPU skinning — bones, material morphs and the
//! packed pose, as the viewport does where the device can — plus the
//! set's placement, and the frames handed to the renderer) with a
//! generated 1,000,000-vertex, 100-material stage beside Mei, against the
//! same without the stage: target ≤ 1.1×. Stepping 60 fps (half a motion
//! frame) through Mei's wait motion.
//!
//! Run: `cargo bench --bench set`.

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Vec2, Vec3, Vec4};
use vmd_studio::app::panels::Shared;
use vmd_studio::app::panels::viewport::{ActorView, Posing, SceneView, SetPieceView};
use vmd_studio::model::{
    Bone, Deform, Format, LoadedModel, Material, MaterialFlags, Model, SphereMode, TextureSet, Toon,
};
use vmd_studio::render::asset::ModelAsset;
use vmd_studio::scene::set::DrawOrder;
use vmd_studio::workspace::{Event, NewDocument, Workspace};

fn corpus_dir() -> PathBuf {
    std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")))
}

/// A flat stage of `side`² vertices (a grid 200 units wide at y = 0) in
/// `materials` materials, one bone.
fn generated_stage(side: usize, materials: usize) -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    let step = 200.0 / (side - 1) as f32;
    for z in 0..side {
        for x in 0..side {
            m.positions.push(Vec3::new(
                x as f32 * step - 100.0,
                0.0,
                z as f32 * step - 100.0,
            ));
            m.normals.push(Vec3::Y);
            m.uvs
                .push(Vec2::new(x as f32 / side as f32, z as f32 / side as f32));
        }
    }
    let n = m.positions.len();
    m.deforms = vec![Deform::Bdef1 { bone: 0 }; n];
    m.edge_scale = vec![0.0; n];
    for z in 0..side - 1 {
        for x in 0..side - 1 {
            let i = (z * side + x) as u32;
            let s = side as u32;
            m.indices
                .extend_from_slice(&[i, i + s, i + 1, i + 1, i + s, i + s + 1]);
        }
    }
    let tris = m.indices.len() / 3;
    let per = tris / materials;
    for k in 0..materials {
        let count = if k + 1 == materials {
            tris - per * k
        } else {
            per
        };
        m.materials.push(Material {
            name: format!("m{k}"),
            name_en: String::new(),
            diffuse: Vec4::new(0.5, 0.5, 0.5, 1.0),
            specular: Vec3::ZERO,
            specular_power: 0.0,
            ambient: Vec3::splat(0.3),
            flags: MaterialFlags {
                self_shadow: true,
                ..MaterialFlags::default()
            },
            edge_colour: Vec4::ZERO,
            edge_size: 0.0,
            texture: None,
            sphere: None,
            sphere_mode: SphereMode::None,
            toon: Toon::None,
            memo: String::new(),
            index_count: count * 3,
        });
    }
    m.skeleton.bones.push(Bone::new("root", None, Vec3::ZERO));
    m
}

fn bench(c: &mut Criterion) {
    let dir = corpus_dir();
    let mei_path = dir.join("mei/mei.pmd");
    let Ok(mei) = LoadedModel::open(&mei_path) else {
        eprintln!("corpus missing: skipping");
        return;
    };
    let Ok(motion) = vmd_studio::cli::load(&dir.join("mmdagent__mei_wait.vmd")) else {
        eprintln!("corpus motion missing: skipping");
        return;
    };
    let mei = Arc::new(ModelAsset::new(mei));
    let stage = Arc::new(ModelAsset::new(LoadedModel {
        path: "generated-stage.pmx".into(),
        model: generated_stage(1000, 100),
        textures: TextureSet::default(),
    }));
    eprintln!(
        "stage: {} vertices, {} materials",
        stage.loaded.model.positions.len(),
        stage.loaded.model.materials.len()
    );
    let mut ws = Workspace::new();
    ws.apply(Event::Open(Box::new(NewDocument::new(
        motion, None, "wait",
    ))));
    let doc = &ws.docs()[0];
    let actors = || {
        vec![ActorView {
            name: "Mei",
            model_path: Some(&mei_path),
            model: Some(&mei),
            rig: &mei.loaded.model,
            motion: Some(doc),
            offset: 0,
            placement: Default::default(),
        }]
    };
    let alone = SceneView {
        actors: actors(),
        ..Default::default()
    };
    let with_stage = SceneView {
        actors: actors(),
        set: vec![SetPieceView {
            asset: &stage,
            order: DrawOrder::BeforeModels,
            shown: true,
            accessory: None,
            motion: None,
        }],
        ..Default::default()
    };
    for (name, scene) in [
        ("mei alone", &alone),
        ("mei + 1M-vertex stage", &with_stage),
    ] {
        let mut posing = Posing::default();
        posing.physics = vmd_studio::model::physics::SimulationMode::Off;
        let mut shared = Shared::default();
        shared.transport.playing = true;
        // 60 fps evaluation: every pass is a new pose (at 30 every other
        // half frame would repeat the last one).
        shared.transport.preview_rate = 60;
        let mut pass = 0u64;
        c.bench_function(&format!("viewport frame: {name}"), |b| {
            b.iter(|| {
                pass += 1;
                shared.transport.frame = (pass % 6000) as f64 * 0.5;
                posing.update(pass, scene, &mut shared, 1.0 / 60.0, true);
                black_box(posing.frames().len())
            })
        });
        // The stage's vertices were placed once, not per frame.
        eprintln!(
            "{name}: {} passes, set placed {} time(s)",
            pass,
            posing.set_placements()
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench
}
criterion_main!(benches);
