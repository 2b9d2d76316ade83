//! Writes the generated files of the speed table (issue 14) for timing the
//! whole `inspect --json` process against `cat`:
//!
//! ```text
//! cargo run --release --no-default-features --example speed_files -- /tmp
//! hyperfine -N --warmup 5 'target/release/vmd-studio inspect --json /tmp/generated_300k.vmd' 'cat /tmp/generated_300k.vmd'
//! ```
//!
//! `generated_300k.vmd`: 300 bones × 1000 keys (33 MB), eased curves on every
//! channel, keys interleaved frame by frame as MMD stores a baked dance —
//! the same generator as `benches/core.rs`.

use vmd_studio::vmd::{self, BoneChannel, BoneKey, Curve, Motion, NameEncoding};

fn generated(bones: usize, keys_per_bone: usize) -> Result<Motion, String> {
    let mut m = Motion::new_v2();
    m.bones.reserve(bones * keys_per_bone);
    for k in 0..keys_per_bone {
        for b in 0..bones {
            let name = format!("bone{b:04}");
            let a = (k as f32 * 0.1) + b as f32 * 0.01;
            let (s, c) = (a * 0.5).sin_cos();
            let mut key = BoneKey::new(
                &name,
                NameEncoding::ShiftJis,
                (k * 3) as u32,
                [a, -a, 0.5 * a],
                [0.0, s, 0.0, c],
            )
            .map_err(|e| e.to_string())?;
            key.set_curve(BoneChannel::X, Curve::new(64, 0, 64, 127));
            key.set_curve(BoneChannel::Y, Curve::new(10, 100, 90, 20));
            key.set_curve(BoneChannel::Z, Curve::new(0, 127, 127, 127));
            key.set_curve(BoneChannel::Rotation, Curve::new(40, 5, 100, 120));
            m.bones.push(key);
        }
    }
    Ok(m)
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let path = std::path::Path::new(&dir).join("generated_300k.vmd");
    let result = generated(300, 1000).and_then(|m| vmd::save(&m, &path).map_err(|e| e.to_string()));
    match result {
        Ok(()) => println!("wrote {}", path.display()),
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            std::process::exit(1);
        }
    }
}
