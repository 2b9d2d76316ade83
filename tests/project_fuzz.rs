//! A bounded random-mutation fuzzer over the hand-built projects and the
//! corpus' synthetic one (ignored by default; see the test's docs).

mod project_support;

use project_support::*;
use vmd_studio::project::{self, ModelShape};
use vmd_studio::vmd;

/// A bounded random-mutation fuzzer (no cargo-fuzz on this machine; the
/// libFuzzer target is `fuzz/fuzz_targets/pmm.rs`): mutates the hand-built
/// v1 and v2 projects and the corpus' synthetic one (byte flips, i32 fields
/// set to edge values and small ids, cuts, splices) for
/// `PMM_FUZZ_SECS` seconds (default 30) and checks that reading never
/// panics, errors point inside the input, and what reads converts to VMD
/// that reads back equal. Run:
/// `PMM_FUZZ_SECS=300 cargo test --test project_read -- --ignored --nocapture`.
#[test]
#[ignore]
fn mutation_fuzz() {
    let secs: u64 = std::env::var("PMM_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let mut seeds = vec![project_bytes(true), project_bytes(false)];
    let synthetic = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/frontier/pmm_v2_mmdanim_synthetic/ik_multi_bone_from_pmx_vmd.pmm");
    if let Ok(b) = std::fs::read(synthetic) {
        seeds.push(b);
    }
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let edge = [
        0,
        1,
        2,
        3,
        5,
        7,
        9,
        -1,
        -2,
        0x7FFF_FFFF,
        i32::MIN,
        255,
        256,
        1 << 20,
    ];
    let start = std::time::Instant::now();
    let (mut execs, mut read_ok, mut crashes) = (0u64, 0u64, 0u64);
    let prev_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    while start.elapsed().as_secs() < secs {
        let mut d = seeds[(next() % seeds.len() as u64) as usize].clone();
        for _ in 0..1 + next() % 4 {
            let len = d.len().max(1);
            let at = (next() % len as u64) as usize;
            match next() % 6 {
                0 => {
                    if at < d.len() {
                        d[at] ^= 1 << (next() % 8);
                    }
                }
                1 | 2 => {
                    let at = at & !3;
                    if at + 4 <= d.len() {
                        let v = if next() % 2 == 0 {
                            edge[(next() % edge.len() as u64) as usize]
                        } else {
                            (next() % 16) as i32
                        };
                        d[at..at + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
                3 => d.truncate(at),
                4 => {
                    let n = (next() % 64) as usize;
                    let end = (at + n).min(d.len());
                    let chunk = d[at..end].to_vec();
                    let to = (next() % len as u64) as usize;
                    let to = to.min(d.len());
                    d.splice(to..to, chunk);
                }
                _ => {
                    if at < d.len() {
                        d[at] = next() as u8;
                    }
                }
            }
        }
        execs += 1;
        let input = d.clone();
        let r = std::panic::catch_unwind(move || {
            match project::read_with(&input, &mut |_, _| {
                Some(ModelShape {
                    bone_names: vec![sjis("センター"), sjis("左足ＩＫ")],
                    morph_names: vec![b"base".to_vec(), sjis("あ")],
                    ik_bones: vec![1],
                })
            }) {
                Err(e) => {
                    assert!(e.offset <= input.len());
                    false
                }
                Ok(p) => {
                    for (i, m) in p.models.iter().enumerate() {
                        let mm = project::model_motion(m, i);
                        let b = vmd::write(&mm.motion).unwrap();
                        assert_eq!(vmd::read(&b).unwrap(), mm.motion);
                    }
                    let cm = project::camera_motion(&p);
                    let b = vmd::write(&cm.motion).unwrap();
                    assert_eq!(vmd::read(&b).unwrap(), cm.motion);
                    true
                }
            }
        });
        match r {
            Ok(true) => read_ok += 1,
            Ok(false) => {}
            Err(_) => {
                crashes += 1;
                let f = std::env::temp_dir().join(format!("pmm-crash-{crashes}.pmm"));
                let _ = std::fs::write(&f, &d);
            }
        }
    }
    std::panic::set_hook(prev_hook);
    eprintln!(
        "mutation fuzz: {execs} executions in {:.0} s, {read_ok} read, {crashes} crashes",
        start.elapsed().as_secs_f64()
    );
    assert_eq!(
        crashes, 0,
        "crashing inputs saved as pmm-crash-N.pmm in the temp folder"
    );
}
