//! Writes a generated baked motion (a key on every frame of every bone) for
//! timing `simplify` on the command line (issue 15: 1 M keys ≤ 30 s):
//!
//! ```text
//! cargo run --release --no-default-features --example baked_motion -- /tmp/baked_1m.vmd 200 5000
//! time target/release/vmd-studio simplify /tmp/baked_1m.vmd -o /tmp/baked_1m_simple.vmd
//! ```
//!
//! Arguments: output path, bones (default 200), frames (default 5000). The
//! motion is the one `benches/simplify.rs` simplifies (same generator).

use vmd_studio::vmd;

include!("../benches/support/baked.rs");

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().cloned().unwrap_or_else(|| "baked.vmd".into());
    let bones = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(200);
    let frames = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5000);
    let saved = baked(bones, frames)
        .and_then(|m| vmd::save(&m, std::path::Path::new(&path)).map_err(|e| e.to_string()));
    match saved {
        Ok(()) => println!("wrote {path}: {} keys", bones * frames as usize),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}
