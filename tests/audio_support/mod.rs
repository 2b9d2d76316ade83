//! Test signals for the audio tests, made here (independently of the code
//! under test): click tracks, sines, and a small WAV writer.
#![allow(dead_code)]

/// A click track: a 5 ms decaying 2 kHz burst at `phase + k·60/bpm`
/// seconds for every beat in `seconds`; beat 0, 4, 8… (downbeats) louder.
/// Returns the samples and the click times.
pub fn click_track(rate: u32, bpm: f64, phase: f64, seconds: f64) -> (Vec<f32>, Vec<f64>) {
    let n = (seconds * f64::from(rate)) as usize;
    let mut x = vec![0.0f32; n];
    let period = 60.0 / bpm;
    let mut times = Vec::new();
    let burst = (0.005 * f64::from(rate)) as usize;
    let mut k = 0usize;
    loop {
        let t = phase + k as f64 * period;
        let start = (t * f64::from(rate)).round() as usize;
        if start + burst >= n {
            break;
        }
        times.push(t);
        let amp = if k.is_multiple_of(4) { 0.8 } else { 0.45 };
        for j in 0..burst {
            let tt = j as f64 / f64::from(rate);
            let env = (-tt / 0.0015).exp();
            x[start + j] += (amp * env * (2.0 * std::f64::consts::PI * 2000.0 * tt).sin()) as f32;
        }
        k += 1;
    }
    (x, times)
}

/// Writes a PCM WAV file (8-bit unsigned, 16- or 24-bit signed), samples
/// interleaved in −1..1.
pub fn wav_bytes(rate: u32, channels: u16, bits: u16, samples: &[f32]) -> Vec<u8> {
    let bytes_per = usize::from(bits / 8);
    let data_len = samples.len() * bytes_per;
    let mut out = Vec::new();
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&((36 + data_len) as u32).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&channels.to_le_bytes());
    out.extend_from_slice(&rate.to_le_bytes());
    let block = u32::from(channels) * u32::from(bits / 8);
    out.extend_from_slice(&(rate * block).to_le_bytes());
    out.extend_from_slice(&(block as u16).to_le_bytes());
    out.extend_from_slice(&bits.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(data_len as u32).to_le_bytes());
    for &s in samples {
        let s = f64::from(s.clamp(-1.0, 1.0));
        match bits {
            8 => out.push(((s * 128.0).round() + 128.0).clamp(0.0, 255.0) as u8),
            16 => out.extend_from_slice(
                &((s * 32768.0).round().clamp(-32768.0, 32767.0) as i16).to_le_bytes(),
            ),
            24 => {
                let v = (s * 8_388_608.0).round().clamp(-8_388_608.0, 8_388_607.0) as i32;
                out.extend_from_slice(&v.to_le_bytes()[..3]);
            }
            _ => panic!("unsupported bit depth"),
        }
    }
    out
}

/// A dance beat: a kick drum on every beat (`phase + k·60/bpm` seconds; a
/// 150 ms sine falling from ≈160 Hz to 50 Hz, downbeats louder) and an open
/// hi-hat halfway between beats (40 ms of white noise, broadband and louder
/// in spectral flux than the kick). Returns the samples and the kick times.
pub fn kick_hat_track(rate: u32, bpm: f64, phase: f64, seconds: f64) -> (Vec<f32>, Vec<f64>) {
    let r = f64::from(rate);
    let n = (seconds * r) as usize;
    let mut x = vec![0.0f32; n];
    let period = 60.0 / bpm;
    let mut kicks = Vec::new();
    let kick_len = (0.15 * r) as usize;
    let hat_len = (0.04 * r) as usize;
    // Deterministic noise (64-bit LCG, top bits) so the test is repeatable.
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut noise = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 40) as f64 / (1u64 << 24) as f64) * 2.0 - 1.0
    };
    let mut k = 0usize;
    loop {
        let t = phase + k as f64 * period;
        let start = (t * r).round() as usize;
        if start + kick_len >= n {
            break;
        }
        kicks.push(t);
        let amp = if k.is_multiple_of(4) { 0.8 } else { 0.6 };
        // Phase of a sweep f(t) = 50 + 110·e^(−t/0.03) Hz, integrated.
        for j in 0..kick_len {
            let tt = j as f64 / r;
            let ph = 2.0
                * std::f64::consts::PI
                * (50.0 * tt + 110.0 * 0.03 * (1.0 - (-tt / 0.03).exp()));
            x[start + j] += (amp * (-tt / 0.05).exp() * ph.sin()) as f32;
        }
        let hat = ((t + period / 2.0) * r).round() as usize;
        for j in 0..hat_len.min(n.saturating_sub(hat)) {
            let tt = j as f64 / r;
            x[hat + j] += (0.35 * (-tt / 0.008).exp() * noise()) as f32;
        }
        k += 1;
    }
    (x, kicks)
}
