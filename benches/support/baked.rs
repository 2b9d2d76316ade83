// A generated baked motion: `bones` tracks × `frames` keys, one on every
// frame (a baked capture), smooth sums of sines, keys interleaved frame by
// frame as MMD stores them. Shared by `benches/simplify.rs` and
// `examples/baked_motion.rs` through `include!`.

/// The generated baked motion (see the file comment).
pub fn baked(bones: usize, frames: u32) -> Result<vmd_studio::vmd::Motion, String> {
    use vmd_studio::vmd::{BoneKey, Motion, NameEncoding};
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
