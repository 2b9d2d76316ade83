//! A bounded mutation loop over the physics fuzz target's code path
//! (`tests/physics_models/fuzz_input.rs`) for machines without cargo-fuzz:
//! seeds are the shared corpus's models and the kept findings, read as
//! fuzz input; each round mutates one (byte flips, special floats, splices,
//! truncation) and runs it, catching panics. A failing input is written to
//! `target/physics-fuzz-failure-N.bin` and named.
//!
//! ```text
//! cargo run --release --example physics_fuzz_loop -- SECONDS [SEED]
//! ```

#[path = "../tests/physics_models/mod.rs"]
mod physics_models;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use physics_models::fuzz_input;

/// xorshift64*: deterministic for a given seed.
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

fn seeds() -> Vec<Vec<u8>> {
    let dir = std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/corpus"));
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .is_some_and(|x| ["pmx", "pmd", "bin"].contains(&x.to_string_lossy().as_ref()))
                && let Ok(bytes) = std::fs::read(&p)
            {
                // The target reads a few hundred bytes at most per body:
                // the file's first 4 KiB carry all it will read.
                out.push(bytes[..bytes.len().min(4096)].to_vec());
            }
        }
    }
    out.sort();
    if out.is_empty() {
        out.push(vec![0; 256]);
    }
    out
}

fn mutate(rng: &mut Rng, input: &mut Vec<u8>, pool: &[Vec<u8>]) {
    let rounds = 1 + rng.below(8);
    for _ in 0..rounds {
        if input.is_empty() {
            input.push(0);
        }
        let at = rng.below(input.len());
        match rng.below(7) {
            0 => input[at] ^= 1 << rng.below(8),
            1 => input[at] = rng.next() as u8,
            2 => {
                // A raw float (tag & 7 == 0) with special bits.
                let specials: [u32; 7] = [
                    0x7FC0_0000, // NaN
                    0x7F80_0000, // +inf
                    0xFF80_0000, // -inf
                    0x7F7F_FFFF, // f32::MAX
                    0x0000_0001, // smallest subnormal
                    0x7149_F2CA, // 1e30
                    0x0DA2_4260, // 1e-30
                ];
                let bits = specials[rng.below(specials.len())].to_le_bytes();
                let end = (at + 5).min(input.len());
                let mut bytes = vec![0u8];
                bytes.extend_from_slice(&bits);
                input[at..end].copy_from_slice(&bytes[..end - at]);
            }
            3 => {
                let other = &pool[rng.below(pool.len())];
                let from = rng.below(other.len());
                let len = rng.below(64).min(other.len() - from);
                let end = (at + len).min(input.len());
                input[at..end].copy_from_slice(&other[from..from + (end - at)]);
            }
            4 => input.truncate(at.max(1)),
            5 => input.insert(at, rng.next() as u8),
            _ => {
                input.remove(at);
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seconds: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(60);
    let seed: u64 = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9E37_79B9_7F4A_7C15);
    let pool = seeds();
    let mut rng = Rng(seed | 1);
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let limit = Duration::from_secs(seconds);
    let (mut runs, mut failures) = (0u64, 0u32);
    while start.elapsed() < limit {
        let mut input = pool[rng.below(pool.len())].clone();
        mutate(&mut rng, &mut input, &pool);
        runs += 1;
        if let Err(e) = std::panic::catch_unwind(|| fuzz_input::run(&input)) {
            let message = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let path = format!("target/physics-fuzz-failure-{failures}.bin");
            let _ = std::fs::write(&path, &input);
            println!("run {runs}: FAILED \"{message}\" -> {path}");
            failures += 1;
            if failures >= 10 {
                break;
            }
        }
    }
    println!(
        "{runs} executions in {:.0} s from {} seeds (seed {seed}), {failures} failures",
        start.elapsed().as_secs_f64(),
        pool.len()
    );
}
