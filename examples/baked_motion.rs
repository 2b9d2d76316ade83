//! Writes a generated baked motion (a key on every frame of every bone) for
//! timing `simplify` on the command line (issue 15: 1 M keys ≤ 30 s):
//!
//! ```text
//! cargo run --release --no-default-features --example baked_motion -- /tmp/baked_1m.vmd 200 5000
//! time target/release/vmd-studio simplify /tmp/baked_1m.vmd -o /tmp/baked_1m_simple.vmd
//! ```
//!
//! Arguments: output path, bones (default 200), frames (default 5000). The
//! motion is the one `benches/simplify.rs` simplifies: smooth sums of sines,
//! keys interleaved frame by frame as MMD stores a baked dance.

use vmd_studio::vmd::{self, BoneKey, Motion, NameEncoding};

fn baked(bones: usize, frames: u32) -> Result<Motion, String> {
    let mut m = Motion::new_v2();
    m.bones.reserve(bones * frames as usize);
    for f in 0..frames {
        for b in 0..bones {
            let t = f64::from(f) / 30.0 + b as f64 * 0.37;
            let a = 0.6 * (1.3 * t).sin() + 0.2 * (3.1 * t).cos();
            let (s, c) = (0.5 * a).sin_cos();
            let p = [(0.5 * t.sin()) as f32, (0.2 * (2.0 * t).cos()) as f32, 0.0];
            let key = BoneKey::new(
                &format!("bone{b:03}"),
                NameEncoding::ShiftJis,
                f,
                p,
                [0.0, s as f32, 0.0, c as f32],
            )
            .map_err(|e| e.to_string())?;
            m.bones.push(key);
        }
    }
    Ok(m)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().cloned().unwrap_or_else(|| "baked.vmd".into());
    let bones = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(200);
    let frames = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5000);
    match baked(bones, frames)
        .and_then(|m| vmd::save(&m, std::path::Path::new(&path)).map_err(|e| e.to_string()))
    {
        Ok(()) => println!("wrote {path}: {} keys", bones * frames as usize),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}
