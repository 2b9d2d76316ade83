//! The `.x` reader under bounded random mutation (the stable-toolchain
//! stand-in for `fuzz/fuzz_targets/xfile.rs`): the corpus `.x` files and a
//! few hand-written seeds, mutated with text-aware edits (a byte, a token
//! from the format's vocabulary, a huge/NaN number, a deleted or doubled
//! span, a cut), go through `Accessory::read` and `to_model`. None may
//! panic or hang; whatever reads must keep the accessory's and the model's
//! invariants with every number finite.
//!
//! Runs for `XFILE_MUTATION_SECS` seconds (default 3) and prints the number
//! of executions; `XFILE_MUTATION_SECS=300 cargo test --release --test
//! xfile_mutations -- --nocapture` is the long run.

mod common;

use std::time::{Duration, Instant};

use vmd_studio::model::xfile::Accessory;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Pieces of the format a mutation may drop in.
const VOCABULARY: &[&[u8]] = &[
    b"{",
    b"}",
    b";",
    b",",
    b";;",
    b"\"",
    b"<",
    b">",
    b"\r",
    b"\n",
    b"\r\n",
    b"//",
    b"#",
    b"*",
    b"4294967295",
    b"2147483648",
    b"0",
    b"1",
    b"3",
    b"-1",
    b"1e39",
    b"-1e38",
    b"1.#QNAN0",
    b"nan",
    b"inf",
    b"Mesh {",
    b"Frame {",
    b"FrameTransformMatrix {",
    b"Material m {",
    b"MeshMaterialList {",
    b"MeshNormals {",
    b"MeshTextureCoords {",
    b"MeshVertexColors {",
    b"TextureFilename { \"a.png*b.sph\"; }",
    b"{ m }",
    b"template T { <1-2> }",
    b"\x83\x7D",
    b"\x83",
];

fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len() + 1);
        match rng.below(5) {
            0 if !b.is_empty() => {
                let i = at.min(b.len() - 1);
                b[i] = rng.next() as u8;
            }
            1 => {
                let w = VOCABULARY[rng.below(VOCABULARY.len())];
                b.splice(at..at, w.iter().copied());
            }
            2 => {
                let end = (at + 1 + rng.below(32)).min(b.len());
                b.drain(at.min(end)..end);
            }
            3 => {
                let end = (at + 1 + rng.below(64)).min(b.len());
                let span = b[at.min(end)..end].to_vec();
                b.splice(at..at, span);
            }
            _ => b.truncate(at),
        }
    }
    b
}

/// Reads `bytes`; checks what reads. Whether it read.
fn check(bytes: &[u8]) -> bool {
    let Ok(a) = Accessory::read(bytes) else {
        return false;
    };
    let n = a.vertex_count();
    assert_eq!((a.normals.len(), a.uvs.len(), a.colours.len()), (n, n, n));
    assert_eq!(a.indices.len() % 3, 0);
    assert!(a.indices.iter().all(|&i| (i as usize) < n));
    let runs: usize = a.materials.iter().map(|m| m.index_count).sum();
    assert_eq!(runs, a.indices.len());
    let m = a.to_model("mutant");
    for p in &m.positions {
        assert!(p.is_finite() && p.abs().max_element() <= 1e10, "{p}");
    }
    assert!(m.normals.iter().all(|v| v.is_finite()));
    assert!(m.uvs.iter().all(|v| v.is_finite()));
    for mat in &m.materials {
        assert!(mat.diffuse.is_finite() && mat.specular.is_finite() && mat.ambient.is_finite());
        assert!(mat.specular_power.is_finite());
        assert!(mat.texture.is_none_or(|t| t < m.textures.len()));
        assert!(mat.sphere.is_none_or(|t| t < m.textures.len()));
    }
    true
}

fn seeds() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = vec![
        b"xof 0303txt 0032\nMaterial m { 1;0;0;1;; 5; 1;1;1;; 0;0;0;; TextureFilename { \"t.png*s.spa\"; } }\n\
Frame F { FrameTransformMatrix { 1,0,0,0, 0,1,0,0, 0,0,1,0, 1,2,3,1;; }\n\
Mesh { 5; 0;0;0;, 1;0;0;, 1;1;0;, 0;1;0;, 0;2;0;; 2; 4;0,1,2,3;, 5;0,1,2,3,4;;\n\
MeshMaterialList { 2; 2; 0, 1;; { m } Material { 0;1;0;0.5;; 1; 0;0;0;; 1;1;1;; } }\n\
MeshNormals { 1; 0;0;-1;; 2; 4;0,0,0,0;, 5;0,0,0,0,0;; }\n\
MeshTextureCoords { 5; 0,0; 1,0; 1,1; 0,1; 0.5,2; }\n\
MeshVertexColors { 1; 2; 1;0;0;1;; } } }\n"
            .to_vec(),
    ];
    if let Some(dir) = common::corpus() {
        for f in [
            "frontier/x_nanoem_test_dummy/test.x",
            "frontier/x_raymmd_controller/ray.x",
            "frontier/x_raymmd_dummyscreen/DummyScreen.x",
            "frontier/x_negative_binary_assimp/test_cube_text.x",
        ] {
            if let Ok(b) = std::fs::read(dir.join(f)) {
                out.push(b);
            }
        }
    }
    out
}

#[test]
fn mutated_x_files_never_panic_and_what_reads_is_sound() {
    let secs: u64 = std::env::var("XFILE_MUTATION_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let seeds = seeds();
    for s in &seeds {
        assert!(check(s), "a seed must read");
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let start = Instant::now();
    let (mut execs, mut read_ok) = (0u64, 0u64);
    while start.elapsed() < Duration::from_secs(secs) {
        for _ in 0..64 {
            let seed = &seeds[rng.below(seeds.len())];
            let m = mutate(seed, &mut rng);
            let t = Instant::now();
            read_ok += u64::from(check(&m));
            assert!(
                t.elapsed() < Duration::from_secs(2),
                "slow input: {}",
                String::from_utf8_lossy(&m)
            );
            execs += 1;
        }
    }
    eprintln!(
        "xfile mutations: {execs} executions in {:.1} s, {read_ok} read, 0 crashes",
        start.elapsed().as_secs_f64()
    );
    assert!(execs > 0);
}
