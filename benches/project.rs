//! Opening an MMD project against reading the same keys as VMD files
//! (issue 35's speed target): a generated v2 project with 10 models, 50
//! bones each, 100 keys per bone (50,000 bone keys), read and turned into
//! the 10 models' motions and the camera motion; and the same 10 motions'
//! VMD files read from memory (`vmd::read_vec`, the app's load).
//!
//! Run: `cargo bench --no-default-features --bench project`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use vmd_studio::{project, vmd};

const MODELS: usize = 10;
const BONES: usize = 50;
const KEYS_PER_BONE: usize = 100;

struct B(Vec<u8>);

impl B {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn raw(&mut self, v: &[u8]) {
        self.0.extend_from_slice(v);
    }
    fn short(&mut self, s: &str) {
        self.u8(s.len() as u8);
        self.raw(s.as_bytes());
    }
    fn zeros(&mut self, n: usize) {
        self.0.resize(self.0.len() + n, 0);
    }
    /// Base + bone body (v2).
    fn bone(&mut self, id: Option<i32>, frame: i32, prev: i32, next: i32, x: f32) {
        if let Some(id) = id {
            self.i32(id);
        }
        self.i32(frame);
        self.i32(prev);
        self.i32(next);
        self.raw(&[
            20, 20, 107, 107, 20, 20, 107, 107, 10, 30, 90, 117, 20, 20, 107, 107,
        ]);
        for v in [x, 0.5, -x, 0.0, 0.0, 0.0, 1.0] {
            self.f32(v);
        }
        self.u8(0);
        self.u8(0);
    }
}

/// A v2 project: MODELS models × BONES bones × KEYS_PER_BONE keys (the
/// frame-0 key is the initial one), pool records interleaved across bones
/// as MMD appends them while keying frame by frame.
fn generated_project() -> Vec<u8> {
    let mut b = B(Vec::new());
    b.raw(b"Polygon Movie maker 0002");
    b.zeros(6);
    for v in [1920, 1080, 250] {
        b.i32(v);
    }
    b.f32(30.0);
    b.raw(&[0, 1, 1, 1, 1, 1, 1]);
    b.u8(0);
    b.u8(MODELS as u8);
    let pool_id = |bone: usize, k: usize| (BONES + (k - 1) * BONES + bone) as i32;
    for m in 0..MODELS {
        b.u8(m as u8); // model index
        b.short(&format!("model{m}"));
        b.short(""); // English name
        let path = format!("C:\\MMD\\UserFile\\Model\\m{m}.pmx");
        b.raw(path.as_bytes());
        b.zeros(256 - path.len());
        b.u8(3); // fixed track rows
        b.i32(BONES as i32);
        for i in 0..BONES {
            b.short(&format!("bone{i}"));
        }
        b.i32(0); // morphs
        b.i32(0); // IK bones
        b.i32(0); // outside-parent bones
        b.u8(m as u8); // draw order
        b.u8(1); // visible
        b.i32(0); // selected bone
        for _ in 0..4 {
            b.i32(-1); // selected morphs
        }
        b.u8(0); // no display frame flags
        b.i32(0); // vertical scroll
        b.i32((KEYS_PER_BONE * 3) as i32); // last frame
        for i in 0..BONES {
            b.bone(None, 0, i as i32, pool_id(i, 1), 0.0);
        }
        b.i32((BONES * (KEYS_PER_BONE - 1)) as i32);
        for k in 1..KEYS_PER_BONE {
            for i in 0..BONES {
                let prev = if k == 1 { i as i32 } else { pool_id(i, k - 1) };
                let next = if k + 1 < KEYS_PER_BONE {
                    pool_id(i, k + 1)
                } else {
                    0
                };
                b.bone(Some(pool_id(i, k)), (k * 3) as i32, prev, next, k as f32);
            }
        }
        b.i32(0); // morph key pool (no morphs, no initial keys)
        b.i32(0); // initial model key: frame, prev, next
        b.i32(0);
        b.i32(0);
        b.u8(1); // visible
        b.u8(0); // selected
        b.i32(0); // model key pool
        for _ in 0..BONES {
            for v in [0.0f32, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0] {
                b.f32(v);
            }
            b.raw(&[0, 0, 0]); // dirty, physics off, selected
        }
        b.u8(0); // alpha blend
        b.f32(1.0); // edge width
        b.u8(1); // self-shadow
        b.u8(0); // transform order
    }
    // camera: initial key, no pool, current state
    b.zeros(12);
    b.f32(-45.0);
    b.zeros(24 + 8);
    b.raw(&[20; 24]);
    b.u8(0);
    b.i32(30);
    b.u8(0);
    b.i32(0);
    b.zeros(36 + 1);
    // light
    b.zeros(12 + 24 + 1);
    b.i32(0);
    b.zeros(24);
    // accessories: selected, scroll, none
    b.u8(0);
    b.i32(0);
    b.u8(0);
    // settings
    b.zeros(16 + 4 + 8 + 1 + 256 + 12 + 256 + 4 + 12 + 256 + 4 + 4 + 4 + 4 + 4 + 2);
    // gravity
    b.zeros(4 + 4 + 12 + 1 + 12 + 22);
    b.i32(0);
    // self-shadow
    b.zeros(1 + 4 + 12 + 6);
    b.i32(0);
    // tail
    b.zeros(12 + 1 + 8 + 64 + 3 + 4);
    b.0
}

fn open_project(bytes: &[u8]) -> usize {
    let p = project::read(bytes).expect("generated project reads");
    let mut keys = 0;
    for (i, m) in p.models.iter().enumerate() {
        keys += project::model_motion(m, i).motion.bones.len();
    }
    keys + project::camera_motion(&p).motion.cameras.len()
}

fn bench(c: &mut Criterion) {
    let bytes = generated_project();
    assert_eq!(open_project(&bytes), MODELS * BONES * KEYS_PER_BONE + 1);
    let p = project::read(&bytes).unwrap();
    let vmds: Vec<Vec<u8>> = p
        .models
        .iter()
        .enumerate()
        .map(|(i, m)| vmd::write(&project::model_motion(m, i).motion).unwrap())
        .collect();
    let mut g = c.benchmark_group("project_10_models_50k_keys");
    g.bench_function("pmm_read+motions", |b| {
        b.iter(|| open_project(black_box(&bytes)))
    });
    g.bench_function("vmd_read_10_files", |b| {
        b.iter_batched(
            || vmds.clone(),
            |files| {
                files
                    .into_iter()
                    .map(|f| vmd::read_vec(f).unwrap().bones.len())
                    .sum::<usize>()
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
