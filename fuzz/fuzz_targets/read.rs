//! Any input: `read` must not panic, hang or over-allocate; whatever reads
//! must also index, summarize and evaluate without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vmd_studio::vmd::{self, TrackIndex, evaluate, summary};

fuzz_target!(|data: &[u8]| {
    let Ok(m) = vmd::read(data) else { return };
    let idx = TrackIndex::build(&m);
    let _ = summary::summarize(&m, &idx);
    let last = f64::from(m.last_frame().unwrap_or(0));
    for f in [0.0, 0.5, last * 0.37, last - 0.25, last, last + 1.0] {
        let _ = evaluate::sample(&m, &idx, f);
        let _ = evaluate::shadow_at(&m, &idx, f);
        let _ = evaluate::ik_at(&m, &idx, f);
    }
});
