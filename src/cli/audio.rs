//! `beats`: the beat grid of a song, so the estimate can be checked from
//! the command line.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::{CliError, CliResult};
use crate::audio::{decode_file, estimate_beats};
use crate::progress::Progress;

#[derive(Debug, Args)]
pub struct BeatsArgs {
    /// The song (WAV, MP3, OGG Vorbis or FLAC).
    pub audio: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What `beats` prints. Times are seconds from the start of the song.
#[derive(Debug, Serialize)]
pub struct BeatsOut {
    pub bpm: f64,
    pub first_beat_seconds: f64,
    pub beats: Vec<f64>,
    pub beats_per_bar: u32,
    /// Index in `beats` of the first downbeat.
    pub first_downbeat_index: u32,
    /// Share of beats that land on an onset, 0..1.
    pub confidence: f64,
    pub duration_seconds: f64,
    pub sample_rate: u32,
    pub channels: u16,
}

pub fn beats(a: BeatsArgs) -> CliResult {
    let progress = Progress::default();
    let pcm = decode_file(&a.audio, &progress).map_err(|e| CliError(e.to_string()))?;
    let estimate = estimate_beats(&pcm, &progress)
        .map_err(|e| CliError(e.to_string()))?
        .ok_or_else(|| {
            CliError(format!(
                "{}: no steady beat found ({:.1} s of sound)",
                a.audio.display(),
                pcm.duration_seconds()
            ))
        })?;
    let g = estimate.grid;
    let out = BeatsOut {
        bpm: round_to(g.bpm, 3),
        first_beat_seconds: round_to(g.first_beat_seconds, 4),
        beats: estimate
            .beat_times()
            .into_iter()
            .map(|t| round_to(t, 4))
            .collect(),
        beats_per_bar: g.beats_per_bar,
        first_downbeat_index: g.downbeat_phase,
        confidence: round_to(estimate.confidence, 3),
        duration_seconds: round_to(estimate.duration_seconds, 4),
        sample_rate: pcm.sample_rate(),
        channels: pcm.channels(),
    };
    if a.json {
        out!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        out!("bpm: {:.2}", out.bpm);
        out!("first_beat_seconds: {:.3}", out.first_beat_seconds);
        out!(
            "bars: {}/4, first downbeat is beat {}",
            out.beats_per_bar,
            out.first_downbeat_index
        );
        out!("confidence: {:.0}%", out.confidence * 100.0);
        out!(
            "song: {:.2} s, {} Hz, {} channel{}",
            out.duration_seconds,
            out.sample_rate,
            out.channels,
            if out.channels == 1 { "" } else { "s" }
        );
        let list: Vec<String> = out.beats.iter().map(|t| format!("{t:.3}")).collect();
        out!("beats ({}): {}", list.len(), list.join(" "));
    }
    Ok(())
}

fn round_to(x: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (x * f).round() / f
}
